"""Which module-level functions (and methods of module-level classes) other modules of the
project call from traced code.

A rule reads one file, but whether a helper runs traced is often decided in another: a
Jumanji environment's jitted ``step`` calls ``update_active_edges`` imported from ``utils``, a
physics engine's jitted step calls ``solve_m`` from ``smooth``. Given every file of a run, this
index follows each module's traced functions (as :mod:`autota.source.tracing` finds them, from
Python's own AST) to the functions they call in other modules of the run, through ``import``
and ``from ... import`` (``Hand.deal(...)`` of an imported class reaches its method), until
nothing new is reached; the methods of a class that a model class takes as a base (a mixin),
and of a class derived from another module's model class, run as the model's do. The engine then treats those functions
as traced in their own file (kind ``"elsewhere"``), so AT102 keeps off them.

The index is built from Python's AST only (about a tenth of libcst's cost), once per run, in
the process that hands files to the workers.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from autota.source import growers, scopes, updaters, vocabulary, wrappers
from autota.source.prefilter import absolute_module, dotted, held_objects, terminal
from autota.source.growers import Grower
from autota.source.wrappers import LoopWrapper

TRACING = vocabulary.JIT_TERMINALS | vocabulary.TRACED_ARGUMENT_TERMINALS | frozenset(
    vocabulary.terminal(name) for name in vocabulary.TRACING_TRANSFORMS
)
"""Calls whose function arguments run traced (``jit``, ``vmap``, ``lax.scan``, ``lax.cond``...)."""
MODEL_BASES = frozenset(vocabulary.terminal(name) for name in vocabulary.MODEL_CLASSES)
UNMODELLED = frozenset(vocabulary.terminal(name) for name in vocabulary.UNMODELLED_METHODS)
PARTIAL = vocabulary.PARTIAL_TERMINALS


@dataclass
class _Module:
    name: str
    path: str
    functions: dict[str, ast.AST] = field(default_factory=dict)
    """Module-level functions by name, and the methods of module-level classes as ``Class.method``."""
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    """Local name -> (module, attribute): ``from m import f as g`` gives ``g -> (m, f)``,
    ``import m as n`` gives ``n -> (m, None)``."""
    calls: dict[int, list[str]] = field(default_factory=dict)
    """By function node (``id``): the dotted callees of the calls in it, nested functions' included."""
    roots: list[ast.AST] = field(default_factory=list)
    """Functions of any kind (methods, nested) that run traced by this module's own evidence."""
    eager: list[str] = field(default_factory=list)
    """The callees of code that runs eagerly by its form: top-level statements, test functions."""
    mixins: list[str] = field(default_factory=list)
    """The other bases of the module's model classes (``class Model(hk.Module, SampleMixin)``):
    their methods are the model's, and run as its methods do."""
    bases: dict[str, list[str]] = field(default_factory=dict)
    """Module-level class -> its bases, dotted: a class derived from another module's model
    class (``class Rotate(base.HandEnv)``) is a model class too."""


def module_name(path: Path) -> str:
    """The dotted name a file is imported by: its packages (directories with ``__init__.py``)
    and its stem (``pkg/sub/utils.py`` -> ``pkg.sub.utils``; a package's ``__init__`` is the
    package)."""
    parts = [] if path.stem == "__init__" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts)


