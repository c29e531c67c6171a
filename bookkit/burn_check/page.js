// Chapter 12's checker on the page: paste Burn code, press Check, read the findings. It runs the rule
// set the command runs (rules.js, report.js), with the same web-tree-sitter and Rust grammar, served
// by the site beside this file (copied there by bookkit/burn_check/sphinx_ext.py); no kernel, no network.

import { Language, Parser } from "./web-tree-sitter.js";
import { codeSpans, renderReport, say } from "./report.js";
import { MAX_BYTES, checkSources, decode } from "./rules.js";

const STORE = "burn-check:yours";
/** The reader's own code while an example is in the box: this tab's sessionStorage, so a reload keeps
 *  it and a second tab keeps its own. */

const SHOWN = 200;
/** At most this many findings and notices are listed: a browser lays out thousands for seconds, and a
 *  reader reads the first ones; the rest are counted, and the command lists them all. */

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

/** Text with `code` spans (read as report.js writes them), as safe HTML. */
function inline(text) {
  const entities = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
  const escape = (part) => part.replace(/[&<>"]/g, (c) => entities[c]);
  return codeSpans(text).map((part, index) => (index % 2 ? `<code>${escape(part)}</code>` : escape(part))).join("");
}

function element(tag, className, html) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (html !== undefined) node.innerHTML = html;
  return node;
}

/** The offset in a JavaScript string (UTF-16 units) of a column counted in characters, as the
 *  findings count them (rustc's way). */
function offsetOf(text, column) {
  let offset = 0;
  for (let at = 1; at < column && offset < text.length; at++) offset += text.codePointAt(offset) > 0xffff ? 2 : 1;
  return offset;
}

let measure = null;

/** Selects line `line` of the box from `column` and scrolls it into view, down and sideways (on a
 *  phone a long line's column can be far to the right), so the reader lands on it. */
function goToLine(box, line, column) {
  const lines = box.value.split("\n");
  const start = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0);
  const text = lines[line - 1] ?? "";
  const from = offsetOf(text, column ?? 1);
  box.focus();
  box.setSelectionRange(start + from, start + text.length);
  const style = getComputedStyle(box);
  const height = parseFloat(style.lineHeight) || 20;
  box.scrollTop = Math.max(0, (line - 3) * height);
  measure ??= document.createElement("canvas").getContext("2d");
  measure.font = style.font;
  const tab = " ".repeat(parseInt(style.tabSize, 10) || 4);
  const left = measure.measureText(text.slice(0, from).replace(/\t/g, tab)).width;
  box.scrollLeft = Math.max(0, left - box.clientWidth / 4);
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
  // After a reload the box comes back empty: the reader's code kept in this tab goes back in it.
  const restored = saved !== null && saved.trim() !== "" && box.value === "";
  if (restored) box.value = saved;

  function keepYours() {
    const text = box.value;
    if (text.trim() && !Object.values(examples).includes(text)) {
      sessionStorage.setItem(STORE, text);
      yours.hidden = false;
    }
  }

  function show(report, lines) {
    list.replaceChildren();
    let shown = 0;
    let hidden = 0;
    for (const file of report.files) {
      for (const notice of file.notices) {
        if (shown >= SHOWN) {
          hidden += 1;
          continue;
        }
        shown += 1;
        const item = element("li", "burn-check-notice");
        item.dataset.kind = notice.kind;
        if (notice.line !== undefined) item.append(goto(notice.line, notice.column), " ");
        item.append(element("span", "", inline(notice.message)));
        list.append(item);
      }
      for (const finding of file.findings) {
        if (shown >= SHOWN) {
          hidden += 1;
          continue;
        }
        shown += 1;
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
    if (hidden) list.append(element("li", "burn-check-more", inline(say(words.page.more, { count: hidden }))));
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
    // Emptied, so that opening the same file again (after editing it) is a change too.
    fileInput.value = "";
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
    if (status.textContent === words.page.loading) status.textContent = restored ? words.page.restored : "";
  }, (error) => {
    status.textContent = say(words.page["load-failed"], { error: error.message });
    root.dataset.state = "failed";
  });
  status.textContent = words.page.loading;
}

for (const root of document.querySelectorAll(".burn-check")) setUp(root);
