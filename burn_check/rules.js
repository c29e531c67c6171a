// The checker's one rule set: what it finds in Burn training code, read from tree-sitter's syntax
// tree. The page (page.js, in the browser) and the command (cli.mjs, under node) both call
// `checkSources` with a parser made from the same web-tree-sitter and the same Rust grammar file,
// so the two cannot find different things. It imports nothing: the caller brings the parser.
//
// It reads syntax, not types: which value is a module, which device is autodiff, whether a model's
// parameters were read before a move are guesses from how the code is written, and every finding
// names the guesses it rests on (`assumed`). The flow pass below follows values through bindings,
// reassignments, struct fields, closures and calls within the files it is given; it knows nothing
// of other crates.

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

const PRIORITY = { step: 0, from_grads: 1, learner: 2, call: 3, field: 4, backward: 5 };
const KEEPS_MODULE = new Set(["clone", "no_grad", "load_record", "try_load_record", "load_file", "unwrap",
                              "expect", "into", "to_owned"]);
const LOADS = new Set(["load_record", "try_load_record", "load_file"]);
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
    if (file.root) {
      try {
        file.findings = world.check(file);
      } catch (error) {
        // A bug of this checker, not of the reader's code: say so for this file and go on with the next.
        file.notices.push({ kind: "internal", message: String(error?.message ?? error) });
      }
    }
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
      found.push({ line: node.startPosition.row + 1, column: node.startPosition.column + 1,
                   missing: node.isMissing ? node.type : undefined });
      return;
    }
    if (node.hasError) for (const child of node.children) walk(child);
  };
  walk(root);
  return found.length ? found : [{ line: 1, column: 1 }];
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

function at(node) {
  return { line: node.startPosition.row + 1, column: node.startPosition.column + 1 };
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

/** `path::name(args)` or `name(args)`: {path, name, args} for a plain call, else null. */
function plainCall(node) {
  if (node?.type !== "call_expression") return null;
  let fn = field(node, "function");
  if (fn?.type === "generic_function") fn = field(fn, "function");
  if (fn?.type === "identifier") return { path: "", name: fn.text, args: argList(node) };
  if (fn?.type === "scoped_identifier") {
    return { path: field(fn, "path")?.text ?? "", name: field(fn, "name").text, args: argList(node) };
  }
  return null;
}

function argList(call) {
  const args = field(call, "arguments");
  return args ? args.namedChildren.filter((n) => n.type !== "line_comment" && n.type !== "block_comment") : [];
}

function patternNames(pattern) {
  if (!pattern) return [];
  if (pattern.type === "identifier") return [pattern.text];
  if (pattern.type === "mut_pattern" || pattern.type === "ref_pattern") return patternNames(pattern.namedChildren[0]);
  return [];
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

/** A device expression: {key, kind} (kind "autodiff", "plain" or "unknown"), from its text. */
function deviceOf(node, scope) {
  node = bare(node);
  if (!node) return null;
  const call = methodCall(node);
  if (call && call.name === "clone") return deviceOf(call.receiver, scope);
  if (call && call.name === "autodiff") return { key: node.text, kind: "autodiff", text: node.text };
  if (call && call.name === "inner") return { key: node.text, kind: "plain", text: node.text };
  const plain = plainCall(node);
  if (plain && plain.path.split("::").pop() === "Device") return { key: node.text, kind: "plain", text: node.text };
  if (node.type === "identifier" || node.type === "field_expression" || node.type === "self") {
    const binding = scope.lookup(node.text);
    if (binding?.value?.device) return { ...binding.value.device, text: node.text };
    return { key: `${node.text}#${binding ? binding.id : "free"}`, kind: "unknown", text: node.text };
  }
  return null;
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

// ----- values -----------------------------------------------------------------------------------------
// A value is a plain object; nothing here mutates one after it is made.
//   moved:   the to_device call that made it (a module's parameters as that op's outputs)
//   plain:   {origin: node, last: node, how: "valid"|"device"}: not autodiff, needs .train()
//   lazy:    built right here and not read yet: a move only changes where it will be built
//   builtOn: the device key it was built on or last moved to (rule 2)
//   param / field: what it is in a summary (a function's parameter, `Type.field`)
//   feeds:   [{model, site}]: the models whose forward pass this tensor comes from
//   assumed: the guesses behind its state

const UNKNOWN = Object.freeze({});

function derived(...values) {
  const feeds = [];
  for (const value of values) {
    for (const feed of value?.feeds ?? []) if (!feeds.includes(feed)) feeds.push(feed);
  }
  return feeds.length ? { feeds } : UNKNOWN;
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
    for (const file of files) this.collect(file);
  }

  collect(file) {
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
        const fn = { node, file, name: field(node, "name").text, params, devices, method, impl: implType(node),
                     summary: { trains: new Map(), forks: new Map(), returns: new Set(), builds: null } };
        this.functions.push(fn);
        if (!this.byName.has(fn.name)) this.byName.set(fn.name, []);
        this.byName.get(fn.name).push(fn);
      }
      for (const child of node.namedChildren) walk(child);
    };
    walk(file.root);
  }

  /** Functions a call may reach: same name, and same impl type (`impl` null: a free function); those of
   *  the caller's file first. */
  candidates(name, method, file, impl) {
    const all = (this.byName.get(name) ?? []).filter((fn) => fn.method === method && fn.impl === impl);
    const local = all.filter((fn) => fn.file === file);
    return local.length ? local : all;
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
                                       ...fn.summary.returns].join(",")).join(";")
      + [...this.fieldTrains.keys()].join(",");
  }

  check(file) {
    const findings = new Map();
    for (const fn of this.functions.filter((f) => f.file === file)) {
      new Frame(this, file, fn, true, findings).run();
    }
    new Frame(this, file, null, true, findings).run();
    return [...findings.values()].map(({ priority, ...finding }) => finding);
  }
}

