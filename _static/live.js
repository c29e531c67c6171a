/* Live cells: run and edit this page's code on a Jupyter kernel on the reader's own machine.
 *
 * What this script expects from the page (tools/live_cells.py writes it at build time):
 *   - <script type="application/json" id="live-cells">{path, cells, exercises}</script>:
 *     `path` is the notebook path the kernel starts in; `cells` lists every code cell
 *     ({index, tags, exercise?, source?}; `source` only for cells the page does not show);
 *     `exercises` lists each graded exercise ({label, title, stub}).
 *   - each rendered code cell as div.cell.live-cell-<index>, holding div.cell_input and,
 *     when it has outputs, div.cell_output (myst-nb's markup);
 *   - each exercise as div.exercise#<label> (sphinx-exercise's markup);
 *   - <html data-content_root="...">, the way back to the site's root, where thebe is
 *     (_thebe/index.js, copied there by `make setup`) and the page's notebook (_sources/).
 * And from the reader: the URL `make live` printed, ending in #live=<port>&token=<token>.
 * The token moves into sessionStorage and out of the address bar at once; it is only ever
 * sent to the kernel server on 127.0.0.1. thebe (about 3 MB) loads when "Run live" is
 * clicked, never before. Pages without the JSON (search, index) are left alone.
 */
'use strict';

