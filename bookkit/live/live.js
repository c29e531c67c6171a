/* Live cells: run and edit this page's code on a Jupyter kernel on the reader's own machine.
 *
 * This file starts live mode and holds the bar ("Run live", the status, the kernel's controls) and,
 * under it, the page's tools (download, reset, where edits are kept); its parts, each a file of
 * _static/ sharing the namespace window.tdsLive, are
 *   live-words.js       what it shows a reader, in the page's language;
 *   live-server.js      where the kernel server is, and what is asked of its REST API;
 *   live-tabs.js        this tab among the reader's other tabs, and its kernel when it closes;
 *   live-thebe.js       thebe, loaded on the click, and what it needs offline;
 *   live-connection.js  the tab's kernel: connecting, restarting, interrupting;
 *   live-watch.js       what happens to the kernel afterwards, and its real cause;
 *   live-runs.js        code sent to the kernel, its queue and its times;
 *   live-outputs.js     a live output in the page's language, and the event that says it is there;
 *   live-editors.js     the editors and each cell's controls (live-keys.js: their keys);
 *   live-above.js       "Run all above", and the page's set-up cells before a cell's first run;
 *   live-edits.js       the reader's edits, kept in this browser and shared by its tabs;
 *   live-download.js    "Download my notebook";
 *   live-grading.js     "Run check".
 * Jupyter Book loads every script of _static/ on every page, in <head>, in no set order; this one
 * waits for the page's cells (DOMContentLoaded), when every part has loaded.
 *
 * What it expects from the page (bookkit/live/sphinx_ext.py writes it at build time):
 *   - <script type="application/json" id="live-cells">{path, notebook, cells, exercises, explained?}
 *     </script>: `path` is the notebook path the kernel starts in; `notebook` the reader's notebook
 *     the download starts from; `cells` lists every code cell ({index, tags, exercise?, binds?, nb?,
 *     source?, reads?}; `source` only for cells the page does not show); `exercises` lists each
 *     graded exercise ({label, title, stub, defines});
 *   - <html data-content_root="...">, the way back to the site's root, where thebe is
 *     (_thebe/index.js, copied there by `make setup`).
 * Pages without the JSON (search, index) are left alone. The edits a reader keeps are the same
 * in both editions: a page's code is.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});

live.element = function element(tag, attributes = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  el.append(...children);
  return el;
};

live.button = function button(label, onClick) {
  const el = live.element('button', { type: 'button', class: 'live-button' }, label);
  el.addEventListener('click', onClick);
  return el;
};

function liveCells() {
  const dataElement = document.getElementById('live-cells');
  if (!dataElement) return;
  const page = JSON.parse(dataElement.textContent);
  const say = live.words();
  const ctx = {
    page, say,
    root: document.documentElement.dataset.content_root || './',
    liveKey: `live-on:${page.path}`, // sessionStorage: reconnect when this page reloads
    cells: null, // [{index, key, thebe, editor, box, note, verdict, ...}] once the editors exist
    notebook: null, // thebe-core's notebook of those cells
    rendermime: null,
  };

  // ----- the bar: "Run live", the status, and the kernel's controls; under it, the page's tools -----

  const ui = {
    bar: live.element('div', { class: 'live-bar' }),
    launch: live.button(say('runLive'), () => connection.start(true)),
    status: live.element('p', { class: 'live-status', role: 'status', tabindex: '-1' }),
    more: live.element('button', { type: 'button', class: 'live-more', 'aria-expanded': 'false' }, say('more')),
    interrupt: live.button(say('interrupt'), () => connection.interrupt()),
    recover: live.button(say('reconnect'), () => connection.start(true)),
    restart: live.button(say('restart'), () => connection.restart()),
    rerun: live.button(say('rerunAbove'), () => ctx.lastRun && editors.runAllAbove(ctx.lastRun)),
    tools: live.element('div', { class: 'live-tools' }),
    download: live.button(say('download'), () => live.downloadNotebook(ctx)),
    resetAll: live.button(say('resetAll'), () => resetAll()),
    kept: live.element('p', { class: 'live-kept' }, say('editsKept')),
    form: live.serverForm(say, () => connection.start(true)),
  };
  ctx.ui = ui;
  ui.interrupt.hidden = ui.recover.hidden = ui.restart.hidden = ui.rerun.hidden = ui.form.hidden = true;
  ui.more.hidden = true;
  ui.bar.append(ui.launch, ui.status, ui.more, ui.interrupt, ui.recover, ui.restart, ui.rerun, ui.form);
  ui.tools.append(ui.download, ui.resetAll, ui.kept);
  const heading = document.querySelector('article.bd-article h1');
  (heading || document.querySelector('article.bd-article') || document.body).after(ui.bar);
  ui.bar.after(ui.tools); // under the bar, not in it: the bar stays in view, these need not
  ui.more.addEventListener('click', () => {
    const open = ui.more.getAttribute('aria-expanded') !== 'true';
    ui.more.setAttribute('aria-expanded', String(open));
    ui.more.textContent = say(open ? 'less' : 'more');
    ui.bar.classList.toggle('live-open', open);
    fitted();
  });

  /** The bar's height for the page's scroll padding (live.css): what scrolls into view clears it. */
  function fitted() {
    const sticky = ui.bar.classList.contains('live-on');
    document.documentElement.style.setProperty('--live-bar-height', `${sticky ? ui.bar.offsetHeight : 0}px`);
    // "More" is there while the status says more than the bar shows
    const clipped = ui.status.scrollHeight > ui.status.clientHeight + 1;
    ui.more.hidden = !clipped && !ui.bar.classList.contains('live-open');
  }
  if ('ResizeObserver' in window) new ResizeObserver(fitted).observe(ui.bar);

  /** The status: one of connecting, ready, busy, restarted, disconnected, what it means, the way on. */
  ctx.show = function show(state, detail, control = null) {
    ctx.saidResetAll = false; // the status says something else now
    ui.status.dataset.state = state;
    ui.status.replaceChildren(live.element('strong', {}, say.state(state)),
                              document.createTextNode(detail ? ` \u2014 ${detail}` : ''));
    ui.recover.hidden = control !== ui.recover;
    if (!ui.recover.hidden) ui.launch.hidden = true; // one way on: "Reconnect" does what "Run live" did
    ui.rerun.hidden = control !== ui.rerun;
    if (control === ui.restart) ui.restart.hidden = false;
    fitted();
  };

  /** A message that leaves the state as it is. */
  ctx.tell = function tell(detail) {
    ctx.show(ui.status.dataset.state || 'disconnected', detail, ui.recover.hidden ? null : ui.recover);
  };

  /** How the page names a cell where it shows no numbers (null: a cell the page does not show). */
  ctx.cellName = (cell) => (cell && cell.editor
    ? say('cellStarting', { code: cell.editor.getValue().split('\n')[0].slice(0, 60) }) : say('hiddenCell'));

  // the browser refused to store an edit: the line under the tools says so until a save works again,
  // since the status is soon about something else
  ctx.edits = live.savedEdits(page, (refused) => {
    if (refused === ui.kept.classList.contains('live-kept-refused')) return;
    ui.kept.classList.toggle('live-kept-refused', refused);
    ui.kept.setAttribute('role', refused ? 'alert' : 'note');
    ui.kept.textContent = say(refused ? 'storageRefused' : 'editsKept');
    if (refused) ctx.tell(say('storageRefused'));
  });
  /** "Reset all edits", "Download my notebook" and where edits are kept: shown while the page holds any
   * edit, or is live. */
  ctx.editsChanged = function editsChanged() {
    const edited = ctx.cells ? ctx.cells.filter((c) => c.editor.getValue() !== c.original).length
      : ctx.edits.count();
    const on = ui.bar.classList.contains('live-on');
    ui.resetAll.hidden = !edited;
    ui.download.hidden = !edited && !on;
    ui.kept.hidden = !edited && !on;
    ui.tools.hidden = !edited && !on;
    // the download is offered: keep what it starts from, so it works after the book's server stops
    if (edited || on) live.keepNotebook(ctx).catch(() => {});
    // before "Run live": how many cells hold the reader's code (another tab may change them)
    if (!ctx.cells && !on && !ui.status.dataset.state) ui.status.textContent = edited ? say.count('edited', edited) : '';
    // "the book's code is back in every cell" no longer holds once another tab changed one since
    else if (ctx.saidResetAll && edited) ctx.tell(say.count('changedSinceReset', edited));
    return edited;
  };

  function resetAll() {
    const edited = ctx.editsChanged();
    if (!edited || !confirm(say.count('resetAllAsk', edited))) return;
    for (const cell of ctx.cells || []) if (cell.editor.getValue() !== cell.original) cell.editor.setValue(cell.original);
    ctx.edits.clear();
    ctx.editsChanged();
    if (ctx.cells) ctx.tell(say('resetAllDone'));
    else ui.status.textContent = say('resetAllDone');
    ctx.saidResetAll = Boolean(ctx.cells);
    // the button hid itself: a keyboard reader's focus goes to the status that says what happened, not to the page's top
    if ([ui.resetAll, document.body, null].includes(document.activeElement)) ui.status.focus();
  }

  ctx.editsChanged();

  const connection = live.connection(ctx);
  const grading = live.grading(ctx);
  const editors = live.editors(ctx, connection, grading);
  ctx.buildCells = editors.buildCells;
  ctx.edits.onChange = editors.changedElsewhere; // another tab of this page changed a cell

  live.takeCredentialsFromUrl();
  // A new URL from "make live" pasted into this tab: use its token at once if the page was live, or
  // tried to be (what the status says about the old token no longer holds).
  addEventListener('hashchange', () => live.takeCredentialsFromUrl()
    && (sessionStorage.getItem(ctx.liveKey) || ui.status.dataset.state === 'disconnected')
    && connection.start(true));
  if (sessionStorage.getItem(ctx.liveKey) && live.credentials()) connection.start(true);
}

// Sphinx loads this script in <head>: wait for the page's cells.
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', liveCells);
else liveCells();
})();
