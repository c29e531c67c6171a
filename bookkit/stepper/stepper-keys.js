/* The backward stepper's page-wide keys (Left and Right arrows step a player from anywhere on the page),
 * and what of a stepper counts as on screen.
 *
 * bookkit/stepper/stepper.js starts each player and hands it over in window.tdsStepper.players as
 * { root, near(), part(), key(direction) }: `near` says whether it may take a key now (on screen, or
 * being scrolled there after the keyboard focused it), `part` the share of its picture and player on
 * screen below the theme's sticky header, `key` steps it forward (1) or back (-1). This file gives it
 * back `shown`, `onScreen`, `headerBottom` (where the page shows below the theme's sticky header) and
 * `scrolledAt` (the page's last scroll), which `part`, `near` and the player's `reveal` use.
 * Sphinx adds _static's scripts in no set order, so the two files meet only through window.tdsStepper,
 * read at a key, after both have loaded.
 *
 * The arrows go to the player with the focus, else to the one most on screen (if any), unless the
 * focus is in a form field or on something that scrolls sideways, whose arrows are its own: a wide
 * code block of the page, or in a player the box with the focus itself (its code, or its picture on a
 * phone), so that long lines can be read with the keyboard.
 */
(function () {
  "use strict";

  var stepper = (window.tdsStepper = window.tdsStepper || { players: [] });
  var SHOWN_MIN_PX = 40; // of a picture and player on screen: less is a border's sliver, not a control
  // a form field's arrows are its own; a checkbox (Predict) has none
  var FIELD = "input:not([type=checkbox]), select, textarea, [contenteditable]";

  stepper.scrolledAt = -Infinity;
  function scrolled() { stepper.scrolledAt = performance.now(); }
  window.addEventListener("scroll", scrolled, { passive: true });

  function headerBottom() {
    var header = document.querySelector(".bd-header-article");
    return Math.max(header ? header.getBoundingClientRect().bottom : 0, 0);
  }
  stepper.headerBottom = headerBottom;

  stepper.onScreen = function onScreen(el) {
    var box = el.getBoundingClientRect();
    return box.bottom > headerBottom() && box.top < window.innerHeight;
  };

  // The share of the picture's and the player's height on screen below the theme's sticky header, at the
  // key (an IntersectionObserver's report lags a scroll). Not the frames' list: closed, its one line
  // would count a stepper whose graph and player are off screen as shown; and from 1200 px it is drawn
  // over the sticky columns (bookkit/stepper/stepper.css), so what of them lies below its top is hidden.
  stepper.shown = function shown(parts, list) {
    var top = headerBottom(), high = 0, total = 0;
    var bottom = Math.min(window.innerHeight, list.getBoundingClientRect().top);
    parts.forEach(function (part) {
      var box = part.getBoundingClientRect();
      total += box.height;
      if (box.right > 0 && box.left < window.innerWidth)
        high += Math.max(0, Math.min(box.bottom, bottom) - Math.max(box.top, top));
    });
    return high >= SHOWN_MIN_PX ? high / total : 0;
  };

  function scrolls(el) {
    return el.scrollWidth > el.clientWidth && /auto|scroll/.test(getComputedStyle(el).overflowX);
  }

  // Whether the focus is on something that scrolls sideways, or inside one (a code block's text)
  function inSideways(target) {
    for (var el = target; el && el.nodeType === 1 && el !== document.body; el = el.parentElement)
      if (scrolls(el)) return true;
    return false;
  }

  document.addEventListener("keydown", function (event) {
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || event.defaultPrevented) return;
    var target = event.target;
    if (target.closest(FIELD)) return;
    var mine = stepper.players.filter(function (p) { return p.root.contains(target); })[0];
    // in a player, only the focused box itself: its buttons keep the arrows inside an output that scrolls
    if (mine ? scrolls(target) : inSideways(target)) return;
    var focused = mine && mine.near() ? mine : null;
    var seen = stepper.players.map(function (p) { return { player: p, part: p.part() }; })
      .filter(function (s) { return s.part > 0; }).sort(function (a, b) { return b.part - a.part; });
    var chosen = focused || (seen.length ? seen[0].player : null);
    if (!chosen) return;
    event.preventDefault();
    chosen.key(event.key === "ArrowRight" ? 1 : -1);
  });
})();
