"""The base of every source rule: a visitor of libcst nodes that declares its codes and reports
findings.

As in TorchFix, one visitor serves a rule family and declares the codes it can report; the
engine runs only visitors with at least one enabled code whose ``triggers`` occur in the file.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import ClassVar, Iterator

import libcst as cst

from autota.catalogue import Edit, Finding, Fix, Location
from autota.source import attributes, project, scopes, vocabulary
from autota.source.prefilter import Facts, absolute_module
from autota.source.text import SourceText
from autota.source.tracing import TracedFunctions
from autota.source.growers import Grower
from autota.source.project import ProjectFunctions
from autota.source.wrappers import LoopWrapper
from autota.source.vocabulary import (
    ARRAY_MODULES,
    CALLER_FRAME_READERS,
    COMPUTED_ATTRIBUTE_READERS,
    CONSTRUCTORS,
    DEBUGGER_MODULES,
    FRAME_LOCAL_CAPTURE,
    FRAME_LOCALS,
    FRAME_READERS,
    FRAME_SOURCES,
    JIT,
    NOT_ARRAY_RESULTS,
    NUMPY_READERS,
    PARTIAL,
    PURE_BUILTINS,
    PYTHON_RESULTS,
    READING_METHODS,
    SHARED_MEMORY,
    SCALAR_TYPES,
    UNCOPIED,
    JNP,
    TRACED_ARGUMENTS,
    terminal,
)

SETTING_HAZARDS = {
    "checkify": (("checkify",), (
        "`checkify` is not applied to the function ({where} mentions it): its index checks raise `ValueError` on "
        "the fix's scatter with an empty index (`row.at[...].set(v)`, which converts a row as the write did)"
    )),
    "strict promotion": (("dtype_promotion",), (
        "dtype promotion is not strict ({where} mentions `dtype_promotion`): under it the fix's `jnp.result_type` "
        "of a row refuses what the write converted (a Python bool into an int buffer), and the fix's read of the "
        "slot raises before the write's own error"
    )),
    "warnings as errors": (("simplefilter", "filterwarnings"), (
        "warnings are not errors ({where} mentions a warnings filter): the write's `FutureWarning` for a row it "
        "cannot cast safely came before a zero-length buffer's `IndexError`, which the fix's read of the slot "
        "raises first"
    )),
    "shard_map": (("shard_map",), (
        "`shard_map` is not applied to the loop's function ({where} mentions it): there the loop requires its "
        "carry to keep its varying mesh axes (a buffer made unvarying and written with varying rows raises "
        "`TypeError`), which the fix's stacked outputs do not check"
    )),
}
"""Transformations and settings the module or run may apply to a fixed function, by name: the
words whose mention counts (see :meth:`SourceRule.run_mentions`), and what a fix then assumes
(reviews 81-83; see :data:`vocabulary.FIX_HAZARD_TRANSFORMS`)."""


@dataclass(frozen=True)
class Construction:
    """A call of a ``jnp`` array constructor, read by :meth:`SourceRule.construction`."""

    name: str
    """The constructor: ``zeros``, ``full``, ``arange``..."""
    positional: list
    keywords: dict
    dtype: cst.BaseExpression | None
    """The ``dtype`` argument, by keyword or position; ``None`` where none is passed."""


@dataclass
class RuleContext:
    """What a rule needs to know about the file it is visiting."""

    path: str
    source: SourceText
    module: cst.Module
    enabled: frozenset[str]
    findings: list[Finding] = field(default_factory=list)
    given_names: dict[int, set[str]] = field(default_factory=dict)
    """Names fixes of this pass introduce, by top-level statement: fixes applied in one round
    must not pick the same name where they could meet."""
    _identifiers: set[str] | None = None
    _stores: project.Stores | None = None
    semantics: scopes.Semantics | None = None
    """The file's parents, scopes, positions and names, indexed once for every rule (see
    :class:`scopes.Semantics`); the engine sets it before the rules run."""
    line_map: list[int] | None = None
    """Where each line of the parsed text sits in the file, when libcst parsed only a slice
    of it (see :func:`autota.source.prefilter.slice_module`); ``None``: the whole file."""
    traced_elsewhere: frozenset[str] = frozenset()
    """Module-level functions of this file that other modules of the run call from traced code
    (see :mod:`autota.source.project`)."""
    imported: ProjectFunctions = field(default_factory=ProjectFunctions)
    """The loop wrappers and growers of the other modules of the run, by dotted name."""
    own: ProjectFunctions = field(default_factory=ProjectFunctions)
    """The loop wrappers and growers this file defines at its top level, by name."""
    tails: dict[int, dict[str, set[str]]] = field(default_factory=dict)
    """For each mapping of :class:`ProjectFunctions` (by ``id``), its keys by their dotted tails."""
    unread: str | None = None
    """Code that runs in the file's namespace and that autota does not read (a notebook's
    ``%time`` magic), where there is some: it may bind any name or set JAX's configuration, so
    no fix is proven safe."""
    traced: TracedFunctions | None = None
    """Which of the file's functions run traced, built by the first rule that asks and read by
    every rule of the pass (see :attr:`SourceRule.traced`)."""

    def own_stores(self) -> project.Stores:
        """What the file's own text may store (see :func:`autota.source.project.stores`), read
        once a file: a run of one file has no project pass, and a pass's facts may lack it."""
        if self._stores is None:
            self._stores = project.stores(self.source.text)
        return self._stores

    def file_identifiers(self) -> set[str]:
        """Every identifier-like word of the whole file (the parsed slice may lack some): a fresh
        name must clash with none, even in code that slicing left out."""
        if self._identifiers is None:
            self._identifiers = set(re.findall(r"[^\W\d]\w*", self.source.text))
        return self._identifiers

    def name_count(self, name: str) -> int:
        """How many times the whole file spells the name ``name`` in code: the parsed slice may
        leave out some of its uses (see :meth:`SourceText.name_count`)."""
        return self.source.name_count(name)

    def file_line(self, line: int) -> int:
        """The file's line for a line of the parsed text."""
        return line if self.line_map is None else self.line_map[line - 1]


