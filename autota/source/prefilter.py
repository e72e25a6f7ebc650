"""Cheap facts from Python's own AST, gathered before libcst parses a file.

libcst's parse and metadata cost ten times Python's parser, and most files of a real tree hold
no candidate for any rule. One walk of the ``ast`` tree records what the rules' candidates are
made of; each rule's ``relevant`` turns that into the top-level statements it needs (an empty
set: the file is skipped for that rule). The answers over-approximate what the rules report, so
skipping is always safe.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from autota.source import vocabulary
from autota.source.attributes import may_spell_from

UPDATE_METHODS = vocabulary.UPDATE_METHODS
JIT_NAMES = vocabulary.JIT_TERMINALS
LOOP_NAMES = vocabulary.LOOP_TERMINALS
DYNAMIC_UPDATE_NAMES = vocabulary.DYNAMIC_WRITE_TERMINALS
GROWTH_NAMES = frozenset(vocabulary.GROWTH_FUNCTIONS)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
BUILTIN_NAMES = frozenset(dir(builtins))


NAMESPACE_WRITERS = frozenset(name.removeprefix("builtins.") for name in vocabulary.FRAME_READERS)
"""``globals()``, ``vars()``, ``exec``, ``sys._getframe``...: a unit that calls one may rebind any
module name. As the source spells them: ``locals``, ``sys._getframe``, ``inspect.stack``."""
_NAMESPACE_ATTRIBUTES = (vocabulary.FRAME_LOCALS, "__globals__")
"""Attributes that give a namespace by name (a frame's locals, a function's globals), read as an
attribute or named by a string (``getattr(frame, "f_locals")``)."""
_FRAME_TERMINALS = frozenset(vocabulary.terminal(name) for name in vocabulary.FRAME_READERS)


def terminal(func: ast.expr) -> str | None:
    """The last name of a callee: ``concatenate`` for ``jnp.concatenate`` and ``concatenate``."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def at_receiver(call: ast.AST) -> ast.expr | None:
    """``r`` for ``r.at[...].set(...)`` (any update method, ``r`` any expression), else ``None``."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return None
    method = call.func
    at = method.value.value if isinstance(method.value, ast.Subscript) else None
    if method.attr in UPDATE_METHODS and isinstance(at, ast.Attribute) and at.attr == "at":
        return at.value
    return None


def at_update_receiver(call: ast.AST) -> str | None:
    """``x`` for ``x.at[...].set(...)`` (any update method), ``""`` for another receiver
    (``obj.data.at[i].set(v)``), else ``None``."""
    receiver = at_receiver(call)
    if receiver is None:
        return None
    return receiver.id if isinstance(receiver, ast.Name) else ""


@dataclass
class Site:
    """A node of interest with where it sits: its top-level statement and its context."""

    node: ast.AST
    top: int
    in_loop: bool
    functions: tuple[ast.AST, ...]


@dataclass
class Facts:
    """What one walk of a module's AST found; see :func:`gather`."""

    tree: ast.Module
    top_is_definition: list[bool]
    """By unit (see :func:`gather`): whether it is a ``def`` or ``class`` that slicing may drop."""
    loop_wrapper_names: frozenset[str] = frozenset()
    """The names of the functions (of the file, or imported) that run a ``lax`` loop over what
    they are given (see :mod:`autota.source.wrappers`): their calls are loops."""
    grower_names: frozenset[str] = frozenset()
    """The names of the functions (of the file, or imported) that return an array grown from a
    parameter (see :mod:`autota.source.growers`): their calls may be growths."""
    updater_names: frozenset[str] = frozenset()
    """The names of the functions of other modules of the run that return an updated copy of a
    parameter (see :mod:`autota.source.updaters`): a jitted step that calls one writes it."""
    undonated_names: frozenset[str] = frozenset()
    """Those of :attr:`updater_names` that their module jits donating nothing: steps in themselves."""
    units: list[ast.stmt] = field(default_factory=list)
    """The units of the module: its top-level statements, except that a top-level class is split
    into its shell (the ``class`` line and its other statements) and one unit per method, so that
    a test class of a hundred methods costs libcst only the methods with a candidate."""
    members: dict[int, list[int]] = field(default_factory=dict)
    """A class shell's unit -> its methods' units."""
    aliases: dict[str, str] = field(default_factory=dict)
    """Local name -> imported name, for ``from m import name as local``."""
    calls: list[Site] = field(default_factory=list)
    updates: list[Site] = field(default_factory=list)
    """``.at[]`` updates and ``dynamic_update_*`` calls."""
    self_assigns: list[Site] = field(default_factory=list)
    """``x = f(..., x, ...)`` assignments whose call reads ``x``: growth and update candidates
    (also ``obj.x = obj.x.at[i].set(v)``)."""
    renames: list[Site] = field(default_factory=list)
    attribute_binds: list[Site] = field(default_factory=list)
    """Assignments of an attribute (``helper = Model.spread``)."""
    """``x = y`` in a loop: ``y`` may be ``x`` grown or updated a statement before."""
    range_loops: list[Site] = field(default_factory=list)
    """``for`` loops over ``range(...)`` or ``jnp.arange(...)``, or their ``reversed``."""
    functions: list[Site] = field(default_factory=list)
    call_assigns: list[tuple[str, Site]] = field(default_factory=list)
    """``name = call(...)``: the bound name and the call's site; also ``self.name = call(...)``,
    an attribute of the method's object, by the attribute's name."""
    name_aliases: list[tuple[str, str]] = field(default_factory=list)
    """``(g, f)`` for ``g = f`` or ``g = f if c else h`` (and ``(g, h)``), and for ``obj.g = f``:
    calling ``g`` may run ``f``."""
    classes: list[tuple[int, ast.ClassDef]] = field(default_factory=list)
    """Every class, at any depth, with its unit."""
    named_lambdas: dict[str, list[ast.Lambda]] = field(default_factory=dict)
    """``name = lambda ...: ...`` anywhere: the lambdas bound to each name."""
    module_imports: dict[str, set[str]] = field(default_factory=dict)
    """Local name -> the modules ``import m`` / ``import m as local`` bind to it, anywhere."""
    imported: set[str] = field(default_factory=set)
    """Names an import binds, anywhere (``jnp``, ``lax``): a fix's code may spell them."""
    bound: set[str] = field(default_factory=set)
    """Names bound anywhere other than by ``import m``: stores, parameters, definitions,
    ``from m import`` (``*`` for a star import), ``except ... as``, match captures."""
    rebinding_units: set[int] = field(default_factory=set)
    """Units with a ``global`` or ``nonlocal`` statement, or a call of ``globals()`` and the
    like: they can rebind any function's free names, so slicing keeps them (a rule may ask
    whether a name can change under a loop)."""
    attribute_units: set[int] = field(default_factory=set)
    """Units that may give objects an attribute the rules ask about other than by a class
    statement (see :mod:`autota.source.attributes`): a store ``o.shape = ...``, a string or a
    ``setattr``/``type``/record factory naming it, ``__getattr__``. Slicing keeps them."""
    attribute_keywords: list[tuple[int, ast.expr]] = field(default_factory=list)
    """``(unit, callee)`` for calls given a keyword that names such an attribute
    (``SimpleNamespace(shape=v)``): kept unless the callee is a JAX or NumPy function."""
    _passed: list[tuple[Site, frozenset[str], frozenset[str]]] | None = None
    _passed_by_name: dict[str, list[int]] | None = None
    _wrappings: list[tuple[str, str]] | None = None
    _forms: dict[str, tuple[type, int]] | None = None
    _method_ids: set[int] = field(default_factory=set)

    def passed_names(self) -> list[tuple[Site, frozenset[str], frozenset[str]]]:
        """Each call with the names its arguments mention (``f``, and the ``method`` of
        ``obj.method``), and those its initializer keywords (``kernel_init=...``) mention: walked
        once, asked for every candidate."""
        if self._passed is None:
            self._passed = [
                (
                    site,
                    frozenset(
                        n.id if isinstance(n, ast.Name) else n.attr
                        for a in (*site.node.args, *(k.value for k in site.node.keywords))
                        for n in ast.walk(a)
                        if isinstance(n, (ast.Name, ast.Attribute))
                    ),
                    frozenset(
                        n.id
                        for k in site.node.keywords
                        if k.arg in vocabulary.INITIALIZER_KEYWORDS
                        for n in ast.walk(k.value)
                        if isinstance(n, ast.Name)
                    ),
                )
                for site in self.calls
            ]
        return self._passed

    def sites_naming(self, names: set[str]) -> list[int]:
        """The positions in :meth:`passed_names` of the calls that pass one of ``names`` (as an
        argument or an initializer) or call one (by the callee's last name), in source order:
        an index, so that a search a few calls up looks at those calls, not at every call of
        the file each round."""
        if self._passed_by_name is None:
            self._passed_by_name = {}
            for k, (site, passed, initializers) in enumerate(self.passed_names()):
                callee = terminal(site.node.func)
                for name in {*passed, *initializers, *((callee,) if callee is not None else ())}:
                    self._passed_by_name.setdefault(name, []).append(k)
        return sorted({k for name in names for k in self._passed_by_name.get(name, ())})

    def name(self, func: ast.expr) -> str | None:
        """The callee's terminal name, seen through ``import ... as`` aliases."""
        short = terminal(func)
        return self.aliases.get(short, short)

    def outside_jax(self, func: ast.expr) -> bool:
        """Whether ``func`` is an attribute of a name that only ``import m`` binds, for modules
        ``m`` outside ``jax`` (``np.concatenate`` under ``import numpy as np``): its qualified name
        cannot be one of JAX's, whatever its last segment."""
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        if root is func or not isinstance(root, ast.Name) or root.id in self.bound or "*" in self.bound:
            return False  # bound some other way, or perhaps by a star import
        modules = self.module_imports.get(root.id)
        return bool(modules) and not any(m == "jax" or m.startswith("jax.") for m in modules)

    def attribute_giving_units(self) -> set[int]:
        """:attr:`attribute_units`, and the units of :attr:`attribute_keywords` whose callee is not
        an attribute of a JAX or NumPy module (``jnp.zeros(shape=...)`` gives nothing one)."""
        return self.attribute_units | {
            top for top, func in self.attribute_keywords if not self._array_module_function(func)
        }

    def _array_module_function(self, func: ast.expr) -> bool:
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        if root is func or not isinstance(root, ast.Name) or root.id in self.bound or "*" in self.bound:
            return False
        modules = self.module_imports.get(root.id)
        return bool(modules) and all(m.split(".")[0] in ("jax", "numpy") for m in modules)

    def wrappings(self) -> list[tuple[str, str]]:
        """``(g, f)`` for each ``g = jax.vmap(f, ...)``, ``g = partial(f, ...)`` or ``g = jax.jit(f)``
        (``f`` the method's name for ``partial(self.f, ...)``), and each alias ``g = f`` or ``g = f if
        c else h`` (:attr:`Facts.name_aliases`): calling ``g`` runs ``f``. Found
        once, asked every round of the callers' search."""
        if self._wrappings is None:
            self._wrappings = [
                (name, terminal(site.node.args[0]))
                for name, site in self.call_assigns
                if site.node.args and self.name(site.node.func) in TRACING_TERMINALS
                and terminal(site.node.args[0]) is not None
            ] + self.name_aliases
        return self._wrappings

    def wrappers(self, names: set[str]) -> set[str]:
        """The names bound to a wrapper of one of ``names`` (see :meth:`wrappings`)."""
        return {g for g, f in self.wrappings() if f in names}

    def instances(self, classes: set[str]) -> set[str]:
        """The names bound to an object of one of ``classes`` (``smoother = Smoother()``):
        calling one runs its class's ``__call__``."""
        return {name for name, site in self.call_assigns if terminal(site.node.func) in classes}

    def wrapped(self, names: set[str]) -> set[str]:
        """The functions that calling one of ``names`` runs through a wrapper (see :meth:`wrappings`)."""
        return {f for g, f in self.wrappings() if g in names}

    def may_run(self, site: Site, name: str) -> bool:
        """Whether the call at ``site`` may run a function the file defines as ``name``, as
        :mod:`autota.source.tracing` follows calls: ``name(...)`` runs a function, ``x.name(...)``
        a method; and where the file defines several methods ``name``, not a call on a parameter
        (but a method's own ``self``): its class is unknown. Otherwise every ``.diff(`` of a
        file with a method ``diff`` was a caller, a few calls up: a whole 7000-line class."""
        if self._forms is None:
            methods = {id(s) for _, cls in self.classes for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
            kinds: dict[str, list[type]] = {}
            for f in self.functions:
                if not isinstance(f.node, ast.Lambda):
                    kinds.setdefault(f.node.name, []).append(ast.Attribute if id(f.node) in methods else ast.Name)
            self._method_ids = methods
            self._forms = {name: (k[0], len(k)) for name, k in kinds.items() if len(set(k)) == 1}
        form, count = self._forms.get(name, (None, 0))
        func = site.node.func
        if form is None:
            return True
        if not isinstance(func, form):
            return False
        if form is ast.Name or not isinstance(func.value, ast.Name):
            return True
        receiver = func.value.id
        if receiver in self.module_imports and receiver not in self.bound and "*" not in self.bound:
            return False  # `np.diff(x)`: a module's function
        if count == 1:
            return True
        for depth, function in enumerate(reversed(site.functions)):
            params = function.args
            names = [a.arg for a in (*params.posonlyargs, *params.args, *params.kwonlyargs)]
            names += [a.arg for a in (params.vararg, params.kwarg) if a is not None]
            if receiver in names:
                own = depth == 0 and id(function) in self._method_ids and names[0] == receiver
                return own
        return True

    def calls_named(self, names) -> list[Site]:
        return [s for s in self.calls if self.name(s.node.func) in names]

    def jitted(self) -> list[Site]:
        """Functions decorated with a jit-like name, or passed to a jit-like call (also through a
        ``partial``: ``jax.jit(partial(store, scale=2.0))``, and those the ``partial`` binds as
        arguments, which the function it wraps calls)."""
        passed, lambdas = set(), set()
        wrapping = [  # `jax.jit(f)`, and a project's wrapper called, `K.jit(f)` (see `_jit_named`)
            s for s in self.calls
            if self.name(s.node.func) in JIT_NAMES or "jit" in (terminal(s.node.func) or "").lower() and _jit_named(s.node.func)
        ]
        for site in wrapping:
            for arg in site.node.args[:1]:
                # `jax.jit(partial(store, scale=2.0))`, `jax.jit(jax.vmap(step))`
                while isinstance(arg, ast.Call) and self.name(arg.func) in TRACING_TERMINALS and arg.args:
                    if self.name(arg.func) in vocabulary.PARTIAL_TERMINALS:  # `pmap(partial(step, loss_fn=model.loss))`: `step` calls it
                        passed |= {terminal(a) for a in (*arg.args[1:], *(k.value for k in arg.keywords)) if terminal(a)}
                    arg = arg.args[0]
                if isinstance(arg, ast.Name):
                    passed.add(arg.id)
                elif isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name):  # `jax.jit(self.train)`
                    passed.add(arg.attr)
                elif isinstance(arg, ast.Lambda):  # `jax.jit(lambda xs: g(xs))`
                    lambdas.add(id(arg))
                elif isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name):  # `jax.jit(make_step())`: what it returns
                    passed |= {
                        r.value.id for f in self.functions if not isinstance(f.node, ast.Lambda) and f.node.name == arg.func.id
                        for r in ast.walk(f.node) if isinstance(r, ast.Return) and isinstance(r.value, ast.Name)
                    }
        for _ in range(3):  # `batched = jax.vmap(policy)` then `jax.jit(batched)`: `policy` is jitted
            passed |= self.wrapped(passed)
        return [
            s
            for s in self.functions
            if id(s.node) in lambdas or not isinstance(s.node, ast.Lambda)
            and (s.node.name in passed or any(_mentions(d, JIT_NAMES, self) or _jit_named(d) for d in s.node.decorator_list)
                 or self.in_jit_named_class(s))
        ]

    def in_jit_named_class(self, site: Site) -> bool:
        """Whether ``site`` is a method of a class decorated ``@jit_class`` (a name that says it jits)."""
        return any(
            site.top in methods and self.units[site.top] is site.node and any(_jit_named(d) for d in self.units[shell].decorator_list)
            for shell, methods in self.members.items()
        )

    def compiled(self) -> list[Site]:
        """Functions whose program XLA compiles: the :meth:`jitted` ones, and those whose name
        a ``lax`` loop or ``cond``/``switch`` call mentions among its arguments (its bodies and
        branches, or a ``partial`` of them)."""
        bodies = {
            name
            for site, passed, _ in self.passed_names()
            if self.name(site.node.func) in vocabulary.TRACED_ARGUMENT_TERMINALS
            for name in passed
        }
        jitted = self.jitted()
        return jitted + [
            s for s in self.functions
            if not isinstance(s.node, ast.Lambda) and s.node.name in bodies and all(s is not j for j in jitted)
        ]


