"""The gradient both ``verify`` and ``measure`` take: of a scalar reduction of the outputs with
respect to the floating-point leaves of the arguments.

Differentiating leaf by leaf (rather than whole arguments) lets an argument mix float arrays
with integers or Python values: only the float leaves are perturbed, the rest is held fixed.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp


def is_float_leaf(leaf: Any) -> bool:
    """A real floating-point array (NumPy, JAX or a tracer); Python floats stay constants."""
    dtype = getattr(leaf, "dtype", None)
    return hasattr(leaf, "shape") and dtype is not None and jnp.issubdtype(dtype, jnp.floating)


def selected_argnums(args: tuple, argnums: Sequence[int] | None, static_argnums: Sequence[int]) -> tuple[int, ...]:
    """The argument positions to differentiate: ``argnums``, or every non-static one."""
    n = len(args)
    static = {i % n for i in static_argnums} if n else set()
    chosen = range(n) if argnums is None else (i % n for i in argnums)
    return tuple(i for i in chosen if i not in static)


def float_leaf_names(args: tuple, argnums: Sequence[int]) -> list[str]:
    """Readable names (``arg0['w']``) of the leaves :func:`grad_fn` differentiates, in order."""
    names = []
    for i in argnums:
        for path, leaf in jax.tree_util.tree_flatten_with_path(args[i])[0]:
            if is_float_leaf(leaf):
                names.append(f"arg{i}{jax.tree_util.keystr(path)}")
    return names


def reduce_outputs(out: Any, weighted: bool) -> jax.Array:
    """Sum of every float output leaf, as float32 or wider.

    ``weighted`` multiplies each leaf by fixed, position-dependent weights first, so that a
    rewrite that permutes or mislabels outputs changes the gradient, not only the values.
    """
    total = jnp.zeros((), jnp.float32)
    for k, leaf in enumerate(jax.tree_util.tree_leaves(out)):
        if not is_float_leaf(leaf):
            continue
        leaf = jnp.asarray(leaf)
        wide = leaf.astype(jnp.promote_types(leaf.dtype, jnp.float32))
        if weighted:
            w = jnp.cos(0.7 * jnp.arange(leaf.size, dtype=wide.dtype) + k).reshape(leaf.shape)
            wide = wide * w
        total = total + jnp.sum(wide)
    return total


def grad_fn(fn: Callable, argnums: Sequence[int], weighted: bool = False) -> Callable:
    """``g(*args)``: the gradients of ``reduce_outputs(fn(*args))`` with respect to the float
    leaves of ``args[i]`` for ``i`` in ``argnums``, as a flat tuple ordered as
    :func:`float_leaf_names`. ``g`` has ``fn``'s signature, so it can be jitted with the same
    static arguments."""

    def g(*args):
        slots = []  # (argnum, treedef, leaves, positions of float leaves)
        wrt = []
        for i in argnums:
            leaves, treedef = jax.tree_util.tree_flatten(args[i])
            positions = [j for j, leaf in enumerate(leaves) if is_float_leaf(leaf)]
            slots.append((i, treedef, leaves, positions))
            wrt.extend(leaves[j] for j in positions)

        def scalar(values):
            full = list(args)
            it = iter(values)
            for i, treedef, leaves, positions in slots:
                leaves = list(leaves)
                for j in positions:
                    leaves[j] = next(it)
                full[i] = jax.tree_util.tree_unflatten(treedef, leaves)
            return reduce_outputs(fn(*full), weighted)

        return tuple(jax.grad(scalar)([jnp.asarray(v) for v in wrt]))

    return g


def has_float_leaves(args: tuple, argnums: Sequence[int]) -> bool:
    return bool(float_leaf_names(args, argnums))


__all__ = ["float_leaf_names", "grad_fn", "has_float_leaves", "is_float_leaf", "reduce_outputs", "selected_argnums"]