class SourceRule:
    codes: ClassVar[tuple[str, ...]] = ()
    triggers: ClassVar[tuple[str, ...]] = ()
    """Substrings one of which a file must contain for this rule to be worth parsing it."""

    @classmethod
    def triggered(cls, text: str, imported: ProjectFunctions) -> bool:
        """Whether the file may hold a candidate: one of :attr:`triggers` occurs in it."""
        return any(t in text for t in cls.triggers)

    @classmethod
    def relevant(cls, facts: Facts) -> set[int] | None:
        """The top-level statements this rule needs to see, from the cheap AST facts.

        An empty set skips the rule for the file; ``None`` asks for the whole module. It must
        over-approximate: a statement left out is a finding the rule can never report.
        """
        return None

    def __init__(self, context: RuleContext) -> None:
        self.context = context

    def run(self) -> None:
        """Call the rule's ``visit_<Node>`` methods on the file's nodes in source order, as a libcst
        visitor would, from the node list the semantics already holds: libcst's own walk rebuilds
        every node it passes, which cost as much as the rules themselves. Every node is visited:
        a hook's return value prunes nothing (no rule needs to skip a subtree)."""
        hooks: dict[type, object] = {}
        for node in self.context.semantics.nodes:
            kind = type(node)
            hook = hooks.get(kind, hooks)
            if hook is hooks:
                hook = hooks[kind] = getattr(self, f"visit_{kind.__name__}", None)
            if hook is not None:
                hook(node)

    @property
    def traced(self) -> TracedFunctions:
        """Which of the module's functions run traced; built on first use, once per file: the
        index asks only what every rule answers alike (names, parents, jit wrappers), so the
        rule that builds it lends it to the others."""
        if self.context.traced is None:
            self.context.traced = TracedFunctions(self, self.context.module)
        return self.context.traced

    @property
    def semantics(self) -> scopes.Semantics:
        """The file's metadata and name index, shared by the rules of the pass."""
        return self.context.semantics

    # -- helpers shared by every rule -------------------------------------------------------
    def code_of(self, node: cst.CSTNode) -> str:
        """The code of ``node``. A node over several lines is taken from the file as written:
        libcst renders it without the indentation of the blocks around it, which its
        continuation lines inside brackets then lose."""
        code = self.context.module.code_for_node(node)
        if "\n" not in code or node not in self.semantics.parents:
            return code
        where, source = self.location(node), self.context.source
        written = source.text[source.offset(where.line, where.column) : source.offset(where.end_line, where.end_column)]
        same = [line.strip() for line in written.splitlines()] == [line.strip() for line in code.splitlines()]
        return written if same else code

    def fresh_name(self, base: str, near: cst.CSTNode) -> str:
        """A name for a fix at ``near`` to introduce: unused in the module, and not given to another
        fix of this pass in the same top-level statement."""
        top = next((a for a in [near, *self.ancestors(near)] if isinstance(self.parent(a), cst.Module)), near)
        given = self.context.given_names.setdefault(id(top), set())
        spelled, words = self.semantics.by_value, self.context.file_identifiers()
        name, k = base, 2
        while name in spelled or name in words or name in given:
            name, k = f"{base}_{k}", k + 1
        given.add(name)
        return name

    def original_text(self, node: cst.CSTNode) -> str:
        """The file's own text of ``node``: unlike :meth:`code_of`, continuation lines keep the
        indentation of the block around them."""
        loc = self.location(node)
        source = self.context.source
        return source.text[source.offset(loc.line, loc.column) : source.offset(loc.end_line, loc.end_column)]

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.context.semantics.parents.get(node)

    def ancestors(self, node: cst.CSTNode):
        parent = self.parent(node)
        while parent is not None:
            yield parent
            parent = self.parent(parent)

    def qualified_names(self, node: cst.CSTNode) -> set[str]:
        return self.context.semantics.resolved_names(node)

    def matches(self, node: cst.CSTNode, names) -> str | None:
        """The qualified name of ``node`` that is in ``names``, resolved through imports; ``None``
        where the name may also be something else (``import numpy as jnp`` after ``import
        jax.numpy as jnp``): what the call runs is then not known."""
        qualified = self.qualified_names(node)
        found = next((name for name in qualified if name in names), None)
        if found is not None and len(qualified) > 1 and not qualified <= set(names):
            return None
        return found

    def construction(self, value: cst.BaseExpression | None) -> Construction | None:
        """``value`` as a call of a ``jnp`` array constructor (``zeros``, ``full``, ``arange``...)
        with no ``*`` argument, else ``None``: the dtype facts of the rules start from it."""
        if not isinstance(value, cst.Call) or any(a.star for a in value.args):
            return None
        func = self.matches(value.func, CONSTRUCTORS | {f"{JNP}.arange"})
        if func is None:
            return None
        name = terminal(func)
        positional = [a.value for a in value.args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in value.args if a.keyword is not None}
        where = {"full": 2, "full_like": 2, "arange": None}.get(name, 1)  # `arange`'s dtype: by keyword only
        dtype = keywords.get("dtype", positional[where] if where is not None and len(positional) > where else None)
        return Construction(name, positional, keywords, dtype)

    def dtype_in(self, dtype: cst.BaseExpression, names: frozenset[str], strings: frozenset[str]) -> bool:
        """Whether ``dtype`` (a constructor's argument) is one of ``names`` (qualified, such as
        ``jax.numpy.uint32``) or a string of ``strings`` (``"uint32"``)."""
        if isinstance(dtype, cst.SimpleString):
            return dtype.evaluated_value in strings
        return self.matches(dtype, names) is not None

    def array_function(self, func: cst.BaseExpression) -> bool:
        """Whether ``func`` is one of JAX's array functions (:data:`~autota.source.vocabulary.ARRAY_MODULES`):
        its result is made of new JAX arrays, and it does nothing else."""
        names = self.qualified_names(func)
        return any(q.startswith(ARRAY_MODULES) for q in names) and not names & PYTHON_RESULTS

    def one_array_function(self, func: cst.BaseExpression) -> bool:
        """Whether ``func`` is one of JAX's array functions whose result is one array, not a list,
        tuple or NamedTuple of them (:data:`~autota.source.vocabulary.NOT_ARRAY_RESULTS`)."""
        return self.array_function(func) and not self.qualified_names(func) & NOT_ARRAY_RESULTS

    def writes_nothing(self, call: cst.Call) -> bool:
        """Whether ``call`` is proven to change no object: a JAX array function (but the loops
        and branches, which run user code), one of NumPy's that read (without ``out=``), a
        builtin that reads and calls nothing it is given, a method that only reads, or a JAX
        update (``x.at[i].set``)."""
        if any(arg.keyword is not None and arg.keyword.value == "out" for arg in call.args):
            return False
        names = self.qualified_names(call.func)
        if names & TRACED_ARGUMENTS.keys():
            return False
        if self.array_function(call.func) or names & (PURE_BUILTINS | NUMPY_READERS):
            return True
        if any(q.startswith("numpy.") for q in names):
            return False
        func = call.func
        return isinstance(func, cst.Attribute) and (func.attr.value in READING_METHODS or scopes.at_call(call) is not None)

    def new_jax_array(self, call: cst.Call, own_memory: bool = False) -> bool:
        """Whether ``call`` makes one new JAX array whatever it is given (with ``.at``):
        :meth:`one_array_function`, but those that may return a NumPy array or share its memory
        (:data:`~autota.source.vocabulary.SHARED_MEMORY`). With ``own_memory``, also not one that
        may leave a NumPy array uncopied (:data:`~autota.source.vocabulary.UNCOPIED`,
        ``jnp.array(..., copy=False)``), so that nothing can change it: immutable. Not through a
        module name the file binds otherwise too (see :meth:`Semantics.rebound`)."""
        func = call.func
        if not self.one_array_function(func) or self.qualified_names(func) & SHARED_MEMORY:
            return False
        head = scopes.leading_name(func)
        if head is not None and head is not func and self.semantics.rebound(head.value):
            return False  # `for jnp in [np]:` at module level: `jnp.zeros` may be NumPy's
        if not own_memory:
            return True
        if self.qualified_names(func) & UNCOPIED and not (
            self.qualified_names(func) <= SCALAR_TYPES and all(scopes.is_constant(a.value) for a in call.args)
        ):  # `jnp.float32(0.0)` copies its literal; `jnp.float32(np_array)` may not
            return False
        copy = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "copy"), None)
        return copy is None or not self.matches(func, {f"{JNP}.array"}) or isinstance(copy, cst.Name) and copy.value == "True"

    def loop_wrapper(self, func: cst.BaseExpression) -> LoopWrapper | None:
        """The loop wrapper that calling ``func`` runs (see :mod:`autota.source.wrappers`): a
        top-level function of this file, where the name reaches its ``def``, or an imported
        function of another module of the run."""
        return self._project_function(func, self.context.own.loop_wrappers, self.context.imported.loop_wrappers)

    def grower(self, func: cst.BaseExpression) -> Grower | None:
        """The grower that calling ``func`` runs (see :mod:`autota.source.growers`): a top-level
        function of this file, where the name reaches its ``def``, or an imported function of
        another module of the run."""
        return self._project_function(func, self.context.own.growers, self.context.imported.growers)

    def updater(self, func: cst.BaseExpression) -> tuple[int, ...] | None:
        """Where calling ``func`` runs an imported function of another module of the run that
        returns an updated copy of some of its parameters (see :mod:`autota.source.updaters`),
        their positions. The file's own are read from their trees."""
        return self._project_function(func, {}, self.context.imported.updaters)

    def _project_function(self, func: cst.BaseExpression, own: Mapping, imported: Mapping):
        if not own and not imported:
            return None
        if isinstance(func, cst.Name) and func.value in own:
            binding = self.semantics.binding(func)  # the module's `def`, or its `step = jax.jit(grow)`
            if binding is not None and isinstance(self.semantics.enclosing_scope(binding), cst.Module):
                return own[func.value]
        return self._of_run(imported, func)

    def _of_run(self, found: Mapping, expr: cst.BaseExpression):
        """What ``found`` (by dotted name of the run's modules) holds for a name ``expr`` may
        name: exactly, or the one entry named by a tail of it, where a module of the run is
        imported by a shorter name than its folders give (``from clm_varpar import N``, run with
        ``src/`` on ``sys.path``, of ``src/clm_varpar.py`` in a package ``src``)."""
        names = list(self.run_names(expr))
        exact = next((found[name] for name in names if name in found), None)
        if exact is not None or not found:
            return exact
        index = self.context.tails.get(id(found))
        if index is None:  # each key by its dotted tails (`src.clm_varpar.N`: `clm_varpar.N`)
            index = self.context.tails[id(found)] = {}
            for key in found:
                parts = key.split(".")
                for start in range(1, len(parts) - 1):
                    index.setdefault(".".join(parts[start:]), set()).add(key)
        keys = set().union(*(index.get(name, ()) for name in names if "." in name))
        return found[keys.pop()] if len(keys) == 1 else None

    def run_names(self, expr: cst.BaseExpression) -> Iterator[str]:
        """The dotted names ``expr`` may name, relative imports made absolute (``from .backend
        import fori_loop`` in ``pkg.model``: ``pkg.backend.fori_loop``), as the modules of the run
        are named (:func:`project.module_name`); none for a relative import that climbs above
        the top package."""
        for name in self.qualified_names(expr):
            if name.startswith("."):
                path = Path(self.context.path)
                module = project.module_name(path)
                package = module if path.stem == "__init__" else module.rpartition(".")[0]
                name = absolute_module(package, name.lstrip("."), len(name) - len(name.lstrip(".")))
            if name is not None:  # (a relative import above the top package names nothing)
                yield name

    def is_jit(self, expr: cst.BaseExpression) -> bool:
        """Whether ``expr`` jits what it is applied to: ``jax.jit`` (or ``pmap``...), a call of it
        with options (``jax.jit(static_argnums=1)`` as a decorator), or a ``partial`` of it."""
        if self.matches(expr, JIT):
            return True
        if isinstance(expr, cst.Call):
            if self.matches(expr.func, JIT):
                return True
            if self.matches(expr.func, PARTIAL) and expr.args:
                return bool(self.matches(expr.args[0].value, JIT))
        return False

    def run_mentions(self, word: str) -> str | None:
        """Where the run mentions ``word`` (``checkify``, ``shard_map``, ``disable_jit``): ``"the
        module"``, ``"a module of the run"``, or ``None``. A transformation applied in another
        module reaches this one's functions; one applied outside the run is not seen. Any mention
        counts, wherever it stands: a setting made in one function reaches a loop of another
        through calls, aliases, methods and callbacks that no text test follows (review 83)."""
        if self.context.source.mentions(word):
            return "the module"
        elsewhere = self.context.imported.disables_jit if word == "disable_jit" else word in self.context.imported.transforms
        return "a module of the run" if elsewhere else None

    def setting_assumptions(self, *hazards: str) -> list[str]:
        """What a fix assumes of the ``hazards`` (keys of :data:`SETTING_HAZARDS`) that the module
        or the run mentions: each a fact that may not hold where the fixed code runs, phrased to
        follow "it assumes that"."""
        found = []
        for hazard in hazards:
            words, assumption = SETTING_HAZARDS[hazard]
            where = next((w for w in map(self.run_mentions, words) if w is not None), None)
            if where is not None:
                found.append(assumption.format(where=where))
        return found

    def _replaceable_calls(self, edits) -> str | None:
        """What code may replace among the functions a fix's ``edits`` call by attribute, or call
        no more (in the text they replace): the names a module of the run (or this file) stores as
        attributes or names in strings (``jnp.stack = f``, ``m = jax.numpy; m.where = f``,
        ``object.__setattr__(jnp, "stack", f)``, ``mock.patch.multiple(jnp, stack=f)``), however it
        reached the object; or every name, where a module stores by names it builds (review 86:
        a check of the spellings of JAX's modules missed aliases, parameters, ``sys.modules``)."""
        source = self.context.source
        called = set()
        for edit in edits:
            start, end = source.offset(edit.line, edit.column), source.offset(edit.end_line, edit.end_column)
            called |= set(CALLED_ATTRIBUTE.findall(edit.content)) | set(CALLED_ATTRIBUTE.findall(source.text[start:end]))
        if not called:
            return None
        called |= JAX_MODULE_ATTRIBUTES  # (`jax.numpy = Fake`: the module the fix's calls go through)
        imported, own = self.context.imported, self.context.own_stores()
        if imported.stores_built_names or own.built:
            return "a module stores attributes by names it builds at run time"
        stored = sorted(called & (imported.stored_attributes | own.names))
        return f"`{stored[0]}` is stored as an attribute or named in a string" if stored else None

    def module_rebinding(self, names: set[str]) -> str | None:
        """How code may bind one of the module's ``names`` again where no statement of the module
        does (see :data:`vocabulary.MODULE_REBINDERS`): the first such word of the file, an import
        of the module by itself, another module of the run storing an attribute of that name or
        spelling it in a string (``mylib.jnp = numpy``, ``setattr(mylib, "jnp", numpy)``) or
        storing by built names, or a string the file builds that may spell one of them or a way to
        a module's globals (``getattr(f, "__glo" + "bals__")``)."""
        if self._file_rebinding:
            return self._file_rebinding
        stored = sorted(set(names) & self.context.imported.stored_attributes)
        if stored:
            return f"a module of the run stores an attribute `{stored[0]}` or names it in a string"
        if self.context.imported.stores_built_names:
            return "a module of the run stores attributes by names it builds at run time"
        built = attributes.may_build(self.semantics, (*vocabulary.GLOBALS_ROUTES, *names))
        if built is not None:
            return f"the file builds a name at run time (line {self.start_line(built)}) that may be one of those"
        return None

    @cached_property
    def _file_rebinding(self) -> str:
        """The part of :meth:`module_rebinding` that does not depend on the names asked about (a
        word of the file, a self-import), read from the text once a rule, not at every bound a
        rule judges; ``""`` where there is none."""
        source = self.context.source
        word = next((w for w in vocabulary.MODULE_REBINDERS if source.mentions(w)), None)
        if word is not None:
            return f"the file uses `{word.rstrip('(')}`"
        if self.imports_itself:
            return f"the file imports `{Path(self.context.path).stem}`, which may be itself"
        return ""

    @cached_property
    def module_name(self) -> str:
        """The dotted name the file is imported by (a walk up its folders, once a rule): what a
        module of the run that spells something is compared with (another module, or this one)."""
        return project.module_name(Path(self.context.path))

    @cached_property
    def imports_itself(self) -> bool:
        """Whether an import of the file names a module of the file's own name: through it, the
        module's functions and names are read and bound from outside their own code."""
        stem = Path(self.context.path).stem
        return stem.isidentifier() and bool(re.search(rf"^[ \t]*(?:import|from)\b[^\n]*\b{stem}\b", self.context.source.text, re.M))

    def unspelled(self, qualified: str) -> str:
        """Why a fix cannot spell the module ``qualified`` (``jax.numpy``): a star import that may
        bind any name, or no module-level import under a name the file binds nothing else to."""
        if self.semantics.foreign_star_import():
            return f"a star import of a module outside JAX and NumPy may bind the name the fix would spell `{qualified}` by"
        return f"`{qualified}` is not imported under a module name that the file binds nothing else to"

    def range_call(self, iterator: cst.BaseExpression) -> cst.Call | None:
        """The ``range(...)`` call a loop runs over: ``range(...)``, or ``reversed(range(...))`` (a
        discounted return, a backward pass), which steps through the same indices."""
        if (
            isinstance(iterator, cst.Call)
            and self.matches(iterator.func, {"builtins.reversed"})
            and len(iterator.args) == 1
            and not iterator.args[0].keyword
            and not iterator.args[0].star
        ):
            iterator = iterator.args[0].value
        if isinstance(iterator, cst.Call) and self.matches(iterator.func, {"builtins.range"}):
            return iterator
        return None

    def few_trips(self, loop: cst.For | cst.While) -> bool:
        """Whether ``loop`` runs over a ``range`` (or its ``reversed``, or ``jnp.arange``) of
        constants (int literals, or names bound once to one: ``N_PLAYERS = 3``, ``len((1, 2, 3))``) of at most
        :data:`FEW_TRIPS` steps, or over a tuple or list display of at most :data:`FEW_DISPLAYED`
        elements (``for dim in (3, 4, 6)``, or a name bound once to such a tuple); or over ``zip`` of
        iterables one of which is such (``zip(ks, colors)`` stops at the end of ``colors``), or
        ``enumerate`` of one of those; or a ``range`` whose stop is its start plus a few
        (``range(j - 1, j + 2)``)."""
        if isinstance(loop, cst.For):
            iterated = loop.iter
            if isinstance(iterated, cst.Call) and self.matches(iterated.func, {"builtins.enumerate"}) and iterated.args:
                iterated = iterated.args[0].value
            zipped = [iterated]
            if isinstance(iterated, cst.Call) and self.matches(iterated.func, {"builtins.zip"}):
                zipped = [a.value for a in iterated.args if a.keyword is None and not a.star]
            counts = [c for c in map(self._display_length, zipped) if c is not None]
            if counts:
                return min(counts) <= FEW_DISPLAYED
        iterator = self.range_call(loop.iter) if isinstance(loop, cst.For) else None
        if iterator is None and isinstance(loop, cst.For) and isinstance(loop.iter, cst.Call) and self.matches(
            loop.iter.func, {"jax.numpy.arange", "numpy.arange"}
        ):
            iterator = loop.iter  # `jnp.arange(-r, r + 1)` of constants: as many steps as `range`
        if iterator is None:
            return False
        keywords = {"start": 0, "stop": 1, "step": 2}
        if any(a.star or a.keyword is not None and a.keyword.value not in keywords for a in iterator.args):
            return False
        given = {k: a.value for k, a in enumerate(iterator.args) if a.keyword is None}
        given |= {keywords[a.keyword.value]: a.value for a in iterator.args if a.keyword is not None}
        if len(given) == 1 and 0 in given:
            given = {1: given[0]}  # `range(n)`, `arange(n)`: the stop
        if 1 not in given:
            return False
        values = [self._constant_int(given[k]) if k in given else default for k, default in ((0, 0), (1, None), (2, 1))]
        if values[2] is not None and values[2] > 0 and None in values[:2] and 0 in given:
            span = _linear_difference(given[1], given[0])  # `range(j - 1, j + 2)`: three steps, whatever `j` is
            return span is not None and len(range(0, span, values[2])) <= FEW_TRIPS
        if None in values or values[2] == 0:
            return False
        return len(range(*values)) <= FEW_TRIPS

    def _constant_int(self, expr: cst.BaseExpression, depth: int = 0) -> int | None:
        """An int literal, a name bound once to a constant (``M = N``, also by unpacking a display,
        ``dt, chunks = 0.02, 2``) or imported from a module of
        the run that binds it once to one, ``+``, ``-``, ``*`` of constants (``2 + 1``), or the
        builtin ``len`` of a display, followed a few levels."""
        if depth > 4:
            return None
        if isinstance(expr, cst.Name):
            value = self.semantics.assigned_value(expr)
            if value is None and not self.semantics.is_label(expr):  # `dt, chunk, chunks = 0.02, 8, 2`
                values = self.semantics.bound_values(expr)
                value = values[0] if values is not None and len(values) == 1 and not isinstance(
                    values[0], cst.AugAssign
                ) and not isinstance(self.parent(values[0]), cst.Arg) else None  # (not a loop target's `range` bound)
            if value is None and self.context.imported.constants:  # `from consts import NUMRAD`
                return self._of_run(self.context.imported.constants, expr)
            return self._constant_int(value, depth + 1) if value is not None else None
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract, cst.Multiply)):
            left, right = self._constant_int(expr.left, depth + 1), self._constant_int(expr.right, depth + 1)
            if left is None or right is None:
                return None
            return left + right if isinstance(expr.operator, cst.Add) else left - right if isinstance(
                expr.operator, cst.Subtract
            ) else left * right
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            inner = self._constant_int(expr.expression, depth + 1)  # `-psf_radius`
            return None if inner is None else -inner if isinstance(expr.operator, cst.Minus) else inner
        if isinstance(expr, cst.Call) and len(expr.args) == 1 and not expr.args[0].keyword and not expr.args[0].star and (
            self.matches(expr.func, {"builtins.len"})
        ):
            return self._display_length(expr.args[0].value)  # `len((1, 2, 3))`, `len(DIMS)`
        return scopes.int_value(expr)

    def _display_length(self, expr: cst.BaseExpression) -> int | None:
        """The number of elements of a tuple or list display with no ``*`` element, or of a tuple
        display that a name is bound to once, or of a list display whose name is only iterated,
        indexed or measured (a list bound to a name may grow); ``enumerate`` of one of those."""
        if isinstance(expr, cst.Call) and self.matches(expr.func, {"builtins.enumerate"}) and len(expr.args) == 1 and (
            expr.args[0].keyword is None and not expr.args[0].star
        ):
            expr = expr.args[0].value
        if isinstance(expr, cst.Name):
            name, expr = expr, self.semantics.assigned_value(expr)
            if isinstance(expr, cst.List) and not self._only_read(name):
                return None
            if expr is None:
                return self._annotated_tuple_length(name)
        if isinstance(expr, cst.Call) and self.matches(expr.func, vocabulary.ARRAYS_OF_DISPLAYS) and expr.args and (
            expr.args[0].keyword is None and not expr.args[0].star
        ):
            expr = expr.args[0].value  # `jnp.array([[1.0, 2.0], [3.0, 4.0]])`: as many rows as the display
        if not isinstance(expr, (cst.Tuple, cst.List)) or any(isinstance(e, cst.StarredElement) for e in expr.elements):
            return None
        return len(expr.elements)

    def _annotated_tuple_length(self, name: cst.Name) -> int | None:
        """The length of a fixed-length tuple annotation of the parameter ``name`` holds, where
        its function does not rebind it (``axis_bcs: tuple[BC, BC, BC]``, one entry per axis)."""
        scope = self.semantics.binding_scope(name)
        if not isinstance(scope, cst.FunctionDef) or self.semantics.binds_here(scope, name.value):
            return None
        param = next((p for p in scopes.all_params(scope) if p.name.value == name.value), None)
        annotation = param.annotation.annotation if param is not None and param.annotation is not None else None
        if not (
            isinstance(annotation, cst.Subscript)
            and isinstance(annotation.value, (cst.Name, cst.Attribute))
            and self.code_of(annotation.value).rpartition(".")[2] in ("tuple", "Tuple")
        ):
            return None
        elements = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
        if len(elements) != len(annotation.slice) or any(isinstance(e, cst.Ellipsis) for e in elements):
            return None
        return len(elements)

    def _only_read(self, name: cst.Name) -> bool:
        """Whether every use of the list ``name`` in its scope leaves it as it is: the loop it is
        iterated by, an item read (``ids[k]``), ``len``/``enumerate``/``zip`` of it; not a method call
        (``ids.append``), an item stored, nor a call that may change it."""
        scope = self.semantics.enclosing_scope(name)
        for use in self.semantics.variables(scope, name.value):
            parent = self.parent(use)
            if scopes.binding_role(self.semantics.parents, use)[0] is not None:
                continue
            if isinstance(parent, cst.For) and parent.iter is use:
                continue
            if isinstance(parent, cst.Subscript) and parent.value is use and not isinstance(self.parent(parent), (
                cst.AssignTarget, cst.AugAssign, cst.Del
            )):
                continue
            if isinstance(parent, cst.Arg) and isinstance(self.parent(parent), cst.Call) and self.matches(
                self.parent(parent).func, {"builtins.len", "builtins.enumerate", "builtins.zip"}
            ):
                continue
            return False
        return True

    def location(self, node: cst.CSTNode) -> Location:
        """Where ``node`` is in the file (1-based, end exclusive): what findings and edits use."""
        pos = self.context.semantics.position(node)
        line = self.context.file_line
        return Location(
            self.context.path, line(pos.start.line), pos.start.column + 1, line(pos.end.line), pos.end.column + 1
        )

    def start_line(self, node: cst.CSTNode) -> int:
        return self.context.file_line(self.context.semantics.position(node).start.line)

    def end_line(self, node: cst.CSTNode) -> int:
        return self.context.file_line(self.context.semantics.position(node).end.line)

    def frame_reader(self, tree: cst.CSTNode) -> tuple[cst.Call, str] | None:
        """The first call that can read the locals of a function in ``tree`` by name, with the
        name it calls: one below ``tree`` (``locals()``, ``sys._getframe()``), or one anywhere in
        the module that reaches its callers' frames (``sys._getframe(1)`` in a helper the loop
        calls, ``breakpoint()``). Found from the name index: a walk of the scope per candidate
        cost a long script its whole module each time."""
        found = self._frame_calls(tree, FRAME_READERS)
        if not found and tree is not self.context.module:
            found = self._frame_calls(self.context.module, CALLER_FRAME_READERS)
        if not found:  # a frame's locals read (`.f_locals`, however the frame was reached), or a frame held
            for word in sorted({FRAME_LOCALS, *FRAME_SOURCES}):  # (`e.__traceback__.tb_frame.f_back`): its locals are a call away
                for node in self.semantics.names_in(self.context.module, word):
                    holder = self.parent(node)
                    where = holder if isinstance(holder, cst.Attribute) and holder.attr is node else node
                    if where is node and word == FRAME_LOCALS:
                        continue  # a name `f_locals`, no frame's
                    location = self.location(where)
                    found.append(((location.line, location.column), where, f".{word}" if where is holder else word))
            for node in self.semantics.names_in(self.context.module, FRAME_LOCAL_CAPTURE):
                argument = self.parent(node)
                if isinstance(argument, cst.Arg) and argument.keyword is node:  # `StackSummary.extract(..., capture_locals=True)`
                    location = self.location(argument)
                    found.append(((location.line, location.column), self.parent(argument), f"{FRAME_LOCAL_CAPTURE}="))
        if not found:  # a debugger's module imported, whatever it then calls: `from pdb import set_trace as st`
            found = self._debugger_imports()
        if not found:  # or through an attribute named at run time: `getattr(sys, "_get" + "frame")(1)`
            for reader in ("getattr", "attrgetter"):
                for node in self.semantics.names_in(self.context.module, reader):
                    call = self.parent(self.parent(node)) if isinstance(self.parent(node), cst.Attribute) else self.parent(node)
                    if isinstance(call, cst.Call) and self.matches(call.func, COMPUTED_ATTRIBUTE_READERS) and self._computed_reach(call, reader):
                        location = self.location(call)
                        found.append(((location.line, location.column), call, f"{reader}()"))
        return min(found, key=lambda r: (r[0], r[2]))[1:] if found else None

    def _debugger_imports(self) -> list:
        """The imports of a debugger's module (:data:`DEBUGGER_MODULES`; ``IPython.core.debugger``)
        anywhere in the module, as :meth:`frame_reader` lists what it finds."""
        found = []
        for word in (*DEBUGGER_MODULES, "debugger"):
            for node in self.semantics.names_in(self.context.module, word):
                statement = next((a for a in self.ancestors(node) if isinstance(a, (cst.Import, cst.ImportFrom))), None)
                if statement is None or word == "debugger" and "IPython" not in self.code_of(statement):
                    continue
                location = self.location(statement)
                found.append(((location.line, location.column), statement, f"import {word}"))
        return found

    def _computed_reach(self, call: cst.Call, reader: str) -> bool:
        """Whether ``getattr``/``attrgetter`` reads an attribute whose name is built at run time
        (``"_get" + "frame"``, an f-string, a call), or a frame's ``f_locals`` named by a string,
        or any computed name of a module (``getattr(sys, name)``): a way to a frame no name
        shows. ``getattr(cls, name)`` of a name the code walks (a class's methods) is not."""
        positional = [a.value for a in call.args if a.keyword is None]
        named = positional[1 if reader == "getattr" else 0:][:1]
        held = self.semantics.assigned_value(named[0]) if named and isinstance(named[0], cst.Name) else None
        literal = next((n for n in (*named, held) if isinstance(n, (cst.SimpleString, cst.ConcatenatedString))), None)
        if literal is not None and literal.evaluated_value == FRAME_LOCALS:
            return True  # `getattr(frame, "f_locals")`, `attrgetter("f_lo" "cals")`: a frame's locals, spelled as a string
        if not named or isinstance(named[0], (cst.SimpleString, cst.ConcatenatedString)):
            return False  # another literal name: the readers above see it spelled
        if not isinstance(named[0], (cst.Name, cst.Attribute)):
            return True  # built: `"_get" + "frame"`, `f"..."`, `"".join(...)`
        if held is not None and not isinstance(held, cst.SimpleString):
            return True  # a name bound to a built string
        owner = positional[0] if reader == "getattr" and positional else None
        return isinstance(owner, cst.Name) and self.semantics.binding(owner) is None and any(
            isinstance(self.parent(n), (cst.ImportAlias, cst.AsName)) for n in self.semantics.names_in(self.context.module, owner.value)
        )

    def _frame_calls(self, tree: cst.CSTNode, readers: frozenset[str]) -> list:
        found = []
        for reader in {terminal(q) for q in readers}:
            for node in self.semantics.names_in(tree, reader):
                call = self.parent(node)
                if isinstance(call, cst.Attribute) and call.attr is node:
                    call = self.parent(call)
                name = self.matches(call.func, readers) if isinstance(call, cst.Call) else None
                if name:
                    location = self.location(call)
                    found.append(((location.line, location.column), call, f"{terminal(name)}()"))
        return found

    def replace(self, node: cst.CSTNode, content: str) -> Edit:
        loc = self.location(node)
        return Edit(loc.line, loc.column, loc.end_line, loc.end_column, content)

    def report(
        self,
        code: str,
        node: cst.CSTNode,
        message: str,
        fix: Fix | None = None,
        reason: str | None = None,
        **details,
    ) -> None:
        """Report ``message`` at ``node``; ``reason``: why no safe fix is offered (with ``fix=None``)
        or what an unsafe fix assumes. A fix that would drop a comment is unsafe, as in Ruff: the
        program means the same, but the user loses what they wrote."""
        if code in self.context.enabled:
            if fix is not None and not self.context.source.parses_after(fix.edits):
                fix, reason = None, _joined(
                    reason, "the rewrite would not parse in its place (a line continuation, a layout it cannot follow)"
                )
            spelled = self.semantics.unnormalized_name() if fix is not None and fix.applicability == "safe" else None
            if spelled is not None:
                fix, reason = replace(fix, applicability="unsafe"), _joined(reason, (
                    f"it assumes that no two spellings of the file name one variable: Python reads `{spelled}` as "
                    f"`{unicodedata.normalize('NFKC', spelled)}`, and the fix's checks compare names as spelled"
                ))
            if fix is not None and fix.applicability == "safe" and self.context.unread is not None:
                fix, reason = replace(fix, applicability="unsafe"), _joined(
                    reason, f"it assumes that {self.context.unread}, code autota does not read, changes nothing the fix "
                    "relies on (a name, JAX's configuration)"
                )
            replaced = self._replaceable_calls(fix.edits) if fix is not None and fix.applicability == "safe" else None
            if replaced:
                fix, reason = replace(fix, applicability="unsafe"), _joined(reason, (
                    f"it assumes that no code of the run replaces a function the fix calls anew or no longer calls "
                    f"({replaced}): JAX's, or the objects' the loop called (`jnp.stack = f`, `setattr(jnp, \"stack\", f)`, "
                    "`mock.patch(\"jax.numpy.stack\")` in any module of the run)"
                ))
            dropped = self.context.source.dropped_comments(fix.edits) if fix is not None else []
            if dropped:
                fix, reason = replace(fix, applicability="unsafe"), _joined(
                    reason, f"it drops the comment{'s' if len(dropped) > 1 else ''} {', '.join(f'`{c}`' for c in dropped)}"
                )
            self.context.findings.append(
                Finding(code, message, self.location(node), fix, details=details, reason=reason)
            )