def _jit_named(decorator: ast.AST) -> bool:
    """A decorator whose own name says it jits (``jit_method``, ``jit_class``): see
    :func:`autota.source.tracing._jit_named`."""
    func = decorator.func if isinstance(decorator, ast.Call) else decorator
    root = func
    while isinstance(root, ast.Attribute):
        root = root.value
    spelled = root.id if isinstance(root, ast.Name) and root is not func else None
    return vocabulary.says_jit(terminal(func) or "") and spelled not in vocabulary.OTHER_COMPILERS


def _mentions(expr: ast.AST, names, facts: Facts) -> bool:
    return any(
        (isinstance(n, ast.Name) and facts.aliases.get(n.id, n.id) in names)
        or (isinstance(n, ast.Attribute) and n.attr in names)
        for n in ast.walk(expr)
    )


_METHODS: dict[type, object] = {}
_SPELLABLE = (*vocabulary.ASKED_ATTRIBUTES, *vocabulary.GLOBALS_ROUTES)
"""What a string built at run time must not be able to spell for slicing to drop its unit."""
_ASKED = frozenset(vocabulary.ASKED_ATTRIBUTES)
_ATTRIBUTE_GIVING_NAMES = frozenset(
    (*vocabulary.ANY_ATTRIBUTE_NAMES, "__setattr__", "exec", "eval", "compile",
     *(vocabulary.terminal(name) for name in vocabulary.ATTRIBUTE_FACTORIES - {"builtins.type", "builtins.setattr", "builtins.vars"}))
)
"""Names whose mention may give objects attributes the file does not spell: a unit that holds
one is kept (`partial(namedtuple, "P")`, `exec(...)`, a ``__getattr__``)."""
_FACTORY_TERMINALS = frozenset(vocabulary.terminal(name) for name in vocabulary.ATTRIBUTE_FACTORIES)


