// Findings and notices in a reader's words: the one renderer the page and the command share, so a
// finding reads the same in both. `words` is bookkit/burn_check/words/<language>.json.

import { RULES } from "./rules.js";

/** `text` with each {name} replaced by `values[name]` (as bookkit.words.say does). A value quoted
 *  as code (`` `{name}` ``) that holds a backtick itself gets a longer fence, as Markdown writes it
 *  (`` `` a`b `` ``), so the code span still ends where the code does. */
export function say(text, values = {}) {
  const fenced = text.replace(/`\{(\w+)\}`/g, (whole, name) => {
    if (!(name in values) || !String(values[name]).includes("`")) return whole;
    const longest = Math.max(...String(values[name]).match(/`+/g).map((run) => run.length));
    const fence = "`".repeat(longest + 1);
    return `${fence} {${name}} ${fence}`;
  });
  return fenced.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

/** Code spans of `text` as [plain, code, plain, ...]: a run of backticks opens a span that the same
 *  run closes (one space inside each end is padding), as Markdown reads them; page.js shows them. */
export function codeSpans(text) {
  const parts = [];
  let rest = text;
  for (;;) {
    const open = /`+/.exec(rest);
    if (!open) break;
    const fence = open[0];
    const close = new RegExp(`(?<!\`)${fence}(?!\`)`, "g");
    close.lastIndex = open.index + fence.length;
    const found = close.exec(rest);
    if (!found) break;
    let code = rest.slice(open.index + fence.length, found.index);
    if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ")) code = code.slice(1, -1);
    parts.push(rest.slice(0, open.index), code);
    rest = rest.slice(found.index + fence.length);
  }
  parts.push(rest);
  return parts;
}

/** Where a step happened: "line 17", or "src/train.rs:17" when it is in another file. */
function where(position, path, words) {
  if (!position) return "";
  return position.path && position.path !== path
    ? say(words.how.file_line, { path: position.path, line: position.line })
    : say(words.how.line, { line: position.line });
}

/** How a value reaches training, as one phrase; a call's phrase holds its callee's. */
export function how(step, path, words) {
  if (!step) return "";
  const values = { ...step, where: where(step, path, words) };
  if (step.forward) values.forward = where(step.forward, path, words);
  if (step.inner) values.inner = how(step.inner, path, words);
  return say(words.how[step.kind], values);
}

/** An assumption: a key of `words.assumed`, or {key, ...values} for one that names a place. */
function assumption(item, path, words) {
  if (typeof item === "string") return words.assumed[item];
  return say(words.assumed[item.key], { ...item, where: where(item, path, words) });
}

/** A finding of `rules.js` in `words`; `link(chapter, anchor)` makes its chapter's URL. */
export function renderFinding(finding, path, words, link) {
  const rule = RULES[finding.rule];
  const text = words.rules[finding.rule];
  const values = { ...finding.values };
  values.how = how(values.how, path, words);
  if (values.moved) values.moved = where(values.moved, path, words);
  if (values.originAt) values.origin = where(values.originAt, path, words);
  let sentence = text.sentence;
  let fix = text.fix;
  if (finding.rule === "moved-then-trained" && values.train) {
    sentence = text.sentence_train;
    fix = text.fix_train;
  }
  if (finding.rule === "fork-after-to_device" && values.via) {
    sentence = text.sentence_via;
    values.function = values.via.function;
    values.line = finding.line;
  }
  if (finding.rule === "plain-without-train") {
    sentence = finding.values.origin === "valid" ? text.sentence_valid : text.sentence_device;
    fix = values.lastKind === "to_device" ? text.fix_to_device : values.lastKind === "fork" ? text.fix_fork : text.fix;
  }
  return {
    rule: finding.rule,
    number: rule.number,
    severity: rule.severity,
    line: finding.line,
    column: finding.column,
    title: text.title,
    sentence: say(sentence, values),
    fix: say(fix, values),
    assumed: finding.assumed.map((item) => assumption(item, path, words)),
    chapter: { page: rule.chapter, anchor: rule.anchor,
               label: say(words.chapter, { number: words.chapters[rule.chapter] }),
               url: link(rule.chapter, rule.anchor) },
  };
}

function size(bytes, words) {
  return say(words.notices.megabytes, { size: (bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0) });
}

/** A notice (why a file was not read, or read only in part) as a sentence. */
export function renderNotice(notice, words) {
  const values = { ...notice };
  if (notice.kind === "too-large") {
    values.size = size(notice.bytes, words);
    values.limit = size(notice.limit, words);
  }
  if (notice.kind === "syntax-error") values.more = notice.more ? say(words.notices.more, { count: notice.more }) : "";
  const text = notice.unclosed ? words.notices.unclosed : words.notices[notice.kind];
  const rendered = { kind: notice.kind, message: say(text, values) };
  if (notice.line !== undefined) Object.assign(rendered, { line: notice.line, column: notice.column });
  return rendered;
}

/** Notices that say a file was not read at all (an empty file was read, and had nothing in it). */
export const UNREAD = new Set(["too-large", "not-utf8", "not-rust", "too-deep", "internal"]);

/** Every file's findings and notices in `words`: what `--format json` prints and the page shows. */
export function renderReport(files, words, link) {
  const rendered = files.map((file) => ({
    path: file.path,
    notices: file.notices.map((notice) => renderNotice(notice, words)),
    findings: file.findings.map((finding) => renderFinding(finding, file.path, words, link)),
  }));
  const all = rendered.flatMap((file) => file.findings);
  const unread = rendered.filter((file) => file.notices.some((notice) => UNREAD.has(notice.kind)));
  return {
    files: rendered,
    summary: { files: rendered.length - unread.length, unread: unread.length,
               errors: all.filter((f) => f.severity === "error").length,
               infos: all.filter((f) => f.severity === "info").length },
  };
}
