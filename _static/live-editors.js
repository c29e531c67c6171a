/* Live cells, part "editors": each code cell of the page becomes an editor with its controls
 * (Run cell, Run check, Run all above, Reset, the "edited" mark), and each graded exercise gets an
 * answer cell. The book's solution cells stay as the book shows them: they never become editors,
 * so they never run in the reader's kernel; nor do its check cells, which only the grader runs
 * (live-grading.js: "Run check" is on the answer cell).
 *
 * What it expects from the page (tools/live_cells.py writes it at build time): each rendered code
 * cell as div.cell.live-cell-<index>, holding div.cell_input and, when it has outputs,
 * div.cell_output (myst-nb's markup); each exercise as div.exercise#<label> (sphinx-exercise's).
 *
 * An output is "stale" while the cell's code differs from the code that made it (the book's, until
 * the cell runs; after a reload, a restored edit sits above the book's output): it says so.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});

function bookCode(cellElement) {
  const code = cellElement.querySelector('.cell_input pre');
  return code ? code.textContent.replace(/\s+$/, '') : '';
}

/** The page's editors: `ctx` is live.js's shared state; `grading` runs checks and cells above. */
live.editors = function editors(ctx, connection, grading) {
  const { say, page } = ctx;
  ctx.names = new Map(); // exercise label -> "Exercise 4.1"

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
      cell.hasOutput = Boolean((cell.cellElement.querySelector('.cell_output') || {}).textContent?.trim());
      const input = cell.cellElement.querySelector('.cell_input');
      cell.output = cell.cellElement.querySelector('.cell_output');
      if (!cell.output) {
        cell.output = live.element('div', { class: 'cell_output' });
        cell.cellElement.append(cell.output);
      }
      return { id: cell.id, placeholders: { source: input, output: cell.output } };
    });
    const blocks = shown.map((cell) => ({ id: cell.id, source: (ctx.edits.cells[cell.key] || {}).source ?? cell.original }));
    ctx.notebook = thebeCore.api.setupNotebookFromBlocks(blocks, config, ctx.rendermime);
    thebe.renderAllCells({ mountRunButton: false, mountRunAllButton: false, mountRestartButton: false,
                           mountRestartAllButton: false, codeMirrorConfig: { theme: 'default', lineNumbers: true } },
                         ctx.notebook, items);
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
    editor.getInputField().setAttribute('aria-label', say('editorLabel', { n: cell.number }));

    const controls = live.element('div', { class: 'live-controls', role: 'group',
                                           'aria-label': say('cellLabel', { n: cell.number }) });
    const runButton = live.button(say('runCell'), () => run(cell));
    cell.reset = live.button(say('reset'), () => {
      editor.setValue(cell.original);
      editor.focus();
    });
    cell.mark = live.element('span', { class: 'live-edited-mark' }, say('editedMark'));
    cell.note = live.element('span', { class: 'live-note' });
    controls.append(runButton);
    if (cell.answerTo) controls.append(live.button(say('runCheck'), () => grading.runCheck(cell.answerTo, cell)));
    if (!cell.answerTo && page.cells.some((entry) => entry.index < cell.index)) {
      controls.append(live.button(say('runAllAbove'), () => grading.runAllAbove(cell)));
    }
    controls.append(cell.reset, cell.mark, cell.note);
    cell.box.after(controls);
    cell.hint = live.element('p', { class: 'live-hint' });
    cell.verdict = live.element('p', { class: 'live-verdict', 'aria-live': 'polite' });
    cell.hint.hidden = cell.verdict.hidden = true;
    controls.after(cell.hint, cell.verdict);
    cell.stale = live.element('p', { class: 'live-stale-note' }, say('staleOutput'));
    cell.output.before(cell.stale);

    edited(cell);
    const saved = ctx.edits.cells[cell.key];
    // an answer's stub is in the page's language: the other edition's stub under an answer is no change of the book
    if (saved && saved.original !== cell.original && !cell.answerTo) {
      cell.note.textContent = say('bookChanged');
    }
    editor.on('change', () => ctx.edits.remember(cell.key, edited(cell), cell.original));
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
    const stale = source !== cell.ranSource && cell.hasOutput;
    cell.stale.hidden = !stale;
    cell.cellElement.classList.toggle('live-stale', stale);
    ctx.editsChanged();
    return source;
  }

  /** A NameError for a name a cell above defines: say so, with the way to run the cells above. */
  function explain(cell, reply) {
    const name = reply.status === 'error' && reply.ename === 'NameError' && (/'(\w+)'/.exec(reply.evalue) || [])[1];
    const above = name && page.cells.some((entry) => entry.index < cell.index && !entry.exercise
                                                     && (entry.binds || []).includes(name));
    cell.hint.hidden = !above;
    if (above) {
      cell.hint.replaceChildren(say('notDefinedYet', { name }), ' ',
                                live.button(say('runAllAbove'), () => grading.runAllAbove(cell)));
    }
  }

  /** Run `cell`'s code (or `source`), draw its output, and say how it went under it. */
  async function run(cell, { quiet = false, source = cell.editor.getValue() } = {}) {
    if (!(await connection.ready())) return { status: 'aborted' };
    cell.note.dataset.state = 'running';
    cell.note.textContent = say('running');
    const startedAt = performance.now();
    let reply;
    try {
      reply = await connection.execute(cell, source);
    } catch {
      reply = { status: 'aborted' }; // the kernel stopped or the connection dropped mid-run
      cell.thebe.setOutputText(say('stoppedMidCell'));
    }
    const took = Math.round(performance.now() - startedAt);
    cell.ranSource = source;
    cell.hasOutput = true;
    ctx.lastRun = cell;
    edited(cell);
    explain(cell, reply);
    live.outputDrawn(cell.cellElement);
    cell.note.dataset.ms = String(took);
    cell.note.textContent = reply.status === 'ok' ? say('ran', { ms: took })
      : reply.status === 'error' ? say('raised', { name: reply.ename, ms: took }) : say('unfinished');
    cell.note.dataset.state = 'done';
    if (!quiet && reply.status === 'ok') cell.verdict.hidden = true;
    return reply;
  }

  return { buildCells, run };
};
})();
