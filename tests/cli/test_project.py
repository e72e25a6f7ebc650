"""Whether a helper runs traced is often decided in another file: a run over a package follows
each module's traced functions to the helpers they import (:mod:`autota.source.project`), and
AT102 keeps off those, in ``check`` and in ``fix``. A test or a script that calls a helper
eagerly keeps it reported; a run on the helper's file alone cannot know, and reports it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autota.cli.main import main

HELPER = """\
import jax.numpy as jnp


def update_edges(edges, position):
    out = edges
    for agent in range(position.shape[0]):
        out = out.at[agent].set(edges[position[agent]])
    return out


def eager_only(x):
    buf = jnp.zeros((6,))
    for t in range(6):
        buf = buf.at[t].set(x * t)
    return buf
"""

ENV = """\
import jax

from pkg.routing import utils
from pkg.routing.utils import update_edges as update


@jax.jit
def step(edges, position):
    return update(edges, position)


class Env:
    def reset(self, edges, position):
        return jax.jit(self._reset)(edges, position)

    def _reset(self, edges, position):
        return utils.update_edges(edges, position)
"""

TEST = """\
from pkg.routing.utils import eager_only


def test_eager_only():
    assert eager_only(1.0).shape == (6,)
"""


@pytest.fixture
def package(tmp_path: Path) -> Path:
    routing = tmp_path / "pkg" / "routing"
    routing.mkdir(parents=True)
    for folder in (tmp_path / "pkg", routing):
        (folder / "__init__.py").write_text("")
    (routing / "utils.py").write_text(HELPER)
    (routing / "env.py").write_text(ENV)
    (tmp_path / "pkg" / "utils_test.py").write_text(TEST)
    return tmp_path


def _codes(capsys, *argv: str) -> list[str]:
    main(["check", "--no-progress", "--exit-zero", *argv])
    out = capsys.readouterr().out
    return [line.split(": ")[0].rsplit("/", 1)[-1] + " " + line.split(": ")[1].split()[0]
            for line in out.splitlines() if ": AT" in line]


def test_a_helper_jitted_in_another_module_is_not_reported(capsys, package):
    assert _codes(capsys, "--select", "AT102", str(package)) == ["utils.py:14:15 AT102"]


def test_the_helper_alone_is_reported(capsys, package):
    alone = _codes(capsys, "--select", "AT102", str(package / "pkg" / "routing" / "utils.py"))
    assert alone == ["utils.py:7:15 AT102", "utils.py:14:15 AT102"]


def test_fix_leaves_the_traced_helper_alone(capsys, package):
    utils = package / "pkg" / "routing" / "utils.py"
    main(["fix", "--no-progress", "--select", "AT102", str(package)])
    capsys.readouterr()
    fixed = utils.read_text()
    assert "out = out.at[agent].set(edges[position[agent]])" in fixed  # the traced helper: untouched
    assert "buf = buf.at[t].set(x * t)" not in fixed  # the eager one: fixed


def test_an_eager_caller_keeps_it_reported(capsys, package):
    (package / "pkg" / "script.py").write_text(
        "import jax.numpy as jnp\nfrom pkg.routing.utils import update_edges\n\n"
        "print(update_edges(jnp.zeros((2, 2)), jnp.array([1, 0])))\n"
    )
    assert _codes(capsys, "--select", "AT102", str(package)) == ["utils.py:7:15 AT102", "utils.py:14:15 AT102"]



def test_a_notebook_caller_keeps_it_reported(capsys, package):
    """A notebook's top-level cells call functions eagerly, as a script does (sweep 45b)."""
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# try it"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": [
            "import jax.numpy as jnp\n", "from pkg.routing.utils import update_edges\n",
            "update_edges(jnp.zeros((2, 2)), jnp.array([1, 0]))\n",
        ]},
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (package / "pkg" / "explore.ipynb").write_text(json.dumps(notebook))
    assert _codes(capsys, "--select", "AT102", str(package)) == ["utils.py:7:15 AT102", "utils.py:14:15 AT102"]


HAND = """\
import jax.numpy as jnp


class Hand:
    @staticmethod
    def deal(deck):
        hand = jnp.zeros((deck.shape[0], 34), dtype=jnp.uint8)
        for j in range(deck.shape[0]):
            hand = hand.at[j].set(deck[j])
        return hand

    @staticmethod
    def eager(deck):
        hand = jnp.zeros((deck.shape[0], 34), dtype=jnp.uint8)
        for j in range(deck.shape[0]):
            hand = hand.at[j].set(deck[j])
        return hand
"""

GAME = """\
import jax

from pkg.hand import Hand


def init(deck):
    return Hand.deal(deck)


init_jit = jax.jit(init)
"""


@pytest.mark.parametrize("command", ["check", "fix"])
def test_a_method_called_from_traced_code_of_another_module_is_not_reported(capsys, tmp_path, command):
    """``Hand.deal(...)`` in a jitted function of another module runs traced (pgx's mahjong)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "hand.py").write_text(HAND)
    (tmp_path / "pkg" / "game.py").write_text(GAME)
    if command == "check":
        assert _codes(capsys, "--select", "AT102", str(tmp_path)) == ["hand.py:16:20 AT102"]
    else:
        main(["fix", "--no-progress", "--select", "AT102", str(tmp_path)])
        capsys.readouterr()
        fixed = (tmp_path / "pkg" / "hand.py").read_text()
        assert fixed.count("hand = hand.at[j].set(deck[j])") == 1  # the traced method: untouched


GENERATOR = """\
import jax
import jax.numpy as jnp


class RandomGenerator:
    def __init__(self, count):
        self.count = count

    def __call__(self, key):
        picks = jnp.zeros((self.count,), jnp.int32)
        for slot in range(self.count):
            key, sub = jax.random.split(key)
            picks = picks.at[slot].set(jax.random.randint(sub, (), 0, 10))
        return picks

    def layout(self, key):
        cells = jnp.zeros((self.count,))
        for slot in range(self.count):
            cells = cells.at[slot].set(jax.random.uniform(jax.random.fold_in(key, slot)))
        return cells

    def render(self, values):
        image = jnp.zeros((self.count,))
        for slot in range(self.count):
            image = image.at[slot].set(values[slot])
        return image
"""

HOLDING_ENV = """\
from functools import partial

import jax

from pkg.generator import RandomGenerator


class Env:
    def __init__(self, generator=None):
        self._generator = generator or RandomGenerator(count=3)

    @partial(jax.jit, static_argnums=0)
    def reset(self, key):
        return self._generator(key), self._generator.layout(key)
