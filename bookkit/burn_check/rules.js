// The checker's one rule set: what it finds in Burn training code, read from tree-sitter's syntax
// tree. The page (page.js, in the browser) and the command (cli.mjs, under node) both call
// `checkSources` with a parser made from the same web-tree-sitter and the same Rust grammar file,
// so the two cannot find different things. It imports nothing: the caller brings the parser.
//
// It reads syntax, not types: which value is a module, which device is autodiff, whether a model's
// parameters were read before a move are guesses from how the code is written, and every finding
// names the guesses it rests on (`assumed`). The flow pass below follows values through bindings,
// patterns, reassignments, branches, tuples, struct fields, wrappers (`Some`, `Box::new`), closures and
// calls within the files it is given (a call reaches the functions its path names; where several
// functions could be the one, the finding says which it assumed); it knows nothing of other crates,
// trait objects, or what a macro of the reader's own does with its arguments.

export const MAX_BYTES = 1000000;
/** A file or paste larger than this is not read: hand-written Rust is far smaller (generated code). */
export const MAX_DEPTH = 400;
/** Syntax nested deeper than this is not followed (the rules walk the tree recursively). */

/** The rules, by id. `chapter`/`anchor`: the page of the book that shows it. Rules 1-4 fail a run. */
export const RULES = {
  "moved-then-trained": { number: 1, severity: "error", chapter: "03-not-a-leaf",
                          anchor: "the-parameter-is-to-device-s-output" },
  "same-device-move": { number: 2, severity: "error", chapter: "11-when-to_device", anchor: "same-device-move" },
  "fork-after-to_device": { number: 3, severity: "error", chapter: "06-fork",
                            anchor: "burn-s-own-training-loop-uses-fork" },
  "plain-without-train": { number: 4, severity: "error", chapter: "10-fixes",
                           anchor: "fix-2-from-a-plain-device-move-then-train" },
  "no-step-0-check": { number: 5, severity: "info", chapter: "12-am-i-hit",
                       anchor: "check-2-count-the-gradients-from-step-0" },
};

const PRIORITY = { train: -1, step: 0, from_grads: 1, learner: 2, call: 3, field: 4, backward: 5 };
/** Methods that hand back the value they are called on (an Option's, a Box's, an iterator's): the
 *  model inside is still the model, and calling them reads no parameter. */
const PASSES = new Set(["clone", "unwrap", "expect", "unwrap_or_default", "unwrap_unchecked", "into", "to_owned",
                        "iter", "into_iter", "iter_mut", "collect", "next", "first", "last", "pop", "get",
                        "get_mut", "remove", "take", "as_ref", "as_mut", "borrow", "borrow_mut", "lock", "deref",
                        "deref_mut", "cloned", "copied", "rev", "skip", "step_by", "ok", "ok_or", "ok_or_else",
                        "into_inner", "unwrap_or", "filter"]);
/** Methods whose closure argument gets the value (or each item) they are called on. */
const TAKES_CLOSURE = new Set(["map", "and_then", "flat_map", "filter_map", "then", "inspect", "for_each", "fold",
                               "unwrap_or_else", "or_else", "map_or", "map_or_else"]);
/** Tensor methods whose result is cut from the graph: nothing flows back through them to a model. */
const CUTS = new Set(["detach", "inner", "into_scalar", "into_data", "to_data"]);
const LOADS = new Set(["load_record", "try_load_record", "load_file"]);
/** `Some(x)`, `Box::new(x)`: calls that wrap a value without changing it. */
const WRAPPERS = new Set(["Some", "Ok", "Box::new", "Rc::new", "Arc::new", "RefCell::new", "Cell::new", "Mutex::new",
                          "RwLock::new"]);
/** Macros that read `{name}` in their format string as an argument. */
const FORMATS = new RegExp("^(e?print(ln)?|format(_args)?|write(ln)?|panic|(debug_)?assert(_eq|_ne)?|unreachable|todo"
                           + "|unimplemented|info|debug|warn|error|trace|log|bail|ensure|anyhow)$");
const ASSERTS = /^(debug_)?assert(_eq|_ne)?$|^ensure$/;
const DEVICE_NAME = /device|^dev$|cpu|gpu|metal|cuda|wgpu|flex/i;
const LOOPS = new Set(["for_expression", "while_expression", "loop_expression"]);
const ITEMS = new Set(["function_item", "impl_item", "trait_item", "mod_item", "struct_item", "enum_item",
                       "use_declaration", "const_item", "static_item", "type_item", "macro_definition",
                       "union_item", "extern_crate_declaration", "foreign_mod_item", "attribute_item",
                       "inner_attribute_item", "let_declaration", "expression_statement",
                       "function_signature_item", "associated_type"]);

// ----- reading the input ----------------------------------------------------------------------------

/** A file's bytes as text, or why they cannot be read (`{problem, offset}`): the command's files and
 *  the page's opened files go through this, so both say the same about non-UTF-8 bytes. */
export function decode(bytes) {
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    return { problem: "not-utf8", offset: firstInvalidByte(bytes) };
  }
}

function firstInvalidByte(bytes) {
  let at = 0;
  while (at < bytes.length) {
    const lead = bytes[at];
    const size = lead < 0x80 ? 1 : lead >= 0xc2 && lead < 0xe0 ? 2 : lead >= 0xe0 && lead < 0xf0 ? 3
      : lead >= 0xf0 && lead < 0xf5 ? 4 : 0;
    if (size === 0 || at + size > bytes.length) return at;
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(at, at + size));
    } catch {
      return at;
    }
    at += size;
  }
  return at;
}

/** Checks `sources` ([{path, text} or {path, problem, ...}]) as one crate: calls, fields and
 *  functions are followed across them. Returns [{path, notices, findings}] in the same order. */
export function checkSources(parser, sources) {
  const files = sources.map((source) => prepare(parser, source));
  const world = new World(files.filter((file) => file.root));
  try {
    world.summarize();
  } catch {
    // Summaries only add what calls between functions show; each file is still checked on its own.
  }
  for (const file of files) {
    if (!file.root) continue;
    try {
      world.check(file);
    } catch (error) {
      // A bug of this checker, not of the reader's code: say so for this file and go on with the next.
      file.notices.push({ kind: "internal", message: String(error?.message ?? error) });
    }
  }
  for (const file of files) {
    // A finding is listed with the file its line is in: a helper's move found from a caller elsewhere too.
    file.findings = [...(world.findings.get(file.path)?.values() ?? [])].map(({ priority, ...finding }) => finding);
    delete file.root;
  }
  return files.map(({ path, notices, findings }) => ({ path, notices, findings: sortFindings(findings) }));
}

function prepare(parser, source) {
  const file = { path: source.path, notices: [], findings: [] };
  if (source.problem) {
    file.notices.push({ kind: source.problem, ...(source.offset !== undefined ? { offset: source.offset } : {}),
                        ...(source.bytes !== undefined ? { bytes: source.bytes, limit: MAX_BYTES } : {}) });
    return file;
  }
  const text = source.text;
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_BYTES) {
    file.notices.push({ kind: "too-large", bytes, limit: MAX_BYTES });
    return file;
  }
  if (!text.trim()) {
    file.notices.push({ kind: "empty" });
    return file;
  }
  const tree = parser.parse(text);
  const root = plainTree(tree, text);
  tree.delete();
  if (root.tooDeep) {
    file.notices.push({ kind: "too-deep", ...root.tooDeep, limit: MAX_DEPTH });
    return file;
  }
  if (root.hasError) {
    const errors = syntaxErrors(root);
    if (unreadable(root)) {
      file.notices.push({ kind: "not-rust", ...errors[0] });
      return file;
    }
    file.notices.push({ kind: "syntax-error", ...errors[0], more: errors.length - 1 });
  }
  root.filePath = source.path;
  file.root = root;
  return file;
}

/** A syntax node as plain JavaScript: the rules read the tree many times, and each read of a
 *  web-tree-sitter node crosses into WebAssembly; one walk with a cursor copies what they need. */
