/* Live cells, part "words": what every other part shows a reader, in the page's language.
 *
 * Every word live mode shows a reader comes from here, by the page's <html lang> (the Chinese
 * edition's is "zh-CN"); commands ("make live"), URLs and Python's error names stay as they are.
 * The parts of live mode (live-*.js and live.js, in _static/) share one namespace, window.tdsLive.
 */
(function () {
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

/** The page's words: one entry per message, a text or a function of the message's values. */
(window.tdsLive = window.tdsLive || {}).words = () => WORDS[document.documentElement.lang] || WORDS.en;
})();
