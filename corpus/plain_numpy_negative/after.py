"""Plain NumPy growth: NumPy is not JAX, and autota says nothing about it."""

import jax
import numpy as np


def collect(xs):
    out = np.zeros((0, xs.shape[1]))
    for x in xs:
        out = np.concatenate([out, np.asarray(x)[None]])
    return jax.numpy.asarray(out)