class SyntaxNode {
  constructor(type, parent, source, cursor) {
    this.type = type;
    this.parent = parent;
    this.source = source;
    this.startIndex = cursor.startIndex;
    this.endIndex = cursor.endIndex;
    this.startPosition = cursor.startPosition;
    this.endPosition = cursor.endPosition;
    this.isNamed = cursor.nodeIsNamed;
    this.isMissing = cursor.nodeIsMissing;
    this.isError = type === "ERROR";
    this.hasError = this.isError || this.isMissing;
    this.children = [];
    this.namedChildren = [];
    this.fields = null;
  }

  get text() {
    return this.source.slice(this.startIndex, this.endIndex);
  }

  childForFieldName(name) {
    return this.fields?.get(name) ?? null;
  }
}

function plainTree(tree, source) {
  const cursor = tree.walk();
  const root = new SyntaxNode(cursor.nodeType, null, source, cursor);
  let parent = root;
  let depth = 1;
  let more = cursor.gotoFirstChild();
  while (more) {
    const child = new SyntaxNode(cursor.nodeType, parent, source, cursor);
    parent.children.push(child);
    if (child.isNamed) parent.namedChildren.push(child);
    const fieldName = cursor.currentFieldName;
    if (fieldName) {
      parent.fields ??= new Map();
      if (!parent.fields.has(fieldName)) parent.fields.set(fieldName, child);
    }
    if (depth >= MAX_DEPTH) {
      cursor.delete();
      return { tooDeep: at(child) };
    }
    if (cursor.gotoFirstChild()) {
      parent = child;
      depth += 1;
      continue;
    }
    while (!cursor.gotoNextSibling()) {
      depth -= 1;
      if (!cursor.gotoParent() || !(parent = parent.parent)) {
        more = false;
        break;
      }
    }
  }
  cursor.delete();
  markErrors(root);
  return root;
}

function markErrors(node) {
  for (const child of node.children) {
    if (markErrors(child)) node.hasError = true;
  }
  return node.hasError;
}

function syntaxErrors(root) {
  const found = [];
  const walk = (node) => {
    if (node.isError || node.isMissing) {
      found.push({ ...errorPlace(node), missing: node.isMissing ? node.type : undefined });
      return;
    }
    if (node.hasError) for (const child of node.children) walk(child);
  };
  walk(root);
  return found.length ? found : [{ line: 1, column: 1 }];
}

/** Where an error node goes wrong. tree-sitter's recovery can wrap whole items in one error node that
 *  starts at line 1 (a file whose last `}` is missing): then the place is the `{` never closed before
 *  the file ends, as rustc's "unclosed delimiter" says, else the first token outside a whole item. */
function errorPlace(node) {
  const open = [];
  let first = null;
  for (const child of node.children) {
    if (child.type === "{") open.push(child);
    else if (child.type === "}") open.pop();
    if (!first && !(ITEMS.has(child.type) && !child.hasError)) first = child;
  }
  if (open.length && node.endIndex >= node.source.trimEnd().length) return { ...at(open[0]), unclosed: true };
  return at(first ?? node);
}

/** Does the parse look like something other than Rust: most of the text in error nodes, or no Rust
 *  item or statement anywhere? A whole item that parses inside an error node (tree-sitter's recovery
 *  around a missing brace) is readable; a fragment with an elision (`...`) is Rust with one error. */
function unreadable(root) {
  const solid = (node) => node.text.replace(/\s+/g, "").length;
  const whole = (node) => ITEMS.has(node.type) && !node.hasError;
  let readable = false;
  const errorBytes = (node) => {
    if (ITEMS.has(node.type)) readable = true;
    if (whole(node)) return 0;
    if (!node.hasError) return node.isError ? solid(node) : 0;
    let bytes = 0;
    for (const child of node.children) {
      bytes += node.isError && !child.hasError && !whole(child) ? solid(child) : errorBytes(child);
    }
    return bytes;
  };
  const bytes = errorBytes(root);
  return bytes / (solid(root) || 1) > 0.5 || !readable;
}

function sortFindings(findings) {
  return findings.sort((a, b) => a.line - b.line || a.column - b.column
    || RULES[a.rule].number - RULES[b.rule].number);
}

// ----- the syntax tree, read plainly -----------------------------------------------------------------

function field(node, name) {
  return node ? node.childForFieldName(name) : null;
}

/** A node's line and column, 1-based; the column counts characters, as rustc does (web-tree-sitter's
 *  count UTF-16 units: a character outside the BMP is two). */
function at(node) {
  return { line: node.startPosition.row + 1, column: columnOf(node.source, node.startIndex) };
}

function end(node) {
  return { endLine: node.endPosition.row + 1, endColumn: columnOf(node.source, node.endIndex) };
}

function columnOf(source, index) {
  const start = source.lastIndexOf("\n", index - 1) + 1;
  const before = source.slice(start, index);
  const pairs = before.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g);
  return before.length - (pairs ? pairs.length : 0) + 1;
}

/** The path of the file a node is in (its tree's root knows it). */
function pathOf(node) {
  while (node.parent) node = node.parent;
  return node.filePath;
}

/** An expression without the wrappers that do not change which value it is. */
function bare(node) {
  while (node && ["reference_expression", "parenthesized_expression", "try_expression",
                  "unary_expression", "type_cast_expression"].includes(node.type)) {
    node = node.type === "reference_expression" ? field(node, "value")
      : node.type === "type_cast_expression" ? field(node, "value") : node.namedChildren[0];
  }
  return node;
}

/** `recv.name(args)`: {receiver, name, nameNode, args} for a method call, else null. */
function methodCall(node) {
  if (node?.type !== "call_expression") return null;
  let fn = field(node, "function");
  if (fn?.type === "generic_function") fn = field(fn, "function");
  if (fn?.type !== "field_expression") return null;
  const nameNode = field(fn, "field");
  return { receiver: field(fn, "value"), name: nameNode.text, nameNode, args: argList(node) };
}

/** `path::name(args)` or `name(args)`: {path, name, nameNode, args} for a plain call, else null. */
function plainCall(node) {
  if (node?.type !== "call_expression") return null;
  let fn = field(node, "function");
  if (fn?.type === "generic_function") fn = field(fn, "function");
  if (fn?.type === "identifier") return { path: "", name: fn.text, nameNode: fn, args: argList(node) };
  if (fn?.type === "scoped_identifier") {
    const nameNode = field(fn, "name");
    return { path: field(fn, "path")?.text.replace(/\s+/g, "") ?? "", name: nameNode.text, nameNode,
             args: argList(node) };
  }
  return null;
}

function argList(call) {
  const args = field(call, "arguments");
  return args ? args.namedChildren.filter((n) => n.type !== "line_comment" && n.type !== "block_comment") : [];
}

/** The pattern inside `mut x`, `ref x`, `&x` and a match arm's pattern. */
function innerPattern(pattern) {
  while (pattern && ["mut_pattern", "ref_pattern", "reference_pattern", "match_pattern"].includes(pattern.type)) {
    pattern = pattern.namedChildren[pattern.namedChildren.length - 1];
  }
  return pattern;
}

function patternNames(pattern) {
  pattern = innerPattern(pattern);
  return pattern?.type === "identifier" ? [pattern.text] : [];
}

/** The type an impl block is for (`impl<B> Module for Trainer<B>` -> "Trainer"). */
function implType(node) {
  for (let up = node.parent; up; up = up.parent) {
    if (up.type === "impl_item") {
      const type = field(up, "type");
      return (type?.type === "generic_type" ? field(type, "type") : type)?.text ?? null;
    }
    if (up.type === "function_item" && up !== node) return null;
  }
  return null;
}

/** `Device` or `burn::prelude::Device`: the concrete device type, whose constructors make plain devices
 *  (`Device::flex()`, `Device::default()`). `B::Device` or `<B as Backend>::Device` in generic code is
 *  whatever device the backend has, autodiff or not. */
function concreteDevice(path) {
  return /^([a-z_]\w*::)*Device$/.test(path);
}

/** A device expression: {key, kind, text, bound} (kind "autodiff", "plain" or "unknown"; bound: an
 *  existing device under a name, whose key a new name shares), from its text. */
