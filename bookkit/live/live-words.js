/* Live cells, part "words": what every other part shows a reader, in the page's language.
 *
 * The words are the part "page" → "live" of bookkit/words/<language>.json, which
 * bookkit/site/book_languages.py writes into every page as script#tds-words. A text holds {name}
 * placeholders; a count has two keys, `<key>_one` and `<key>_other`. Commands ("make live"),
 * URLs and Python's error names stay as they are in every language.
 * The parts of live mode (live-*.js and live.js, in _static/) share one namespace, window.tdsLive.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});

/** `text` with each {name} replaced by values[name] (bookkit.words.say, in JS). */
live.fill = function fill(text, values = {}) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
};

/**
 * say(key, values): the page's text for `key`, filled in; say.count(key, n, values) picks
 * `<key>_one` or `<key>_other` by n; say.state(state) is a status word. A key the words file
 * lacks throws, naming it: tests/book/test_words.py keeps both languages' keys the same.
 */
live.words = function words(table) {
  const mine = table || JSON.parse(document.getElementById('tds-words').textContent).live;
  const text = (key) => {
    if (typeof mine[key] !== 'string') throw new Error(`no live word "${key}" in bookkit/words`);
    return mine[key];
  };
  const say = (key, values) => live.fill(text(key), values);
  say.count = (key, n, values = {}) => live.fill(text(`${key}_${n === 1 ? 'one' : 'other'}`), { n, ...values });
  say.state = (state) => mine.states[state];
  return say;
};
})();
