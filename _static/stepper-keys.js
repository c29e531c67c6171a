/* The backward stepper's page-wide keys: Left and Right arrows step a player from anywhere on the page.
 *
 * _static/stepper.js starts each player and hands it over in window.tdsStepper.players as
 * { root, near(), part(), key(direction) }: `near` says whether it may take a key now (on screen, or
 * being scrolled there after the keyboard focused it), `part` the share of its picture and player on
 * screen below the theme's sticky header, `key` steps it forward (1) or back (-1). Sphinx adds
 * _static's scripts in no set order, so the two files only meet through that list, read at each key.
 *
 * The arrows go to the player with the focus, else to the one most on screen (if any), unless the
 * focus is in a form field or on something that scrolls sideways, whose arrows are its own: a wide
 * code block of the page, or in a player the box with the focus itself (its code, or its picture on a
 * phone), so that long lines can be read with the keyboard.
 */
(function () {
  "use strict";

  var stepper = (window.tdsStepper = window.tdsStepper || { players: [] });

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
    if (target.closest && target.closest("input, select, textarea, [contenteditable]")) return;
    var mine = stepper.players.filter(function (p) { return p.root.contains(target); })[0];
    // in a player, only the focused box itself: its buttons keep the arrows inside an output that scrolls
    if (mine ? target.nodeType === 1 && scrolls(target) : inSideways(target)) return;
    var focused = mine && mine.near() ? mine : null;
    var seen = stepper.players.map(function (p) { return { player: p, part: p.part() }; })
      .filter(function (s) { return s.part > 0; }).sort(function (a, b) { return b.part - a.part; });
    var chosen = focused || (seen.length ? seen[0].player : null);
    if (!chosen) return;
    event.preventDefault();
    chosen.key(event.key === "ArrowRight" ? 1 : -1);
  });
})();
