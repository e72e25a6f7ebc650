"""The text tests that decide which files the project pass reads (:func:`wrappers.may_define`,
:func:`growers.may_define`, :func:`updaters.may_define`) lose no loop wrapper, grower or updater
that reading every file finds."""

from __future__ import annotations

import ast
import re
import time
from pathlib import Path

import pytest

from autota.source import growers, project, updaters, vocabulary, wrappers
from autota.source.project import project_functions

ROOT = Path(__file__).parents[2]
SOURCES = sorted(
    [*ROOT.joinpath("tests", "source", "fixtures").glob("*/*.in.py"), *ROOT.joinpath("corpus").glob("**/*.py")]
)

WRAPPER = """\
import jax
from typing import Callable


def scan_if_not_profiling(
    f: Callable[[int, None], tuple[int, None]],
    init,
    xs,
    length: int,
    /,
):
    if PROFILING:
        carry = init
        for _ in range(length):
            carry, _ = f(carry, None)
        return carry, None
    return jax.lax.scan(f, init, None, length)


def fori_loop(lower, upper, body_fun, init_val):
    return jax.lax.fori_loop(lower, upper, body_fun=body_fun, init_val=init_val)
"""

GROWER = """\
import jax.numpy as jnp


def attend(x, k, cache=None):
    if cache is not None:
        k = jnp.concatenate([cache, k], axis=1)
    return x.sum(), k


def extend(trajectory, state):
    return jnp.concatenate((trajectory, state[None]))
"""


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(ROOT)) for p in SOURCES])
def test_the_text_tests_lose_nothing(path):
    text = path.read_text()
    tree = ast.parse(text)
    if wrappers.file_wrappers(tree, "m"):
        assert wrappers.may_define(text)
    if growers.file_growers(tree, "m", {}):
        assert growers.may_define(text)
    if updaters.file_updaters(tree):
        assert updaters.may_define(text)


RING = """\
import functools
from typing import NamedTuple

import jax


class RingState(NamedTuple):
    idx: jax.Array
    rows: jax.Array


class Ring:
    @functools.partial(jax.jit, static_argnums=(0,))
    def add(self, state, row):
        return RingState(idx=state.idx + 1, rows=state.rows.at[state.idx].set(row))

    def peek(self, state, row):
        return state._replace(rows=state.rows.at[0].set(row))

    @functools.partial(jax.jit, donate_argnums=(1,))
    def kept(self, state, row):
        return state._replace(rows=state.rows.at[0].set(row))


def total(state):
    return RingState(idx=state.idx, rows=state.rows.sum())
"""


def test_methods_and_records_rebuilt_around_a_write_are_updaters(tmp_path):
    """Sweep 51a (learned_optimization): a ring buffer's jitted ``add`` in another module
    returns its state rebuilt around a write of a field: an updater of its argument 1 (``self``
    is 0), jitted donating nothing. A record rebuilt from no write is none."""
    assert updaters.may_define(RING)
    assert updaters.file_updaters(ast.parse(RING)) == {"Ring.add": (1,), "Ring.peek": (1,), "Ring.kept": (1,)}
    (tmp_path / "ring.py").write_text(RING)
    found = project_functions([str(tmp_path / "ring.py")])
    assert found.undonated == {"ring.Ring.add"}


def test_attributes_stored_by_for_with_and_patch_targets_are_stored(tmp_path):
    """Review 69: another module may bind a module's name by a ``for`` or ``with`` target or a
    ``mock.patch`` string as well as by an assignment; ``exec`` in its namespace may bind any."""
    (tmp_path / "a.py").write_text("N = 4\n")
    routes = {
        "for a.N in [None]:\n    pass\n": "N", "with ctx() as a.M:\n    pass\n": "M",
        'patcher = mock.patch("a.K", None)\n': "K",
    }
    for k, (route, name) in enumerate(routes.items()):
        (tmp_path / f"m{k}.py").write_text(f"import a\n\n{route}")
        found = project_functions([str(tmp_path / "a.py"), str(tmp_path / f"m{k}.py")])
        assert name in found.stored_attributes, route
    (tmp_path / "e.py").write_text('import a\n\nexec("N = None", vars(a))\n')
    assert project_functions([str(tmp_path / "a.py"), str(tmp_path / "e.py")]).stores_built_names


