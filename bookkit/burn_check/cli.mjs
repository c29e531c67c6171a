// The command's JavaScript half: reads the files, runs the rule set (rules.js) with the same parser
// and grammar the page uses, and prints the findings for people or as JSON. `burn-check`
// (bookkit/burn_check/command.py) starts it with the node that set-up installed; `node cli.mjs --help` works too.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Language, Parser } from "web-tree-sitter";

import { UNREAD, renderReport, say } from "./report.js";
import { MAX_BYTES, checkSources, decode } from "./rules.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const GRAMMAR = join(HERE, "..", "..", "node_modules", "tree-sitter-rust", "tree-sitter-rust.wasm");
// The book's languages are its words files' (bookkit/words/language.py lists them; tests/book/test_words.py
// checks that words/ here has one file for each): English first, the default.
const LANGUAGES = readdirSync(join(HERE, "words"))
  .filter((name) => name.endsWith(".json"))
  .map((name) => name.slice(0, -".json".length))
  .sort((a, b) => (a === "en" ? -1 : b === "en" ? 1 : a.localeCompare(b)));
const FORMATS = ["text", "json"];
const SKIPPED = new Set(["target", "node_modules"]);

function words(language) {
  return JSON.parse(readFileSync(join(HERE, "words", `${language}.json`), "utf8"));
}

class UsageError extends Error {}

/** The language asked for, read before the rest of the arguments, so that a usage error is said in it. */
function languageOf(argv) {
  for (let i = 0; i < argv.length; i++) {
    const given = argv[i].startsWith("--language=") ? argv[i].slice("--language=".length)
      : argv[i] === "--language" ? argv[i + 1] : undefined;
    if (LANGUAGES.includes(given)) return given;
  }
  return "en";
}

function parseArguments(argv) {
  const options = { format: "text", language: "en", chapterUrl: "book/{page}.md#{anchor}", paths: [],
                    help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = (name, choices) => {
      const given = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : argv[++i];
      if (choices && !choices.includes(given)) {
        throw new UsageError(JSON.stringify({ key: "bad-value", option: name, choices: choices.join(", ") }));
      }
      return given;
    };
    if (arg === "-h" || arg === "--help") options.help = true;
    else if (arg === "--format" || arg.startsWith("--format=")) options.format = value("--format", FORMATS);
    else if (arg === "--language" || arg.startsWith("--language=")) options.language = value("--language", LANGUAGES);
    else if (arg === "--chapter-url" || arg.startsWith("--chapter-url=")) options.chapterUrl = value("--chapter-url");
    else if (arg.startsWith("-") && arg !== "-") {
      throw new UsageError(JSON.stringify({ key: "bad-option", option: arg }));
    } else options.paths.push(arg);
  }
  return options;
}

/** Every .rs file under `path` (itself if it is a file), in a stable order; target/ and hidden
 *  folders skipped. */
function rustFiles(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return null;
  if (!stat.isDirectory()) return [path];
  const found = [];
  const walk = (dir) => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name) && !entry.name.startsWith(".")) walk(full);
      } else if (entry.name.endsWith(".rs") && entry.isFile()) {
        found.push(full);
      }
    }
  };
  walk(path);
  return found;
}

function readSource(path, shown) {
  if (path === "-") return { path: shown, ...decode(readFileSync(0)) };
  const size = statSync(path).size;
  if (size > MAX_BYTES) return { path: shown, problem: "too-large", bytes: size };
  return { path: shown, ...decode(readFileSync(path)) };
}

function text(report, w) {
  const lines = [];
  for (const file of report.files) {
    for (const notice of file.notices) {
      const place = notice.line !== undefined ? `${notice.line}:${notice.column}:` : "";
      lines.push(`${file.path}:${place} ${say(w.cli.notice_line, notice)}`);
    }
    for (const finding of file.findings) {
      lines.push(`${file.path}:${finding.line}:${finding.column}: ${w.cli.severity[finding.severity]}[${finding.number} ${finding.rule}] `
                 + `${finding.title.replace(/`/g, "")}`);
      lines.push(`  ${finding.sentence}`);
      lines.push(`  ${say(w.cli.fix_line, finding)}`);
      if (finding.assumed.length) {
        lines.push(`  ${say(w.cli.assumed_line, { list: finding.assumed.join(w.assumed.separator) })}`);
      }
      lines.push(`  ${say(w.cli.see_line, { chapter: finding.chapter.label, url: finding.chapter.url })}`);
    }
  }
  lines.push(say(report.summary.unread ? w.cli.summary_unread : w.cli.summary, report.summary));
  return lines.join("\n");
}

async function main(argv) {
  let options;
  try {
    options = parseArguments(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const w = words(languageOf(argv));
    const problem = JSON.parse(error.message);
    process.stderr.write(`${w.cli.usage}\n${say(w.cli[problem.key], problem)}\n`);
    return 2;
  }
  const w = words(options.language);
  if (options.help) {
    process.stdout.write(`${w.cli.usage}\n\n${w.cli.help}\n\n${w.reads}\n`);
    return 0;
  }
  if (!options.paths.length) {
    process.stderr.write(`${w.cli.usage}\n${w.cli["no-paths"]}\n`);
    return 2;
  }
  // Each PATH is one crate: calls and struct fields are followed across the files under it.
  const crates = [];
  let missing = false;
  for (const path of options.paths) {
    if (path === "-") {
      crates.push([readSource("-", "<stdin>")]);
      continue;
    }
    const files = rustFiles(path);
    if (files === null) {
      process.stderr.write(`${say(w.cli["no-path"], { path })}\n`);
      missing = true;
      continue;
    }
    if (!files.length) process.stderr.write(`${say(w.cli["no-files"], { path })}\n`);
    else crates.push(files.map((file) => readSource(file, relative(process.cwd(), file) || file)));
  }
  if (!crates.length) return 2;
  await Parser.init();
  const parser = new Parser();
  parser.setLanguage(await Language.load(GRAMMAR));
  const link = (page, anchor) => say(options.chapterUrl, { page, anchor });
  const report = renderReport(crates.flatMap((sources) => checkSources(parser, sources)), w, link);
  process.stdout.write(options.format === "json" ? `${JSON.stringify(report, null, 1)}\n` : `${text(report, w)}\n`);
  const read = report.files.filter((file) => !file.notices.some((n) => UNREAD.has(n.kind))).length;
  // A path that is not there is a mistake in the command line (a typo in CI), even when others were read.
  if (missing) return 2;
  if (report.summary.errors) return 1;
  return read ? 0 : 2;
}

process.exitCode = await main(process.argv.slice(2));
