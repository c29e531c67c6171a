/* Live cells: run and edit this page's code on a Jupyter kernel on the reader's own machine.
 *
 * This file starts live mode and holds the bar ("Run live", the status, the page-wide controls);
 * its parts, each a file of _static/ sharing the namespace window.tdsLive, are
 *   live-words.js       what it shows a reader, in the page's language;
 *   live-server.js      where the kernel server is, and what is asked of its REST API;
 *   live-thebe.js       thebe, loaded on the click, and what it needs offline;
 *   live-connection.js  the tab's kernel and its state, sending code;
 *   live-outputs.js     a live output in the page's language, and the event that says it is there;
 *   live-editors.js     the editors and each cell's controls;
 *   live-edits.js       the reader's edits, kept in this browser, and "Download my notebook";
 *   live-grading.js     "Run all above" and "Run check".
 * Jupyter Book loads every script of _static/ on every page, in <head>; this one waits for the
 * page's cells (DOMContentLoaded), when every part has loaded.
 *
 * What it expects from the page (tools/live_cells.py writes it at build time):
 *   - <script type="application/json" id="live-cells">{path, cells, exercises}</script>:
 *     `path` is the notebook path the kernel starts in; `cells` lists every code cell
 *     ({index, tags, exercise?, source?}; `source` only for cells the page does not show);
 *     `exercises` lists each graded exercise ({label, title, stub});
 *   - <html data-content_root="...">, the way back to the site's root, where thebe is
 *     (_thebe/index.js, copied there by `make setup`) and the page's notebook (_sources/).
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

  // ----- the bar: "Run live", the status, and the page-wide controls -------------------------

  const ui = {
    bar: live.element('div', { class: 'live-bar' }),
    launch: live.button(say('runLive'), () => connection.start(true)),
    status: live.element('p', { class: 'live-status', role: 'status', tabindex: '-1' }),
    recover: live.button(say('reconnect'), () => connection.start(true)),
    restart: live.button(say('restart'), () => connection.start(true, { fresh: true })),
    rerun: live.button(say('rerunAbove'), () => ctx.lastRun && grading.runAllAbove(ctx.lastRun)),
    download: live.button(say('download'), () => live.downloadNotebook(ctx)),
    resetAll: live.button(say('resetAll'), () => resetAll()),
    kept: live.element('p', { class: 'live-kept' }, say('editsKept')),
    form: live.serverForm(say, () => connection.start(true)),
  };
  ctx.ui = ui;
  ui.recover.hidden = ui.restart.hidden = ui.rerun.hidden = ui.download.hidden = ui.form.hidden = true;
  ui.bar.append(ui.launch, ui.recover, ui.restart, ui.rerun, ui.download, ui.resetAll, ui.status, ui.form);
  const heading = document.querySelector('article.bd-article h1');
  (heading || document.querySelector('article.bd-article') || document.body).after(ui.bar);
  ui.bar.after(ui.kept); // under the bar, not in it: the bar stays in view, this need not

  /** The status: one of connecting, ready, busy, restarted, disconnected, what it means, the way on. */
  ctx.show = function show(state, detail, control = null) {
    ui.status.dataset.state = state;
    ui.status.replaceChildren(live.element('strong', {}, say.state(state)),
                              document.createTextNode(detail ? ` \u2014 ${detail}` : ''));
    ui.recover.hidden = control !== ui.recover;
    ui.rerun.hidden = control !== ui.rerun;
  };

  /** A message that leaves the state as it is. */
  ctx.tell = function tell(detail) {
    ctx.show(ui.status.dataset.state || 'disconnected', detail, ui.recover.hidden ? null : ui.recover);
  };

  ctx.edits = live.savedEdits(page, () => ctx.tell(say('storageRefused')));
  /** "Reset all edits" and where edits are kept: shown while the page holds any edit, or is live. */
  ctx.editsChanged = function editsChanged() {
    const edited = ctx.cells ? ctx.cells.filter((c) => c.editor.getValue() !== c.original).length
      : ctx.edits.count();
    ui.resetAll.hidden = !edited;
    ui.kept.hidden = !edited && !ui.bar.classList.contains('live-on');
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
    // the button hid itself: a keyboard reader's focus goes to the status that says what happened, not to the page's top
    if ([ui.resetAll, document.body, null].includes(document.activeElement)) ui.status.focus();
  }

  const editedCount = ctx.edits.count();
  if (editedCount) ui.status.textContent = say.count('edited', editedCount);
  ctx.editsChanged();

  const connection = live.connection(ctx);
  const grading = live.grading(ctx, connection, () => editors);
  const editors = live.editors(ctx, connection, grading);
  ctx.buildCells = editors.buildCells;

  live.takeCredentialsFromUrl();
  // A new URL from "make live" pasted into this tab: use its token at once if the page was live.
  addEventListener('hashchange', () => live.takeCredentialsFromUrl() && sessionStorage.getItem(ctx.liveKey)
                                       && connection.start(true));
  if (sessionStorage.getItem(ctx.liveKey) && live.credentials()) connection.start(true);
}

// Sphinx loads this script in <head>: wait for the page's cells.
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', liveCells);
else liveCells();
})();
