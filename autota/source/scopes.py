"""Syntactic facts about loops and names that the rules' safety proofs rest on."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

LOOPS = (cst.For, cst.While)
SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)
NESTED_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


class _Collect(cst.CSTVisitor):
    def __init__(self, predicate) -> None:
        self.predicate = predicate
        self.found: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.predicate(node):
            self.found.append(node)
        return True


def find(tree: cst.CSTNode, predicate) -> list[cst.CSTNode]:
    """Every node below ``tree`` (itself included) for which ``predicate`` holds."""
    visitor = _Collect(predicate)
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
    if isinstance(scope, cst.Lambda):
        return True
    declared = find(scope, lambda n: isinstance(n, (cst.Global, cst.Nonlocal))
                    and any(item.name.value == name for item in n.names))
    binds_locally = find(scope, lambda n: assign_to(n, name) is not None) or (
        isinstance(scope, cst.FunctionDef)
        and any(p.name.value == name for p in (*scope.params.params, *scope.params.posonly_params, *scope.params.kwonly_params))
    )
    return bool(declared) or not binds_locally


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
    """The function, lambda, class or module whose body holds ``node``."""
    for ancestor in rule.ancestors(node):
        if isinstance(ancestor, SCOPES):
            return ancestor
    raise AssertionError("every node lies in a module")


def exits(loop: cst.For | cst.While) -> Iterator[cst.CSTNode]:
    """``break``/``continue`` statements that belong to ``loop`` itself (not to a nested loop)."""

    def walk(node: cst.CSTNode):
        for child in node.children:
            if isinstance(child, (cst.Break, cst.Continue)):
                yield child
            elif not isinstance(child, LOOPS + NESTED_SCOPES):
                yield from walk(child)

    yield from walk(loop.body)


def stores(tree: cst.CSTNode, name: str) -> list[cst.CSTNode]:
    """Statements below ``tree`` that bind ``name`` other than by plain ``name = ...``."""

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
        return False

    return find(tree, binds)


def _is_name(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def assign_to(node: cst.CSTNode, name: str | None = None) -> str | None:
    """The name bound by ``node`` if it is a plain single-target ``name = value``."""
    if isinstance(node, cst.Assign) and len(node.targets) == 1:
        target = node.targets[0].target
        if isinstance(target, cst.Name) and (name is None or target.value == name):
            return target.value
    return None


def module_alias(module: cst.Module, qualified: str) -> str | None:
    """How the module's top-level imports spell the module ``qualified`` (``jnp`` for
    ``jax.numpy`` after ``import jax.numpy as jnp``; ``jax.numpy`` after ``import jax``)."""
    package = qualified.split(".", 1)[0]
    spelled_by_package = None
    for statement in module.body:
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
                            return alias.evaluated_alias
                    elif name == package or name == qualified:
                        spelled_by_package = qualified
                elif small.relative == [] or not small.relative:
                    full = f"{_dotted_name(small.module)}.{alias.evaluated_name}"
                    if full == qualified:
                        return alias.evaluated_alias or alias.evaluated_name
    return spelled_by_package


def _dotted_name(node) -> str:
    if node is None:
        return ""
    if isinstance(node, cst.Name):
        return node.value
    return f"{_dotted_name(node.value)}.{node.attr.value}"


def own_nodes(tree: cst.CSTNode, predicate) -> list[cst.CSTNode]:
    """Like :func:`find`, but not looking into functions, lambdas or classes nested in ``tree``."""
    found: list[cst.CSTNode] = []

    def walk(node: cst.CSTNode) -> None:
        if predicate(node):
            found.append(node)
        for child in node.children:
            if not isinstance(child, NESTED_SCOPES):
                walk(child)

    for child in tree.children if isinstance(tree, NESTED_SCOPES) else (tree,):
        walk(child)
    return found


def single_assignment(scope: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """The value of the one plain ``name = value`` in ``scope`` (not in nested scopes), if ``name``
    is bound nowhere else there."""
    values = [n.value for n in own_nodes(scope, lambda n: assign_to(n, name) is not None)]
    others = [n for n in stores(scope, name) if not isinstance(n, (cst.FunctionDef, cst.ClassDef))]
    targets = own_nodes(
        scope,
        lambda n: isinstance(n, cst.Assign)
        and any(not isinstance(t.target, cst.Name) and names(t.target, name) for t in n.targets),
    )
    if len(values) == 1 and not others and not targets:
        return values[0]
    return None


def unpacked_shape(scope: cst.CSTNode, name: str) -> bool:
    """Whether ``name`` is bound in ``scope`` only by one ``a, name, ... = <expr>.shape``: a
    dimension, which is a Python int even under ``jit``."""
    unpacks = own_nodes(
        scope,
        lambda n: isinstance(n, cst.Assign)
        and len(n.targets) == 1
        and isinstance(n.targets[0].target, (cst.Tuple, cst.List))
        and any(isinstance(e.value, cst.Name) and e.value.value == name for e in n.targets[0].target.elements),
    )
    return (
        len(unpacks) == 1
        and isinstance(unpacks[0].value, cst.Attribute)
        and unpacks[0].value.attr.value == "shape"
        and not any(isinstance(e, cst.StarredElement) for e in unpacks[0].targets[0].target.elements)
        and not own_nodes(scope, lambda n: assign_to(n, name) is not None)
        and not [n for n in stores(scope, name) if not isinstance(n, (cst.FunctionDef, cst.ClassDef))]
    )


def at_update(call: cst.BaseExpression) -> tuple[str, str] | None:
    """``(receiver, method)`` for ``receiver.at[...].method(...)``, else ``None``."""
    if not isinstance(call, cst.Call):
        return None
    func = call.func
    if (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Subscript)
        and isinstance(func.value.value, cst.Attribute)
        and func.value.value.attr.value == "at"
        and isinstance(func.value.value.value, cst.Name)
    ):
        return func.value.value.value.value, func.attr.value
    return None


class Semantics:
    """The file's names and bindings, indexed once: what the rules ask of every candidate.

    Answering "which names does this scope use" by walking the scope is cheap for a function
    and costs the whole file for the module; asked once per candidate, that made checking a
    file quadratic in its size. The index is built in one pass over the parent map libcst's
    metadata already holds, and libcst's ``ScopeProvider`` gives the bindings of each scope.
    """

    def __init__(self, module: cst.Module, parents, scope_of, positions) -> None:
        self.module = module
        self.parents = parents
        self.scope_of = scope_of
        self.positions = positions
        self.by_value: dict[str, list[cst.Name]] = {}
        self.by_top: dict[tuple[int, str], list[cst.Name]] = {}
        """Names by the top-level statement they are in: a function's question costs its statement."""
        self.definitions: dict[str, list[cst.FunctionDef | cst.ClassDef]] = {}
        self._top: dict[int, cst.CSTNode] = {}
        for node in parents:
            if isinstance(node, cst.Name):
                self.by_value.setdefault(node.value, []).append(node)
                self.by_top.setdefault((id(self.top(node)), node.value), []).append(node)
            elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                self.definitions.setdefault(node.name.value, []).append(node)
        self._scope_node: dict[int, cst.CSTNode] = {}
        self._shadowed: dict[tuple[str, ...], str | None] = {}
        self._assignments: dict[str, list] | None = None

    # -- where nodes are ---------------------------------------------------------------------
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
        return node is tree or tree is self.module or any(a is tree for a in self.ancestors(node))

    def enclosing_scope(self, node: cst.CSTNode) -> cst.CSTNode:
        """The function, lambda, class or module whose body holds ``node``."""
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, SCOPES):
                return ancestor
        return self.module

    # -- names -------------------------------------------------------------------------------
    def taken(self) -> set[str]:
        """Every identifier the file spells."""
        return set(self.by_value)

    def names_in(self, tree: cst.CSTNode, name: str) -> list[cst.Name]:
        """Like :func:`names` (every ``Name`` spelled ``name`` below ``tree``), from the index."""
        if tree is self.module:
            return list(self.by_value.get(name, ()))
        return [n for n in self.by_top.get((id(self.top(tree)), name), ()) if self.within(n, tree)]

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
            candidates = []
            for node in self.names_in(scope, name.value):
                parent = self.parents.get(node)
                own = parent if isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is node else node
                if self.enclosing_scope(own) is not scope:
                    continue
                role, holder = binding_role(self.parents, node)
                if role is not None:
                    # an assignment or a def binds once its statement has run; a loop target,
                    # `as` or `:=` where the name stands
                    bound_at = self._end(holder if role in ("plain", "unpack", "def") else node)
                    candidates.append((role, holder, bound_at))
            if candidates:
                if reader is scope:
                    candidates = [c for c in candidates if c[2] <= read_at] or candidates
                role, holder, _ = max(candidates, key=lambda c: c[2])
                if role == "def":
                    return holder
                if role == "plain":
                    return holder.value
                return None
            if isinstance(scope, cst.Module):
                return None
            scope = self.enclosing_scope(scope)

    def _start(self, node: cst.CSTNode) -> tuple[int, int]:
        start = self.positions[node].start
        return start.line, start.column

    def _end(self, node: cst.CSTNode) -> tuple[int, int]:
        end = self.positions[node].end
        return end.line, end.column

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
        ``roots`` (``jnp``, ``lax``) bound other than by a module-level import."""
        if roots not in self._shadowed:
            found = None
            for builtin in ("tuple", "range"):
                if self.assignments(builtin):
                    found = builtin
                    break
            for root in roots if found is None else ():
                for assignment in self.assignments(root):
                    imported = isinstance(assignment.node, (cst.Import, cst.ImportFrom))
                    if not (imported and isinstance(self.scope_of.get(assignment.node), _global_scope())):
                        found = root
                        break
                if found is None and any(
                    isinstance(self.parents.get(n), (cst.Global, cst.Nonlocal, cst.NameItem))
                    for n in self.by_value.get(root, ())
                ):
                    found = root
                if found:
                    break
            self._shadowed[roots] = found
        return self._shadowed[roots]

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

    def binds_here(self, scope: cst.CSTNode, name: str) -> bool:
        """Whether ``scope`` binds ``name`` (so an outer value is not what it holds): by assignment
        or unpacking in its own code, or by ``for``/``with``/``del``/augmented assignment/``:=``/
        ``global`` anywhere below it. Asked of the index, not by walking the scope (a class of a
        hundred test methods is one scope)."""
        for node in self.names_in(scope, name):
            role, _ = binding_role(self.parents, node)
            if role == "other" or role in ("plain", "unpack") and self.enclosing_scope(node) is scope:
                return True
        return False

    def single_assignment(self, scope: cst.CSTNode, name: str) -> cst.BaseExpression | None:
        """:func:`single_assignment` answered from the index: the value of the one plain
        ``name = value`` of ``scope``'s own code, if nothing else binds ``name`` there."""
        values = []
        for node in self.names_in(scope, name):
            role, holder = binding_role(self.parents, node)
            if role is None:
                continue
            own = self.enclosing_scope(node) is scope
            if role == "plain" and own:
                values.append(holder.value)
            elif role in ("plain", "unpack", "param", "def"):
                if own and role != "plain":
                    return None
            else:  # augmented, annotated, loop targets, `as`, `del`, `:=`, `global`: anywhere below
                return None
        return values[0] if len(values) == 1 else None

    def unpacked_shape(self, scope: cst.CSTNode, name: str) -> bool:
        """:func:`unpacked_shape` answered from the index."""
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