function deviceOf(node, scope) {
  node = bare(node);
  if (!node) return null;
  const call = methodCall(node);
  if (call && call.name === "clone") return deviceOf(call.receiver, scope);
  if (call && call.name === "autodiff") return { key: node.text, kind: "autodiff", text: node.text };
  if (call && call.name === "inner") return { key: node.text, kind: "plain", text: node.text };
  const plain = plainCall(node);
  if (plain && concreteDevice(plain.path)) {
    return { key: node.text, kind: plain.name.startsWith("autodiff") ? "autodiff" : "plain", text: node.text };
  }
  if (plain && /(^|::|>)Device$/.test(plain.path)) return { key: node.text, kind: "unknown", text: node.text };
  if (node.type === "identifier" || node.type === "field_expression" || node.type === "self") {
    const binding = scope.lookup(node.text.replace(/\s+/g, ""));
    if (binding?.value?.device) return { ...binding.value.device, text: node.text, bound: true };
    const held = node.type === "field_expression" ? heldDevice(node, scope) : null;
    if (held) return { ...held, text: node.text, bound: true };
    return { key: `${node.text}#${binding ? binding.id : "free"}`, kind: "unknown", text: node.text };
  }
  return null;
}

/** A device kept in a struct's field: `setup.device` of `let setup = Setup { device: Device::flex() }`,
 *  or `self.device` of a type whose values are built with one. */
function heldDevice(node, scope) {
  const base = field(node, "value");
  const name = field(node, "field")?.text;
  if (base?.type === "self") {
    const impl = scope.frame.fn?.impl;
    return impl ? scope.frame.world.fieldDevices.get(`${impl}.${name}`) ?? null : null;
  }
  const holder = base?.type === "identifier" ? scope.lookup(base.text)?.value : null;
  return holder?.fields?.get(name)?.value.device ?? null;
}

function looksLikeDevice(node, scope) {
  node = bare(node);
  if (!node) return false;
  const found = deviceOf(node, scope);
  if (!found) return false;
  if (found.kind !== "unknown") return true;
  const binding = scope.lookup(node.text);
  return Boolean(binding?.value?.device) || DEVICE_NAME.test(node.text.split(".").pop());
}

// ----- modules: which function a call names ---------------------------------------------------------

/** The module a file is (`src/train.rs` -> ["train"], `src/a/mod.rs` -> ["a"], `src/main.rs` -> []);
 *  a lone file or a page's paste is the crate's root. */
function fileModule(path, alone) {
  const parts = path.replace(/\\/g, "/").split("/");
  const src = parts.lastIndexOf("src");
  const inside = src >= 0 ? parts.slice(src + 1) : alone ? [] : parts.slice(-1);
  const last = (inside.pop() ?? "").replace(/\.rs$/, "");
  if (src >= 0 && inside[0] === "bin") return [];
  if (!["main", "lib", "mod", ""].includes(last)) inside.push(last);
  return inside;
}

/** The modules a `mod` item nests a node in, outermost first. */
function inlineModules(node) {
  const names = [];
  for (let up = node.parent; up; up = up.parent) {
    if (up.type === "mod_item") names.unshift(field(up, "name")?.text ?? "");
  }
  return names;
}

/** A path as module segments, `crate::`, `self::` and `super::` read from the module `from`. */
function moduleSegments(path, from) {
  let segments = path ? path.split("::") : [];
  let base = null;
  while (segments[0] === "self" || segments[0] === "super" || segments[0] === "crate") {
    if (segments[0] === "crate") base = [];
    else if (segments[0] === "self") base = [...(base ?? from)];
    else base = (base ?? from).slice(0, -1);
    segments = segments.slice(1);
  }
  return base ? [...base, ...segments] : segments;
}

/** Does a function in module `module` answer a call through the module path `segments`? Either may
 *  carry more leading segments (a crate's name, a module the checker did not place). */
function sameModule(module, segments, absolute) {
  if (absolute || !segments.length) return module.join("::") === segments.join("::");
  const ends = (long, short) => short.length <= long.length
    && short.every((name, index) => long[long.length - short.length + index] === name);
  return ends(module, segments) || (module.length > 0 && ends(segments, module));
}

/** Every `use` of a file, flattened: {path: segments, name (what the code calls it), glob}. */
function usesOf(root) {
  const found = [];
  const walk = (node, prefix) => {
    if (!node) return;
    switch (node.type) {
      case "identifier":
      case "self":
      case "crate":
      case "super":
        found.push({ path: [...prefix, node.text], name: node.text });
        return;
      case "scoped_identifier": {
        const path = field(node, "path")?.text.split("::") ?? [];
        found.push({ path: [...prefix, ...path, field(node, "name").text], name: field(node, "name").text });
        return;
      }
      case "use_as_clause": {
        const path = field(node, "path")?.text.split("::") ?? [];
        found.push({ path: [...prefix, ...path], name: field(node, "alias")?.text });
        return;
      }
      case "use_wildcard": {
        const path = node.namedChildren[0]?.text.split("::") ?? [];
        found.push({ path: [...prefix, ...path], glob: true });
        return;
      }
      case "scoped_use_list": {
        const path = field(node, "path")?.text.split("::") ?? [];
        for (const item of field(node, "list")?.namedChildren ?? []) walk(item, [...prefix, ...path]);
        return;
      }
      case "use_list":
        for (const item of node.namedChildren) walk(item, prefix);
        return;
      default:
    }
  };
  // `use` lines at the top of the file and of its `mod` blocks (one inside a function body is rare).
  const visit = (node) => {
    if (node.type === "use_declaration") walk(field(node, "argument"), []);
    else if (node.type === "mod_item" && field(node, "body")) visit(field(node, "body"));
    else if (node === root || node.type === "declaration_list" || node.isError) {
      for (const child of node.namedChildren) visit(child);
    }
  };
  visit(root);
  return found;
}

// ----- values -----------------------------------------------------------------------------------------
// A value is a plain object; nothing here mutates one after it is made.
//   moved:   the to_device call that made it (a module's parameters as that op's outputs): its name
//            node, the receiver's and the device's text, `same` (rule 2), `fromKind` (the device kind
//            it came from), `param` (in a summary: the parameter it moved)
//   plain:   {origin: node, last: node, how: "valid"|"device"}: not autodiff, needs .train()
//   frozen:  went through no_grad(): its parameters are not trained, so its moves are not the bug
//   lazy:    built right here and not read yet: a move only changes where it will be built
//   builtOn / builtKind: the device key it was built on or last moved to (rule 2), and that device's kind
//   param / field: what it is in a summary (a function's parameter, -1 for self; `Type.field`)
//   feeds:   [{model, site}]: the models whose forward pass this tensor comes from
//   tuple / fields / type: a tuple's values, a struct's fields ({value, node}) and its type
//   closure: {node, scope}: a closure, called where the code calls it
//   assumed: the guesses behind its state (a key, or {key, ...values})

const UNKNOWN = Object.freeze({});

function derived(...values) {
  const feeds = [];
  for (const value of values) {
    for (const feed of value?.feeds ?? []) if (!feeds.includes(feed)) feeds.push(feed);
  }
  return feeds.length ? { feeds } : UNKNOWN;
}

/** Does the value stand for a model (or a collection of them): something a rule follows? */
function isModel(value) {
  return Boolean(value && (value.moved || value.plain || value.lazy || value.builtOn || value.frozen || value.loaded
                           || value.param !== undefined || value.field));
}

function withAssumed(value, ...assumed) {
  return value === UNKNOWN ? value : { ...value, assumed: [...(value.assumed ?? []), ...assumed] };
}

class Scope {
  constructor(parent, frame) {
    this.parent = parent;
    this.vars = new Map();
    this.frame = frame ?? parent.frame;
  }
  lookup(name) {
    for (let scope = this; scope; scope = scope.parent) {
      if (scope.vars.has(name)) return scope.vars.get(name);
    }
    return null;
  }
  bind(name, value) {
    this.vars.set(name, { value, id: ++this.frame.world.bindings });
  }
  assign(name, value) {
    for (let scope = this; scope; scope = scope.parent) {
      if (scope.vars.has(name)) {
        scope.vars.get(name).value = value;
        return;
      }
    }
    this.frame.top.bind(name, value);
  }
}

// ----- the crate ------------------------------------------------------------------------------------

class World {
  constructor(files) {
    this.files = files;
    this.bindings = 0;
    this.functions = [];
    this.byName = new Map();
    this.fieldTrains = new Map();
    this.fieldDevices = new Map();
    this.findings = new Map();
    this.uses = new Map();
    for (const file of files) this.collect(file, files.length === 1);
    this.checkers = markStepChecks(this.functions);
  }