def traced_elsewhere(paths: list[str], targets: list[str], asked: set[str] | None = None,
                     programs: dict[str, str] | None = None) -> dict[str, frozenset[str]]:
    """For each of ``targets``, the names of its module-level functions (and ``Class.method``s)
    that run traced because
    a module of ``paths`` calls them from traced code (directly, or through functions so called),
    and that no test or top-level code calls eagerly. ``programs``: the Python text of files of
    the run that are not ``.py`` (a notebook's code cells), whose top-level code counts too.

    Only the files that may take part are parsed: the targets, and the files whose text names one
    of their modules, a few imports up (a helper's callers, and theirs); with ``asked`` (the
    functions in question), the first callers must name one of them too."""
    texts: dict[str, str] = {}
    for path in paths:
        if path.endswith(".py"):
            try:
                texts[path] = Path(path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
    texts.update(programs or {})
    names = {path: module_name(Path(path).resolve()) for path in texts}
    chosen = {t for t in targets if t in texts}
    frontier = set(chosen)
    for _ in range(2):  # the files that may import a chosen one, and theirs
        wanted = {names[p] for p in frontier if names[p]}
        frontier = {
            p for p, text in texts.items()
            if p not in chosen and (asked is None or any(a.rpartition(".")[2] in text for a in asked))
            and any(_imports(text, m) for m in wanted)
        }
        asked = None
        if not frontier:
            break
        chosen |= frontier
    modules: dict[str, _Module] = {}
    for path in sorted(chosen):
        _add_module(modules, texts[path], names[path], path)
    # and the modules a target imports: a class there may be the model base of a target's class,
    # and theirs, a few imports up, for the bases of their classes (a re-export, a base's base)
    paths_by_name = {name: path for path, name in names.items() if name}
    readers = [module for module in modules.values() if module.path in targets]
    for _ in range(3):
        imported = {
            f"{source}.{attribute}" if attribute is not None else source
            for module in readers for source, attribute in module.imports.values()
        }
        imported |= {name.rpartition(".")[0] for name in imported}  # `from pkg.mod import Class`
        added = []
        for name in sorted(imported):
            path = paths_by_name.get(name)
            if path is not None and path not in chosen and name not in modules:
                _add_module(modules, texts[path], name, path)
                if name in modules:
                    added.append(modules[name])
        readers = [module for module in added if module.bases]
        if not readers:
            break
    eager = {_defining(modules, target, name) for m in modules.values() for target, name in _outgoing(m, [], m.eager)}
    reached: dict[str, set[str]] = {}
    work = [(m, m.roots) for m in modules.values()]
    seen: set[tuple[str, str]] = set()
    for owner, name in _mixin_methods(modules):
        seen.add((owner.name, name))
        if (owner.name, name) not in eager:
            reached.setdefault(owner.path, set()).add(name)
        work.append((owner, [owner.functions[name]]))
    while work:
        module, functions = work.pop()
        for target, name in _outgoing(module, functions, []):
            target, name = _defining(modules, target, name)
            callee = modules.get(target) if target is not None else None
            if callee is None or name not in callee.functions or (target, name) in seen:
                continue
            seen.add((target, name))
            if (target, name) not in eager:  # a test or a script calls it eagerly too: it may run so
                reached.setdefault(callee.path, set()).add(name)
            work.append((callee, [callee.functions[name]]))
    # methods a module binds by attribute into a function it hands to a traced call
    # (`jax.pmap(partial(train_step, loss_fn=model.loss_function))`, scenic's trainers): the
    # object's class is not in the file, so each method of that name in a target runs traced
    methods = {
        key.rpartition(".")[2] for module in modules.values() if module.path in targets
        for key in module.functions if "." in key and (module.name, key) not in eager
    }
    attribute = re.compile(r"\.\s*(?:%s)\b" % "|".join(map(re.escape, sorted(methods)))) if methods else None
    bound = set().union(*(  # only the texts that may bind one of those methods by attribute are parsed
        _methods_bound_for_tracing(text) for text in texts.values() if "partial" in text and attribute.search(text)
    )) if attribute is not None else set()
    for module in modules.values():
        if module.path in targets:
            for key in module.functions:
                if "." in key and key.rpartition(".")[2] in bound and (module.name, key) not in eager:
                    reached.setdefault(module.path, set()).add(key)
    return {path: frozenset(found) for path, found in reached.items() if path in targets}


@dataclass(frozen=True)
class ProjectFunctions:
    """What the modules of a run define that calls in the others run: loop wrappers (see
    :mod:`autota.source.wrappers`) and growers (see :mod:`autota.source.growers`), by dotted name."""

    loop_wrappers: dict[str, LoopWrapper] = field(default_factory=dict)
    growers: dict[str, Grower] = field(default_factory=dict)
    star_exports: dict[str, dict[str, str | None] | None] = field(default_factory=dict)
    """By the file it reads (see :func:`star_module`), for each star import of the run's files
    (``from utils import *``): the names it hands on, and what each names (``jnp`` ->
    ``jax.numpy``), ``None`` for a name bound otherwise than by one import; ``None`` for a
    module outside the run, or whose names are not known (see :func:`star_exports`)."""

    stores_built_names: bool = False
    """Whether a file of the run stores by a name it builds (``setattr(mylib, "j" + "np", x)``)."""
    stored_attributes: frozenset[str] = frozenset()
    """The attribute names the run's files store (``mylib.jnp = numpy``): a module's name may be
    bound again from outside it."""
    disables_jit: bool = False
    """Whether a file of the run mentions ``disable_jit`` (``with jax.disable_jit():`` around a
    call of another module's function): under it a ``fori_loop`` runs as a Python loop."""
    transforms: frozenset[str] = frozenset()
    """The words of :data:`vocabulary.FIX_HAZARD_TRANSFORMS` that a file or notebook of the run mentions
    (``checkify``, ``shard_map``, ``dtype_promotion``), in any case: applied to a
    function of another module, or set for the whole program, they see what a fix changes."""
    updaters: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """The functions of the run's modules that return an updated copy of a parameter (see
    :mod:`autota.source.updaters`), by dotted name, with those parameters' positions."""
    stored_builtins: frozenset[str] = frozenset()
    """The builtins a module of the run stores (``builtins.range = f``; ``*``: any, see
    :func:`autota.source.scopes.stored_builtin_names`): a fix's call of one may reach another."""
    value_checker: tuple[str, str] | None = None
    """``(module, word)`` for the first module of the run that may switch a value check on
    (``jax_debug_nans``, ``debug_infs``, or a ``jax.config.update`` of an option named at run time):
    under it an array holding a NaN raises where it is written, which a fix moves."""
    lifetime_observer: tuple[str, str] | None = None
    """``(module, word)`` for the first module of the run that may see when an object is freed
    (see :data:`vocabulary.LIFETIME_OBSERVERS`)."""
    frame_reader: tuple[str, str] | None = None
    """``(module, word)`` for the first module of the run whose text may reach the frames of the
    functions that call it (``inspect.currentframe().f_back``, ``sys._getframe``, a tracer):
    called from another module's loop, it may read that loop's locals while the loop runs."""
    modules: frozenset[str] = frozenset()
    """The dotted names of the run's modules (``pkg.helpers``): a call of a function of one is
    code of the run that a rule of another file does not read."""
    undonated: frozenset[str] = frozenset()
    """Those of :attr:`updaters` that their module decorates with a ``jit`` donating nothing
    (see :func:`autota.source.updaters.jitted_without_donation`): called in a loop of another
    module that rebinds the argument, each call copies it (AT301)."""
    name_reacher: tuple[str, str] | None = None
    """``(module, words)`` for the first module of the run that may reach a module's names by a
    spelling no import shows (``getattr(mod, "_st" + "ep")``, ``sys.modules``, ``vars(mod)``,
    ``importlib.import_module``, ``run.__globals__``): any of another module's private functions
    may be called there."""
    private_references: frozenset[str] = frozenset()
    """The private names (``_step``) that a module of the run imports by name (``from mod import
    _step``), or that two of its modules or notebooks spell (``mod._step``, ``alias._step`` where
    ``alias = mod``, ``getattr_static(mod, "_step")``: one may reach the other's): a private
    function so named may be called outside the loop that runs it."""
    constants: dict[str, int] = field(default_factory=dict)
    """The int constants of the run's modules, by dotted name (``consts.NUMRAD`` for a module's
    one binding ``NUMRAD = 2``; see :func:`module_constants`): a loop over ``range(NUMRAD)``
    where another module imports it runs as few steps as in the module itself."""

    def __bool__(self) -> bool:
        return bool(
            self.loop_wrappers or self.growers or self.star_exports or self.stored_attributes or self.stores_built_names
            or self.updaters or self.constants or self.disables_jit or self.transforms or self.frame_reader is not None or self.value_checker is not None
            or self.lifetime_observer is not None or len(self.modules) > 1 or self.stored_builtins
            or self.private_references or self.name_reacher is not None
        )


STAR_IMPORT = re.compile(r"^[ \t]*from\s+([\w.]+)\s+import\s+\*", re.M)
INT_CONSTANT = re.compile(r"^(\w+)[ \t]*(?::[^=\n]*)?=[ \t]*-?[0-9]", re.M)
"""A module-level binding that may be of an int literal: the files :func:`module_constants` parses,
where another file imports such a name."""
FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
NAME_REACHERS = re.compile(
    r"\b(?:vars|dir|eval|exec|globals|__import__|import_module|methodcaller|getmembers"
    r"|resolve_name|locate)\s*\(|\b(?:sys\s*\.\s*modules|__dict__|__globals__|f_globals|__getattribute__)\b"
    r"|\b(?:getattr|getattr_static|attrgetter|getclosurevars|runpy|run_path|run_module|InteractiveInterpreter"
    r"|InteractiveConsole|runsource|runcode)\b"
    r"|\b(?:c?[Pp]ickle|_pickle|dill|cloudpickle|joblib)\s*\.\s*(?:loads?|Unpickler)\b|\bUnpickler\b|\bshelve\b"
    r"|\bfrom\s+(?:c?[Pp]ickle|_pickle|dill|cloudpickle|joblib)\s+import\b|\btorch\s*\.\s*load\b|\ballow_pickle\b"
)
"""What reaches a module's names otherwise than by an import (see :attr:`ProjectFunctions.name_reacher`):
a computed spelling (``getattr`` called or handed on, ``functools.reduce(getattr, names, mod)``; a
module's globals returned, ``inspect.getclosurevars``; its code run again, ``runpy.run_path``; a
string of code run, ``code.InteractiveInterpreter().runsource``), or an unpickler, which calls
whatever module-level function its data names."""
NAME_REACHER_WORDS = (
    "vars", "dir", "eval", "exec", "globals", "__import__", "import_module", "methodcaller", "getmembers",
    "resolve_name", "locate", "modules", "__dict__", "__getattribute__", "getattr", "attrgetter",
    "getclosurevars", "runpy", "run_path", "run_module", "Interactive", "runsource", "runcode", "ickle", "dill",
    "joblib", "Unpickler", "shelve", "torch",
)
"""A word each match of :data:`NAME_REACHERS` holds (see :data:`CALLER_FRAME_WORDS`)."""
PRIVATE_WORD = re.compile(r"\b_\w+")
"""A word that may name a private function (``_step``; a dunder ``__call__`` is dropped where read)."""
_DEBUGGERS = "|".join(sorted(vocabulary.DEBUGGER_MODULES | {r"IPython\.core\.debugger"}))
CALLER_FRAMES = re.compile(
    r"\b(f_locals|" + "|".join(sorted(vocabulary.FRAME_SOURCES)) + "|" + "|".join(sorted({vocabulary.terminal(n) for n in vocabulary.CALLER_FRAME_READERS}
    - {"breakpoint", "set_trace", "stack", "trace", "embed", "signal"})) + r")\b|\b(?:inspect\.)?stack\(\)"
    + r"|\bsignal[ \t]*\.[ \t]*signal[ \t]*\("
    + r"|(?<![.\w])(?:breakpoint|set_trace)[ \t]*\(|\bIPython\.embed\b|^[ \t]*from[ \t]+IPython[\w.]*[ \t]+import[^\n]*\bembed\b"
    + r"|^[ \t]*(?:from[ \t]+(?:%s)\b|import[ \t]+[\w., \t]*?\b(?:%s)\b)" % (_DEBUGGERS, _DEBUGGERS),
    re.M,
)
"""What a module that may read its callers' frames spells: ``f_back``, ``f_locals``, a traceback's
frame, ``currentframe``, ``_getframe``, ``walk_stack``, ``settrace``... (words of its text); a
debugger's call (``breakpoint()``, ``set_trace()``, IPython's ``embed()``), a signal handler
installed (``signal.signal(...)``, handed the frame it interrupts), or the import of a debugger's
module (``import pdb``, ``from cgitb import text``)."""
CALLER_FRAME_WORDS = (
    ({"f_locals", "stack()", "IPython"} | vocabulary.FRAME_SOURCES | vocabulary.DEBUGGER_MODULES
     | {vocabulary.terminal(n) for n in vocabulary.CALLER_FRAME_READERS}) - {"stack", "trace", "embed"}
)
"""A word each match of :data:`CALLER_FRAMES` holds: a text with none is not searched (a word
found by ``in`` costs a tenth of the pattern's search, whose leading ``\\b`` keeps ``re`` from
skipping ahead)."""
VALUE_CHECKED = re.compile(r"debug.{0,3}(?:nans|infs)|" + vocabulary.CONFIG_UPDATE_BY_VALUE.pattern, re.I)
"""A module that may switch a value check on (see :attr:`ProjectFunctions.value_checker`)."""
VALUE_CHECK_WORDS = ("nans", "infs", "config", "_value_holders")
"""A word each match of :data:`VALUE_CHECKED` holds, in any case (see :data:`CALLER_FRAME_WORDS`)."""
LIFETIME_WORDS = ("weakref", "getrefcount", "live_", "get_refer", "get_objects", "__del__")
"""A word each match of :data:`vocabulary.LIFETIME_OBSERVERS` holds (see :data:`CALLER_FRAME_WORDS`)."""
DISABLES_JIT = re.compile(r"disable.{0,40}?jit", re.I | re.S)
"""``disable_jit`` however spelled (``jax.disable_jit``, ``JAX_DISABLE_JIT``, ``"jax_disable" "_jit"``,
an escape in a string): a superset of what a module's own check reads."""
"""An absolute star import (under an ``if`` or a ``try`` too)."""
_ATTRIBUTE = re.compile(r"\.\s*((?!\d)\w+)")
_STORED_HERE = re.compile(r"\s*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)")
_TARGET_LIST_GOES_ON = re.compile(r"\s*[,)\]]")


def stored_attributes(text: str) -> set[str]:
    """The attribute names ``text`` may store (``utils.jnp = numpy``, ``a.x += 1``, ``(a.x, b.y) =
    ...``: a module's name rebound from outside it): an attribute followed by an assignment, or
    by a comma or a closing bracket with an assignment the next ``=`` of its line (a superset:
    ``f(a.x, n=1)`` counts). In one pass: a pattern that looked for that ``=`` from each
    attribute took seconds on a line of 40,000 characters (a table of weights)."""
    found, equals, searched = set(), -1, -1
    for match in _ATTRIBUTE.finditer(text):
        end = match.end()
        if _STORED_HERE.match(text, end):
            found.add(match.group(1))
            continue
        goes_on = _TARGET_LIST_GOES_ON.match(text, end)
        if goes_on is None:
            continue
        start = goes_on.end()
        if start > searched:  # the first `=` or line end from here, found again only past the last one
            newline, equals = text.find("\n", start), text.find("=", start)
            searched = min(p for p in (newline, equals, len(text)) if p >= 0)
            equals = searched if searched == equals else -1
        if equals >= 0 and text[equals + 1:equals + 2] != "=":
            found.add(match.group(1))
    return found
NAMED_STORE = re.compile(r"[\"'](?:[^\"'\n]*\.)?(\w+)[\"']|[(,]\s*(\w+)\s*=(?!=)")
"""A name in a string (its last part: ``mock.patch("utils.jnp", numpy)``, ``"%s.stack" % mod``) or a keyword
(``setattr(utils, "jnp", numpy)``, ``utils.__dict__["jnp"]``, ``vars(utils).update(jnp=numpy)``),
which a text that stores by name (:data:`STORES_BY_NAME`) may rebind a module's name by."""
TARGET_STORE = re.compile(r"\bfor[ \t]+([^\n]*?)[ \t]+in\b|\bas[ \t]+([\w.]+)")
"""A ``for`` or ``with ... as``/``except ... as`` target, whose attributes (``for a.N in ...``,
``with ctx as a.N:``) the statement stores; on one line (not a docstring's "for" at a line's
end and a word on the next)."""
STORES_BY_NAME = ("setattr", "__dict__", "vars(", "patch", "__setattr__")
BUILT_STORE = re.compile(
    r"(?:setattr|__setattr__|__dict__|vars\([^)\n]*\))[^\n]*?(?:[\"']\s*\+|\+\s*[\"']|\bf[\"']|[\"']\s*[\"']|\.lower\(|\.upper\()"
    r"|__globals__|f_globals|get_objects|get_referrers|\bexec\s*\([^\n]*(?:vars\(|__dict__)"
    r"|(?<![\w.])(?:exec|eval)[ \t]*\((?![ \t]*[rbuRBU]{0,2}(?:\"[^\"\n]*\"|'[^'\n]*')[ \t]*[,)])(?![ \t]*(?:open|compile)[ \t]*\()"
)
"""A store by a name built at run time on the line that stores (``setattr(m, "j" + "np", x)``,
``m.__dict__[f"{name}"] = x``), code run in a module's namespace (``exec(code, vars(m))``) or
built at run time (``exec("jnp." + "stack = f")``: a literal's stores are read from its text; a
file's, ``exec(open("pkg/version.py").read())`` in a ``setup.py``, from that file, where it is of
the run), or a
reach into functions' or frames' globals (``f.__globals__``, ``gc.get_objects()``): any module's
names may be bound again."""
BUILT_STORE_WORDS = ("setattr", "__dict__", "vars(", "__globals__", "f_globals", "get_objects", "get_referrers", "exec", "eval")
"""What every match of :data:`BUILT_STORE` spells (``__setattr__`` holds ``setattr``): a text
without one is not searched."""


STANDARD_MODULES = frozenset(sys.builtin_module_names) | frozenset(sys.stdlib_module_names)
"""Python's own modules: an import of one of these names reads the interpreter's module, whatever
files of that name the run holds."""


def star_module(importer: str, name: str) -> str | None:
    """The file that ``from name import *`` in ``importer`` reads: the one file that the dotted
    name spells (``src.inference.utils`` -> ``src/inference/utils.py`` or its package's
    ``__init__.py``) from the importer's folder or one above it, as a script run there or from
    the project's root finds it. ``None`` where there is none, or several (``utils.py`` beside
    the script and another above it: which one is read depends on ``sys.path``)."""
    if not name or not all(part.isidentifier() for part in name.split(".")):
        return None  # `from . import *`, `from ..utils import *`: relative to a package, not spelled here
    if name.split(".")[0] in STANDARD_MODULES:
        return None  # `from time import *` reads Python's own `time` (a builtin always; `copy` unless the
        # script's folder comes first on `sys.path`): a `time.py` of the run is not what it reads
    spelled = Path(*name.split("."))
    found = []
    for root in Path(importer).resolve().parents:
        for candidate in (root / spelled.with_suffix(".py"), root / spelled / "__init__.py"):
            if candidate.is_file():
                found.append(str(candidate))
    return found[0] if len(found) == 1 else None


def _submodules(path: str) -> frozenset[str]:
    """For a package's ``__init__.py``, the names of the modules and packages in its folder: an
    import of one binds it as the package's attribute, whatever the ``__init__`` bound."""
    if Path(path).name != "__init__.py":
        return frozenset()
    try:
        return frozenset(child.stem for child in Path(path).parent.iterdir() if child.name != "__init__.py")
    except OSError:
        return frozenset()


DYNAMIC_GLOBALS = re.compile(
    r"\b(?:globals|vars)\s*\(|\bsys\.modules\b|\bsetattr\s*\(|__dict__|__globals__|\bexec\s*\(|\bdef\s+__getattr__\b"
)
"""Ways a module's names can be bound that no statement of it spells: what a star import of it
then gives is not known."""


def star_exports(tree: ast.Module, module: str, text: str, submodules: frozenset[str] = frozenset()) -> dict[str, str | None] | None:
    """What ``from module import *`` binds: each name its top-level imports bind once, and
    what it names (``jnp`` -> ``jax.numpy``), and ``None`` for every other name it binds
    (``jnp = numpy``, a ``try`` of two imports, a ``global jnp`` in a function, a submodule of a
    package, ``submodules``, that an import of it binds as the package's attribute): a star
    import of it binds those again, to something else. Those that its ``__all__`` lists where
    that is a literal list or tuple of strings, else those that do not start with an underscore.
    ``None`` where the module may bind names no statement spells (``globals()``, ``setattr``,
    ``sys.modules``, an ``__all__`` computed at run time)."""
    if DYNAMIC_GLOBALS.search(text) or text.count("__all__") > 1:
        return None  # (`__all__.remove("jnp")`, `__all__ += [...]`: what it lists changes)
    names = wrappers.imported_names(tree, module)
    listed = None
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in statement.targets):
            value = statement.value
            if isinstance(value, (ast.List, ast.Tuple)) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
            ):
                listed = {e.value for e in value.elts}
            else:
                return None  # an `__all__` computed at run time: what the star import gives is not known
    bound: dict[str, int] = dict.fromkeys(submodules, 2)  # how many times the module's own code binds each name
    declared: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            declared.update(node.names)  # `global jnp` in a function: it may rebind the module's name
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound[node.name] = bound.get(node.name, 0) + 1
            # their bodies bind their own names; their headers run here (`def f(xp=(jnp := numpy))`)
            header = [*node.bases, *node.keywords] if isinstance(node, ast.ClassDef) else [node.args, *filter(None, [node.returns])]
            pending.extend([*node.decorator_list, *header])
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                name = (alias.asname or alias.name).split(".")[0]
                bound[name] = bound.get(name, 0) + 1
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound[node.id] = bound.get(node.id, 0) + 1
        pending.extend(ast.iter_child_nodes(node))
    if "*" in bound:
        return None  # it star-imports another module in turn: any name may come from there
    exported = lambda name: name in listed if listed is not None else not name.startswith("_")  # noqa: E731
    return {  # a name the module binds again (`jnp = ...`, a `try` of two imports) may end as anything
        name: names.get(name) if bound.get(name) == 1 and name not in declared else None
        for name in {*bound, *declared} if exported(name)
    }


