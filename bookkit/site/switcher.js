/* The language switcher (_templates/language-switcher.html; this file is served by book_languages.py)
 * opens the same place in the other edition:
 * the in-page anchor (#fork-by-hand) and, on the search page, the query (?q=...) go along. The link
 * itself points at the page without them, so it works without JavaScript; this only adds what the
 * address bar holds when the link is followed. No dependencies; a page without a switcher is untouched.
 */
(function () {
  "use strict";

  function follow(event) {
    var link = event.currentTarget;
    var target = new URL(link.getAttribute("href"), window.location.href);
    target.search = window.location.search;
    target.hash = window.location.hash;
    link.href = target.href;
  }

  function ready() {
    document.querySelectorAll("a.language-switcher").forEach(function (link) {
      ["click", "auxclick", "keydown", "focus", "mouseover"].forEach(function (kind) {
        link.addEventListener(kind, follow);
      });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
