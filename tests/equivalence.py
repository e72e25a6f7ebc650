"""Comparing what two programs compute under real JAX: pytrees, shapes, dtypes, values, gradients."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np


def assert_same_tree(a, b, where: str) -> None:
    """``a`` and ``b`` have one pytree structure and equal leaves (shape, dtype, value)."""
    la, ta = jax.tree_util.tree_flatten(a)
    lb, tb = jax.tree_util.tree_flatten(b)
    assert ta == tb, f"{where}: pytree structure differs: {ta} vs {tb}"
    for i, (x, y) in enumerate(zip(la, lb)):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape, f"{where}[{i}]: shape {x.shape} vs {y.shape}"
        assert x.dtype == y.dtype, f"{where}[{i}]: dtype {x.dtype} vs {y.dtype}"
        if np.issubdtype(x.dtype, np.inexact):
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-6, err_msg=f"{where}[{i}]")
        else:
            np.testing.assert_array_equal(x, y, err_msg=f"{where}[{i}]")


def scalar_loss(fn, argnums, args):
    """The sum of every inexact leaf of ``fn``'s result, as a function of ``args[argnums]``."""

    def loss(*diff):
        full = list(args)
        for n, value in zip(argnums, diff):
            full[n] = value
        leaves = jax.tree_util.tree_leaves(fn(*full))
        inexact = [jnp.sum(leaf) for leaf in leaves if jnp.issubdtype(jnp.result_type(leaf), jnp.inexact)]
        return sum(inexact, jnp.zeros((), jnp.float32))  # zero for integer-only results

    return loss


def load_module(path: Path, name: str):
    """The module in the file ``path``, imported under ``name`` (fresh: not put in ``sys.modules``)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def outcome(function, args):
    """What ``function(*args)`` returns, or the exception it raises: an error is part of what a
    program computes, and one that becomes a value (or another error) is a change."""
    try:
        return function(*args)
    except Exception as error:  # noqa: BLE001 - the error is the result being compared
        return error
