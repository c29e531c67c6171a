/* Live cells, part "connection": the tab's kernel, connecting to it and sending it code
 * (live-server.js: where the kernel server is; live-thebe.js: thebe, loaded on the click;
 * live-watch.js: what happens to the kernel afterwards; live-tabs.js: the tab among the others).
 *
 * One kernel per tab: sessionStorage (which a reload keeps and another tab does not share) holds
 * the tab's kernel, {page, path, session, kernel, setUp}. A reload of the page asks Jupyter for a
 * session on the same path and gets the same kernel back (Jupyter hands out the existing session of
 * a path); a live page of another chapter in the tab shuts that kernel down first; "Restart kernel"
 * starts one on a new path, once the reader confirms (all the kernel holds is lost).
 *
 * A kernel that does not answer is asked about through the REST API, and the page recovers by
 * itself, saying so. (Issue 41: restart a kernel through the API, delete it while it restarts,
 * reload, and the page waited 60 s for a kernel_info that never came. About 30 tries here did not
 * hang again. What can hold a first answer back is on the server's side of the websocket, behind
 * which the kernel is gone or silent: jupyter_server 2.x's services/kernels/connection/channels.py,
 * whose `prepare` waits up to kernel_info_timeout, 60 s, for the kernel to be alive and for a
 * kernel_info future its kernel manager shares between connections, and whose `connect` nudges the
 * kernel until it answers; a stopped kernel process shows the nudges in the server's log.)
 * So: gone from the server, or dead, a fresh kernel at once; busy (a cell from before a reload),
 * wait, with Interrupt; starting, up to KERNEL_START_S; idle there and silent here for STUCK_S, a
 * fresh kernel.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});
const KERNEL_START_S = 60;
const ASK_SERVER_EVERY_S = 5; // while a kernel does not answer: whether the server still has it
const FIRST_ASK_S = 1.5; // the first time sooner: a kernel busy since before a reload says so at once
const STUCK_S = 20; // a kernel the server calls idle that says nothing for this long will not

/** Whether `promise` settles within `seconds` (true) or not (false); a rejection rejects. */
function within(promise, seconds) {
  let timer;
  const late = new Promise((resolve) => { timer = setTimeout(() => resolve(false), seconds * 1000); });
  return Promise.race([promise.then(() => true), late]).finally(() => clearTimeout(timer));
}