class _Walker:
    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.top = -1
        self.loop_depth = 0
        self.functions: tuple[ast.AST, ...] = ()
        self.annotating = False
        """Inside an annotation (``x: Float[Array, f"{n}"]``), whose strings name no attribute."""
        self.in_header = False
        """In a ``def``'s or ``class``'s header (decorators, defaults, annotations, bases), which
        runs in the scope around it: a ``:=`` there binds a name of the module."""

    def site(self, node: ast.AST) -> Site:
        return Site(node, self.top, self.loop_depth > 0, self.functions)

    # ``ast.NodeVisitor``'s walk, without its per-node string building and generators: the walk
    # runs over every file, most of which have nothing to report
    def visit(self, node: ast.AST) -> None:
        kind = type(node)
        method = _METHODS.get(kind)
        if method is None:
            method = _METHODS[kind] = vars(_Walker).get(f"visit_{kind.__name__}", _Walker.generic_visit)
        method(self, node)

    def generic_visit(self, node: ast.AST) -> None:
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)

    def visit_ClassDef_shell(self, node: ast.ClassDef, methods) -> None:
        """A top-level class without the methods (each is visited as its own unit)."""
        self.facts.classes.append((self.top, node))
        self.facts.bound.add(node.name)
        self._header((*node.bases, *node.keywords, *node.decorator_list, *getattr(node, "type_params", ())))
        for statement in node.body:
            if statement not in methods:
                self.visit(statement)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.asname:
                self.facts.aliases[alias.asname] = alias.name
            self.facts.bound.add(alias.asname or alias.name)
            self.facts.imported.add(alias.asname or alias.name)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            local = alias.asname or alias.name.partition(".")[0]
            self.facts.module_imports.setdefault(local, set()).add(alias.name if alias.asname else local)
            self.facts.imported.add(local)

    def visit_Name(self, node: ast.Name) -> None:
        if not isinstance(node.ctx, ast.Load):
            self.facts.bound.add(node.id)
        if node.id in _ATTRIBUTE_GIVING_NAMES:
            self.facts.attribute_units.add(self.top)

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if value.__class__ is str and value in _NAMESPACE_ATTRIBUTES:
            self.facts.rebinding_units.add(self.top)  # `getattr(frame, "f_locals")`: as `.f_locals` (see visit_Attribute)
        if value.__class__ is str and (value in _ASKED or value in _ATTRIBUTE_GIVING_NAMES or value[:1] == "-" and (
            value.lstrip("-").replace("-", "_") in _ASKED
        )):  # `setattr(N, "__gt__", f)`, `{"shape": v}`, argparse's `"--shape"`
            self.facts.attribute_units.add(self.top)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        literals = [v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
        if not self.annotating and may_spell_from(literals, _SPELLABLE):  # `f"{key}"`: a name built at run time (see `attributes.may_build`)
            self.facts.attribute_units.add(self.top)
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.Add):
            literals = [v.value for v in (node.left, node.right) if isinstance(v, ast.Constant) and isinstance(v.value, str)]
            if literals and not self.annotating and may_spell_from(literals, _SPELLABLE):  # `"sha" + "pe"`
                self.facts.attribute_units.add(self.top)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        self.facts.rebinding_units.add(self.top)

    visit_Nonlocal = visit_Global

    def visit_arg(self, node: ast.arg) -> None:
        self.facts.bound.add(node.arg)
        if node.annotation is not None:
            self._annotation(node.annotation)

    def _annotation(self, node: ast.expr) -> None:
        saved, self.annotating = self.annotating, True
        self.visit(node)
        self.annotating = saved

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.visit(node.target)
        self._annotation(node.annotation)
        if node.value is not None:
            self.visit(node.value)

    def _captures(self, node) -> None:  # except ... as name, match captures
        name = getattr(node, "name", None) or getattr(node, "rest", None)
        if isinstance(name, str):
            self.facts.bound.add(name)
        self.generic_visit(node)

    visit_ExceptHandler = visit_MatchAs = visit_MatchStar = visit_MatchMapping = _captures

    def _function(self, node) -> None:
        self.facts.functions.append(self.site(node))
        if not isinstance(node, ast.Lambda):
            self.facts.bound.add(node.name)
            if node.name in _ATTRIBUTE_GIVING_NAMES:  # `def __getattr__`: an object of any attribute
                self.facts.attribute_units.add(self.top)
        saved, self.loop_depth = self.loop_depth, 0
        self.functions += (node,)
        header, self.in_header = self.in_header, True
        for name in node._fields:  # `generic_visit`, the return annotation as an annotation
            value = getattr(node, name, None)
            self.in_header = name != "body"
            if name == "returns" and value is not None:
                self._annotation(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)
        self.in_header = header
        self.functions = self.functions[:-1]
        self.loop_depth = saved

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def _loop(self, node) -> None:
        iterator = node.iter if isinstance(node, ast.For) else None
        if isinstance(iterator, ast.Call) and terminal(iterator.func) == "reversed" and len(iterator.args) == 1:
            iterator = iterator.args[0]  # `reversed(range(n))`
        if isinstance(iterator, ast.Call) and terminal(iterator.func) in ("range", "arange"):
            self.facts.range_loops.append(self.site(node))  # `range(n)`, or `jnp.arange(n)` (AT401)
        self.loop_depth += 1
        self.generic_visit(node)
        self.loop_depth -= 1

    visit_For = visit_While = visit_AsyncFor = _loop

    def visit_Call(self, node: ast.Call) -> None:
        self.facts.calls.append(self.site(node))
        if terminal(node.func) in _FRAME_TERMINALS and _reads_frames(self.facts, node.func):  # `globals()["AX"] = 0` rebinds a global too
            self.facts.rebinding_units.add(self.top)
        elif terminal(node.func) in ("getattr", "attrgetter") and not all(
            isinstance(a, ast.Constant) for a in node.args[1 if terminal(node.func) == "getattr" else 0:][:1]
        ):  # `getattr(sys, "_get" + "frame")`: a frame or a global reached by a name built at run time
            self.facts.rebinding_units.add(self.top)
        if at_update_receiver(node) is not None or self.facts.name(node.func) in DYNAMIC_UPDATE_NAMES:
            self.facts.updates.append(self.site(node))
        callee = self.facts.name(node.func)
        if callee in _FACTORY_TERMINALS and (callee != "type" or len(node.args) > 2):  # `namedtuple("P", "x shape")`
            self.facts.attribute_units.add(self.top)
        elif any(k.arg in _ASKED for k in node.keywords):
            self.facts.attribute_keywords.append((self.top, node.func))
        if any(k.arg == vocabulary.FRAME_LOCAL_CAPTURE for k in node.keywords):
            self.facts.rebinding_units.add(self.top)  # `StackSummary.extract(frames, capture_locals=True)`
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in _NAMESPACE_ATTRIBUTES:  # a frame's locals, a function's globals: slicing keeps the unit
            self.facts.rebinding_units.add(self.top)
        if node.attr in _ATTRIBUTE_GIVING_NAMES or node.attr in _ASKED and not isinstance(node.ctx, ast.Load):
            self.facts.attribute_units.add(self.top)  # `o.shape = v` in a function, `self.__dict__.update(kw)`
        self.visit(node.value)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.facts.classes.append((self.top, node))
        self.facts.bound.add(node.name)
        self._header((*node.bases, *node.keywords, *node.decorator_list, *getattr(node, "type_params", ())))
        for statement in node.body:
            self.visit(statement)

    def _header(self, parts) -> None:
        header, self.in_header = self.in_header, True
        for part in parts:
            self.visit(part)
        self.in_header = header

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        if self.in_header:  # `def f(a=(N := 2.5))`: slicing keeps the unit, which binds the module's `N`
            self.facts.rebinding_units.add(self.top)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        if isinstance(node.value, ast.Attribute):
            self.facts.attribute_binds.append(self.site(node))
        name = node.targets[0].id if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) else None
        target = node.targets[0] if len(node.targets) == 1 else None
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and isinstance(node.value, ast.Call):
            self.facts.call_assigns.append((target.attr, self.site(node.value)))  # `self._insert = jax.jit(...)`
        if name is not None and isinstance(node.value, ast.Call):
            self.facts.call_assigns.append((name, self.site(node.value)))
            if any(_reads(call, name) for call in assigned_calls(node.value)) or updates_parts(node.value, name):
                self.facts.self_assigns.append(self.site(node))
        elif name is not None and any(_reads(call, name) for call in assigned_calls(node.value)):
            self.facts.self_assigns.append(self.site(node))  # `x = y if x is None else f([x, y])`
        elif len(node.targets) == 1 and isinstance(node.targets[0], (ast.Attribute, ast.Subscript)) and (
            at_update_receiver(node.value) == ""
        ) and ast.unparse(at_receiver(node.value)) == ast.unparse(node.targets[0]):
            # `obj.data = obj.data.at[i].set(v)`, `d["buf"] = d["buf"].at[i].set(v)`, `parts[s] = parts[s].at[t]...`
            self.facts.self_assigns.append(self.site(node))
        elif len(node.targets) == 1 and isinstance(node.targets[0], (ast.Attribute, ast.Subscript)) and isinstance(
            node.value, ast.Call
        ) and _grows_held(node.value, node.targets[0]):
            self.facts.self_assigns.append(self.site(node))  # `log[k] = jnp.concatenate([log[k], x])`
        elif len(node.targets) == 1 and isinstance(node.targets[0], (ast.Tuple, ast.List)) and isinstance(
            node.value, ast.Call
        ) and any(isinstance(e, ast.Name) and _reads(node.value, e.id) for e in node.targets[0].elts):
            self.facts.self_assigns.append(self.site(node))  # `a, b = step(a, b, x)`: a helper may grow `a`
        elif name is not None and isinstance(node.value, ast.Name) and self.loop_depth:
            self.facts.renames.append(self.site(node))
        elif name is not None and isinstance(node.value, ast.Lambda):
            self.facts.named_lambdas.setdefault(name, []).append(node.value)
        elif name is not None and not self.functions and isinstance(node.value, ast.Attribute):
            self.facts.aliases.setdefault(name, node.value.attr)  # `my_jit = jax.jit`, `scan = lax.scan`
        if name is not None:
            self.facts.name_aliases.extend((name, f) for f in _named_branches(node.value))
        elif len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute) and isinstance(node.value, ast.Name):
            self.facts.name_aliases.append((node.targets[0].attr, node.value.id))  # `self.step = _step`
        self.generic_visit(node)


