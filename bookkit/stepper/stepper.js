/* The backward stepper's player: replays one backward pass, a frame at a time, on its graph.
 *
 * No dependencies; Jupyter Book loads it on every page (it does nothing without a stepper).
 * bookkit/stepper/__init__.py (`Stepper.html`) writes, in the page's language:
 *
 *   div.stepper.full-width#<graph>-stepper one per stepper; the CSS variables of its marks
 *     div.stepper-picture                  the graph's scroll box; a node's box is the <g> the JSON names
 *     div.stepper-player[hidden]           role="group", tabindex="0"; shown by this script
 *       button[data-action="first" | "previous" | "play" | "next" | "last" | "reset"]
 *       span.stepper-position              "Step k of n"
 *       input.stepper-slider[type=range]   1..n; aria-valuetext says "Step k of n"
 *       .stepper-speed select              0.5, 1, 2 (times one frame a second)
 *       .stepper-predict input[checkbox]   Predict mode: before each pop, ask which node comes off
 *       a.stepper-link                     the permalink: the page's URL with ?frame-<graph>=k
 *       .stepper-phases span[data-phase]   "walk" and "run", each with an <i> filled as far as played
 *       p.stepper-sentence                 aria-live="polite": the frame's sentence
 *       .stepper-question, .stepper-feedback   Predict mode's question, choices and answer
 *       .stepper-code li[data-line]        tape.py's lines; the frame's gets aria-current="location"
 *       .stepper-burn span                 links to the same place in Burn's source
 *       .stepper-stack ol, .stepper-tape ol, .stepper-gradients ol, .stepper-changes ul
 *     details.stepper-frames[open]         every frame's sentence: the page without JavaScript;
 *                                          this script closes it and marks the current <li>
 *     script.stepper-data                  type="application/json":
 *       { graph, title, nodes: { "3": { name, element, had_step } },
 *         frames: [ { sentence, node, stack, taken, gradients, phase, line, failed, landed,
 *                     held: [{node, shape, device}], missed, changes: {popped, pushed, took, gone,
 *                     arrived, removed}, lines, burn: [key] } ],
 *         burn: { key: { url, text } }, trace }
 *
 * Marks (bookkit/stepper/stepper.css): the frame's node, aria-current="step" and stepper-current (stepper-failed
 * where the pass stops); steps taken so far, stepper-taken; nodes a gradient reached, stepper-gradient
 * (it stays), this frame's arrivals, stepper-arrived; parameters left without one, stepper-missed.
 *
 * Keys: Left and Right arrows, page-wide: bookkit/stepper/stepper-keys.js, to which each player is handed in
 * window.tdsStepper.players. Home and End with the focus in the player, its picture or its list, Space on
 * the player's box or the picture: while on screen (below the sticky header) or just focused.
 * The URL follows the frame (history.replaceState, a query parameter beside live mode's #live=...).
 * From 1200 px a reader's step scrolls the page, as little as it can, to show the frame's box (`reveal`).
 * A click on a node's box or a stack entry goes to the frame that pops it. Live mode's new outputs
 * (`tds:output` events, detail.element) have their steppers started.
 *
 * Words: script#tds-words's part "stepper" (bookkit/site/book_languages.py); sentences, names: the engine's.
 */