def test_wrappers_and_growers_are_found():
    found = wrappers.file_wrappers(ast.parse(WRAPPER), "pkg.profiler")
    assert wrappers.may_define(WRAPPER)
    assert {name: (w.kind, dict(w.passes)["f" if w.kind == "scan" else "body_fun"]) for name, w in found.items()} == {
        "scan_if_not_profiling": ("scan", "f"), "fori_loop": ("fori", "body_fun"),
    }
    assert found["scan_if_not_profiling"].keywords == frozenset()  # positional-only
    grown = growers.file_growers(ast.parse(GROWER), "pkg.cache", {})
    assert growers.may_define(GROWER)
    assert {name: g.grows for name, g in grown.items()} == {"attend": ((1, "cache"),), "extend": ((None, "trajectory"),)}


SPELLINGS = """\
import pdb; pdb.set_trace(); breakpoint(); sys._getframe(1).f_back.f_locals; inspect.stack()
from IPython import embed; IPython.embed(); signal.signal(signal.SIGINT, h); tb.tb_frame
jax.config.update("jax_debug_nans", True); jax.config.jax_debug_infs = True; JAX_DEBUG_NANS=1
jax._src.config; config.update(name, value); _value_holders
weakref.ref(x); sys.getrefcount(x); jax.live_arrays(); gc.get_referrers(x); gc.get_objects()
def __del__(self): pass
vars(mod); dir(mod); eval(s); exec(s); globals()["f"]; __import__("m"); importlib.import_module("m")
operator.methodcaller("f"); inspect.getmembers(m); pkgutil.resolve_name("m:f"); pydoc.locate("m.f")
sys . modules["m"]; m.__dict__; f.__globals__; frame.f_globals; m.__getattribute__("f")
getattr(m, "f"); inspect.getattr_static(m, "f"); operator.attrgetter("f"); inspect.getclosurevars(f)
runpy.run_path(p); runpy.run_module(m); code.InteractiveInterpreter().runsource(s); c.runcode(s)
code.InteractiveConsole(); pickle.loads(b); cPickle.load(f); _pickle.Unpickler(f); dill.load(f)
cloudpickle.loads(b); joblib.load(p); shelve.open(p); from pickle import loads; torch.load(p)
np.load(p, allow_pickle=True); Unpickler(f)
"""


@pytest.mark.parametrize("pattern, words", [
    (project.CALLER_FRAMES, project.CALLER_FRAME_WORDS),
    (project.VALUE_CHECKED, project.VALUE_CHECK_WORDS),
    (vocabulary.LIFETIME_OBSERVERS, project.LIFETIME_WORDS),
    (project.NAME_REACHERS, project.NAME_REACHER_WORDS),
], ids=["frames", "value checks", "lifetimes", "name reachers"])
def test_each_match_of_a_project_pattern_holds_one_of_its_words(pattern, words):
    """The project pass searches a text with a pattern only where one of the pattern's words
    occurs: each match, over the spellings the patterns document and the project's own sources,
    must hold one."""
    folded = bool(pattern.flags & re.I)
    words = [w.lower() for w in words] if folded else list(words)
    texts = [SPELLINGS, *(p.read_text() for p in ROOT.joinpath("autota").glob("**/*.py")), *(p.read_text() for p in SOURCES)]
    matches = [m.group(0) for text in texts for m in pattern.finditer(text)]
    assert len([m for m in pattern.finditer(SPELLINGS)]) >= 4
    assert [m for m in matches if not any(w in (m.lower() if folded else m) for w in words)] == []


def test_attributes_stored_are_read_in_one_pass():
    text = """\
utils.jnp = numpy
a.count += 1
(a.left, b.right) = pair
c.first, c.second = pair
if a.equal == 1: pass
x = a.read
a.items[0] = 1
W = [[0.0728, 0.0657, -0.1149], [0.0502, 0.1107, -0.0826]]
"""
    assert project.stored_attributes(text) == {"jnp", "count", "left", "right", "first", "second"}
    table = "W = [" + ", ".join(f"a.w{k}, 0.{k:05d}" for k in range(20000)) + "]\nb.z = 1\n"
    start = time.perf_counter()
    assert project.stored_attributes(table) == {"z"}  # each `.wK,` scanned once to the line's end, not from itself
    assert time.perf_counter() - start < 1.0


def test_an_update_after_a_nested_def_is_an_updater():
    """Sweep 65b: the text test took the nested helper's header for the one around the update."""
    text = """\
from functools import partial
from jax import jit


@partial(jit, static_argnums=[0])
def add_forces(n, f, b):
    def helper(x):
        return x * 2.0

    g = helper(f)
    return b.at[(11 * n)::6].add(-g[0::3])
"""
    assert updaters.may_define(text)
    assert updaters.file_updaters(ast.parse(text)) == {"add_forces": (2,)}