@dataclass(frozen=True)
class Stores:
    """What a module's text may store: the attribute names (see :func:`_stored_names`), and
    whether it may also store names it builds or does not spell (see :func:`_builds_stores`)."""

    names: frozenset[str] = frozenset()
    built: bool = False


def stores(text: str) -> Stores:
    """The stores of a module's text, its attribute stores scanned once for both facts."""
    attributes = stored_attributes(text)
    return Stores(frozenset(_stored_names(text, attributes)), _builds_stores(text, attributes))


@dataclass
class FileFacts:
    """What :func:`project_functions` reads from one file on its own: the parse and the text
    searches of each file are independent, so a run over many files computes them in parallel
    (see :func:`file_facts`), and only what joins the files (growers that call another module's,
    star imports, a constant another module imports) is worked out once, in order."""

    module: str
    notebook: bool = False
    wrappers: dict[str, LoopWrapper] = field(default_factory=dict)
    updaters: dict[str, tuple[int, ...]] = field(default_factory=dict)
    undonated: frozenset[str] = frozenset()
    may_grow: bool = False
    stores: Stores = Stores()
    star_names: tuple[str, ...] = ()
    imported: frozenset[str] = frozenset()
    int_names: frozenset[str] = frozenset()
    constants: dict[str, int] = field(default_factory=dict)
    """Its names bound once to an int literal, where it binds a name that way at all."""
    disables_jit: bool = False
    transforms: frozenset[str] = frozenset()
    private: frozenset[str] = frozenset()
    stored_builtins: frozenset[str] = frozenset()
    spellings: dict[str, str] = field(default_factory=dict)
    """By kind (``frame_reader``, ``value_checker``, ``lifetime_observer``, ``name_reacher``): what
    the file spells that makes it one, where it does."""


