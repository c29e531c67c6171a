/* Live cells, part "outputs": what live mode does to a cell's output once the kernel drew it.
 *
 *   - pick(html, language): an output written with bookkit/words/multilingual.py (`Editions`) carries
 *     English HTML, then each other language's inside <template data-tds-edition="…">…
 *     </template><!--/tds-edition-->. The static build keeps the page's language only; so does
 *     live mode, with this mirror of editions.py's `pick`, in the renderer of text/html.
 *   - explained(text, table): an engine error printed or raised in a live cell explains itself in
 *     the page's language, as the static page's does (bookkit/words/explained.py, mirrored here).
 *   - capOutputs(rendermime, say): a cell's printed text (or plain result) of more than MAX_LINES
 *     lines shows its first HEAD_LINES and last TAIL_LINES, saying how many lines it left out between
 *     them, with a button that saves the whole text as a file: 100 000 printed lines froze the page
 *     for over a minute (each stream message drew all the text so far again).
 *   - After a run has drawn its output, live mode dispatches
 *     `document.dispatchEvent(new CustomEvent("tds:output", {detail: {element}}))` with the cell's
 *     output element: page scripts that hydrate outputs (bookkit/stepper/stepper.js) do it again there.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});
const SOURCE_LANGUAGE = 'en';
const EDITION = /<template data-tds-edition="([A-Za-z_]+)">([\s\S]*?)<\/template><!--\/tds-edition-->/g;

/** The HTML of one language (Sphinx's code: "en", "zh_CN") out of an Editions output. */
live.pick = function pick(html, language) {
  const editions = {};
  for (const match of html.matchAll(EDITION)) editions[match[1]] = match[2];
  if (!Object.keys(editions).length) return html;
  const source = html.replace(EDITION, '');
  return editions[language || SOURCE_LANGUAGE] ?? source;
};

/** The page's language as Sphinx names it: <html lang="zh-CN"> is "zh_CN". */
live.pageLanguage = function pageLanguage() {
  return (document.documentElement.lang || SOURCE_LANGUAGE).replace('-', '_');
};

/** Wrap `rendermime`'s renderer of `mime` so that each output's data of that type is `change(data)`. */
function transformed(rendermime, mime, change) {
  const factory = rendermime.getFactory(mime);
  if (!factory || (factory.tdsChanged || []).includes(change)) return;
  rendermime.addFactory({
    ...factory,
    tdsChanged: [...(factory.tdsChanged || []), change],
    createRenderer(options) {
      const renderer = factory.createRenderer(options);
      const render = renderer.renderModel.bind(renderer);
      renderer.renderModel = (model) => {
        const source = model.data[mime];
        if (typeof source !== 'string') return render(model);
        const picked = Object.create(model, { data: { value: { ...model.data, [mime]: change(source) } } });
        return render(picked);
      };
      return renderer;
    },
  }, rendermime.getRank(mime)); // replaces the factory of `mime`, which it wraps
}

/** Make `rendermime`'s text/html renderer show the page's language of every Editions output. */
live.pickEditions = function pickEditions(rendermime, language = live.pageLanguage()) {
  transformed(rendermime, 'text/html', (html) => live.pick(html, language));
};

/** A template of bookkit/words/explained.py's words as a regular expression, as `_pattern` makes it:
 * each {name} a group that matches as little as it can, each space any run of white space. */