// ----- one function, interpreted in order ------------------------------------------------------------

class Frame {
  constructor(world, file, fn, reporting, findings) {
    this.world = world;
    this.file = file;
    this.fn = fn;
    this.reporting = reporting;
    this.findings = findings;
    this.world = world;
    this.top = new Scope(null, this);
    this.grads = new Set();
    this.checks = false;
  }

  run() {
    if (this.fn) {
      this.fn.params.forEach((name, index) => {
        if (!name) return;
        if (this.fn.devices.has(index)) this.top.bind(name, { device: { key: `param:${index}`, kind: "unknown" } });
        else this.top.bind(name, this.reporting ? UNKNOWN : { param: index });
      });
      const body = field(this.fn.node, "body");
      if (!body) return;
      this.checks = hasStepCheck(body);
      const result = this.block(body, this.top);
      this.returned(result);
    } else {
      // Statements outside any function (a pasted fragment): the file's top level is their body.
      this.checks = hasStepCheck(this.file.root);
      this.statements(this.file.root.namedChildren, this.top);
    }
  }

  /** What a function hands back, for its summary: the models whose forward pass it returns, and a
   *  model it built on a device it was given (`initialized(device)`). */
  returned(value) {
    if (this.reporting || !this.fn) return;
    for (const feed of value?.feeds ?? []) {
      if (feed.model.param !== undefined) this.fn.summary.returns.add(feed.model.param);
    }
    const on = /^param:(\d+)$/.exec(value?.builtOn ?? "");
    if (on && !value.moved && !value.plain) {
      this.fn.summary.builds = { param: Number(on[1]), lazy: Boolean(value.lazy), read: Boolean(value.read) };
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
    const children = node.namedChildren;
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
      for (const name of names) scope.bind(name, UNKNOWN);
      this.bindPattern(field(node, "pattern"), scope);
    }
  }

  bindPattern(pattern, scope) {
    if (!pattern) return;
    for (const child of pattern.namedChildren) {
      if (child.type === "identifier") scope.bind(child.text, UNKNOWN);
      else this.bindPattern(child, scope);
    }
  }

