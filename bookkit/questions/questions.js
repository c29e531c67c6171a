/* The book's questions: check an answer on the page, show why each choice is right or wrong, keep score.
 *
 * No dependencies. Jupyter Book loads every script in _static/ on every page; this one does nothing
 * on a page without questions. bookkit/questions/sphinx_ext.py (the {question} directive) writes what it expects:
 *
 *   div.question[data-question=id][data-kind="choice"|"predict"|"order"][data-page=docname]
 *               [data-answer=JSON: the right key, or for "order" the keys in order]
 *     fieldset > legend                     the kind and the number
 *       div.question-stem                   the question
 *       div.question-choices                (choice, predict) div.question-choice[data-key] holding
 *                                           input[type=radio][value=key] and its label
 *       ol.question-order                   (order) li.question-item[data-key] holding
 *                                           span.question-item-text and span.question-moves[hidden]
 *                                           with button[data-move="up"|"down"]
 *     div.question-actions[hidden]          button.question-check, span.question-progress
 *     div.question-status                   role="status", aria-live="polite": the feedback goes here
 *     details.question-answer               for a page without JavaScript: the answer and every
 *                                           explanation, .question-feedback[data-key] each
 *   div.question-progress-list              (the landing page) span.question-score[data-page]
 *                                           [data-total], button.question-clear-all
 *
 * What it does: shows the Check button and the move buttons; on Check, puts the chosen choice's own
 * explanation (a copy of its .question-feedback) in the live region and marks the choice right or
 * not right, in words as well as colour; for an ordering, says how many items are in their place
 * and why each misplaced one goes elsewhere; a new choice or a move takes that verdict away until the
 * next Check. Each answer is kept in localStorage under
 * "tds-questions" ({docname: {id: {right, answer}}}), shared by both editions; a reload shows the
 * answers again, "Clear my progress" forgets this chapter's (after the reader confirms, when
 * there is anything to forget), the landing page shows each chapter's score and clears them all the
 * same way. Nothing a reader did is sent anywhere.
 *
 * The words (buttons, verdicts, scores) are the page's: the part "questions" of script#tds-words,
 * which bookkit/site/book_languages.py writes from bookkit/words/<language>.json.
 */