def _named_branches(value: ast.expr) -> list[str]:
    """The names ``value`` may evaluate to: ``f``, or the branches of ``f if c else g``."""
    if isinstance(value, ast.Name):
        return [value.id]
    if isinstance(value, ast.IfExp):
        return _named_branches(value.body) + _named_branches(value.orelse)
    return []


def updates_parts(call: ast.Call, name: str) -> bool:
    """Whether ``call`` may hand back ``name`` with a part updated or grown: a field
    (``name.replace(f=name.f.at[i].set(v))``, ``_replace``, ``dataclasses.replace(name, ...)``,
    also each leaf of the field, ``f=tree_map(lambda b, v: b.at[i].set(v), name.f, row)``) or each
    leaf (``tree_map(lambda b, v: b.at[i].set(v), name, ...)``, or a growth in the lambda)."""
    def field(a: ast.AST | None) -> bool:  # `name.f`
        return isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name) and a.value.id == name

    for keyword in call.keywords:
        value = keyword.value
        if field(at_receiver(value)) or isinstance(value, ast.Call) and _maps_over(value, field):
            return True
    if len(call.args) == 3 and isinstance(call.args[0], ast.Lambda) and field(at_receiver(call.args[2])):
        return True  # `tree_at(lambda h: h.f, name, name.f.at[i].set(v))`
    return _maps_over(call, lambda a: isinstance(a, ast.Name) and a.id == name)


