// Findings and notices in a reader's words: the one renderer the page and the command share, so a
// finding reads the same in both. `words` is burn_check/words/<language>.json.

import { RULES } from "./rules.js";

/** `text` with each {name} replaced by `values[name]` (as mlx_autodiff.words.say does). */
export function say(text, values = {}) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
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

/** A finding of `rules.js` in `words`; `link(chapter, anchor)` makes its chapter's URL. */
export function renderFinding(finding, path, words, link) {
  const rule = RULES[finding.rule];
  const text = words.rules[finding.rule];
  const values = { ...finding.values };
  values.how = how(values.how, path, words);
  if (values.moved) values.moved = values.moved.line;
  if (values.originAt) values.origin = values.originAt.line;
  let sentence = text.sentence;
  let fix = text.fix;
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
    assumed: finding.assumed.map((key) => words.assumed[key]),
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
  const rendered = { kind: notice.kind, message: say(words.notices[notice.kind], values) };
  if (notice.line !== undefined) Object.assign(rendered, { line: notice.line, column: notice.column });
  return rendered;
}

/** Every file's findings and notices in `words`: what `--format json` prints and the page shows. */
export function renderReport(files, words, link) {
  const rendered = files.map((file) => ({
    path: file.path,
    notices: file.notices.map((notice) => renderNotice(notice, words)),
    findings: file.findings.map((finding) => renderFinding(finding, file.path, words, link)),
  }));
  const all = rendered.flatMap((file) => file.findings);
  return {
    files: rendered,
    summary: { files: rendered.length, errors: all.filter((f) => f.severity === "error").length,
               infos: all.filter((f) => f.severity === "info").length },
  };
}
