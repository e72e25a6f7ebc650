"""Syntactic facts about loops and names that the rules' safety proofs rest on."""

from __future__ import annotations

import ast
import bisect
import dataclasses
import itertools
import re
import unicodedata
import warnings
from typing import Iterator

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import (
    CodePosition,
    CodeRange,
    ExpressionContext,
    ExpressionContextProvider,
    GlobalScope,
    MetadataWrapper,
    PositionProvider,
    QualifiedNameSource,
    ScopeProvider,
)
from libcst.metadata.scope_provider import _ASSIGNMENT_LIKE_NODES, ScopeVisitor

from autota.source import attributes

LOOPS = (cst.For, cst.While)
SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)
NESTED_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
_NESTED_KINDS = frozenset(NESTED_SCOPES)
_SCOPE_KINDS = frozenset(SCOPES)
"""The same, for a test by type: ``isinstance`` against libcst's abstract classes is slow, and
none of these has subclasses."""


_SOURCE_ORDER: dict[type, tuple[str, ...]] = {
    cst.Arg: ("whitespace_after_star", "keyword", "equal", "value", "comma", "whitespace_after_arg"),
    cst.FunctionDef: (
        "leading_lines", "decorators", "lines_after_decorators", "asynchronous", "whitespace_after_def", "name",
        "whitespace_after_name", "type_parameters", "whitespace_after_type_parameters", "whitespace_before_params",
        "params", "returns", "whitespace_before_colon", "body",
    ),
    cst.ClassDef: (
        "leading_lines", "decorators", "lines_after_decorators", "whitespace_after_class", "name",
        "whitespace_after_name", "type_parameters", "whitespace_after_type_parameters", "lpar", "bases", "keywords",
        "rpar", "whitespace_before_colon", "body",
    ),
    cst.Parameters: ("posonly_params", "posonly_ind", "params", "star_arg", "kwonly_params", "star_kwarg"),
    cst.IfExp: (
        "lpar", "body", "whitespace_before_if", "whitespace_after_if", "test", "whitespace_before_else",
        "whitespace_after_else", "orelse", "rpar",
    ),
    cst.ExceptHandler: ("leading_lines", "whitespace_after_except", "type", "name", "whitespace_before_colon", "body"),
    cst.ExceptStarHandler: (
        "leading_lines", "whitespace_after_except", "whitespace_after_star", "type", "name",
        "whitespace_before_colon", "body",
    ),
    cst.MatchCase: (
        "leading_lines", "whitespace_after_case", "pattern", "whitespace_before_if", "whitespace_after_if", "guard",
        "whitespace_before_colon", "body",
    ),
    cst.TypeAlias: (
        "whitespace_after_type", "name", "whitespace_after_name", "type_parameters",
        "whitespace_after_type_parameters", "whitespace_after_equals", "value", "semicolon",
    ),
}
"""Nodes whose dataclass fields do not come in source order (a ``def``'s decorators follow its
body, an ``Arg``'s keyword its value). Other nodes' fields are in source order but for
parentheses and whitespace, which hold no names."""
_FIELDS: dict[type, tuple[str, ...]] = {}


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """``node.children``, read from the node's fields: libcst's property visits the node to find
    them, which, asked of every node, was most of the time a file's check took. The order is
    source order for every node that holds a name (comments: see :func:`comments`)."""
    kind = type(node)
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _FIELDS[kind] = _SOURCE_ORDER.get(kind) or tuple(f.name for f in dataclasses.fields(kind))
    found = []
    for name in fields:
        value = getattr(node, name)
        shape = _SHAPE.get(type(value))
        if shape is None:
            shape = _SHAPE[type(value)] = _shape(type(value))
        if shape == 1:
            found.append(value)
        elif shape == 2:
            found.extend(c for c in value if type(c) in _NODE_KINDS or _shape(type(c)) == 1)
    return found


_SHAPE: dict[type, int] = {}
_NODE_KINDS: set[type] = set()


def _shape(kind: type) -> int:
    """1 for a libcst node type, 2 for a sequence, 0 for anything else (``isinstance`` against
    ``CSTNode``, an abstract class, is slow enough to matter here)."""
    if issubclass(kind, cst.CSTNode):
        _NODE_KINDS.add(kind)
        return 1
    return 2 if issubclass(kind, (tuple, list)) else 0


def find(tree: cst.CSTNode, predicate) -> list[cst.CSTNode]:
    """Every node below ``tree`` (itself included) for which ``predicate`` holds, in source order."""
    found = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if predicate(node):
            found.append(node)
        stack.extend(reversed(children(node)))
    return found


STATIC_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "size"})
"""What JAX knows of an array when it traces: ``x.shape`` of a tracer is Python ints."""


def static_read(semantics, name: cst.Name) -> bool:
    """Whether ``name`` is read only for what tracing keeps static (``A.shape``, ``A.ndim``)."""
    parent = semantics.parents.get(name)
    return isinstance(parent, cst.Attribute) and parent.value is name and parent.attr.value in STATIC_ATTRIBUTES


_NESTING_STATEMENTS = (cst.ClassDef, cst.FunctionDef, cst.For, cst.While, cst.If, cst.With, cst.Try)
"""Statements whose indented blocks :meth:`Semantics.position` renders one statement of
(Python's AST gives each the same blocks of the same statements)."""
_PASS = cst.SimpleStatementLine(body=(cst.Pass(),))
_NO_ELSE = {cst.If: {"orelse": None}, cst.For: {"orelse": None}, cst.While: {"orelse": None}}
"""What a statement rendered around one statement of a block, or a header rendered alone, leaves out
after the body where that block is not the ``else``."""


def _blocks(statement: cst.CSTNode):
    """``(key, statements)`` for each indented block of a compound statement: its ``body``, each
    ``except`` handler's, its ``else`` (an ``elif`` is the one ``If`` of key ``"elif"``) and its
    ``finally``; the key names the same block of Python's AST (see :func:`_syntax_block`)."""
    if isinstance(getattr(statement, "body", None), cst.IndentedBlock):
        yield "body", statement.body.body
    for index, handler in enumerate(getattr(statement, "handlers", ())):
        if isinstance(handler.body, cst.IndentedBlock):
            yield ("handlers", index), handler.body.body
    orelse = getattr(statement, "orelse", None)
    if isinstance(orelse, cst.Else) and isinstance(orelse.body, cst.IndentedBlock):
        yield "orelse", orelse.body.body
    elif isinstance(orelse, cst.If):
        yield "elif", (orelse,)
    final = getattr(statement, "finalbody", None)
    if isinstance(final, cst.Finally) and isinstance(final.body, cst.IndentedBlock):
        yield "finalbody", final.body.body


def _parts_after_header(statement: cst.CSTNode) -> list[cst.CSTNode]:
    """What of a compound statement comes after its header: its body, and its handlers, ``else``
    or ``elif`` and ``finally`` (a node in one of those but in none of its statements, an
    ``except``'s type, renders with the whole statement)."""
    parts = [statement.body, *getattr(statement, "handlers", ())]
    return parts + [p for p in (getattr(statement, "orelse", None), getattr(statement, "finalbody", None)) if p is not None]


def _syntax_block(statement: ast.stmt, key) -> list[ast.stmt] | None:
    """The block of Python's AST statement that :func:`_blocks` names ``key``."""
    if key == "body":
        return getattr(statement, "body", None)
    if key in ("orelse", "elif"):
        return getattr(statement, "orelse", None)
    if key == "finalbody":
        return getattr(statement, "finalbody", None)
    handlers = getattr(statement, "handlers", ())
    return handlers[key[1]].body if key[1] < len(handlers) else None


def _emptied(block: cst.BaseSuite) -> cst.BaseSuite:
    return block.with_changes(body=(_PASS,)) if isinstance(block, cst.IndentedBlock) else block


def _stub(statement: cst.CSTNode, key=None, inner: cst.CSTNode | None = None) -> cst.CSTNode:
    """``statement`` with each of its blocks cut down to ``pass``, but the block ``key``, which
    holds ``inner`` alone (no ``key``: the header rendered alone); an ``else`` not asked for is left out."""
    changes: dict = {"body": _emptied(statement.body)}
    if isinstance(statement, cst.Try):
        changes["handlers"] = [h.with_changes(body=_emptied(h.body)) for h in statement.handlers]
        if statement.orelse is not None:
            changes["orelse"] = statement.orelse.with_changes(body=_emptied(statement.orelse.body))
        if statement.finalbody is not None:
            changes["finalbody"] = statement.finalbody.with_changes(body=_emptied(statement.finalbody.body))
    else:
        changes.update(_NO_ELSE.get(type(statement), {}))
    if key == "body":
        changes["body"] = statement.body.with_changes(body=(inner,))
    elif key == "elif":
        changes["orelse"] = inner
    elif key in ("orelse", "finalbody"):
        block = getattr(statement, key)
        changes[key] = block.with_changes(body=block.body.with_changes(body=(inner,)))
    elif key is not None:
        handlers = list(changes["handlers"])
        handler = statement.handlers[key[1]]
        handlers[key[1]] = handler.with_changes(body=handler.body.with_changes(body=(inner,)))
        changes["handlers"] = handlers
    return statement.with_changes(**changes)


class _Comments(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.Comment] = []

    def visit_Comment(self, node: cst.Comment) -> None:
        self.found.append(node)


def comments(tree: cst.CSTNode) -> list[cst.Comment]:
    """The comments below ``tree``, in the order they are written (libcst's own walk: whitespace
    fields are not in source order)."""
    visitor = _Comments()
    tree.visit(visitor)
    return visitor.found


def names(tree: cst.CSTNode, name: str) -> list[cst.Name]:
    """Every ``Name`` spelled ``name`` below ``tree``, in any role and any nested scope."""
    return find(tree, lambda n: isinstance(n, cst.Name) and n.value == name)


def sees(scope: cst.CSTNode, name: str) -> bool:
    """Whether a nested function, lambda or class may read an outer ``name``.

    A function that binds ``name`` itself (and declares it neither global nor nonlocal) has a
    local of that name and cannot see the outer one.
    """
    if not names(scope, name):
        return False
    parameters = (*scope.params.params, *scope.params.posonly_params, *scope.params.kwonly_params) if isinstance(
        scope, (cst.FunctionDef, cst.Lambda)
    ) else ()
    if isinstance(scope, cst.Lambda):
        return not any(p.name.value == name for p in parameters)  # `lambda w: w ** 4` reads its own `w`
    declared = find(scope, lambda n: isinstance(n, (cst.Global, cst.Nonlocal))
                    and any(item.name.value == name for item in n.names))
    binds_locally = find(scope, lambda n: assign_to(n, name) is not None) or any(p.name.value == name for p in parameters)
    return bool(declared) or not binds_locally


def _member_of(target: cst.BaseExpression | None, name: str) -> str | None:
    """``".attr"`` for a target ``name.attr``, ``"['key']"`` for ``name["key"]`` (a string key),
    ``""`` for another subscript of ``name`` (some member, which cannot be told), else ``None``."""
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == name:
        return f".{target.attr.value}"
    if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and target.value.value == name:
        element = target.slice[0].slice if len(target.slice) == 1 else None
        if isinstance(element, cst.Index) and isinstance(element.value, cst.SimpleString):
            return f"[{element.value.evaluated_value!r}]"
        return ""
    return None


def all_params(function: cst.FunctionDef | cst.Lambda) -> list[cst.Param]:
    params = function.params
    return [*params.posonly_params, *params.params, *params.kwonly_params]


def contains(tree: cst.CSTNode, node: cst.CSTNode) -> bool:
    return bool(find(tree, lambda n: n is node))


def enclosing_loops(rule, node: cst.CSTNode) -> list[cst.For | cst.While]:
    """The loops around ``node``, innermost first, up to the nearest function or class."""
    loops = []
    for ancestor in rule.ancestors(node):
        if isinstance(ancestor, NESTED_SCOPES):
            break
        if isinstance(ancestor, LOOPS):
            loops.append(ancestor)
    return loops


def enclosing_scope(rule, node: cst.CSTNode) -> cst.CSTNode:
    """The function, lambda, class or module whose body holds ``node``: where it runs (a
    default value, an annotation, a decorator or a class's base runs in the scope around)."""
    scope = _scope_among(node, rule.ancestors(node))
    if scope is None:
        raise AssertionError("every node lies in a module")
    return scope