_SPELLINGS = {
    "frame_reader": (CALLER_FRAMES, CALLER_FRAME_WORDS),
    "value_checker": (VALUE_CHECKED, VALUE_CHECK_WORDS),
    "lifetime_observer": (vocabulary.LIFETIME_OBSERVERS, LIFETIME_WORDS),
    "name_reacher": (NAME_REACHERS, NAME_REACHER_WORDS),
}
"""The kinds of module a run notes the first of, by the pattern that finds one and the words each
of its matches holds (a text with none is not searched; see :data:`CALLER_FRAME_WORDS`)."""


def file_facts(path: str) -> FileFacts | None:
    """The facts of one ``.py`` or ``.ipynb`` file of a run (``None`` where it cannot be read)."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    module = module_name(Path(path))
    if path.endswith(".ipynb"):  # its code cells: the words they spell, what they store, and what reaches names, count too
        code = _notebook_code(text)
        return FileFacts(
            module, notebook=True, transforms=_transforms(code), private=frozenset(PRIVATE_WORD.findall(code)),
            spellings=_spelled(code, ("name_reacher",)), stores=stores(code),
        )
    parsed: list[ast.Module | None] = []

    def tree() -> ast.Module | None:
        if not parsed:
            try:
                parsed.append(ast.parse(text))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                parsed.append(None)
        return parsed[0]

    facts = FileFacts(module)
    if wrappers.may_define(text) and tree() is not None:
        facts.wrappers = {w.name: w for w in wrappers.file_wrappers(tree(), module).values()}
    if updaters.may_define(text) and tree() is not None:
        written = updaters.file_updaters(tree())
        facts.updaters = {f"{module}.{name}": positions for name, positions in written.items()}
        facts.undonated = frozenset(f"{module}.{name}" for name in updaters.jitted_without_donation(tree(), set(written)))
    facts.may_grow = growers.may_define(text)
    facts.stores = stores(text)
    facts.star_names = tuple(STAR_IMPORT.findall(text))
    facts.imported = frozenset(word for names in FROM_IMPORT.findall(text) for word in re.findall(r"\w+", names))
    facts.int_names = frozenset(INT_CONSTANT.findall(text))
    if facts.int_names and tree() is not None:
        facts.constants = module_constants(tree())
    facts.disables_jit = DISABLES_JIT.search(text) is not None
    facts.transforms = _transforms(text)
    facts.private = frozenset(PRIVATE_WORD.findall(text))
    facts.stored_builtins = frozenset(scopes.stored_builtin_names(text))
    facts.spellings = _spelled(text, tuple(_SPELLINGS))
    return facts


def _stored_names(text: str, attributes: set[str]) -> set[str]:
    """The attribute names a module's text may store, however it reaches the object: its
    ``attributes`` (see :func:`stored_attributes`); ``for a.N in ...``; a name in a string or a
    keyword where the text stores by name, ``setattr(jnp, "stack", f)``,
    ``mock.patch.multiple(jnp, stack=f)``."""
    stored = set(attributes)
    if "for " in text or "as " in text:  # `for a.N in [None]:`, `with nullcontext(None) as a.N:`
        stored |= {
            name for targets in TARGET_STORE.findall(text) for target in targets if "." in target
            for name in re.findall(r"\.\s*(\w+)", target)
        }
    if any(word in text for word in STORES_BY_NAME):
        stored |= {name for match in NAMED_STORE.findall(text) for name in match if name}
    if "del" in text:  # `del jnp.stack`
        stored |= {name for targets in DELETED_ATTRIBUTE.findall(text) for name in re.findall(r"\.\s*(\w+)", targets)}
    return stored


def _builds_stores(text: str, attributes: set[str]) -> bool:
    """Whether a module's text may store an attribute by a name it builds (see :data:`BUILT_STORE`),
    update a namespace with keys it does not spell (``jnp.__dict__.update(table)``), or store a
    dunder through which an object's behaviour changes whatever it is called (``jnp.__class__ =
    Patched``, ``jnp.stack.__defaults__ = ...``, ``Tracer.__getitem__ = f``: review 87)."""
    if any(word in text for word in BUILT_STORE_WORDS) and BUILT_STORE.search(text) is not None:
        return True
    if "update" in text and NAMESPACE_UPDATE.search(text) is not None:
        return True
    return "__" in text and any(
        name.startswith("__") and name.endswith("__") and name not in METADATA_DUNDERS for name in attributes
    )


NAMESPACE_UPDATE = re.compile(r"(?<!\bself)\s*\.\s*__dict__\s*\.\s*update\s*\(|\bvars\s*\([^)\n]+\)\s*\.\s*update\s*\(")
"""A namespace updated from a mapping (``jnp.__dict__.update(table)``, ``vars(mod).update(d)``),
whose keys may be any names; an object's own ``self.__dict__.update(kwargs)`` stores on itself."""
METADATA_DUNDERS = frozenset({
    "__doc__", "__name__", "__qualname__", "__module__", "__signature__", "__wrapped__", "__annotations__",
    "__version__", "__all__", "__author__",
})
"""Dunders whose store describes an object (a decorator copying a docstring), not what it does."""
DELETED_ATTRIBUTE = re.compile(r"^[ \t]*del[ \t]+([^\n#]+)", re.M)
"""A ``del`` statement, whose attributes (``del jnp.stack``) it removes: a store too, which a
module-level ``__getattr__`` may then answer."""