  /** A `let` of a device: remembered with a key of its own, so that a later binding of the same name
   *  (`let device = device.autodiff()`) is another device. */
  deviceValue(valueNode, scope, name) {
    const node = bare(valueNode);
    const found = deviceOf(node, scope);
    if (!found) return null;
    const binding = node.type === "identifier" ? scope.lookup(node.text) : null;
    if (found.kind === "unknown" && !binding?.value?.device && !DEVICE_NAME.test(name)) return null;
    if (binding?.value?.device) return binding.value.device;
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
      case "let_condition":
      case "let_chain":
        return this.expr(field(node, "value") ?? node.namedChildren[node.namedChildren.length - 1], scope);
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
    if (base?.type === "self" && this.fn?.impl) {
      return { field: `${this.fn.impl}.${field(node, "field").text}` };
    }
    // `model.weight` reads the model (a lazy parameter is built when read): the field is not the model.
    this.expr(base, scope, true);
    return UNKNOWN;
  }

  assignment(node, scope) {
    const left = field(node, "left");
    const value = this.expr(field(node, "right"), scope);
    if (node.type !== "assignment_expression") return UNKNOWN;
    const path = left.text.replace(/\s+/g, "");
    if (left.type === "field_expression" && field(left, "value")?.type === "self" && this.fn?.impl) {
      this.store(`${this.fn.impl}.${field(left, "field").text}`, value, node);
    }
    if (left.type === "identifier" || left.type === "field_expression") scope.assign(path, value);
    return UNKNOWN;
  }

  ifExpression(node, scope) {
    this.expr(field(node, "condition"), scope);
    const then = this.expr(field(node, "consequence"), scope);
    const alternative = field(node, "alternative");
    const otherwise = alternative ? this.expr(alternative.namedChildren[0], scope) : UNKNOWN;
    return derived(then, otherwise);
  }

  matchExpression(node, scope) {
    this.expr(field(node, "value"), scope);
    const values = [];
    for (const arm of field(node, "body")?.namedChildren ?? []) {
      if (arm.type !== "match_arm") continue;
      const inner = new Scope(scope);
      this.bindPattern(field(arm, "pattern"), inner);
      values.push(this.expr(field(arm, "value"), inner));
    }
    return derived(...values);
  }

  loop(node, scope) {
    const inner = new Scope(scope);
    if (node.type === "for_expression") {
      this.expr(field(node, "value"), scope);
      for (const name of patternNames(field(node, "pattern"))) inner.bind(name, UNKNOWN);
      this.bindPattern(field(node, "pattern"), inner);
    }
    if (node.type === "while_expression") this.expr(field(node, "condition"), inner);
    const body = field(node, "body");
    // Twice: what the end of one pass assigns (`model = optim.step(..)`) is what the next pass reads.
    this.block(body, inner);
    this.block(body, inner);
    if (this.reporting && !this.checks && trainsInside(body)) {
      this.report("no-step-0-check", node, {}, [], { priority: 0 });
    }
    return UNKNOWN;
  }

  closure(node, scope) {
    const inner = new Scope(scope);
    for (const param of field(node, "parameters")?.namedChildren ?? []) {
      const names = param.type === "identifier" ? [param.text] : patternNames(field(param, "pattern") ?? param);
      for (const name of names) inner.bind(name, UNKNOWN);
    }
    this.expr(field(node, "body"), inner);
    return UNKNOWN;
  }

  structExpression(node, scope) {
    let type = field(node, "name")?.text ?? "";
    type = type.replace(/<.*$/, "").split("::").pop();
    if (type === "Self") type = this.fn?.impl ?? type;
    for (const item of field(node, "body")?.namedChildren ?? []) {
      if (item.type === "field_initializer") {
        const value = this.expr(field(item, "value"), scope);
        this.store(`${type}.${field(item, "field").text}`, value, item);
      } else if (item.type === "shorthand_field_initializer") {
        const value = this.expr(item.namedChildren[0], scope);
        this.store(`${type}.${item.text}`, value, item);
      } else {
        this.expr(item, scope);
      }
    }
    return UNKNOWN;
  }

