"""Velocity-Verlet molecular dynamics that logs observables into a dict of buffers."""

import jax.numpy as jnp
from jax import lax

DT = 0.01
EVERY = 4


def simulate(pos, vel, k_spring):
    n_steps = 16
    log = {
        "energy": jnp.zeros(n_steps),
        "temperature": jnp.zeros(n_steps),
        "positions": jnp.zeros((n_steps // EVERY,) + pos.shape),
    }

    def step(i, carry):
        pos, vel, log = carry
        force = -k_spring * pos
        vel = vel + DT * force
        pos = pos + DT * vel
        kinetic = 0.5 * jnp.sum(vel**2)
        potential = 0.5 * k_spring * jnp.sum(pos**2)
        log["energy"] = log["energy"].at[i].set(kinetic + potential)
        log["temperature"] = log["temperature"].at[i].set(2 * kinetic / (3 * pos.shape[0]))
        # a snapshot every EVERY steps
        log["positions"] = lax.cond(
            i % EVERY == 0,
            lambda p: p.at[i // EVERY].set(pos),
            lambda p: p,
            log["positions"],
        )
        return pos, vel, log

    pos, vel, log = lax.fori_loop(0, n_steps, step, (pos, vel, log))
    return pos, vel, log