def _transforms(text: str) -> frozenset[str]:
    lowered = text.lower()
    return frozenset(word for word in vocabulary.FIX_HAZARD_TRANSFORMS if word in lowered)


def _spelled(text: str, kinds: tuple[str, ...]) -> dict[str, str]:
    """For each of ``kinds`` (see :data:`_SPELLINGS`), what ``text`` first spells of its pattern
    (an indented `import pdb` without its indent), where it does."""
    found = {}
    for kind in kinds:
        pattern, words = _SPELLINGS[kind]
        folded = bool(pattern.flags & re.I)
        seen = text.lower() if folded else text
        if any((word.lower() if folded else word) in seen for word in words) and (match := pattern.search(text)):
            found[kind] = match.group(0).strip()
    return found


def project_functions(paths: list[str], each=map) -> ProjectFunctions:
    """The loop wrappers, growers and updaters the Python files of ``paths`` define. A grower may call
    another module's: the files that name a grower found so far are read again, a few rounds.
    ``each`` maps :func:`file_facts` over the paths (``map``, or a process pool's)."""
    paths = [path for path in paths if path.endswith((".py", ".ipynb"))]
    by_path = {path: facts for path, facts in zip(paths, each(file_facts, paths)) if facts is not None}
    modules = {path: facts.module for path, facts in by_path.items()}
    sources = {path: facts for path, facts in by_path.items() if not facts.notebook}
    found = ProjectFunctions()
    for facts in sources.values():
        found.loop_wrappers.update(facts.wrappers)
        found.updaters.update(facts.updaters)
    texts: dict[str, str] = {}
    trees: dict[str, ast.Module | None] = {}

    def text_of(path: str) -> str:
        if path not in texts:
            texts[path] = Path(path).read_text(encoding="utf-8", errors="replace")
        return texts[path]

    def tree(path: str) -> ast.Module | None:
        if path not in trees:
            try:
                trees[path] = ast.parse(text_of(path))
            except (SyntaxError, ValueError, RecursionError, MemoryError, OSError):
                trees[path] = None
        return trees[path]

    candidates = [path for path, facts in sources.items() if facts.may_grow]
    for _ in range(4):
        before = len(found.growers)
        for path in candidates:
            parsed = tree(path)
            if parsed is not None:
                found.growers.update({g.name: g for g in growers.file_growers(parsed, modules[path], found.growers).values()})
        if len(found.growers) == before:
            break
        names = {name.rpartition(".")[2] for name in found.growers}  # the files that may call one
        candidates = [path for path in sources if "def " in (t := text_of(path)) and any(n in t for n in names)]
    stored = frozenset().union(*(facts.stores.names for facts in by_path.values()))  # (a notebook's cells store too)
    run_paths: dict[str, str] | None = None  # the run's files by their resolved paths, as `star_module` gives them
    for path, facts in sources.items():
        for name in facts.star_names:
            source = star_module(path, name)
            if source is None or source in found.star_exports:
                continue
            if run_paths is None:
                run_paths = {str(Path(p).resolve()): p for p in sources}
            given = run_paths.get(source)
            parsed = tree(given) if given is not None else None
            if parsed is None:  # outside the run, or unreadable: its names are not known
                found.star_exports[source] = None
                continue
            exports = star_exports(parsed, modules[given], text_of(given), _submodules(given))
            found.star_exports[source] = exports and {  # (`utils.jnp = numpy` in another module of the run)
                local: None if local in stored else dotted for local, dotted in exports.items()
            }
    built = any(facts.stores.built for facts in by_path.values())
    imported = frozenset().union(*(facts.imported for facts in sources.values()))
    constants = {} if built else {  # (only a name a file imports by name is read as a constant there)
        f"{facts.module}.{name}": value
        for facts in sources.values() if imported & facts.int_names
        for name, value in facts.constants.items() if name not in stored
    }
    private = {word for word in imported if word.startswith("_") and not word.startswith("__")}
    mentions = Counter(word for facts in by_path.values() for word in facts.private)
    private |= {  # spelled in two modules: one may reach the other's (`alias = mod; alias._step`, a string)
        word for word, count in mentions.items() if count > 1 and not (word.startswith("__") and word.endswith("__"))
    }

    def first(kind: str, among) -> tuple[str, str] | None:
        return next(((facts.module, facts.spellings[kind]) for facts in among if kind in facts.spellings), None)

    notebooks = [facts for facts in by_path.values() if facts.notebook]
    return replace(
        found, stored_attributes=stored, stores_built_names=built, constants=constants,
        disables_jit=any(facts.disables_jit for facts in sources.values()),
        transforms=frozenset().union(*(facts.transforms for facts in by_path.values())),
        undonated=frozenset().union(*(facts.undonated for facts in sources.values())),
        modules=frozenset(modules[path] for path in sources), private_references=frozenset(private),
        stored_builtins=frozenset().union(*(facts.stored_builtins for facts in sources.values())),
        frame_reader=first("frame_reader", sources.values()),
        value_checker=first("value_checker", sources.values()),
        lifetime_observer=first("lifetime_observer", sources.values()),
        name_reacher=first("name_reacher", [*sources.values(), *notebooks]),
    )