  collect(file, alone) {
    const module = fileModule(file.path ?? "", alone);
    this.uses.set(file, usesOf(file.root));
    const walk = (node) => {
      if (node.type === "function_item") {
        const params = [];
        const devices = new Set();
        let method = false;
        for (const param of field(node, "parameters")?.namedChildren ?? []) {
          if (param.type === "self_parameter") method = true;
          if (param.type !== "parameter") continue;
          const name = patternNames(field(param, "pattern"))[0] ?? null;
          if (/Device\b/.test(field(param, "type")?.text ?? "") || (name && DEVICE_NAME.test(name))) {
            devices.add(params.length);
          }
          params.push(name);
        }
        const impl = implType(node);
        const returnType = (field(node, "return_type")?.text ?? "").replace(/<.*$/, "");
        const fn = { node, file, name: field(node, "name").text, params, devices, method, impl,
                     module: [...module, ...inlineModules(node)],
                     returnsSelf: Boolean(impl) && (returnType === "Self" || returnType === impl),
                     summary: { trains: new Map(), forks: new Map(), returns: new Set(), builds: null, moves: null } };
        this.functions.push(fn);
        if (!this.byName.has(fn.name)) this.byName.set(fn.name, []);
        this.byName.get(fn.name).push(fn);
      }
      for (const child of node.namedChildren) walk(child);
    };
    walk(file.root);
  }

  /** The functions a plain call may reach: `Type::f(..)` and `Self::f(..)` that type's; `module::f(..)`
   *  the free functions of that module (none when the path names another crate's); `f(..)` those of the
   *  caller's module, else the ones its `use` lines name, else every free function of that name. */
  calls(plain, frame) {
    const all = this.byName.get(plain.name) ?? [];
    const caller = frame.fn?.module ?? fileModule(frame.file.path ?? "", this.files.length === 1);
    const type = plain.path.split("::").pop();
    const owner = plain.path === "Self" ? frame.fn?.impl ?? null
      : /^[A-Z]/.test(type) ? type.replace(/<.*$/, "") : null;
    if (owner || plain.path === "Self") return all.filter((fn) => !fn.method && fn.impl === owner);
    const free = all.filter((fn) => !fn.method && fn.impl === null);
    if (plain.path) {
      const segments = this.unalias(moduleSegments(plain.path, caller), frame.file);
      const absolute = /^(crate|self|super)::/.test(plain.path);
      return free.filter((fn) => sameModule(fn.module, segments, absolute));
    }
    const local = free.filter((fn) => fn.module.join("::") === caller.join("::"));
    if (local.length) return local;
    for (const use of this.uses.get(frame.file) ?? []) {
      if (use.glob || use.name !== plain.name) continue;
      const segments = moduleSegments(use.path.slice(0, -1).join("::"), caller);
      const named = free.filter((fn) => sameModule(fn.module, segments, use.path[0] === "crate"));
      if (named.length) return named;
    }
    const globbed = (this.uses.get(frame.file) ?? []).filter((use) => use.glob)
      .flatMap((use) => free.filter((fn) => sameModule(fn.module, moduleSegments(use.path.join("::"), caller), false)));
    return globbed.length ? globbed : free;
  }

  /** `tr::run` after `use crate::training as tr`: the module the alias stands for. */
  unalias(segments, file) {
    const use = segments.length && (this.uses.get(file) ?? []).find((u) => !u.glob && u.name === segments[0]);
    return use ? [...moduleSegments(use.path.join("::"), []), ...segments.slice(1)] : segments;
  }

  /** The methods `recv.name(..)` may reach: on `self`, its impl's; on a value of a known type, that
   *  type's; else every method of that name in the crate. */
  methods(name, receiverNode, receiver, frame) {
    const all = (this.byName.get(name) ?? []).filter((fn) => fn.method);
    if (receiverNode.type === "self" && frame.fn?.impl) return all.filter((fn) => fn.impl === frame.fn.impl);
    if (receiver.type) {
      const typed = all.filter((fn) => fn.impl === receiver.type);
      if (typed.length) return typed;
    }
    return all;
  }

  summarize() {
    for (let round = 0; round < 4; round++) {
      const before = this.fingerprint();
      for (const fn of this.functions) new Frame(this, fn.file, fn, false).run();
      if (this.fingerprint() === before) break;
    }
  }

  fingerprint() {
    return this.functions.map((fn) => [...fn.summary.trains.keys(), "|", ...fn.summary.forks.keys(), "|",
                                       ...fn.summary.returns, "|", fn.summary.moves ? "m" : "",
                                       fn.summary.builds ? "b" : ""].join(",")).join(";")
      + [...this.fieldTrains.keys()].join(",") + [...this.fieldDevices.keys()].join(",");
  }

  check(file) {
    for (const fn of this.functions.filter((f) => f.file === file)) new Frame(this, file, fn, true).run();
    new Frame(this, file, null, true).run();
  }

  report(path, key, finding) {
    if (!this.findings.has(path)) this.findings.set(path, new Map());
    const findings = this.findings.get(path);
    const known = findings.get(key);
    if (!known || finding.priority < known.priority) findings.set(key, finding);
  }
}

// ----- one function, interpreted in order ------------------------------------------------------------

class Frame {
  constructor(world, file, fn, reporting) {
    this.world = world;
    this.file = file;
    this.fn = fn;
    this.reporting = reporting;
    this.top = new Scope(null, this);
    this.grads = new Set();
    this.checks = false;
    this.depth = 0;
    this.branches = [];
  }

  run() {
    if (this.fn) {
      if (this.fn.method) this.top.bind("self", this.reporting ? UNKNOWN : { param: -1 });
      this.fn.params.forEach((name, index) => {
        if (!name) return;
        if (this.fn.devices.has(index)) this.top.bind(name, { device: { key: `param:${index}`, kind: "unknown" } });
        else this.top.bind(name, this.reporting ? UNKNOWN : { param: index });
      });
      const body = field(this.fn.node, "body");
      if (!body) return;
      this.checks = this.fn.checks;
      const result = this.block(body, this.top);
      this.returned(result);
    } else {
      // Statements outside any function (a pasted fragment): the file's top level is their body.
      const loose = this.file.root.namedChildren.filter((child) => !child.type.endsWith("_item")
        && !child.type.endsWith("comment") && child.type !== "use_declaration");
      if (!loose.length) return;
      const found = stepCheck(this.file.root);
      this.checks = found.checks || [...found.calls].some((name) => this.world.checkers.has(name));
      this.statements(this.file.root.namedChildren, this.top);
    }
  }

  /** What a function hands back, for its summary: the models whose forward pass it returns, a model
   *  it built on a device it was given (`initialized(device)`), and a model it moved (`place(model, d)`). */
  returned(value) {
    if (this.reporting || !this.fn) return;
    for (const feed of value?.feeds ?? []) {
      if (feed.model.param !== undefined) this.fn.summary.returns.add(feed.model.param);
    }
    const on = /^param:(\d+)$/.exec(value?.builtOn ?? "");
    if (on && !value.moved && !value.plain && !value.frozen) {
      this.fn.summary.builds = { param: Number(on[1]), lazy: Boolean(value.lazy), read: Boolean(value.read) };
    }
    if (value?.moved && !value.lazy && !value.frozen && !this.fn.summary.moves) {
      const target = /^param:(\d+)$/.exec(value.builtOn ?? "");
      this.fn.summary.moves = { value, param: value.moved.param, target: target ? Number(target[1]) : null };
    }
  }

  /** Where a node is, with its file: a training step found in another file names it. */
  here(node) {
    return { ...at(node), path: this.file.path };
  }

  // --- statements

  block(node, scope) {
    const inner = new Scope(scope);
    let last = UNKNOWN;
    const children = node.namedChildren.filter((child) => !child.type.endsWith("comment"));
    this.statements(children, inner, (value, child) => {
      last = child === children[children.length - 1] && child.type !== "expression_statement"
        && child.type !== "let_declaration" ? value : UNKNOWN;
    });
    return last;
  }