(function () {
  "use strict";

  var MS_PER_FRAME = 1000; // at 1x
  var FOCUS_SCROLL_MS = 1000; // the browser's smooth scroll to a newly focused element, usually at most
  var SCROLL_GAP_MS = 150; // a smooth scroll's events come closer together than this
  var REVEAL_GAP_PX = 8; // between a box the page scrolls to show and the window's edge
  var MARKS = ["stepper-current", "stepper-failed", "stepper-taken", "stepper-gradient", "stepper-arrived",
               "stepper-missed"];
  var words = null; // the page's words (start() reads them)
  // every started player, for the page-wide arrow keys; `shown`, `onScreen`, `scrolledAt`: what is on screen
  // (bookkit/stepper/stepper-keys.js: the two load in either order, and this one reads those at a key only)
  var stepper = (window.tdsStepper = window.tdsStepper || { players: [] });

  function say(key, values) {
    return words[key].replace(/\{(\w+)\}/g, function (_, name) { return values[name]; });
  }

  function element(tag, className, text) {
    var made = document.createElement(tag);
    if (className) made.className = className;
    if (text !== undefined) made.textContent = text;
    return made;
  }

  function player(root) {
    var data = JSON.parse(root.querySelector("script.stepper-data").textContent);
    var frames = data.frames, last = frames.length - 1;
    var panel = root.querySelector(".stepper-player"), picture = root.querySelector(".stepper-picture");
    var find = function (selector) { return panel.querySelector(selector); };
    var sentence = find(".stepper-sentence"), position = find(".stepper-position");
    var slider = find(".stepper-slider"), speed = find(".stepper-speed select"), play = find("[data-action=play]");
    var predict = find(".stepper-predict input"), link = find(".stepper-link");
    var question = find(".stepper-question"), feedback = find(".stepper-feedback");
    var list = root.querySelector("details.stepper-frames"), items = list.querySelectorAll("ol > li");
    var codeLines = {};
    panel.querySelectorAll(".stepper-code li[data-line]").forEach(function (line) {
      codeLines[line.dataset.line] = line;
    });
    var parameter = "frame-" + data.graph, boxes = {}, popsAt = {}, pushedAt = {};
    Object.keys(data.nodes).forEach(function (id) {
      boxes[id] = root.querySelector('[id="' + data.nodes[id].element + '"]'); // null if left out
    });
    frames.forEach(function (frame, at) {
      if (frame.changes.popped !== null) popsAt[frame.changes.popped] = at;
      frame.changes.pushed.forEach(function (id) { pushedAt[id] = at; });
    });
    popsAt[frames[0].node] = 0; // the root is where the walk starts
    var current = 0, timer = null, asking = false, focusedAt = -Infinity, arriving = false;
    // focus the keyboard brought (a click's focus is not :focus-visible): the browser scrolls to it
    root.addEventListener("focusin", function (event) {
      arriving = event.target.matches(":focus-visible");
      focusedAt = performance.now();
    });
    function part() { return stepper.shown([picture, panel], list); }
    // on screen, or still being scrolled there after the keyboard's focus came in (a long smooth scroll
    // outlasts FOCUS_SCROLL_MS: while the page still scrolls, it is on its way): a player the keys may drive
    function near() {
      if (part() > 0) {
        arriving = false; // it is there: a later scroll away takes the keys from it
        return true;
      }
      var now = performance.now();
      arriving = arriving && (now - focusedAt < FOCUS_SCROLL_MS || now - stepper.scrolledAt < SCROLL_GAP_MS);
      return arriving;
    }

    function nameOf(id) { return data.nodes[id].name; }

    function fill(list, entries, make) {
      list.replaceChildren.apply(list, entries.length ? entries.map(make)
                                                      : [element("li", "stepper-empty", words.none)]);
    }

    function mark(ids, name) {
      ids.forEach(function (id) { if (boxes[id]) boxes[id].classList.add(name); });
    }

    function follow(box) {
      // keep the current box inside the picture's scroll box, scrolling that box only (not the page)
      var outer = picture.getBoundingClientRect(), inner = box.getBoundingClientRect();
      if (inner.left < outer.left || inner.right > outer.right)
        picture.scrollLeft += inner.left - outer.left - (outer.width - inner.width) / 2;
      if (inner.top < outer.top || inner.bottom > outer.bottom)
        picture.scrollTop += inner.top - outer.top - (outer.height - inner.height) / 2;
    }

    // From 1200 px (sticky columns) a stepper scrolled half into view leaves a low box under the window
    // (or, at its end, under the frames' list drawn over the columns): the page scrolls as little as shows
    // it, and the columns, the controls at their top, stop at their sticky top on the way.
    function reveal(box) {
      if (getComputedStyle(picture).position !== "sticky" || !part()) return;
      var top = stepper.headerBottom() + REVEAL_GAP_PX, shown = box.getBoundingClientRect();
      var bottom = Math.min(window.innerHeight, list.getBoundingClientRect().top) - REVEAL_GAP_PX;
      var controls = find(".stepper-controls").getBoundingClientRect();
      var below = shown.bottom - bottom, above = Math.min(shown.top, controls.top) - top;
      var by = below > 0 ? below : above < 0 ? above : 0;
      if (by) window.scrollBy({ top: by, behavior: "instant" });
    }

    function tapeState(id, frame) {
      if (frame.changes.took === Number(id)) return "taken_now";
      if (frame.taken.indexOf(Number(id)) >= 0) return "taken_before";
      return data.nodes[id].had_step ? "on_tape" : "gone";
    }

    function changes(frame) {
      var c = frame.changes, said = [];
      var names = function (ids) { return ids.map(nameOf).join(", "); };
      if (c.popped !== null) said.push(say("ch_popped", { node: nameOf(c.popped) }));
      if (c.took !== null) said.push(say("ch_took", { node: nameOf(c.took) }));
      if (c.gone !== null) said.push(say("ch_gone", { node: nameOf(c.gone) }));
      if (c.pushed.length) said.push(say("ch_pushed", { nodes: names(c.pushed) }));
      c.removed.forEach(function (id) { said.push(say("ch_removed", { node: nameOf(id) })); });
      if (c.arrived.length) said.push(say("ch_arrived", { nodes: names(c.arrived) }));
      return said.length ? said : [words.ch_nothing];
    }

    function show(index, remember) {
      current = Math.max(0, Math.min(index, last));
      var frame = frames[current], rebuilt = document.activeElement.closest(".stepper-stack, .stepper-burn");
      Object.keys(boxes).forEach(function (id) {
        var box = boxes[id];
        if (!box) return;
        box.classList.remove.apply(box.classList, MARKS);
        box.removeAttribute("aria-current");
      });
      mark(frame.taken, "stepper-taken");
      mark(frame.landed, "stepper-gradient");
      mark(frame.node === null ? [] : frame.changes.arrived, "stepper-arrived");
      mark(frame.missed, "stepper-missed");
      var box = frame.node === null ? null : boxes[frame.node];
      if (box) {
        box.classList.add(frame.failed ? "stepper-failed" : "stepper-current");
        box.setAttribute("aria-current", "step");
      }
      var where = say("position", { k: current + 1, n: frames.length });
      sentence.textContent = frame.sentence;
      position.textContent = where;
      slider.value = String(current + 1);
      slider.setAttribute("aria-valuetext", where);
      panel.querySelectorAll(".stepper-phases span").forEach(function (phase) {
        var of = frames.filter(function (f) { return f.phase === phase.dataset.phase; }).length;
        var done = frames.slice(0, current + 1).filter(function (f) { return f.phase === phase.dataset.phase; });
        phase.style.flexGrow = String(of);
        phase.querySelector("i").style.width = (100 * done.length / of) + "%";
        phase.classList.toggle("stepper-phase-now", frame.phase === phase.dataset.phase);
      });
      Object.keys(codeLines).forEach(function (number) {
        var line = codeLines[number], at = Number(number);
        if (at === frame.line) line.setAttribute("aria-current", "location");
        else line.removeAttribute("aria-current");
        line.classList.toggle("stepper-line-also", frame.lines.indexOf(at) >= 0);
      });
      var burn = find(".stepper-burn span");
      burn.replaceChildren.apply(burn, frame.burn.map(function (key) {
        var a = element("a", "", data.burn[key].text);
        a.href = data.burn[key].url;
        return a;
      }));
      if (frame.failed) burn.appendChild(element("span", "stepper-burn-note", " (" + words.burn_missing + ")"));
      fill(find(".stepper-stack ol"), frame.stack.slice().reverse(), function (id) {
        var item = element("li"), jump = element("button", "", nameOf(id));
        jump.type = "button";
        jump.title = words.jump;
        jump.dataset.node = String(id);
        item.appendChild(jump);
        return item;
      });
      fill(find(".stepper-tape ol"), Object.keys(data.nodes), function (id) {
        var state = tapeState(id, frame), item = element("li", "stepper-tape-" + state, nameOf(id) + ": ");
        item.appendChild(element("span", "", words[state]));
        return item;
      });
      fill(find(".stepper-gradients ol"), frame.held, function (held) {
        var item = element("li", "", say("grad_entry", { node: nameOf(held.node),
                                                         shape: "[" + held.shape.join(", ") + "]",
                                                         device: held.device }));
        if (frame.changes.arrived.indexOf(held.node) >= 0) item.className = "stepper-new";
        return item;
      });
      fill(find(".stepper-changes ul"), changes(frame), function (text) { return element("li", "", text); });
      items.forEach(function (item, at) {
        if (at === current) item.setAttribute("aria-current", "step");
        else item.removeAttribute("aria-current");
      });
      // aria-disabled, not disabled: a disabled button would drop the keyboard focus on the page
      ["first", "previous", "next", "last"].forEach(function (action, at) {
        var end = at < 2 ? 0 : last;
        find('[data-action="' + action + '"]').setAttribute("aria-disabled", String(current === end));
      });
      if (remember) permalink();
      link.href = url(current) + "#" + root.id;
      if (current === last) stop();
      // reads last, after every write: one layout per frame, not one per pane
      var here = codeLines[frame.line], codeBox = find(".stepper-code-box");
      if (here) codeBox.scrollTop = here.offsetTop - codeBox.clientHeight / 2;
      if (box) follow(box);
      if (box && remember && timer === null) reveal(box); // a step of the reader's: not on load, nor in play
      if (rebuilt && panel.contains(rebuilt)) panel.focus({ preventScroll: true }); // its entry is gone
    }

    function url(index) {
      var query = new URLSearchParams(location.search);
      query.set(parameter, String(index + 1));
      return location.pathname + "?" + query.toString();
    }

    function permalink() { history.replaceState(history.state, "", url(current) + location.hash); }

    function stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
      play.textContent = words.play;
    }

    function toggle() {
      if (timer !== null) return stop();
      if (current === last) show(0, true);
      play.textContent = words.pause;
      timer = setInterval(forward, MS_PER_FRAME / Number(speed.value));
    }

    function forward() {
      // Predict mode: before a pop from a stack of two or more, ask which node comes off first
      var next = frames[current + 1], now = frames[current];
      if (predict.checked && next && next.changes.popped !== null && now.stack.length > 1) return ask();
      feedback.textContent = "";
      show(current + 1, true);
    }

    function ask() {
      stop();
      asking = true;
      var top = frames[current].stack[frames[current].stack.length - 1];
      find(".stepper-ask").textContent = words.question;
      var choices = find(".stepper-choices");
      // the stack turned by the frame's index: the top, the answer, is not always the first, focused choice
      var stack = frames[current].stack, turn = current % stack.length;
      choices.replaceChildren.apply(choices, stack.slice(turn).concat(stack.slice(0, turn)).map(function (id) {
        var choice = element("button", "", nameOf(id));
        choice.type = "button";
        choice.dataset.choice = String(id);
        choice.addEventListener("click", function () { answer(id, top); });
        return choice;
      }));
      question.hidden = false;
      choices.firstChild.focus();
    }

    function answer(picked, top) {
      asking = false;
      question.hidden = true;
      feedback.textContent = picked === top
        ? say("right", { node: nameOf(top) })
        : say("wrong", { picked: nameOf(picked), node: nameOf(top), k: pushedAt[top] + 1 });
      feedback.className = "stepper-feedback " + (picked === top ? "stepper-right" : "stepper-wrong");
      show(current + 1, true);
      find('[data-action="next"]').focus();
    }

    function go(index) {
      stop();
      asking = false;
      var answering = question.contains(document.activeElement); // its choices are about to hide
      question.hidden = true;
      feedback.textContent = "";
      show(index, true);
      if (answering) panel.focus({ preventScroll: true });
    }

    var actions = {
      first: function () { go(0); },
      previous: function () { go(current - 1); },
      next: function () { stop(); if (current < last) forward(); },
      last: function () { go(last); },
      reset: function () {
        go(0);
        var query = new URLSearchParams(location.search);
        query.delete(parameter);
        var rest = query.toString();
        history.replaceState(history.state, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
      },
      play: toggle,
    };
    panel.addEventListener("click", function (event) {
      var button = event.target.closest("button[data-action], button[data-node]");
      if (!button) return;
      if (button.dataset.action) actions[button.dataset.action]();
      else go(popsAt[button.dataset.node]);
    });
    Object.keys(boxes).forEach(function (id) {
      if (!boxes[id] || popsAt[id] === undefined) return;
      boxes[id].classList.add("stepper-jump");
      boxes[id].addEventListener("click", function () { go(popsAt[id]); });
    });
    window.addEventListener("resize", function () {
      if (boxes[frames[current].node]) follow(boxes[frames[current].node]); // none for the closing frame
    });
    slider.addEventListener("input", function () { go(Number(slider.value) - 1); });
    speed.addEventListener("change", function () { if (timer !== null) { stop(); toggle(); } });
    function onKey(event) {
      // a player scrolled off screen, the focus still in it, leaves Home and End to the page; the focused
      // part on screen (the list's summary, the columns above it scrolled away) keeps them
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      if (!near() && !stepper.onScreen(event.target)) return;
      var moves = { Home: 0, End: last };
      if (event.key in moves && !event.target.closest("input[type=range], select")) {
        event.preventDefault();
        go(moves[event.key]);
      } else if (event.key === " " && (event.target === panel || event.target === picture)) {
        event.preventDefault();
        toggle();
      }
    }
    // from the focusable picture and the frames' list too: Home and End go to the first and last frame
    [panel, picture, list].forEach(function (box) { box.addEventListener("keydown", onKey); });

    stepper.players.push({
      root: root, near: near, part: part,
      key: function (direction) {
        if (!asking) { if (direction > 0) actions.next(); else go(current - 1); }
      },
    });

    list.open = false;
    panel.hidden = false;
    // the permalink's frame: a whole number from 1 (else the first frame; past the end, the last);
    // a URL that asked for another one is corrected to the frame shown
    var given = new URLSearchParams(location.search).get(parameter);
    var asked = given !== null && /^\s*\d+\s*$/.test(given) ? Number(given) : 0;
    show(asked >= 1 ? asked - 1 : 0, false);
    if (given !== null && given !== String(current + 1)) permalink();
    if (asked >= 1 && !location.hash) root.scrollIntoView({ block: "start" });
  }

  function hydrate(within) {
    var steppers = Array.prototype.slice.call(within.querySelectorAll("div.stepper:not([data-started])"));
    if (within.matches && within.matches("div.stepper:not([data-started])")) steppers.push(within);
    if (!steppers.length) return;
    if (words === null) words = JSON.parse(document.getElementById("tds-words").textContent).stepper;
    steppers.forEach(function (root) {
      root.dataset.started = "";
      player(root);
    });
  }

  function start() {
    hydrate(document);
    document.addEventListener("tds:output", function (event) {
      if (event.detail && event.detail.element) hydrate(event.detail.element);
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