  /** A value put in a struct field: training the field elsewhere in the crate trains it. */
  store(key, value, node) {
    const trained = this.world.fieldTrains.get(key);
    if (trained) this.trains(value, { kind: "field", field: key, ...this.here(node), inner: trained });
  }

  macro(node, scope) {
    // A macro's arguments are tokens, not expressions: any name in them counts as read.
    const walk = (n) => {
      if (n.type === "identifier") this.name(n.text, scope, true);
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
    const values = args.map((arg) => this.expr(arg, scope));
    const type = plain.path.split("::").pop();
    if (plain.name === "from_grads" && values.length >= 2) {
      this.trains(values[1], { kind: "from_grads", ...this.here(node) });
      return UNKNOWN;
    }
    if (type === "Learner" && plain.name === "new" && values.length) {
      this.trains(values[0], { kind: "learner", ...this.here(node) });
      return UNKNOWN;
    }
    // `f(..)` and `module::f(..)` reach free functions, `Type::f(..)` and `Self::f(..)` that type's.
    const owner = plain.path === "Self" ? this.fn?.impl ?? null : /^[A-Z]/.test(type) ? type : null;
    if (type === "Tensor") return derived(...values);
    const found = this.world.candidates(plain.name, false, this.file, owner);
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
    const value = { builtOn: on?.key, lazy, assumed };
    if (on?.kind === "plain") value.plain = { origin: node, last: null, how: "device", device: on.text };
    return value;
  }

  through(found, values, node, name, args, scope) {
    let result = UNKNOWN;
    const feeds = [];
    for (const fn of found) {
      const builds = fn.summary.builds;
      if (builds && args[builds.param]) {
        const on = deviceOf(args[builds.param], scope);
        result = this.built(node, on, builds.lazy, builds.lazy || builds.read ? [] : ["helper-reads"]);
        if (builds.read) result = { ...result, read: true };
      }
      values.forEach((value, index) => {
        const trained = fn.summary.trains.get(index);
        if (trained) {
          this.trains(value, { kind: "call", function: name, ...this.here(node), param: fn.params[index],
                               inner: trained });
        }
        const forked = fn.summary.forks.get(index);
        if (forked) this.forked(value, node, { function: name, inner: forked });
        if (fn.summary.returns.has(index)) feeds.push(...(value.feeds ?? []), { model: value, site: at(node) });
      });
    }
    if (feeds.length) result = { ...result, feeds };
    return result;
  }

  method(node, call, scope) {
    const { name } = call;
    const moves = name === "to_device" || name === "fork";
    const receiver = this.expr(call.receiver, scope, !(moves || name === "clone" || name === "valid"
                                                        || name === "train" || LOADS.has(name)));
    const values = call.args.map((arg) => this.expr(arg, scope));
    switch (name) {
      case "to_device":
        return this.toDevice(node, call, receiver, scope);
      case "fork":
        return this.fork(node, call, receiver, scope);
      case "valid":
        return { plain: { origin: call.nameNode, last: null, how: "valid" }, builtOn: receiver.builtOn };
      case "train": {
        const { plain, moved, ...rest } = receiver;
        return { ...rest, param: undefined, field: undefined };
      }
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
    if (KEEPS_MODULE.has(name)) {
      return LOADS.has(name) ? { ...receiver, lazy: false, loaded: true } : receiver;
    }
    if (name.startsWith("forward")) {
      return { feeds: [...(derived(...values).feeds ?? []), { model: receiver, site: at(node) }] };
    }
    if (call.receiver.type === "self" && this.fn?.impl) {
      const found = this.world.candidates(name, true, this.file, this.fn.impl);
      if (found.length) return this.through(found, values, node, name, call.args, scope);
    }
    return derived(receiver, ...values);
  }

  toDevice(node, call, receiver, scope) {
    const target = call.args.length ? deviceOf(call.args[0], scope) : null;
    const site = { node: call.nameNode, receiver: call.receiver.text, device: call.args[0]?.text ?? "" };
    if (receiver.plain) {
      return { ...receiver, plain: { ...receiver.plain, last: call.nameNode, lastKind: "to_device" },
               builtOn: target?.key };
    }
    if (receiver.lazy) return { lazy: true, builtOn: target?.key, assumed: receiver.assumed };
    const assumed = [...(receiver.assumed ?? [])];
    if (!receiver.loaded && !receiver.read && !assumed.includes("helper-reads")) assumed.push("initialized");
    assumed.push("autodiff");
    const same = target && receiver.builtOn && target.key === receiver.builtOn;
    return { moved: { ...site, same }, builtOn: target?.key, assumed };
  }

  fork(node, call, receiver, scope) {
    const target = call.args.length ? deviceOf(call.args[0], scope) : null;
    if (receiver.plain) {
      return { ...receiver, plain: { ...receiver.plain, last: call.nameNode, lastKind: "fork" },
               builtOn: target?.key };
    }
    this.forked(receiver, call.nameNode, null);
    return { builtOn: target?.key, lazy: receiver.lazy, read: receiver.read, loaded: receiver.loaded };
  }

  forked(value, node, via) {
    if (!this.reporting && value.param !== undefined && !value.moved) {
      if (!this.fn.summary.forks.has(value.param)) this.fn.summary.forks.set(value.param, at(node));
    }
    if (this.reporting && value.moved && !value.lazy) {
      this.report("fork-after-to_device", node, { moved: at(value.moved.node), receiver: value.moved.receiver,
                                                  via }, value.assumed, { priority: 0 });
    }
  }

  // --- training

  trains(value, how) {
    if (!value || value === UNKNOWN) return;
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
    if (value.plain) {
      const node = value.plain.last ?? value.plain.origin;
      this.report("plain-without-train", node, { how, origin: value.plain.how, device: value.plain.device ?? "",
                                                 originAt: at(value.plain.origin), lastKind: value.plain.lastKind },
                  value.assumed ?? [], { priority: PRIORITY[how.kind] });
    } else if (value.moved && !value.lazy) {
      const rule = value.moved.same ? "same-device-move" : "moved-then-trained";
      this.report(rule, value.moved.node, { how, receiver: value.moved.receiver, device: value.moved.device },
                  value.assumed ?? [], { priority: PRIORITY[how.kind] });
    }
  }

  report(rule, node, values, assumed, { priority }) {
    const where = at(node);
    const key = `${rule}@${where.line}:${where.column}`;
    const known = this.findings.get(key);
    if (known && known.priority <= priority) return;
    this.findings.set(key, { rule, number: RULES[rule].number, severity: RULES[rule].severity, ...where,
                             endLine: node.endPosition.row + 1, endColumn: node.endPosition.column + 1,
                             values, assumed: [...new Set(assumed)], priority });
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

/** Does the function compare a `GradientsParams::len()` or assert an `is_require_grad()` anywhere? */
function hasStepCheck(body) {
  let found = false;
  const grads = new Set();
  const walk = (node) => {
    if (found) return;
    if (node.type === "let_declaration" && /from_grads\s*\(/.test(field(node, "value")?.text ?? "")) {
      for (const name of patternNames(field(node, "pattern"))) grads.add(name);
    }
    if (node.type === "macro_invocation") {
      const name = field(node, "macro")?.text.split("::").pop() ?? "";
      if (ASSERTS.test(name) && mentionsCheck(node.text, grads)) found = true;
    }
    if (node.type === "binary_expression" && /^(==|!=|<|>|<=|>=)$/.test(field(node, "operator")?.text ?? "")
        && mentionsCheck(node.text, grads)) {
      found = true;
    }
    if (node.type === "if_expression" && /is_require_grad\s*\(/.test(field(node, "condition")?.text ?? "")) {
      found = true;
    }
    for (const child of node.namedChildren) walk(child);
  };
  walk(body);
  return found;
}

function mentionsCheck(text, grads) {
  if (/is_require_grad\s*\(/.test(text)) return true;
  return [...grads].some((name) => new RegExp(`\\b${name}\\s*\\.\\s*len\\s*\\(`).test(text));
}
