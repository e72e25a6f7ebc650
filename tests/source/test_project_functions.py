"""The text tests that decide which files the project pass reads (:func:`wrappers.may_define`,
:func:`growers.may_define`) lose no loop wrapper or grower that reading every file finds."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from autota.source import growers, wrappers

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
