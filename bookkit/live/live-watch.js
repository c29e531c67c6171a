/* Live cells, part "watch": what happens to the tab's kernel once it runs, and the real cause, said.
 *
 * The kernel's state on the page is always the kernel's, and the page names what made it change:
 *   - the kernel restarted by a client (the REST API, another client): its own `shutdown_reply`
 *     on IOPub says restart: true, before it goes ("restarted from outside this page");
 *   - the kernel's process died (os._exit, a crash, out of memory, killed) and Jupyter started a
 *     fresh one: the server's `restarting` status with no shutdown_reply before it. If a cell of
 *     this page was sent to it and not answered, that cell is named as where it happened, the
 *     likeliest cause, without claiming more: a process that ends at once takes its last messages
 *     with it, so whether the cell had begun cannot be known;
 *   - the kernel shut down (the REST API, the idle cull) or Jupyter could not restart it: a
 *     shutdown_reply with restart: false, or the server's `dead`, or the kernel no longer listed;
 *   - the server itself stopped (Ctrl-C in `make live`): it shuts its kernels down first and then
 *     stops answering, so after a kernel's shutdown the page keeps asking the server for a few
 *     seconds, and whenever the connection drops; once it does not answer, that is what it says,
 *     with the way on ("make live" again), never "Restart kernel", which cannot work then.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});
const STARTING_AFTER_MS = 10000; // a "starting" this soon after a restart handled is that restart's
// after a kernel's shutdown: whether the server is stopping (20 quick asks), then, while the page
// says the kernel was shut down, every 2 s, so that a server stopped later is still said
const SERVER_WATCH = { tries: 20, every: 300, whileShutDown: 2000 };

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/** The watcher of `conn`'s kernel (live-connection.js): `ctx` is live.js's shared state. */
live.watcher = function watcher(ctx, conn) {
  const { say, ui } = ctx;

  function showRestarted(why) {
    conn.restarted = true;
    ctx.show('restarted', why || say('restartedOutside'), ctx.lastRun ? ui.rerun : null);
  }

  /** The words for a kernel whose process died under a run of `cell` (null: a hidden one), or under none. */
  function died(running) {
    return running ? say('diedInCell', { where: ctx.cellName(running.cell) }) : say('diedOutside');
  }

  /** The server stopped, or refuses this page now: say so, with the way on; no "Restart kernel". */
  async function serverGone(current, problem) {
    if (current !== ctx.session || ctx.serverGone) return;
    ctx.lost = ctx.serverGone = true;
    conn.runs.stopAll('server');
    ui.restart.hidden = true;
    await conn.dropSession(false);
    ctx.show('disconnected', say('lost', { why: problem }), ui.recover);
  }

  /**
   * The kernel of `current` went: `how` is "restarted" (by a client), "died" (its process ended and
   * Jupyter started a fresh one), "shutDown" or "dead" (no kernel left).
   */
  function gone(current, how) {
    if (current !== ctx.session || ctx.lost) return;
    // the statuses that follow a restart already handled (restarting, autorestarting, starting) are that
    // restart said again, until the new process says it is idle or busy; its own "starting" can come
    // after that, once jupyterlab's reconnection asked it for its info: for a while, it is that one too
    if (['died', 'starting'].includes(how) && current.tdsRestarting) return;
    if (how === 'starting' && performance.now() - (current.tdsRestartedAt ?? -Infinity) < STARTING_AFTER_MS) return;
    if (how === 'starting') {
      if (ctx.readyFor !== current) return; // the first start of this kernel
      how = 'died';
    }
    const running = conn.runs.current();
    if (how === 'shutDown' || how === 'dead') {
      ctx.lost = true;
      conn.runs.stopAll(how);
      ctx.show('disconnected', say(how === 'dead' ? 'died' : 'shutDownOutside'), ui.restart);
      return;
    }
    current.tdsRestarting = true;
    current.tdsRestartedAt = performance.now();
    ctx.readyFor = null;
    conn.runs.stopAll(how);
    ui.status.dataset.restartedAt = String(Date.now());
    ui.status.dataset.cause = how;
    conn.forgetSetUp();
    const why = how === 'died' ? died(running) : say('restartedOutside');
    showRestarted(why);
    // "died": jupyterlab saw the server's restart and connects to the new process itself (a run asked for
    // meanwhile waits for that: `conn.settling`); else the page does
    conn.settling = live.settled(current.kernel).then(() => {
      conn.settling = null;
      if (how !== 'died') return conn.start(false, { afterRestart: true, why });
      if (current === ctx.session) ctx.readyFor = current;
      return true;
    });
  }

  /** After the kernel's shutdown, or a dropped connection: is the kernel listed, does the server answer? */
  async function which(current, where, tries = 1) {
    for (let i = 0; current === ctx.session && (i < tries || current.shutDownSaid); i++) {
      if (i) await sleep(i < tries ? SERVER_WATCH.every : SERVER_WATCH.whileShutDown);
      const problem = await live.probe(where, say).catch((error) => String(error));
      if (current !== ctx.session) return;
      if (problem) return serverGone(current, problem);
      // the session forgets its kernel once the kernel is shut down: its id was kept when watched
      const model = await live.kernelModel(where, current.watchedKernelId).catch(() => undefined);
      current.shutDownSaid = model === null;
      if (model === null) gone(current, 'shutDown'); // and keep asking: a stopping server goes next
    }
  }

  function watch(current, where) {
    ctx.lost = ctx.serverGone = false;
    conn.restarted = false;
    const kernel = current.kernel;
    current.watchedKernelId = kernel.id;
    current.shutDownSaid = false;
    kernel.iopubMessage.connect((_, message) => {
      conn.runs.heard(message);
      if (message.header.msg_type !== 'shutdown_reply') return;
      if (message.content.restart) gone(current, 'restarted');
      else which(current, where, SERVER_WATCH.tries); // a stopping server shuts its kernels down first
    });
    kernel.statusChanged.connect((_, state) => {
      if (['idle', 'busy'].includes(state)) current.tdsRestarting = false;
      if (state === 'dead') gone(current, 'dead');
      else if (state === 'starting') gone(current, 'starting');
      else if (['restarting', 'autorestarting'].includes(state)) gone(current, 'died');
    });
    kernel.connectionStatusChanged.connect((_, state) => {
      if (current !== ctx.session || ctx.serverGone) return;
      if (state !== 'connecting') {
        // back after a dropped connection (not the first connection, whose end live-connection.js says)
        if (state === 'connected' && ui.status.dataset.state === 'connecting' && !ctx.lost && ctx.readyFor === current) {
          ctx.show('ready', say('waiting'));
        }
        return;
      }
      if (!ctx.lost && ctx.readyFor === current) ctx.show('connecting', say('retrying', { url: live.serverUrl(where) }));
      which(current, where, 3);
    });
  }

  return { watch, showRestarted };
};
})();
