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
import re
from dataclasses import dataclass, replace

from autota.source import vocabulary
from autota.source.wrappers import TopHeaders, imported_names, qualified_call

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


_GROWTH_CALL = re.compile(r"\b(?:jnp|np|numpy|onp)\.(?:%s)\(|import\b[^\n]*\b(?:%s)\b" % (("|".join(GROWTH.values()),) * 2))
"""A growth function's call through a NumPy-like module name, or its import: a list's ``append``
is not one."""


_PIECES = re.compile(r"\b(?:%s)\(\s*[\[(]?\s*(?:(\w+)(?=\s*[,\])]))?(?:[^\])]*,\s*(?!None\b)(\w+)\s*[\])])?" % "|".join(GROWTH.values()))
"""A growth call's first piece (``append``'s array), where it is a name, and, where the pieces are a
display, its last (``arr[1:]`` is no name, but ``arr`` of ``[x, arr]`` is)."""


def may_define(text: str) -> bool:
    """Whether a module's text may define a grower that grows by a call of its own (a cheap test
    before reading its AST): a growth call through a NumPy-like module whose first or last piece
    is a name the top-level ``def`` around it takes as a parameter. One that calls another's grower is
    found by that grower's name."""
    if "def " not in text or _GROWTH_CALL.search(text) is None:
        return False
    headers = None
    for found in _PIECES.finditer(text):
        headers = headers or TopHeaders(text)
        if any(name in headers.words_around(found.start()) for name in found.groups() if name):
            return True
    return False


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
    for statement in tree.body:  # `decode_step = jax.jit(attend)`: the jitted grower returns what it does
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            value = statement.value
            if isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Name) and (
                value.args[0].id in found and _keeps_result(value.func, imports)
            ):
                alias = statement.targets[0].id
                found.setdefault(alias, replace(found[value.args[0].id], name=f"{module}.{alias}" if module else alias))
    return found


class _Function:
    """A ``def`` with the facts the analysis asks of it again and again, found in one walk."""

    def __init__(self, node: ast.FunctionDef) -> None:
        self.node = node
        self.nodes = list(_own_nodes(node))
        self.stores: dict[str, int] = {}
        for n in self.nodes:
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                self.stores[n.id] = self.stores.get(n.id, 0) + 1
        self.assigns = [n for n in self.nodes if isinstance(n, ast.Assign) and len(n.targets) == 1]
        self.none_tests = [
            n for n in self.nodes
            if isinstance(n, ast.If) and isinstance(n.test, ast.Compare) and isinstance(n.test.left, ast.Name)
            and len(n.test.ops) == 1 and isinstance(n.test.ops[0], (ast.Is, ast.IsNot))
            and isinstance(n.test.comparators[0], ast.Constant) and n.test.comparators[0].value is None
        ]
        self.callees = {
            n.func.id if isinstance(n.func, ast.Name) else n.func.attr
            for n in self.nodes if isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute))
        }


def _grower(node: ast.FunctionDef, imports, known, local, name: str) -> Grower | None:
    args = node.args
    if args.vararg or args.kwarg or any(not _keeps_result(d, imports) for d in node.decorator_list):
        return None
    function = _Function(node)
    callable_growers = set(GROWTH.values()) | set(local) | {k.rpartition(".")[2] for k in known}
    if not function.callees & callable_growers:
        return None  # it calls no growth function and no grower: it grows nothing
    params = [a.arg for a in (*args.posonlyargs, *args.args)]
    returns = [n for n in function.nodes if isinstance(n, ast.Return)]
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
    return Grower(name, tuple(params), tuple(grows), grown_by, node.lineno)


def _growth_of(value: ast.expr, param: str, function: _Function, imports, known, local, depth: int = 0) -> str | None:
    """The growth function by which ``value`` grows ``param``, ``"seed"`` where it is the value
    a ``return`` under ``if param is None`` gives, else ``None``."""
    if depth > 3:
        return None
    if depth == 0 and _under_none_test(value, param, function):
        return "seed"
    given = _grown_when_given(value.id, param, function, imports, known, local) if isinstance(value, ast.Name) and not depth else None
    if given is not None:
        return given
    if isinstance(value, ast.Name):  # a name bound to a growth (`cache = jnp.concatenate([cache, kv])`)
        stores = function.stores.get(value.id, 0)
        bound = []  # (value, position in the tuple it is unpacked from)
        for s in function.assigns:
            if True:
                target = s.targets[0]
                if isinstance(target, ast.Name) and target.id == value.id:
                    bound.append((s.value, None))
                elif isinstance(target, ast.Tuple):
                    bound += [(s.value, k) for k, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == value.id]
        if not bound or len(bound) != stores or value.id != param and len(bound) != 1:
            return None
        if any(not any(v is statement.value for statement in function.node.body if isinstance(statement, ast.Assign)) for v, _ in bound):
            return None  # bound under a branch: on the other path the name holds something else
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


def _grown_when_given(name: str, param: str, function: _Function, imports, known, local) -> str | None:
    """The growth function by which the last binding of ``name`` in ``function`` grows
    ``param`` where ``param`` is given, and only there: under ``if param is not None:`` (or in
    the ``else`` of ``if param is None:``), the first step taking the value bound before (``k = x
    @ w`` then ``if cache is not None: k = jnp.concatenate([cache, k])``); else ``None``."""
    tests = [t for t in function.none_tests if t.test.left.id == param]
    assigns = [s for s in function.assigns if isinstance(s.targets[0], ast.Name) and s.targets[0].id == name]
    if not tests or not assigns or len(assigns) != function.stores.get(name, 0):
        return None
    last = max(assigns, key=lambda s: (s.lineno, s.col_offset))
    grown = _growth_of(last.value, param, function, imports, known, local, 1)
    if grown in (None, "seed"):
        return None
    for test in tests:
        guarded = test.body if isinstance(test.test.ops[0], ast.IsNot) else test.orelse
        if any(n is last for s in guarded for n in ast.walk(s)):
            return grown
    return None


def _under_none_test(value: ast.expr, param: str, function: _Function) -> bool:
    """Whether ``value`` is returned in the body of ``if param is None:`` (the first step)."""
    return any(
        test.test.left.id == param and isinstance(test.test.ops[0], ast.Is)
        and any(n is value for s in test.body for n in ast.walk(s))
        for test in function.none_tests
    )


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
