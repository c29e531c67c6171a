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
 *
 * Every word this script shows a reader comes from WORDS, by the page's <html lang> (the Chinese
 * edition's is "zh-CN"); commands ("make live"), URLs and Python's error names stay as they are.
 * The edits a reader keeps are the same in both editions: a page's code is.
 */
'use strict';

const WORDS = {
  en: {
    runLive: 'Run live', reconnect: 'Reconnect', restart: 'Restart kernel', download: 'Download my notebook',
    runCell: 'Run cell', reset: 'Reset', runCheck: 'Run check', runAllAbove: 'Run all above',
    states: { connecting: 'connecting', ready: 'ready', busy: 'busy', disconnected: 'disconnected' },
    storageRefused: 'this browser refused to store your edits (storage full or blocked): use "Download my ' +
      'notebook" before you leave the page.',
    edited: (n) => `You changed ${n} cell${n > 1 ? 's' : ''} on this page; "Run live" brings your code back.`,
    noThebe: (root) => `this site has no ${root}_thebe/index.js: run "make setup", then "make live" again`,
    refused: 'the kernel server refused this page\'s token. Every "make live" prints a new URL: ' +
      'open the one it printed last (or stop it and run it again).',
    nothingAnswers: (url) => `nothing answers on ${url}. In the book's folder run "make live" and open the URL it prints.`,
    answered: (status, text) => `the kernel server answered ${status} ${text}.`,
    noServer: 'live cells run on a Jupyter kernel on your own machine. In the book\'s folder run "make live" ' +
      'and open the URL it prints (it carries the key to the kernel).',
    wrongOrigin: (origin) => 'the kernel server only accepts pages from http://127.0.0.1:<port>; open the ' +
      `URL "make live" printed instead of ${origin}.`,
    starting: (url) => `starting a kernel on ${url}\u2026`,
    noAnswer: (s) => `the kernel did not answer over its websocket within ${s} s (did the page come from the ` +
      'URL "make live" printed?)',
    notStarted: (why) => `could not start a kernel: ${why}`,
    started: (url, s) => `kernel running on ${url} (started in ${s} s). Shift+Enter in a cell runs it.`,
    died: 'the kernel stopped (a crash, os._exit, or out of memory), and everything it had defined is gone. ' +
      '"Restart kernel" starts a fresh one; then "Run all above".',
    retrying: (url) => `lost the connection to ${url}; trying again\u2026`,
    lost: (why) => `lost the kernel server: ${why}`,
    answerTitle: (name) => `Your answer to ${name}`,
    editorLabel: (n) => `Code of cell ${n}. Shift+Enter runs it; Escape, then Tab, leaves the editor.`,
    cellLabel: (n) => `Cell ${n}`,
    bookChanged: 'The book\'s code for this cell changed since you edited it; Reset shows the new code.',
    queued: (n) => `running (${n} cells queued)\u2026`,
    running: 'running\u2026',
    waiting: 'the kernel is waiting for the next cell.',
    stoppedMidCell: 'The kernel stopped before this cell finished.',
    ran: (ms) => `ran in ${ms} ms`,
    raised: (name, ms) => `raised ${name} (${ms} ms)`,
    unfinished: 'did not finish',
    runningAbove: (n) => `running the ${n} cells above\u2026`,
    cellNumber: (n) => `cell ${n}`,
    hiddenCell: 'a cell this page does not show',
    stoppedRaised: (where, name, value) => `stopped: ${where} raised ${name}: ${value}`,
    stoppedUnfinished: (where) => `stopped: ${where} did not finish`,
    ranAbove: (n) => `ran the ${n} cells above`,
    checking: 'Checking\u2026',
    noKernel: 'Not checked: the kernel is not running.',
    notDone: (name) => `Not done yet: replace the stub in "Your answer to ${name}" with your solution.`,
    answerRaised: (name, value) => `Your answer raised ${name}: ${value}`,
    fail: (name, value) => `Fail: ${name}: ${value}`,
    kernelStopped: 'Not checked: the kernel stopped.',
    pass: (name) => `Pass: the check of ${name} accepts your answer.`,
    unreadable: (why) => `could not read this page's notebook (${why}); your edits are still kept in this browser.`,
  },
  'zh-CN': {
    runLive: '实时运行', reconnect: '重新连接', restart: '重启内核', download: '下载我的笔记本',
    runCell: '运行单元格', reset: '重置', runCheck: '运行检查', runAllAbove: '运行上方所有单元格',
    states: { connecting: '连接中', ready: '就绪', busy: '运行中', disconnected: '未连接' },
    storageRefused: '浏览器拒绝保存你的修改（存储已满或被禁用）：离开本页之前，请先点“下载我的笔记本”。',
    edited: (n) => `你改过本页的 ${n} 个单元格；点“实时运行”即可找回你的代码。`,
    noThebe: (root) => `本站没有 ${root}_thebe/index.js：请先运行 "make setup"，再运行 "make live"`,
    refused: '内核服务器拒绝了本页的令牌。每次运行 "make live" 都会打印一个新的 URL：请打开它最后打印的那个（或者停掉它再运行一次）。',
    nothingAnswers: (url) => `${url} 上没有服务应答。请在本书的目录里运行 "make live"，再打开它打印的 URL。`,
    answered: (status, text) => `内核服务器返回了 ${status} ${text}。`,
    noServer: '实时单元格运行在你自己机器上的 Jupyter 内核里。请在本书的目录里运行 "make live"，再打开它打印的 ' +
      'URL（URL 里带着连接内核的密钥）。',
    wrongOrigin: (origin) => `内核服务器只接受来自 http://127.0.0.1:<port> 的页面；请打开 "make live" 打印的 URL，而不是 ${origin}。`,
    starting: (url) => `正在 ${url} 上启动内核\u2026`,
    noAnswer: (s) => `内核在 ${s} 秒内没有通过 websocket 应答（本页是从 "make live" 打印的 URL 打开的吗？）`,
    notStarted: (why) => `无法启动内核：${why}`,
    started: (url, s) => `内核运行在 ${url}（启动用了 ${s} 秒）。在单元格里按 Shift+Enter 即可运行。`,
    died: '内核停止了（崩溃、os._exit 或内存不足），它定义过的一切都没了。点“重启内核”启动一个新内核，再点“运行上方所有单元格”。',
    retrying: (url) => `与 ${url} 的连接断了；正在重试\u2026`,
    lost: (why) => `与内核服务器失去了联系：${why}`,
    answerTitle: (name) => `你对${name}的解答`,
    editorLabel: (n) => `第 ${n} 个单元格的代码。按 Shift+Enter 运行；先按 Escape 再按 Tab 可离开编辑器。`,
    cellLabel: (n) => `第 ${n} 个单元格`,
    bookChanged: '你修改之后，书中这个单元格的代码变了；点“重置”可以看到新代码。',
    queued: (n) => `运行中（${n} 个单元格在排队）\u2026`,
    running: '运行中\u2026',
    waiting: '内核在等待下一个单元格。',
    stoppedMidCell: '这个单元格还没运行完，内核就停止了。',
    ran: (ms) => `运行完毕，用时 ${ms} ms`,
    raised: (name, ms) => `抛出了 ${name}（${ms} ms）`,
    unfinished: '没有运行完',
    runningAbove: (n) => `正在运行上方的 ${n} 个单元格\u2026`,
    cellNumber: (n) => `第 ${n} 个单元格`,
    hiddenCell: '本页没有显示的一个单元格',
    stoppedRaised: (where, name, value) => `已停止：${where}抛出了 ${name}: ${value}`,
    stoppedUnfinished: (where) => `已停止：${where}没有运行完`,
    ranAbove: (n) => `已运行上方的 ${n} 个单元格`,
    checking: '检查中\u2026',
    noKernel: '未检查：内核没有在运行。',
    notDone: (name) => `还没完成：请把“你对${name}的解答”里的占位代码换成你的解答。`,
    answerRaised: (name, value) => `你的解答抛出了 ${name}: ${value}`,
    fail: (name, value) => `未通过：${name}: ${value}`,
    kernelStopped: '未检查：内核停止了。',
    pass: (name) => `通过：${name}的检查接受了你的解答。`,
    unreadable: (why) => `读不到本页的笔记本（${why}）；你的修改仍保存在这个浏览器里。`,
  },
};