def _maps_over(call: ast.Call, is_tree) -> bool:
    """Whether ``call`` may be ``tree_map(lambda a, x: f(a, x), tree, xs)`` over a ``tree`` that
    ``is_tree`` picks, ``f`` an update or a growth of a parameter."""
    function = call.args[0] if call.args else None
    if not isinstance(function, ast.Lambda) or not any(is_tree(a) for a in call.args[1:]):
        return False
    params = {a.arg for a in function.args.args}
    return at_update_receiver(function.body) in params or isinstance(function.body, ast.Call) and any(
        _reads(function.body, p) for p in params
    )


def _grows_held(call: ast.Call, target: ast.expr) -> bool:
    """Whether ``call`` may be a growth of ``target``, an attribute or an item: a growth function
    given the same expression as a piece (``jnp.concatenate([log[k], x])`` for ``log[k]``)."""
    func = call.func
    if (func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None) not in GROWTH_NAMES:
        return False
    pieces = [*call.args[:2], *(call.args[0].elts if call.args and isinstance(call.args[0], (ast.List, ast.Tuple)) else ())]
    candidates = [p for p in pieces if type(p) is type(target)]
    return bool(candidates) and ast.unparse(target) in {ast.unparse(p) for p in candidates}


def assigned_calls(value: ast.expr) -> list[ast.Call]:
    """The calls an assignment may bind: its value (and the call it casts, ``f(x).astype(d)``),
    or either branch of a conditional expression (``y if x is None else jnp.concatenate([x,
    y])``, a growth whose first step seeds)."""
    if isinstance(value, ast.IfExp):
        return [b for b in (value.body, value.orelse) if isinstance(b, ast.Call)]
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "astype" and (
        isinstance(value.func.value, ast.Call)
    ):
        return [value, value.func.value]  # `jnp.append(idx, new).astype(jnp.int32)`: the growth, cast
    return [value] if isinstance(value, ast.Call) else []


