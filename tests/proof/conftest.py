"""Fixtures for the proof tests: the accumulation patterns of ``benchmarks/proof_patterns.py``
and throwaway corpus cases written to temporary folders."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def patterns():
    """The before/after pattern pairs, loaded from the benchmark that runs them at full size."""
    from tests.equivalence import load_module

    return load_module(ROOT / "benchmarks" / "proof_patterns.py", "autota_proof_patterns")


def write_case(root: Path, name: str, before: str, after: str, inputs: str, toml: str) -> Path:
    """A corpus case folder under ``root``."""
    case = root / name
    case.mkdir(parents=True)
    (case / "before.py").write_text(textwrap.dedent(before))
    (case / "after.py").write_text(textwrap.dedent(after))
    (case / "inputs.py").write_text(textwrap.dedent(inputs))
    (case / "case.toml").write_text(textwrap.dedent(toml))
    return case


BEFORE = """
    import jax.numpy as jnp


    def grow(x):
        out = jnp.zeros((0, x.shape[1]), x.dtype)
        for i in range(x.shape[0]):
            out = jnp.concatenate([out, jnp.tanh(x[i : i + 1])])
        return out
"""

AFTER = """
    import jax.numpy as jnp


    def grow(x):
        rows = [jnp.tanh(x[i : i + 1]) for i in range(x.shape[0])]
        return jnp.concatenate([jnp.zeros((0, x.shape[1]), x.dtype), *rows])
"""

WRONG_AFTER = """
    import jax.numpy as jnp


    def grow(x):
        rows = [jnp.tanh(x[i : i + 1]) * 1.01 for i in range(x.shape[0])]
        return jnp.concatenate([jnp.zeros((0, x.shape[1]), x.dtype), *rows])
"""

INPUTS = """
    import numpy as np


    def make_args(T):
        return (np.random.default_rng(0).normal(size=(T, 8)).astype(np.float32),)
"""

TOML = """
    summary = "eager concat growth"
    entry = "grow"
    expect = []
    sizes = [0, 1, 4]
    bench_sizes = [4, 8, 16]
    grad_argnums = [0]
"""


@pytest.fixture
def good_corpus(tmp_path):
    write_case(tmp_path, "grow_ok", BEFORE, AFTER, INPUTS, TOML)
    return tmp_path


@pytest.fixture
def bad_corpus(tmp_path):
    write_case(tmp_path, "grow_ok", BEFORE, AFTER, INPUTS, TOML)
    write_case(tmp_path, "grow_wrong", BEFORE, WRONG_AFTER, INPUTS, TOML)
    return tmp_path
