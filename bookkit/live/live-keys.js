/* Live cells, part "keys": the keys of a cell's editor, which never trap a keyboard and never change
 * a reader's code while they only move through the page.
 *
 * An editor is "moving through" until the reader changes its code (types, pastes, deletes) or clicks
 * into it: then Tab and Shift+Tab move the focus on, as everywhere on the page. Once they have changed
 * it (or clicked), it is "editing": Tab indents and Shift+Tab dedents, as in any code editor, until
 * Escape (or leaving the editor) makes it "moving through" again. Shift+Enter runs the cell in both.
 * A line under the editor that has (or last had) the focus says which it is and how to leave, in
 * words (not only in its aria-label).
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});

/** Give `cell`'s editor these keys and its visible hint; `run()` runs the cell. */
live.editorKeys = function editorKeys(cell, say, run) {
  const editor = cell.editor;
  const hint = live.element('p', { class: 'live-keys-hint', id: `${cell.id}-keys` });
  hint.hidden = true;
  const common = { 'Shift-Enter': () => { run(); }, Esc: () => mode(false) };
  const editing = {
    ...common,
    Tab: (cm) => cm.execCommand(cm.somethingSelected() ? 'indentMore' : 'insertSoftTab'),
    'Shift-Tab': (cm) => cm.execCommand('indentLess'),
  };
  const moving = { ...common, Tab: false, 'Shift-Tab': false }; // false: the browser's own Tab, which moves on
  let now = null;

  function mode(changing) {
    if (now === changing) return;
    now = changing;
    editor.setOption('extraKeys', changing ? editing : moving);
    cell.cellElement.classList.toggle('live-editing', changing);
    if (editor.hasFocus()) hint.textContent = say(changing ? 'keysEditing' : 'keysMoving');
  }

  mode(false);
  // The line stays under the editor the focus was in last, until another editor takes the focus: hiding
  // it on blur would move the buttons below it while a click on them is under way.
  editor.on('focus', () => {
    for (const other of document.querySelectorAll('.live-keys-hint')) other.hidden = other !== hint;
    hint.textContent = say(now ? 'keysEditing' : 'keysMoving');
    hint.hidden = false;
  });
  editor.on('blur', () => mode(false));
  editor.on('mousedown', () => mode(true)); // a click into the code is meant for the code
  editor.on('change', (cm, change) => {
    if (cm.hasFocus() && change.origin && change.origin !== 'setValue' && !change.origin.startsWith('tds')) mode(true);
  });
  const input = editor.getInputField();
  input.setAttribute('aria-label', say('editorLabel', { n: cell.number }));
  input.setAttribute('aria-describedby', hint.id);
  return hint;
};
})();
