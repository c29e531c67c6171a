/* Live cells, part "editors": each code cell of the page becomes an editor with its controls
 * (Run cell, Run check, Run all above, Reset), and each graded exercise gets an answer cell.
 *
 * What it expects from the page (tools/live_cells.py writes it at build time): each rendered code
 * cell as div.cell.live-cell-<index>, holding div.cell_input and, when it has outputs,
 * div.cell_output (myst-nb's markup); each exercise as div.exercise#<label> (sphinx-exercise's).
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
      ctx.names.set(exercise.label, name);
      const cellElement = live.element('div', { class: 'cell live-answer' },
                                       live.element('p', { class: 'live-answer-title' }, say.answerTitle(name)),
                                       live.element('div', { class: 'cell_input' }, live.element('pre', {}, exercise.stub)));
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
        output = live.element('div', { class: 'cell_output' });
        cell.cellElement.append(output);
      }
      return { id: cell.id, placeholders: { source: input, output } };
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
    editor.getInputField().setAttribute('aria-label', say.editorLabel(cell.number));

    const controls = live.element('div', { class: 'live-controls', role: 'group', 'aria-label': say.cellLabel(cell.number) });
    const runButton = live.button(say.runCell, () => run(cell));
    const reset = live.button(say.reset, () => {
      editor.setValue(cell.original);
      editor.focus();
    });
    cell.note = live.element('span', { class: 'live-note' });
    controls.append(runButton);
    if (cell.answerTo || (cell.exercise && cell.tags.includes('check'))) {
      controls.append(live.button(say.runCheck, () => grading.runCheck(cell.answerTo || cell.exercise, cell)));
    }
    if (!cell.answerTo && page.cells.some((entry) => entry.index < cell.index)) {
      controls.append(live.button(say.runAllAbove, () => grading.runAllAbove(cell)));
    }
    controls.append(reset, cell.note);
    cell.box.after(controls);
    cell.verdict = live.element('p', { class: 'live-verdict', 'aria-live': 'polite' });
    cell.verdict.hidden = true;
    controls.after(cell.verdict);

    const edited = () => {
      const source = editor.getValue();
      reset.disabled = source === cell.original;
      cell.cellElement.classList.toggle('live-edited', !reset.disabled);
      return source;
    };
    edited();
    const saved = ctx.edits.cells[cell.key];
    if (saved && saved.original !== cell.original) {
      cell.note.textContent = say.bookChanged;
    }
    editor.on('change', () => ctx.edits.remember(cell.key, edited(), cell.original));
    cell.box.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && event.shiftKey && !event.target.closest('.CodeMirror')) {
        event.preventDefault();
        run(cell);
      }
    });
  }

  async function run(cell, { quiet = false } = {}) {
    if (!(await connection.ready())) return { status: 'aborted' };
    cell.note.textContent = say.running;
    const startedAt = performance.now();
    let reply;
    try {
      reply = await connection.execute(cell, cell.editor.getValue());
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

  return { buildCells, run };
};
})();