def _reads(call: ast.Call, name: str) -> bool:
    """Whether ``name`` is an argument (by position or keyword), a list element of one, or the
    ``.at`` receiver."""
    items = [*call.args, *(k.value for k in call.keywords)]
    if call.args and isinstance(call.args[0], (ast.List, ast.Tuple)):
        items += call.args[0].elts
    return any(isinstance(i, ast.Name) and i.id == name for i in items) or at_update_receiver(call) == name


def grows(call: ast.Call, name: str, pair: bool) -> bool:
    """Whether ``call`` could grow ``name`` by pieces at one end, as AT101 reads a growth call:
    ``name`` first or last, once, among the two arrays of a pair (``append``) or the elements of
    a literal sequence, with no ``*`` argument. Padding on both sides (``[p, x, p]``) is not."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return False
    if pair:
        items = call.args[:2]
    elif call.args and isinstance(call.args[0], (ast.List, ast.Tuple)):
        items = call.args[0].elts
        if any(isinstance(e, ast.Starred) for e in items):
            return False
    else:
        return False
    at = [isinstance(i, ast.Name) and i.id == name for i in items]
    return len(items) >= 2 and sum(at) == 1 and (at[0] or at[-1])


def gather(tree: ast.Module) -> Facts:
    """One walk over ``tree``, recording each node of interest with its top-level statement."""
    facts = Facts(tree, [])
    walker = _Walker(facts)
    definitions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for statement in tree.body:
        shell = len(facts.units)
        facts.units.append(statement)
        facts.top_is_definition.append(isinstance(statement, definitions))
        if not isinstance(statement, ast.ClassDef):
            walker.top = shell
            walker.visit(statement)
            continue
        methods = [m for m in statement.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
        facts.members[shell] = []
        for method in methods:
            facts.members[shell].append(len(facts.units))
            facts.units.append(method)
            facts.top_is_definition.append(True)
        walker.top = shell
        walker.visit_ClassDef_shell(statement, methods)
        for unit, method in zip(facts.members[shell], methods):
            walker.top = unit
            walker.visit(method)
    return facts


def tops(sites) -> set[int]:
    return {s.top for s in sites}


def inside(sites: Iterable[Site], functions: Iterable[Site]) -> list[Site]:
    """The ``sites`` that lie in the body of one of ``functions`` (at any depth): a set of the
    functions asked of each site's few enclosing ones, not a pass over every function a site."""
    held = {id(f.node) for f in functions}
    return [site for site in sites if any(id(f) in held for f in site.functions)]


def holding(functions: Iterable[Site], sites: Iterable[Site]) -> list[Site]:
    """The ``functions`` whose body holds one of ``sites`` (at any depth)."""
    held = {id(f) for site in sites for f in site.functions}
    return [f for f in functions if id(f.node) in held]


TRACING_TERMINALS = JIT_NAMES | LOOP_NAMES | vocabulary.TRACED_ARGUMENT_TERMINALS | frozenset(
    vocabulary.INITIALIZER_METHODS
) | frozenset(
    vocabulary.terminal(n) for n in (*vocabulary.TRACING_TRANSFORMS, *vocabulary.PARTIAL)
)


