"""Which names a cell binds and which it reads from the cells before it, read from its code.

A stub says which names the check reads (the solution's names that the
check cells need); a test checks that every name a solution reads exists
before its cell. Both need names at a cell's top level only: a loop
variable of a comprehension or a function's local is nobody else's business.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def bound_names(source: str) -> list[str]:
    """Names a cell binds at its top level (assignments, loops, imports, defs), in order."""
    tree = _parse(source)
    names: list[str] = []
    for statement in tree.body if tree else []:
        names += [name for name in _bound_by(statement) if name not in names]
    return names


def free_names(source: str) -> list[str]:
    """Names a cell reads before binding them itself: what must exist before it runs, in order."""
    tree = _parse(source)
    bound: set[str] = set()
    free: list[str] = []
    for statement in tree.body if tree else []:
        own = set(_bound_by(statement))
        reads = _reads(statement, frozenset())
        if not isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            reads = [name for name in reads if name not in own]  # a loop's target, a def's name
        free += [name for name in reads if name not in bound and name not in free]
        bound |= own
    return free


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:  # IPython magics and the like: say nothing rather than guess
        return None


def _bound_by(node: ast.AST) -> list[str]:
    """Names `node` binds in the scope it is in (not those local to a function or comprehension in it)."""
    names: list[str] = []
    for inner in _outside_scopes(node):
        if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
            names.append(inner.id)
        elif isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(inner.name)
        elif isinstance(inner, (ast.Import, ast.ImportFrom)):
            names += [(alias.asname or alias.name).split(".")[0] for alias in inner.names]
        elif isinstance(inner, ast.ExceptHandler) and inner.name:
            names.append(inner.name)
    return names


def _outside_scopes(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and what is inside it, down to (not into) any nested function, class or comprehension."""
    yield node
    if not isinstance(node, _SCOPES):
        for child in ast.iter_child_nodes(node):
            yield from _outside_scopes(child)


def _reads(node: ast.AST, local: frozenset[str]) -> list[str]:
    """Names `node` reads that are not local to a scope inside it."""
    if isinstance(node, ast.Name):
        return [node.id] if isinstance(node.ctx, ast.Load) and node.id not in local else []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        outer = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
        outer += getattr(node, "decorator_list", [])
        arguments = node.args
        params = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
        params |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
        body = node.body if isinstance(node.body, list) else [node.body]
        inner = local | params | {name for statement in body for name in _bound_by(statement)}
        return _all(outer, local) + _all(body, inner)
    if isinstance(node, ast.ClassDef):
        inner = local | {name for statement in node.body for name in _bound_by(statement)}
        return _all([*node.bases, *node.decorator_list], local) + _all(node.body, inner)
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        inner = local | {name for generator in node.generators for name in _bound_by(generator.target)}
        parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        for generator in node.generators:
            parts += [generator.iter, *generator.ifs]
        return _all(parts, inner)
    return _all(list(ast.iter_child_nodes(node)), local)


def _all(nodes: list[ast.AST], local: frozenset[str]) -> list[str]:
    return [name for node in nodes for name in _reads(node, local)]
