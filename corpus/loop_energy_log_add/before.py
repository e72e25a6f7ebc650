"""A driven leapfrog oscillator that adds each step's energy into a preallocated log."""

import jax.numpy as jnp
from jax import lax


def simulate(x0, v0, k, kicks):
    dt = 0.01
    n_steps = kicks.shape[0]

    def step(t, state):
        x, v, energies = state
        v = v + dt * (kicks[t] - k * x)
        x = x + dt * v
        energies = energies.at[t].add(0.5 * jnp.sum(v**2) + 0.5 * k * jnp.sum(x**2))
        return x, v, energies

    energies = jnp.zeros(n_steps)
    x, v, energies = lax.fori_loop(0, n_steps, step, (x0, v0, energies))
    return x, v, energies