/** The kernel side of a page: `ctx` is live.js's shared state (ui, say, page, root, cells). */
live.connection = function connection(ctx) {
  const { say, ui } = ctx;
  const conn = { ctx, server: null, connecting: null, clickedAt: 0 };
  ctx.session = null;
  ctx.readyFor = null; // the session whose kernel has answered
  ctx.lost = false; // the kernel went: stay "disconnected" until the reader restarts it

  /**
   * Connect (once at a time). `fresh`: a new kernel, never the tab's old one; `afterRestart`: the
   * kernel restarted under the page, which keeps saying why (`why`, the words of live-watch.js).
   */
  function start(clicked, { fresh = false, afterRestart = false, why = null } = {}) {
    if (conn.connecting && fresh) return conn.connecting.then(() => start(clicked, { fresh })); // then a new kernel
    if (clicked) conn.clickedAt = performance.now();
    conn.connecting = conn.connecting || connect(fresh, afterRestart, why).finally(() => { conn.connecting = null; });
    return conn.connecting;
  }

  /** "Restart kernel": a fresh kernel, once the reader agrees to lose what the running one holds (not
   * asked when it holds nothing: it stopped, or it restarted and nothing ran since). */
  function restart() {
    const holds = ctx.readyFor && !ctx.lost && !conn.restarted;
    if (holds && !confirm(say('restartAsk'))) return Promise.resolve(false);
    return start(true, { fresh: true });
  }

  async function connect(fresh, afterRestart, why) {
    let where = live.credentials() || ((await live.askOtherTabs()) && live.credentials());
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
    let replaced = false;
    try {
      await dropSession(fresh && !ctx.lost);
      await live.loadThebe(ctx.root, say);
      const problem = await live.probe(where, say);
      if (problem) {
        ctx.show('disconnected', problem, ui.recover);
        return false;
      }
      await live.forgetCopiedKernel();
      const tab = live.stored(live.TAB_KEY);
      const mine = tab && tab.page === ctx.page.path && !fresh;
      if (tab && !mine) await live.shutDownSession(where, tab.session);
      reused = await open(where, mine ? tab : null);
      if (reused === null) { // the tab's kernel never answered, and the server no longer has it
        replaced = true;
        await live.shutDownSession(where, live.stored(live.TAB_KEY).session);
        await dropSession(false);
        reused = await open(where, null);
      }
      if (reused === null) throw new Error(say('noAnswer', { s: KERNEL_START_S }));
      ctx.readyFor = ctx.session;
    } catch (error) {
      ctx.show('disconnected', say('notStarted', { why: live.why(error, say) }), ui.recover);
      return false;
    }
    sessionStorage.setItem(ctx.liveKey, '1');
    ui.launch.hidden = true;
    ui.restart.hidden = ui.download.hidden = false;
    const took = Math.round(performance.now() - conn.clickedAt);
    if (!afterRestart) ui.status.dataset.readyMs = String(took);
    Object.assign(ui.status.dataset, { kernel: ctx.session.kernel.id, connectedAt: String(Date.now()) });
    // "Run live" is gone: a keyboard reader's focus goes to the status it turned into, not to the page's top
    if ([ui.launch, document.body, null].includes(document.activeElement)) ui.status.focus();
    const values = { url: live.serverUrl(where), s: (took / 1000).toFixed(1) };
    if (afterRestart) conn.watcher.showRestarted(why);
    else ctx.show('ready', say(replaced ? 'replaced' : reused ? 'reconnected' : 'started', values));
    return true;
  }

  /**
   * Start a session on the tab's path (`tab`: the tab's kernel, kept on a reload) or a new one, and
   * wait for its kernel's first answer. true: the tab's kernel came back; false: a new kernel;
   * null: the kernel never answered and the server no longer has it.
   */
  async function open(where, tab) {
    // A path of its own per kernel: Jupyter hands out the existing session for a path it knows,
    // which is how a reload gets the tab's kernel back. Same folder as the chapter, same cwd.
    const path = tab ? tab.path : ctx.page.path.replace(/\.ipynb$/, `-live-${Date.now().toString(36)}.ipynb`);
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
      live.explainErrors(ctx.rendermime, ctx.page.explained);
      live.keepAnsiColours(ctx.rendermime);
      live.capOutputs(ctx.rendermime, say); // last: it sees each output first, and the others only its part
    }
    if (!ctx.cells) ctx.buildCells(config);
    conn.server = live.connectQuietly(config);
    await conn.server.ready;
    ctx.session = await conn.server.startNewSession(ctx.rendermime);
    const kernel = ctx.session.kernel;
    const reused = Boolean(tab && tab.kernel === kernel.id);
    sessionStorage.setItem(live.TAB_KEY, JSON.stringify({
      page: ctx.page.path, path, session: ctx.session.id, kernel: kernel.id, setUp: reused && tab.setUp }));
    live.offlineWidgets(ctx.session);
    ctx.notebook.attachSession(ctx.session);
    conn.watcher.watch(ctx.session, where);
    // The session exists once the kernel process does; "ready" is its first answer over the websocket.
    // Jupyter says it is busy (a cell from before a reload still runs): wait for as long as it runs.
    // Starting: up to KERNEL_START_S. Idle, yet silent on the websocket: something between is stuck.
    const info = kernel.info;
    const waited = { starting: 0, other: 0 };
    while (!(await within(info, waited.asked ? ASK_SERVER_EVERY_S : FIRST_ASK_S))) {
      waited.asked = true;
      const model = await live.kernelModel(where, kernel.id).catch(() => ({}));
      if (!model || model.execution_state === 'dead') return null; // what it waits for will never come
      if (model.execution_state === 'busy') { // say so, and offer the way to stop it
        ctx.show('connecting', say('stillBusy'));
        ui.interrupt.hidden = false;
        continue;
      }
      const kind = model.execution_state === 'starting' ? 'starting' : 'other';
      waited[kind] += ASK_SERVER_EVERY_S;
      if (waited.starting >= KERNEL_START_S || waited.other >= STUCK_S) return null;
    }
    ui.interrupt.hidden = true;
    return reused;
  }

  /** Leave the session: shut its kernel down (`shutDown`) or only let go of it here. */
  async function dropSession(shutDown) {
    const [oldSession, oldServer] = [ctx.session, conn.server];
    ctx.session = conn.server = ctx.readyFor = null;
    conn.runs.stopAll('dropped'); // what it was to run never will
    if (oldSession && shutDown) await oldSession.shutdown().catch(() => oldSession.dispose());
    else if (oldSession && !oldSession.isDisposed) oldSession.dispose(); // its kernel is gone, or kept for the tab
    if (oldServer) {
      // ThebeServer.dispose (thebe-core 0.5.0) leaves its KernelManager polling /api/kernels every 10 s.
      const kernels = oldServer.sessionManager && oldServer.sessionManager._kernelManager;
      oldServer.dispose();
      if (kernels && !kernels.isDisposed) kernels.dispose();
    }
  }

  async function ready() { // before each run: connect first if need be
    if (conn.settling) await conn.settling; // the kernel restarted: its connection comes back by itself
    if (ctx.readyFor && !ctx.lost) return true;
    if (ctx.lost) {
      ui.restart.focus(); // the reader asked to run something: lead them to the way out
      return false;
    }
    return start(true);
  }

  /** Stop what the kernel runs now (KeyboardInterrupt in the cell); what is defined stays. */
  function interrupt() { // through the REST API: it works while the kernel's websocket waits for it too
    if (ctx.session && !ctx.lost) ctx.session.kernel.interrupt().catch(() => {});
  }

  Object.assign(conn, { start, dropSession });
  conn.watcher = live.watcher(ctx, conn);
  conn.runs = live.runs(ctx, conn);
  return { start, restart, ready, interrupt, execute: conn.runs.execute, pending: conn.runs.pending,
           setUp: conn.runs.setUp };
};
})();
