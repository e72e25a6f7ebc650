"""Functions that return an updated copy of one of their parameters: a project's write helpers.

A decoder writes its KV cache in its model module (``cache = lax.dynamic_update_slice(cache, k,
(pos, 0))`` ... ``return logits, cache``), and the generation loop, in another module, calls a
jitted step that hands the cache to it: ``tok, cache = decode_step(params, tok, cache, pos)``.
Without donation each call copies the whole cache (AT301), as it would where the write sits in
the step itself. Within a file the rule follows such helpers through their libcst trees; across
the modules of a run it asks this module, which reads each module's Python AST once.

A top-level function updates its parameter ``p`` where one of its ``return`` statements gives,
whole or as an element of a returned tuple, ``p.at[...].set(...)`` (any update method),
``lax.dynamic_update_slice(p, ...)``, or a name that every assignment of the function binds to
such an update of ``p`` or of such a name (``cache = dynamic_update_slice(cache, ...)``).
"""

from __future__ import annotations

import ast
import re

from autota.source import vocabulary
from autota.source.prefilter import at_update_receiver, terminal
from autota.source.wrappers import TopHeaders

DYNAMIC_WRITES = vocabulary.DYNAMIC_WRITE_TERMINALS


_UPDATE = re.compile(r"\.[ \t]*at[ \t]*\[|dynamic_update_\w+\(\s*(\w+)")
"""An update: ``.at[`` (its receiver is the word before it) or ``dynamic_update_slice(buf, ...)``."""
_LAST_WORD = re.compile(r"(\w+)(?:[ \t]*\.[ \t]*\w+|\[[^\]\n]*\])*[ \t]*$")
"""The root of the expression before an update: ``state`` of ``state.rows.at[``, ``buf[k].at[``."""


def may_define(text: str) -> bool:
    """Whether a module's text may define an updater (a cheap test before reading its AST): an
    update whose receiver (the root of ``state.rows.at[``) is a name that the header of the
    ``def`` around it holds (a superset of its parameters; an update of a name bound to one is
    found as the ``def``'s parameter is read again, ``cache = dus(cache, ...)``)."""
    if "def " not in text or (".at" not in text and "dynamic_update_" not in text):
        return False
    headers = None
    for found in _UPDATE.finditer(text):
        before = _LAST_WORD.search(text, max(0, found.start() - 80), found.start()) if found.group(1) is None else None
        name = found.group(1) or (before.group(1) if before else None)
        headers = headers or TopHeaders(text, methods=True)
        if name is not None and name in headers.words_around(found.start()):
            return True
    return False


def file_updaters(tree: ast.Module) -> dict[str, tuple[int, ...]]:
    """The module's top-level functions, and the methods of its top-level classes
    (``Ring.add``, ``self`` at position 0), that return an updated copy of a parameter, by name,
    with the positions (among the parameters a caller may pass by position) of those parameters.
    A function that rebinds its parameter to what another updater of the module returns for it
    (``y, cache = attend(params, x, cache, pos)`` ... ``return y, cache``) is one too: a model's
    forward pass around the layer that writes the cache, found a few calls up."""
    found: dict[str, tuple[int, ...]] = {}
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    writing, calling = [], []
    for name, function in _functions(tree):
        called, writes = _calls_and_writes(function)
        (writing if writes else calling).append((name, function, called))
    pending = writing
    while pending:  # the writers, then the functions that call one found, a few calls up
        for name, function, _ in pending:
            positions = _updated_positions(function, classes, found)
            if positions:
                found[name] = positions
        pending = [entry for entry in calling if entry[0] not in found and entry[2] & found.keys()]
        calling = [entry for entry in calling if entry not in pending]
    return found


def _calls_and_writes(function: ast.FunctionDef) -> tuple[set[str], bool]:
    """The names ``function`` calls (``attend(...)``), and whether it holds an update (``.at[...]``
    method or ``dynamic_update_*`` call)."""
    called, writes = set(), False
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                called.add(node.func.id)
            writes = writes or terminal(node.func) in DYNAMIC_WRITES or at_update_receiver(node) is not None
    return called, writes