(function () {
  "use strict";

  var STORE = "tds-questions";
  var words = null;

  function say(key, values) {
    return words[key].replace(/\{(\w+)\}/g, function (_, name) { return values[name]; });
  }

  function load() {
    try {
      return JSON.parse(window.localStorage.getItem(STORE) || "{}") || {};
    } catch (error) {
      return {}; // storage refused (private mode) or unreadable: start with nothing, keep going
    }
  }

  function kept(all, page) {
    // one chapter's answers, each {right, answer}; anything else (an older book's, or a hand-edited
    // store) is left out, so that one odd entry cannot stop the page's questions
    var chapter = all && typeof all === "object" && !Array.isArray(all) ? all[page] : null;
    var good = {};
    if (!chapter || typeof chapter !== "object" || Array.isArray(chapter)) return good;
    Object.keys(chapter).forEach(function (id) {
      var entry = chapter[id];
      if (entry && typeof entry === "object" && typeof entry.right === "boolean"
          && (typeof entry.answer === "string" || Array.isArray(entry.answer))) good[id] = entry;
    });
    return good;
  }

  function save(all) {
    try {
      window.localStorage.setItem(STORE, JSON.stringify(all));
    } catch (error) {
      // storage refused: the answer still shows, it is only not remembered
    }
  }

  function keysInOrder(root) {
    return Array.prototype.map.call(root.querySelectorAll("ol.question-order > li"), function (li) {
      return li.dataset.key;
    });
  }

  function feedbackFor(root, key) {
    var found = null;
    root.querySelectorAll("details.question-answer .question-feedback").forEach(function (item) {
      if (item.dataset.key === key) found = item;
    });
    return found;
  }

  function copyOf(element, tag) {
    var copy = document.createElement(tag || "div");
    copy.innerHTML = element.innerHTML;
    copy.querySelectorAll("[id]").forEach(function (node) { node.removeAttribute("id"); });
    return copy;
  }

  function verdictLine(text, right) {
    var line = document.createElement("p");
    line.className = "question-verdict " + (right ? "question-is-right" : "question-is-wrong");
    var strong = document.createElement("strong");
    strong.textContent = text;
    line.appendChild(strong);
    return line;
  }

  function setup(root, book) {
    var id = root.dataset.question;
    var page = root.dataset.page;
    var kind = root.dataset.kind;
    var answer = JSON.parse(root.dataset.answer);
    var status = root.querySelector(".question-status");
    var actions = root.querySelector(".question-actions");
    var check = actions.querySelector(".question-check");
    var order = root.querySelector("ol.question-order");
    var firstOrder = order ? keysInOrder(root) : null;

    function clearMarks() {
      root.querySelectorAll(".question-choice, .question-item").forEach(function (item) {
        item.classList.remove("question-chosen-right", "question-chosen-wrong", "question-misplaced");
        var mark = item.querySelector(".question-mark");
        if (mark) mark.remove();
      });
    }

    function mark(item, right) {
      item.classList.add(right ? "question-chosen-right" : "question-chosen-wrong");
      var tag = document.createElement("span");
      tag.className = "question-mark";
      tag.textContent = right ? words.mark_right : words.mark_wrong;
      (item.querySelector("label") || item.querySelector(".question-item-text")).appendChild(tag);
    }

    function showChoice(key) {
      clearMarks();
      var right = key === answer;
      var choice = root.querySelector('.question-choice[data-key="' + CSS.escape(key) + '"]');
      mark(choice, right);
      var feedback = feedbackFor(root, key);
      var box = document.createElement("div");
      box.className = "question-feedback-shown";
      box.appendChild(verdictLine(right ? words.right : words.wrong, right));
      if (feedback) {
        var copy = copyOf(feedback);
        var head = copy.querySelector(".question-verdict");
        if (head) head.remove();
        while (copy.firstChild) box.appendChild(copy.firstChild);
      }
      status.replaceChildren(box);
      return right;
    }

    function showOrder() {
      clearMarks();
      var now = keysInOrder(root);
      var inPlace = now.filter(function (key, at) { return answer[at] === key; }).length;
      var right = inPlace === answer.length;
      var box = document.createElement("div");
      box.className = "question-feedback-shown";
      box.appendChild(verdictLine(right ? words.order_right : say("order_wrong", { k: inPlace, n: answer.length }),
                                  right));
      var list = document.createElement("ul");
      order.querySelectorAll("li.question-item").forEach(function (item, at) {
        var placed = answer[at] === item.dataset.key;
        mark(item, placed);
        if (!placed) item.classList.add("question-misplaced");
        var feedback = feedbackFor(root, item.dataset.key);
        if (!right && !placed && feedback) list.appendChild(copyOf(feedback, "li"));
      });
      if (list.children.length) box.appendChild(list);
      var explanation = root.querySelector(".question-explanation");
      if (right && explanation) box.appendChild(copyOf(explanation));
      status.replaceChildren(box);
      return right;
    }

    function remember(right, chosen) {
      var all = load();
      if (!all || typeof all !== "object" || Array.isArray(all)) all = {};
      if (!all[page] || typeof all[page] !== "object" || Array.isArray(all[page])) all[page] = {};
      all[page][id] = { right: right, answer: chosen };
      save(all);
      book.tally();
    }

    check.addEventListener("click", function () {
      if (kind === "order") {
        remember(showOrder(), keysInOrder(root));
        return;
      }
      var picked = root.querySelector("input[type=radio]:checked");
      if (!picked) {
        status.replaceChildren(verdictLine(words.choose_first, false));
        return;
      }
      remember(showChoice(picked.value), picked.value);
    });

    // a new choice or a move is not checked yet: the verdict and marks of the last check go
    root.addEventListener("change", function (event) {
      if (event.target.matches("input[type=radio]")) {
        clearMarks();
        status.replaceChildren();
      }
    });

    function place(keys) {
      keys.forEach(function (key) {
        var item = order.querySelector('li[data-key="' + CSS.escape(key) + '"]');
        if (item) order.appendChild(item);
      });
      labelMoves();
    }

    function labelMoves() {
      var items = order.querySelectorAll("li.question-item");
      items.forEach(function (item, at) {
        var text = item.querySelector(".question-item-text").textContent.trim();
        var up = item.querySelector('[data-move="up"]');
        var down = item.querySelector('[data-move="down"]');
        up.setAttribute("aria-label", say("move_up_label", { item: text }));
        down.setAttribute("aria-label", say("move_down_label", { item: text }));
        // aria-disabled, not disabled: a disabled button would drop the keyboard focus
        up.setAttribute("aria-disabled", String(at === 0));
        down.setAttribute("aria-disabled", String(at === items.length - 1));
      });
    }

    if (order) {
      order.querySelectorAll(".question-moves").forEach(function (moves) { moves.hidden = false; });
      labelMoves();
      order.addEventListener("click", function (event) {
        var button = event.target.closest("button[data-move]");
        if (!button || button.getAttribute("aria-disabled") === "true") return;
        var item = button.closest("li");
        var up = button.dataset.move === "up";
        var sibling = up ? item.previousElementSibling : item.nextElementSibling;
        if (!sibling) return;
        order.insertBefore(item, up ? sibling : sibling.nextElementSibling);
        clearMarks();
        labelMoves();
        var again = item.querySelector('[data-move="' + button.dataset.move + '"]');
        (again.getAttribute("aria-disabled") === "true" ? item.querySelector("button:not([aria-disabled=true])")
                                                        : again).focus();
        var items = Array.prototype.slice.call(order.children);
        status.textContent = say("moved", { item: item.querySelector(".question-item-text").textContent.trim(),
                                            k: items.indexOf(item) + 1, n: items.length });
      });
    }

    function restore(kept) {
      if (!kept || (kind === "order") !== Array.isArray(kept.answer)) return; // none, or another kind's
      if (kind === "order") {
        place(kept.answer);
        showOrder();
      } else {
        var radio = root.querySelector('input[type=radio][value="' + CSS.escape(kept.answer) + '"]');
        if (!radio) return;
        radio.checked = true;
        showChoice(kept.answer);
      }
    }

    function reset() {
      clearMarks();
      status.replaceChildren();
      root.querySelectorAll("input[type=radio]").forEach(function (radio) { radio.checked = false; });
      if (order) place(firstOrder);
    }

    actions.hidden = false;
    restore(kept(load(), page)[id]);
    return { reset: reset, page: page, id: id };
  }

  function chapterProgress(questions) {
    var clear = document.createElement("button");
    clear.type = "button";
    clear.className = "question-clear";
    clear.textContent = words.clear;

    function tally() {
      var all = load();
      questions.forEach(function (question) {
        var mine = kept(all, question.page);
        var right = questions.filter(function (q) { return q.page === question.page && (mine[q.id] || {}).right; });
        var total = questions.filter(function (q) { return q.page === question.page; }).length;
        question.progress.textContent = say("progress", { k: right.length, n: total });
      });
    }

    questions.forEach(function (question) {
      question.progress = question.root.querySelector(".question-progress");
      var button = clear.cloneNode(true);
      button.addEventListener("click", function () {
        var all = load();
        if (!all || typeof all !== "object" || Array.isArray(all)) all = {};
        var mine = kept(all, question.page);
        // the answers the page shows (an entry for a question the book no longer has is not counted)
        var count = questions.filter(function (q) { return q.page === question.page && mine[q.id]; }).length;
        if (count && !window.confirm(say("clear_ask", { n: count }))) return; // a misclick loses nothing
        delete all[question.page];
        save(all);
        questions.forEach(function (q) { q.api.reset(); });
        tally();
        question.root.querySelector(".question-status").textContent = count ? words.cleared : words.nothing_to_clear;
      });
      question.progress.after(button);
    });
    return tally;
  }

  function landing(list) {
    var status = list.querySelector(".question-status");
    function show() {
      var all = load();
      list.querySelectorAll(".question-score").forEach(function (score) {
        var mine = kept(all, score.dataset.page);
        var right = Object.keys(mine).filter(function (key) { return mine[key].right; }).length;
        score.textContent = say("landing_progress", { k: right, n: Number(score.dataset.total) });
      });
    }
    var actions = list.querySelector(".question-actions");
    actions.hidden = false;
    actions.querySelector(".question-clear-all").addEventListener("click", function () {
      var all = load();
      var count = 0; // every kept answer, right or not, of the chapters listed here
      list.querySelectorAll(".question-score").forEach(function (score) {
        count += Object.keys(kept(all, score.dataset.page)).length;
      });
      if (count && !window.confirm(say("clear_all_ask", { n: count }))) return;
      save({});
      show();
      status.textContent = count ? words.cleared_all : words.nothing_to_clear;
    });
    show();
  }

  function start() {
    var roots = document.querySelectorAll("div.question");
    var lists = document.querySelectorAll("div.question-progress-list");
    if (!roots.length && !lists.length) return;
    words = JSON.parse(document.getElementById("tds-words").textContent).questions;
    var questions = Array.prototype.map.call(roots, function (root) { return { root: root }; });
    var book = { tally: function () {} };
    if (questions.length) book.tally = chapterProgress(questions);
    questions.forEach(function (question) { question.api = setup(question.root, book); });
    questions.forEach(function (question) { question.page = question.api.page; question.id = question.api.id; });
    book.tally();
    lists.forEach(landing);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
