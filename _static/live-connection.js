/* Live cells, part "connection": the tab's kernel, following its state, and sending it code
 * (live-server.js: where the kernel server is; live-thebe.js: thebe, loaded on the click).
 *
 * One kernel per tab: sessionStorage (which a reload keeps and another tab does not share) holds
 * the tab's kernel, {page, path, session, kernel}. A reload of the page asks Jupyter for a session
 * on the same path and gets the same kernel back (Jupyter hands out the existing session of a path);
 * a live page of another chapter in the tab shuts that kernel down first; "Restart kernel" starts
 * one on a new path. A kernel of a closed tab goes when the server culls it (tools/live_server.py).
 *
 * The kernel's state on the page is always the kernel's: a shutdown or restart from outside (the
 * REST API, another client, Jupyter's culler) reaches the page as the kernel's `shutdown_reply` on
 * IOPub (restart: true or false) or the server's `restarting`/`dead` status; a dropped websocket is
 * followed by asking the server whether the kernel still exists.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});
const TAB_KEY = 'live-tab-kernel'; // sessionStorage: this tab's kernel (see above)
const KERNEL_START_S = 60;

function withTimeout(promise, seconds, message) {
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(message)), seconds * 1000); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The kernel side of a page: `ctx` is live.js's shared state (ui, say, page, root, cells). */
live.connection = function connection(ctx) {
  const { say, ui } = ctx;
  let server = null;
  let connecting = null;
  let clickedAt = 0;
  let running = 0; // requests of this page the kernel has not answered yet: "busy" while any are
  let stopping = null; // {promise, reject}: what the running requests also wait on, rejected when the kernel goes
  let restarted = false; // the kernel restarted from outside and nothing ran since: keep saying so
  ctx.session = null;
  ctx.readyFor = null; // the session whose kernel has answered
  ctx.lost = false; // the kernel died under us: stay "disconnected" until the reader restarts it

  /**
   * Connect (once at a time). `fresh`: a new kernel, never the tab's old one; `afterRestart`: the
   * kernel restarted from outside, so the page keeps saying so (and how to set the chapter up again).
   */
  function start(clicked, { fresh = false, afterRestart = false } = {}) {
    if (connecting && fresh) return connecting.then(() => start(clicked, { fresh })); // then a new kernel
    if (clicked) clickedAt = performance.now();
    connecting = connecting || connect(fresh, afterRestart).finally(() => { connecting = null; });
    return connecting;
  }

  async function connect(fresh, afterRestart) {
    const where = live.credentials();
    ui.form.hidden = Boolean(where);
    if (!where) {
      ctx.show('disconnected', say('noServer'));
      return false;
    }
    if (where.local && location.hostname !== '127.0.0.1') {
      ctx.show('disconnected', say('wrongOrigin', { origin: location.origin }));
      return false;
    }
    ui.bar.classList.add('live-on'); // from now on the bar stays in view: it carries the way to recover
    ctx.editsChanged();
    if (!afterRestart) ctx.show('connecting', say('starting', { url: live.serverUrl(where) }));
    let reused = false;
    try {
      await dropSession(fresh && !ctx.lost);
      await live.loadThebe(ctx.root, say);
      const problem = await live.probe(where, say);
      if (problem) {
        ctx.show('disconnected', problem, ui.recover);
        return false;
      }
      const tab = live.stored(TAB_KEY);
      const mine = tab && tab.page === ctx.page.path && !fresh;
      if (tab && !mine) await live.shutDownSession(where, tab.session);
      // A path of its own per kernel: Jupyter hands out the existing session for a path it knows,
      // which is how a reload gets the tab's kernel back. Same folder as the chapter, same cwd.
      const path = mine ? tab.path : ctx.page.path.replace(/\.ipynb$/, `-live-${Date.now().toString(36)}.ipynb`);
      const config = thebeCore.api.makeConfiguration({
        useBinder: false, useJupyterLite: false, requestKernel: true,
        mathjaxUrl: '', // no MathJax 2 from a CDN: a text/latex output shows as text
        serverSettings: { baseUrl: live.serverUrl(where), wsUrl: live.serverUrl(where).replace('http', 'ws'),
                          token: where.token, appendToken: true },
        kernelOptions: { kernelName: 'python3', path },
      });
      if (!ctx.rendermime) {
        ctx.rendermime = thebeCore.api.makeRenderMimeRegistry(config.mathjax);
        live.pickEditions(ctx.rendermime);
        live.keepAnsiColours(ctx.rendermime);
      }
      if (!ctx.cells) ctx.buildCells(config);
      server = thebeCore.api.connectToJupyter(config);
      await server.ready;
      ctx.session = await server.startNewSession(ctx.rendermime);
      reused = Boolean(mine && tab.kernel === ctx.session.kernel.id);
      sessionStorage.setItem(TAB_KEY, JSON.stringify({ page: ctx.page.path, path, session: ctx.session.id,
                                                       kernel: ctx.session.kernel.id }));
      live.offlineWidgets(ctx.session);
      ctx.notebook.attachSession(ctx.session);
      watch(ctx.session, where);
      // The session exists once the kernel process does; "ready" is its first answer over the websocket.
      await withTimeout(ctx.session.kernel.info, KERNEL_START_S, say('noAnswer', { s: KERNEL_START_S }));
      ctx.readyFor = ctx.session;
    } catch (error) {
      ctx.show('disconnected', say('notStarted', { why: error.message || error }), ui.recover);
      return false;
    }
    sessionStorage.setItem(ctx.liveKey, '1');
    ui.launch.hidden = true;
    ui.restart.hidden = ui.download.hidden = false;
    const took = Math.round(performance.now() - clickedAt);
    if (!afterRestart) ui.status.dataset.readyMs = String(took);
    Object.assign(ui.status.dataset, { kernel: ctx.session.kernel.id, connectedAt: String(Date.now()) });
    // "Run live" is gone: a keyboard reader's focus goes to the status it turned into, not to the page's top
    if ([ui.launch, document.body, null].includes(document.activeElement)) ui.status.focus();
    const values = { url: live.serverUrl(where), s: (took / 1000).toFixed(1) };
    if (afterRestart) showRestarted();
    else ctx.show('ready', say(reused ? 'reconnected' : 'started', values));
    return true;
  }

  /** Leave the session: shut its kernel down (`shutDown`) or only let go of it here. */
  async function dropSession(shutDown) {
    const [oldSession, oldServer] = [ctx.session, server];
    ctx.session = server = ctx.readyFor = null;
    if (oldSession && shutDown) await oldSession.shutdown().catch(() => oldSession.dispose());
    else if (oldSession && !oldSession.isDisposed) oldSession.dispose(); // its kernel is gone, or kept for the tab
    if (oldServer) {
      // ThebeServer.dispose (thebe-core 0.5.0) leaves its KernelManager polling /api/kernels every 10 s.
      const kernels = oldServer.sessionManager && oldServer.sessionManager._kernelManager;
      oldServer.dispose();
      if (kernels && !kernels.isDisposed) kernels.dispose();
    }
  }
  function showRestarted() {
    restarted = true;
    ctx.show('restarted', say('restartedOutside'), ctx.lastRun ? ui.rerun : null);
  }

  /**
   * The kernel of `current` went: `how` is "dead", or "restarted" (a fresh process in its place,
   * nothing defined): then the page connects to it again, as after a reload, and runs wait for that.
   */
  function gone(current, how, followed = false) {
    if (current !== ctx.session || ctx.readyFor !== current || ctx.lost) return;
    // a "starting" that follows the restart just handled on this connection is the same restart, said twice
    if (how === 'starting' && performance.now() - (current.tdsRestartedAt ?? -Infinity) < 5000) return;
    if (how === 'starting') how = 'restarted';
    if (how === 'restarted') current.tdsRestartedAt = performance.now();
    if (stopping) stopping.reject(new Error(how));
    stopping = null;
    if (how === 'dead') {
      ctx.lost = true;
      ctx.show('disconnected', say('died'), ui.restart);
      return;
    }
    ctx.readyFor = null;
    ui.status.dataset.restartedAt = String(Date.now());
    showRestarted();
    // `followed`: jupyterlab saw the restart too and connects to the new process itself; else the page does
    live.settled(current.kernel).then(() => {
      if (!followed) return start(false, { afterRestart: true });
      if (current === ctx.session) ctx.readyFor = current;
      return true;
    });
  }

  function watch(current, where) {
    ctx.lost = false;
    restarted = false;
    const kernel = current.kernel;
    /** Whether the server went (its kernels with it), or only this kernel: say which, with the way on. */
    async function which(tries = 0) {
      if (current !== ctx.session || ctx.readyFor !== current || ctx.lost) return;
      const problem = await live.probe(where, say).catch((error) => String(error));
      if (current !== ctx.session || ctx.lost) return;
      if (problem) {
        ctx.lost = true;
        await dropSession(false);
        ctx.show('disconnected', say('lost', { why: problem }), ui.recover);
      } else if (!(await live.kernelExists(where, kernel.id).catch(() => true))) {
        gone(current, 'dead');
      } else if (tries > 0) {
        setTimeout(() => which(tries - 1), 300); // a kernel being shut down is listed until its process ends
      }
    }
    kernel.iopubMessage.connect((_, message) => {
      if (message.header.msg_type !== 'shutdown_reply') return;
      if (message.content.restart) gone(current, 'restarted');
      else setTimeout(() => which(10), 300); // a stopping server shuts its kernels down first
    });
    kernel.statusChanged.connect((_, state) => {
      if (state === 'dead') gone(current, 'dead');
      else if (state === 'starting') gone(current, 'starting');
      else if (['restarting', 'autorestarting'].includes(state)) gone(current, 'restarted', true);
    });
    kernel.connectionStatusChanged.connect((_, state) => {
      if (current !== ctx.session || ctx.readyFor !== current || ctx.lost) return;
      if (state === 'connected' && ui.status.dataset.state === 'connecting') ctx.show('ready', say('waiting'));
      if (state !== 'connecting') return;
      ctx.show('connecting', say('retrying', { url: live.serverUrl(where) }));
      which();
    });
  }

  async function ready() { // before each run: connect first if need be
    if (ctx.readyFor && !ctx.lost) return true;
    if (ctx.lost) {
      ui.restart.focus(); // the reader asked to run something: lead them to the way out
      return false;
    }
    return start(true);
  }

  /**
   * Send `code` to the kernel; `cell` (if any) shows what it sends back. `silent`: no output, no
   * history (the kernel's In list, which checks may read, holds only what the reader ran).
   * Rejects if the kernel stops, restarts or drops before it answers.
   */
  async function execute(cell, code, { silent = false } = {}) {
    const future = ctx.session.kernel.requestExecute({ code, stop_on_error: true, silent, store_history: !silent });
    future.done.catch(() => {}); // a kernel that went leaves it unanswered or cancelled: `gone` says so
    if (cell) cell.thebe.area.future = future; // thebe-core's OutputArea draws every message of the request
    stopping = stopping || stopSignal();
    const stopped = stopping.promise;
    running += 1;
    restarted = false;
    ctx.show('busy', running > 1 ? say('queued', { n: running }) : say('running'));
    try {
      return (await Promise.race([future.done, stopped])).content; // {status: 'ok'} or {status: 'error', ename, evalue}
    } finally {
      running -= 1;
      if (!running && !ctx.lost && ctx.readyFor && !restarted) ctx.show('ready', say('waiting'));
    }
  }

  return { start, ready, execute };
};

/** A promise (already handled) and the function that rejects it. */
function stopSignal() {
  const signal = {};
  signal.promise = new Promise((_, reject) => { signal.reject = reject; });
  signal.promise.catch(() => {});
  return signal;
}
})();