def _scope_among(node: cst.CSTNode, ancestors) -> cst.CSTNode | None:
    """The first of ``node``'s ``ancestors`` that is a scope ``node`` runs inside, if any."""
    below = (node, None, None)  # the child of the ancestor on the way up, and the two under it
    for ancestor in ancestors:
        if type(ancestor) in _SCOPE_KINDS and runs_inside(ancestor, *below):
            return ancestor
        below = (ancestor, below[0], below[1])
    return None


def runs_inside(scope: cst.CSTNode, child: cst.CSTNode, grandchild=None, below=None) -> bool:
    """Whether the node reached from ``scope`` through ``child`` (its child), ``grandchild`` and
    ``below`` runs in ``scope``: not a parameter's default or annotation, a return annotation, a
    decorator or a class's base or keyword, which Python evaluates where the ``def``/``class``
    stands. A parameter's (and the ``def``'s) own name stays the function's, as the rules count it."""
    if isinstance(scope, cst.Module):
        return True
    if isinstance(scope, cst.ClassDef):
        return not (any(child is d for d in scope.decorators) or any(child is b for b in (*scope.bases, *scope.keywords)))
    if isinstance(scope, cst.FunctionDef) and (any(child is d for d in scope.decorators) or child is scope.returns):
        return False
    if child is scope.params and below is not None:
        return not isinstance(grandchild, cst.Param) or below is grandchild.name
    return True


def exits(loop: cst.For | cst.While) -> Iterator[cst.CSTNode]:
    """``break``/``continue`` statements that belong to ``loop`` itself (not to a nested loop)."""

    def walk(node: cst.CSTNode):
        for child in children(node):
            if isinstance(child, (cst.Break, cst.Continue)):
                yield child
            elif not isinstance(child, LOOPS + NESTED_SCOPES):
                yield from walk(child)

    yield from walk(loop.body)


def stores(tree: cst.CSTNode, name: str) -> list[cst.CSTNode]:
    """Statements below ``tree`` that bind ``name`` other than by plain ``name = ...`` (a match
    capture, ``case i:``, among them)."""

    def binds(node: cst.CSTNode) -> bool:
        if isinstance(node, cst.AugAssign | cst.AnnAssign):
            return _is_name(node.target, name)
        if isinstance(node, (cst.For, cst.CompFor)):
            return bool(names(node.target, name))
        if isinstance(node, cst.AsName):
            return bool(names(node.name, name))
        if isinstance(node, cst.Del):
            return bool(names(node.target, name))
        if isinstance(node, cst.NamedExpr):
            return _is_name(node.target, name)
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            return any(item.name.value == name for item in node.names)
        if isinstance(node, (cst.MatchAs, cst.MatchStar)):  # `case i:`, `case [*i]`
            return node.name is not None and _is_name(node.name, name)
        if isinstance(node, cst.MatchMapping):  # `case {**i}`
            return node.rest is not None and _is_name(node.rest, name)
        return False

    return find(tree, binds)


def does_nothing(block: cst.BaseSuite) -> bool:
    """Whether a block is only ``pass`` (a loop's ``else: pass``): code after it may stand in its place."""
    lines = block.body if isinstance(block, cst.IndentedBlock) else [block]
    return all(
        isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite))
        and all(isinstance(small, cst.Pass) for small in line.body)
        for line in lines
    )


def _is_name(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def assign_to(node: cst.CSTNode, name: str | None = None) -> str | None:
    """The name bound by ``node`` if it is a plain single-target ``name = value``."""
    if type(node) is cst.Assign and len(node.targets) == 1:  # no subclasses; isinstance is slow
        target = node.targets[0].target
        if isinstance(target, cst.Name) and (name is None or target.value == name):
            return target.value
    return None


def module_aliases(module: cst.Module, qualified: str) -> list[str]:
    """How the module's top-level imports spell the module ``qualified``, in order (``jnp`` for
    ``jax.numpy`` after ``import jax.numpy as jnp``; ``jax.numpy`` after ``import jax``)."""
    package = qualified.split(".", 1)[0]
    found, by_package = [], []
    for statement in module.body:
        if _may_run_module_code(statement):
            break  # an import after it may not be bound yet where the fix's code runs (`RESULT = run()`)
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, (cst.Import, cst.ImportFrom)) or isinstance(small.names, cst.ImportStar):
                continue
            for alias in small.names:
                if isinstance(small, cst.Import):
                    name = alias.evaluated_name
                    if alias.asname is not None:
                        if name == qualified:
                            found.append(alias.evaluated_alias)
                    elif name == package or name == qualified:
                        by_package.append(qualified)
                elif small.relative == [] or not small.relative:
                    full = f"{_dotted_name(small.module)}.{alias.evaluated_name}"
                    if full == qualified:
                        found.append(alias.evaluated_alias or alias.evaluated_name)
    return list(dict.fromkeys(found + by_package))


def _may_run_module_code(statement: cst.CSTNode) -> bool:
    """Whether a module-level statement may call the module's functions: anything but imports,
    definitions, docstrings and assignments that call nothing. A definition runs code where it
    is made: its decorators, a default value or an annotation that calls (``def g(v=f())``), a
    class's bases and body (``class R: out = f(2.0)``)."""
    if isinstance(statement, cst.FunctionDef):
        made = [statement.params, *([statement.returns] if statement.returns else [])]
        return bool(statement.decorators) or any(find(part, lambda n: isinstance(n, cst.Call)) for part in made)
    if isinstance(statement, cst.ClassDef):
        if statement.decorators or any(find(a, lambda n: isinstance(n, cst.Call)) for a in (*statement.bases, *statement.keywords)):
            return True
        lines = statement.body.body if isinstance(statement.body, cst.IndentedBlock) else [statement.body]
        return any(_may_run_module_code(line) for line in lines)
    if not isinstance(statement, cst.SimpleStatementLine):
        return True
    for small in statement.body:
        if isinstance(small, (cst.Import, cst.ImportFrom, cst.Pass)):
            continue
        if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
            continue
        if isinstance(small, (cst.Assign, cst.AnnAssign)) and not find(small, lambda n: isinstance(n, cst.Call)):
            continue
        return True
    return False


def _dotted_name(node) -> str:
    if node is None:
        return ""
    if isinstance(node, cst.Name):
        return node.value
    return f"{_dotted_name(node.value)}.{node.attr.value}"


def own_nodes(tree: cst.CSTNode, predicate) -> list[cst.CSTNode]:
    """Like :func:`find`, but not looking into functions, lambdas or classes nested in ``tree``."""
    found: list[cst.CSTNode] = []
    stack = list(reversed(children(tree))) if isinstance(tree, NESTED_SCOPES) else [tree]
    while stack:
        node = stack.pop()
        if predicate(node):
            found.append(node)
        stack.extend(child for child in reversed(children(node)) if not isinstance(child, NESTED_SCOPES))
    return found


def _span_of(operator: cst.BaseBinaryOp, left: tuple[int, int], right: tuple[int, int]) -> tuple[int, int] | None:
    """The smallest and largest values ``a <op> b`` takes for ``a`` and ``b`` within the spans;
    ``None`` for ``/``, whose result is a float. An operator it cannot bound raises
    :class:`_Unbounded`."""
    (a, b), (c, d) = left, right
    kind = type(operator)
    if kind is cst.Divide:
        return None
    if kind in (cst.Add, cst.Subtract, cst.Multiply):
        apply = {cst.Add: lambda x, y: x + y, cst.Subtract: lambda x, y: x - y, cst.Multiply: lambda x, y: x * y}[kind]
        ends = [apply(x, y) for x in (a, b) for y in (c, d)]
        return min(ends), max(ends)
    if kind is cst.FloorDivide:
        if c > 0 or d < 0:
            ends = [x // y for x in (a, b) for y in (c, d)]
            return min(ends), max(ends)
        return -max(abs(a), abs(b)), max(abs(a), abs(b))
    if kind is cst.Modulo:
        largest = max(abs(c), abs(d))
        return -largest, largest
    if kind in (cst.BitOr, cst.BitXor, cst.BitAnd):  # no wider than the widest operand's bits
        top = 2 ** max(abs(a), abs(b), abs(c), abs(d)).bit_length()
        return -top, top
    if kind is cst.RightShift and c >= 0:
        return min(a, 0), max(b, 0)
    if kind in (cst.Power, cst.LeftShift) and 0 <= c and d <= 64:
        highest = max(abs(a), abs(b))
        top = highest * 2**d if kind is cst.LeftShift else highest**d
        return (-top if a < 0 else min(0, a), top)
    raise _Unbounded


class _Unbounded(Exception):
    """A Python int that a binding grows from its own value (``big = big * big``, ``n += 1``)."""


def may_overflow_int32(expr, value_sources=None, depth: int = 0) -> bool:
    """Whether ``expr`` is a Python int (literals, names bound to them, and arithmetic on them)
    that is not provably within int32: a write converting it raises ``OverflowError`` in JAX
    before it checks the index, so a fix that reads the slot first would raise ``IndexError``
    instead (a zero-length axis). ``value_sources`` (``Semantics.value_sources``) follows a name
    to what each of its bindings takes its value from: the name's values lie between 0 and
    those of every source (an element of an unpacked tuple, a ``range`` argument of a loop
    target), and a name rebound from its own value (``big = big * big``, ``n += 1``) has no
    bound. A name it cannot follow (a parameter) or a call counts as fitting, and so does
    arithmetic on it (also on a shape, a ``len``), but beside a literal within 2**24 of the limit, or where the literals
    alone pass it for any nonzero int (``flag() * 60000 * 50000``: a call may return an int)."""

    def integral(node) -> bool:  # literals and names (a loop's int index) under arithmetic
        if isinstance(node, (cst.Integer, cst.Name)):
            return True
        if isinstance(node, cst.UnaryOperation):
            return integral(node.expression)
        if isinstance(node, cst.BinaryOperation):
            return integral(node.left) and integral(node.right)
        if isinstance(node, cst.IfExp):
            return integral(node.body) and integral(node.orelse)
        return False

    def sources(name: cst.Name) -> list | None:
        """The name's sources, each an int expression (a tuple's elements for an unpacking);
        ``None`` where one is not, or the name cannot be followed."""
        found = value_sources(name) if value_sources is not None else None
        if found is None:
            return None
        flat = []
        for value in found:
            if isinstance(value, cst.AugAssign):
                if not integral(value.value):
                    return None
                raise _Unbounded  # a Python int accumulated step by step
            items = [e.value for e in value.elements] if isinstance(value, (cst.Tuple, cst.List)) else [value]
            if any(isinstance(e, cst.StarredElement) or not integral(e) for e in items):
                return None
            flat += items
        return flat

    def span(node, visiting: frozenset[str], level: int, unit: bool = False) -> tuple[int, int] | None:
        """The values ``node`` may take; ``None`` where not known. ``unit``: a value not known
        (a call's, a parameter's) counts as one between -1 and 1, so that the span says what the
        literals alone make of it (``flag() * 60000 * 50000`` is past int32 for any nonzero int)."""
        if unit and not isinstance(node, (cst.Integer, cst.Name, cst.UnaryOperation, cst.BinaryOperation, cst.IfExp)):
            return None if isinstance(node, (cst.Float, cst.Imaginary, cst.BaseString)) else (-1, 1)
        if isinstance(node, cst.Integer):
            value = int(node.evaluated_value)
            return value, value
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return 0, 1
            if node.value in visiting or level > 12:
                raise _Unbounded  # rebound from its own value, or followed too far to judge
            found = sources(node)
            if found is None:
                return (-1, 1) if unit else None
            low, high = 0, 0
            for value in found:
                part = span(value, visiting | {node.value}, level + 1, unit)
                if part is None:
                    return None
                low, high = min(low, part[0]), max(high, part[1])
            return low, high
        if isinstance(node, cst.UnaryOperation):
            inner = span(node.expression, visiting, level, unit)
            if inner is None or isinstance(node.operator, cst.Plus):
                return inner
            if isinstance(node.operator, cst.Minus):
                return -inner[1], -inner[0]
            if isinstance(node.operator, cst.BitInvert):  # `~x` is `-x - 1`
                return -inner[1] - 1, -inner[0] - 1
            return 0, 1  # `not x`
        if isinstance(node, cst.BinaryOperation):
            left, right = span(node.left, visiting, level, unit), span(node.right, visiting, level, unit)
            return None if left is None or right is None else _span_of(node.operator, left, right)
        if isinstance(node, cst.IfExp):  # either branch, whatever the test
            body, orelse = span(node.body, visiting, level, unit), span(node.orelse, visiting, level, unit)
            return None if body is None or orelse is None else (min(body[0], orelse[0]), max(body[1], orelse[1]))
        return None

    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Divide):
        return False  # `k / 3`: true division makes a float, never an int
    shifted = lambda n: isinstance(n, (cst.Power, cst.LeftShift))  # noqa: E731
    huge = lambda n: isinstance(n, cst.Integer) and int(n.evaluated_value) >= 2**31  # noqa: E731
    if not isinstance(expr, cst.Name) and not integral(expr) and (find(expr, huge) or find(expr, shifted)):
        return True  # `int(2**40)`, `len(range(2**40))`: a call hides the value, not its size
    fits = lambda known: -(2**31) <= known[0] and known[1] < 2**31  # noqa: E731
    try:
        least = span(expr, frozenset(), 0, unit=True)
    except _Unbounded:
        least = None
    if least is not None and not fits(least) and find(expr, lambda n: isinstance(n, cst.Integer)):
        return True  # the literals alone cross the limit, whatever int the rest is
    large = lambda n: isinstance(n, cst.Integer) and int(n.evaluated_value) >= 2**24  # noqa: E731
    if not integral(expr):  # `-x.shape[0] * 1_000_000_000`: a value not known beside a large literal
        return least is not None and isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation)) and bool(find(expr, large))
    try:
        known = span(expr, frozenset(), 0)
    except _Unbounded:
        return True
    if known is not None:
        return not fits(known)
    # a value not known (a parameter plus a literal): a literal within 2**24 of the limit may cross it
    if find(expr, large) or find(expr, shifted):
        return not isinstance(expr, cst.Name)
    for name in [expr] if isinstance(expr, cst.Name) else find(expr, lambda n: isinstance(n, cst.Name)):
        values = value_sources(name) if value_sources is not None and depth < 4 else None
        if values and len(values) > 1 and any(find(v, large) or find(v, shifted) for v in values):
            return True  # `range(2**31 - 8, n)`: the index runs on from a literal near the limit
        if values and any(may_overflow_int32(v, value_sources, depth + 1) for v in values if not isinstance(v, cst.AugAssign)):
            return True
    return False