"""


def test_an_object_held_by_a_traced_class_runs_traced(capsys, tmp_path):
    """Jumanji's environments hold a generator (``self._generator = generator or
    RandomGenerator(...)``) from another module and call it in their jitted ``reset``: its
    ``__call__`` and the method called run traced; a method nothing traced calls stays reported."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "generator.py").write_text(GENERATOR)
    (tmp_path / "pkg" / "env.py").write_text(HOLDING_ENV)
    assert _codes(capsys, "--select", "AT102", str(tmp_path)) == ["generator.py:25:21 AT102"]


SAMPLE_MIXIN = """\
import jax.numpy as jnp


class SampleMixin:
    def sample(self, x):
        out = jnp.zeros_like(x)
        for t in range(x.shape[0]):
            out = out.at[t].set(self.layer(x[t]))
        return out
"""

MIXED_MODEL = """\
import haiku as hk

from pkg.sample import SampleMixin


class Model(hk.Module, SampleMixin):
    def layer(self, v):
        return hk.Linear(v.shape[-1])(v)
"""


def test_a_mixin_of_a_model_class_of_another_module_runs_as_its_methods(capsys, tmp_path):
    """ColabDesign's ``class ProteinMPNN(hk.Module, mpnn_sample)``: the mixin's methods are the
    model's, run inside its transformed ``apply``; alone, the mixin's file cannot know."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "sample.py").write_text(SAMPLE_MIXIN)
    (tmp_path / "pkg" / "model.py").write_text(MIXED_MODEL)
    assert _codes(capsys, "--select", "AT102", str(tmp_path)) == []
    assert _codes(capsys, "--select", "AT102", str(tmp_path / "pkg" / "sample.py")) == ["sample.py:8:19 AT102"]


ENV_BASE = """\
from mujoco_playground._src import mjx_env


class HandEnv(mjx_env.MjxEnv):
    pass
"""

DERIVED_ENV = """\
import jax.numpy as jnp

from envs import base


class Rotate(base.HandEnv):
    def _get_obs(self, data, names):
        v = jnp.zeros((len(names),))
        for idx, name in enumerate(names):
            v = v.at[idx].set(data[name])
        return v
"""


def test_a_class_derived_from_a_model_class_of_another_module_runs_as_a_model(capsys, tmp_path):
    """MuJoCo Playground's ``class Rotate(base.HandEnv)``, ``HandEnv`` an ``MjxEnv`` of another
    module: its methods run in the environment's jitted ``step``; alone, its file cannot know."""
    (tmp_path / "envs").mkdir()
    (tmp_path / "envs" / "__init__.py").write_text("")
    (tmp_path / "envs" / "base.py").write_text(ENV_BASE)
    (tmp_path / "envs" / "rotate.py").write_text(DERIVED_ENV)
    assert _codes(capsys, "--select", "AT102", str(tmp_path)) == []
    assert _codes(capsys, "--select", "AT102", str(tmp_path / "envs" / "rotate.py")) == ["rotate.py:10:17 AT102"]


MODULE_BASES = """\
import equinox as eqx
import flax.linen as nn


class EqxBase(eqx.Module):
    n: int


class FlaxBase(nn.Module):
    n: int = 3
"""

DERIVED_MODELS = """\
import jax.numpy as jnp

from models import base


class Clicks(base.EqxBase):
    def post(self, clicks):
        out = jnp.zeros((self.n, 4))
        for k in range(self.n):
            out = out.at[k].set(clicks[:4] * k)
        return out


class Layer(base.FlaxBase):
    def __call__(self, x):
        out = jnp.zeros((self.n, 4))
        for k in range(self.n):
            out = out.at[k].set(x * k)
        return out
"""


def test_a_class_derived_from_a_model_class_that_imports_its_framework_whole_runs_as_a_model(capsys, tmp_path):
    """Sweep 49 (dynamiqs): ``class X(base.EqxBase)``, ``EqxBase`` an ``eqx.Module`` of a module
    that imports ``equinox as eqx``: ``eqx.Module`` is Equinox's, not a class of that module."""
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "__init__.py").write_text("")
    (tmp_path / "models" / "base.py").write_text(MODULE_BASES)
    (tmp_path / "models" / "derived.py").write_text(DERIVED_MODELS)
    assert _codes(capsys, "--select", "AT102", str(tmp_path)) == []
    assert _codes(capsys, "--select", "AT102", str(tmp_path / "models" / "derived.py")) == [
        "derived.py:10:19 AT102", "derived.py:18:19 AT102",
    ]


SCALES = """\
import jax.numpy as jnp


def decompose(image, scales):
    out = jnp.zeros((scales + 1,) + image.shape)
    for j in range(scales):
        out = out.at[j].set(image * 0.5**j)
    return out
"""

FACTORY_OF_A_MODEL = """\
import equinox as eqx
import jax.numpy as jnp

from .scales import decompose
from .shapes import Shape


class Profile(Shape):
    coeffs: jnp.ndarray

    def __call__(self):
        return self.coeffs.sum(0)

    @staticmethod
    def from_image(image):
        return Profile(decompose(image, 5))
"""


def test_a_factory_of_a_model_class_derived_in_another_module_runs_eagerly(capsys, tmp_path):
    """Sweep 50b (scarlet2): ``from_image``, a static method of a class derived from an
    ``eqx.Module`` of another module, builds the model eagerly: the helper it calls is reported."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "shapes.py").write_text("import equinox as eqx\n\n\nclass Shape(eqx.Module):\n    pass\n")
    (tmp_path / "pkg" / "scales.py").write_text(SCALES)
    (tmp_path / "pkg" / "profile.py").write_text(FACTORY_OF_A_MODEL)
    assert _codes(capsys, "--select", "AT102", str(tmp_path)) == ["scales.py:7:15 AT102"]


RENAMED_BASE = """\
from gymnax.environments.environment import Environment as GymnaxEnvironment


class Environment(GymnaxEnvironment):
    pass
"""

REEXPORT = """\
from envs.env import Environment


class GridEnv(Environment):
    pass
"""

THROUGH_REEXPORT = """\
import jax.numpy as jnp

from envs.grid import Environment


class PlayEnv(Environment):
    def render(self, cells, tiles, size):
        img = jnp.zeros((cells.shape[0] * size, size, 4), dtype=jnp.uint8)
        for y in range(cells.shape[0]):
            img = img.at[y * size:(y + 1) * size].set(tiles[cells[y]])
        return img
"""


def test_a_model_base_imported_under_another_name_and_re_exported_is_followed(capsys, tmp_path):
    """Sweep 41b (a procedural-content environment): the run's ``Environment`` is Gymnax's
    imported as ``GymnaxEnvironment``, and a third module imports it from a second one that
    re-exports it: the class derived there is an environment, its methods run traced."""
    (tmp_path / "envs").mkdir()
    (tmp_path / "envs" / "__init__.py").write_text("")
    (tmp_path / "envs" / "env.py").write_text(RENAMED_BASE)
    (tmp_path / "envs" / "grid.py").write_text(REEXPORT)
    (tmp_path / "envs" / "play.py").write_text(THROUGH_REEXPORT)
    assert _codes(capsys, "--select", "AT102", str(tmp_path)) == []
    assert _codes(capsys, "--select", "AT102", str(tmp_path / "envs" / "play.py")) == ["play.py:10:19 AT102"]


CHUNKED = """\
import jax.numpy as jnp


