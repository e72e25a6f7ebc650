"""Growth through aliased imports: names resolve by what they are, not how they are spelled."""

from jax.numpy import concatenate as cat
import jax.numpy as np  # jax.numpy under NumPy's usual name


def features(xs):
    rows = np.zeros((0, xs.shape[1] * 2))
    rows_parts = []
    for x in xs:
        row = cat([np.sin(x), np.cos(x)])
        rows_parts.append(np.copy(np.squeeze(row[None], ())))
    if rows_parts:
        if not np.asarray(rows).aval.weak_type and np.result_type(np.asarray(rows), *rows_parts) == np.asarray(rows).dtype:
            rows = cat([rows, *rows_parts])
        else:  # a piece widens the dtype part-way: grow step by step, as the loop did
            for rows_part in rows_parts:
                rows = cat([rows, rows_part])  # noqa: AT101 - only where the dtype widens
    return rows