def _functions(tree: ast.Module):
    """``(name, def)`` for the module's top-level functions and its top-level classes' methods."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            yield from ((f"{node.name}.{m.name}", m) for m in node.body if isinstance(m, ast.FunctionDef))


def jitted_without_donation(tree: ast.Module, names: set[str]) -> set[str]:
    """Those of the module's top-level functions ``names`` whose one decorator is a ``jit``
    that donates nothing (``@jax.jit``, ``@partial(jax.jit, static_argnums=1)``): a caller in
    another module that rebinds the updated argument copies it every call, and the fix (a
    donation) belongs to this module."""
    return {
        name for name, function in _functions(tree)
        if name in names and len(function.decorator_list) == 1 and _undonated_jit(function.decorator_list[0])
    }


def _undonated_jit(decorator: ast.expr) -> bool:
    """``jit``/``jax.jit``, also called or in a ``partial``, with no ``donate_*`` keyword."""
    keywords: list[ast.keyword] = []
    while isinstance(decorator, ast.Call):
        keywords += decorator.keywords
        if terminal(decorator.func) in vocabulary.PARTIAL_TERMINALS and decorator.args:
            decorator = decorator.args[0]  # `partial(jax.jit, static_argnums=1)`
        else:
            decorator = decorator.func  # `jax.jit(static_argnums=1)`
    return terminal(decorator) in ("jit", "pjit") and not any(
        k.arg is None or k.arg.startswith("donate") for k in keywords
    )


def _rebuilt(expr: ast.expr | None, classes: set[str]) -> list[ast.expr] | None:
    """The fields given to a record rebuilt by ``expr``: ``x._replace(f=...)``,
    ``x.replace(f=...)``, ``x.set(f=...)``, ``dataclasses.replace(x, f=...)``, or a call of a class the module
    defines (``State(idx=..., rows=...)``); else ``None``."""
    if not isinstance(expr, ast.Call):
        return None
    func = expr.func
    named = isinstance(func, ast.Attribute) and func.attr in vocabulary.REPLACE_METHODS and (
        func.attr != "set" or expr.keywords and not expr.args
    ) or terminal(func) == "replace" or (
        isinstance(func, ast.Name) and func.id in classes
    )
    return [*expr.args, *(k.value for k in expr.keywords)] if named else None


def _handed_back(target: ast.AST, value: ast.expr | None, updaters: dict[str, tuple[int, ...]]) -> set[str] | None:
    """The names ``target`` binds that ``value``, a call of one of ``updaters``, is given at an
    updated position (``y, cache = attend(params, x, cache, pos)``: ``{"cache"}``); ``None``
    where ``value`` is no such call or ``target`` is no tuple of names."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in updaters):
        return None
    if not isinstance(target, (ast.Tuple, ast.List)) or not all(isinstance(e, ast.Name) for e in target.elts):
        return None
    given = {value.args[p].id for p in updaters[value.func.id] if p < len(value.args) and isinstance(value.args[p], ast.Name)}
    bound = {e.id for e in target.elts}
    return given & bound or None