def _notebook_code(text: str) -> str:
    """The code cells of a notebook's stored text, joined (its outputs, images among them, left
    out); the whole text where it is no notebook JSON can read."""
    try:
        cells = json.loads(text).get("cells", [])
        sources = [c.get("source", "") for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]
        return "\n".join(s if isinstance(s, str) else "".join(map(str, s)) for s in sources)
    except (ValueError, AttributeError, TypeError, RecursionError):
        return text


_FRAME_READER_NAMES = frozenset(vocabulary.terminal(name) for name in vocabulary.FRAME_READERS)


def module_constants(tree: ast.Module) -> dict[str, int]:
    """The module's names bound once, at its top level, to an int literal (``NUMRAD = 2``,
    ``n: int = -1``), where nothing else in the module binds them (a second assignment, a
    ``global`` statement, a loop target, an import, a ``def``) nor reaches its globals by name
    (``globals()``, ``vars()``, ``exec``). Another module's ``mod.NUMRAD = 3`` is the caller's
    business (:attr:`ProjectFunctions.stored_attributes`)."""
    candidates: dict[str, int] = {}
    for statement in tree.body:
        target = statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else (
            statement.target if isinstance(statement, ast.AnnAssign) else None
        )
        value = statement.value if target is not None else None
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
            value = value.operand if isinstance(value.operand, ast.Constant) else None
            sign = -1
        else:
            sign = 1
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and type(value.value) is int:
            candidates[target.id] = sign * value.value
    if not candidates:
        return {}
    bindings: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) or isinstance(node, ast.arg):
            name = node.id if isinstance(node, ast.Name) else node.arg
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = node.name
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                bindings[name] = bindings.get(name, 0) + 2
            continue
        elif isinstance(node, ast.alias):
            name = node.asname or node.name.partition(".")[0]
        elif isinstance(node, ast.Name) and node.id in _FRAME_READER_NAMES:
            return {}  # `globals()["NUMRAD"] = 3`
        else:
            continue
        bindings[name] = bindings.get(name, 0) + 1
    return {name: value for name, value in candidates.items() if bindings.get(name) == 1}