def at_call(call: cst.BaseExpression) -> tuple[cst.BaseExpression, str] | None:
    """``(receiver, method)`` for ``receiver.at[...].method(...)``, the receiver any expression."""
    if not isinstance(call, cst.Call):
        return None
    func = call.func
    if (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Subscript)
        and isinstance(func.value.value, cst.Attribute)
        and func.value.value.attr.value == "at"
    ):
        return func.value.value.value, func.attr.value
    return None


def at_update(call: cst.BaseExpression) -> tuple[str, str] | None:
    """``(receiver, method)`` for ``receiver.at[...].method(...)`` on a name, else ``None``."""
    found = at_call(call)
    return (found[0].value, found[1]) if found is not None and isinstance(found[0], cst.Name) else None


def only_return(helper: cst.CSTNode | None) -> cst.Call | None:
    """The call a helper returns where returning it is all the helper does: a ``lambda``'s
    body, or a ``def`` whose one statement (a docstring aside) is ``return call``."""
    if isinstance(helper, cst.Lambda):
        return helper.body if isinstance(helper.body, cst.Call) else None
    if not isinstance(helper, cst.FunctionDef) or helper.decorators or helper.asynchronous:
        return None
    lines = _undocumented(helper)
    if len(lines) != 1 or not isinstance(lines[0], (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return None
    small = lines[0].body
    if len(small) == 1 and isinstance(small[0], cst.Return) and isinstance(small[0].value, cst.Call):
        return small[0].value
    return None


def _undocumented(function: cst.FunctionDef) -> list[cst.CSTNode]:
    """The statements of ``function``'s body, its docstring left out."""
    lines = list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else [function.body]
    if lines and isinstance(lines[0], cst.SimpleStatementLine) and isinstance(lines[0].body[0], cst.Expr) and (
        isinstance(lines[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        return lines[1:]
    return lines


def guarded_return(helper: cst.CSTNode | None) -> tuple[cst.Call, list[tuple[cst.If, str]]] | None:
    """The call a ``def`` returns after ``if`` tests that return one of its parameters unchanged
    (``if row <= 0: return matrix`` then ``return matrix.at[row - 1].set(v)``), and those tests
    with the parameter each hands back: where nothing else comes before the ``return``, a call of
    the helper updates that parameter or hands it back as it was."""
    if not isinstance(helper, cst.FunctionDef) or helper.decorators or helper.asynchronous:
        return None
    lines = _undocumented(helper)
    params = {p.name.value for p in all_params(helper)}
    guards = list(itertools.takewhile(lambda line: isinstance(line, cst.If) and line.orelse is None, lines))
    last = lines[len(guards):]
    if not guards or len(last) != 1 or not isinstance(last[0], cst.SimpleStatementLine):
        return None
    handed = []
    for guard in guards:
        body = guard.body.body
        if isinstance(guard.body, cst.IndentedBlock):
            if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine):
                return None
            body = body[0].body
        if len(body) != 1 or not isinstance(body[0], cst.Return) or not (
            isinstance(body[0].value, cst.Name) and body[0].value.value in params
        ):
            return None
        handed.append((guard, body[0].value.value))
    small = last[0].body
    if len(small) == 1 and isinstance(small[0], cst.Return) and isinstance(small[0].value, cst.Call):
        return small[0].value, handed
    return None


def rebound_return(helper: cst.CSTNode | None) -> tuple[cst.Call, list[tuple[cst.If, str]]] | None:
    """The call a ``def`` binds its parameter to and then returns, ``b = b.at[i].set(v)`` then
    ``return b``; under one ``if`` (``if i % r == 0: b = ...``), with that test, where the helper
    hands ``b`` back unchanged (the shape of :func:`guarded_return`)."""
    if not isinstance(helper, cst.FunctionDef) or helper.decorators or helper.asynchronous:
        return None
    lines = _undocumented(helper)
    params = {p.name.value for p in all_params(helper)}
    if len(lines) != 2 or not isinstance(lines[1], cst.SimpleStatementLine) or len(lines[1].body) != 1:
        return None
    returned = lines[1].body[0]
    if not (isinstance(returned, cst.Return) and isinstance(returned.value, cst.Name) and returned.value.value in params):
        return None
    name, first, guards = returned.value.value, lines[0], []
    if isinstance(first, cst.If) and first.orelse is None and isinstance(first.body, cst.IndentedBlock) and len(first.body.body) == 1:
        guards, first = [(first, name)], first.body.body[0]
    small = first.body if isinstance(first, cst.SimpleStatementLine) else []
    if len(small) == 1 and assign_to(small[0], name) and isinstance(small[0].value, cst.Call):
        return small[0].value, guards
    return None


def static_arguments(decorator: cst.BaseExpression) -> set | None:
    """The positions and names a jit decorator makes static (``partial(jax.jit,
    static_argnums=2)``), or ``None`` where they are not literals."""
    found: set = set()
    for arg in decorator.args if isinstance(decorator, cst.Call) else ():
        if arg.star:
            return None
        if arg.keyword is None or arg.keyword.value not in ("static_argnums", "static_argnames"):
            continue
        value = arg.value
        items = [e.value for e in value.elements] if isinstance(value, (cst.Tuple, cst.List)) else [value]
        for item in items:
            if isinstance(item, cst.Integer):
                found.add(item.evaluated_value)  # `0x1` too
            elif isinstance(item, cst.SimpleString):
                found.add(item.evaluated_value)
            else:
                return None
    return found


def leading_name(expr: cst.BaseExpression) -> cst.Name | None:
    """The name an attribute or item is read from (``state`` of ``state.log["e"]``), or
    ``expr`` itself where it is a name; ``None`` where it is read from another expression."""
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        expr = expr.value
    return expr if isinstance(expr, cst.Name) else None


def call_argument(call: cst.Call, name: str, position: int | None):
    """The argument ``call`` gives the parameter ``name`` (``position`` among those a call may
    pass by position, ``None`` for a keyword-only one): by keyword, or by position; ``...`` where
    a star argument before it may give it (``f(*args)``, ``f(**options)``); ``None`` where the
    call leaves it to its default."""
    keyword = next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)
    if keyword is not None:
        return keyword
    count = 0
    for arg in call.args:
        if arg.keyword is not None or arg.star == "*" and position is None:
            continue
        if arg.star:
            return ...
        if count == position:
            return arg
        count += 1
    return None


def int_value(node) -> int | None:
    """The value of an int literal (``3``, ``-3``), else ``None``."""
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and isinstance(node.expression, cst.Integer):
        return -int(node.expression.evaluated_value)
    return None


def _import_key(statement: cst.Import | cst.ImportFrom, name: str) -> str:
    """What the import ``statement`` binds ``name`` to (``jax.numpy``, ``jax.lax``), as written."""
    module = get_full_name_for_node(statement.module) if isinstance(statement, cst.ImportFrom) and statement.module else ""
    prefix = "." * len(statement.relative) + module if isinstance(statement, cst.ImportFrom) else ""
    for alias in statement.names if not isinstance(statement.names, cst.ImportStar) else ():
        bound = get_full_name_for_node(alias.asname.name) if alias.asname is not None else get_full_name_for_node(alias.name)
        if bound == name or (bound or "").split(".")[0] == name:
            return f"{prefix}:{get_full_name_for_node(alias.name)}"
    return f"{prefix}:*"


def is_constant(node: cst.BaseExpression | None) -> bool:
    """A numeric or bool literal (``0``, ``-1.0``, ``True``): a write of one has the same value
    every step, so there are no per-step rows to collect."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float)) or isinstance(node, cst.Name) and node.value in ("True", "False")


def parent_map(module: cst.Module, kids: dict[cst.CSTNode, list[cst.CSTNode]] | None = None) -> dict[cst.CSTNode, cst.CSTNode]:
    """Each node's parent, as libcst's ``ParentNodeProvider`` gives it, in source order: a tenth
    of the provider's cost (see :func:`children`). ``kids``, if given, receives each node's
    children, for a later walk not to read them again."""
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    stack: list[tuple[cst.CSTNode, cst.CSTNode | None]] = [(module, None)]
    while stack:
        node, parent = stack.pop()
        if parent is not None:
            parents[node] = parent
        found = children(node)
        if kids is not None:
            kids[node] = found
        stack.extend((child, node) for child in reversed(found))
    return parents


_TARGET_PARENTS = {
    cst.AssignTarget: "target", cst.AnnAssign: "target", cst.AugAssign: "target", cst.NamedExpr: "target",
    cst.AsName: "name", cst.CompFor: "target", cst.For: "target",
}
_NAMED = frozenset({cst.FunctionDef, cst.ClassDef, cst.Param})
_PACKING = frozenset({cst.Tuple, cst.List, cst.StarredElement, cst.Element})


def store_contexts(parents: dict[cst.CSTNode, cst.CSTNode]) -> dict[cst.Name, ExpressionContext]:
    """The names that libcst's ``ExpressionContextProvider`` marks ``STORE``, read from the
    parent map: assignment, ``for`` and comprehension targets (through tuple and list packing,
    not into attributes or subscripts), ``:=``, ``as`` names, and the names of functions,
    classes and parameters. ``ScopeProvider`` asks that provider only whether a name is
    stored; the provider's own pass over the tree cost as much as the scope pass itself."""
    stores = {}
    for node, parent in parents.items():
        if type(node) is not cst.Name:
            continue
        if type(parent) in _NAMED:
            if parent.name is node:
                stores[node] = ExpressionContext.STORE
            continue
        child = node
        while type(parent) in _PACKING:
            child, parent = parent, parents.get(parent)
        field = _TARGET_PARENTS.get(type(parent))
        if field is not None and getattr(parent, field) is child:
            stores[node] = ExpressionContext.STORE
    return stores


class _StoredScopeProvider(ScopeProvider):
    """libcst's ``ScopeProvider``, run as its own scope visitor alone, given the ``STORE``
    contexts it depends on (from :func:`store_contexts`) instead of resolving
    ``ExpressionContextProvider``. Through a ``MetadataWrapper`` the provider is one of a
    batch: after its visitor has walked the module, the batch walks the whole tree again for
    nothing, and the context provider's own walk costs as much. The scopes are the same."""

    @classmethod
    def scopes(cls, module: cst.Module, stores: dict[cst.Name, ExpressionContext],
               kids: dict[cst.CSTNode, list[cst.CSTNode]], source: str) -> dict:
        """``kids``: each node's children (see :func:`parent_map`); ``source``: the module's text."""
        provider = cls()
        provider.metadata = {ExpressionContextProvider: stores}
        visitor = _ScopeWalk(provider)  # what ``visit_Module`` does, with the walk below
        visitor.kids = kids
        visitor.typing_calls = _TYPING_CALLS | set(_TYPING_ALIAS.findall(source))
        module.visit(visitor)
        visitor.infer_accesses()
        return provider._computed


_NOT_BINDINGS = frozenset({cst.Attribute, cst.Call, cst.Subscript})
"""Nodes that no binding of a scope is (a ``def``, a ``class``, an import or a target is): out of
an import statement, libcst's scope answers for them by their dotted name alone."""
_TYPING_CALLS = frozenset({"cast", "NewType", "TypeVar"})
_TYPING_ALIAS = re.compile(r"\b(?:cast|NewType|TypeVar)\s+as\s+(\w+)")
"""A name the file imports ``typing.cast``, ``NewType`` or ``TypeVar`` as (``from typing import cast as c``)."""


class _ScopeWalk(ScopeVisitor):
    """libcst's scope visitor, walking the tree without rebuilding it.

    ``CSTNode.visit`` rebuilds every node it visits children of (its "TODO: provide traversal
    where children are not replaced"), even for a visitor that changes nothing: that rebuild
    was most of what the scopes of a file cost. Here each node's children are visited from
    this method, in source order as libcst visits them (:func:`children`), and libcst is told
    not to. The scope visitor keeps no attribute visitors that can run (its ``ClassDef_bases``
    ones sit under ``visit_ClassDef``, which walks the class itself), so nothing else is
    skipped. Its callbacks are looked up once per node type, and ``on_leave``'s test is by
    type: ``isinstance`` against libcst's abstract node classes was the next cost. The scopes
    are libcst's, assignment order and all (``tests/source/test_semantics.py`` compares)."""

    kids: dict[cst.CSTNode, list[cst.CSTNode]]
    typing_calls: set[str]
    _visits: dict[type, object] = {}
    _leaves: dict[type, tuple[object, bool]] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        kind = type(node)
        visit = self._visits.get(kind)
        if visit is None:
            visit = self._visits[kind] = getattr(type(self), f"visit_{kind.__name__}")
        if visit(self, node) is not False:
            found = self.kids.get(node)  # (none for a string annotation's parse, which libcst walks too)
            for child in found if found is not None else children(node):
                self.on_visit(child)
                self.on_leave(child)
        return False

    def visit_Call(self, node: cst.Call) -> bool | None:
        """libcst's ``visit_Call`` asks every call's qualified names, to find ``typing.cast``,
        ``NewType`` and ``TypeVar`` (whose string arguments are type hints): for a name assigned
        hundreds of times in one scope, each asking walks every assignment (2 s of a 74 KB
        file). Only a call spelled as one of those, or as a name the file imports one of them
        as, can name them; the others get what libcst's method gives them, without the question."""
        func = node.func
        spelled = func.value if type(func) is cst.Name else func.attr.value if type(func) is cst.Attribute else None
        if spelled in self.typing_calls or not hasattr(self, "_ScopeVisitor__in_type_hint_stack"):
            return super().visit_Call(node)
        self._ScopeVisitor__top_level_attribute_stack.append(None)
        self._ScopeVisitor__in_type_hint_stack.append(False)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        kind = type(original_node)
        leave = self._leaves.get(kind)
        if leave is None:
            leave = self._leaves[kind] = (
                getattr(type(self), f"leave_{kind.__name__}"), issubclass(kind, _ASSIGNMENT_LIKE_NODES),
            )
        self.provider.set_metadata(original_node, self.scope)
        if leave[1]:
            self.scope._assignment_count += 1
        leave[0](self, original_node)


BUILTINS_STORE = re.compile(
    r"\b(?:builtins|__builtins__)\s*\.\s*(\w+)\s*=(?!=)"
    r"|(?:setattr\(\s*(?:builtins|__builtins__)\s*,\s*|__builtins__\s*\[\s*)[\"'](\w+)[\"']"
    r"|(setattr\(\s*(?:builtins|__builtins__)\b|__builtins__\s*\[|(?:builtins|__builtins__)\s*\.\s*update\(|vars\(\s*builtins\s*\))"
    r"|[\"']builtins\.(\w+)[\"']"
)
"""A store into the ``builtins`` module: ``builtins.range = f``, ``setattr(builtins, "len", f)``,
``__builtins__["range"] = f``, a patch of a name given as a string (``monkeypatch.setattr("builtins.print",
f)``); any (``*``) for a ``setattr``, an item or an ``update`` by names not written out
(``__builtins__.update(...)``, ``vars(builtins)``)."""


_BUILTINS_MENTION = re.compile(
    r"(?<![\"'])\b(?:builtins|__builtins__)\b(?=[ \t]*(?:\.[ \t]*\w|[,)\]\[=]|$))"
    r"|[(\[][ \t]*[rbuRBU]?[\"'](?:builtins|__builtins__)[\"']|\b(?:import|from)[ \t]+(?:builtins|__builtins__)\b",
    re.M,
)
"""The ``builtins`` module named in code: an attribute of it (``builtins.x``), it in an argument list,
an item or a target list (``builtins,``, ``builtins)``, ``builtins = b``), its name given to a call
or an item (``import_module("builtins")``, ``sys.modules["builtins"]``), or imported; not a word of
prose (``Diffrax builtins.``) nor a string compared (``mod != "builtins"``)."""
_BUILTINS_READ = re.compile(
    r"^[ \t]*import[ \t]+builtins[ \t]*(?:#[^\n]*)?$|^[ \t]*from[ \t]+builtins[ \t]+import[ \t]+(?!.*__)[\w, \t]+$"
    r"|\bbuiltins[ \t]*\.[ \t]*[A-Za-z]\w*[ \t]*\(|[\"']__builtins__[\"'][ \t]*:",
    re.M,
)
"""What only reads the ``builtins`` module: its plain import, names imported from it, a call of one
of its functions (``builtins.max(a, b)``), the builtins given to ``eval`` (``{"__builtins__": {}}``)."""


def stored_builtin_names(text: str) -> frozenset[str]:
    """The builtins ``text`` stores (see :data:`BUILTINS_STORE`), ``"*"`` for any: also wherever it
    names the module otherwise than to read it (see :data:`_BUILTINS_READ`), which an alias
    (``import builtins as B``), a dunder (``object.__setattr__(builtins, ...)``,
    ``builtins.__dict__``), a target list or a string (``import_module("builtins")``) may store through."""
    if "builtins" not in text:
        return frozenset()
    stores = list(BUILTINS_STORE.finditer(text))
    spans = [m.span() for m in (*stores, *_BUILTINS_READ.finditer(text))]
    unread = any(not any(a <= m.start() < b for a, b in spans) for m in _BUILTINS_MENTION.finditer(text))
    return frozenset(m.group(1) or m.group(2) or m.group(4) or "*" for m in stores) | ({"*"} if unread else frozenset())


UNSCOPED_BINDINGS = (
    cst.Del, cst.MatchAs, cst.MatchStar, cst.MatchMapping, cst.TypeVar, cst.TypeVarTuple, cst.ParamSpec, cst.TypeAlias,
)
"""Bindings that libcst's scopes do not list as assignments: ``del``, match captures
(``case -1 as jnp:``) and type parameters."""


class Semantics:
    """The file's names and bindings, indexed once: what the rules ask of every candidate.

    Answering "which names does this scope use" by walking the scope is cheap for a function
    and costs the whole file for the module; asked once per candidate, that made checking a
    file quadratic in its size. The index is built in one pass over the parent map libcst's
    metadata already holds, and libcst's ``ScopeProvider`` gives the bindings of each scope.
    """

    def __init__(self, module: cst.Module, source: str, star_names: dict[str, str] | None = None,
                 stored_builtins: frozenset[str] = frozenset(), python_tree: ast.Module | None = None) -> None:
        """``python_tree``: Python's AST of ``source`` where the caller has parsed it already."""
        self.module = module
        self.star_names = star_names or {}
        """Names the file's star imports of modules of the run bind, and what each names."""
        kids: dict[cst.CSTNode, list[cst.CSTNode]] = {}
        self.parents = parent_map(module, kids)
        self.scope_of = _StoredScopeProvider.scopes(module, store_contexts(self.parents), kids, source)
        self._positions = None
        self._statement_positions: dict[tuple[cst.CSTNode, bool], tuple[dict, int]] = {}
        self._lines: list[str] | None = None
        self._source = source
        self._stored_builtins = stored_builtins | stored_builtin_names(source)
        """The builtins that this file or another module of the run stores (``builtins.range = f``)."""
        self._python_tree: ast.Module | bool | None = python_tree
        self._statement_syntax: dict[tuple[cst.CSTNode, object], dict[cst.CSTNode, ast.stmt]] = {}
        self.nodes: list[cst.CSTNode] = [module, *self.parents]
        """Every node of the file, in source order."""
        self._order = {node: place for place, node in enumerate(self.nodes)}
        self._last: dict[cst.CSTNode, int] | None = None
        self._qualified: dict[cst.CSTNode, set[str]] = {}
        self._dotted_names: dict[tuple[int, str], set[str]] = {}
        self._resolving: set[cst.CSTNode] = set()
        self._resolved: dict[cst.CSTNode, set[str]] = {}
        self.by_value: dict[str, list[cst.Name]] = {}
        self.by_top: dict[tuple[int, str], list[cst.Name]] = {}
        """Names by the top-level statement they are in: a function's question costs its statement."""
        self.definitions: dict[str, list[cst.FunctionDef | cst.ClassDef]] = {}
        self._top: dict[int, cst.CSTNode] = {}
        self._by_kind: dict[type, list[cst.CSTNode]] = {}
        """Every node of the file by its type, in source order (see :meth:`of_kind`)."""
        self._kind_orders: dict[type, list[int]] = {}
        for node in self.parents:
            kind = type(node)  # (libcst's classes are final: `isinstance` against them costs more)
            self._by_kind.setdefault(kind, []).append(node)
            if kind is cst.Name:
                self.by_value.setdefault(node.value, []).append(node)
                self.by_top.setdefault((id(self.top(node)), node.value), []).append(node)
            elif kind is cst.FunctionDef or kind is cst.ClassDef:
                self.definitions.setdefault(node.name.value, []).append(node)
        self._scope_node: dict[int, cst.CSTNode] = {}
        self._shadowed: dict[tuple[str, ...], str | None] = {}
        self._foreign_star: bool | None = None
        self._assignments: dict[str, list] | None = None
        self._defined_attributes: dict[str, bool] = {}
        self._given_attributes: frozenset[str] | None | bool = False
        self.built_strings: list[cst.CSTNode] | None = None
        """The strings the file builds at run time (see :func:`attributes.may_build`), found once."""
        self._bound_values: dict[tuple[int, str], list[cst.BaseExpression] | None] = {}
        self._module_spellings: dict[str, str | None] = {}
        self._value_sources: dict[tuple[int, str], list[cst.BaseExpression] | None] = {}
        self._bindings: dict[tuple[int, str], list[tuple[str, cst.CSTNode, int]]] = {}
        self._rebound: dict[str, bool] = {}
        self._binds_here: dict[tuple[int, str], bool] = {}
        self._top_orders: dict[tuple[int, str], list[int]] = {}
        """For each list of :attr:`by_top`, the places of its names in :attr:`nodes`, ascending."""
        self._single_assignments: dict[tuple[int, str], cst.BaseExpression | None] = {}

    # -- where nodes are ---------------------------------------------------------------------
    def unnormalized_name(self) -> str | None:
        """A name the file spells otherwise than Python reads it: identifiers are NFKC-normalised
        (``ﬁ`` is ``fi``, a full-width ``ｂｕｆ`` is ``buf``), so two spellings may be one
        variable where the rules, comparing spellings, see two."""
        return next((v for v in self.by_value if not v.isascii() and unicodedata.normalize("NFKC", v) != v), None)

    def ancestors(self, node: cst.CSTNode):
        parent = self.parents.get(node)
        while parent is not None:
            yield parent
            parent = self.parents.get(parent)

    def top(self, node: cst.CSTNode) -> cst.CSTNode:
        """The top-level statement holding ``node`` (the module for the module)."""
        path = []
        while node is not self.module and id(node) not in self._top:
            parent = self.parents.get(node)
            if parent is None or parent is self.module:
                self._top[id(node)] = node
                break
            path.append(node)
            node = parent
        top = self._top.get(id(node), self.module)
        for visited in path:
            self._top[id(visited)] = top
        return top

    def within(self, node: cst.CSTNode, tree: cst.CSTNode) -> bool:
        """Whether ``node`` is ``tree`` or below it: a subtree is a run of the source order."""
        return self._order[tree] <= self._order[node] <= self._end(tree)

    # -- the file's trees, walked through the index ---------------------------------------------
    # Each of these answers what the function of the same name in this module answers, from the
    # source-order list of nodes: a walk of the nodes (libcst's own rebuilds them) cost more than
    # all else a rule does. A tree that a fix built is not in the file: it is walked.
    def find(self, tree: cst.CSTNode, predicate) -> list[cst.CSTNode]:
        start = self._order.get(tree)
        if start is None:
            return find(tree, predicate)
        return [n for n in self.nodes[start : self._end(tree) + 1] if predicate(n)]

    def of_kind(self, tree: cst.CSTNode, *kinds: type) -> list[cst.CSTNode]:
        """``find(tree, lambda n: isinstance(n, kinds))`` for node classes of libcst (they are
        final), from the nodes of each type: a rule that asks it of a long loop for each
        statement in it no longer walks the loop each time."""
        start = self._order.get(tree)
        if start is None:
            return find(tree, lambda n: isinstance(n, kinds))
        end = self._end(tree)
        found: list[cst.CSTNode] = []
        for kind in kinds:
            nodes = self._by_kind.get(kind, [])
            if kind not in self._kind_orders:
                self._kind_orders[kind] = [self._order[n] for n in nodes]
            orders = self._kind_orders[kind]
            found += nodes[bisect.bisect_left(orders, start):bisect.bisect_right(orders, end)]
        if len(kinds) > 1:
            found.sort(key=self._order.__getitem__)
        return found

    def own_of_kind(self, tree: cst.CSTNode, *kinds: type) -> list[cst.CSTNode]:
        """``own_nodes(tree, lambda n: isinstance(n, kinds))``, from the nodes of each type: the
        statements of a function of ten thousand lines are not walked once per question."""
        if tree not in self._order:
            return own_nodes(tree, lambda n: isinstance(n, kinds))
        return [n for n in self.of_kind(tree, *kinds) if self._own(n, tree)]

    def _own(self, node: cst.CSTNode, tree: cst.CSTNode) -> bool:
        """Whether ``node`` of ``tree`` lies in no function, lambda or class nested in it, nor is one."""
        if type(node) in _NESTED_KINDS:
            return False
        while node is not tree:
            node = self.parents[node]
            if node is not tree and type(node) in _NESTED_KINDS:
                return False
        return True

    def own_nodes(self, tree: cst.CSTNode, predicate) -> list[cst.CSTNode]:
        start = self._order.get(tree)
        if start is None:
            return own_nodes(tree, predicate)
        found, place, end = [], start + isinstance(tree, NESTED_SCOPES), self._end(tree)
        nodes = self.nodes
        while place <= end:
            node = nodes[place]
            if type(node) in _NESTED_KINDS:
                place = self._end(node) + 1
                continue
            if predicate(node):
                found.append(node)
            place += 1
        return found

    def contains(self, tree: cst.CSTNode, node: cst.CSTNode) -> bool:
        if tree in self._order and node in self._order:
            return self.within(node, tree)
        return contains(tree, node)

    def stores(self, tree: cst.CSTNode, name: str) -> list[cst.CSTNode]:
        if tree not in self._order:
            return stores(tree, name)
        found = {}
        for node in self.names_in(tree, name):
            for ancestor in self.ancestors(node):
                if self._binds_by_store(ancestor, node):
                    found[ancestor] = None
                if ancestor is tree:
                    break
        return sorted(found, key=self._order.__getitem__)

    def _binds_by_store(self, statement: cst.CSTNode, name: cst.Name) -> bool:
        """Whether ``statement`` binds ``name`` as :func:`stores` counts bindings."""
        if isinstance(statement, (cst.AugAssign, cst.AnnAssign, cst.NamedExpr)):
            return statement.target is name
        if isinstance(statement, (cst.For, cst.CompFor, cst.Del)):
            return self.within(name, statement.target)
        if isinstance(statement, cst.AsName):
            return self.within(name, statement.name)
        if isinstance(statement, (cst.Global, cst.Nonlocal)):
            return self.parents.get(self.parents.get(name)) is statement
        if isinstance(statement, (cst.MatchAs, cst.MatchStar)):
            return statement.name is name
        if isinstance(statement, cst.MatchMapping):
            return statement.rest is name
        return False

    def enclosing_scope(self, node: cst.CSTNode) -> cst.CSTNode:
        """The function, lambda, class or module whose body holds ``node``, as :func:`enclosing_scope`
        counts it."""
        return _scope_among(node, self.ancestors(node)) or self.module

    # -- names -------------------------------------------------------------------------------
    def names_in(self, tree: cst.CSTNode, name: str) -> list[cst.Name]:
        """Like :func:`names` (every ``Name`` spelled ``name`` below ``tree``), from the index."""
        if tree is self.module:
            return list(self.by_value.get(name, ()))
        if tree not in self._order:
            return names(tree, name)
        key = (id(self.top(tree)), name)
        found = self.by_top.get(key)
        if not found:
            return []
        if key not in self._top_orders:  # a class of a thousand lines is one statement: search, not filter
            self._top_orders[key] = [self._order[n] for n in found]
        orders = self._top_orders[key]
        start, end = self._order[tree], self._end(tree)
        return found[bisect.bisect_left(orders, start):bisect.bisect_right(orders, end)]

    def variables(self, tree: cst.CSTNode, name: str | None = None) -> list[cst.Name]:
        """The ``Name`` nodes below ``tree`` (spelled ``name``, if given) that stand for a variable:
        not an attribute's own name (``x.h``'s ``h``) nor a keyword (``f(h=1)``'s ``h``)."""
        if tree not in self._order:  # a tree a fix built: its parents are not in the index
            labels = {id(n.attr) for n in find(tree, lambda n: isinstance(n, cst.Attribute))}
            labels |= {id(n.keyword) for n in find(tree, lambda n: isinstance(n, cst.Arg) and n.keyword is not None)}
            found = find(tree, lambda n: isinstance(n, cst.Name) and name in (None, n.value))
            return [n for n in found if id(n) not in labels]
        found = self.find(tree, lambda n: isinstance(n, cst.Name)) if name is None else self.names_in(tree, name)
        return [n for n in found if not self.is_label(n)]

    def is_label(self, name: cst.Name) -> bool:
        """Whether ``name`` labels rather than reads: an attribute's own name (``x.h``'s ``h``) or
        a keyword (``f(h=1)``'s ``h``)."""
        parent = self.parents.get(name)
        return isinstance(parent, cst.Attribute) and parent.attr is name or isinstance(parent, cst.Arg) and parent.keyword is name

    def definitions_in(self, scope: cst.CSTNode, name: str) -> list[cst.FunctionDef | cst.ClassDef]:
        """The ``def``/``class`` statements named ``name`` whose enclosing scope is ``scope``."""
        return [d for d in self.definitions.get(name, ()) if self.enclosing_scope(d) is scope]

    def binding(self, name: cst.Name) -> cst.CSTNode | None:
        """The ``def``/``class`` or assigned value that ``name`` holds where it is read, or None
        (a parameter, an unpacking, any other binding, or none in this file).

        The nearest scope that binds the name decides; there it is the last binding whose
        statement ends before the read starts (in ``f = jax.jit(f)`` the read is the earlier
        ``f``), or the last one of the scope when the read is in a nested function, which most
        often runs after the scope's code (a guess: a lambda given to ``fori_loop`` runs at once,
        a helper may be called before a redefinition, so a fix must prove its own case). For a
        fact that must hold on every path, :meth:`assigned_value` answers only for names bound once.
        """
        scope = self.enclosing_scope(name)
        reader = scope
        read_at = self._start(name)
        while True:
            candidates = self._bindings_in(scope, name.value)
            if candidates:
                if reader is scope:
                    candidates = [c for c in candidates if c[2] < read_at] or candidates
                role, holder, _ = max(candidates, key=lambda c: c[2])
                if role == "def":
                    return holder
                if role == "plain":
                    return holder.value
                return None
            if isinstance(scope, cst.Module):
                return None
            scope = self.enclosing_scope(scope)

    def _bindings_in(self, scope: cst.CSTNode, name: str) -> list[tuple[str, cst.CSTNode, int]]:
        """``(role, holder, where it binds)`` for each of ``scope``'s own bindings of ``name``,
        once per scope and name (a name read a thousand times in a class is asked of as often)."""
        key = (id(scope), name)
        if key not in self._bindings:
            candidates = []
            for node in self.names_in(scope, name):
                role, holder = binding_role(self.parents, node)
                if role is None:
                    continue
                parent = self.parents.get(node)
                own = parent if isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is node else node
                if self.enclosing_scope(own) is not scope:
                    continue
                # an assignment or a def binds once its statement has run; a loop target, `as`
                # or `:=` where the name stands
                candidates.append((role, holder, self._end(holder if role in ("plain", "unpack", "def") else node)))
            self._bindings[key] = candidates
        return self._bindings[key]

    def position(self, node: cst.CSTNode) -> CodeRange:
        """What libcst's ``PositionProvider`` gives ``node``, computed for the smallest definition
        that holds it only: the provider's code generation of the whole file cost more than all
        the rules' questions, and a file's findings are in a few of its functions. A class of a
        thousand lines holding the finding's method is cut down to its header and that method,
        down to the innermost statement of a block around the node (a loop's, an ``if``'s or its
        ``else``'s, a ``with``'s, a ``try``'s or a handler's), the other blocks cut to ``pass`` (a
        node in a compound statement's header renders with that header alone); Python's own parse of the
        file says on which line that statement starts, and where a compound statement that is
        itself the node starts and ends."""
        path = self._definitions_holding(node)
        line = self._first_line(path) if path else None
        if line is None:  # the module's header or footer, or a grammar newer than this Python
            if self._positions is None:
                self._positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
            return self._positions[node]
        holder = path[-1][0]
        if holder is node and isinstance(node, _NESTING_STATEMENTS):  # a loop of a thousand lines: Python's AST has its extent
            owner, block = path[-2] if len(path) > 1 else (self.module, "body")
            statement = self._syntax_of(owner, block).get(node)
            if statement is not None and statement.end_lineno is not None:
                if self._lines is None:
                    self._lines = self._source.splitlines(True)
                end = len(self._lines[statement.end_lineno - 1].encode()[: statement.end_col_offset].decode(errors="replace"))
                return CodeRange(CodePosition(statement.lineno, statement.col_offset), CodePosition(statement.end_lineno, end))
        header = holder is not node and isinstance(holder, _NESTING_STATEMENTS) and not any(
            self.within(node, part) for part in _parts_after_header(holder)
        )
        if header:  # `for t in range(n):` of a loop of a thousand lines: its header renders without its blocks
            holder = _stub(holder)
        key = (path[-1][0], header)
        if key not in self._statement_positions:
            stub = holder
            for outer, block in reversed(path[:-1]):
                stub = _stub(outer, block, stub)
            alone = self.module.with_changes(header=(), body=(stub,), footer=())
            positions = MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider)
            self._statement_positions[key] = (positions, line - positions[holder].start.line)
        positions, before = self._statement_positions[key]
        found = positions[node]
        return CodeRange(
            CodePosition(found.start.line + before, found.start.column),
            CodePosition(found.end.line + before, found.end.column),
        )

    def _definitions_holding(self, node: cst.CSTNode) -> list[tuple[cst.CSTNode, object]]:
        """The top-level statement holding ``node`` and the statements of the blocks of compound
        statements holding it below that, outermost first, each with the key of its block that
        holds the next (``None`` for the last; none for the module's header and footer). Rendered
        each with only the next one in that block, they keep the file's indentation: a finding
        in a function of a thousand lines renders the few statements around it."""
        top = self.top(node)
        if self.parents.get(top) is not self.module or top not in self._syntax_of(self.module, "body"):
            return []
        path: list[tuple[cst.CSTNode, object]] = [(top, None)]
        while isinstance(path[-1][0], _NESTING_STATEMENTS):
            inner = next(
                ((key, m) for key, statements in _blocks(path[-1][0]) for m in statements if self.within(node, m)), None
            )
            if inner is None:  # in the header (decorators, parameters, bases, a loop's iterable, an `except`'s type)
                break
            path[-1] = (path[-1][0], inner[0])
            path.append((inner[1], None))
        return path

    def _first_line(self, path: list[tuple[cst.CSTNode, object]]) -> int | None:
        """The line on which the last statement of ``path`` starts, as Python's AST of the file
        has it: where libcst's provider starts a statement too (a definition at its ``def``, past decorators)."""
        owner, key = self.module, "body"
        for statement, block in path:
            found = self._syntax_of(owner, key).get(statement)
            if found is None:
                return None
            owner, key = statement, block
        return found.lineno

    def _syntax_of(self, owner: cst.CSTNode, key) -> dict[cst.CSTNode, ast.stmt]:
        """Python's AST statement that each statement of ``owner``'s block ``key`` starts with
        (a line of ``a; b`` is two), or nothing where the two parses do not line up."""
        if (owner, key) not in self._statement_syntax:
            if owner is self.module:
                tree = self._python_syntax()
                syntax_body = tree.body if tree is not None else None
                body = self.module.body
            else:
                outer = self._syntax_of(*self._block_holding(owner)).get(owner)
                syntax_body = _syntax_block(outer, key) if outer is not None else None
                body = next((statements for k, statements in _blocks(owner) if k == key), ())
            sizes = [len(s.body) if isinstance(s, cst.SimpleStatementLine) else 1 for s in body]
            table = {}
            if syntax_body is not None and sum(sizes) == len(syntax_body):
                starts = itertools.accumulate(sizes, initial=0)
                table = {statement: syntax_body[start] for statement, start in zip(body, starts)}
            self._statement_syntax[(owner, key)] = table
        return self._statement_syntax[(owner, key)]

    def _block_holding(self, statement: cst.CSTNode) -> tuple[cst.CSTNode, object]:
        """The compound statement (or the module) whose block holds ``statement``, and that block's key."""
        parent = self.parents[statement]
        if parent is self.module:
            return self.module, "body"
        if isinstance(parent, cst.If) and parent.orelse is statement:
            return parent, "elif"
        around = self.parents[parent]  # the block's owner: the statement, or its `else`, handler or `finally`
        if isinstance(around, (cst.Else, cst.Finally, cst.ExceptHandler)):
            outer = self.parents[around]
            if isinstance(around, cst.ExceptHandler):
                return outer, ("handlers", outer.handlers.index(around))
            return outer, "orelse" if isinstance(around, cst.Else) else "finalbody"
        return around, "body"

    def _python_syntax(self) -> ast.Module | None:
        if self._python_tree is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    self._python_tree = ast.parse(self._source)
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    self._python_tree = False
        return self._python_tree or None

    def qualified_names(self, node: cst.CSTNode) -> set[str]:
        """What libcst's ``QualifiedNameProvider`` gives ``node``, asked of its scope only for the
        nodes a rule asks about, rather than computed for every node of the file."""
        if node not in self._qualified:
            scope = self.scope_of.get(node)
            self._qualified[node] = self._scope_names(scope, node) if scope else set()
        return self._qualified[node]

    def _scope_names(self, scope, node: cst.CSTNode) -> set[str]:
        """``scope.get_qualified_names_for(node)``. For a node that is no access and no part of an
        import (``jnp.zeros``, ``p.at[i].set``'s callee), libcst checks it against each binding of
        its first name in the scope before taking them all: hundreds of ``p = ...`` made that a
        walk per call. Such a node is none of those bindings, so the answer is the one for its
        dotted name, asked once per scope."""
        accesses = getattr(scope, "_accesses_by_node", None)
        if type(node) not in _NOT_BINDINGS or accesses is None or accesses.get(node) or type(self.parents.get(node)) is cst.ImportAlias:
            return {q.name for q in scope.get_qualified_names_for(node)}
        full = get_full_name_for_node(node)
        if full is None:
            return set()
        key = (id(scope), full)
        if key not in self._dotted_names:
            self._dotted_names[key] = {q.name for q in scope.get_qualified_names_for(full)}
        return set(self._dotted_names[key])

    def resolved_names(self, node: cst.CSTNode) -> set[str]:
        """:meth:`qualified_names`, and for a name bound once at module level to an imported
        name or an attribute of one (``partial = functools.partial``, ``scan = jax.lax.scan``),
        what that alias names: the callee a rule asks about is the program's, not its spelling.
        A name the file binds nowhere, that a star import of a module of the run hands it
        (``jnp`` of ``from utils import *``), names what that module imported."""
        names = self.qualified_names(node)
        if not names and self.star_names:
            return self._star_resolved(node)
        if not isinstance(node, cst.Name) or not names or node in self._resolving:
            return names
        if node not in self._resolved:
            self._resolving.add(node)
            try:
                self._resolved[node] = self._alias_names(node) or names
            finally:
                self._resolving.discard(node)
        return self._resolved[node]

    def _star_resolved(self, node: cst.CSTNode) -> set[str]:
        parts = []
        root = node
        while isinstance(root, cst.Attribute):
            parts.append(root.attr.value)
            root = root.value
        if not isinstance(root, cst.Name) or root.value not in self.star_names or self.binds(root.value):
            return set()
        return {".".join([self.star_names[root.value], *reversed(parts)])}

    def _alias_names(self, node: cst.Name) -> set[str] | None:
        scope = self.scope_of.get(node)
        if scope is None or not all(q.source is QualifiedNameSource.LOCAL for q in scope.get_qualified_names_for(node)):
            return None
        alias = self.assigned_value(node)
        if not isinstance(alias, (cst.Name, cst.Attribute)) or not isinstance(self.enclosing_scope(alias), cst.Module):
            return None
        root = alias
        while isinstance(root, cst.Attribute):
            root = root.value
        root_scope = self.scope_of.get(root)
        if not isinstance(root, cst.Name) or root_scope is None or not any(
            q.source is QualifiedNameSource.IMPORT for q in root_scope.get_qualified_names_for(root)
        ):
            return None
        return self.resolved_names(alias)

    def precedes(self, node: cst.CSTNode, other: cst.CSTNode) -> bool:
        """Whether ``node`` starts before ``other`` in the source: what comparing their lines
        answers, without the code generation that positions cost."""
        return self._order[node] < self._order[other]

    def after(self, node: cst.CSTNode, other: cst.CSTNode) -> bool:
        """Whether ``node`` starts after all of ``other`` (its subtree included) in the source."""
        return self._order[node] > self._end(other)

    def _start(self, node: cst.CSTNode) -> int:
        """Where ``node`` starts, as its place in source order: the order is all that
        :meth:`binding` compares, and positions cost a code generation of the file."""
        return self._order[node]

    def _end(self, node: cst.CSTNode) -> int:
        """Where ``node`` ends: the place of the last node of its subtree, which in a preorder
        comes right before whatever follows ``node``."""
        if self._last is None:
            self._last = dict(self._order)
            for child, parent in reversed(self.parents.items()):
                if self._last[child] > self._last[parent]:
                    self._last[parent] = self._last[child]
        return self._last[node]

    def assignments(self, name: str) -> list:
        """libcst's assignments of ``name`` in every scope of the file."""
        if self._assignments is None:
            self._assignments = {}
            for scope in {id(s): s for s in self.scope_of.values() if s is not None}.values():
                for assignment in scope.assignments:
                    self._assignments.setdefault(assignment.name, []).append(assignment)
        return self._assignments.get(name, [])

    def shadowed(self, roots: tuple[str, ...]) -> str | None:
        """A builtin the fixes call (``tuple``, ``range``) bound anywhere in the file, or one of
        ``roots`` (``jnp``, ``lax``) bound other than by a module-level import; ``"*"`` where a
        star import of a module outside JAX and NumPy may bind any of them."""
        if roots not in self._shadowed:
            found = "*" if self.foreign_star_import() else None
            for builtin in ("tuple", "range") if found is None else ():
                if self.builtin_shadowed(builtin):
                    found = builtin
                    break
            for root in roots if found is None else ():
                if self.rebound(root):
                    found = root
                    break
            self._shadowed[roots] = found
        return self._shadowed[roots]

    def foreign_star_import(self) -> bool:
        """Whether the module star-imports a module outside JAX and NumPy, which may bind any
        name a fix spells (``jnp``, ``lax``, ``int``, ``len``)."""
        if self._foreign_star is None:
            self._foreign_star = any(name is None or not jax_or_numpy(name) for name, _ in star_imports(self.module))
        return self._foreign_star

    def builtin_shadowed(self, name: str) -> bool:
        """Whether a fix's call of the builtin ``name`` (``int``, ``len``) may reach something else:
        the file binds the name, or star-imports a module outside JAX and NumPy, or it or another
        module of the run stores it in the ``builtins`` module."""
        return self.binds(name) or bool(self.assignments(name)) or self.foreign_star_import() or (
            name in self._stored_builtins or "*" in self._stored_builtins
        )

    def binds(self, name: str) -> bool:
        """Whether anything in the file binds ``name``: an assignment, a ``def``/``class``, a match
        capture, a type parameter (what a fix's call of a builtin of that name would reach)."""
        return any(binding_role(self.parents, n)[0] is not None for n in self.by_value.get(name, ()))

    def rebound(self, root: str) -> bool:
        """Whether the file binds ``root`` (``jnp``) other than by a module-level import, or declares
        it ``global``/``nonlocal``, deletes it (``del jnp`` after import-time use) or captures it
        in a ``match``: a fix that spells it may then reach something else, or nothing."""
        if root not in self._rebound:
            self._rebound[root] = self._rebinds(root)
        return self._rebound[root]

    def _rebinds(self, root: str) -> bool:
        imports = set()
        for assignment in self.assignments(root):
            imported = isinstance(assignment.node, (cst.Import, cst.ImportFrom))
            if not (imported and isinstance(self.scope_of.get(assignment.node), GlobalScope)):
                return True
            imports.add(_import_key(assignment.node, root))
        if len(imports) > 1 or self.foreign_star_import():
            return True  # `import numpy as jnp` after `import jax.numpy as jnp`, or `from helpers import *`
        if any(isinstance(binding_role(self.parents, n)[1], UNSCOPED_BINDINGS) for n in self.by_value.get(root, ())):
            return True
        return self.declared_global(root)

    def module_spelling(self, qualified: str) -> str | None:
        """The first of the module's import names for ``qualified`` (``jnp``) that the file
        binds nothing else to and never deletes: a fix's code that spells it reaches that module
        wherever it stands. (Asked by every fix: answered once a module.)"""
        if qualified not in self._module_spellings:
            self._module_spellings[qualified] = next(
                (s for s in module_aliases(self.module, qualified) if not self.rebound(s.split(".")[0])), None
            )
        return self._module_spellings[qualified]

    def defines_attribute(self, name: str) -> bool:
        """Whether the module gives objects of its own an attribute ``name``: a class field
        (``shape: jax.Array`` in a NamedTuple or dataclass), a method or property of that name, a
        store to ``obj.name``, or a string or keyword that names it to ``setattr``, ``type``, a
        record factory or ``SimpleNamespace`` (:mod:`autota.source.attributes`; where the file
        may give any attribute, every one). Where it does, ``x.shape[0]`` may read such an object."""
        if name not in self._defined_attributes:
            if self._given_attributes is False:
                self._given_attributes = attributes.given(self)
            given = self._given_attributes
            self._defined_attributes[name] = (
                given is attributes.ANY or name in given
                or any(self._defines_attribute_at(node) for node in self.by_value.get(name, ()))
            )
        return self._defined_attributes[name]

    def _defines_attribute_at(self, node: cst.Name) -> bool:
        parent = self.parents.get(node)
        if isinstance(parent, cst.AnnAssign) and parent.target is node or isinstance(parent, cst.FunctionDef):
            return True
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            target, holder = parent, self.parents.get(parent)
            while type(holder) in _PACKING:  # `o.shape, n = ...`
                target, holder = holder, self.parents.get(holder)
            # any store: `o.shape = v`, `for N.__gt__ in ...`, `with f() as o.shape`, a comprehension's target
            return isinstance(holder, (cst.AssignTarget, cst.For, cst.CompFor, cst.AnnAssign, cst.AugAssign)) and (
                holder.target is target
            ) or isinstance(holder, cst.AsName) and holder.name is target
        # a class's attribute, or a module's own variable (`sys.modules[__name__].shape`)
        return binding_role(self.parents, node)[0] is not None and isinstance(self.enclosing_scope(node), (cst.ClassDef, cst.Module))

    def module_variable(self, name: cst.Name) -> bool:
        """Whether ``name`` reads a variable of the module: bound there by an assignment, not a
        ``def``, a ``class`` or an import. Another module may set it (``mylib.GAIN = 2.5``), and
        ``exec`` or a function's ``__globals__`` may too, none of which this file shows."""
        if not isinstance(self.binding_scope(name), cst.Module):
            return False
        held = self.binding(name)
        return held is not None and not isinstance(held, (cst.FunctionDef, cst.ClassDef))

    def declared_global(self, name: str) -> bool:
        """Whether a ``global`` or ``nonlocal`` statement names ``name``: a call of the function that
        holds it may rebind the name anywhere it is read."""
        return any(self.declaration(n) for n in self.by_value.get(name, ()))

    def assigned_value(self, name: cst.Name) -> cst.BaseExpression | None:
        """The value ``name`` holds wherever it is read, where that is one value: the one plain
        ``name = value`` of the nearest scope that binds the name, if nothing else binds it there
        (a parameter, a second assignment, a loop target: ``None``)."""
        scope = self.enclosing_scope(name)
        while True:
            if isinstance(scope, cst.FunctionDef) and name.value in [p.name.value for p in all_params(scope)]:
                return None
            value = self.single_assignment(scope, name.value)
            if value is not None:
                return value
            if isinstance(scope, cst.Module) or self.binds_here(scope, name.value):
                return None
            scope = self.enclosing_scope(scope)

    def _statements_before(self, node: cst.CSTNode) -> list[cst.CSTNode] | None:
        """The statements before the one holding ``node`` in its block, nearest first, where that
        block is in ``node``'s own scope (not a nested function's); else ``None``. A block that is
        a branch of an ``if`` (or the body of a ``with``), which runs once where it runs, goes on
        with the statements before that ``if`` in the block around it: ``st = (0, h)`` then
        ``if early: st = while_loop(..., st) else: st = fori_loop(..., st)`` reads the first in
        either branch (the other branch's bindings never reach it)."""
        scope = self.enclosing_scope(node)
        statement, block = node, self.parents.get(node)
        while block is not None and not isinstance(block, (cst.IndentedBlock, cst.Module)):
            statement, block = block, self.parents.get(block)
        if block is None or self.enclosing_scope(statement) is not scope:
            return None
        siblings = list(block.body)
        before = siblings[: siblings.index(statement)][::-1]
        holder = self.parents.get(block)
        if isinstance(holder, cst.Else):
            holder = self.parents.get(holder)
        while isinstance(holder, cst.If) and isinstance(self.parents.get(holder), cst.If):
            holder = self.parents.get(holder)  # an `elif`: the chain's first `if` is the statement
        if isinstance(holder, (cst.If, cst.With)):
            return before + (self._statements_before(holder) or [])
        return before

    def member_set_before(self, name: cst.Name, member: str) -> cst.BaseExpression | None:
        """The value that a member of ``name`` holds where ``name`` is read, in straight-line code:
        ``member`` is ``".attr"`` for ``name.attr`` or ``"['key']"`` for ``name["key"]``. It is
        the last ``name.attr = value`` (``name["key"] = value``) among the statements before the
        read's own in its block, where every statement between mentions ``name`` only to set
        another member of it, or defines a function (``val.ids = jnp.zeros(...)`` ... ``def
        body(val)`` ... ``while_loop(cond, body, val)``). Anything else that mentions the name may
        change it."""
        for earlier in self._statements_before(name) or ():
            if isinstance(earlier, cst.FunctionDef):
                if name.value in {p.name.value for p in all_params(earlier)}:
                    continue  # its own parameter of that name: defining it runs nothing
                return None
            if not self.names_in(earlier, name.value):
                continue
            small = earlier.body[0] if isinstance(earlier, cst.SimpleStatementLine) and len(earlier.body) == 1 else None
            target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
            set_member = _member_of(target, name.value)
            if not set_member or self.names_in(small.value, name.value):  # `name[k] = v` may set any entry
                return None
            if set_member == member:
                return small.value
        return None

    def plain_value(self, expr: cst.BaseExpression | None) -> cst.BaseExpression | None:
        """``expr``, or for a name the value of the plain ``name = value`` that reaches it (see
        :meth:`reaching_value`; ``xs = [jnp.arange(n), fx]`` before ``scan(body, c, xs)``),
        where ``expr`` is the name's one read: nothing else may change a list it holds."""
        if not isinstance(expr, cst.Name):
            return expr
        reaching = self.reaching_value(expr)
        reads = [
            n for n in self.names_in(self.enclosing_scope(expr), expr.value) if binding_role(self.parents, n)[0] is None
        ]
        return reaching[1] if reaching is not None and reaching[0] == () and reads == [expr] else expr

    def reaching_value(self, name: cst.Name, passes=None) -> tuple[tuple[int, ...], cst.BaseExpression] | None:
        """Where the value ``name`` holds at a read comes from, in straight-line code: the last
        assignment to it among the statements before the read's own in its block, with no other
        binding of the name after it (``grid = jnp.ones(...)`` then ``grid, _ = loop(grid)``
        reads the first), as the position of the name in its target and the assigned value:
        ``((), v)`` for ``name = v``, ``((0, 1), v)`` for ``(_, name), _ = v``. Elsewhere the
        one value of :meth:`assigned_value`. ``passes(statement, bindings)``: whether a statement
        that binds the name keeps what the caller asks about (it is passed over)."""
        scope = self.enclosing_scope(name)
        for earlier in self._statements_before(name) or ():
            bound = [
                n for n in self.names_in(earlier, name.value)
                if (role := binding_role(self.parents, n)[0]) is not None
                and (self.enclosing_scope(n) is scope or role == "other")
            ]
            if not bound or passes is not None and passes(earlier, bound):
                continue
            small = earlier.body[0] if isinstance(earlier, cst.SimpleStatementLine) and len(earlier.body) == 1 else None
            if len(bound) == 1 and isinstance(small, cst.Assign) and len(small.targets) == 1:
                path = target_path(small.targets[0].target, bound[0])
                if path is not None:
                    return path, small.value
            return None
        value = self.assigned_value(name)
        return ((), value) if value is not None else None

    def binding_scope(self, name: cst.Name) -> cst.CSTNode:
        """The nearest scope around ``name`` that binds it (a parameter counts), else the module."""
        scope = self.enclosing_scope(name)
        while not (isinstance(scope, cst.Module) or self.binds_here(scope, name.value)) and not (
            isinstance(scope, (cst.FunctionDef, cst.Lambda)) and name.value in [p.name.value for p in all_params(scope)]
        ):
            scope = self.enclosing_scope(scope)
        return scope

    def python_int(self, expr: cst.BaseExpression | None, depth: int = 0) -> bool:
        """Whether ``expr`` is proven a Python int, which nothing changes in place: an int literal,
        ``len(...)``, an array's ``.ndim`` or ``.shape[k]``, ``+``/``-`` of those, or a name every
        binding of which binds one."""
        if expr is None or depth > 5:
            return False
        if int_value(expr) is not None:
            return True
        if isinstance(expr, cst.Call):
            return "builtins.len" in self.qualified_names(expr.func)
        if isinstance(expr, cst.Attribute):
            return expr.attr.value == "ndim"
        if isinstance(expr, cst.Subscript):
            return isinstance(expr.value, cst.Attribute) and expr.value.attr.value == "shape" and len(expr.slice) == 1 and (
                isinstance(expr.slice[0].slice, cst.Index)
            )
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract)):
            return self.python_int(expr.left, depth + 1) and self.python_int(expr.right, depth + 1)
        if isinstance(expr, cst.Name):
            values = self.bound_values(expr)
            return bool(values) and all(not isinstance(v, cst.AugAssign) and self.python_int(v, depth + 1) for v in values)
        return False

    def bound_values(self, name: cst.Name) -> list[cst.BaseExpression] | None:
        """Every value that the nearest scope binding ``name`` binds to it: plain and augmented
        assignments (the ``AugAssign`` itself), a ``for`` target's ``range`` arguments; ``None`` where a binding is of
        another kind (a parameter, unpacking, ``with``, ``:=``, ``global``) or there is none, and
        where ``name`` is no variable (the ``shape`` of ``x.shape``, a keyword)."""
        if self.is_label(name):
            return None
        scope = self.binding_scope(name)
        key = (id(scope), name.value)
        if key not in self._bound_values:  # a module-level name is asked of by every function that reads it
            self._bound_values[key] = self._values_bound_in(scope, name.value)
        return self._bound_values[key]

    def _values_bound_in(self, scope: cst.CSTNode, name: str) -> list[cst.BaseExpression] | None:
        values = []
        for node in self.names_in(scope, name):
            role, holder = binding_role(self.parents, node)
            if role is None or self.enclosing_scope(node) is not scope and not isinstance(holder, cst.NameItem):
                continue  # a read, or a nested scope's own binding
            if role == "plain" or _annotated_value(holder, node):
                values.append(holder.value)
            elif role == "unpack" and (paired := _paired_value(holder, node)) is not None:
                values.append(paired)  # `losses, accs = jnp.array([]), jnp.array([])`
            elif isinstance(holder, cst.AugAssign):
                values.append(holder)
            elif isinstance(holder, cst.For) and isinstance(holder.iter, cst.Call) and (
                self.qualified_names(holder.iter.func) == {"builtins.range"}
            ):
                values.extend(arg.value for arg in holder.iter.args)
            else:
                return None
        return values or None

    def value_sources(self, name: cst.Name) -> list[cst.BaseExpression] | None:
        """What each binding of ``name`` in the nearest scope binding it takes its value from, for
        judging how large a Python int it may hold: the value of an assignment (also annotated,
        chained, or ``:=``), the whole source of an unpacking (``a, b = 1, 2**40``: either may be
        the large one), a ``for`` target's ``range`` arguments or its iterable, a ``with`` item's
        context expression, a ``match`` capture's subject, an ``AugAssign`` itself, and those of
        the functions that declare it ``global``/``nonlocal`` (see :meth:`_sources_in`); nothing
        for a ``del``, an ``except ... as`` or an ``import m as name``, which bind no int. ``None``
        where a binding is a parameter or a ``from m import name``, or there is none (a
        parameter's or an imported name's value is not in the file: documented as assumed)."""
        if self.is_label(name):
            return None
        scope = self.binding_scope(name)
        key = (id(scope), name.value)
        if key not in self._value_sources:
            self._value_sources[key] = self._sources_in(scope, name.value)
        return self._value_sources[key]

    def _sources_in(self, scope: cst.CSTNode, name: str, declared: bool = False) -> list[cst.BaseExpression] | None:
        """The sources of ``scope``'s own bindings of ``name``, and of the bindings of the scopes
        that declare it ``global``/``nonlocal`` (they bind this name); a scope that declares it so
        itself takes them from the scope the name lives in. ``declared``: ``scope`` is one of
        those, asked for its own bindings only. ``None`` where a binding cannot be followed."""
        sources = []
        for node in self.names_in(scope, name):
            role, holder = binding_role(self.parents, node)
            if role is None:
                continue  # a read
            owner = self.enclosing_scope(node)
            if isinstance(holder, cst.NameItem):  # `global name` / `nonlocal name`
                if owner is scope and declared:
                    continue
                if owner is scope:
                    home = self._declared_home(scope, name, isinstance(self.parents.get(holder), cst.Global))
                    return self._sources_in(home, name) if home is not None else None
                found = self._sources_in(owner, name, declared=True)  # it binds this scope's name
                if found is None:
                    return None
                sources.extend(found)
                continue
            if owner is not scope:
                continue  # a nested scope's own binding
            source = self._value_source(node, role, holder)
            if source is None:
                return None
            sources.extend(source)
        return sources or None if not declared else sources

    def _declared_home(self, scope: cst.CSTNode, name: str, is_global: bool) -> cst.CSTNode | None:
        """The scope whose ``name`` a ``global``/``nonlocal`` declaration in ``scope`` binds."""
        if is_global:
            return self.module
        home = self.enclosing_scope(scope) if scope is not self.module else None
        while home is not None and not isinstance(home, cst.Module):
            if isinstance(home, (cst.FunctionDef, cst.Lambda)) and self.binds_here(home, name):
                return home
            home = self.enclosing_scope(home)
        return None

    def _value_source(self, node: cst.Name, role: str, holder: cst.CSTNode) -> list | None:
        if isinstance(holder, cst.Del):
            return []  # unbinds: no value of its own
        if isinstance(holder, cst.AsName):
            bound_by = self.parents.get(holder)
            if isinstance(bound_by, (cst.ExceptHandler, cst.ExceptStarHandler)):
                return []  # an exception object, no int
            if isinstance(bound_by, cst.ImportAlias) and isinstance(self.parents.get(bound_by), cst.Import):
                return []  # `import os as v`: a module, no int
        if role in ("plain", "unpack") and isinstance(holder, cst.Assign):
            return [holder.value]
        if isinstance(holder, cst.AugAssign):
            return [holder]
        if isinstance(holder, (cst.AnnAssign, cst.NamedExpr)):
            return [holder.value] if holder.value is not None else []
        if isinstance(holder, (cst.For, cst.CompFor)):
            if isinstance(holder.iter, cst.Call) and self.qualified_names(holder.iter.func) == {"builtins.range"}:
                return [arg.value for arg in holder.iter.args]
            return [holder.iter]
        if isinstance(holder, cst.AsName):
            holder = self.parents.get(holder)
        if isinstance(holder, cst.WithItem):
            return [holder.item]
        if isinstance(holder, (cst.MatchAs, cst.MatchStar, cst.MatchMapping)):
            match = next((a for a in self.ancestors(holder) if isinstance(a, cst.Match)), None)
            return [match.subject] if match is not None else None
        return None

    def binds_here(self, scope: cst.CSTNode, name: str) -> bool:
        """Whether ``scope`` binds ``name`` (so an outer value is not what it holds): by assignment
        or unpacking in its own code, or by ``for``/``with``/``del``/augmented assignment/``:=``/
        ``global`` anywhere below it. Asked of the index, not by walking the scope (a class of a
        hundred test methods is one scope), and answered once a scope and name: the module's
        answer costs every read of the name in the file."""
        key = (id(scope), name)
        if key not in self._binds_here:
            self._binds_here[key] = self._binds_in(scope, name)
        return self._binds_here[key]

    def _binds_in(self, scope: cst.CSTNode, name: str) -> bool:
        for node in self.names_in(scope, name):
            role, holder = binding_role(self.parents, node)
            if role == "other" or role in ("plain", "unpack") and self.enclosing_scope(node) is scope:
                return True
            if role == "def" and self.enclosing_scope(holder) is scope:  # a nested `def name` or `class name`
                return True
        return False

    def declares_outer(self, scope: cst.CSTNode, name: str) -> bool:
        """Whether ``scope``'s own code declares ``name`` ``nonlocal`` or ``global``: its ``name``
        is then the outer one, read and rebound there."""
        return any(self.declaration(n) and self.enclosing_scope(n) is scope for n in self.names_in(scope, name))

    def declaration(self, name: cst.Name) -> bool:
        """Whether ``name`` is one that a ``global`` or ``nonlocal`` statement names."""
        item = self.parents.get(name)
        return isinstance(item, cst.NameItem) and isinstance(self.parents.get(item), (cst.Global, cst.Nonlocal))

    def single_assignment(self, scope: cst.CSTNode, name: str) -> cst.BaseExpression | None:
        """The value of the one plain ``name = value`` of ``scope``'s own code, if nothing else
        binds ``name`` there (once a scope and name, as :meth:`binds_here`)."""
        key = (id(scope), name)
        if key not in self._single_assignments:
            self._single_assignments[key] = self._single_assignment(scope, name)
        return self._single_assignments[key]

    def _single_assignment(self, scope: cst.CSTNode, name: str) -> cst.BaseExpression | None:
        values = []
        for node in self.names_in(scope, name):
            role, holder = binding_role(self.parents, node)
            if role is None:
                continue
            # a `def`'s or `class`'s name is bound in the scope around it
            own = self.enclosing_scope(holder if role == "def" else node) is scope
            if (role == "plain" or _annotated_value(holder, node)) and own:
                values.append(holder.value)  # `groups: list[int] = []` binds as `groups = []` does
            elif role in ("plain", "unpack", "param", "def"):
                if own and role != "plain":
                    return None
            else:  # augmented, annotated, loop targets, `as`, `del`, `:=`, `global`: anywhere below
                return None
        return values[0] if len(values) == 1 else None

    def unpacked_shape(self, scope: cst.CSTNode, name: str) -> bool:
        """Whether ``name`` is bound in ``scope`` only by one ``a, name, ... = <expr>.shape``: a
        dimension, which is a Python int even under ``jit``."""
        unpacks, others = [], False
        for node in self.names_in(scope, name):
            role, holder = binding_role(self.parents, node)
            if role is None or role in ("param", "def"):
                continue
            own = self.enclosing_scope(node) is scope
            if role == "unpack" and own:
                unpacks.append(holder)
            elif role == "plain" and own or role not in ("plain", "unpack"):
                others = True
        if others or len(unpacks) != 1:
            return False
        (unpack,) = unpacks
        target = unpack.targets[0].target if len(unpack.targets) == 1 else None
        return (
            isinstance(target, (cst.Tuple, cst.List))
            and any(isinstance(e.value, cst.Name) and e.value.value == name for e in target.elements)
            and isinstance(unpack.value, cst.Attribute)
            and unpack.value.attr.value == "shape"
            and not any(isinstance(e, cst.StarredElement) for e in target.elements)
        )


