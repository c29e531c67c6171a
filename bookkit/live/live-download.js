/* Live cells, part "download": "Download my notebook", the reader's notebook of the page.
 *
 * It starts from the notebook the build made for the page in its language (the page's data names it:
 * `notebook`, bookkit/live/sphinx_ext.py): for a chapter with exercises, the very notebook
 * `mlx-autodiff-exercises get --language` writes (plain Markdown, each solution a stub, the book's
 * checks), else the page made plain. The reader's code goes in by identity, never by position: their
 * answer to an exercise replaces that exercise's stub (the code cell labelled with it that is not a
 * check; a second stub of the same exercise is dropped, since one answer replaces them all), and a
 * cell they edited replaces the cell with the same id (`nb` in the page's data). Nothing else
 * changes, so the file has no book solution, and `mlx-autodiff-exercises check` grades it.
 * It works before "Run live" too, from the edits kept in this browser, and after the book's server
 * stopped: the page fetches the notebook it starts from once it offers the download (the reader
 * edited a cell, or clicked "Run live"; `live.keepNotebook`), never on a page only read, and keeps it.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});

/** The reader's code in the cell of `key` (an editor's, else a kept edit's), or undefined if none. */
function readersCode(ctx, key) {
  const cell = (ctx.cells || []).find((c) => c.key === key);
  if (cell) return cell.editor.getValue() !== cell.original ? cell.editor.getValue() : undefined;
  return (ctx.edits.cells[key] || {}).source;
}

/** `notebook` (the page's reader notebook, as JSON) with the reader's answers and edited cells in it. */
live.readersNotebook = function readersNotebook(ctx, notebook) {
  const byId = new Map(ctx.page.cells.filter((entry) => entry.nb).map((entry) => [entry.nb, String(entry.index)]));
  const answered = new Set();
  const mine = (cell, source) => ({ ...cell, source, outputs: [], execution_count: null });
  notebook.cells = notebook.cells.flatMap((cell) => {
    if (cell.cell_type !== 'code') return [cell];
    const metadata = cell.metadata || {};
    const label = metadata.exercise;
    if (label && !(metadata.tags || []).includes('check')) { // a stub: the reader's answer goes here
      if (answered.has(label)) return [];
      const answer = readersCode(ctx, `answer:${label}`);
      if (answer === undefined) return [cell];
      answered.add(label);
      return [mine(cell, answer)];
    }
    const source = byId.has(cell.id) ? readersCode(ctx, byId.get(cell.id)) : undefined;
    return [source === undefined ? cell : mine(cell, source)];
  });
  return notebook;
};

/** Fetch the notebook the download starts from, once, and keep its text (a failed fetch is tried
 * again on the next call); resolves to the text, or rejects with an Error in the reader's words. */
live.keepNotebook = function keepNotebook(ctx) {
  if (!ctx.notebookText) {
    ctx.notebookText = fetch(new URL(ctx.page.notebook, location.href), { cache: 'no-store' })
      .catch(() => { throw new Error(ctx.say('bookServerGone')); })
      .then((answer) => {
        if (!answer.ok) throw new Error(ctx.say('httpError', { status: answer.status, text: answer.statusText }));
        return answer.text();
      });
    ctx.notebookText.catch(() => { ctx.notebookText = null; });
  }
  return ctx.notebookText;
};

/** Offer the reader's notebook of the page as a file (`<chapter>-mine.ipynb`). */
live.downloadNotebook = async function downloadNotebook(ctx) {
  let notebook;
  try {
    notebook = JSON.parse(await live.keepNotebook(ctx));
  } catch (error) {
    ctx.tell(ctx.say('unreadable', { why: error.message }));
    return;
  }
  const blob = new Blob([JSON.stringify(live.readersNotebook(ctx, notebook), null, 1)],
                        { type: 'application/x-ipynb+json' });
  const name = ctx.page.notebook.split('/').pop().replace(/\.ipynb$/, '');
  const link = live.element('a', { href: URL.createObjectURL(blob), download: `${name}-mine.ipynb` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
};
})();
