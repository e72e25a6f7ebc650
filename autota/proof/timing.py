"""Run one function on one set of arguments the way it will be measured, and time it.

Two ways to run a function:

* ``jit``: trace, lower and compile once (that is the compile time), read XLA's
  ``memory_analysis`` (temp, argument and output bytes: deterministic), then time the
  compiled executable;
* ``eager``: call the function itself. This is how code with a Python loop that grows an
  array runs for its user; jitting it would unroll the loop and time a different program.
  XLA memory figures do not exist then and are ``None``.

Timings are medians of several samples after a warm-up, each sample long enough (several
calls if one is short) that the clock's resolution does not matter. :func:`sample` takes
samples of several prepared functions in alternation, so that a slow spell of a shared
machine hits all of them alike and their ratio stays meaningful.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import jax

from autota.proof.errors import one_line
from autota.jaxpr.jaxcompat import count_equations

@dataclass
class Prepared:
    """A function bound to its arguments, compiled if jitted, ready to be timed."""

    how: str
    call: Callable[[], Any]
    compile_s: float | None
    temp_bytes: int | None
    argument_bytes: int | None
    output_bytes: int | None
    eqns: int | None
    number: int = 1  # calls per timing sample, set by calibrate()


def trace_eqns(fn: Callable, args: tuple, static_argnums: Sequence[int]) -> tuple[int | None, str]:
    """Equation count of ``fn``'s program as ``jit`` traces it, or ``None`` and why it cannot be
    traced (Python control flow on values, NumPy calls on arrays...)."""
    try:
        traced = jax.jit(fn, static_argnums=_static(args, static_argnums)).trace(*args)
    except Exception as err:
        return None, one_line(err)
    return count_equations(traced.jaxpr.jaxpr), ""


def _static(args: tuple, static_argnums: Sequence[int]) -> tuple[int, ...]:
    return tuple(sorted({i % len(args) for i in static_argnums})) if args else ()


def prepare(fn: Callable, args: tuple, how: str, static_argnums: Sequence[int]) -> Prepared:
    """Bind ``fn`` to ``args``; for ``how="jit"``, compile it and read its XLA figures."""
    static = _static(args, static_argnums)
    if how == "eager":

        def call_eager():
            return jax.block_until_ready(fn(*args))

        return Prepared("eager", call_eager, None, None, None, None, trace_eqns(fn, args, static)[0])

    start = time.perf_counter()
    traced = jax.jit(fn, static_argnums=static).trace(*args)
    compiled = traced.lower().compile()
    compile_s = time.perf_counter() - start
    dynamic = tuple(a for i, a in enumerate(args) if i not in static)
    memory = _memory(compiled)

    def call_compiled():
        return jax.block_until_ready(compiled(*dynamic))

    return Prepared("jit", call_compiled, compile_s, *memory, count_equations(traced.jaxpr.jaxpr))


def _memory(compiled) -> tuple[int | None, int | None, int | None]:
    try:
        stats = compiled.memory_analysis()
    except Exception:  # not every backend reports it
        stats = None
    if stats is None:
        return None, None, None
    return (
        int(stats.temp_size_in_bytes),
        int(stats.argument_size_in_bytes),
        int(stats.output_size_in_bytes),
    )


def calibrate(prepared: Prepared, min_time: float) -> None:
    """Warm up (the first call may compile or fill caches), then choose how many calls make a
    sample of at least ``min_time`` seconds."""
    prepared.call()
    start = time.perf_counter()
    prepared.call()
    once = max(time.perf_counter() - start, 1e-9)
    prepared.number = max(1, math.ceil(min_time / once))


def sample(prepared: Sequence[Prepared], repeats: int) -> list[list[float]]:
    """``repeats`` per-call times for each prepared function, taken in alternation (the order
    flips every round so neither always runs first)."""
    times: list[list[float]] = [[] for _ in prepared]
    order = list(range(len(prepared)))
    for _ in range(repeats):
        for k in order:
            p = prepared[k]
            start = time.perf_counter()
            for _ in range(p.number):
                p.call()
            times[k].append((time.perf_counter() - start) / p.number)
        order.reverse()
    return times


def side_by_side(fns: dict[str, Callable], args: tuple, repeats: int = 5, min_time: float = 2e-3):
    """``{name: (median seconds per call, XLA temp bytes)}`` for functions jitted on the same
    arguments and timed in alternation, so that their ratios hold on a noisy machine."""
    prepared = {name: prepare(fn, args, "jit", ()) for name, fn in fns.items()}
    for p in prepared.values():
        calibrate(p, min_time)
    times = sample(list(prepared.values()), repeats)
    return {
        name: (sorted(t)[len(t) // 2], p.temp_bytes) for (name, p), t in zip(prepared.items(), times)
    }