def target_path(target: cst.BaseExpression, name: cst.Name) -> tuple[int, ...] | None:
    """The position of ``name`` in an assignment target of tuples and lists (``None`` past a
    starred element)."""
    if target is name:
        return ()
    if isinstance(target, (cst.Tuple, cst.List)):
        if any(isinstance(e, cst.StarredElement) for e in target.elements):
            return None
        for k, element in enumerate(target.elements):
            path = target_path(element.value, name)
            if path is not None:
                return (k, *path)
    return None


def star_imports(module: cst.Module) -> list[tuple[str | None, bool]]:
    """The modules ``module`` star-imports, in order (``None`` for a relative one), each with
    whether it runs only on some paths: a star import stands in module-level code only, but
    that may be a branch of an ``if`` or a ``try`` (``try: from compat import *``)."""
    found = []
    pending = [(line, False) for line in reversed(module.body)]
    while pending:
        node, conditional = pending.pop()
        if isinstance(node, cst.SimpleStatementLine):
            found += [
                (None if small.relative or small.module is None else get_full_name_for_node(small.module), conditional)
                for small in node.body if isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar)
            ]
        elif not isinstance(node, (cst.FunctionDef, cst.ClassDef)):  # `if`, `try`, `with`, `for`: code that may run
            pending += [(child, True) for child in reversed(node.children) if isinstance(child, cst.CSTNode)]
    return found


