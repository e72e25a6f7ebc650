import jax.numpy as jnp
from jax import lax


def running_stats(x):
    """Exponential moving average over x [T, F], with a counter and a dict carry."""
    T, F = x.shape

    def step(carry, xt):
        i = carry["i"]
        mean = 0.9 * carry["mean"] + 0.1 * xt
        history = carry["history"].at[i].set(mean)
        return {"i": i + 1, "mean": mean, "history": history}, mean.sum()

    init = {"i": 0, "mean": jnp.zeros(F), "history": jnp.zeros((T, F))}
    final, totals = lax.scan(step, init, x)
    return final["history"], totals
