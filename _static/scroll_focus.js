/* Boxes that scroll sideways (tables, graphs on a phone) can be reached and scrolled with the keyboard.
 *
 * pydata-sphinx-theme 0.15.4 (pinned by sphinx-book-theme 1.1.4, requirements.txt) gives code
 * blocks and notebook outputs that overflow a tab stop, but not the scrolling box it puts around
 * every table (div.pst-scrollable-table-container): on a phone a wide table is a scrollable region
 * no keyboard can reach (axe-core's `scrollable-region-focusable`). The theme fixed that in
 * https://github.com/pydata/pydata-sphinx-theme/pull/1903 (released in 0.16.0); this script does
 * what that change does for the boxes it added, for the graphs nested in an output (chapter 8's
 * tabs), which _static/custom.css lets scroll on a phone and the theme's selector
 * (`.cell_output > .output`) misses, and for the explorer's picture boxes (bookkit/explorer/explorer.py):
 * a box whose content overflows gets tabindex="0", one that fits gets tabindex="-1", on load and
 * whenever the window is resized. It can go once the theme is
 * 0.16 or newer (tests/site/test_accessibility.py says when the pinned theme has the fix).
 *
 * No dependencies; it does nothing on a page without such a box.
 */
(function () {
  "use strict";

  var BOXES = ".pst-scrollable-table-container, .cell_output .output.text_html, .explorer-picture";

  function update() {
    document.querySelectorAll(BOXES).forEach(function (box) {
      box.tabIndex = box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight ? 0 : -1;
    });
  }

  var pending = null;
  function later() {
    if (pending !== null) clearTimeout(pending);
    pending = setTimeout(update, 300);
  }

  window.addEventListener("resize", later);
  // An explorer picture overflows only once its image has loaded.
  document.addEventListener("load", function (event) {
    if (event.target.tagName === "IMG") later();
  }, true);
  if (document.readyState === "complete") update();
  else window.addEventListener("load", update);
})();
