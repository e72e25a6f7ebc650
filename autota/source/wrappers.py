"""Functions that run a ``lax`` loop over what their callers pass: a project's loop wrappers.

Projects route their loops through thin functions of their own: a backend module's
``fori_loop(lower, upper, body_fun, init_val)`` that calls ``jax.lax.fori_loop`` (matfree), a
``scan_if_not_profiling(f, init, xs, length)`` that runs a Python loop when profiling and
``lax.scan`` otherwise (bartz). Their callers' bodies run as the loop's body, and what those
bodies carry is the loop's carry, so the loop rules read a call of a wrapper as the call of the
loop it makes, mapping each argument to the loop's parameter it reaches.

Wrappers are found from Python's AST (a tenth of libcst's cost): in a file for itself, and over
the files of a run for the modules that import them (:func:`autota.source.project.loop_wrappers`).
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass

from autota.source import vocabulary
from autota.source.prefilter import absolute_module

_KINDS = {name: kind for name, kind in vocabulary.LOOPS.items() if kind in vocabulary.LOOP_PARAMS}
"""``lax``'s own loops (not Flax's lifted ones, whose bodies take a module)."""


@dataclass(frozen=True)
class LoopWrapper:
    """A module-level function that hands its parameters to one ``lax`` loop as the loop's body
    and initial carry (and perhaps its other arguments)."""

    name: str
    """The function's dotted name (``pkg.backend.control_flow.fori_loop``), as messages say it."""
    kind: str
    """The loop's kind: ``"fori"``, ``"scan"`` or ``"while"``."""
    params: tuple[str, ...]
    """The function's parameters that a caller may pass by position, in order."""
    keywords: frozenset[str]
    """Its parameters that a caller may pass by keyword."""
    passes: tuple[tuple[str, str], ...]
    """``(loop parameter, function parameter)``: where each argument of the call reaches the loop.
    The loop's other parameters get ``None`` or their defaults."""
    line: int


_ARGUMENT = r"(?:[^,()]|\([^()]*\))*"
_BODY_ARGUMENT = re.compile(
    rf"\b(?:scan\(\s*(\w+)\s*,|fori_loop\({_ARGUMENT},{_ARGUMENT},\s*(\w+)\s*,|while_loop\({_ARGUMENT},\s*(\w+)\s*,"
    rf"|(?:scan|fori_loop|while_loop)\([^)]*\b(?:f|body_fun)\s*=\s*(\w+))"
)
"""A loop call and the name it is given as its body (by position or keyword)."""


_TOP_HEADER = re.compile(r"^(?:async[ \t]+)?def[ \t]+\w+[ \t]*\((.*?)\)[ \t]*(?:->[^\n]*?)?:", re.M | re.S)
"""A top-level ``def``'s header, to the colon that ends it: its parameters, annotations and
defaults (a default's call or an annotation's brackets are in, the lazy match grows past them)."""


_ANY_HEADER = re.compile(r"^([ \t]*)(?:async[ \t]+)?def[ \t]+\w+[ \t]*\((.*?)\)[ \t]*(?:->[^\n]*?)?:", re.M | re.S)
"""A ``def``'s header at any depth, with its indent: a method's too."""


class TopHeaders:
    """The top-level ``def`` headers of a module's text (with ``methods``, those of every
    ``def``), by where they start: which words the header of the ``def`` around a place holds (a
    superset of its parameters)."""

    def __init__(self, text: str, methods: bool = False) -> None:
        found = [
            (m.start(), len(m.group(1).expandtabs()), m.group(2)) if methods else (m.start(), 0, m.group(1))
            for m in (_ANY_HEADER if methods else _TOP_HEADER).finditer(text)
        ]
        self.starts = [start for start, _, _ in found]
        self._indents = [indent for _, indent, _ in found]
        self._headers = [header for _, _, header in found]
        self._words: dict[int, set[str]] = {}

    def words_around(self, offset: int) -> set[str]:
        """The words of the header of the last ``def`` that starts before ``offset``, and of
        each less indented one before it up to the top level: the ``def`` s that may hold the
        place (a method's after a nested helper's ``def``, ``def helper(x): ...`` then
        ``b.at[...]`` in the function around it)."""
        k = bisect.bisect_right(self.starts, offset) - 1
        if k < 0:
            return set()
        if k not in self._words:
            words, indent, j = set(), None, k
            while j >= 0 and indent != 0:
                if indent is None or self._indents[j] < indent:
                    words |= set(re.findall(r"\w+", self._headers[j]))
                    indent = self._indents[j]
                j -= 1
            self._words[k] = words
        return self._words[k]


