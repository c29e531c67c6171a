/* Live cells, part "editors": each code cell of the page becomes an editor with its controls
 * (Run cell, Run check, Run all above, Reset, the "edited" mark), and each graded exercise gets an
 * answer cell. The book's solution cells stay as the book shows them: they never become editors,
 * so they never run in the reader's kernel; nor do its check cells, which only the grader runs
 * (live-grading.js: "Run check" is on the answer cell); a check cell's output from the build (what the
 * book's solution made it print) is taken away, so no "ok" stands there before the reader's answer ran.
 *
 * What it expects from the page (bookkit/live/sphinx_ext.py writes it at build time): each rendered code
 * cell as div.cell.live-cell-<index>, holding div.cell_input and, when it has outputs,
 * div.cell_output (myst-nb's markup); each exercise as div.exercise#<label> (sphinx-exercise's).
 *
 * An output is "stale" while it is not from the code above it (the book's, until the cell runs;
 * after a reload, a restored edit sits above the book's output), or when it is an error from before
 * the cells above ran: it says so. A run's note says how it went, with the kernel's own time.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});

function bookCode(cellElement) {
  const code = cellElement.querySelector('.cell_input pre');
  return code ? code.textContent.replace(/\s+$/, '') : '';
}

/** The page's editors: `ctx` is live.js's shared state; `grading` runs checks. */
live.editors = function editors(ctx, connection, grading) {
  const { say, page } = ctx;
  ctx.names = new Map(); // exercise label -> "Exercise 4.1"
  const above = live.above(ctx, connection, (...args) => run(...args));

  function buildCells(config) {
    const shown = [];
    for (const entry of page.cells) {
      const cellElement = document.querySelector(`.live-cell-${entry.index}`);
      if (!cellElement || !cellElement.querySelector('.cell_input') || entry.exercise) continue;
      shown.push({ ...entry, key: String(entry.index), original: bookCode(cellElement), cellElement });
    }
    for (const exercise of page.exercises) {
      const admonition = document.getElementById(exercise.label);
      const first = page.cells.find((entry) => entry.exercise === exercise.label);
      if (!admonition || !first) continue;
      // "Exercise 4.1" (练习 4.1), as the book numbers it in the admonition's title
      const number = admonition.querySelector('.admonition-title .caption-number');
      const name = (number && number.textContent.trim()) || exercise.label;
      ctx.names.set(exercise.label, name);
      const cellElement = live.element('div', { class: 'cell live-answer', 'data-exercise': exercise.label },
                                       live.element('p', { class: 'live-answer-title' }, say('answerTitle', { name })),
                                       live.element('div', { class: 'cell_input' }, live.element('pre', {}, exercise.stub)));
      // where the solution is, under the cells the exercise gives (6.2's `arrived`), or after the text
      const solution = document.querySelector(`.live-cell-${first.index}`);
      const dropdown = solution && solution.closest('.solution, details');
      if (dropdown) dropdown.before(cellElement);
      else admonition.after(cellElement);
      shown.push({ index: first.index - 0.5, key: `answer:${exercise.label}`, answerTo: exercise.label,
                   original: exercise.stub, cellElement, tags: [] });
    }
    shown.sort((a, b) => a.index - b.index);

    const items = shown.map((cell, number) => {
      cell.id = `live-${number}`;
      cell.number = number + 1;
      cell.ranSource = cell.original; // the code the output below it comes from
      cell.output = cell.cellElement.querySelector('.cell_output');
      cell.hasOutput = Boolean((cell.output || {}).textContent?.trim());
      const input = cell.cellElement.querySelector('.cell_input');
      if (!cell.output) {
        cell.output = live.element('div', { class: 'cell_output' });
        cell.cellElement.append(cell.output);
      }
      return { id: cell.id, placeholders: { source: input, output: cell.output } };
    });
    const blocks = shown.map((cell) => ({ id: cell.id, source: (ctx.edits.cells[cell.key] || {}).source ?? cell.original }));
    ctx.notebook = thebeCore.api.setupNotebookFromBlocks(blocks, config, ctx.rendermime);
    // CodeMirror's contenteditable input sits inside the box that scrolls long lines, so that box has
    // focusable content (axe's scrollable-region-focusable; its hidden textarea sits outside it)
    const codeMirrorConfig = { theme: 'default', lineNumbers: true, inputStyle: 'contenteditable' };
    thebe.renderAllCells({ mountRunButton: false, mountRunAllButton: false, mountRestartButton: false,
                           mountRestartAllButton: false, codeMirrorConfig }, ctx.notebook, items);
    shown.forEach((cell) => {
      cell.thebe = ctx.notebook.getCellById(cell.id);
      cell.box = document.querySelector(`[data-thebe-id="${cell.id}"]`);
      cell.editor = cell.box.querySelector('.CodeMirror').CodeMirror;
      addControls(cell);
    });
    ctx.cells = shown;
  }

  function addControls(cell) {
    const editor = cell.editor;
    const keysHint = live.editorKeys(cell, say, () => run(cell));
    const controls = live.element('div', { class: 'live-controls', role: 'group',
                                           'aria-label': say('cellLabel', { n: cell.number }) });
    const runButton = live.button(say('runCell'), () => run(cell));
    cell.reset = live.button(say('reset'), () => {
      editor.setValue(cell.original); // one undoable change: Ctrl+Z brings the reader's code back
      cell.note.dataset.state = 'done';
      cell.note.textContent = say('resetDone');
      editor.focus();
    });
    cell.mark = live.element('span', { class: 'live-edited-mark' }, say('editedMark'));
    cell.note = live.element('span', { class: 'live-note' });
    controls.append(runButton);
    if (cell.answerTo) controls.append(live.button(say('runCheck'), () => grading.runCheck(cell.answerTo)));
    if (!cell.answerTo && page.cells.some((entry) => entry.index < cell.index)) {
      controls.append(live.button(say('runAllAbove'), () => above.runAllAbove(cell)));
    }
    controls.append(cell.reset, cell.mark, cell.note);
    cell.box.after(keysHint, controls);
    cell.hint = live.element('p', { class: 'live-hint' });
    cell.elsewhere = live.element("p", { class: "live-elsewhere" });
    cell.verdict = live.element('p', { class: 'live-verdict', 'aria-live': 'polite' });
    cell.hint.hidden = cell.elsewhere.hidden = cell.verdict.hidden = true;
    controls.after(cell.hint, cell.elsewhere, cell.verdict);
    cell.stale = live.element('p', { class: 'live-stale-note' });
    cell.output.before(cell.stale);

    edited(cell);
    const saved = ctx.edits.cells[cell.key];
    // an answer's stub is in the page's language: the other edition's stub under an answer is no change of the book
    if (saved && saved.original !== cell.original && !cell.answerTo) {
      cell.note.textContent = say('bookChanged');
    }
    editor.on('change', (cm, change) => {
      const source = edited(cell);
      grading.answerChanged(cell); // a verdict of other code no longer stands
      if (change.origin === 'tdsElsewhere') return; // another tab's edit, already stored
      cell.typedHere = true;
      cell.elsewhere.hidden = true;
      ctx.edits.remember(cell.key, source, cell.original);
    });
    cell.box.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && event.shiftKey && !event.target.closest('.CodeMirror')) {
        event.preventDefault();
        run(cell);
      }
    });
  }

  /** Show whether `cell` holds the reader's code and whether its output is from it; its code. */
  function edited(cell) {
    const source = cell.editor.getValue();
    cell.reset.disabled = source === cell.original;
    cell.mark.hidden = cell.reset.disabled;
    cell.cellElement.classList.toggle('live-edited', !cell.reset.disabled);
    const otherCode = source !== cell.ranSource;
    const stale = cell.hasOutput && (otherCode || cell.outputBeforeAbove);
    cell.stale.hidden = !stale;
    cell.stale.textContent = stale ? say(otherCode ? 'staleOutput' : 'staleBeforeAbove') : '';
    cell.cellElement.classList.toggle('live-stale', stale);
    ctx.editsChanged();
    return source;
  }

  /** Another tab of this page changed the cell `key` (`entry`: {source}, or none: the book's code). */
  function changedElsewhere(key, entry) {
    const cell = (ctx.cells || []).find((c) => c.key === key);
    if (!cell) return ctx.editsChanged();
    const theirs = entry ? entry.source : cell.original;
    const mine = cell.editor.getValue();
    if (theirs === mine) { // nothing changed here after all: an earlier note is out of date
      if (!cell.elsewhere.querySelector('button')) cell.elsewhere.hidden = true;
      return;
    }
    cell.elsewhere.hidden = false;
    if (cell.typedHere && mine !== cell.original) { // this tab's own code: keep it within reach
      cell.keptMine = mine;
      cell.elsewhere.replaceChildren(say('changedElsewhereMine'), ' ', live.button(say('putMineBack'), () => {
        cell.editor.setValue(mine);
        cell.elsewhere.hidden = true;
        cell.editor.focus();
      }));
    } else {
      cell.elsewhere.replaceChildren(say('changedElsewhere'));
    }
    cell.editor.replaceRange(theirs, { line: 0, ch: 0 }, { line: cell.editor.lastLine() }, 'tdsElsewhere');
    cell.typedHere = false;
  }

  /** A NameError for a name a cell above defines: say so, with the way to run the cells above. */
  function explain(cell, reply) {
    const name = reply.status === 'error' && reply.ename === 'NameError' && (/'(\w+)'/.exec(reply.evalue) || [])[1];
    const defined = name && page.cells.some((entry) => entry.index < cell.index && !entry.exercise
                                                       && (entry.binds || []).includes(name));
    cell.hint.hidden = !defined;
    if (defined) {
      cell.hint.replaceChildren(say('notDefinedYet', { name }), ' ',
                                live.button(say('runAllAbove'), () => above.runAllAbove(cell)));
    }
  }

  function note(cell, state, text) {
    cell.note.dataset.state = state;
    cell.note.textContent = text;
  }

  /** What a reply says under its cell; `setUp`: how many set-up cells ran first. */
  function outcome(reply, setUp) {
    if (reply.lost && reply.why === 'dropped') return say('endedByRestart'); // the reader's own Restart
    if (reply.lost) return say(reply.began ? 'unfinished' : 'notReached');
    if (reply.status === 'aborted') return say('skipped'); // the kernel's own: a cell before it stopped
    if (reply.status === 'error') {
      return reply.ename === 'KeyboardInterrupt' ? say('interrupted', { ms: reply.ms })
        : say('raised', { name: reply.ename, ms: reply.ms });
    }
    return setUp ? say.count('ranAfterSetUp', setUp, { ms: reply.ms }) : say('ran', { ms: reply.ms });
  }

  /**
   * Run `cell`'s code (or `source`), draw its output, and say how it went under it. Before the first
   * cell a reader runs in a kernel, the page's set-up cells run (`setUp`; not for a `quiet` run, which
   * "Run all above" and "Run check" make, and which run what they need themselves).
   */
  async function run(cell, { quiet = false, source = cell.editor.getValue(), setUp = !quiet } = {}) {
    note(cell, 'running', connection.pending() ? say('waitingTurn') : say('running'));
    if (!(await connection.ready())) {
      note(cell, 'done', say(ctx.serverGone ? 'notRunServer' : ctx.lost ? 'notRunLost' : 'notRunOffline'));
      return { status: 'aborted', lost: true };
    }
    let ranSetUp = 0;
    if (setUp) {
      const first = await above.setUpFor(cell);
      if (first.failed) return first.failed;
      ranSetUp = first.ran;
    }
    if (connection.pending()) cell.note.textContent = say('waitingTurn');
    cell.ranSource = source; // what the output below shows from now on
    cell.hasOutput = true;
    // a note that another tab changed the code: the reader ran what is here now, so it is dealt with
    if (!cell.elsewhere.querySelector('button') || source === cell.keptMine) cell.elsewhere.hidden = true;
    cell.outputBeforeAbove = false;
    edited(cell);
    const reply = await connection.execute(cell, source, {
      onStart: () => { if (cell.note.dataset.state === 'running') cell.note.textContent = say('running'); },
    });
    if (reply.lost) cell.thebe.setOutputText(say(reply.began ? 'stoppedMidCell' : 'neverRan'));
    ctx.lastRun = cell;
    cell.lastStatus = reply.status;
    edited(cell);
    explain(cell, reply);
    live.outputDrawn(cell.cellElement);
    if (Number.isFinite(reply.ms)) cell.note.dataset.ms = String(reply.ms);
    note(cell, 'done', outcome(reply, ranSetUp));
    if (!quiet && reply.status === 'ok') cell.verdict.hidden = true;
    return reply;
  }

  return { buildCells, run, runAllAbove: above.runAllAbove, changedElsewhere, edited };
};
})();
