/* Live cells, part "saved edits": the reader's code, kept per page in this browser, shared by its tabs.
 *
 * localStorage, key `live-edits:<notebook path>`: {cells: {<cell key>: {source, original, at}},
 * resetAt?}, where `original` is the book's code the edit was made from (so a changed book can be
 * noticed), `at` when it was made (Date.now()), and `resetAt` when "Reset all edits" last ran in any
 * tab. A cell's key is its notebook index, or `answer:<exercise label>` for the answer cell live mode adds.
 *
 * Every tab of a page shares that one entry, so no tab may write over another's edits: a tab writes
 * only the cells it changed since it last saved, into what the entry holds at that moment, and it
 * hears every other tab's save (the `storage` event): a cell another tab changed is changed here too
 * (`onChange(key, entry)`: live-editors.js says so under the cell, and keeps within reach any code
 * this tab's reader typed there). A cell this tab changed and has not saved yet keeps this tab's code,
 * which its save then stores, unless another tab reset every edit after this tab made it: the later
 * intention wins, so that cell takes the book's code back here too (as another tab's change, with this
 * tab's code kept within reach under it).
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});
const SAVE_AFTER_MS = 300;

/** The page's saved edits; `refused(true)` is called when the browser will not store them, and
 * `refused(false)` when a save works again. */
live.savedEdits = function savedEdits(page, refused) {
  const key = `live-edits:${page.path}`;
  let saveTimer = null;
  const unsaved = new Set(); // keys of the cells this tab changed since its last save

  let resetAt = 0; // when "Reset all edits" last ran in any tab, as this tab last read it
  const madeAt = {}; // cell key -> when this tab's reader changed it last

  function read() {
    try {
      const saved = JSON.parse(localStorage.getItem(key));
      resetAt = Math.max(resetAt, (saved && Number(saved.resetAt)) || 0);
      return saved && saved.cells && typeof saved.cells === 'object' ? saved.cells : {};
    } catch {
      return {};
    }
  }

  const cells = read(); // this tab's view: what is stored, with this tab's unsaved changes
  let stored = { ...cells }; // what the entry held when this tab last read or wrote it

  function save() {
    clearTimeout(saveTimer);
    saveTimer = null;
    const now = read();
    const undone = []; // changed here before another tab's "Reset all edits": the reset wins
    for (const cellKey of unsaved) {
      if ((madeAt[cellKey] || 0) < resetAt) undone.push(cellKey);
      else if (cellKey in cells) now[cellKey] = cells[cellKey];
      else delete now[cellKey];
    }
    try {
      if (Object.keys(now).length || resetAt) localStorage.setItem(key, JSON.stringify({ cells: now, resetAt }));
      else localStorage.removeItem(key);
    } catch {
      refused(true);
      return false;
    }
    refused(false);
    for (const cellKey of unsaved) { // what this tab wrote is no news to it
      if (cellKey in now) stored[cellKey] = now[cellKey];
      else delete stored[cellKey];
    }
    unsaved.clear();
    for (const cellKey of undone) { // this tab shows what the entry holds, as for another tab's change
      stored[cellKey] = now[cellKey];
      if (!stored[cellKey]) delete stored[cellKey];
      if (now[cellKey]) cells[cellKey] = now[cellKey];
      else delete cells[cellKey];
      if (result.onChange) result.onChange(cellKey, now[cellKey]);
    }
    heard(now); // and what other tabs saved meanwhile, if their event has not come yet
    return true;
  }

  function remember(cellKey, source, original) {
    madeAt[cellKey] = Date.now();
    if (source === original) delete cells[cellKey];
    else cells[cellKey] = { source, original, at: madeAt[cellKey] };
    unsaved.add(cellKey);
    clearTimeout(saveTimer);
    saveTimer = setTimeout(save, SAVE_AFTER_MS);
  }

  /** Forget every edit of the page, in every tab (the editors, if any, are reset by live.js). */
  function clear() {
    const now = Date.now(); // an edit another tab made before now and has not saved yet is undone too
    for (const cellKey of new Set([...Object.keys(cells), ...Object.keys(read())])) {
      delete cells[cellKey];
      unsaved.add(cellKey);
      madeAt[cellKey] = now;
    }
    resetAt = Math.max(resetAt, now);
    save();
  }

  /** The entry now holds `now`: take in what other tabs changed since this tab last saw it. */
  function heard(now) {
    const before = stored;
    stored = now;
    for (const cellKey of new Set([...Object.keys(before), ...Object.keys(now)])) {
      const theirs = now[cellKey];
      if ((before[cellKey] || {}).source === (theirs || {}).source || unsaved.has(cellKey)) continue;
      if (theirs) cells[cellKey] = theirs;
      else delete cells[cellKey];
      if (result.onChange) result.onChange(cellKey, theirs);
    }
  }

  addEventListener('storage', (event) => {
    if (event.key === key || event.key === null) heard(read());
  });
  addEventListener('pagehide', () => saveTimer && save());

  const result = { cells, remember, save, clear, count: () => Object.keys(cells).length, onChange: null };
  return result;
};
})();