def tracing_call_tops(facts: Facts, functions: list[Site]) -> set[int]:
    """Statements that may show one of ``functions`` runs traced: ``jit(f)``, ``lax.scan(f, ...)``,
    ``vmap(f)``, ``partial(f, ...)`` given to one of those, ``self.param(name, f)`` or ``kernel_init=f``
    (an initializer), and the functions that call ``f`` or hand it to a call (a
    function called from a traced one is traced too), a few calls up.

    Rules read them to tell that ``f`` runs traced, so they are kept along with ``f``.
    """
    names = {f.node.name for f in functions if not isinstance(f.node, ast.Lambda)}
    names |= _classes_defining(facts, functions, "__init__")  # `Class(...)` runs `Class.__init__`
    # `self.gen(...)` runs `Kind.__call__` where a method set `self.gen = ... Kind(...) ...`
    called = _classes_defining(facts, functions, "__call__")
    if called:
        names |= facts.instances(called)  # `smoother(x)` of `smoother = Smoother()`
        names |= called | {
            attribute
            for shell in facts.members
            for attribute, kinds in held_objects(facts.units[shell]).items()
            if any(kind.rpartition(".")[2] in called for kind in kinds)
        }
    if "__call__" in names:
        names |= vocabulary.MODEL_ENTRIES  # `model.apply(params, x)` runs a Flax module's `__call__`
    found: set[int] = set()
    for shell in facts.members:  # a class attribute holding the function (`conv_op = staticmethod(conv)`)
        for statement in facts.units[shell].body:
            if isinstance(statement, ast.Assign) and _held_function(statement.value) in names:
                found.add(shell)
    for _ in range(3):
        names |= facts.wrappers(names)  # `batched(x)` in jitted code runs `f` of `batched = jax.vmap(f)`
        callers: set[str] = set()
        passing = facts.passed_names()
        for site, passed_names, initializer_names in map(passing.__getitem__, facts.sites_naming(names)):
            call = site.node
            passed = not passed_names.isdisjoint(names)
            initializer = not initializer_names.isdisjoint(names)
            if passed and facts.name(call.func) in TRACING_TERMINALS or initializer:
                found.add(site.top)
            elif passed or (terminal(call.func) in names and facts.may_run(site, terminal(call.func))):
                # `g(x)`, or `tree_map(g, x)`: runs as its caller does
                found.add(site.top)
                callers.update(f.name for f in site.functions if not isinstance(f, ast.Lambda))
                if passed and isinstance(call.func, ast.Name):  # `bounded_loop(cond, body, ...)`: a loop combinator of the file
                    found.update(f.top for f in facts.functions if not isinstance(f.node, ast.Lambda) and f.node.name == call.func.id)
        if not callers - names:
            break
        names |= callers
    return found


def _held_function(value: ast.expr) -> str | None:
    """The name of the function a class attribute holds: ``f`` of ``= f`` or ``= staticmethod(f)``."""
    if isinstance(value, ast.Call) and terminal(value.func) in ("staticmethod", "classmethod") and len(value.args) == 1:
        value = value.args[0]
    return value.id if isinstance(value, ast.Name) else None


def _classes_defining(facts: Facts, functions: list[Site], method: str) -> set[str]:
    """The names of the classes whose method ``method`` is one of ``functions``."""
    return {
        facts.units[shell].name
        for shell, methods in facts.members.items()
        for f in functions
        if f.top in methods and facts.units[f.top] is f.node and f.node.name == method
    }


def held_objects(cls: ast.ClassDef) -> dict[str, list[str]]:
    """The objects each attribute set in ``cls`` may hold: the callees (dotted where they are
    names, ``jumanji.Kind``, else their last name) of the calls in any value assigned to it
    (``self.gen = g or Kind(...)`` holds a ``Kind``). The prefilter keeps the calls of such an
    attribute with ``Kind.__call__``; the project follows them to ``Kind``'s module."""
    held: dict[str, list[str]] = {}
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign):
            kinds = [dotted(c.func) or terminal(c.func) for c in ast.walk(node.value) if isinstance(c, ast.Call)]
            kinds = [k for k in kinds if k is not None]
            for target in node.targets if kinds else ():
                if isinstance(target, ast.Attribute):
                    held.setdefault(target.attr, []).extend(kinds)
    return held


def _reads_frames(facts: Facts, func: ast.expr) -> bool:
    """Whether ``func`` may be a frame reader: ``sys._getframe`` (``import sys as s``: ``s._getframe``),
    or a bare name imported as one (``from inspect import stack``); ``jnp.stack`` is not."""
    if isinstance(func, ast.Name):
        return True
    head, _, rest = (dotted(func) or "").partition(".")
    return any(f"{module}.{rest}" in NAMESPACE_WRITERS for module in facts.module_imports.get(head, {head}))


def absolute_module(package: str, name: str | None, level: int) -> str | None:
    """The module ``from <level dots><name> import ...`` names in ``package`` (the importing
    module's package: the module itself for a package's ``__init__``); ``None`` beyond the top."""
    if level == 0:
        return name
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, *([name] if name else [])]) or None


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else ``None``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def _defined_attributes(cls: ast.ClassDef) -> set[str]:
    """The attributes ``cls`` gives its objects: fields, methods and properties, class
    attributes, and ``self.attribute = ...`` in a method (see ``Semantics.defines_attribute``);
    one walk of the class, however many attributes are asked of it."""
    found = set()
    for node in ast.walk(cls):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.add(node.name)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        for target in targets:
            if isinstance(target, ast.Name):
                found.add(target.id)
            elif isinstance(target, ast.Attribute):
                found.add(target.attr)
    return found


def _nested_definitions(statement: ast.stmt):
    """The names that ``def``/``class`` statements inside a compound statement (``if``, ``for``,
    ``try``, ``with``) bind in the scope around it."""
    work = [statement] if isinstance(statement, _COMPOUND) else []
    while work:
        for child in ast.iter_child_nodes(work.pop()):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield child.name
            elif isinstance(child, _COMPOUND) or isinstance(child, (ast.ExceptHandler, ast.match_case)):
                work.append(child)


_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith, ast.Match,
             *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))


RECORD_METHODS = frozenset({"__post_init__", "__check_init__"})
"""Methods that decide what building a class's object gives beside its dunder methods (which
Python calls without naming them: ``float(row)`` runs ``__float__``, ``a + b`` ``__add__``)."""


