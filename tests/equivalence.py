"""Comparing what two programs compute under real JAX: pytrees, shapes, dtypes, values, gradients."""

from __future__ import annotations

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
