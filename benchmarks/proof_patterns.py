"""The accumulation patterns whose cost ``autota.proof`` must get right, before and after.

``tests/proof`` measures them at small sizes; run this file to measure them at full sizes::

    python benchmarks/proof_patterns.py            # all patterns
    python benchmarks/proof_patterns.py fori_grad  # one

Each pattern is ``(before, after, make_args(T), modes, full sizes)``.
"""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import numpy as np

ROW = 16384
"""Row width of the eager concat pattern: wide enough that copying, not Python dispatch,
dominates each step, so the quadratic shows at small T."""

WIDTH = 64


def concat_before(x):
    """Eager growth: every step copies everything so far, O(T^2) bytes moved."""
    out = x[:0]
    for i in range(x.shape[0]):
        out = jnp.concatenate([out, x[i : i + 1]])
    return out


def concat_after(x):
    """Collect the rows in a Python list and concatenate once: O(T)."""
    return jnp.concatenate([x[i : i + 1] for i in range(x.shape[0])])


def concat_args(T):
    return (jnp.asarray(np.random.default_rng(0).normal(size=(T, ROW)), jnp.float32),)


def fori_before(x):
    """A ``fori_loop`` writing one row per step into a carried (T, d) buffer; under ``grad`` the
    buffer's cotangent is carried through every backward step."""
    T, d = x.shape

    def body(i, carry):
        h, buf = carry
        h = jnp.tanh(h + x[i])
        return h, buf.at[i].set(h)

    _, buf = jax.lax.fori_loop(0, T, body, (jnp.zeros(d, x.dtype), jnp.zeros((T, d), x.dtype)))
    return buf


def fori_after(x):
    """The same recurrence as a ``scan`` that emits each row as an output."""

    def step(h, xi):
        h = jnp.tanh(h + xi)
        return h, h

    return jax.lax.scan(step, jnp.zeros(x.shape[1], x.dtype), x)[1]


def reads_before(x):
    """A loop body that reads its whole buffer (nonlinearly): reverse mode must keep the buffer
    of every step, T buffers of size T, so temp memory grows as T^2."""
    T, d = x.shape

    def body(i, buf):
        return buf.at[i].set(jnp.tanh(x[i] + jnp.mean(jnp.tanh(buf), axis=0)))

    return jax.lax.fori_loop(0, T, body, jnp.zeros((T, d), x.dtype))


def reads_after(x):
    """The same values with a running sum of ``tanh`` of the rows written so far: O(T)."""
    T, d = x.shape

    # Rows not yet written are zero and tanh(0) = 0, so the buffer's mean is (running sum) / T.
    def step(s, xi):
        row = jnp.tanh(xi + s / T)
        return s + jnp.tanh(row), row

    return jax.lax.scan(step, jnp.zeros(d, x.dtype), x)[1]


def rows_args(T):
    return (jnp.asarray(np.random.default_rng(1).normal(size=(T, WIDTH)) * 0.1, jnp.float32),)


PATTERNS = {
    "eager_concat": (concat_before, concat_after, concat_args, ("fwd",), (64, 128, 256, 512)),
    "fori_grad": (fori_before, fori_after, rows_args, ("fwd", "grad"), (256, 512, 1024, 2048, 4096)),
    "reads_buffer": (reads_before, reads_after, rows_args, ("fwd", "grad"), (64, 128, 256, 512, 1024)),
}


def main(names: list[str]) -> int:
    from autota.proof import compare

    for name in names or PATTERNS:
        before, after, make_args, modes, sizes = PATTERNS[name]
        print(f"== {name}")
        print(compare(before, after, make_args, sizes, modes, repeats=7))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