  statements(children, scope, each) {
    for (const child of children) {
      let value = UNKNOWN;
      if (child.type === "let_declaration") this.letDeclaration(child, scope);
      else if (child.type === "expression_statement") value = this.expr(child.namedChildren[0], scope);
      else if (child.type.endsWith("_item") || child.type.endsWith("comment") || child.type === "attribute_item"
               || child.type === "use_declaration" || child.type === "inner_attribute_item") continue;
      else value = this.expr(child, scope);
      if (each) each(value, child);
    }
  }

  letDeclaration(node, scope) {
    const valueNode = field(node, "value");
    const value = valueNode ? this.expr(valueNode, scope) : UNKNOWN;
    const names = patternNames(field(node, "pattern"));
    if (valueNode && names.length === 1) {
      const call = methodCall(bare(valueNode));
      if (call && (call.name === "from_grads") || plainCall(bare(valueNode))?.name === "from_grads") {
        this.grads.add(names[0]);
      }
      const device = this.deviceValue(valueNode, scope, names[0]);
      scope.bind(names[0], device ? { ...value, device } : { ...value, binding: names[0] });
    } else {
      this.bindPattern(field(node, "pattern"), scope, value);
    }
  }

  /** Binds a pattern's names to the parts of `value` it takes apart: a tuple's items, `Some(x)`'s and
   *  `Ok(x)`'s inside, a struct's fields; any other name to an unknown value. */
  bindPattern(pattern, scope, value = UNKNOWN) {
    pattern = innerPattern(pattern);
    if (!pattern) return;
    const parts = pattern.namedChildren.filter((n) => !n.type.endsWith("comment"));
    switch (pattern.type) {
      case "identifier":
        scope.bind(pattern.text, value);
        return;
      case "tuple_pattern":
        parts.forEach((part, index) => this.bindPattern(part, scope, value.tuple?.[index] ?? UNKNOWN));
        return;
      case "tuple_struct_pattern": {
        const type = field(pattern, "type");
        const inside = parts.filter((part) => part !== type);
        const wraps = /^(Some|Ok)$/.test(type?.text.split("::").pop() ?? "") && inside.length === 1;
        for (const part of inside) this.bindPattern(part, scope, wraps ? value : UNKNOWN);
        return;
      }
      case "struct_pattern":
        for (const part of parts) {
          if (part.type !== "field_pattern") continue;
          const name = field(part, "name")?.text;
          const held = value.fields?.get(name)?.value ?? UNKNOWN;
          if (field(part, "pattern")) this.bindPattern(field(part, "pattern"), scope, held);
          else if (name) scope.bind(name, held);
        }
        return;
      default:
        for (const part of parts) this.bindPattern(part, scope);
    }
  }

  /** A `let` of a device: remembered with a key of its own, so that a later binding of the same name
   *  (`let device = device.autodiff()`) is another device; another name for a device already known
   *  (`let gpu = device.clone()`) shares its key. */
  deviceValue(valueNode, scope, name) {
    const node = bare(valueNode);
    const found = deviceOf(node, scope);
    if (!found) return null;
    if (found.bound) return { key: found.key, kind: found.kind };
    if (found.kind === "unknown" && !DEVICE_NAME.test(name)) return null;
    // `let gpu = device.clone()` of a device made elsewhere: the same device, whatever it is.
    if (found.kind === "unknown" && DEVICE_NAME.test(found.text.split(".").pop())) {
      return { key: found.key, kind: "unknown" };
    }
    return { key: `${name}@${node.startIndex}`, kind: found.kind };
  }

  // --- expressions

  expr(node, scope, reading = true) {
    if (!node || node.type.endsWith("_item")) return UNKNOWN;
    switch (node.type) {
      case "identifier":
      case "self":
        return this.name(node.text, scope, reading);
      case "field_expression":
        return this.fieldValue(node, scope, reading);
      case "reference_expression":
      case "parenthesized_expression":
      case "try_expression":
      case "type_cast_expression":
      case "await_expression":
        return this.expr(bare(node) === node ? node.namedChildren[0] : bare(node), scope, reading);
      case "unary_expression":
        return this.expr(node.namedChildren[0], scope, reading);
      case "call_expression":
        return this.call(node, scope);
      case "macro_invocation":
        return this.macro(node, scope);
      case "assignment_expression":
      case "compound_assignment_expr":
        return this.assignment(node, scope);
      case "block":
      case "unsafe_block":
      case "async_block":
        return this.block(node.type === "block" ? node : node.namedChildren.find((c) => c.type === "block") ?? node,
                          scope);
      case "if_expression":
        return this.ifExpression(node, scope);
      case "match_expression":
        return this.matchExpression(node, scope);
      case "for_expression":
      case "while_expression":
      case "loop_expression":
        return this.loop(node, scope);
      case "closure_expression":
        return this.closure(node, scope);
      case "return_expression":
        this.returned(this.expr(node.namedChildren[0], scope));
        return UNKNOWN;
      case "struct_expression":
        return this.structExpression(node, scope);
      case "tuple_expression": {
        const values = node.namedChildren.filter((n) => !n.type.endsWith("comment"))
          .map((child) => this.expr(child, scope, false));
        return { ...derived(...values), tuple: values };
      }
      case "index_expression": {
        // `models[0]`: an item of a collection of models is one of them.
        const held = this.expr(node.namedChildren[0], scope, false);
        for (const child of node.namedChildren.slice(1)) this.expr(child, scope);
        return isModel(held) ? held : derived(held);
      }
      case "let_condition":
      case "let_chain":
        return this.condition(node, scope, new Scope(scope));
      default: {
        const values = node.namedChildren.map((child) => this.expr(child, scope));
        return derived(...values);
      }
    }
  }

  name(text, scope, reading) {
    const binding = scope.lookup(text);
    if (!binding) return UNKNOWN;
    if (reading && binding.value.lazy) binding.value = { ...binding.value, lazy: false, read: true };
    return binding.value;
  }

  fieldValue(node, scope, reading) {
    const path = node.text.replace(/\s+/g, "");
    const binding = scope.lookup(path);
    if (binding) return this.name(path, scope, reading);
    const base = field(node, "value");
    const name = field(node, "field")?.text;
    if (base?.type === "self" && this.fn?.impl) return { field: `${this.fn.impl}.${name}` };
    const holder = this.expr(base, scope, false);
    if (holder.tuple && /^\d+$/.test(name)) return holder.tuple[Number(name)] ?? UNKNOWN;
    if (holder.fields?.has(name)) return holder.fields.get(name).value;
    // `model.weight` reads the model (a lazy parameter is built when read): the field is not the model.
    if (holder.lazy && ["identifier", "field_expression"].includes(bare(base)?.type)) this.expr(base, scope, true);
    return UNKNOWN;
  }

  assignment(node, scope) {
    const left = field(node, "left");
    let value = this.expr(field(node, "right"), scope);
    if (node.type !== "assignment_expression") return UNKNOWN;
    const path = left.text.replace(/\s+/g, "");
    // `if gpu { model = model.to_device(&d) }`: the moved value outlives the branch that made it.
    const branch = this.branches[this.branches.length - 1];
    if (branch && (value.moved || value.plain)) value = withAssumed(value, { key: "branch", line: branch });
    if (left.type === "field_expression") this.assignField(left, value, node, scope);
    if (left.type === "identifier" || left.type === "field_expression") scope.assign(path, value);
    return UNKNOWN;
  }

  /** `self.model = ..` in an impl, or `trainer.model = ..` anywhere: the value is stored in that
   *  type's field. When the holder's type is not written where it was made, every struct whose field
   *  of that name is trained is a candidate, and the finding says which it assumed. */
  assignField(left, value, node, scope) {
    const base = field(left, "value");
    const name = field(left, "field")?.text;
    if (base?.type === "self") {
      if (this.fn?.impl) this.store(`${this.fn.impl}.${name}`, value, node);
      return;
    }
    if (base?.type !== "identifier" || !isModel(value)) return;
    const type = scope.lookup(base.text)?.value?.type;
    if (type) {
      this.store(`${type}.${name}`, value, node);
      return;
    }
    for (const key of this.world.fieldTrains.keys()) {
      const [owner, held] = key.split(".");
      if (held !== name) continue;
      this.store(key, withAssumed(value, { key: "field-type", holder: base.text, type: owner, field: name }), node);
    }
  }