def _methods_bound_for_tracing(text: str) -> set[str]:
    """The names of the methods that ``text`` binds by attribute of an object (not ``self``,
    ``cls`` or an imported module) into a ``partial`` handed to a traced call, inline or through
    a name (``step = partial(train_step, loss_fn=model.loss_function)`` ... ``jax.pmap(step)``)."""
    if not any(word in text for word in TRACING):
        return set()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    imported = {
        alias.asname or alias.name.split(".")[0]
        for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names
    }
    passed: set[str] = set()
    partials: list[tuple[str | None, ast.Call]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and terminal(node.func) in TRACING:
            for arg in node.args:
                if isinstance(arg, ast.Name):
                    passed.add(arg.id)
                elif isinstance(arg, ast.Call) and terminal(arg.func) in PARTIAL:
                    partials.append((None, arg))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and terminal(node.value.func) in PARTIAL:
            for target in node.targets:
                if isinstance(target, ast.Name):
                    partials.append((target.id, node.value))
    methods = set()
    for name, call in partials:
        if name is not None and name not in passed:
            continue
        for value in (*call.args[1:], *(k.value for k in call.keywords)):
            if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and (
                value.value.id not in {"self", "cls"} | imported
            ):
                methods.add(value.attr)
    return methods


def _add_module(modules: dict[str, _Module], text: str, name: str, path: str) -> None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    modules.setdefault(name, _read(tree, name, path))


def _mixin_methods(modules: dict[str, _Module]) -> list[tuple[_Module, str]]:
    """The methods (``Class.method``, but ``__init__``) that run as a model's do: those of each
    class of the run that a model class takes as a base beside its model base (a mixin whose
    ``self.sample(x)`` the model's traced ``apply`` runs), and those of a class derived from a
    model class of another module (``class Rotate(base.HandEnv)``, ``HandEnv`` an environment),
    whose own module cannot tell."""
    classes = []
    for module in modules.values():
        for base in module.mixins:
            target, name = _defining(modules, module.name, base)
            if target in modules:
                classes.append((modules[target], name))
    models = {
        (module.name, cls) for module in modules.values() for cls, bases in module.bases.items()
        if any(_model_base(module, b) and not _defined_in_run(modules, _class_of(modules, module, b)) for b in bases)
    }  # (a base of the run named like a framework's, `from envs.env import Environment`, is judged as itself)
    grown = True
    while grown:
        grown = False
        for module in modules.values():
            for cls, bases in module.bases.items():
                if (module.name, cls) not in models and any(_class_of(modules, module, b) in models for b in bases):
                    models.add((module.name, cls))
                    classes.append((module, cls))
                    grown = True
    return [
        (owner, key) for owner, name in classes for key, f in owner.functions.items()
        if key.startswith(f"{name}.") and _runs_as_model(f)
    ]


def _runs_as_model(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a model's method runs as the model does (see :func:`vocabulary.runs_as_model`): not a
    factory (``from_image``, a static or class method, run eagerly) nor a property."""
    return vocabulary.runs_as_model(method.name) and not any(terminal(d) in UNMODELLED for d in method.decorator_list)


def _model_base(module: _Module, base: str) -> bool:
    """Whether the base ``base`` of a class of ``module`` is a model class by its last name, seen
    through an import under another name (``from gymnax... import Environment as GymnaxEnvironment``)."""
    head, _, rest = base.partition(".")
    _, attribute = module.imports.get(head, (None, None))
    return vocabulary.terminal(attribute if attribute is not None and not rest else base) in MODEL_BASES


def _defined_in_run(modules: dict[str, _Module], found: tuple[str | None, str]) -> bool:
    """Whether ``found``, a ``(module, class)`` of :func:`_class_of`, is a class a module of the
    run defines (``eqx.Module`` seen from a module importing ``equinox`` is not)."""
    target, name = found
    return target in modules and name in modules[target].bases


def _class_of(modules: dict[str, _Module], module: _Module, base: str) -> tuple[str | None, str]:
    """``(module, class)`` of the run that the base ``base`` of a class of ``module`` names:
    through ``from pkg import sub`` (``sub.Class``) as well as what :func:`_defining` follows."""
    head, _, rest = base.partition(".")
    source, attribute = module.imports.get(head, (None, None))
    if rest and source is not None:
        submodule = f"{source}.{attribute}" if attribute is not None else source
        if _known(modules, submodule) is not None:
            return _known(modules, submodule), rest
    return _defining(modules, module.name, base)



def _imports(text: str, module: str) -> bool:
    """Whether ``text`` may import ``module`` (``a.b.c``): an import statement naming ``c`` beside
    ``b``, or a relative one naming ``c``. Cheap, and generous: what it lets through is parsed."""
    parent, _, last = module.rpartition(".")
    if last not in text:
        return False
    parent = parent.rpartition(".")[2]
    near = re.escape(parent) if parent else None
    word = re.escape(last)
    statement = rf"^[ \t]*(?:from[ \t]+[\w.]*|import[ \t]+)[^\n]*\b{word}\b"
    for match in re.finditer(statement, text, re.MULTILINE):
        line = match.group(0)
        if near is None or re.search(rf"\b{near}\b", line) or re.match(r"[ \t]*from[ \t]+\.", line):
            return True
    if near is not None and re.search(rf"^[ \t]*from[ \t]+[\w.]*\b{near}\b[ \t]+import[ \t]+\([^)]*\b{word}\b", text, re.MULTILINE):
        return True
    return False


def top_functions(text: str) -> dict[int, str]:
    """Line -> the module-level function whose ``def`` spans it (decorators included), or the
    method of a module-level class, as ``Class.method``."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    lines = {}
    definitions = [(s, s.name) for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    definitions += [
        (m, f"{s.name}.{m.name}") for s in tree.body if isinstance(s, ast.ClassDef)
        for m in s.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    for statement, name in definitions:
        first = min([statement.lineno, *(d.lineno for d in statement.decorator_list)])
        for line in range(first, (statement.end_lineno or statement.lineno) + 1):
            lines[line] = name
    return lines


def _defining(modules: dict[str, _Module], target: str, name: str) -> tuple[str | None, str]:
    """The module of the run that defines ``target.name``, through re-exports (a package's
    ``__init__`` importing it from a submodule), and the name it defines it under."""
    known = _known(modules, target)
    if known is None and "." in target:  # `m.Class`, `method`: the method `Class.method` of `m`
        outer, _, owner = target.rpartition(".")
        if _known(modules, outer) is not None:
            known, name = _known(modules, outer), f"{owner}.{name}"
    for _ in range(3):
        module = modules.get(known) if known is not None else None
        head, dot, rest = name.partition(".")
        if module is None or name in module.functions or head not in module.imports:
            break
        source, attribute = module.imports[head]
        if attribute is None:
            break
        known, name = _known(modules, source), attribute + dot + rest
    return known, name


def _known(modules: dict[str, _Module], target: str) -> str | None:
    """The module of the run that an import of ``target`` reads: itself, or the longest tail of
    it that is one (``mujoco.mjx._src.smooth`` -> ``mjx._src.smooth``, where ``mujoco`` is a
    namespace package, without ``__init__.py``)."""
    parts = target.split(".")
    for start in range(len(parts)):
        name = ".".join(parts[start:])
        if name in modules:
            return name
    return None


class _Reader:
    """One walk of a module's AST (``_fields`` read directly: ``ast.walk`` is several times slower)."""

    def __init__(self, module: _Module, package: str) -> None:
        self.module = module
        self.package = package
        self.passed: set[str] = set()
        self.defined: list[ast.AST] = []
        self.top: set[int] = set()
        """The module's own statements (``id``): a ``def`` among them is a module-level function."""

    def visit(self, node: ast.AST, functions: tuple[ast.AST, ...], eager: bool) -> None:
        module = self.module
        kind = type(node)
        if kind is ast.Call:
            callees = [dotted(node.func)]
            if terminal(node.func) in PARTIAL and node.args:  # `partial(encode, ...)` is called as `encode` later
                callees.append(dotted(node.args[0]))
            for callee in filter(None, callees):
                for function in functions:
                    module.calls.setdefault(id(function), []).append(callee)
                if eager:
                    module.eager.append(callee)
            if functions and terminal(node.func) not in vocabulary.SEPARATE_RUNNER_TERMINALS:  # `tree_map(utils.smooth, x)` runs it as its caller runs
                for arg in (*node.args, *(k.value for k in node.keywords)):
                    handed = dotted(arg) if isinstance(arg, (ast.Name, ast.Attribute)) else None
                    for function in functions if handed is not None else ():
                        module.calls.setdefault(id(function), []).append(handed)
            if terminal(node.func) in TRACING:
                for arg in node.args:
                    self.passed |= _names_passed(arg)
        elif kind is ast.Assign and functions and isinstance(node.value, (ast.Name, ast.Attribute)) and any(
            isinstance(t, ast.Attribute) for t in node.targets
        ):  # `self.act = discrete_act`: stored to be called as a method is
            stored = dotted(node.value)
            if stored is not None:
                for function in functions:
                    module.calls.setdefault(id(function), []).append(stored)
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            if not functions and id(node) in self.top:
                module.functions[node.name] = node
            self.defined.append(node)
            if any(_traces(d) for d in node.decorator_list):
                module.roots.append(node)
            for decorator in node.decorator_list:
                self.visit(decorator, functions, eager)
            eager = node.name.startswith("test")
            functions = (*functions, node)
            for statement in node.body:
                self.visit(statement, functions, eager)
            return
        elif kind is ast.ClassDef:
            if not functions and id(node) in self.top:  # `Hand.deal(...)` from another module
                for method in node.body:
                    if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        module.functions[f"{node.name}.{method.name}"] = method
                module.bases[node.name] = [name for b in node.bases if (name := dotted(_unsubscript(b)))]
            if any(terminal(_unsubscript(b)) in MODEL_BASES for b in node.bases):
                module.roots += [
                    m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and _runs_as_model(m)
                ]
                module.mixins += [
                    name for b in node.bases if terminal(_unsubscript(b)) not in MODEL_BASES and (name := dotted(b))
                ]
        elif kind is ast.Import:
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                module.imports[local] = (alias.name if alias.asname else local, None)
        elif kind is ast.ImportFrom:
            base = absolute_module(self.package, node.module, node.level)
            for alias in node.names:
                if alias.name != "*" and base is not None:
                    module.imports[alias.asname or alias.name] = (base, alias.name)
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item, functions, eager)
            elif isinstance(value, ast.AST):
                self.visit(value, functions, eager)


def _read(tree: ast.Module, name: str, path: str) -> _Module:
    module = _Module(name, path)
    reader = _Reader(module, name if path.endswith("__init__.py") else name.rpartition(".")[0])
    reader.top = {id(s) for s in tree.body}
    for statement in tree.body:
        reader.visit(statement, (), not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
    module.roots += [f for f in reader.defined if f.name in reader.passed]
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef):
            _follow_held_objects(module, statement)
    return module


def _follow_held_objects(module: _Module, cls: ast.ClassDef) -> None:
    """A method's ``self.attr(...)`` or ``self.attr.method(...)``, where a method of the class
    sets ``self.attr = ... Kind(...) ...`` (Jumanji's ``self._generator = generator or
    RandomGenerator(...)``), calls ``Kind.__call__`` or ``Kind.method``: recorded as such, so
    that the object's class, imported from another module, is followed there."""
    methods = [m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.args.args]
    made = held_objects(cls)
    if not made:
        return
    for method in methods:
        me = method.args.args[0].arg
        calls = module.calls.get(id(method), [])
        for callee in list(calls):
            head, _, rest = callee.partition(".")
            attr, _, called = rest.partition(".")
            if head == me and attr in made and "." not in called:
                calls.extend(f"{kind}.{called or '__call__'}" for kind in made[attr])


def _traces(decorator: ast.AST) -> bool:
    """``@jax.jit``, ``@jax.vmap``, ``@partial(jax.jit, ...)``."""
    if isinstance(decorator, ast.Call):
        if terminal(decorator.func) in PARTIAL:
            return bool(decorator.args) and terminal(decorator.args[0]) in TRACING
        decorator = decorator.func
    return terminal(decorator) in TRACING


def _outgoing(module: _Module, functions: list[ast.AST], callees: list[str]):
    """``(module, function)`` for each callee of ``functions`` (and of the module-level functions
    they call) and each of ``callees``: a function of this module or an imported one."""
    done: set[int] = set()
    stack = list(functions)
    pending = list(callees)
    while stack or pending:
        if stack:
            function = stack.pop()
            if id(function) in done:
                continue
            done.add(id(function))
            pending.extend(module.calls.get(id(function), ()))
            continue
        callee = pending.pop()
        head, _, rest = callee.partition(".")
        if callee in module.functions and rest:  # a method of a class of this module
            stack.append(module.functions[callee])
            yield module.name, callee
        elif not rest:
            if head in module.functions:
                stack.append(module.functions[head])
                yield module.name, head
            elif head in module.imports and module.imports[head][1] is not None:
                yield module.imports[head]
        elif head in module.imports:
            source, attribute = module.imports[head]
            path, _, last = rest.rpartition(".")
            parts = [source, *([attribute] if attribute else []), *([path] if path else [])]
            yield ".".join(parts), last


def _names_passed(arg: ast.AST) -> set[str]:
    """The function names an argument hands over: ``f``, ``partial(f, ...)``, ``[f, g]``, and
    those a lambda's body calls."""
    if isinstance(arg, ast.Name):
        return {arg.id}
    if isinstance(arg, (ast.List, ast.Tuple)):
        return set().union(*(_names_passed(e) for e in arg.elts)) if arg.elts else set()
    if isinstance(arg, ast.Call) and terminal(arg.func) in PARTIAL | TRACING and arg.args:
        return _names_passed(arg.args[0])
    if isinstance(arg, ast.Lambda):  # `scan(lambda c, x: (step(c, x), None), ...)` runs `step` traced
        return {n.func.id for n in ast.walk(arg.body) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    return set()


def _unsubscript(node: ast.AST) -> ast.AST:
    return node.value if isinstance(node, ast.Subscript) else node
