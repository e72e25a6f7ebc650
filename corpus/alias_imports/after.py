"""Growth through aliased imports: names resolve by what they are, not how they are spelled."""

from jax.numpy import concatenate as cat
import jax.numpy as np  # jax.numpy under NumPy's usual name


def features(xs):
    rows = np.zeros((0, xs.shape[1] * 2))
    rows_parts = []
    for x in xs:
        row = cat([np.sin(x), np.cos(x)])
        rows_parts.append(row[None])
    if rows_parts:
        rows = cat([rows, *rows_parts])
    return rows