  /** The names an `if let` / `while let` binds go in `inner`, the scope of the block they guard. */
  condition(node, scope, inner) {
    if (node?.type === "let_condition") {
      const value = this.expr(field(node, "value"), scope, false);
      this.bindPattern(field(node, "pattern"), inner, value);
      return value;
    }
    if (node?.type === "let_chain") {
      for (const part of node.namedChildren) this.condition(part, inner, inner);
      return UNKNOWN;
    }
    return this.expr(node, scope);
  }

  ifExpression(node, scope) {
    const inner = new Scope(scope);
    this.condition(field(node, "condition"), scope, inner);
    const consequence = field(node, "consequence");
    const then = this.branch(consequence, () => this.expr(consequence, inner));
    const alternative = field(node, "alternative");
    if (!alternative) return derived(then);
    const otherwise = this.branch(alternative, () => this.expr(alternative.namedChildren[0], scope));
    return this.merge([then, otherwise], [consequence, alternative.namedChildren[0]]);
  }

  matchExpression(node, scope) {
    const matched = this.expr(field(node, "value"), scope, false);
    const values = [];
    const arms = [];
    for (const arm of field(node, "body")?.namedChildren ?? []) {
      if (arm.type !== "match_arm") continue;
      const inner = new Scope(scope);
      this.bindPattern(field(arm, "pattern"), inner, matched);
      values.push(this.branch(arm, () => this.expr(field(arm, "value"), inner)));
      arms.push(field(arm, "value") ?? arm);
    }
    return this.merge(values, arms);
  }

  /** Reads one branch of an `if` or a `match`, which may not run: what it assigns says so. */
  branch(node, read) {
    this.branches.push(at(node).line);
    try {
      return read();
    } finally {
      this.branches.pop();
    }
  }

  /** The value of an `if` or a `match`: the code takes one branch, the checker does not know which.
   *  A branch that moves (or leaves a model plain) decides, and its finding assumes that branch runs. */
  merge(values, nodes) {
    const risky = values.findIndex((v) => v.moved && !v.lazy && !v.frozen);
    const index = risky >= 0 ? risky : values.findIndex((v) => v.plain && !v.frozen);
    if (index < 0) {
      if (values.length && values.every((v) => v === values[0])) return values[0];
      // Built right here in every branch and not read yet: still lazy, wherever each branch builds it.
      if (values.length && values.every((v) => v.lazy)) {
        const same = (key) => (values.every((v) => v[key] === values[0][key]) ? values[0][key] : undefined);
        return { lazy: true, builtOn: same("builtOn"), builtKind: same("builtKind"), ...derived(...values) };
      }
      return derived(...values);
    }
    const chosen = values[index];
    if (values.every((v) => v === chosen)) return chosen;
    return { ...withAssumed(chosen, { key: "branch", line: at(nodes[index]).line }), ...derived(...values) };
  }

  loop(node, scope) {
    const inner = new Scope(scope);
    if (node.type === "for_expression") {
      // `for member in ensemble`: an item of a collection of models is one of them.
      const items = this.expr(field(node, "value"), scope, false);
      this.bindPattern(field(node, "pattern"), inner, isModel(items) ? items : UNKNOWN);
    }
    const body = field(node, "body");
    // Twice: what the end of one pass assigns (`model = optim.step(..)`) is what the next pass reads.
    for (let pass = 0; pass < 2; pass++) {
      const each = new Scope(inner);
      if (node.type === "while_expression") this.condition(field(node, "condition"), inner, each);
      this.block(body, each);
    }
    if (this.reporting && !this.checks && trainsInside(body)) {
      this.report("no-step-0-check", node, {}, [], { priority: 0 });
    }
    return UNKNOWN;
  }

  /** A closure is read where it is written (what it captures may train) and again where it is called,
   *  with its parameters bound to the arguments. */
  closure(node, scope) {
    const made = { node, scope };
    this.callClosure(made, []);
    return { closure: made };
  }

  callClosure(closure, values) {
    if (this.depth > 8) return UNKNOWN;
    const inner = new Scope(closure.scope);
    (field(closure.node, "parameters")?.namedChildren ?? []).forEach((param, index) => {
      this.bindPattern(param.type === "parameter" ? field(param, "pattern") : param, inner, values[index] ?? UNKNOWN);
    });
    this.depth += 1;
    try {
      return this.expr(field(closure.node, "body"), inner);
    } finally {
      this.depth -= 1;
    }
  }

  structExpression(node, scope) {
    let type = field(node, "name")?.text ?? "";
    type = type.replace(/<.*$/, "").split("::").pop();
    if (type === "Self") type = this.fn?.impl ?? type;
    const fields = new Map();
    for (const item of field(node, "body")?.namedChildren ?? []) {
      let name = null;
      let valueNode = null;
      if (item.type === "field_initializer") {
        name = field(item, "field").text;
        valueNode = field(item, "value");
      } else if (item.type === "shorthand_field_initializer") {
        name = item.text;
        valueNode = item.namedChildren[0];
      } else {
        this.expr(item, scope);
        continue;
      }
      const value = this.expr(valueNode, scope, false);
      const device = this.deviceValue(valueNode, scope, name);
      if (device && device.kind !== "unknown") this.world.fieldDevices.set(`${type}.${name}`, device);
      fields.set(name, { value: device ? { ...value, device } : value, node: item });
      this.store(`${type}.${name}`, value, item);
    }
    return { type, fields };
  }

  /** A value put in a struct field: training the field elsewhere in the crate trains it. */
  store(key, value, node) {
    const trained = this.world.fieldTrains.get(key);
    if (trained) this.trains(value, { kind: "field", field: key, ...this.here(node), inner: trained });
  }

