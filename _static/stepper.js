/* The backward stepper's player: replays one backward pass, a frame at a time, on its graph.
 *
 * No dependencies. Jupyter Book loads every script in _static/ on every page; this one does
 * nothing on a page without a stepper. mlx_autodiff/stepper.py (`Stepper._repr_html_`) writes
 * what it expects:
 *
 *   div.stepper                          one per stepper, holding all of the following
 *     svg                                the graph; a node's box is the <g> whose id the JSON gives
 *     div.stepper-player[hidden]         role="group", tabindex="0"; shown by this script
 *       button[data-action="reset" | "previous" | "play" | "next"]
 *       span.stepper-position            filled with "Step k of n"
 *       p.stepper-sentence               aria-live="polite": the current frame's sentence
 *       div.stepper-stack ol             the walk's stack, top first
 *     details.stepper-frames[open]       <ol> of every frame's sentence: the page without JavaScript;
 *                                        this script closes it and marks the current <li>
 *     script.stepper-data                type="application/json":
 *       { graph: "g3f2a9c1b0",
 *         nodes: { "3": { name: "NodeId(3) 'bias' to_device", element: "g3f2a9c1b0-n3" }, ... },
 *         frames: [ { sentence, node: 3 | null, stack: [bottom ... top], taken: [ids],
 *                     gradients: [ids], failed: false }, ... ],
 *         trace: { ... the engine's trace, for tests } }
 *
 * What it does to the picture, on each frame: the frame's node's <g> gets aria-current="step" and
 * the class stepper-current (and stepper-failed on a failing frame); every step taken so far,
 * stepper-taken; the nodes a gradient landed on in this frame, stepper-gradient. _static/stepper.css
 * draws those marks with the colours div.stepper sets as CSS variables.
 *
 * Keys, while focus is in the player: Left and Right arrows step back and forward, Home and End go to
 * the first and the last frame.
 *
 * The player's own words (buttons, position, key, list heading) are the page's: the part "stepper" of
 * script#tds-words, which tools/book_languages.py writes from mlx_autodiff/words/<language>.json;
 * the frames' sentences and the nodes' names are the engine's output.
 */
(function () {
  "use strict";

  var PLAY_EVERY_MS = 1000;
  var MARKS = ["stepper-current", "stepper-failed", "stepper-taken", "stepper-gradient"];
  var words = null; // the page's words (start() reads them)

  function say(key, values) {
    return words[key].replace(/\{(\w+)\}/g, function (_, name) { return values[name]; });
  }

  /** The player's fixed words, in the page's language (mlx_autodiff/stepper.py writes them in English). */
  function label(root, panel, data, count) {
    ["reset", "previous", "play", "next"].forEach(function (action) {
      panel.querySelector('[data-action="' + action + '"]').textContent = words[action];
    });
    panel.setAttribute("aria-label", say("player", { title: data.title || "" }));
    panel.querySelector(".stepper-stack > span").textContent = words.stack;
    ["current", "taken", "gradient"].forEach(function (mark) {
      var key = panel.querySelector(".stepper-key-" + mark);
      if (key) key.textContent = words[mark];
    });
    root.querySelector("details.stepper-frames > summary").textContent = say("frames", { n: count });
  }

  function player(root) {
    var data = JSON.parse(root.querySelector("script.stepper-data").textContent);
    var panel = root.querySelector(".stepper-player");
    var sentence = panel.querySelector(".stepper-sentence");
    var position = panel.querySelector(".stepper-position");
    var stack = panel.querySelector(".stepper-stack ol");
    var play = panel.querySelector('[data-action="play"]');
    var list = root.querySelector("details.stepper-frames");
    var items = list.querySelectorAll("ol > li");
    var boxes = {};
    Object.keys(data.nodes).forEach(function (id) {
      boxes[id] = document.getElementById(data.nodes[id].element); // null if the drawing left it out
    });
    var current = 0;
    var timer = null;
    label(root, panel, data, items.length);

    function mark(ids, name) {
      ids.forEach(function (id) {
        if (boxes[id]) boxes[id].classList.add(name);
      });
    }

    function show(index) {
      current = Math.max(0, Math.min(index, data.frames.length - 1));
      var frame = data.frames[current];
      Object.keys(boxes).forEach(function (id) {
        var box = boxes[id];
        if (!box) return;
        box.classList.remove.apply(box.classList, MARKS);
        box.removeAttribute("aria-current");
      });
      mark(frame.taken, "stepper-taken");
      mark(frame.gradients, "stepper-gradient");
      var box = frame.node === null ? null : boxes[frame.node];
      if (box) {
        box.classList.add("stepper-current");
        if (frame.failed) box.classList.add("stepper-failed");
        box.setAttribute("aria-current", "step");
      }
      sentence.textContent = frame.sentence;
      position.textContent = say("position", { k: current + 1, n: data.frames.length });
      stack.replaceChildren.apply(stack, frame.stack.slice().reverse().map(function (id) {
        var item = document.createElement("li");
        item.textContent = data.nodes[id].name;
        return item;
      }));
      if (!frame.stack.length) {
        var empty = document.createElement("li");
        empty.className = "stepper-empty";
        empty.textContent = words.empty;
        stack.appendChild(empty);
      }
      items.forEach(function (item, at) {
        if (at === current) item.setAttribute("aria-current", "step");
        else item.removeAttribute("aria-current");
      });
      // aria-disabled, not disabled: a disabled button would drop the keyboard focus on the page
      panel.querySelector('[data-action="previous"]').setAttribute("aria-disabled", String(current === 0));
      panel.querySelector('[data-action="next"]').setAttribute("aria-disabled",
                                                               String(current === data.frames.length - 1));
      if (current === data.frames.length - 1) stop();
    }

    function stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
      play.textContent = words.play;
    }

    function toggle() {
      if (timer !== null) return stop();
      if (current === data.frames.length - 1) show(0);
      play.textContent = words.pause;
      timer = setInterval(function () { show(current + 1); }, PLAY_EVERY_MS);
    }

    var actions = {
      reset: function () { stop(); show(0); },
      previous: function () { stop(); show(current - 1); },
      next: function () { stop(); show(current + 1); },
      play: toggle,
    };
    panel.addEventListener("click", function (event) {
      var button = event.target.closest("button[data-action]");
      if (button) actions[button.dataset.action]();
    });
    panel.addEventListener("keydown", function (event) {
      var moves = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: data.frames.length - 1 };
      if (!(event.key in moves) || event.altKey || event.ctrlKey || event.metaKey) return;
      event.preventDefault();
      stop();
      show(moves[event.key]);
    });

    list.open = false;
    panel.hidden = false;
    show(0);
  }

  /** Give every stepper inside `within` that has none yet its player. */
  function hydrate(within) {
    var steppers = Array.prototype.filter.call(within.querySelectorAll("div.stepper"), function (root) {
      return !root.hasAttribute("data-stepper-hydrated");
    });
    if (!steppers.length) return;
    words = words || JSON.parse(document.getElementById("tds-words").textContent).stepper;
    steppers.forEach(function (root) {
      root.setAttribute("data-stepper-hydrated", "");
      player(root);
    });
  }

  function start() {
    hydrate(document);
    // live mode (_static/live-outputs.js) says so when a re-run put a new output into the page
    document.addEventListener("tds:output", function (event) { hydrate(event.detail.element); });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
