"""Functions that return an array grown from one of their parameters: a project's growth helpers.

A decoder keeps its KV cache in a helper module (``def append(cache, kv): return
jnp.concatenate([cache, kv], axis=-2)``), its attention returns the grown cache beside its
output (``return y, cache``), and the generation loop, a module or two away, unpacks it back
into the name it passed: ``x, cache = forward(x, cache)``. Each step copies the whole cache, as a
``concatenate`` written in the loop would. AT101 reads such a call as the growth it makes.

A function grows its parameter ``p`` at a position of what it returns (the whole value, or an
element of the tuple it returns) where each ``return`` gives there a growth of ``p`` (a growth
function's call with ``p`` first or last among the pieces, or a call of another grower that
grows ``p``), directly or through a name the function binds to one, or, under ``if p is None``,
the first piece (the first step's seed). Found from Python's AST, in a file for itself and over
the files of a run (:func:`autota.source.project.growers`), to a fixed point.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from autota.source import vocabulary
from autota.source.wrappers import imported_names, qualified_call

GROWTH = {f"{vocabulary.JNP}.{name}": name for name in vocabulary.GROWTH_FUNCTIONS if name != "stack"}
"""The growth functions a grower may call (``stack`` adds an axis: no growth of the same array)."""


@dataclass(frozen=True)
class Grower:
    """A top-level function that returns ``param`` grown, whole (``position`` ``None``) or as
    element ``position`` of the tuple it returns."""

    name: str
    """Its dotted name, as messages say it."""
    params: tuple[str, ...]
    """Its parameters a caller may pass by position, in order."""
    grows: tuple[tuple[int | None, str], ...]
    """``(position, parameter)``: where the result holds which parameter grown."""
    function: str
    """The growth function it calls in the end (``jax.numpy.concatenate``)."""
    line: int


def may_define(text: str) -> bool:
    """Whether a module's text may define a grower (a cheap test before reading its AST)."""
    return "def " in text and any(name in text for name in GROWTH.values())


def file_growers(tree: ast.Module, module: str, known: dict[str, Grower]) -> dict[str, Grower]:
    """The growers ``tree`` (the module ``module``) defines at its top level, by name, given the
    growers of other modules ``known`` by dotted name (a grower may call one)."""
    imports = imported_names(tree, module)
    functions = [s for s in tree.body if isinstance(s, ast.FunctionDef)]
    found: dict[str, Grower] = {}
    for _ in range(4):  # a grower that calls a grower of the file defined after it
        before = len(found)
        for function in functions:
            if function.name not in found:
                grower = _grower(function, imports, known, found, f"{module}.{function.name}" if module else function.name)
                if grower is not None:
                    found[function.name] = grower
        if len(found) == before:
            break
    return found


def _grower(function: ast.FunctionDef, imports, known, local, name: str) -> Grower | None:
    args = function.args
    if args.vararg or args.kwarg or any(not _keeps_result(d, imports) for d in function.decorator_list):
        return None
    params = [a.arg for a in (*args.posonlyargs, *args.args)]
    returns = [n for n in _own_nodes(function) if isinstance(n, ast.Return)]
    if not returns or any(r.value is None for r in returns):
        return None
    widths = {len(r.value.elts) if isinstance(r.value, ast.Tuple) else None for r in returns}
    if len(widths) != 1:
        return None
    width = widths.pop()
    grows, grown_by = [], None
    for position in range(width) if width is not None else [None]:
        values = [r.value if position is None else r.value.elts[position] for r in returns]
        for param in params:
            kinds = [_growth_of(v, param, function, imports, known, local) for v in values]
            if all(k is not None for k in kinds) and any(k != "seed" for k in kinds):
                grows.append((position, param))
                grown_by = grown_by or next(k for k in kinds if k != "seed")
    if not grows:
        return None
    return Grower(name, tuple(params), tuple(grows), grown_by, function.lineno)