def may_define(text: str) -> bool:
    """Whether a module's text may define a loop wrapper (a cheap test before reading its AST):
    a loop call whose body is a name that the top-level ``def`` around it takes as a parameter."""
    if "def " not in text or not any(loop in text for loop in ("scan(", "fori_loop(", "while_loop(")):
        return False  # (the pattern below tries every word of the text)
    headers = None
    for found in _BODY_ARGUMENT.finditer(text):
        headers = headers or TopHeaders(text)
        if next(g for g in found.groups() if g) in headers.words_around(found.start()):
            return True
    return False


def file_wrappers(tree: ast.Module, module: str) -> dict[str, LoopWrapper]:
    """The loop wrappers that ``tree`` (the module ``module``) defines at its top level, by name."""
    imports = imported_names(tree, module)
    found = {}
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef):
            wrapper = _wrapper(statement, imports, f"{module}.{statement.name}" if module else statement.name)
            if wrapper is not None:
                found[statement.name] = wrapper
    return found


def _wrapper(function: ast.FunctionDef, imports: dict[str, str], name: str) -> LoopWrapper | None:
    args = function.args
    if function.decorator_list or args.vararg or args.kwarg:
        return None  # a decorator may change what the function runs; `*args` hide where arguments go
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    own = set(positional) | {a.arg for a in args.kwonlyargs}
    loops = [
        (node, kind)
        for node in ast.walk(function) if isinstance(node, ast.Call)
        for kind in [_KINDS.get(qualified_call(node.func, imports))] if kind is not None
    ]
    if len(loops) != 1 or any(isinstance(n, (ast.FunctionDef, ast.Lambda)) and n is not function for n in ast.walk(function)):
        return None
    call, kind = loops[0]
    names = vocabulary.LOOP_PARAMS[kind]
    given: dict[str, ast.expr] = {}
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred) or position >= len(names):
            return None
        given[names[position]] = arg
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in names:
            return None
        given[keyword.arg] = keyword.value
    passes = []
    for param, value in given.items():
        if isinstance(value, ast.Name) and value.id in own and not _rebinds(function, value.id):
            passes.append((param, value.id))
        elif not (isinstance(value, ast.Constant) and value.value is None):
            return None  # the wrapper's own value: what the loop gets is not the caller's
    mapped = dict(passes)
    if vocabulary.BODY_ARG[kind] not in mapped or vocabulary.INIT_ARG[kind] not in mapped:
        return None
    keywords = frozenset(a.arg for a in (*args.args, *args.kwonlyargs))
    return LoopWrapper(name, kind, tuple(positional), keywords, tuple(passes), function.lineno)


def _rebinds(function: ast.FunctionDef, name: str) -> bool:
    """Whether ``function`` binds ``name`` again (then the loop may not get what the caller passed)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
    return False


def imported_names(tree: ast.Module, module: str) -> dict[str, str]:
    """Local name -> the dotted name the module's top-level imports bind to it."""
    package = module.rsplit(".", 1)[0] if "." in module else ""
    found = {}
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname:
                    found[alias.asname] = alias.name
                else:
                    root = alias.name.split(".", 1)[0]
                    found[root] = root
        elif isinstance(statement, ast.ImportFrom):
            base = absolute_module(package, statement.module, statement.level)
            for alias in statement.names:
                if alias.name != "*":
                    found[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
    return found


def qualified_call(func: ast.expr, imports: dict[str, str]) -> str | None:
    """The dotted name ``func`` (a name or an attribute chain) has through the module's imports."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or func.id not in imports:
        return None
    return ".".join([imports[func.id], *reversed(parts)])