def _updated_positions(
    function: ast.FunctionDef, classes: set[str] = frozenset(), updaters: dict[str, tuple[int, ...]] | None = None,
) -> tuple[int, ...]:
    """The positions of the parameters ``function`` returns an updated copy of: written
    (``p.at[i].set(v)``, ``dynamic_update_slice(p, ...)``), or a record rebuilt around a write
    of one of its parts (``p._replace(rows=p.rows.at[i].set(v))``, ``p.replace(...)``,
    ``State(idx=p.idx + 1, rows=p.rows.at[i].set(v))`` of a class of the module, ``classes``),
    or the result of one of the module's ``updaters`` for it (``cache = put(cache, k)``, or
    unpacked, ``y, cache = attend(x, cache)``, where the name given at an updated position is the
    one bound)."""
    updaters = updaters or {}
    params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    assigned: dict[str, list[ast.expr | None]] = {}
    """Each name the function binds, with the value of each plain ``name = value`` and ``None``
    for every other binding (unpacked, augmented, a loop target, an import...)."""

    def bind(target: ast.AST | None, value: ast.expr | None = None) -> None:
        for name in ast.walk(target) if target is not None else ():
            if isinstance(name, ast.Name):
                assigned.setdefault(name.id, []).append(value if name is target else None)

    returns: list[ast.expr] = []
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            assigned.setdefault(getattr(node, "name", ""), []).append(None)
            continue  # their own names and returns
        if isinstance(node, ast.Return) and node.value is not None:
            returns.append(node.value)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                handed = _handed_back(target, node.value, updaters)
                if handed is not None:  # `y, cache = attend(x, cache)`: `cache` is the updater's copy of it
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            assigned.setdefault(name.id, []).append(node.value if name.id in handed else None)
                else:
                    bind(target, node.value)
        elif isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor)):
            bind(node.target)
        elif isinstance(node, ast.withitem):
            bind(node.optional_vars)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                bind(target)
        elif isinstance(node, (ast.ExceptHandler, ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal)):
            names = [node.name] if isinstance(node, ast.ExceptHandler) else getattr(node, "names", [])
            for name in names:
                if name:
                    assigned.setdefault(name if isinstance(name, str) else (name.asname or name.name), []).append(None)
        pending.extend(ast.iter_child_nodes(node))
    copies: dict[str, str | None] = {}
    resolving: set[str] = set()

    def updated(expr: ast.expr | None, depth: int = 0) -> str | None:
        """The parameter ``expr`` is an updated copy of (a name: one that every binding of it
        makes such a copy)."""
        if isinstance(expr, ast.Name) and expr.id in assigned and depth < 8:
            if expr.id not in copies:
                resolving.add(expr.id)
                found = {updated(v, depth + 1) if v is not None else None for v in assigned[expr.id]}
                resolving.discard(expr.id)
                copies[expr.id] = found.pop() if len(found) == 1 else None
            return copies[expr.id]
        rebuilt = _rebuilt(expr, classes)
        if rebuilt is not None:  # the record given again, a part of a parameter written in it
            found = {updated(part, depth + 1) for part in rebuilt}
            found.discard(None)
            return found.pop() if len(found) == 1 else None
        receiver = expr.func.value.value.value if at_update_receiver(expr) is not None else None
        if receiver is None and isinstance(expr, ast.Call) and terminal(expr.func) in DYNAMIC_WRITES and expr.args:
            receiver = expr.args[0]
        if receiver is None and isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in updaters:
            given = {expr.args[p].id for p in updaters[expr.func.id] if p < len(expr.args) and isinstance(expr.args[p], ast.Name)}
            receiver = next((ast.Name(n) for n in given), None) if len(given) == 1 else None  # `put(cache, k)`
        while isinstance(receiver, (ast.Attribute, ast.Subscript)) and depth > 0:
            receiver = receiver.value  # `state.rows.at[i]`, inside a record rebuilt: a part of `state`
        if not isinstance(receiver, ast.Name):
            return None
        if receiver.id in resolving:  # `cache = dus(cache, ...)`: the value before, the parameter or a copy of it
            return receiver.id if receiver.id in params else None
        if receiver.id in assigned:  # `new = cache.at[p].set(k)`, `cache` bound in the function
            return updated(receiver, depth + 1)
        return receiver.id if receiver.id in params else None

    positions = set()
    for value in returns:
        for item in value.elts if isinstance(value, ast.Tuple) else [value]:
            param = updated(item)
            if param is not None:
                positions.add(params.index(param))
    return tuple(sorted(positions))