def _growth_of(value: ast.expr, param: str, function: ast.FunctionDef, imports, known, local, depth: int = 0) -> str | None:
    """The growth function by which ``value`` grows ``param``, ``"seed"`` where it is the value
    a ``return`` under ``if param is None`` gives, else ``None``."""
    if depth > 3:
        return None
    if depth == 0 and _under_none_test(value, param, function):
        return "seed"
    if isinstance(value, ast.Name):  # a name bound to a growth (`cache = jnp.concatenate([cache, kv])`)
        stores = [n for n in _stores(function) if n.id == value.id]
        bound = []  # (value, position in the tuple it is unpacked from)
        for s in _own_nodes(function):
            if isinstance(s, ast.Assign) and len(s.targets) == 1:
                target = s.targets[0]
                if isinstance(target, ast.Name) and target.id == value.id:
                    bound.append((s.value, None))
                elif isinstance(target, ast.Tuple):
                    bound += [(s.value, k) for k, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == value.id]
        if not bound or len(bound) != len(stores) or value.id != param and len(bound) != 1:
            return None
        kinds = [
            _growth_of(v, param, function, imports, known, local, depth + 1) if k is None else _call_grows(v, k, param, imports, known, local)
            for v, k in bound
        ]
        return kinds[0] if all(k not in (None, "seed") for k in kinds) else None
    if not isinstance(value, ast.Call) or any(isinstance(a, ast.Starred) for a in value.args):
        return None
    qualified = qualified_call(value.func, imports)
    if qualified in GROWTH:
        pieces = value.args[0].elts if value.args and isinstance(value.args[0], (ast.List, ast.Tuple)) else value.args[:2]
        short = GROWTH[qualified]
        if short == "append" and value.args[:1] and isinstance(value.args[0], ast.Name) and value.args[0].id == param:
            return qualified
        if short != "append" and len(pieces) >= 2 and any(
            isinstance(p, ast.Name) and p.id == param for p in (pieces[0], pieces[-1])
        ):
            return qualified
        return None
    return _call_grows(value, None, param, imports, known, local)


def _call_grows(call: ast.expr, position: int | None, param: str, imports, known, local) -> str | None:
    """The growth function by which ``call``, a call of a grower, grows ``param`` (passed by
    position) at ``position`` of its result, else ``None``."""
    if not isinstance(call, ast.Call) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    callee = local.get(call.func.id) if isinstance(call.func, ast.Name) else None
    qualified = qualified_call(call.func, imports)
    callee = callee or (known.get(qualified) if qualified else None)
    if callee is None:
        return None
    for where, grown in callee.grows:
        k = callee.params.index(grown) if grown in callee.params else len(call.args)
        if where == position and k < len(call.args) and isinstance(call.args[k], ast.Name) and call.args[k].id == param:
            return callee.function
    return None


def _under_none_test(value: ast.expr, param: str, function: ast.FunctionDef) -> bool:
    """Whether ``value`` is returned in the body of ``if param is None:`` (the first step)."""
    for node in ast.walk(function):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and isinstance(node.test.left, ast.Name) and (
            node.test.left.id == param and len(node.test.ops) == 1 and isinstance(node.test.ops[0], ast.Is)
            and isinstance(node.test.comparators[0], ast.Constant) and node.test.comparators[0].value is None
        ):
            if any(n is value for s in node.body for n in ast.walk(s)):
                return True
    return False


def _keeps_result(decorator: ast.expr, imports) -> bool:
    """Whether a decorator returns what the function returns: ``jit`` and its ``partial``."""
    if isinstance(decorator, ast.Call):
        if qualified_call(decorator.func, imports) in vocabulary.PARTIAL and decorator.args:
            decorator = decorator.args[0]
        else:
            decorator = decorator.func
    return qualified_call(decorator, imports) in vocabulary.JIT


def _own_nodes(function: ast.FunctionDef):
    """The nodes of ``function`` outside its nested functions and classes."""
    pending = list(function.body)
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            pending.extend(ast.iter_child_nodes(node))


def _stores(function: ast.FunctionDef) -> list[ast.Name]:
    """The names ``function`` binds in its own scope (and its parameters do not count)."""
    return [n for n in _own_nodes(function) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))]
