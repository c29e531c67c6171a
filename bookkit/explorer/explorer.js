/* The relocation explorer: three choices, and what that combination did when the book was built.
 *
 * No dependencies. Jupyter Book loads every script in _static/ on every page; this one does
 * nothing on a page without an explorer. bookkit/explorer/explorer.py (`page`) writes what it expects:
 *
 *   div.explorer                           gets data-outcome="<the answer's outcome>" (explorer.css
 *                                            colours the answer's bar by it)
 *     form.explorer-form[hidden]             shown by this script
 *       select[name="built_on"], select[name="read_first"], select[name="relocation"]
 *                                            each with its <label>; their values, joined by "|",
 *                                            name a combination ("flex.autodiff|yes|to_device")
 *       button[data-key]                     the article's seven: a click chooses that combination
 *       output.explorer-answer               the answer's sentences, one <span> each
 *       details.explorer-message[hidden] pre the whole error message, when the run raised
 *       figure.explorer-graph img, p.explorer-none[hidden]   the graph after the first backward pass
 *       figure.explorer-curve img            the loss curve
 *     script.explorer-data                   type="application/json":
 *       { folder: "explorer",
 *         answers: { "<key>": { name, label, article, lines: [sentence, ...], message,
 *                               graph: "ad-to_device-graph.svg" | null, graph_alt,
 *                               curve: "ad-to_device-loss.svg", curve_alt, ... }, ... } }
 *     table                                  every combination in text: the page without JavaScript
 *
 * A combination's pictures are files in `folder`, beside the page; an <img> loads them only when
 * that combination is chosen. The sentences are written by the Python side; this script only
 * shows them.
 *
 * The URL follows the choices: each select's name and value as a query parameter
 * (?built_on=flex.autodiff&read_first=yes&relocation=to_device, with history.replaceState, so live
 * mode's #live=... fragment is left alone), and a page opened with them shows that combination.
 */
(function () {
  "use strict";

  function explorer(root) {
    var data = JSON.parse(root.querySelector("script.explorer-data").textContent);
    var form = root.querySelector("form.explorer-form");
    var controls = ["built_on", "read_first", "relocation"].map(function (name) {
      return form.elements[name];
    });
    var output = form.querySelector("output.explorer-answer");
    var message = form.querySelector("details.explorer-message");
    var graph = form.querySelector("figure.explorer-graph");
    var curve = form.querySelector("figure.explorer-curve");
    var picks = form.querySelectorAll("button[data-key]");

    function chosen() {
      return controls.map(function (control) { return control.value; }).join("|");
    }

    function picture(figure, file, alt) {
      var image = figure.querySelector("img");
      var none = figure.querySelector(".explorer-none");
      image.hidden = !file;
      if (none) none.hidden = !!file;
      if (!file) {
        image.removeAttribute("src");
        return;
      }
      image.alt = alt;
      image.src = data.folder + "/" + file;
    }

    function show(remember) {
      var key = chosen();
      var answer = data.answers[key];
      output.replaceChildren.apply(output, answer.lines.map(function (line) {
        var sentence = document.createElement("span");
        sentence.className = "explorer-line";
        sentence.textContent = line;
        return sentence;
      }));
      root.dataset.outcome = answer.outcome;
      message.hidden = !answer.message;
      message.querySelector("pre").textContent = answer.message;
      picture(graph, answer.graph, answer.graph_alt);
      picture(curve, answer.curve, answer.curve_alt);
      picks.forEach(function (button) {
        button.setAttribute("aria-pressed", String(button.dataset.key === key));
      });
      if (remember === true) {
        var query = new URLSearchParams(location.search);
        controls.forEach(function (control) { query.set(control.name, control.value); });
        history.replaceState(history.state, "", location.pathname + "?" + query.toString() + location.hash);
      }
    }

    function fromUrl() {
      var query = new URLSearchParams(location.search), before = chosen();
      controls.forEach(function (control) {
        var asked = query.get(control.name);
        var known = Array.prototype.some.call(control.options, function (option) { return option.value === asked; });
        if (known) control.value = asked;
      });
      if (!data.answers[chosen()]) {
        before.split("|").forEach(function (value, at) { controls[at].value = value; });
      }
    }

    form.addEventListener("change", function () { show(true); });
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    picks.forEach(function (button) {
      button.addEventListener("click", function () {
        button.dataset.key.split("|").forEach(function (value, at) { controls[at].value = value; });
        show(true);
      });
    });

    form.hidden = false;
    fromUrl();
    show(false);
  }

  function start() {
    document.querySelectorAll("div.explorer").forEach(explorer);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
