/* Live cells, part "connection": where the kernel server is, loading thebe, starting a kernel,
 * following it, and sending it code.
 *
 * The URL `make live` printed ends in #live=<port>&token=<token>. The token moves into
 * sessionStorage and out of the address bar at once; it is only ever sent to the kernel server on
 * 127.0.0.1. thebe (about 3 MB) loads when "Run live" is clicked, never before.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});
const CREDENTIALS_KEY = 'live-kernel-server'; // sessionStorage: {port, token} from the URL
const KERNEL_START_S = 60;

/** Move a token in the URL's fragment into sessionStorage; true if there was one. */
live.takeCredentialsFromUrl = function takeCredentialsFromUrl() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (!fragment.has('token')) return false;
  const port = fragment.get('live') || '8899';
  sessionStorage.setItem(CREDENTIALS_KEY, JSON.stringify({ port, token: fragment.get('token') }));
  fragment.delete('token');
  fragment.delete('live');
  const rest = fragment.toString();
  history.replaceState(history.state, '', location.pathname + location.search + (rest ? `#${rest}` : ''));
  return true;
};

live.credentials = function credentials() {
  try {
    return JSON.parse(sessionStorage.getItem(CREDENTIALS_KEY));
  } catch {
    return null;
  }
};

const serverUrl = ({ port }) => `http://127.0.0.1:${port}`;

function withTimeout(promise, seconds, message) {
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(message)), seconds * 1000); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * thebe-core 0.5.0 fetches require.js from a CDN before it draws any ipywidget, even the built-in
 * ones it bundles (@jupyter-widgets/base, controls, output: src/manager.ts, loadClass). Those are
 * all this book uses, so mark its loader as done: they draw offline, and nothing else is fetched.
 */
function offlineWidgets(current) {
  const loader = current.manager && current.manager._loader;
  if (loader && !loader.requested) {
    loader.requested = true;
    loader.resolveFn({ require: null, define: null });
  }
}