JAX_MODULE_ATTRIBUTES = frozenset({"numpy", "lax"})
"""The attributes of ``jax`` through which ``jnp``/``lax`` are reached: replaced (``jax.numpy =
Fake``) before the loop's module imports them, every function the fix calls is another."""
CALLED_ATTRIBUTE = re.compile(r"\.\s*((?!\d)\w+)\s*\(")
"""A method or a module's function called: ``jnp.stack(``, ``buf_rows.append(``."""


def _joined(reason: str | None, more: str) -> str:
    """``reason`` with ``more`` added: the reasons a finding's fix is withheld or unsafe, in turn."""
    return f"{reason}; {more}" if reason else more


def _linear_difference(stop: cst.BaseExpression, start: cst.BaseExpression) -> int | None:
    """``stop - start`` where the two are sums of the same terms and int literals (``j + 2`` and
    ``j - 1``: 3; a term is a name, or an attribute or constant-index item of one, read twice in
    the one call with the same value); ``None`` where a term is left over."""
    terms: dict[str, int] = {}
    constant = 0

    def add(expr: cst.BaseExpression, sign: int) -> bool:
        nonlocal constant
        value = scopes.int_value(expr)
        if value is not None:
            constant += sign * value
            return True
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract)):
            return add(expr.left, sign) and add(expr.right, sign if isinstance(expr.operator, cst.Add) else -sign)
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            return add(expr.expression, -sign if isinstance(expr.operator, cst.Minus) else sign)
        term = _term(expr)
        if term is None:
            return False
        terms[term] = terms.get(term, 0) + sign
        return True

    if not (add(stop, 1) and add(start, -1)) or any(terms.values()):
        return None
    return constant


def _term(expr: cst.BaseExpression) -> str | None:
    """A spelling of ``expr`` where it reads a name, an attribute of one or an item of one at an
    int literal (``j``, ``mesh.ng``, ``shape[0]``): calls nothing, so two reads agree."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        inner = _term(expr.value)
        return None if inner is None else f"{inner}.{expr.attr.value}"
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        inner, index = _term(expr.value), scopes.int_value(expr.slice[0].slice.value)
        return None if inner is None or index is None else f"{inner}[{index}]"
    return None


FEW_TRIPS = 4
"""A loop of at most this many steps of constants (``for layer in range(3)``) costs a fixed,
small amount whatever the input: unrolled under ``jit`` its program does not grow, and eagerly
its few copies are not the O(T^2) of rows collected one a step."""

FEW_DISPLAYED = 8
"""A loop over a display (``for i, v in zip([3, 6, 9, 13, 16], vals)``) runs as many steps as
its text has items: unlike a ``range`` whose stop is a constant a user raises with the input's
size, nothing grows it, so a few more items than :data:`FEW_TRIPS` still cost a fixed amount."""
