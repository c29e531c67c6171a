/* Live cells, part "outputs": what live mode does to a cell's output once the kernel drew it.
 *
 *   - pick(html, language): an output written with mlx_autodiff/editions.py (`Editions`) carries
 *     English HTML, then each other language's inside <template data-tds-edition="…">…
 *     </template><!--/tds-edition-->. The static build keeps the page's language only; so does
 *     live mode, with this mirror of editions.py's `pick`, in the renderer of text/html.
 *   - After a run has drawn its output, live mode dispatches
 *     `document.dispatchEvent(new CustomEvent("tds:output", {detail: {element}}))` with the cell's
 *     output element: page scripts that hydrate outputs (_static/stepper.js) do it again there.
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

/** Make `rendermime`'s text/html renderer show the page's language of every Editions output. */
live.pickEditions = function pickEditions(rendermime, language = live.pageLanguage()) {
  const html = 'text/html';
  const factory = rendermime.getFactory(html);
  if (!factory || factory.tdsPicked) return;
  rendermime.addFactory({
    ...factory,
    tdsPicked: true,
    createRenderer(options) {
      const renderer = factory.createRenderer(options);
      const render = renderer.renderModel.bind(renderer);
      renderer.renderModel = (model) => {
        const source = model.data[html];
        if (typeof source !== 'string') return render(model);
        const picked = Object.create(model, { data: { value: { ...model.data, [html]: live.pick(source, language) } } });
        return render(picked);
      };
      return renderer;
    },
  }, rendermime.getRank(html)); // replaces the factory of text/html, which it wraps
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

/** Tell the page's other scripts that `element` holds a new output (see the top of this file). */
live.outputDrawn = function outputDrawn(element) {
  // OutputArea draws a message's output as it arrives; one turn later, all of it is in the page
  setTimeout(() => document.dispatchEvent(new CustomEvent('tds:output', { detail: { element } })), 0);
};
})();