function liveCells() {
  const dataElement = document.getElementById('live-cells');
  if (!dataElement) return;
  const page = JSON.parse(dataElement.textContent);
  const root = document.documentElement.dataset.content_root || './';
  const EDITS_KEY = `live-edits:${page.path}`; // localStorage: a reader's code, per page
  const LIVE_KEY = `live-on:${page.path}`; // sessionStorage: reconnect when this page reloads
  const CREDENTIALS_KEY = 'live-kernel-server'; // sessionStorage: {port, token} from the URL
  const KERNEL_START_S = 60;

  // ----- where the kernel server is -------------------------------------------------------

  function takeCredentialsFromUrl() {
    const fragment = new URLSearchParams(location.hash.slice(1));
    if (!fragment.has('token')) return false;
    const port = fragment.get('live') || '8899';
    sessionStorage.setItem(CREDENTIALS_KEY, JSON.stringify({ port, token: fragment.get('token') }));
    fragment.delete('token');
    fragment.delete('live');
    const rest = fragment.toString();
    history.replaceState(history.state, '', location.pathname + location.search + (rest ? `#${rest}` : ''));
    return true;
  }

  function credentials() {
    try {
      return JSON.parse(sessionStorage.getItem(CREDENTIALS_KEY));
    } catch {
      return null;
    }
  }

  const serverUrl = ({ port }) => `http://127.0.0.1:${port}`;

  // ----- the reader's edits, kept per page ---------------------------------------------------

  function loadEdits() {
    try {
      const saved = JSON.parse(localStorage.getItem(EDITS_KEY));
      return saved && saved.cells ? saved : { cells: {} };
    } catch {
      return { cells: {} };
    }
  }

  const edits = loadEdits();
  let saveTimer = null;

  function saveEdits() {
    clearTimeout(saveTimer);
    saveTimer = null;
    try {
      localStorage.setItem(EDITS_KEY, JSON.stringify(edits));
      return true;
    } catch {
      tell('this browser refused to store your edits (storage full or blocked): use "Download my ' +
           'notebook" before you leave the page.');
      return false;
    }
  }

  function rememberEdit(key, source, original) {
    if (source === original) delete edits.cells[key];
    else edits.cells[key] = { source, original };
    clearTimeout(saveTimer);
    saveTimer = setTimeout(saveEdits, 300);
  }

  addEventListener('pagehide', () => saveTimer && saveEdits());

  // ----- the bar: "Run live", the status, and the page-wide controls -------------------------

  const bar = element('div', { class: 'live-bar' });
  const launch = button('Run live', () => start(true));
  const status = element('p', { class: 'live-status', role: 'status', tabindex: '-1' });
  const recover = button('Reconnect', () => start(true));
  const restart = button('Restart kernel', () => start(true));
  const download = button('Download my notebook', () => downloadNotebook());
  recover.hidden = restart.hidden = download.hidden = true;
  bar.append(launch, recover, restart, download, status);
  const heading = document.querySelector('article.bd-article h1');
  (heading || document.querySelector('article.bd-article') || document.body).after(bar);

  /** The status element: one of connecting, ready, busy, disconnected, and what it means. */
  function show(state, detail, control = null) {
    status.dataset.state = state;
    status.replaceChildren(element('strong', {}, state), document.createTextNode(detail ? ` \u2014 ${detail}` : ''));
    recover.hidden = control !== recover;
  }

  /** A message that leaves the state as it is. */
  function tell(detail) {
    show(status.dataset.state || 'disconnected', detail, recover.hidden ? null : recover);
  }

  const editedCount = Object.keys(edits.cells).length;
  if (editedCount) {
    status.textContent = `You changed ${editedCount} cell${editedCount > 1 ? 's' : ''} on this page; ` +
      '"Run live" brings your code back.';
  }

  // ----- loading thebe (on click only) --------------------------------------------------------

  let thebeLoaded = null;

  function loadThebe() {
    thebeLoaded = thebeLoaded || new Promise((resolve, reject) => {
      const css = element('link', { rel: 'stylesheet', href: `${root}_thebe/thebe.css` });
      const script = element('script', { src: `${root}_thebe/index.js` });
      script.onload = () => resolve();
      script.onerror = () => {
        thebeLoaded = null;
        reject(new Error(`this site has no ${root}_thebe/index.js: run "make setup", then "make live" again`));
      };
      document.head.append(css, script);
    });
    return thebeLoaded;
  }

  // ----- connecting --------------------------------------------------------------------------

  let server = null;
  let session = null;
  let rendermime = null;
  let cells = null; // [{index, key, thebe, editor, box, note, verdict, ...}] once the editors exist
  let notebook = null; // thebe-core's notebook of those cells
  let readyFor = null; // the session whose kernel has answered
  const names = new Map(); // exercise label -> "Exercise 4.1"
  let connecting = null;
  let clickedAt = 0;

  async function probe(where) {
    const refused = 'the kernel server refused this page\'s token. Every "make live" prints a new URL: ' +
      'open the one it printed last (or stop it and run it again).';
    try {
      await fetch(`${serverUrl(where)}/api`, { cache: 'no-store' }); // needs no token
    } catch {
      return `nothing answers on ${serverUrl(where)}. In the book's folder run "make live" ` +
        'and open the URL it prints.';
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
    return answer.ok ? null : `the kernel server answered ${answer.status} ${answer.statusText}.`;
  }

  function start(clicked) {
    if (clicked) clickedAt = performance.now();
    connecting = connecting || connect().finally(() => { connecting = null; });
    return connecting;
  }

  async function connect() {
    const where = credentials();
    if (!where) {
      show('disconnected', 'live cells run on a Jupyter kernel on your own machine. In the book\'s ' +
           'folder run "make live" and open the URL it prints (it carries the key to the kernel).');
      return false;
    }
    if (location.hostname !== '127.0.0.1') {
      show('disconnected', `the kernel server only accepts pages from http://127.0.0.1:<port>; open the ` +
           `URL "make live" printed instead of ${location.origin}.`);
      return false;
    }
    bar.classList.add('live-on'); // from now on the bar stays in view: it carries the way to recover
    show('connecting', `starting a kernel on ${serverUrl(where)}\u2026`);
    try {
      await dropSession();
      await loadThebe();
      const problem = await probe(where);
      if (problem) {
        show('disconnected', problem, recover);
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
                         path: page.path.replace(/\.ipynb$/, `-live-${Date.now().toString(36)}.ipynb`) },
      });
      rendermime = rendermime || thebeCore.api.makeRenderMimeRegistry(config.mathjax);
      if (!cells) buildCells(config);
      server = thebeCore.api.connectToJupyter(config);
      await server.ready;
      session = await server.startNewSession(rendermime);
      offlineWidgets(session);
      notebook.attachSession(session);
      watch(session, where);
      // The session exists once the kernel process does; "ready" is its first answer over the websocket.
      await withTimeout(session.kernel.info, KERNEL_START_S, 'the kernel did not answer over its websocket ' +
                        `within ${KERNEL_START_S} s (did the page come from the URL "make live" printed?)`);
      readyFor = session;
    } catch (error) {
      show('disconnected', `could not start a kernel: ${error.message || error}`, recover);
      return false;
    }
    sessionStorage.setItem(LIVE_KEY, '1');
    launch.hidden = true;
    restart.hidden = download.hidden = false;
    const took = Math.round(performance.now() - clickedAt);
    status.dataset.readyMs = String(took);
    // "Run live" is gone: a keyboard reader's focus goes to the status it turned into, not to the page's top
    if ([launch, document.body, null].includes(document.activeElement)) status.focus();
    show('ready', `kernel running on ${serverUrl(where)} (started in ${(took / 1000).toFixed(1)} s). ` +
         'Shift+Enter in a cell runs it.');
    return true;
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

  async function dropSession() {
    const [oldSession, oldServer] = [session, server];
    session = server = readyFor = null;
    if (oldSession) await oldSession.shutdown().catch(() => oldSession.dispose());
    if (oldServer) {
      // ThebeServer.dispose (thebe-core 0.5.0) leaves its KernelManager polling /api/kernels every 10 s.
      const kernels = oldServer.sessionManager && oldServer.sessionManager._kernelManager;
      oldServer.dispose();
      if (kernels && !kernels.isDisposed) kernels.dispose();
    }
  }

  function withTimeout(promise, seconds, message) {
    let timer;
    const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(message)), seconds * 1000); });
    return Promise.race([promise, late]).finally(() => clearTimeout(timer));
  }

  let lost = false; // the kernel died under us: stay "disconnected" until the reader restarts it

  function watch(current, where) {
    lost = false;
    const kernel = current.kernel;
    kernel.statusChanged.connect((_, state) => {
      if (current !== session || readyFor !== current) return;
      if (state === 'autorestarting' || state === 'dead') {
        lost = true;
        show('disconnected', 'the kernel stopped (a crash, os._exit, or out of memory), and everything ' +
             'it had defined is gone. "Restart kernel" starts a fresh one; then "Run all above".', null);
      }
    });
    kernel.connectionStatusChanged.connect(async (_, state) => {
      if (current !== session || readyFor !== current || state !== 'connecting' || lost) return;
      show('connecting', `lost the connection to ${serverUrl(where)}; trying again\u2026`);
      const problem = await probe(where).catch((error) => String(error));
      if (problem && current === session) {
        lost = true;
        await dropSession();
        show('disconnected', `lost the kernel server: ${problem}`, recover);
      }
    });
  }

  async function ready() {
    if (readyFor && !lost) return true;
    if (lost) {
      restart.focus(); // the reader asked to run something: lead them to the way out
      return false;
    }
    return start(true);
  }

  // ----- cells -------------------------------------------------------------------------------

  function bookCode(cellElement) {
    const code = cellElement.querySelector('.cell_input pre');
    return code ? code.textContent.replace(/\s+$/, '') : '';
  }

  function buildCells(config) {
    const shown = [];
    for (const entry of page.cells) {
      const cellElement = document.querySelector(`.live-cell-${entry.index}`);
      if (!cellElement || !cellElement.querySelector('.cell_input')) continue;
      shown.push({ ...entry, key: String(entry.index), original: bookCode(cellElement), cellElement });
    }
    for (const exercise of page.exercises) {
      const admonition = document.getElementById(exercise.label);
      const first = page.cells.find((entry) => entry.exercise === exercise.label);
      if (!admonition || !first) continue;
      // "Exercise 4.1", as the book numbers it in the admonition's title
      const title = admonition.querySelector('.admonition-title');
      const name = ((title && title.textContent.match(/Exercise [\d.]+/)) || [exercise.label])[0];
      names.set(exercise.label, name);
      const cellElement = element('div', { class: 'cell live-answer' },
                                  element('p', { class: 'live-answer-title' }, `Your answer to ${name}`),
                                  element('div', { class: 'cell_input' }, element('pre', {}, exercise.stub)));
      admonition.after(cellElement);
      shown.push({ index: first.index - 0.5, key: `answer:${exercise.label}`, answerTo: exercise.label,
                   original: exercise.stub, cellElement, tags: [] });
    }
    shown.sort((a, b) => a.index - b.index);

    const items = shown.map((cell, number) => {
      cell.id = `live-${number}`;
      cell.number = number + 1;
      const input = cell.cellElement.querySelector('.cell_input');
      let output = cell.cellElement.querySelector('.cell_output');
      if (!output) {
        output = element('div', { class: 'cell_output' });
        cell.cellElement.append(output);
      }
      return { id: cell.id, placeholders: { source: input, output } };
    });
    const blocks = shown.map((cell) => ({ id: cell.id, source: (edits.cells[cell.key] || {}).source ?? cell.original }));
    notebook = thebeCore.api.setupNotebookFromBlocks(blocks, config, rendermime);
    thebe.renderAllCells({ mountRunButton: false, mountRunAllButton: false, mountRestartButton: false,
                           mountRestartAllButton: false, codeMirrorConfig: { theme: 'default', lineNumbers: true } },
                         notebook, items);
    shown.forEach((cell) => {
      cell.thebe = notebook.getCellById(cell.id);
      cell.box = document.querySelector(`[data-thebe-id="${cell.id}"]`);
      cell.editor = cell.box.querySelector('.CodeMirror').CodeMirror;
      addControls(cell);
    });
    cells = shown;
  }

  function addControls(cell) {
    const editor = cell.editor;
    // Tab indents; Escape, then Tab (or Shift+Tab), leaves the editor: `false` hands a key to the browser.
    const keys = {
      'Shift-Enter': () => { run(cell); },
      Esc: (cm) => cm.setOption('extraKeys', leaving),
      Tab: (cm) => cm.execCommand(cm.somethingSelected() ? 'indentMore' : 'insertSoftTab'),
      'Shift-Tab': (cm) => cm.execCommand('indentLess'),
    };
    const leaving = { ...keys, Tab: false, 'Shift-Tab': false };
    editor.setOption('extraKeys', keys);
    editor.on('keydown', (cm, event) => {
      if (!['Escape', 'Tab', 'Shift'].includes(event.key)) cm.setOption('extraKeys', keys);
    });
    editor.on('blur', (cm) => cm.setOption('extraKeys', keys));
    editor.getInputField().setAttribute('aria-label',
      `Code of cell ${cell.number}. Shift+Enter runs it; Escape, then Tab, leaves the editor.`);

    const controls = element('div', { class: 'live-controls', role: 'group', 'aria-label': `Cell ${cell.number}` });
    const runButton = button('Run cell', () => run(cell));
    const reset = button('Reset', () => {
      editor.setValue(cell.original);
      editor.focus();
    });
    cell.note = element('span', { class: 'live-note' });
    controls.append(runButton);
    if (cell.answerTo || (cell.exercise && cell.tags.includes('check'))) {
      controls.append(button('Run check', () => runCheck(cell.answerTo || cell.exercise, cell)));
    }
    if (!cell.answerTo && page.cells.some((entry) => entry.index < cell.index)) {
      controls.append(button('Run all above', () => runAllAbove(cell)));
    }
    controls.append(reset, cell.note);
    cell.box.after(controls);
    cell.verdict = element('p', { class: 'live-verdict', 'aria-live': 'polite' });
    cell.verdict.hidden = true;
    controls.after(cell.verdict);

    const edited = () => {
      const source = editor.getValue();
      reset.disabled = source === cell.original;
      cell.cellElement.classList.toggle('live-edited', !reset.disabled);
      return source;
    };
    edited();
    const saved = edits.cells[cell.key];
    if (saved && saved.original !== cell.original) {
      cell.note.textContent = 'The book\'s code for this cell changed since you edited it; Reset shows the new code.';
    }
    editor.on('change', () => rememberEdit(cell.key, edited(), cell.original));
    cell.box.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && event.shiftKey && !event.target.closest('.CodeMirror')) {
        event.preventDefault();
        run(cell);
      }
    });
  }

  // ----- running -----------------------------------------------------------------------------

  let running = 0; // requests of this page the kernel has not answered yet: "busy" while any are

  /** Send `code` to the kernel; `cell` (if any) shows what it sends back. Rejects if the kernel dies. */
  async function execute(cell, code) {
    const future = session.kernel.requestExecute({ code, stop_on_error: true });
    if (cell) cell.thebe.area.future = future; // thebe-core's OutputArea draws every message of the request
    running += 1;
    show('busy', running > 1 ? `running (${running} cells queued)\u2026` : 'running\u2026');
    try {
      return (await future.done).content; // {status: 'ok'} or {status: 'error', ename, evalue}
    } finally {
      running -= 1;
      if (!running && !lost && readyFor) show('ready', 'the kernel is waiting for the next cell.');
    }
  }

  async function run(cell, { quiet = false } = {}) {
    if (!(await ready())) return { status: 'aborted' };
    cell.note.textContent = 'running\u2026';
    const startedAt = performance.now();
    let reply;
    try {
      reply = await execute(cell, cell.editor.getValue());
    } catch {
      reply = { status: 'aborted' }; // the kernel stopped or the connection dropped mid-run
      cell.thebe.setOutputText('The kernel stopped before this cell finished.');
    }
    const took = Math.round(performance.now() - startedAt);
    cell.note.dataset.ms = String(took);
    cell.note.textContent = reply.status === 'ok' ? `ran in ${took} ms`
      : reply.status === 'error' ? `raised ${reply.ename} (${took} ms)` : 'did not finish';
    if (!quiet && reply.status === 'ok') cell.verdict.hidden = true;
    return reply;
  }

  /** Run every code cell of the chapter above `cell`, as the build did (hidden ones and solutions too). */
  async function runAllAbove(cell) {
    if (!(await ready())) return;
    const byIndex = new Map(cells.filter((c) => !c.answerTo).map((c) => [c.index, c]));
    const above = page.cells.filter((entry) => entry.index < cell.index);
    cell.note.textContent = `running the ${above.length} cells above\u2026`;
    for (const entry of above) {
      const target = byIndex.get(entry.index);
      const reply = target ? await run(target, { quiet: true }) : await executeHidden(entry.source);
      if (reply.status !== 'ok') {
        const where = target ? `cell ${target.number}` : 'a cell this page does not show';
        cell.note.textContent = `stopped: ${where} ${reply.status === 'error' ? `raised ${reply.ename}: ${reply.evalue}` : 'did not finish'}`;
        return;
      }
    }
    cell.note.textContent = `ran the ${above.length} cells above`;
  }

  async function executeHidden(code) {
    try {
      return await execute(null, code);
    } catch {
      return { status: 'aborted' };
    }
  }

  /** Run the reader's answer to `label` (if any), then the exercise's checks; say so under `clicked`. */
  async function runCheck(label, clicked) {
    const answer = cells.find((c) => c.answerTo === label);
    const checks = cells.filter((c) => c.exercise === label && c.tags.includes('check'));
    const verdict = (text, passed = null) => {
      for (const c of [answer, ...checks]) if (c) c.verdict.hidden = true;
      clicked.verdict.hidden = false;
      clicked.verdict.className = `live-verdict ${passed === null ? '' : passed ? 'live-pass' : 'live-fail'}`;
      clicked.verdict.textContent = text;
    };
    verdict('Checking\u2026');
    if (answer) {
      const reply = await run(answer, { quiet: true });
      if (reply.status === 'aborted') return verdict('Not checked: the kernel is not running.', false);
      if (reply.status === 'error') {
        return verdict(reply.ename === 'NotImplementedError'
          ? `Not done yet: replace the stub in "Your answer to ${names.get(label)}" with your solution.`
          : `Your answer raised ${reply.ename}: ${reply.evalue}`, false);
      }
    }
    for (const check of checks) {
      const reply = await run(check, { quiet: true });
      if (reply.status !== 'ok') {
        return verdict(reply.status === 'error' ? `Fail: ${reply.ename}: ${reply.evalue}`
          : 'Not checked: the kernel stopped.', false);
      }
    }
    verdict(`Pass: the check of ${names.get(label)} accepts your answer.`, true);
  }

  // ----- downloading the reader's notebook ------------------------------------------------------

  async function downloadNotebook() {
    let notebook;
    try {
      const answer = await fetch(`${root}_sources/${page.path}`);
      if (!answer.ok) throw new Error(`${answer.status}`);
      notebook = await answer.json();
    } catch (error) {
      tell(`could not read this page's notebook (${error.message}); your edits are still kept in this browser.`);
      return;
    }
    const byIndex = new Map(cells.filter((c) => !c.answerTo).map((c) => [c.index, c]));
    const answers = new Map(cells.filter((c) => c.answerTo).map((c) => [c.answerTo, c]));
    const out = [];
    notebook.cells.forEach((nbCell, index) => {
      const entry = page.cells.find((e) => e.index === index);
      const answer = entry && entry.exercise && answers.get(entry.exercise);
      if (answer && !out.includes(answer.cellJson)) {
        answer.cellJson = { cell_type: 'code', id: `answer-${answer.answerTo}`, execution_count: null, outputs: [],
                            source: answer.editor.getValue(), metadata: { tags: ['answer'], exercise: answer.answerTo } };
        out.push(answer.cellJson);
      }
      const live = byIndex.get(index);
      if (live && live.editor.getValue() !== live.original) {
        out.push({ ...nbCell, source: live.editor.getValue(), outputs: [], execution_count: null });
      } else {
        out.push(nbCell);
      }
    });
    notebook.cells = out;
    const blob = new Blob([JSON.stringify(notebook, null, 1)], { type: 'application/x-ipynb+json' });
    const link = element('a', { href: URL.createObjectURL(blob),
                                download: `${page.path.split('/').pop().replace(/\.ipynb$/, '')}-mine.ipynb` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  }

  // ----- small helpers -------------------------------------------------------------------------

  function element(tag, attributes = {}, ...children) {
    const el = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
    el.append(...children);
    return el;
  }

  function button(label, onClick) {
    const el = element('button', { type: 'button', class: 'live-button' }, label);
    el.addEventListener('click', onClick);
    return el;
  }

  // ----- start -----------------------------------------------------------------------------------

  takeCredentialsFromUrl();
  // A new URL from "make live" pasted into this tab: use its token at once if the page was live.
  addEventListener('hashchange', () => takeCredentialsFromUrl() && sessionStorage.getItem(LIVE_KEY) && start(true));
  if (sessionStorage.getItem(LIVE_KEY) && credentials()) start(true);
}

// Sphinx loads this script in <head>: wait for the page's cells.
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', liveCells);
else liveCells();