function pattern(template, whole = false) {
  const parts = template.split(/\{(\w+)\}/);
  const source = parts.map((part, at) => (at % 2
    ? `(?<${part}>[\\s\\S]+?)`
    : part.split(' ').map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+'))).join('');
  return new RegExp(whole ? `^(?:${source})$` : source, whole ? '' : 'g');
}

function phrased(value, english, other) {
  for (const [key, template] of Object.entries(english)) {
    const match = pattern(template, true).exec(value);
    if (match) return live.fill(other[key], mapValues(match.groups || {}, (part) => phrased(part, english, other)));
  }
  return value;
}

const mapValues = (object, change) => Object.fromEntries(Object.entries(object).map(([k, v]) => [k, change(v)]));

/**
 * `text` with the engine's explanation of an error in the page's language, as bookkit/words/explained.py
 * (`explained`) writes it for the static page: `table` is {en, page}, the words files' part
 * "explained" in English and in the page's language (bookkit/live/sphinx_ext.py puts them in the page's data).
 */
live.explained = function explained(text, table) {
  if (!table) return text;
  const { en, page } = table;
  for (const [key, template] of Object.entries(en.sentences)) {
    text = text.replace(pattern(template), (...found) => {
      const groups = found[found.length - 1];
      return live.fill(page.sentences[key], mapValues(groups || {}, (part) => phrased(part, en.phrases, page.phrases)));
    });
  }
  return text;
};

/** Make the renderers of printed text and tracebacks explain the engine's errors in the page's language. */
live.explainErrors = function explainErrors(rendermime, table) {
  if (!table) return; // an English page: the engine's words are the page's
  const explain = (text) => live.explained(text, table);
  for (const mime of ['application/vnd.jupyter.stdout', 'application/vnd.jupyter.stderr']) {
    transformed(rendermime, mime, explain);
  }
};

/**
 * Keep a live traceback's colours, without a console warning per coloured span. JupyterLab's text
 * renderer (in thebe 0.9.3's bundle) turns ANSI colours into <span style="color: rgb(...)">
 * and hands them to sanitize-html, which parses style attributes with postcss; in a browser that
 * fails, so it warns and drops the style (https://github.com/apostrophecms/sanitize-html/issues/547).
 * For that call only (allowedTags ["span"]: ANSI text, whose styles the renderer wrote itself from
 * colour numbers) the styles are kept as written; every other output is sanitized as before.
 */
live.keepAnsiColours = function keepAnsiColours(rendermime) {
  const base = rendermime.sanitizer;
  if (!base || base.tdsAnsi) return;
  const sanitizer = Object.create(base);
  sanitizer.tdsAnsi = true;
  sanitizer.sanitize = (dirty, options) => {
    const ansi = options && Array.isArray(options.allowedTags) && options.allowedTags.join() === 'span';
    return base.sanitize(dirty, ansi ? { ...options, parseStyleAttributes: false, allowedStyles: undefined } : options);
  };
  rendermime.sanitizer = sanitizer;
};

const HEAD_LINES = 200;
const TAIL_LINES = 800;
const MAX_LINES = HEAD_LINES + TAIL_LINES;
const MAX_CHARS = 200 * 1000; // and a line of a megabyte is capped too

/** `text` as the page shows it, and how many lines (or characters) it leaves out; null if whole. */
live.capped = function capped(text, say) {
  if (text.length <= MAX_CHARS && (text.match(/\n/g) || []).length <= MAX_LINES) return null;
  const end = text.endsWith('\n') ? '\n' : ''; // a last line's newline ends it: it starts no line
  const lines = (end ? text.slice(0, -1) : text).split('\n');
  if (lines.length > MAX_LINES) {
    const left = lines.length - MAX_LINES;
    const shown = [...lines.slice(0, HEAD_LINES), say.count('outputLinesLeft', left), ...lines.slice(-TAIL_LINES)];
    const joined = shown.join('\n') + end;
    if (joined.length <= MAX_CHARS) return { text: joined, left };
  }
  const half = MAX_CHARS / 2;
  return { text: `${text.slice(0, half)}\n${say('outputCharsLeft', { n: text.length - MAX_CHARS })}\n${text.slice(-half)}`,
           left: 0 };
};

/** Make `rendermime`'s renderers of printed text and plain results show at most MAX_LINES lines. */
live.capOutputs = function capOutputs(rendermime, say) {
  for (const mime of ['application/vnd.jupyter.stdout', 'application/vnd.jupyter.stderr', 'text/plain']) {
    const factory = rendermime.getFactory(mime);
    if (!factory || factory.tdsCapped) continue;
    rendermime.addFactory({
      ...factory,
      tdsCapped: true,
      createRenderer(options) {
        const renderer = factory.createRenderer(options);
        const render = renderer.renderModel.bind(renderer);
        renderer.renderModel = async (model) => {
          const whole = model.data[mime];
          const cut = typeof whole === 'string' && live.capped(whole, say);
          if (!cut) return render(model);
          await render(Object.create(model, { data: { value: { ...model.data, [mime]: cut.text } } }));
          const save = live.button(say('saveWholeOutput'), () => {
            const link = live.element('a', { href: URL.createObjectURL(new Blob([whole], { type: 'text/plain' })),
                                             download: 'output.txt' });
            document.body.append(link);
            link.click();
            link.remove();
            setTimeout(() => URL.revokeObjectURL(link.href), 10000);
          });
          renderer.node.append(live.element('p', { class: 'live-output-capped' }, say('outputCapped'), ' ', save));
        };
        return renderer;
      },
    }, rendermime.getRank(mime));
  }
};

/** Tell the page's other scripts that `element` holds a new output (see the top of this file). */
live.outputDrawn = function outputDrawn(element) {
  // OutputArea draws a message's output as it arrives; one turn later, all of it is in the page
  setTimeout(() => document.dispatchEvent(new CustomEvent('tds:output', { detail: { element } })), 0);
};
})();