  macro(node, scope) {
    // A macro's arguments are tokens, not expressions: any name in them counts as read, and so does a
    // `{name}` in a format string (`println!("{model}")`).
    const formats = FORMATS.test(field(node, "macro")?.text.split("::").pop() ?? "");
    const walk = (n) => {
      if (n.type === "identifier") this.name(n.text, scope, true);
      if (formats && (n.type === "string_literal" || n.type === "raw_string_literal")) {
        for (const [, name] of n.text.matchAll(/\{\{|\{([A-Za-z_][A-Za-z0-9_]*)\s*(?=[:}])/g)) {
          if (name) this.name(name, scope, true);
        }
      }
      for (const child of n.namedChildren) walk(child);
    };
    walk(node);
    return UNKNOWN;
  }

  // --- calls

  call(node, scope) {
    const method = methodCall(node);
    if (method) return this.method(node, method, scope);
    const plain = plainCall(node);
    const args = argList(node);
    if (!plain) {
      const values = args.map((arg) => this.expr(arg, scope));
      return derived(this.expr(field(node, "function"), scope), ...values);
    }
    const callee = plain.path ? null : scope.lookup(plain.name)?.value?.closure;
    if (callee) return this.callClosure(callee, args.map((arg) => this.expr(arg, scope, false)));
    if (WRAPPERS.has(plain.path ? `${plain.path.split("::").pop()}::${plain.name}` : plain.name) && args.length === 1) {
      return this.expr(args[0], scope, false);
    }
    const type = plain.path.split("::").pop();
    const found = this.world.calls(plain, this);
    // `Module::to_device(model, &device)`: a method called by its path is that method.
    if (!found.length && plain.path && type !== "Tensor" && args.length
        && ["to_device", "fork", "valid", "train", "no_grad"].includes(plain.name)) {
      return this.method(node, { receiver: args[0], name: plain.name, nameNode: plain.nameNode,
                                 args: args.slice(1) }, scope);
    }
    const values = args.map((arg) => this.expr(arg, scope));
    if (plain.name === "from_grads" && values.length >= 2) {
      this.trains(values[1], { kind: "from_grads", ...this.here(node) });
      return UNKNOWN;
    }
    if (type === "Learner" && plain.name === "new" && values.length) {
      this.trains(values[0], { kind: "learner", ...this.here(node) });
      return UNKNOWN;
    }
    if (type === "Tensor") return plain.name === "from_inner" ? UNKNOWN : derived(...values);
    if (found.length) return this.through(found, values, node, plain.name, args, scope);
    // A constructor (`Model::new(&device)`, `Config::init(&device)`) or a helper given a device.
    const device = args.findIndex((arg) => looksLikeDevice(arg, scope));
    if (device >= 0) {
      const on = deviceOf(args[device], scope);
      const constructor = /^[A-Z]/.test(type) && (plain.name === "new" || plain.name.startsWith("init"));
      return this.built(node, on, constructor, constructor ? [] : ["helper-reads"]);
    }
    return derived(...values);
  }

  /** A model made on a device: lazy when made by a constructor, else assumed read. */
  built(node, on, lazy, assumed) {
    const value = { builtOn: on?.key, builtKind: on?.kind, lazy, assumed };
    if (on?.kind === "plain") value.plain = { origin: node, last: null, how: "device", device: on.text };
    return value;
  }

  /** A call to functions of this crate (`found`), through their summaries: what they train, fork,
   *  build, return. When several functions could be the one called and they do not agree, each effect
   *  names the one it came from (`callee`). */
  through(found, values, node, name, args, scope, receiver) {
    let result = UNKNOWN;
    const feeds = [];
    const given = (index) => (index === -1 ? receiver ?? UNKNOWN : values[index] ?? UNKNOWN);
    const indices = [...(receiver ? [-1] : []), ...values.keys()];
    const callee = (fn, has) => (found.length > 1 && !found.every(has)
      ? [{ key: "callee", function: name, count: found.length, ...this.place(fn.node) }] : []);
    for (const fn of found) {
      const { builds, moves } = fn.summary;
      if (builds && args[builds.param]) {
        const on = deviceOf(args[builds.param], scope);
        result = this.built(node, on, builds.lazy, builds.lazy || builds.read ? [] : ["helper-reads"]);
        if (builds.read) result = { ...result, read: true };
      }
      if (moves) {
        const target = moves.target !== null && args[moves.target] ? deviceOf(args[moves.target], scope) : null;
        const via = { function: name, ...this.here(node) };
        const moved = moves.param === undefined
          ? { ...moves.value, moved: { ...moves.value.moved, via }, builtOn: target?.key ?? moves.value.builtOn }
          : this.relocate({ ...moves.value.moved, via }, target, given(moves.param));
        result = withAssumed(moved, ...callee(fn, (other) => Boolean(other.summary.moves)));
      }
      for (const index of indices) {
        const value = given(index);
        const param = index === -1 ? "self" : fn.params[index];
        const trained = fn.summary.trains.get(index);
        if (trained) {
          this.trains(withAssumed(value, ...callee(fn, (other) => other.summary.trains.has(index))),
                      { kind: "call", function: name, ...this.here(node), param, inner: trained });
        }
        const forked = fn.summary.forks.get(index);
        if (forked) {
          this.forked(withAssumed(value, ...callee(fn, (other) => other.summary.forks.has(index))), node,
                      { function: name, inner: forked });
        }
        if (fn.summary.returns.has(index)) feeds.push(...(value.feeds ?? []), { model: value, site: at(node) });
      }
    }
    if (feeds.length) result = { ...result, feeds };
    const own = found.find((fn) => fn.returnsSelf && fn.impl);
    if (own && !receiver) result = { ...result, type: own.impl };
    return result;
  }

  /** A node's place, with its file's path when that is not the file being read. */
  place(node) {
    const path = pathOf(node);
    return { ...at(node), ...(path !== this.file.path ? { path } : {}) };
  }

  method(node, call, scope) {
    const { name } = call;
    const keeps = ["to_device", "fork", "valid", "train", "no_grad"].includes(name) || PASSES.has(name)
      || LOADS.has(name) || TAKES_CLOSURE.has(name);
    const receiver = this.expr(call.receiver, scope, !keeps);
    if (TAKES_CLOSURE.has(name)) {
      const handed = this.withClosure(node, call, receiver, scope);
      if (handed) return handed;
    }
    const values = call.args.map((arg) => this.expr(arg, scope));
    switch (name) {
      case "to_device":
        return this.toDevice(node, call, receiver, scope);
      case "fork":
        return this.fork(node, call, receiver, scope);
      case "valid":
        return { plain: { origin: call.nameNode, last: null, how: "valid" }, builtOn: receiver.builtOn,
                 builtKind: "plain" };
      case "no_grad":
        // Module::no_grad freezes every parameter (partial fine-tuning; Tensor::no_grad cuts a tensor).
        return { frozen: true, builtOn: receiver.builtOn, builtKind: receiver.builtKind };
      case "train":
        return this.train(call, receiver);
      case "init": {
        const device = call.args.length ? deviceOf(call.args[0], scope) : null;
        if (device || call.args.length === 0) return this.built(node, device, true, []);
        break;
      }
      case "step":
        if (values.length === 3) {
          this.trains(values[1], { kind: "step", ...this.here(node) });
          return values[1];
        }
        break;
      case "build":
        if (/LearnerBuilder/.test(call.receiver.text) && values.length) {
          this.trains(values[0], { kind: "learner", ...this.here(node) });
          return UNKNOWN;
        }
        break;
      case "backward":
        for (const feed of receiver.feeds ?? []) {
          this.trains(feed.model, { kind: "backward", forward: feed.site, ...this.here(node) });
        }
        return UNKNOWN;
      default:
        break;
    }
    if (LOADS.has(name)) return { ...receiver, lazy: false, loaded: true };
    if (PASSES.has(name)) return name === "unwrap_or" && values.length ? this.merge([receiver, values[0]], [node, node])
      : receiver;
    if (CUTS.has(name)) return UNKNOWN;
    if (name.startsWith("forward")) {
      const feeds = derived(...values).feeds ?? [];
      return { feeds: receiver.frozen ? feeds : [...feeds, { model: receiver, site: at(node) }] };
    }
    const found = this.world.methods(name, call.receiver, receiver, this);
    if (found.length) return this.through(found, values, node, name, call.args, scope, receiver);
    return derived(receiver, ...values);
  }

  /** `opt.map(|m| m.to_device(&d))`, `iter.fold(init, |acc, x| ..)`, `opt.unwrap_or_else(|| ..)`: the
   *  closure gets the value (an Option's or an iterator's item is the model itself here). Null when no
   *  argument is a closure this checker can call. */
  withClosure(node, call, receiver, scope) {
    const { name, args } = call;
    const slot = name === "fold" || name === "map_or" || name === "map_or_else" ? 1 : 0;
    const closure = this.callable(args[slot], scope);
    if (!closure) return null;
    const others = args.filter((_, index) => index !== slot).map((arg) => this.expr(arg, scope, false));
    if (name === "fold") {
      let acc = others[0] ?? UNKNOWN;
      for (let pass = 0; pass < 2; pass++) acc = this.invoke(closure, [acc, receiver], node, scope);
      return acc;
    }
    if (name === "unwrap_or_else" || name === "or_else") {
      return this.merge([receiver, this.invoke(closure, [], node, scope)], [call.receiver, args[slot]]);
    }
    const result = this.invoke(closure, [receiver], node, scope);
    if (name === "inspect" || name === "filter") return receiver;
    if (name === "for_each") return UNKNOWN;
    return name === "map_or" || name === "map_or_else" ? this.merge([others[0] ?? UNKNOWN, result], [node, node])
      : result;
  }

  /** What an argument calls: a closure written there or bound by `let`, or a function of this crate. */
  callable(node, scope) {
    node = bare(node);
    if (!node) return null;
    if (node.type === "closure_expression") return { closure: { node, scope } };
    if (node.type === "identifier") {
      const bound = scope.lookup(node.text)?.value?.closure;
      if (bound) return { closure: bound };
    }
    if (node.type === "identifier" || node.type === "scoped_identifier") {
      const plain = node.type === "identifier" ? { path: "", name: node.text }
        : { path: field(node, "path")?.text ?? "", name: field(node, "name").text };
      const found = this.world.calls(plain, this);
      if (found.length) return { functions: found, name: plain.name };
    }
    return null;
  }

  invoke(callable, values, node, scope) {
    if (callable.closure) return this.callClosure(callable.closure, values);
    return this.through(callable.functions, values, node, callable.name, [], scope);
  }

  /** `.train()`: a plain model becomes autodiff leaves. A model moved from an autodiff device is not
   *  plain: `.train()` panics on it ("Autodiff should not wrap an autodiff tensor.", chapter 10). */
  train(call, receiver) {
    if (receiver.frozen) return receiver;
    if (receiver.moved && !receiver.lazy && receiver.moved.fromKind === "autodiff") {
      this.trains(receiver, { kind: "train", ...this.here(call.nameNode) });
      return receiver;
    }
    const { plain, moved, ...rest } = receiver;
    return { ...rest, param: undefined, field: undefined, builtKind: isModel(receiver) ? "autodiff" : undefined };
  }

  toDevice(node, call, receiver, scope) {
    const target = call.args.length ? deviceOf(call.args[0], scope) : null;
    const site = { node: call.nameNode, receiver: call.receiver.text, device: call.args[0]?.text ?? "",
                   param: receiver.param };
    return this.relocate(site, target, receiver);
  }

  /** A model moved to `target` by the `to_device` at `site` (here, or in a helper that returns it). */
  relocate(site, target, receiver) {
    const { node, receiver: text, device, via } = site;
    const feeds = receiver.feeds ? { feeds: receiver.feeds } : {};
    if (receiver.frozen) return { frozen: true, builtOn: target?.key, builtKind: target?.kind };
    if (receiver.plain) {
      return { ...receiver, plain: { ...receiver.plain, last: node, lastKind: "to_device" }, builtOn: target?.key };
    }
    if (receiver.lazy) return { lazy: true, builtOn: target?.key, builtKind: target?.kind, assumed: receiver.assumed };
    const assumed = [...(receiver.assumed ?? [])];
    if (!receiver.loaded && !receiver.read && !assumed.includes("helper-reads")) assumed.push("initialized");
    if (receiver.builtKind !== "autodiff") assumed.push("autodiff");
    const same = Boolean(target && receiver.builtOn && target.key === receiver.builtOn);
    return { moved: { node, receiver: text, device, same, fromKind: receiver.builtKind, param: receiver.param, via },
             builtOn: target?.key, builtKind: target?.kind, assumed, ...feeds };
  }

  fork(node, call, receiver, scope) {
    const target = call.args.length ? deviceOf(call.args[0], scope) : null;
    if (receiver.frozen) return { frozen: true, builtOn: target?.key, builtKind: target?.kind };
    if (receiver.plain) {
      return { ...receiver, plain: { ...receiver.plain, last: call.nameNode, lastKind: "fork" },
               builtOn: target?.key };
    }
    this.forked(receiver, call.nameNode, null);
    return { builtOn: target?.key, builtKind: target?.kind, lazy: receiver.lazy, read: receiver.read,
             loaded: receiver.loaded };
  }

  forked(value, node, via) {
    if (!this.reporting && value.param !== undefined && !value.moved) {
      if (!this.fn.summary.forks.has(value.param)) this.fn.summary.forks.set(value.param, at(node));
    }
    if (this.reporting && value.moved && !value.lazy && !value.frozen) {
      this.report("fork-after-to_device", node, { moved: this.place(value.moved.node), receiver: value.moved.receiver,
                                                  via }, value.assumed, { priority: 0 });
    }
  }

  // --- training

  trains(value, how, depth = 0) {
    if (!value || value === UNKNOWN || value.frozen) return;
    if (!this.reporting) {
      if (value.param !== undefined && !value.moved && !value.plain && this.fn) {
        const known = this.fn.summary.trains.get(value.param);
        if (!known || PRIORITY[how.kind] < PRIORITY[known.kind]) this.fn.summary.trains.set(value.param, how);
      }
      if (value.field && !value.moved && !value.plain) {
        const known = this.world.fieldTrains.get(value.field);
        if (!known || PRIORITY[how.kind] < PRIORITY[known.kind]) this.world.fieldTrains.set(value.field, how);
      }
      return;
    }
    if (value.fields && depth < 4) {
      // A struct that trains trains its fields: a moved model kept in one is trained with it.
      for (const [name, { value: held, node }] of value.fields) {
        this.trains(held, { kind: "field", field: `${value.type}.${name}`, ...this.here(node), inner: how }, depth + 1);
      }
    }
    if (value.plain) {
      const node = value.plain.last ?? value.plain.origin;
      this.report("plain-without-train", node, { how, origin: value.plain.how, device: value.plain.device ?? "",
                                                 originAt: this.place(value.plain.origin),
                                                 lastKind: value.plain.lastKind },
                  value.assumed ?? [], { priority: PRIORITY[how.kind] });
    } else if (value.moved && !value.lazy) {
      const rule = value.moved.same ? "same-device-move" : "moved-then-trained";
      const { via } = value.moved;
      this.report(rule, value.moved.node, { how: via ? { kind: "returned", ...via, inner: how } : how,
                                            train: how.kind === "train", receiver: value.moved.receiver,
                                            device: value.moved.device },
                  value.assumed ?? [], { priority: PRIORITY[how.kind] });
    }
  }

  report(rule, node, values, assumed, { priority }) {
    const where = at(node);
    const unique = new Map(assumed.map((item) => [JSON.stringify(item), item]));
    this.world.report(pathOf(node), `${rule}@${where.line}:${where.column}`, {
      rule, number: RULES[rule].number, severity: RULES[rule].severity, ...where, ...end(node),
      values, assumed: [...unique.values()], priority,
    });
  }
}

/** Is this the innermost loop whose body trains (a backward pass, and an optimizer step or
 *  `from_grads`)? An epoch loop around a batch loop is not reported again. */
function trainsInside(body) {
  const trains = (node) => {
    const text = node.text;
    return /\.backward\s*\(/.test(text) && (/from_grads\s*\(/.test(text) || /\.step\s*\(/.test(text));
  };
  if (!trains(body)) return false;
  const nested = (node) => node.namedChildren.some((child) => (LOOPS.has(child.type) && trains(child)) || nested(child));
  return !nested(body);
}

/** Marks each function that does a step-0 check (`fn.checks`): itself (`check_step(&grads, n)` asserts
 *  on a `GradientsParams` it is given), or by calling a function that does. One walk of each body. */
function markStepChecks(functions) {
  const walked = functions.map((fn) => {
    const given = (field(fn.node, "parameters")?.namedChildren ?? [])
      .filter((param) => param.type === "parameter" && /GradientsParams|grad/i.test(param.text))
      .flatMap((param) => patternNames(field(param, "pattern")));
    const body = field(fn.node, "body");
    return { fn, ...(body ? stepCheck(body, given) : { checks: false, calls: new Set() }) };
  });
  const checkers = new Set(walked.filter((w) => w.checks).map((w) => w.fn.name));
  for (let grown = true; grown;) {
    grown = false;
    for (const w of walked) {
      if (!checkers.has(w.fn.name) && [...w.calls].some((name) => checkers.has(name))) {
        checkers.add(w.fn.name);
        grown = true;
      }
    }
  }
  for (const w of walked) w.fn.checks = w.checks || [...w.calls].some((name) => checkers.has(name));
  return checkers;
}

/** Does the code compare a `GradientsParams::len()`, test `is_empty()` or assert an
 *  `is_require_grad()`? {checks, calls: the names of the functions it calls}. */
function stepCheck(body, given = []) {
  let checks = false;
  const calls = new Set();
  const grads = new Set(given);
  const walk = (node) => {
    if (node.type === "let_declaration" && /from_grads\s*\(/.test(field(node, "value")?.text ?? "")) {
      for (const name of patternNames(field(node, "pattern"))) grads.add(name);
    }
    if (node.type === "macro_invocation") {
      const name = field(node, "macro")?.text.split("::").pop() ?? "";
      if (ASSERTS.test(name) && mentionsCheck(node.text, grads)) checks = true;
    }
    if (node.type === "binary_expression" && /^(==|!=|<|>|<=|>=)$/.test(field(node, "operator")?.text ?? "")
        && mentionsCheck(node.text, grads)) {
      checks = true;
    }
    if (node.type === "if_expression" && mentionsCheck(field(node, "condition")?.text ?? "", grads)) checks = true;
    if (node.type === "call_expression") {
      const called = methodCall(node)?.name ?? plainCall(node)?.name;
      if (called) calls.add(called);
    }
    for (const child of node.namedChildren) walk(child);
  };
  walk(body);
  return { checks, calls };
}

function mentionsCheck(text, grads) {
  if (/is_require_grad\s*\(/.test(text)) return true;
  return [...grads].some((name) => new RegExp(`\\b${name}\\s*\\.\\s*(len|is_empty)\\s*\\(`).test(text));
}
