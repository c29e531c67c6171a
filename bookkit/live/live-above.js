/* Live cells, part "above": "Run all above" a cell, and the page's set-up cells before a first run.
 *
 * "Run all above" runs the chapter's cells above a cell as the build did (hidden ones too, and on
 * past the cells the book shows raising), but no exercise's cells: the book's solutions never run
 * in the reader's kernel. Its note counts what the reader sees (the cells shown above) and says how
 * many the page does not show. When a cell the page hides fails, the visible cells the reader edited
 * that used to define what it reads are named, with a way to reset each (Ctrl+Z in the editor
 * brings the reader's code back). Once it ran, an error drawn under the cell before the cells above
 * ran says it is from before them.
 *
 * A chapter opens with set-up cells whose code the page folds or hides (its imports): before the
 * first cell a reader runs in a kernel, they run, and the cell's note says so.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});
const HIDDEN = ['hide-input', 'remove-cell', 'remove-input'];

/** `ctx` is live.js's shared state; `run(cell, options)` runs an editor (live-editors.js). */
live.above = function above(ctx, connection, run) {
  const { say, page } = ctx;
  const setUpCells = [];
  for (const entry of page.cells) {
    if (entry.exercise || !HIDDEN.some((tag) => entry.tags.includes(tag))) break;
    setUpCells.push(entry);
  }
  const editorOf = (entry) => (ctx.cells || []).find((c) => !c.answerTo && c.index === entry.index) || null;

  async function executeHidden(code) {
    try {
      return await connection.execute(null, code);
    } catch {
      return { status: 'aborted', lost: true };
    }
  }

  /** Run `entries` in order; the first that failed as the book's did not: {entry, cell, reply}. */
  async function runEntries(entries) {
    for (const entry of entries) {
      const cell = editorOf(entry);
      const reply = cell ? await run(cell, { quiet: true, setUp: false }) : await executeHidden(entry.source);
      const meant = reply.status === 'error' && entry.tags.includes('raises-exception'); // the book shows it raise
      if (reply.status !== 'ok' && !meant) return { entry, cell, reply };
    }
    return null;
  }

  /** Before `cell` runs: the set-up cells, if this kernel has not run them (once, however many cells
   * are run meanwhile). {ran: how many, failed?}. */
  let settingUp = null;
  async function setUpFor(cell) {
    const last = setUpCells[setUpCells.length - 1];
    if (!last || cell.index <= last.index || connection.setUp()) return { ran: 0 };
    const mine = !settingUp;
    settingUp = settingUp || runEntries(setUpCells).finally(() => { settingUp = null; });
    const failed = await settingUp;
    if (failed) {
      stopped(cell, failed);
      return { ran: 0, failed: failed.reply };
    }
    connection.setUp(true);
    return { ran: mine ? setUpCells.length : 0 };
  }

  /** The visible cells above `entry` that the reader edited and whose book code defined what it needed:
   * [{cell, names}] (a NameError names the one name; another error, any name the hidden cell reads). */
  function brokenBy(entry, reply) {
    const missing = reply.ename === 'NameError' && (/'(\w+)'/.exec(reply.evalue) || [])[1];
    const needs = missing ? [missing] : entry.reads || [];
    return (ctx.cells || [])
      .filter((c) => !c.answerTo && c.index < entry.index && c.editor.getValue() !== c.original)
      .map((c) => ({ cell: c, names: (c.binds || []).filter((name) => needs.includes(name)) }))
      .filter(({ names }) => names.length);
  }

  /** Say under `cell` where a run of cells stopped, and what the reader can do about it. */
  function stopped({ note, hint }, { entry, cell, reply }) {
    const which = ctx.cellName(cell);
    note.textContent = reply.status === 'error'
      ? say(reply.evalue ? 'stoppedRaised' : 'stoppedRaisedBare', { where: which, name: reply.ename, value: reply.evalue })
      : say('stoppedUnfinished', { where: which });
    note.dataset.state = 'stopped';
    const parts = [];
    if (cell) {
      parts.push(live.button(say('goToCell'), () => cell.editor.focus()));
    } else if (reply.status === 'error') {
      for (const { cell: culprit, names } of brokenBy(entry, reply)) {
        parts.push(say('brokenBy', { where: ctx.cellName(culprit), names: names.join(', ') }), ' ',
                   live.button(say('goToCell'), () => culprit.editor.focus()), ' ',
                   live.button(say('resetThatCell'), () => {
                     culprit.editor.setValue(culprit.original);
                     culprit.editor.focus();
                     hint.replaceChildren(say('resetThatCellDone', { where: ctx.cellName(culprit) }));
                   }), ' ');
      }
    }
    hint.hidden = !parts.length;
    hint.replaceChildren(...parts);
  }

  async function runAllAbove(cell) {
    if (!(await connection.ready())) {
      cell.note.dataset.state = 'stopped';
      cell.note.textContent = say(ctx.serverGone ? 'notRunServer' : 'notRunLost');
      return;
    }
    const entries = page.cells.filter((entry) => entry.index < cell.index && !entry.exercise);
    const shown = entries.filter(editorOf).length;
    const counted = { hidden: entries.length - shown ? say.count('hiddenToo', entries.length - shown) : '' };
    cell.note.dataset.state = 'running';
    cell.note.textContent = say.count('runningAbove', shown, counted);
    cell.hint.hidden = true;
    const failed = await runEntries(entries);
    if (failed) return stopped(cell, failed);
    if (setUpCells.every((entry) => entries.includes(entry))) connection.setUp(true);
    if (cell.lastStatus && cell.lastStatus !== 'ok' && cell.editor.getValue() === cell.ranSource) {
      // the error under it is from a run before these cells ran
      cell.outputBeforeAbove = true;
      cell.stale.hidden = false;
      cell.stale.textContent = say('staleBeforeAbove');
      cell.cellElement.classList.add('live-stale');
    }
    cell.note.textContent = say.count('ranAbove', shown, counted);
    cell.note.dataset.state = 'done';
  }

  return { runAllAbove, setUpFor };
};
})();
