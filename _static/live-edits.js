/* Live cells, part "saved edits": the reader's code, kept per page in this browser, and the
 * notebook a reader downloads with it.
 *
 * localStorage, key `live-edits:<notebook path>`: {cells: {<cell key>: {source, original}}}, where
 * `original` is the book's code the edit was made from (so a changed book can be noticed). A cell's
 * key is its notebook index, or `answer:<exercise label>` for the answer cell live mode adds.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});

/** The page's saved edits; `refused()` is called when the browser will not store them. */
live.savedEdits = function savedEdits(page, refused) {
  const key = `live-edits:${page.path}`;
  let saveTimer = null;

  function load() {
    try {
      const saved = JSON.parse(localStorage.getItem(key));
      return saved && saved.cells ? saved : { cells: {} };
    } catch {
      return { cells: {} };
    }
  }

  const edits = load();

  function save() {
    clearTimeout(saveTimer);
    saveTimer = null;
    try {
      localStorage.setItem(key, JSON.stringify(edits));
      return true;
    } catch {
      refused();
      return false;
    }
  }

  function remember(cellKey, source, original) {
    if (source === original) delete edits.cells[cellKey];
    else edits.cells[cellKey] = { source, original };
    clearTimeout(saveTimer);
    saveTimer = setTimeout(save, 300);
  }

  /** Forget every edit of the page (the editors, if any, are reset by live.js). */
  function clear() {
    for (const cellKey of Object.keys(edits.cells)) delete edits.cells[cellKey];
    save();
  }

  addEventListener('pagehide', () => saveTimer && save());

  return { cells: edits.cells, remember, save, clear, count: () => Object.keys(edits.cells).length };
};

/** Offer the page's notebook with the reader's code in place of the book's (and their answers). */
live.downloadNotebook = async function downloadNotebook(ctx) {
  let notebook;
  try {
    const answer = await fetch(`${ctx.root}_sources/${ctx.page.path}`);
    if (!answer.ok) throw new Error(`${answer.status}`);
    notebook = await answer.json();
  } catch (error) {
    ctx.tell(ctx.say('unreadable', { why: error.message }));
    return;
  }
  const byIndex = new Map(ctx.cells.filter((c) => !c.answerTo).map((c) => [c.index, c]));
  const answers = new Map(ctx.cells.filter((c) => c.answerTo).map((c) => [c.answerTo, c]));
  const out = [];
  notebook.cells.forEach((nbCell, index) => {
    const entry = ctx.page.cells.find((e) => e.index === index);
    const answer = entry && entry.exercise && answers.get(entry.exercise);
    if (answer && !out.includes(answer.cellJson)) {
      answer.cellJson = { cell_type: 'code', id: `answer-${answer.answerTo}`, execution_count: null, outputs: [],
                          source: answer.editor.getValue(), metadata: { tags: ['answer'], exercise: answer.answerTo } };
      out.push(answer.cellJson);
    }
    const mine = byIndex.get(index);
    if (mine && mine.editor.getValue() !== mine.original) {
      out.push({ ...nbCell, source: mine.editor.getValue(), outputs: [], execution_count: null });
    } else {
      out.push(nbCell);
    }
  });
  notebook.cells = out;
  const blob = new Blob([JSON.stringify(notebook, null, 1)], { type: 'application/x-ipynb+json' });
  const link = live.element('a', { href: URL.createObjectURL(blob),
                                   download: `${ctx.page.path.split('/').pop().replace(/\.ipynb$/, '')}-mine.ipynb` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
};
})();
