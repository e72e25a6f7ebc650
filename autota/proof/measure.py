"""``measure``: how a function's cost grows with T, figure by figure.

For each size T and mode (``fwd``: the function; ``grad``: the gradient of the sum of its
float outputs with respect to its float arguments) a :class:`Point` records compile time,
run time, XLA temp/argument/output bytes and the traced equation count. A
:class:`Measurement` fits the exponent of each figure in T (:mod:`autota.proof.fit`).

Whether a function is jitted or called as it is is decided once per function (see
:func:`choose_how`), and recorded in ``Measurement.how`` with the reason in ``note``.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from autota.proof import gradients, timing
from autota.proof.errors import ProofInputError, one_line
from autota.proof.fit import Fit, fit, spread

DEFAULT_SIZES = (64, 128, 256, 512)
MODES = ("fwd", "grad")
FIGURES = ("run_s", "compile_s", "temp_bytes", "argument_bytes", "output_bytes", "eqns")


@dataclass(frozen=True)
class Point:
    """Every figure of one function at one size in one mode. ``spread`` is the relative IQR of
    the timing samples; XLA figures and compile time are ``None`` when run eagerly."""

    size: int
    mode: str
    how: str
    run_s: float
    spread: float
    compile_s: float | None
    temp_bytes: int | None
    argument_bytes: int | None
    output_bytes: int | None
    eqns: int | None


@dataclass(frozen=True)
class Measurement:
    """All points of one function, with the fitted exponent of each figure."""

    name: str
    how: str
    note: str
    points: tuple[Point, ...]

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(p.size for p in self.points))

    @property
    def modes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.mode for p in self.points))

    def values(self, mode: str, figure: str) -> list[Any]:
        """``figure`` at each size of :attr:`sizes` (``None`` where not measured)."""
        by_size = {p.size: getattr(p, figure) for p in self.points if p.mode == mode}
        return [by_size.get(t) for t in self.sizes]

    def fit(self, mode: str, figure: str) -> Fit:
        spreads = None
        if figure == "run_s":
            by_size = {p.size: p.spread for p in self.points if p.mode == mode}
            spreads = [by_size.get(t) for t in self.sizes]
        return fit(self.sizes, self.values(mode, figure), spreads)

    def __str__(self) -> str:
        from autota.proof.render import measurement_table

        return measurement_table(self)


def measure(
    fn: Callable,
    make_args: Callable[[int], tuple],
    sizes: Sequence[int] = DEFAULT_SIZES,
    modes: Sequence[str] = MODES,
    *,
    static_argnums: Sequence[int] = (),
    grad_argnums: Sequence[int] | None = None,
    jit: bool | None = None,
    repeats: int = 5,
    min_time: float = 2e-3,
    name: str | None = None,
    progress: Callable[[], None] | None = None,
) -> Measurement:
    """Measure ``fn(*make_args(T))`` at each size in ``sizes``.

    ``grad_argnums`` picks the arguments differentiated in ``grad`` mode (default: every
    non-static one; ``()`` skips that mode). ``jit=None`` lets :func:`choose_how` decide;
    ``True``/``False`` force it. Each timing is the median of ``repeats`` samples of at least
    ``min_time`` seconds. ``progress`` is called after each size.
    """
    (result,) = measure_together(
        [fn], [name or _name(fn)], make_args, sizes, modes, static_argnums, grad_argnums, jit, repeats, min_time, progress
    )
    return result


def measure_together(
    fns: Sequence[Callable],
    names: Sequence[str],
    make_args: Callable[[int], tuple],
    sizes: Sequence[int],
    modes: Sequence[str],
    static_argnums: Sequence[int],
    grad_argnums: Sequence[int] | None,
    jit: bool | None,
    repeats: int,
    min_time: float,
    progress: Callable[[], None] | None,
) -> list[Measurement]:
    """Measure several functions on the same arguments, their timings interleaved."""
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        raise ProofInputError(f"unknown mode {unknown[0]!r}: choose from {', '.join(MODES)}")
    if not sizes:
        raise ProofInputError("no sizes to measure")
    sizes = tuple(sorted(set(sizes)))
    from autota.jaxpr.api import with_static_argnums

    fns = [with_static_argnums(fn, static_argnums) for fn in fns]
    chosen = [choose_how(fn, make_args, sizes, static_argnums, jit) for fn in fns]
    notes = [[note] if note else [] for _, note in chosen]
    points: list[list[Point]] = [[] for _ in fns]
    for size in sizes:
        args = make_args_at(make_args, size)
        for mode in modes:
            run_fns = fns
            if mode == "grad":
                argnums = gradients.selected_argnums(args, grad_argnums, static_argnums)
                if not gradients.has_float_leaves(args, argnums):
                    _add_once(notes, "grad not measured: no float argument to differentiate")
                    continue
                run_fns = [gradients.grad_fn(fn, argnums) for fn in fns]
            prepared = [timing.prepare(f, args, how, static_argnums) for f, (how, _) in zip(run_fns, chosen)]
            for p in prepared:
                timing.calibrate(p, min_time)
            samples = timing.sample(prepared, repeats)
            for k, (p, times) in enumerate(zip(prepared, samples)):
                points[k].append(
                    Point(size, mode, p.how, statistics.median(times), spread(times), p.compile_s,
                          p.temp_bytes, p.argument_bytes, p.output_bytes, p.eqns)
                )
        if progress is not None:
            progress()
    return [
        Measurement(name, how, "; ".join(note), tuple(pts))
        for name, (how, _), note, pts in zip(names, chosen, notes, points)
    ]


def choose_how(
    fn: Callable,
    make_args: Callable[[int], tuple],
    sizes: Sequence[int],
    static_argnums: Sequence[int],
    jit: bool | None,
) -> tuple[str, str]:
    """``("jit" | "eager", why)``: how ``fn`` is run, decided once for every size.

    A function that cannot be traced runs eagerly. One its user already jitted runs jitted.
    Otherwise, if the traced program grows with T, ``fn`` is a Python loop that its user runs
    op by op; jitting would unroll it into a different program, so it is timed as called.
    """
    if jit is not None:
        return ("jit", "") if jit else ("eager", "eager: asked for")
    small, large = min(sizes), max(sizes)
    eqns_small, why = timing.trace_eqns(fn, make_args_at(make_args, small), static_argnums)
    if eqns_small is None:
        return "eager", f"eager: cannot be jitted ({why})"
    if hasattr(fn, "lower"):
        return "jit", ""
    eqns_large, why = timing.trace_eqns(fn, make_args_at(make_args, large), static_argnums)
    if eqns_large is None:
        return "eager", f"eager: cannot be jitted at T={large} ({why})"
    if eqns_large != eqns_small:
        return "eager", f"eager: Python loop (traced program grows from {eqns_small} to {eqns_large} equations)"
    return "jit", ""


def make_args_at(make_args: Callable[[int], tuple], size: int) -> tuple:
    """``make_args(size)`` as a tuple, its failures reported as bad input."""
    try:
        return tuple(make_args(size))
    except Exception as err:
        raise ProofInputError(f"make_args({size}) raised {one_line(err)}") from err


def _add_once(notes: list[list[str]], note: str) -> None:
    for n in notes:
        if note not in n:
            n.append(note)


def _name(fn: Callable) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__
