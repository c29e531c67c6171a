// Chapter 12's checker on the page: paste Burn code, press Check, read the findings. It runs the rule
// set the command runs (rules.js, report.js), with the same web-tree-sitter and Rust grammar, served
// by the site beside this file (copied there by burn_check/sphinx_ext.py); no kernel, no network.

import { Language, Parser } from "./web-tree-sitter.js";
import { renderReport, say } from "./report.js";
import { MAX_BYTES, checkSources, decode } from "./rules.js";

const STORE = "burn-check:yours";
/** The reader's own code while an example is in the box: this tab's sessionStorage, so a reload keeps
 *  it and a second tab keeps its own. */

let parserReady = null;

function loadParser() {
  parserReady ??= (async () => {
    const here = (name) => new URL(name, import.meta.url).href;
    await Parser.init({ locateFile: (name) => here(name) });
    const parser = new Parser();
    parser.setLanguage(await Language.load(here("tree-sitter-rust.wasm")));
    return parser;
  })();
  return parserReady;
}

function json(root, name) {
  return JSON.parse(root.querySelector(`script[data-burn-check="${name}"]`).textContent);
}

/** Text with `code` spans, as safe HTML. */
function inline(text) {
  const escaped = text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  return escaped.replace(/`([^`]+)`/g, "<code>$1</code>");
}

function element(tag, className, html) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (html !== undefined) node.innerHTML = html;
  return node;
}

/** Selects line `line` of the box and scrolls it into view, so the reader lands on it. */
function goToLine(box, line, column) {
  const lines = box.value.split("\n");
  const start = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0);
  const end = start + (lines[line - 1] ?? "").length;
  box.focus();
  box.setSelectionRange(start + Math.max(0, (column ?? 1) - 1), end);
  const height = parseFloat(getComputedStyle(box).lineHeight) || 20;
  box.scrollTop = Math.max(0, (line - 3) * height);
  box.scrollIntoView({ block: "nearest" });
}

function setUp(root) {
  const words = json(root, "words");
  const examples = json(root, "examples");
  const box = root.querySelector("textarea");
  const button = root.querySelector("button.burn-check-run");
  const status = root.querySelector(".burn-check-status");
  const list = root.querySelector(".burn-check-findings");
  const yours = root.querySelector("button[data-example='yours']");
  const fileInput = root.querySelector("input[type=file]");
  const link = (page, anchor) => `${page}.html#${anchor}`;

  const saved = sessionStorage.getItem(STORE);
  if (saved !== null) yours.hidden = false;

  function keepYours() {
    const text = box.value;
    if (text.trim() && !Object.values(examples).includes(text)) {
      sessionStorage.setItem(STORE, text);
      yours.hidden = false;
    }
  }

  function show(report, lines) {
    list.replaceChildren();
    for (const file of report.files) {
      for (const notice of file.notices) {
        const item = element("li", "burn-check-notice");
        item.dataset.kind = notice.kind;
        if (notice.line !== undefined) item.append(goto(notice.line, notice.column), " ");
        item.append(element("span", "", inline(notice.message)));
        list.append(item);
      }
      for (const finding of file.findings) {
        const item = element("li", `burn-check-finding burn-check-${finding.severity}`);
        Object.assign(item.dataset, { rule: finding.rule, line: finding.line, column: finding.column });
        const head = element("p", "burn-check-head");
        head.append(goto(finding.line, finding.column), " ",
                    element("strong", "burn-check-title", `${finding.number}. ${inline(finding.title)}`));
        item.append(head);
        const code = element("pre", "burn-check-line");
        code.textContent = lines[finding.line - 1] ?? "";
        item.append(code);
        item.append(element("p", "burn-check-sentence", inline(finding.sentence)));
        item.append(element("p", "burn-check-fix", inline(finding.fix)));
        if (finding.assumed.length) {
          const assumed = element("p", "burn-check-assumed");
          assumed.innerHTML = inline(say(words.page.assumed, { list: finding.assumed.join(words.assumed.separator) }));
          item.append(assumed);
        }
        const chapter = element("a", "burn-check-chapter", inline(finding.chapter.label));
        chapter.href = finding.chapter.url;
        item.append(chapter);
        list.append(item);
      }
    }
    const { errors, infos } = report.summary;
    const read = report.files.every((file) => !file.notices.some((n) => n.kind !== "syntax-error"));
    status.textContent = !read ? "" : errors + infos === 0 ? words.page.none
      : errors === 0 ? `${words.page["none-of-1-4"]} ${say(words.page.count, report.summary)}`
        : say(words.page.count, report.summary);
    root.dataset.state = errors ? "findings" : "clean";
  }

  function goto(line, column) {
    const anchor = element("a", "burn-check-goto", inline(say(words.page.position, { line, column })));
    anchor.href = `#${box.id}`;
    anchor.addEventListener("click", (event) => {
      event.preventDefault();
      goToLine(box, line, column);
    });
    return anchor;
  }

  async function check(source) {
    button.disabled = true;
    status.textContent = words.page.checking;
    try {
      const parser = await loadParser();
      const started = performance.now();
      const files = checkSources(parser, [source]);
      const report = renderReport(files, words, link);
      show(report, (source.text ?? "").split("\n"));
      root.dataset.checkMs = String(performance.now() - started);
      root.dataset.checks = String(Number(root.dataset.checks ?? 0) + 1);
    } catch (error) {
      status.textContent = say(words.page["load-failed"], { error: error.message });
      root.dataset.state = "failed";
    } finally {
      button.disabled = false;
    }
  }

  const checkBox = () => check({ path: "", text: box.value });
  button.addEventListener("click", checkBox);
  box.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      checkBox();
    }
  });
  // A paste larger than the checker reads is refused before it reaches the box, where a browser would
  // spend seconds laying it out: the reader gets the same notice the command gives for such a file.
  box.addEventListener("paste", (event) => {
    const text = event.clipboardData?.getData("text/plain") ?? "";
    const bytes = new Blob([text]).size;
    if (bytes > MAX_BYTES) {
      event.preventDefault();
      check({ path: "", problem: "too-large", bytes });
    }
  });
  box.addEventListener("input", () => {
    if (!Object.values(examples).includes(box.value)) sessionStorage.setItem(STORE, box.value);
  });

  for (const load of root.querySelectorAll("button[data-example]")) {
    load.addEventListener("click", () => {
      const name = load.dataset.example;
      if (name === "yours") {
        box.value = sessionStorage.getItem(STORE) ?? "";
      } else {
        keepYours();
        box.value = examples[name];
        if (!yours.hidden) status.textContent = words.page.replaced;
      }
      list.replaceChildren();
      box.focus();
      box.setSelectionRange(0, 0);
      box.scrollTop = 0;
    });
  }

  fileInput.addEventListener("change", async () => {
    const file = fileInput.files[0];
    if (!file) return;
    if (file.size > MAX_BYTES) {
      await check({ path: file.name, problem: "too-large", bytes: file.size });
      return;
    }
    const read = decode(new Uint8Array(await file.arrayBuffer()));
    if (read.problem) {
      await check({ path: file.name, ...read });
      return;
    }
    keepYours();
    box.value = read.text;
    await check({ path: file.name, text: read.text });
  });

  root.dataset.ready = "true";
  loadParser().then(() => {
    if (status.textContent === words.page.loading) status.textContent = "";
  }, (error) => {
    status.textContent = say(words.page["load-failed"], { error: error.message });
    root.dataset.state = "failed";
  });
  status.textContent = words.page.loading;
}

for (const root of document.querySelectorAll(".burn-check")) setUp(root);