/** The kernel side of a page: `ctx` is live.js's shared state (ui, say, page, root, cells). */
live.connection = function connection(ctx) {
  const { say, ui } = ctx;
  let thebeLoaded = null;
  let server = null;
  let connecting = null;
  let clickedAt = 0;
  let running = 0; // requests of this page the kernel has not answered yet: "busy" while any are
  ctx.session = null;
  ctx.readyFor = null; // the session whose kernel has answered
  ctx.lost = false; // the kernel died under us: stay "disconnected" until the reader restarts it

  function loadThebe() {
    thebeLoaded = thebeLoaded || new Promise((resolve, reject) => {
      const css = live.element('link', { rel: 'stylesheet', href: `${ctx.root}_thebe/thebe.css` });
      const script = live.element('script', { src: `${ctx.root}_thebe/index.js` });
      script.onload = () => resolve();
      script.onerror = () => {
        thebeLoaded = null;
        reject(new Error(say.noThebe(ctx.root)));
      };
      document.head.append(css, script);
    });
    return thebeLoaded;
  }

  async function probe(where) {
    const refused = say.refused;
    try {
      await fetch(`${serverUrl(where)}/api`, { cache: 'no-store' }); // needs no token
    } catch {
      return say.nothingAnswers(serverUrl(where));
    }
    let answer;
    try {
      answer = await fetch(`${serverUrl(where)}/api/status`, {
        cache: 'no-store', headers: { Authorization: `token ${where.token}` },
      });
    } catch {
      return refused; // Jupyter's 403 carries no CORS header, so the browser reports a network error
    }
    if (answer.status === 401 || answer.status === 403) return refused;
    return answer.ok ? null : say.answered(answer.status, answer.statusText);
  }

  function start(clicked) {
    if (clicked) clickedAt = performance.now();
    connecting = connecting || connect().finally(() => { connecting = null; });
    return connecting;
  }

  async function connect() {
    const where = live.credentials();
    if (!where) {
      ctx.show('disconnected', say.noServer);
      return false;
    }
    if (location.hostname !== '127.0.0.1') {
      ctx.show('disconnected', say.wrongOrigin(location.origin));
      return false;
    }
    ui.bar.classList.add('live-on'); // from now on the bar stays in view: it carries the way to recover
    ctx.show('connecting', say.starting(serverUrl(where)));
    try {
      await dropSession();
      await loadThebe();
      const problem = await probe(where);
      if (problem) {
        ctx.show('disconnected', problem, ui.recover);
        return false;
      }
      const config = thebeCore.api.makeConfiguration({
        useBinder: false, useJupyterLite: false, requestKernel: true,
        mathjaxUrl: '', // no MathJax 2 from a CDN: a text/latex output shows as text
        serverSettings: { baseUrl: serverUrl(where), wsUrl: serverUrl(where).replace('http', 'ws'),
                          token: where.token, appendToken: true },
        // A path of its own per connection: Jupyter hands out the existing session for a path it
        // knows, so a restart (or a second tab) would get the old kernel back. Same folder, same cwd.
        kernelOptions: { kernelName: 'python3',
                         path: ctx.page.path.replace(/\.ipynb$/, `-live-${Date.now().toString(36)}.ipynb`) },
      });
      ctx.rendermime = ctx.rendermime || thebeCore.api.makeRenderMimeRegistry(config.mathjax);
      if (!ctx.cells) ctx.buildCells(config);
      server = thebeCore.api.connectToJupyter(config);
      await server.ready;
      ctx.session = await server.startNewSession(ctx.rendermime);
      offlineWidgets(ctx.session);
      ctx.notebook.attachSession(ctx.session);
      watch(ctx.session, where);
      // The session exists once the kernel process does; "ready" is its first answer over the websocket.
      await withTimeout(ctx.session.kernel.info, KERNEL_START_S, say.noAnswer(KERNEL_START_S));
      ctx.readyFor = ctx.session;
    } catch (error) {
      ctx.show('disconnected', say.notStarted(error.message || error), ui.recover);
      return false;
    }
    sessionStorage.setItem(ctx.liveKey, '1');
    ui.launch.hidden = true;
    ui.restart.hidden = ui.download.hidden = false;
    const took = Math.round(performance.now() - clickedAt);
    ui.status.dataset.readyMs = String(took);
    // "Run live" is gone: a keyboard reader's focus goes to the status it turned into, not to the page's top
    if ([ui.launch, document.body, null].includes(document.activeElement)) ui.status.focus();
    ctx.show('ready', say.started(serverUrl(where), (took / 1000).toFixed(1)));
    return true;
  }

  async function dropSession() {
    const [oldSession, oldServer] = [ctx.session, server];
    ctx.session = server = ctx.readyFor = null;
    if (oldSession) await oldSession.shutdown().catch(() => oldSession.dispose());
    if (oldServer) {
      // ThebeServer.dispose (thebe-core 0.5.0) leaves its KernelManager polling /api/kernels every 10 s.
      const kernels = oldServer.sessionManager && oldServer.sessionManager._kernelManager;
      oldServer.dispose();
      if (kernels && !kernels.isDisposed) kernels.dispose();
    }
  }

  function watch(current, where) {
    ctx.lost = false;
    const kernel = current.kernel;
    kernel.statusChanged.connect((_, state) => {
      if (current !== ctx.session || ctx.readyFor !== current) return;
      if (state === 'autorestarting' || state === 'dead') {
        ctx.lost = true;
        ctx.show('disconnected', say.died, null);
      }
    });
    kernel.connectionStatusChanged.connect(async (_, state) => {
      if (current !== ctx.session || ctx.readyFor !== current || state !== 'connecting' || ctx.lost) return;
      ctx.show('connecting', say.retrying(serverUrl(where)));
      const problem = await probe(where).catch((error) => String(error));
      if (problem && current === ctx.session) {
        ctx.lost = true;
        await dropSession();
        ctx.show('disconnected', say.lost(problem), ui.recover);
      }
    });
  }

  async function ready() {
    if (ctx.readyFor && !ctx.lost) return true;
    if (ctx.lost) {
      ui.restart.focus(); // the reader asked to run something: lead them to the way out
      return false;
    }
    return start(true);
  }

  /** Send `code` to the kernel; `cell` (if any) shows what it sends back. Rejects if the kernel dies. */
  async function execute(cell, code) {
    const future = ctx.session.kernel.requestExecute({ code, stop_on_error: true });
    if (cell) cell.thebe.area.future = future; // thebe-core's OutputArea draws every message of the request
    running += 1;
    ctx.show('busy', running > 1 ? say.queued(running) : say.running);
    try {
      return (await future.done).content; // {status: 'ok'} or {status: 'error', ename, evalue}
    } finally {
      running -= 1;
      if (!running && !ctx.lost && ctx.readyFor) ctx.show('ready', say.waiting);
    }
  }

  return { start, ready, execute };
};
})();