def jax_or_numpy(module: str) -> bool:
    """Whether ``module`` is JAX's or NumPy's (a star import of one binds no name a rule reads
    otherwise)."""
    return module.split(".")[0] in ("jax", "numpy")


def own_method(cls: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    """The ``def name`` of ``cls``'s own body (not of a base)."""
    return next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)


def _paired_value(holder: cst.CSTNode, name: cst.Name) -> cst.BaseExpression | None:
    """The value a tuple assignment pairs with ``name`` item by item (``a, b = x, y`` gives ``b``
    the value ``y``), where both sides are displays of the same length without ``*``."""
    if not (isinstance(holder, cst.Assign) and len(holder.targets) == 1):
        return None
    target, value = holder.targets[0].target, holder.value
    if not (isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List))):
        return None
    if len(target.elements) != len(value.elements) or any(
        not isinstance(e, cst.Element) for e in (*target.elements, *value.elements)
    ):
        return None
    return next((v.value for t, v in zip(target.elements, value.elements, strict=True) if t.value is name), None)


def _annotated_value(holder: cst.CSTNode | None, name: cst.Name) -> bool:
    """Whether ``holder`` is ``name: T = value``, which binds ``name`` as ``name = value`` does."""
    return isinstance(holder, cst.AnnAssign) and holder.target is name and holder.value is not None


