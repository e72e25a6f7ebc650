import jax.numpy as jnp
from jax import lax


def blocks(xs):
    """Per block of rows, the running sums within the block, and the block's total."""
    n_blocks, block, width = xs.shape

    def outer(b, carry):
        totals, sums = carry

        def inner(r, acc):
            running, rows = acc
            running = running + xs[b, r]
            rows = rows.at[r].set(running)
            return running, rows

        total, rows = lax.fori_loop(0, block, inner, (jnp.zeros(width), jnp.zeros((block, width))))
        sums = sums.at[b].set(rows)
        totals = totals.at[b].set(total)
        return totals, sums

    totals, sums = lax.fori_loop(0, n_blocks, outer, (jnp.zeros((n_blocks, width)), jnp.zeros(xs.shape)))
    return totals, sums
