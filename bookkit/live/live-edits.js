/* Live cells, part "saved edits": the reader's code, kept per page in this browser, shared by its tabs.
 *
 * localStorage, key `live-edits:<notebook path>`: {cells: {<cell key>: {source, original}}}, where
 * `original` is the book's code the edit was made from (so a changed book can be noticed). A cell's
 * key is its notebook index, or `answer:<exercise label>` for the answer cell live mode adds.
 *
 * Every tab of a page shares that one entry, so no tab may write over another's edits: a tab writes
 * only the cells it changed since it last saved, into what the entry holds at that moment, and it
 * hears every other tab's save (the `storage` event): a cell another tab changed is changed here too
 * (`onChange(key, entry)`: live-editors.js says so under the cell, and keeps within reach any code
 * this tab's reader typed there). A cell this tab changed and has not saved yet keeps this tab's code,
 * which its save then stores.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});
const SAVE_AFTER_MS = 300;

/** The page's saved edits; `refused()` is called when the browser will not store them. */
live.savedEdits = function savedEdits(page, refused) {
  const key = `live-edits:${page.path}`;
  let saveTimer = null;
  const unsaved = new Set(); // keys of the cells this tab changed since its last save

  function read() {
    try {
      const saved = JSON.parse(localStorage.getItem(key));
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
    for (const cellKey of unsaved) {
      if (cellKey in cells) now[cellKey] = cells[cellKey];
      else delete now[cellKey];
    }
    try {
      if (Object.keys(now).length) localStorage.setItem(key, JSON.stringify({ cells: now }));
      else localStorage.removeItem(key);
    } catch {
      refused();
      return false;
    }
    for (const cellKey of unsaved) { // what this tab wrote is no news to it
      if (cellKey in now) stored[cellKey] = now[cellKey];
      else delete stored[cellKey];
    }
    unsaved.clear();
    heard(now); // and what other tabs saved meanwhile, if their event has not come yet
    return true;
  }

  function remember(cellKey, source, original) {
    if (source === original) delete cells[cellKey];
    else cells[cellKey] = { source, original };
    unsaved.add(cellKey);
    clearTimeout(saveTimer);
    saveTimer = setTimeout(save, SAVE_AFTER_MS);
  }

  /** Forget every edit of the page, in every tab (the editors, if any, are reset by live.js). */
  function clear() {
    for (const cellKey of new Set([...Object.keys(cells), ...Object.keys(read())])) {
      delete cells[cellKey];
      unsaved.add(cellKey);
    }
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
