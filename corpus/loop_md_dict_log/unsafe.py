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

    def step(carry, i):
        pos, vel, log = carry
        force = -k_spring * pos
        vel = vel + DT * force
        pos = pos + DT * vel
        kinetic = 0.5 * jnp.sum(vel**2)
        potential = 0.5 * k_spring * jnp.sum(pos**2)
        log_energy_row = kinetic + potential
        log_temperature_row = 2 * kinetic / (3 * pos.shape[0])
        # a snapshot every EVERY steps
        log["positions"] = lax.cond(
            i % EVERY == 0,
            lambda p: p.at[i // EVERY].set(pos),
            lambda p: p,
            log["positions"],
        )
        return (pos, vel, log), (log_energy_row, log_temperature_row)

    (pos, vel, log), (log_energy_rows, log_temperature_rows) = lax.scan(
        step,
        (pos, vel, log),
        jnp.arange(0, n_steps),
    )
    if log["temperature"].shape[0] == 0:  # the loop's `.at[i].set` raised this while tracing
        jnp.result_type(log["temperature"], log_temperature_rows)  # as the write, promote first
        raise IndexError("index is out of bounds for axis 0 with size 0")
    log_temperature_rows = log_temperature_rows.astype(log["temperature"].dtype) if jnp.issubdtype(log["temperature"].dtype, jnp.inexact) and jnp.can_cast(log["temperature"].dtype, jnp.result_type(log["temperature"], log_temperature_rows)) else log_temperature_rows
    log["temperature"] = log["temperature"].at[jnp.arange(log_temperature_rows.shape[0])].set(
        jnp.expand_dims(
            log_temperature_rows,
            tuple(range(1, 1 + log["temperature"].ndim - log_temperature_rows.ndim)),
        )
    )
    if log["energy"].shape[0] == 0:  # the loop's `.at[i].set` raised this while tracing
        jnp.result_type(log["energy"], log_energy_rows)  # as the write, promote first
        raise IndexError("index is out of bounds for axis 0 with size 0")
    log_energy_rows = log_energy_rows.astype(log["energy"].dtype) if jnp.issubdtype(log["energy"].dtype, jnp.inexact) and jnp.can_cast(log["energy"].dtype, jnp.result_type(log["energy"], log_energy_rows)) else log_energy_rows
    log["energy"] = log["energy"].at[jnp.arange(log_energy_rows.shape[0])].set(
        jnp.expand_dims(
            log_energy_rows,
            tuple(range(1, 1 + log["energy"].ndim - log_energy_rows.ndim)),
        )
    )
    return pos, vel, log