function liveCells() {
  const dataElement = document.getElementById('live-cells');
  if (!dataElement) return;
  const page = JSON.parse(dataElement.textContent);
  const root = document.documentElement.dataset.content_root || './';
  const EDITS_KEY = `live-edits:${page.path}`; // localStorage: a reader's code, per page
  const LIVE_KEY = `live-on:${page.path}`; // sessionStorage: reconnect when this page reloads
  const CREDENTIALS_KEY = 'live-kernel-server'; // sessionStorage: {port, token} from the URL
  const KERNEL_START_S = 60;
  const say = WORDS[document.documentElement.lang] || WORDS.en;

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
      tell(say.storageRefused);
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
  const launch = button(say.runLive, () => start(true));
  const status = element('p', { class: 'live-status', role: 'status', tabindex: '-1' });
  const recover = button(say.reconnect, () => start(true));
  const restart = button(say.restart, () => start(true));
  const download = button(say.download, () => downloadNotebook());
  recover.hidden = restart.hidden = download.hidden = true;
  bar.append(launch, recover, restart, download, status);
  const heading = document.querySelector('article.bd-article h1');
  (heading || document.querySelector('article.bd-article') || document.body).after(bar);

  /** The status element: one of connecting, ready, busy, disconnected, and what it means. */
  function show(state, detail, control = null) {
    status.dataset.state = state;
    status.replaceChildren(element('strong', {}, say.states[state]),
                           document.createTextNode(detail ? ` \u2014 ${detail}` : ''));
    recover.hidden = control !== recover;
  }

  /** A message that leaves the state as it is. */
  function tell(detail) {
    show(status.dataset.state || 'disconnected', detail, recover.hidden ? null : recover);
  }

  const editedCount = Object.keys(edits.cells).length;
  if (editedCount) {
    status.textContent = say.edited(editedCount);
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
        reject(new Error(say.noThebe(root)));
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
    const where = credentials();
    if (!where) {
      show('disconnected', say.noServer);
      return false;
    }
    if (location.hostname !== '127.0.0.1') {
      show('disconnected', say.wrongOrigin(location.origin));
      return false;
    }
    bar.classList.add('live-on'); // from now on the bar stays in view: it carries the way to recover
    show('connecting', say.starting(serverUrl(where)));
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
      await withTimeout(session.kernel.info, KERNEL_START_S, say.noAnswer(KERNEL_START_S));
      readyFor = session;
    } catch (error) {
      show('disconnected', say.notStarted(error.message || error), recover);
      return false;
    }
    sessionStorage.setItem(LIVE_KEY, '1');
    launch.hidden = true;
    restart.hidden = download.hidden = false;
    const took = Math.round(performance.now() - clickedAt);
    status.dataset.readyMs = String(took);
    // "Run live" is gone: a keyboard reader's focus goes to the status it turned into, not to the page's top
    if ([launch, document.body, null].includes(document.activeElement)) status.focus();
    show('ready', say.started(serverUrl(where), (took / 1000).toFixed(1)));
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
        show('disconnected', say.died, null);
      }
    });
    kernel.connectionStatusChanged.connect(async (_, state) => {
      if (current !== session || readyFor !== current || state !== 'connecting' || lost) return;
      show('connecting', say.retrying(serverUrl(where)));
      const problem = await probe(where).catch((error) => String(error));
      if (problem && current === session) {
        lost = true;
        await dropSession();
        show('disconnected', say.lost(problem), recover);
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
      // "Exercise 4.1" (练习 4.1), as the book numbers it in the admonition's title
      const number = admonition.querySelector('.admonition-title .caption-number');
      const name = (number && number.textContent.trim()) || exercise.label;
      names.set(exercise.label, name);
      const cellElement = element('div', { class: 'cell live-answer' },
                                  element('p', { class: 'live-answer-title' }, say.answerTitle(name)),
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
    editor.getInputField().setAttribute('aria-label', say.editorLabel(cell.number));

    const controls = element('div', { class: 'live-controls', role: 'group', 'aria-label': say.cellLabel(cell.number) });
    const runButton = button(say.runCell, () => run(cell));
    const reset = button(say.reset, () => {
      editor.setValue(cell.original);
      editor.focus();
    });
    cell.note = element('span', { class: 'live-note' });
    controls.append(runButton);
    if (cell.answerTo || (cell.exercise && cell.tags.includes('check'))) {
      controls.append(button(say.runCheck, () => runCheck(cell.answerTo || cell.exercise, cell)));
    }
    if (!cell.answerTo && page.cells.some((entry) => entry.index < cell.index)) {
      controls.append(button(say.runAllAbove, () => runAllAbove(cell)));
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
      cell.note.textContent = say.bookChanged;
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
    show('busy', running > 1 ? say.queued(running) : say.running);
    try {
      return (await future.done).content; // {status: 'ok'} or {status: 'error', ename, evalue}
    } finally {
      running -= 1;
      if (!running && !lost && readyFor) show('ready', say.waiting);
    }
  }

  async function run(cell, { quiet = false } = {}) {
    if (!(await ready())) return { status: 'aborted' };
    cell.note.textContent = say.running;
    const startedAt = performance.now();
    let reply;
    try {
      reply = await execute(cell, cell.editor.getValue());
    } catch {
      reply = { status: 'aborted' }; // the kernel stopped or the connection dropped mid-run
      cell.thebe.setOutputText(say.stoppedMidCell);
    }
    const took = Math.round(performance.now() - startedAt);
    cell.note.dataset.ms = String(took);
    cell.note.textContent = reply.status === 'ok' ? say.ran(took)
      : reply.status === 'error' ? say.raised(reply.ename, took) : say.unfinished;
    if (!quiet && reply.status === 'ok') cell.verdict.hidden = true;
    return reply;
  }

  /** Run every code cell of the chapter above `cell`, as the build did (hidden ones and solutions too). */
  async function runAllAbove(cell) {
    if (!(await ready())) return;
    const byIndex = new Map(cells.filter((c) => !c.answerTo).map((c) => [c.index, c]));
    const above = page.cells.filter((entry) => entry.index < cell.index);
    cell.note.textContent = say.runningAbove(above.length);
    for (const entry of above) {
      const target = byIndex.get(entry.index);
      const reply = target ? await run(target, { quiet: true }) : await executeHidden(entry.source);
      if (reply.status !== 'ok') {
        const where = target ? say.cellNumber(target.number) : say.hiddenCell;
        cell.note.textContent = reply.status === 'error' ? say.stoppedRaised(where, reply.ename, reply.evalue)
          : say.stoppedUnfinished(where);
        return;
      }
    }
    cell.note.textContent = say.ranAbove(above.length);
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
    verdict(say.checking);
    if (answer) {
      const reply = await run(answer, { quiet: true });
      if (reply.status === 'aborted') return verdict(say.noKernel, false);
      if (reply.status === 'error') {
        return verdict(reply.ename === 'NotImplementedError' ? say.notDone(names.get(label))
          : say.answerRaised(reply.ename, reply.evalue), false);
      }
    }
    for (const check of checks) {
      const reply = await run(check, { quiet: true });
      if (reply.status !== 'ok') {
        return verdict(reply.status === 'error' ? say.fail(reply.ename, reply.evalue) : say.kernelStopped, false);
      }
    }
    verdict(say.pass(names.get(label)), true);
  }

  // ----- downloading the reader's notebook ------------------------------------------------------

  async function downloadNotebook() {
    let notebook;
    try {
      const answer = await fetch(`${root}_sources/${page.path}`);
      if (!answer.ok) throw new Error(`${answer.status}`);
      notebook = await answer.json();
    } catch (error) {
      tell(say.unreadable(error.message));
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
