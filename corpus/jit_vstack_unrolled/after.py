"""Particle positions logged with vstack inside a jitted simulation: unrolled at trace time."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=2)
def simulate(x, v, steps, dt=0.01):
    trajectory = x[None]
    trajectory_parts = []
    for _ in range(steps):
        v = v - dt * x
        x = x + dt * v
        trajectory_parts.append(jnp.copy(jnp.vstack([x[None]])))
    if trajectory_parts:
        if not jnp.asarray(trajectory).aval.weak_type and jnp.result_type(jnp.asarray(trajectory), *trajectory_parts) == jnp.asarray(trajectory).dtype:
            trajectory = jnp.vstack([trajectory, *trajectory_parts])
        else:  # a piece widens the dtype part-way: grow step by step, as the loop did
            for trajectory_part in trajectory_parts:
                trajectory = jnp.vstack([trajectory, trajectory_part])  # noqa: AT101 - only where the dtype widens
    return trajectory