def encode(layer, obs, chunk):
    out = jnp.zeros(obs.shape[:2] + (8,))
    for c in range(obs.shape[1] // chunk):
        out = out.at[:, c * chunk:(c + 1) * chunk].set(layer(obs[:, c * chunk:(c + 1) * chunk]))
    return out


def act(layer, obs):
    out = jnp.zeros(obs.shape[:2] + (8,))
    for c in range(obs.shape[1]):
        out = out.at[:, c].set(layer(obs[:, c]))
    return out
"""

STORING_MODEL = """\
from functools import partial

import flax.linen as nn

from pkg.chunked import act, encode


class Net(nn.Module):
    def setup(self):
        self.layer = nn.Dense(8)
        self.encode = partial(encode, chunk=4)
        self.act = act

    def __call__(self, obs):
        return self.encode(self.layer, obs) + self.act(self.layer, obs)
"""


def test_functions_a_model_of_another_module_stores_run_as_its_methods(capsys, tmp_path):
    """Sweep 23's og-marl: a Flax module's `setup` stores `partial(encode, ...)` and `act`,
    imported from another module, and calls them in `__call__`: they run traced."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "chunked.py").write_text(CHUNKED)
    (tmp_path / "pkg" / "model.py").write_text(STORING_MODEL)
    assert _codes(capsys, "--select", "AT102", str(tmp_path)) == []
    assert len(_codes(capsys, "--select", "AT102", str(tmp_path / "pkg" / "chunked.py"))) == 2


SMOOTH = """\
import jax.numpy as jnp


def smooth(x):
    out = jnp.zeros_like(x)
    for i in range(x.shape[0]):
        out = out.at[i].set(x[i] * 0.5)
    return out


def on_host(x):
    out = jnp.zeros_like(x)
    for i in range(x.shape[0]):
        out = out.at[i].set(x[i] + 1.0)
    return out
"""

TREES = """\
import jax

from pkg import smoothing


@jax.jit
def smooth_all(tree):
    return jax.tree_util.tree_map(smoothing.smooth, tree)


@jax.jit
def through_host(x):
    return jax.pure_callback(smoothing.on_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
"""


def test_a_helper_handed_to_a_call_in_traced_code_of_another_module_runs_traced(capsys, tmp_path):
    """``tree_map(smoothing.smooth, tree)`` in a jitted function runs ``smooth`` traced; a host
    callback (``jax.pure_callback(smoothing.on_host, ...)``) runs its function eagerly."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "smoothing.py").write_text(SMOOTH)
    (tmp_path / "pkg" / "trees.py").write_text(TREES)
    assert _codes(capsys, "--select", "AT102", str(tmp_path)) == ["smoothing.py:14:15 AT102"]


LOSS_MODEL = """\
import jax.numpy as jnp


class Model:
    def __init__(self, steps, lam):
        self.steps = steps
        self.lam = lam

    def loss_function(self, logits, labels):
        prior = jnp.zeros([self.steps])
        halted = 1.0
        for i in range(self.steps):
            prior = prior.at[i].set(self.lam * halted)
            halted = halted * (1 - self.lam)
        return jnp.mean((logits - labels) ** 2) + jnp.sum(prior)

    def table(self, n):
        out = jnp.zeros(n)
        for i in range(n):
            out = out.at[i].set(i * self.lam)
        return out
"""

TRAINER = """\
import functools

import jax


def train_step(params, batch, *, loss_fn):
    loss, grads = jax.value_and_grad(lambda p: loss_fn(batch["x"] @ p, batch["y"]))(params)
    return params - 0.1 * grads, loss


def train(model, params, batch):
    step = functools.partial(train_step, loss_fn=model.loss_function)
    return jax.pmap(step, axis_name="batch")(params, batch)
"""


def test_a_method_bound_into_a_traced_partial_in_another_module_runs_traced(capsys, tmp_path):
    """Sweep 32b's scenic: a trainer binds ``model.loss_function`` into the ``partial`` it
    pmaps, the model's class in a module the trainer does not import. Each method of that name
    runs traced; the class's other methods stay eager."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model.py").write_text(LOSS_MODEL)
    (tmp_path / "pkg" / "trainer.py").write_text(TRAINER)
    assert _codes(capsys, "--select", "AT102", str(tmp_path)) == ["model.py:20:19 AT102"]
    assert len(_codes(capsys, "--select", "AT102", str(tmp_path / "pkg" / "model.py"))) == 2


CONTROL_FLOW = """\
import jax


def fori_loop(lower, upper, body_fun, init_val):
    return jax.lax.fori_loop(lower, upper, body_fun, init_val)
"""

DECOMP = """\
import jax.numpy as jnp

from ..backend import control_flow


def lanczos(A, v0, n):
    def step(i, state):
        alphas, vk = state
        alpha = vk @ A @ vk
        return alphas.at[i].set(alpha), A @ vk

    return control_flow.fori_loop(0, n, step, (jnp.zeros((n,)), v0))


def fill(n):
    def body(i, buf):
        row = jnp.zeros(n)
        for k in range(n):
            row = row.at[k].set(i * k)
        return buf + row

    return control_flow.fori_loop(0, n, body, jnp.zeros(n))
"""


def test_a_loop_wrapper_of_another_module_is_a_loop(capsys, tmp_path):
    """Sweep 37b's matfree: decompositions call the project's own ``fori_loop``, which hands its
    arguments to ``jax.lax.fori_loop``. Over the package, its call is that loop: the carried buffer
    is AT201's (without a fix), and the body it runs is traced, so its Python loop is AT401's, not
    AT102's. The module alone cannot tell which; it sees a closure handed to another module's
    function, which may run it traced: not reported as eager either."""
    for folder in ("pkg", "pkg/backend", "pkg/linalg"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "pkg" / "backend" / "control_flow.py").write_text(CONTROL_FLOW)
    (tmp_path / "pkg" / "linalg" / "decomp.py").write_text(DECOMP)
    assert _codes(capsys, "--select", "AT102,AT201,AT401", str(tmp_path)) == [
        "decomp.py:10:16 AT201", "decomp.py:18:9 AT401",
    ]
    alone = _codes(capsys, "--select", "AT102,AT201,AT401", str(tmp_path / "pkg" / "linalg" / "decomp.py"))
    assert alone == []


CACHE = """\
import jax.numpy as jnp


def append(cache, kv):
    if cache is None:
        return kv
    return jnp.concatenate([cache, kv], axis=-2)
"""

DECODE = """\
import jax

from pkg.cache import append


@jax.jit
def forward(x, cache):
    cache = append(cache, x[:, None, :])
    return cache.sum(axis=-2), cache


def generate(x, steps):
    cache = None
    for _ in range(steps):
        x, cache = forward(x, cache)
    return cache
"""


def test_a_growth_by_a_helper_of_another_module_is_found(capsys, tmp_path):
    """Sweep 38b's llama-style decoder: the KV cache is grown by a helper of another module,
    through the jitted forward of the loop's own module, once per token. Over the package, the
    loop's call is that growth (AT101, no fix); the module alone cannot tell."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "cache.py").write_text(CACHE)
    (tmp_path / "pkg" / "decode.py").write_text(DECODE)
    assert _codes(capsys, "--select", "AT101", str(tmp_path)) == ["decode.py:15:20 AT101"]
    assert _codes(capsys, "--select", "AT101", str(tmp_path / "pkg" / "decode.py")) == []


def test_a_constant_imported_from_another_module_bounds_a_loop_as_it_does_there(capsys, tmp_path):
    """Sweep 47a's climate model: ``for ib in range(1, numrad + 1)`` where ``numrad = 2`` comes
    from a constants module. Over the run, a few constant steps (not reported), as with the
    constant in the file; a constant bound twice, or one another module stores, bounds nothing."""
    (tmp_path / "consts.py").write_text("numrad: int = 2\nnlevel = 2\nnlevel = 50\nnstored = 2\n")
    (tmp_path / "setter.py").write_text("import consts\n\nconsts.nstored = 100\n")
    body = (
        "import jax.numpy as jnp\nfrom consts import {name}\n\n\ndef per_patch(xs, n_patch):\n    out = []\n"
        "    for p in range(n_patch):\n        band = jnp.zeros({name} + 1)\n        for ib in range(1, {name} + 1):\n"
        "            band = band.at[ib].set(xs[p] * ib)\n        out.append(band)\n    return out\n"
    )
    for name in ("numrad", "nlevel", "nstored"):
        (tmp_path / f"use_{name}.py").write_text(body.format(name=name))
    assert _codes(capsys, "--select", "AT102", str(tmp_path)) == ["use_nlevel.py:10:20 AT102", "use_nstored.py:10:20 AT102"]
    assert _codes(capsys, "--select", "AT102", str(tmp_path / "use_numrad.py")) == ["use_numrad.py:10:20 AT102"]


def test_a_module_imported_by_a_shorter_name_than_its_folders_give_is_found(capsys, tmp_path):
    """Sweep 47a's climate model runs with ``src/`` on ``sys.path`` though ``src`` is a package:
    ``from clm_varpar import numrad`` names the run's ``src.clm_varpar``, the one module whose
    name ends so."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "__init__.py").write_text("")
    (tmp_path / "src" / "clm_varpar.py").write_text("numrad = 2\n")
    (tmp_path / "src" / "use.py").write_text(
        "import jax.numpy as jnp\nfrom clm_varpar import numrad\n\n\ndef band(x):\n    out = jnp.zeros(numrad + 1)\n"
        "    for ib in range(1, numrad + 1):\n        out = out.at[ib].set(x * ib)\n    return out\n"
    )
    assert _codes(capsys, "--select", "AT102", str(tmp_path)) == []
    assert _codes(capsys, "--select", "AT102", str(tmp_path / "src" / "use.py")) == ["use.py:8:15 AT102"]
    # a relative import that climbs above the top package names no module of the run (it crashed)
    (tmp_path / "src" / "rel.py").write_text(
        (tmp_path / "src" / "use.py").read_text().replace("from clm_varpar import", "from ...shared import")
    )
    assert _codes(capsys, "--select", "AT102", str(tmp_path)) == ["rel.py:8:15 AT102"]


def test_a_function_a_traced_lambda_calls_runs_traced_across_modules(capsys, tmp_path):
    """Sweep 47a: ``lax.scan(lambda w, u: (physics_step(w, u), None), ...)``, ``physics_step``
    calling a helper of another module: the helper runs traced, as it does where the two are in
    one file."""
    (tmp_path / "turb.py").write_text(
        "def profile(ncan, wind, u):\n    for ic in range(1, ncan + 1):\n        wind = wind.at[ic].set(u * ic)\n"
        "    return wind\n"
    )
    (tmp_path / "driver.py").write_text(
        "import jax\n\nfrom turb import profile\n\n\ndef run(wind, us, n):\n    def physics_step(w, u):\n"
        "        return profile(n, w, u)\n\n    wind, _ = jax.lax.scan(lambda w, u: (physics_step(w, u), None), wind, us)\n"
        "    return wind\n"
    )
    assert _codes(capsys, "--select", "AT102", str(tmp_path)) == []
    assert _codes(capsys, "--select", "AT102", str(tmp_path / "turb.py")) == ["turb.py:3:16 AT102"]


def test_a_jitted_step_whose_write_is_in_another_module_is_an_update(capsys, tmp_path):
    """Sweep 48b's GPT decoder: the jitted decode step hands the KV cache to the model module's
    ``forward``, which writes it with ``dynamic_update_slice`` and returns it; the loop rebinds it.
    Over the run that is the step's update (AT301); a function returning the cache unchanged, or
    another array, is none."""
    (tmp_path / "model.py").write_text(
        "import jax\n\n\ndef forward(params, tok, cache, pos):\n    k = params * tok\n"
        "    cache = jax.lax.dynamic_update_slice(cache, k[None], (pos, 0))\n    return k.sum(), cache\n\n\n"
        "def peek(params, tok, cache, pos):\n    fresh = cache * 0\n    return tok, fresh.at[pos].set(tok)\n"
    )
    loop = (
        "import jax\nimport jax.numpy as jnp\nfrom model import {name}\n\n\n@jax.jit\n"
        "def decode_step(params, tok, cache, pos):\n    return {name}(params, tok, cache, pos)\n\n\n"
        "def main(params, tok, n):\n    cache = jnp.zeros((n, 4096))\n    for pos in range(n):\n"
        "        tok, cache = decode_step(params, tok, cache, pos)\n    return cache\n"
    )
    (tmp_path / "run.py").write_text(loop.format(name="forward"))
    (tmp_path / "run_peek.py").write_text(loop.format(name="peek"))
    assert _codes(capsys, "--select", "AT301", str(tmp_path)) == ["run.py:14:22 AT301"]
    assert _codes(capsys, "--select", "AT301", str(tmp_path / "run.py")) == []
    # sweep 60b: the write two helpers below, each rebinding the cache to what the next returns for it
    (tmp_path / "model.py").write_text(
        (tmp_path / "model.py").read_text()
        + "\n\ndef deep(params, tok, cache, pos):\n    y, cache = forward(params, tok, cache, pos)\n    return y, cache\n"
    )
    (tmp_path / "run_deep.py").write_text(loop.format(name="deep"))
    assert _codes(capsys, "--select", "AT301", str(tmp_path)) == ["run.py:14:22 AT301", "run_deep.py:14:22 AT301"]


def test_a_step_jitted_in_another_module_or_an_imported_writer_jitted_here_is_ats301(capsys, tmp_path):
    """Sweeps 50a/50b (flashbax, jax-am): a loop calls a step that its own module jits donating
    nothing (reported without a fix: the donation belongs there), or jits another module's
    writer itself (``put_j = jax.jit(put)``: the unsafe fix donates here). A step that donates,
    or a call that does not rebind the argument it updates, is none."""
    (tmp_path / "steps.py").write_text(
        "import functools\n\nimport jax\n\n\n@jax.jit\ndef update(T, dt):\n    return T.at[1:-1].add(dt * T[1:-1])\n\n\n"
        "@functools.partial(jax.jit, donate_argnums=0)\ndef kept(b, i):\n    return b.at[i].set(1.0)\n\n\n"
        "def put(b, i, v):\n    return b.at[i].set(v)\n"
    )
    (tmp_path / "run.py").write_text(
        "import jax\n\nfrom steps import kept, put, update as step\n\nput_j = jax.jit(put)\n\n\n"
        "def go(T, n):\n    for i in range(n):\n        T = step(T, 0.1)\n        T = kept(T, i)\n"
        "        T = put_j(T, i, 2.0)\n    c = T\n    for i in range(n):\n        T = step(c, 0.1)\n    return T\n"
    )
    (tmp_path / "plain.py").write_text(  # no `jax` in its text
        "from steps import update\n\n\ndef go(T, n):\n    for _ in range(n):\n        T = update(T, 0.1)\n    return T\n"
    )
    assert _codes(capsys, "--select", "AT301", str(tmp_path)) == [
        "plain.py:6:13 AT301", "run.py:10:13 AT301", "run.py:12:13 AT301"
    ]
    main(["check", "--no-progress", "--exit-zero", "--output-format", "json", "--select", "AT301", str(tmp_path)])
    findings = {Path(f["path"]).name + f":{f['line']}": f for f in json.loads(capsys.readouterr().out)}
    assert "jitted in another module" in findings["run.py:10"]["details"]["reason"] and findings["run.py:10"]["fix"] is None
    assert "donating argument 0" in findings["run.py:12"]["message"] and findings["run.py:12"]["fix"]["applicability"] == "unsafe"
    assert _codes(capsys, "--select", "AT301", str(tmp_path / "run.py")) == []


def test_a_jitted_method_of_another_modules_class_is_a_step_of_the_object_made_of_it(capsys, tmp_path):
    """Sweep 51a (learned_optimization): the caller's class makes ``self.ring = ring.Ring(...)``
    of another module's class, whose jitted ``add`` returns the state rebuilt around a write,
    donating nothing: the loop's ``st = self.ring.add(st, x)`` copies it each call (reported
    without a fix, argument 1: ``self`` is 0). A method that donates is none."""
    (tmp_path / "ring.py").write_text(
        "import functools\nfrom typing import NamedTuple\n\nimport jax\n\n\nclass RingState(NamedTuple):\n"
        "    idx: jax.Array\n    rows: jax.Array\n\n\nclass Ring:\n    @functools.partial(jax.jit, static_argnums=(0,))\n"
        "    def add(self, state, row):\n        return RingState(idx=state.idx + 1, rows=state.rows.at[state.idx].set(row))\n\n"
        "    @functools.partial(jax.jit, static_argnums=(0,), donate_argnums=(1,))\n    def put(self, state, row):\n"
        "        return state._replace(rows=state.rows.at[0].set(row))\n"
    )
    (tmp_path / "worker.py").write_text(
        "from ring import Ring\n\n\nclass Worker:\n    def __init__(self, n):\n        self.ring = Ring()\n        self.n = n\n\n"
        "    def fill(self, st, xs):\n        for t in range(self.n):\n            st = self.ring.add(st, xs[t])\n"
        "            st = self.ring.put(st, xs[t])\n        return st\n"
    )
    assert _codes(capsys, "--select", "AT301", str(tmp_path)) == ["worker.py:11:18 AT301"]
    main(["check", "--no-progress", "--exit-zero", "--output-format", "json", "--select", "AT301", str(tmp_path)])
    (finding,) = json.loads(capsys.readouterr().out)
    assert "donating argument 1" in finding["message"] and finding["fix"] is None


def test_a_module_of_the_run_that_reads_its_callers_frames_makes_the_loop_fixes_unsafe(capsys, tmp_path):
    """Review 70: a helper of another module reads its caller's locals through
    ``inspect.currentframe().f_back`` while the loop runs: the buffer it sees is the one the loop
    has written so far, which the fix writes only after the loop. The fix is offered unsafe,
    naming the module; a store into ``builtins.range`` there withholds the AT102 fix."""
    (tmp_path / "helper.py").write_text(
        "import inspect\n\nSEEN = []\n\n\ndef scaled(x, t):\n    caller = inspect.currentframe().f_back\n"
        "    SEEN.append(float(caller.f_locals['buf'].sum()))\n    return x * t\n"
    )
    (tmp_path / "main.py").write_text(
        "import jax.numpy as jnp\n\nfrom helper import scaled\n\n\ndef fill(x):\n    buf = jnp.zeros(8)\n"
        "    for t in range(6):\n        buf = buf.at[t].set(scaled(x, t))\n    return buf\n"
    )
    main(["check", "--no-progress", "--exit-zero", "--output-format", "json", str(tmp_path)])
    (finding,) = json.loads(capsys.readouterr().out)
    assert finding["fix"]["applicability"] == "unsafe" and "`helper` spells `currentframe`" in finding["details"]["reason"]
    (tmp_path / "helper.py").write_text("import builtins\n\nbuiltins.range = lambda *a: list(reversed(list(__builtins__['range'](*a))))\n")
    main(["check", "--no-progress", "--exit-zero", "--output-format", "json", str(tmp_path)])
    (finding,) = json.loads(capsys.readouterr().out)
    assert finding["fix"] is None and "a store into `builtins`" in finding["details"]["reason"]


@pytest.mark.parametrize(
    "helper, reason",
    [  # review 71: a debugger however spelled, and `builtins` reached by an alias, a dunder or a string
        ("from pdb import set_trace as st\n\n\ndef scaled(x, t):\n    if t == 3:\n        st()\n    return x * t\n",
         "`helper` spells `from pdb`"),
        ("import sys\n\n\ndef scaled(x, t):\n    if t == 3:\n        sys.breakpointhook()\n    return x * t\n",
         "`helper` spells `breakpointhook`"),
        ("import builtins as b\n\nb.__dict__['range'] = range\n\n\ndef scaled(x, t):\n    return x * t\n",
         "a store into `builtins`"),
        ("import importlib\n\nimportlib.import_module('builtins').range = range\n\n\ndef scaled(x, t):\n    return x * t\n",
         "a store into `builtins`"),
        # review 72: a frame held through a traceback, and a value check switched on by an option named at run time
        ("def scaled(x, t):\n    try:\n        raise ValueError\n    except ValueError as e:\n"
         "        frame = e.__traceback__.tb_frame.f_back\n    return x * t\n", "`helper` spells `tb_frame`"),
        ("import jax\n\nOPT = 'jax_debug_' + 'nans'\njax.config.update(OPT, True)\n\n\ndef scaled(x, t):\n    return x * t\n",
         "`helper` may switch one on"),
    ],
)
def test_debuggers_and_builtins_reached_otherwise_in_another_module_withhold_the_safe_fix(capsys, tmp_path, helper, reason):
    (tmp_path / "helper.py").write_text(helper)
    (tmp_path / "main.py").write_text(
        "import jax.numpy as jnp\n\nfrom helper import scaled\n\n\ndef fill(x):\n    buf = jnp.zeros(8)\n"
        "    for t in range(6):\n        buf = buf.at[t].set(scaled(x, t))\n    return buf\n"
    )
    main(["check", "--no-progress", "--exit-zero", "--output-format", "json", str(tmp_path)])
    (finding,) = json.loads(capsys.readouterr().out)
    assert (finding["fix"] is None or finding["fix"]["applicability"] == "unsafe") and reason in finding["details"]["reason"]


def test_disable_jit_in_another_module_of_the_run_withholds_the_while_loop_fix(capsys, tmp_path):
    """Review 66: ``with jax.disable_jit():`` around a call of another module's function runs its
    ``fori_loop`` as a Python loop, which returns Python values where the ``while_loop`` returned
    arrays: AT202's fix is withheld there as where the module itself mentions it."""
    loop = (
        "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef run(x):\n    def cond(c):\n        i, h, buf = c\n"
        "        return i < 5\n\n    def body(c):\n        i, h, buf = c\n        h = h * 0.5 + x\n"
        "        return i + 1, h, buf.at[i].set(h)\n\n    return lax.while_loop(cond, body, (0, x, jnp.zeros(5)))\n"
    )
    (tmp_path / "impl.py").write_text(loop)
    (tmp_path / "entry.py").write_text("import jax\n\nfrom impl import run\n\nwith jax.disable_jit():\n    run(0.3)\n")
    main(["check", "--no-progress", "--exit-zero", "--output-format", "json", str(tmp_path)])
    found = json.loads(capsys.readouterr().out)
    assert [(f["code"], f.get("fix")) for f in found] == [("AT202", None)]
    assert "a module of the run mentions `disable_jit`" in found[0]["details"]["reason"]
    main(["check", "--no-progress", "--exit-zero", "--output-format", "json", str(tmp_path / "impl.py")])
    (alone,) = json.loads(capsys.readouterr().out)  # offered alone, unsafe for `grad`'s sake only (review 69)
    assert alone["fix"]["applicability"] == "unsafe" and "disable_jit" not in alone["details"]["reason"]


def test_names_a_star_import_of_another_module_hands_on_are_resolved(capsys, tmp_path):
    """Sweep 40a's Hugoniot: a script's only `jnp` comes from `from utils import *`, and `utils`
    imports `jax.numpy as jnp`. Over the run, `jnp.concatenate` is JAX's; a module that binds the
    name again, or an `__all__` that leaves it out, hands on nothing."""
    (tmp_path / "utils.py").write_text("import jax.numpy as jnp\n")
    (tmp_path / "other.py").write_text("import jax.numpy as jnp\n\n__all__ = ['helper']\n\n\ndef helper():\n    pass\n")
    grow = (
        "def collect(sample, x, steps):\n    data = x\n    for step in range(steps):\n        x = sample(x)\n"
        "        data = jnp.concatenate((data, x), axis=0)\n    return data\n"
    )
    (tmp_path / "run.py").write_text("from utils import *\n\n\n" + grow)
    (tmp_path / "run_other.py").write_text("from other import *\n\n\n" + grow)
    assert _codes(capsys, "--select", "AT101", str(tmp_path)) == ["run.py:8:16 AT101"]
    assert _codes(capsys, "--select", "AT101", str(tmp_path / "run.py")) == []


def test_a_star_import_resolves_in_a_run_given_relative_paths(capsys, tmp_path, monkeypatch):
    """The file a star import reads is found by its resolved path; the run's files are named as
    given (`autota check src/`): both must meet (a run over relative paths resolved nothing)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "utils.py").write_text("import jax.numpy as jnp\n")
    (tmp_path / "src" / "run.py").write_text("from utils import *\n\n\n" + GROW)
    monkeypatch.chdir(tmp_path)
    assert _codes(capsys, "--select", "AT101", "src") == ["run.py:8:16 AT101"]


GROW = (
    "def collect(sample, x, steps):\n    data = x\n    for step in range(steps):\n        x = sample(x)\n"
    "        data = jnp.concatenate((data, x), axis=0)\n    return data\n"
)

REBINDING_STAR_EXPORTS = {  # review 60: each hands on a `jnp` that may not be JAX's at run time
    "a later star import binds it by assignment": {
        "utils.py": "import jax.numpy as jnp\n", "compat.py": "import numpy\njnp = numpy\n",
        "run.py": "from utils import *\nfrom compat import *\n\n\n" + GROW,
    },
    "a function rebinds it as a global": {
        "utils.py": "import jax.numpy as jnp\nimport numpy\n\n\ndef fallback():\n    global jnp\n    jnp = numpy\n\n\nfallback()\n",
        "run.py": "from utils import *\n\n\n" + GROW,
    },
    "a star import under try": {
        "utils.py": "import jax.numpy as jnp\n", "compat.py": "import numpy as jnp\n",
        "run.py": "from utils import *\ntry:\n    from compat import *\nexcept ImportError:\n    pass\n\n\n" + GROW,
    },
    "two files the name spells": {
        "utils.py": "import numpy as jnp\n", "lib/utils.py": "import jax.numpy as jnp\n",
        "lib/run.py": "from utils import *\n\n\n" + GROW,
    },
    "a submodule of the package of that name": {
        "utils/__init__.py": "import jax.numpy as jnp\nfrom . import helpers\n",
        "utils/helpers.py": "import utils.jnp\n", "utils/jnp.py": "from numpy import *\n",
        "run.py": "from utils import *\n\n\n" + GROW,
    },
    "another module stores the attribute": {
        "utils.py": "import jax.numpy as jnp\n", "setup_np.py": "import numpy\nimport utils\n\nutils.jnp = numpy\n",
        "run.py": "import setup_np\nfrom utils import *\n\n\n" + GROW,
    },
    "the script changes sys.path": {
        "pkg/__init__.py": "", "pkg/utils.py": "import jax.numpy as jnp\n",
        "../vendored/pkg/__init__.py": "", "../vendored/pkg/utils.py": "import numpy as jnp\n",
        "run.py": "import sys\nsys.path.insert(0, '../vendored')\nfrom pkg.utils import *\n\n\n" + GROW,
    },
    "a file named like a builtin module (review 62)": {  # `time` is always the interpreter's
        "helpers.py": "import numpy as jnp\n", "time.py": "import jax.numpy as jnp\n",
        "run.py": "from helpers import *\nfrom time import *\n\n\n" + GROW,
    },
    "a file named like a standard module, in a package (review 62)": {  # an absolute import: Python's `copy`
        "pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/sub/helpers.py": "import numpy as jnp\n",
        "pkg/sub/copy.py": "import jax.numpy as jnp\n",
        "pkg/sub/run.py": "from pkg.sub.helpers import *\nfrom copy import *\n\n\n" + GROW,
    },
    "an __all__ changed after it is made": {
        "utils.py": "import jax.numpy as jnp\n\n__all__ = ['jnp']\n__all__.remove('jnp')\n",
        "run.py": "from utils import *\n\n\n" + GROW,
    },
}


@pytest.mark.parametrize("case", sorted(REBINDING_STAR_EXPORTS))
def test_a_star_import_whose_names_may_be_bound_again_resolves_nothing(capsys, tmp_path, case):
    """A star import hands on a name only where nothing may bind it again: not a later star
    import, a `global` in a function, a star import that may not run, a second file the dotted
    name may be, a submodule of that name, a store from another module, a changed `sys.path`
    or a mutated `__all__`. Otherwise `jnp.concatenate` may be NumPy's, and the fix breaks it."""
    project = tmp_path / "project"
    for name, text in REBINDING_STAR_EXPORTS[case].items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    assert not [c for c in _codes(capsys, "--select", "AT101", str(project)) if c.split(":")[0].endswith("run.py")]


def test_relative_star_imports_resolve_nothing_and_break_nothing(capsys, tmp_path):
    """`from . import *` in a package's `__init__` (Hugoniot's jax_xc) names no file to read: the
    run goes on (it was an internal error), and the names it binds stay unknown."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from . import *  # noqa: F403\nfrom .impl import *  # noqa: F403\n")
    (tmp_path / "pkg" / "impl.py").write_text("import jax.numpy as jnp\n")
    (tmp_path / "pkg" / "run.py").write_text("from .impl import *\n\n\n" + GROW)
    (tmp_path / "utils.py").write_text("import jax.numpy as jnp\n")
    (tmp_path / "run.py").write_text("from utils import *\n\n\n" + GROW)
    assert _codes(capsys, "--select", "AT101", str(tmp_path)) == ["run.py:8:16 AT101"]


PRIVATE_BODIES = """\
import jax.numpy as jnp
from jax import lax


def _select(i, buf):
    buf = jnp.where(i % 2 == 0, buf.at[i].set(-1), buf)
    return buf


def _step(i, carry):
    h, out = carry
    h = h + 1.0
    out = out.at[i].set(h)
    return h, out


def run(xs):
    selected = lax.fori_loop(0, 5, _select, xs)
    h, out = lax.fori_loop(0, 3, _step, (0.0, jnp.zeros(3)))
    return selected, h, out
"""


def _applicability(capsys, path) -> dict[str, str | None]:
    main(["check", "--no-progress", "--exit-zero", "--output-format", "json", "--select", "AT201,AT204", str(path)])
    return {f["code"]: (f.get("fix") or {}).get("applicability") for f in json.loads(capsys.readouterr().out)}


@pytest.mark.parametrize("user", [
    "from mod import _select, _step\n\nprint(_select(1, 2), _step(1, (0.0, 1.0)))\n",
    "import mod as m\n\nprint(m._select(1, 2), m._step(1, (0.0, 1.0)))\n",
    # review 76: reached by a spelling no import shows
    "import mod\n\nstep = getattr(mod, '_st' + 'ep')\n",
    "import sys\n\nimport mod\n\nselect = sys.modules['mod']._select\n",
    # review 77: the module object under another name, `getattr_static`, an unpickler
    "import mod\n\nalias = mod\nprint(alias._select(1, 2), alias._step(1, (0.0, 1.0)))\n",
    "import importlib\n\nimport mod\n\nfresh = importlib.reload(mod)\nprint(fresh._select(1, 2), fresh._step(1, (0.0, 1.0)))\n",
    "import inspect\n\nimport mod\n\nstep = inspect.getattr_static(mod, '_st' + 'ep')\n",
    "import pickle\n\nstep = pickle.loads(open('step.pkl', 'rb').read())\n",
    # review 78: `getattr` handed on, a module's globals returned, its code run again
    "import functools\n\nimport mod\n\nstep = functools.reduce(getattr, ['_st' + 'ep'], mod)\n",
    "import inspect\n\nimport mod\n\nfound = inspect.getclosurevars(mod.run).globals\n",
    "import runpy\n\nimport mod\n\nfound = runpy.run_path(mod.__file__)\n",
])
def test_a_private_body_another_module_of_the_run_calls_is_no_loop_body_alone(capsys, tmp_path, user):
    """Review 75: a private `fori_loop` body that another module of the run imports (by name, or
    read from its module) may be called with a vector index there (AT204's scalar predicate) and
    sees its signature and result change (AT201's rewrite): both fixes are unsafe. Alone, or with
    a module that does not use them, the module's private bodies are the loops' alone: safe.
    A private name two modules of the run spell is taken to be reached from the other (review 77:
    `alias = mod; alias._step(...)`, a module in a list, a function returning it)."""
    (tmp_path / "mod.py").write_text(PRIVATE_BODIES)
    assert _applicability(capsys, tmp_path / "mod.py") == {"AT204": "safe", "AT201": "safe"}
    (tmp_path / "other.py").write_text("import mod\n\nprint(mod.run)\n")
    assert _applicability(capsys, tmp_path) == {"AT204": "safe", "AT201": "safe"}
    (tmp_path / "user.py").write_text(user)
    assert _applicability(capsys, tmp_path) == {"AT204": "unsafe", "AT201": "unsafe"}


def test_a_notebook_of_the_run_that_names_a_private_body_may_call_it(capsys, tmp_path):
    """Review 77: a notebook's code cell calling `mod._step(...)` is a caller outside the loop too;
    the notebook's outputs (a cell's printed `_step`) are no code."""
    (tmp_path / "mod.py").write_text(PRIVATE_BODIES)
    cells = [{"cell_type": "code", "metadata": {}, "execution_count": 1, "source": ["import mod\n", "mod.run"],
              "outputs": [{"output_type": "stream", "name": "stdout", "text": ["_select _step\n"]}]}]
    page = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "use.ipynb").write_text(json.dumps(page))
    assert _applicability(capsys, tmp_path) == {"AT204": "safe", "AT201": "safe"}
    cells[0]["source"] = ["import mod\n", "mod._select(1, 2), mod._step(1, (0.0, 1.0))"]
    (tmp_path / "use.ipynb").write_text(json.dumps(page))
    assert _applicability(capsys, tmp_path) == {"AT204": "unsafe", "AT201": "unsafe"}


def test_a_module_that_imports_itself_may_call_its_private_bodies(capsys, tmp_path):
    """Review 75: `import selfimp as me` then `me._step(...)`: the module's private body is called
    outside its loop; one file alone shows it."""
    (tmp_path / "selfimp.py").write_text(PRIVATE_BODIES + "\n\ndef peek():\n    import selfimp as me\n    return me._step(1, (0.0, 1.0))\n")
    assert _applicability(capsys, tmp_path / "selfimp.py") == {"AT204": "unsafe", "AT201": "unsafe"}


PATCHED_LOOPS = """\
import jax.numpy as jnp
from jax import lax


def _select(i, buf):
    buf = jnp.where(i % 2 == 0, buf.at[i].set(-1), buf)
    return buf


def run(xs):
    def step(i, carry):
        h, out = carry
        h = h + xs[i]
        out = out.at[i].set(h)
        return h, out

    selected = lax.fori_loop(0, 4, _select, xs)
    h, out = lax.fori_loop(0, 4, step, (0.0, jnp.zeros(4)))
    return selected, h, out


def fill(x, n):
    buf = jnp.zeros(n)
    for t in range(n):
        buf = buf.at[t].set(x * t)
    return buf
"""


@pytest.mark.parametrize("patch, exposed, reason", [
    # review 85: another module rebinds a name the fixes read in the loops' module
    ("import loops\n\nloops.range = lambda *a: [0]\n", {"AT201"}, "stores an attribute `range`"),
    ("import numpy\n\nimport loops\n\nloops.jnp = numpy\n", {"AT102", "AT201", "AT204"}, "stores an attribute `jnp`"),
    # reviews 85-86: a function a fix calls anew or no longer calls is replaced, however the
    # module object is reached: only the fixes that change which calls run are exposed
    ("from jax import lax\n\n_fori = lax.fori_loop\nlax.fori_loop = lambda lo, hi, f, x: _fori(lo, hi - 1, f, x)\n",
     {"AT201"}, "`fori_loop` is stored"),
    ("import jax\n\nm = jax.numpy\n_where = m.where\nm.where = lambda c, a, b: _where(c, a, b) + 0.5\n",
     {"AT204"}, "`where` is stored"),
    ("import jax.numpy as jnp\n\n\ndef patch(mod):\n    mod.stack = lambda xs, *a, **k: jnp.zeros(1)\n\n\npatch(jnp)\n",
     {"AT102"}, "`stack` is stored"),
    ("import jax\n\nobject.__setattr__(jax.numpy, 'stack', len)\n", {"AT102"}, "`stack` is stored"),
    ("from unittest import mock\n\nmock.patch.multiple(jnp_module, stack=len).start()\n", {"AT102"}, "`stack` is stored"),
    # review 87: `jax.numpy` itself replaced, a dunder that changes what calls do, a namespace
    # updated from a table, an attribute deleted: every fix that calls through them
    ("import jax\nimport types\n\njax.numpy = types.ModuleType('fake')\n", {"AT102", "AT201", "AT204"}, "`numpy` is stored"),
    ("import jax.numpy as jnp\n\njnp.stack.__defaults__ = (1, None, None)\n", {"AT102", "AT201", "AT204"}, "names it builds"),
    ("import jax.numpy as jnp\n\ntable = {'sta' + 'ck': len}\njnp.__dict__.update(table)\n", {"AT102", "AT201", "AT204"},
     "names it builds"),
    ("import jax.numpy as jnp\n\ndel jnp.stack\n", {"AT102"}, "`stack` is stored"),
    ("import jax.numpy as jnp\n\nexec('jnp.' + 'stack = len')\n", {"AT102", "AT201", "AT204"}, "names it builds at run time"),
])
def test_a_module_of_the_run_that_rebinds_the_fixes_names_makes_them_unsafe(capsys, tmp_path, patch, exposed, reason):
    """Reviews 85-86: the same three loops get safe fixes until a module of the run stores a name
    into the loops' module that a fix reads anew, or replaces a function a fix calls anew or no
    longer calls; then those fixes, and only those, are unsafe, and the reason says why."""
    (tmp_path / "loops.py").write_text(PATCHED_LOOPS)
    (tmp_path / "other.py").write_text(  # (an annotation's default stores nothing)
        "import jax.numpy as jnp\n\nimport loops\n\nprint(loops.run, loops.fill)\n\n\nclass Config:\n"
        "    dtype: jnp.dtype = jnp.float32\n"
    )
    main(["check", "--no-progress", "--exit-zero", "--output-format", "json", str(tmp_path)])
    found = json.loads(capsys.readouterr().out)
    assert sorted((f["code"], f["fix"]["applicability"]) for f in found) == [("AT102", "safe"), ("AT201", "safe"), ("AT204", "safe")]
    (tmp_path / "patch.py").write_text(patch)
    main(["check", "--no-progress", "--exit-zero", "--output-format", "json", str(tmp_path)])
    found = json.loads(capsys.readouterr().out)
    assert {f["code"]: (f["fix"] or {}).get("applicability") for f in found} == {
        code: "unsafe" if code in exposed else "safe" for code in ("AT102", "AT201", "AT204")
    } or all(f["fix"] is None for f in found if f["code"] in exposed)
    assert all(reason in f.get("details", {}).get("reason", "") for f in found if f["code"] in exposed and f["fix"])


def test_the_run_s_facts_read_in_parallel_are_those_read_in_one_process(capsys, tmp_path):
    """With several workers each file's own facts (its wrappers, stores, patches...) are read in
    parallel and joined in order: the findings, fixes and reasons are those of one process."""
    (tmp_path / "loops.py").write_text(PATCHED_LOOPS)
    (tmp_path / "patch.py").write_text("import jax.numpy as jnp\n\n_where = jnp.where\njnp.where = lambda c, a, b: _where(c, a, b)\n")
    (tmp_path / "other.py").write_text("import loops\n\nloops.jnp = loops.jnp\n")
    outputs = []
    for jobs in ("1", "2"):
        main(["check", "--no-progress", "--exit-zero", "--output-format", "json", "-j", jobs, str(tmp_path)])
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0] == outputs[1] and len(outputs[0]) == 3
    assert {f["code"]: f["fix"]["applicability"] for f in outputs[0]} == {"AT102": "unsafe", "AT201": "unsafe", "AT204": "unsafe"}