_NAMING_ROLES = {
    cst.AsName: "name", cst.NamedExpr: "target", cst.AugAssign: "target", cst.AnnAssign: "target",
    cst.MatchAs: "name", cst.MatchStar: "name", cst.MatchMapping: "rest",
    cst.TypeVar: "name", cst.TypeVarTuple: "name", cst.ParamSpec: "name", cst.TypeAlias: "name",
}
"""The nodes that bind the name in one of their fields other than by assignment, and that field."""
_TARGETS_OF_OTHER_ROLES = frozenset({cst.For, cst.CompFor, cst.Del, cst.AugAssign, cst.AnnAssign})


def binding_role(parents, name: cst.Name) -> tuple[str | None, cst.CSTNode | None]:
    """How ``name`` is bound where it stands, and the statement that binds it: ``"plain"``
    (``name = v``, one target), ``"unpack"`` (in a tuple or list target, or one of several
    targets), ``"param"``, ``"def"`` (a ``def``/``class`` name), ``"other"`` (augmented or
    annotated assignment, a loop or comprehension target, ``as``, ``del``, ``:=``, ``global``);
    ``(None, None)`` where it is read. (Asked of every name, it tests node types by identity:
    libcst's node classes are final, and ``isinstance`` against them was most of its cost.)"""
    parent = parents.get(name)
    kind = type(parent)
    if kind is cst.Param or kind is cst.FunctionDef or kind is cst.ClassDef:
        return ("param" if kind is cst.Param else "def", parent) if parent.name is name else (None, None)
    if kind is cst.NameItem:
        return "other", parent
    if kind in _NAMING_ROLES and getattr(parent, _NAMING_ROLES[kind]) is name:
        return "other", parent  # `as`, `:=`, `+=`, `x: T`, a match capture (`case int:` binds `int`), a type parameter
    node, packed = name, False
    while kind in _PACKING:
        packed = packed or kind is not cst.Element
        node, parent = parent, parents.get(parent)
        kind = type(parent)
    if kind is cst.AssignTarget and parent.target is node:
        assign = parents.get(parent)
        return ("unpack" if packed or len(assign.targets) != 1 else "plain"), assign
    if kind in _TARGETS_OF_OTHER_ROLES and parent.target is node:
        return "other", parent
    if kind is cst.WithItem or kind is cst.AsName:
        return "other", parent
    return None, None
