import jax.numpy as jnp
from jax import lax


def blocks(xs):
    """Per block of rows, the running sums within the block, and the block's total."""
    n_blocks, block, width = xs.shape

    def outer(carry, b):
        del carry

        def inner(acc, r):
            running = acc
            running = running + xs[b, r]
            rows_dtype = jnp.result_type(rows_init, jnp.asarray(running))
            rows_row = lax.stop_gradient(rows_init)[r].at[...].set(running)
            rows_row = rows_row if rows_row.dtype == rows_dtype or jnp.issubdtype(rows_row.dtype, jnp.inexact) and jnp.can_cast(rows_row.dtype, rows_dtype) else rows_row.astype(rows_dtype)
            return running, rows_row

        running_init = jnp.zeros(width)
        rows_init = jnp.zeros((block, width))
        total, rows_rows = lax.scan(inner, running_init, jnp.arange(0, block))
        rows = rows_init.at[jnp.arange(rows_rows.shape[0])].set(
            jnp.expand_dims(
                rows_rows,
                tuple(range(1, 1 + rows_init.ndim - rows_rows.ndim)),
            )
        )
        sums_dtype = jnp.result_type(sums_init, jnp.asarray(rows))
        sums_row = lax.stop_gradient(sums_init)[b].at[...].set(rows)
        sums_row = sums_row if sums_row.dtype == sums_dtype or jnp.issubdtype(sums_row.dtype, jnp.inexact) and jnp.can_cast(sums_row.dtype, sums_dtype) else sums_row.astype(sums_dtype)
        totals_dtype = jnp.result_type(totals_init, jnp.asarray(total))
        totals_row = lax.stop_gradient(totals_init)[b].at[...].set(total)
        totals_row = totals_row if totals_row.dtype == totals_dtype or jnp.issubdtype(totals_row.dtype, jnp.inexact) and jnp.can_cast(totals_row.dtype, totals_dtype) else totals_row.astype(totals_dtype)
        return None, (sums_row, totals_row)

    totals_init = jnp.zeros((n_blocks, width))
    sums_init = jnp.zeros(xs.shape)
    _, (sums_rows, totals_rows) = lax.scan(outer, None, jnp.arange(0, n_blocks))
    totals = totals_init.at[jnp.arange(totals_rows.shape[0])].set(
        jnp.expand_dims(
            totals_rows,
            tuple(range(1, 1 + totals_init.ndim - totals_rows.ndim)),
        )
    )
    sums = sums_init.at[jnp.arange(sums_rows.shape[0])].set(
        jnp.expand_dims(sums_rows, tuple(range(1, 1 + sums_init.ndim - sums_rows.ndim)))
    )
    return totals, sums