def _global_scope():
    from libcst.metadata import GlobalScope

    return GlobalScope


def binding_role(parents, name: cst.Name) -> tuple[str | None, cst.CSTNode | None]:
    """How ``name`` is bound where it stands, and the statement that binds it: ``"plain"``
    (``name = v``, one target), ``"unpack"`` (in a tuple or list target, or one of several
    targets), ``"param"``, ``"def"`` (a ``def``/``class`` name), ``"other"`` (augmented or
    annotated assignment, a loop or comprehension target, ``as``, ``del``, ``:=``, ``global``);
    ``(None, None)`` where it is read."""
    parent = parents.get(name)
    if isinstance(parent, cst.Param) and parent.name is name:
        return "param", parent
    if isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is name:
        return "def", parent
    if isinstance(parent, cst.NameItem):
        return "other", parent
    if isinstance(parent, cst.AsName) and parent.name is name:
        return "other", parent
    if isinstance(parent, cst.NamedExpr) and parent.target is name:
        return "other", parent
    if isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is name:
        return "other", parent
    node, packed = name, False
    while isinstance(parent, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
        packed = packed or isinstance(parent, (cst.Tuple, cst.List, cst.StarredElement))
        node, parent = parent, parents.get(parent)
    if isinstance(parent, cst.AssignTarget) and parent.target is node:
        assign = parents.get(parent)
        return ("unpack" if packed or len(assign.targets) != 1 else "plain"), assign
    if isinstance(parent, (cst.For, cst.CompFor)) and parent.target is node:
        return "other", parent
    if isinstance(parent, cst.Del) and parent.target is node:
        return "other", parent
    if isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is node:
        return "other", parent
    if isinstance(parent, cst.WithItem) or isinstance(parent, cst.AsName):
        return "other", parent
    return None, None