def _class_parts(facts: Facts, keep: set[int], tops: list[int]) -> tuple[set[int], set[int]]:
    """The parts of the file's other classes that the kept code depends on.

    - A class giving its objects an attribute the rules ask the file about (a ``shape`` field
      or property: ``x.shape[k]`` proves no int then; a ``__len__`` or ``__getitem__`` of its
      own): the methods that define one.
    - A class the kept code names (a carry built as ``State(seq, key)`` is a record of its
      fields): its dunder methods and ``__post_init__``, which decide what building and using
      its objects does, and the methods the kept code names, a few calls deep.

    Each such class keeps its own lines (fields, class attributes), and its other methods stay
    out: a big class named by one function cost its whole text (a 7000-line ``eqx.Module``).
    Returns the units to keep (those methods; a class of methods alone that none is wanted
    from, whole) and the classes whose own lines are kept."""
    named = {n.id if isinstance(n, ast.Name) else n.attr for k in keep for n in _walk_names(facts.units[k])}
    units: set[int] = set()
    own_lines: set[int] = set()
    for k in tops:
        cls = facts.units[k]
        if not isinstance(cls, ast.ClassDef) or k in keep:
            continue
        asked = not _defined_attributes(cls).isdisjoint(vocabulary.ASKED_ATTRIBUTES)
        if not asked and cls.name not in named:
            continue
        chosen = {m for m in facts.members[k] if not _defined_attributes(facts.units[m]).isdisjoint(vocabulary.ASKED_ATTRIBUTES)}
        if cls.name in named:
            wanted = set(RECORD_METHODS) | named
            grown = True
            while grown:
                grown = False
                for m in facts.members[k]:
                    name = facts.units[m].name
                    if m not in chosen and (name in wanted or name.startswith("__") and name.endswith("__")):
                        chosen.add(m)
                        wanted |= {n.id if isinstance(n, ast.Name) else n.attr for n in _walk_names(facts.units[m])}
                        grown = True
        if len(facts.members[k]) < len(cls.body):  # fields, a docstring: its lines parse without its methods
            own_lines.add(k)
            units |= chosen
        else:
            units |= chosen or {k}
    return units, own_lines


def _walk_names(node: ast.AST):
    return (n for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute)))


def _record_makers(facts: Facts, keep: set[int]) -> set[int]:
    """The units that call a record class of the file (one with annotated fields, a
    ``struct.dataclass`` or ``NamedTuple``) a field of which the kept units update
    (``st.owner.at[slot]``): a step that receives the record as a parameter has the dtypes its
    constructions gave it (an ``owner`` field made ``jnp.zeros(n, jnp.int32)`` in ``reset``)."""
    fields = {
        unit.name: {s.target.id for s in unit.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
        for unit in facts.units if isinstance(unit, ast.ClassDef)
    }
    fields = {name: found for name, found in fields.items() if found}
    if not fields:
        return set()
    updated = {  # `st.owner.at[...]`: a field the kept code updates, whose dtype AT204 asks
        n.value.attr for k in keep for n in ast.walk(facts.units[k])
        if isinstance(n, ast.Attribute) and n.attr == "at" and isinstance(n.value, ast.Attribute)
    }
    wanted = {name for name, found in fields.items() if found & updated}
    return {site.top for site in facts.calls_named(wanted)} if wanted else set()


def slice_module(text: str, facts: Facts, keep: set[int]) -> tuple[str, list[int]]:
    """``text`` without the top-level definitions not in ``keep``, and where its lines came from.

    Everything that is not a function or class definition (imports, module-level code) is
    kept, so names resolve as before; kept lines are unchanged, so columns stay right. The
    list gives, for each line of the result, its 1-based line in ``text``. Dropping the lines
    (rather than blanking them) matters: libcst's metadata walks every blank line.
    """
    lines = re.split(r"(?<=\r\n)|(?<=\r)(?!\n)|(?<=\n)", text)
    dropped = [False] * len(lines)
    keep = keep | facts.rebinding_units | facts.attribute_giving_units()
    # a definition named like a builtin (`def range`, `class int`) or an import (`class jnp`)
    # changes what a fix's call means
    keep = keep | {k for k in range(len(facts.units)) if facts.top_is_definition[k]
                   and getattr(facts.units[k], "name", None) in BUILTIN_NAMES | facts.imported}
    # A module-level name defined twice resolves to the definition that reaches the read:
    # dropping the other would change which that is (`def f` ... `def f` ... `f = jax.jit(f)`).
    methods = {m for unit_methods in facts.members.values() for m in unit_methods}
    tops = [k for k in range(len(facts.units)) if facts.top_is_definition[k] and k not in methods]
    kept_names = {facts.units[k].name for k in tops if k in keep}
    kept_names |= {  # a `def` under an `if` or a `for` of module-level code, which is always kept
        name for k, statement in enumerate(facts.units)
        if not facts.top_is_definition[k] and k not in methods for name in _nested_definitions(statement)
    }
    keep = keep | {k for k in tops if facts.units[k].name in kept_names}
    keep = keep | _record_makers(facts, keep)
    class_units, own_lines = _class_parts(facts, keep, tops)
    keep = keep | class_units
    # a kept class's bases of this file: whether its methods run traced depends on them
    classes = {facts.units[k].name: k for k in tops if isinstance(facts.units[k], ast.ClassDef)}
    # and the classes of this file that take a kept class as a base: a model class makes a mixin's
    # methods its own, and a subclass's overrides are what `self.method(...)` may run
    held = {k for k in keep | own_lines | {s for s, m in facts.members.items() if keep.intersection(m)} if k in facts.members}
    while True:
        names = {facts.units[k].name for k in held}
        derived = {
            k for k in classes.values()
            if k not in held and any(isinstance(b, ast.Name) and b.id in names for b in facts.units[k].bases)
        }
        if not derived:
            break
        held |= derived
        keep = keep | derived
    bases = [k for k in held if k in facts.members]
    while bases:
        for base in facts.units[bases.pop()].bases:
            k = classes.get(base.id) if isinstance(base, ast.Name) else None
            if k is not None and k not in keep:
                keep = keep | {k}
                bases.append(k)
    for shell, methods_of_shell in facts.members.items():
        if shell in keep:  # the class is needed whole
            keep = keep | set(methods_of_shell)
        elif keep.intersection(methods_of_shell) or shell in own_lines:  # some methods are: the class line and its other statements too
            keep = keep | {shell}
    for index, statement in enumerate(facts.units):
        if index in keep or not facts.top_is_definition[index]:
            continue
        if index in facts.members and keep.intersection(facts.members[index]):
            continue
        first = min([statement.lineno, *(d.lineno for d in statement.decorator_list)])
        for n in range(first - 1, statement.end_lineno):
            dropped[n] = True
    kept = [n for n in range(len(lines)) if not dropped[n]]
    return "".join(lines[n] for n in kept), [n + 1 for n in kept]
