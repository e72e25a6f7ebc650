"""``residuals``: what reverse mode saves, loop by loop, before and after ``autota.transform``.

``jax.grad`` runs a function forward once and keeps *residuals*, the values its backward pass
needs. A loop keeps them per step, stacked along a new leading axis, so a step that saves an
array the size of a buffer of length T saves O(T^2) in all. JAX's own
``jax.ad_checkpoint.print_saved_residuals`` lists them for a whole function; this module reads
the same forward pass (the jaxpr of ``jax.vjp``) and attributes each residual to the loop whose
stacked outputs hold it, with the primitive and the user's source line that produced it.

* :func:`residuals` reports one size: the residuals of ``fn`` and of ``autota.transform(fn)``,
  which rule removes each, and XLA's own figures (``memory_analysis`` of ``jit(grad)`` and of
  the compiled forward pass) to tie the table to what runs.
* :func:`residual_growth` fits how each loop's residual bytes grow with T, so that "this loop
  saves O(T^2)" is a measured statement; it also fits the loop's carry, which is where the
  quadratic *time* of a carried buffer comes from (its cotangent is carried back and copied
  every step) when its residuals are only O(T).
"""

from __future__ import annotations

import dataclasses
import linecache
import math
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import jax

from autota.jaxpr import ir
from autota.jaxpr import jaxcompat as jc
from autota.proof import gradients, timing
from autota.proof.errors import ProofInputError, one_line
from autota.proof.fit import Fit, fit
from autota.proof.render import human, markdown_table, text_table

STEP = "step"
"""A residual saved at every step of a loop (a stacked output of the forward scan)."""
ONCE = "once"
"""A residual saved once (outside loops, or a loop's final carry)."""

MATCH_TOLERANCE = 0.01
"""Largest relative difference allowed between the residual bytes read from the jaxpr and the
output bytes XLA's ``memory_analysis`` reports for the compiled forward pass, which outputs
the same arrays (one buffer per output, a repeated residual twice) plus the output tuple's
table of :data:`POINTER_BYTES` per output."""

POINTER_BYTES = 8
"""Bytes XLA counts per output for the output tuple's table of buffer pointers (where there
is more than one output)."""


# -- the report --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Residual:
    """One saved array. For a loop residual ``shape`` is the shape saved per step (the stacked
    array without its leading loop axis) and ``bytes`` its bytes per step; ``total_bytes`` is
    the whole array. ``producer`` is the primitive that computed it, or where it comes from
    (``argument``, ``loop carry``, ``loop input``)."""

    shape: tuple
    dtype: str
    kind: str
    bytes: int
    total_bytes: int
    producer: str
    source: str | None
    removed_by: tuple = ()

    @property
    def type(self) -> str:
        return _type(self.dtype, self.shape)

    @property
    def key(self) -> tuple:
        """What identifies a residual across programs: its producer, line, dtype and shape."""
        return (self.producer, self.source, self.dtype, self.shape)


@dataclass(frozen=True)
class Loop:
    """One loop of the forward pass (a ``scan``; ``fori_loop`` with static bounds is one)."""

    source: str | None
    length: int
    carry: tuple  # (type, bytes) of each carried value
    residuals: tuple[Residual, ...]
    findings: tuple = ()  # LoopFinding of autota.analyze at this loop

    @property
    def carry_bytes(self) -> int:
        return sum(b for _, b in self.carry)

    @property
    def bytes_per_step(self) -> int:
        return sum(r.bytes for r in self.residuals if r.kind == STEP)

    @property
    def total_bytes(self) -> int:
        return sum(r.total_bytes for r in self.residuals)

    @property
    def label(self) -> str:
        return f"loop at {short(self.source)}"


@dataclass(frozen=True)
class Program:
    """The residuals of one program (before or after the transform) and XLA's figures for it.

    ``grad_temp_bytes`` is ``memory_analysis().temp_size_in_bytes`` of ``jit(grad)``;
    ``forward_output_bytes`` the output bytes of the compiled forward pass, which are the
    residuals themselves: the check that the table counts what XLA keeps."""

    loops: tuple[Loop, ...]
    outside: tuple[Residual, ...]
    arguments: tuple[Residual, ...]
    output_bytes: int = 0
    """The residuals as the forward pass outputs them: every output, repeats included."""
    outputs: int = 0
    grad_temp_bytes: int | None = None
    forward_output_bytes: int | None = None

    @property
    def total_bytes(self) -> int:
        """Residual bytes beyond the arguments (which are in memory anyway)."""
        return sum(loop.total_bytes for loop in self.loops) + sum(r.total_bytes for r in self.outside)

    @property
    def xla_mismatch(self) -> float | None:
        """Relative difference between the residuals' :attr:`output_bytes` (with the output
        tuple's pointer table) and XLA's forward output bytes."""
        if self.forward_output_bytes is None:
            return None
        table = POINTER_BYTES * self.outputs if self.outputs > 1 else 0  # one output is no tuple
        expected = self.output_bytes + table
        return abs(expected - self.forward_output_bytes) / max(self.forward_output_bytes, 1)

    def replace(self, **changes) -> "Program":
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class ResidualReport:
    """What ``grad`` of ``name`` saves at one size, before and after ``autota.transform``."""

    name: str
    rules: tuple[str, ...]
    before: Program
    after: Program | None
    findings: tuple = ()
    after_error: str | None = None

    def __str__(self) -> str:
        return render(self)

    def markdown(self) -> str:
        return render(self, markdown=True)


# -- reading the forward pass ------------------------------------------------------------------


def _nbytes(aval) -> int:
    return math.prod(int(d) for d in aval.shape) * int(getattr(aval.dtype, "itemsize", 0) or 0)


def _dtype(aval) -> str:
    return str(getattr(aval.dtype, "name", aval.dtype))


def _type(dtype: str, shape: Sequence[int]) -> str:
    """``float32[16,4]``, as the tables print an array type."""
    return f"{dtype}[{','.join(str(d) for d in shape)}]"


@dataclass
class _Reader:
    """Follows a residual back to the equation that computed it, through calls and loops."""

    cache: dict = field(default_factory=dict)

    def ir(self, jaxpr) -> ir.Body:
        entry = self.cache.get(id(jaxpr))
        if entry is None or entry[0] is not jaxpr:
            entry = (jaxpr, ir.from_jaxpr(jaxpr))
            self.cache[id(jaxpr)] = entry
        return entry[1]

    def origin(self, body: ir.Body, atom, scan_role: dict | None = None) -> tuple[str, str | None]:
        """``(producer, source)`` of ``atom`` in ``body``. ``scan_role`` names the body's inputs
        when ``body`` is a loop body (``loop carry``, ``loop input``, ``loop constant``); the
        source of such an input is the first line of the body that reads it, which is why it
        is saved."""
        for _ in range(1000):  # a chain through calls; never cyclic, bounded for safety
            if isinstance(atom, ir.Lit):
                return "literal", None
            if atom in body.invars:
                if scan_role is not None:
                    reader = next((e for e in body.eqns if atom in e.ins and e.source), None)
                    return scan_role.get(body.invars.index(atom), "loop input"), reader.source if reader else None
                return "argument", None
            if atom in body.constvars:
                return "constant", None
            eqn = body.producers.get(atom)
            if eqn is None:
                return "unknown", None
            k = eqn.outs.index(atom)
            layout = _scan(eqn)
            if layout is not None:
                inner = self.ir(layout.body)
                producer, source = self.origin(inner, inner.outvars[k], _roles(layout, len(eqn.ins)))
                return producer, source or eqn.source
            sub = jc.call_body(eqn.name, eqn.params)
            if sub is None:
                constant = bool(eqn.ins) and all(isinstance(a, ir.Lit) for a in eqn.ins)
                return (f"{eqn.name} (constant)" if constant else eqn.name), eqn.source
            inner = self.ir(sub)
            if k >= len(inner.outvars):
                return eqn.name, eqn.source
            target = inner.outvars[k]
            if isinstance(target, ir.Var) and target in inner.invars and inner.invars.index(target) < len(eqn.ins):
                atom = eqn.ins[inner.invars.index(target)]  # passed through the call: follow its operand
                continue
            producer, source = self.origin(inner, target)
            return producer, source or eqn.source
        return "unknown", None  # pragma: no cover


def _scan(eqn) -> jc.ScanParams | None:
    """The layout of a ``scan`` equation; ``None`` for any other equation, and for a scan whose
    layout this JAX release spells in a way not known (it then counts as one primitive)."""
    if eqn is None or eqn.name != jc.SCAN:
        return None
    try:
        return jc.scan_params(eqn.params)
    except jc.UnknownLayout:
        return None


def _roles(layout: jc.ScanParams, n_ins: int) -> dict:
    roles = {}
    for j in range(n_ins):
        if j < layout.num_consts:
            roles[j] = "loop constant"
        elif j < layout.num_consts + layout.num_carry:
            roles[j] = "loop carry"
        else:
            roles[j] = "loop input"
    return roles


def read_program(fun: Callable, wrt: Sequence[Any], arg_names: Sequence[str]) -> Program:
    """The residuals of ``jax.vjp(fun, *wrt)``, attributed to loops, without XLA's figures."""
    try:
        closed, n_out, _ = jc.vjp_forward(fun, *wrt)
    except Exception as err:  # a while_loop, a callback without a VJP...: grad cannot be taken
        name = getattr(fun, "__autota_name__", "the function")
        raise ProofInputError(f"cannot differentiate {name}: {one_line(err)}") from err
    reader = _Reader()
    body = reader.ir(closed)
    seen: set = set()
    by_loop: dict = {}
    outside, arguments = [], []
    outvars = body.outvars[n_out:]
    output_bytes = sum(_nbytes(a.aval) for a in outvars)
    for atom in outvars:
        if isinstance(atom, ir.Lit) or atom in seen:
            continue
        seen.add(atom)
        eqn = body.producers.get(atom)
        layout = _scan(eqn)
        total = _nbytes(atom.aval)
        if layout is not None:
            k = eqn.outs.index(atom)
            inner = reader.ir(layout.body)
            producer, source = reader.origin(inner, inner.outvars[k], _roles(layout, len(eqn.ins)))
            source = source or eqn.source
            stacked = k >= layout.num_carry
            shape = tuple(atom.aval.shape[1:]) if stacked else tuple(atom.aval.shape)
            per_step = total // max(layout.length, 1) if stacked else total
            if not stacked:
                producer = f"final {producer}" if producer.startswith("loop") else producer
            by_loop.setdefault(id(eqn), []).append(
                Residual(shape, _dtype(atom.aval), STEP if stacked else ONCE, per_step, total, producer, source)
            )
            continue
        producer, source = reader.origin(body, atom)
        residual = Residual(tuple(atom.aval.shape), _dtype(atom.aval), ONCE, total, total, producer, source)
        if producer == "argument":
            index = body.invars.index(atom)
            name = arg_names[index] if index < len(arg_names) else f"argument {index}"
            arguments.append(dataclasses.replace(residual, source=name))
        else:
            outside.append(residual)
    loops = []
    for eqn in body.eqns:
        layout = _scan(eqn)
        if layout is None:
            continue
        carry_vars = eqn.ins[layout.num_consts : layout.num_consts + layout.num_carry]
        carry = tuple((_type(_dtype(v.aval), v.aval.shape), _nbytes(v.aval)) for v in carry_vars)
        loops.append(Loop(eqn.source, layout.length, carry, tuple(by_loop.get(id(eqn), ()))))
    return Program(tuple(loops), tuple(outside), tuple(arguments), output_bytes, len(outvars))


# -- XLA's figures -----------------------------------------------------------------------------


def xla_figures(fun: Callable, wrt: Sequence[Any]) -> tuple[int | None, int | None]:
    """``(temp bytes of jit(grad), output bytes of the jitted forward pass)`` from
    ``compiled.memory_analysis()``; ``None`` where the backend does not report them."""

    def forward(*a):
        return jax.tree_util.tree_leaves(jax.vjp(fun, *a)[1])

    grad = gradients.grad_fn(fun, tuple(range(len(wrt))))
    wrt = tuple(wrt)
    return timing.prepare(grad, wrt, "jit", ()).temp_bytes, timing.prepare(forward, wrt, "jit", ()).output_bytes


# -- before and after --------------------------------------------------------------------------


def _split(fn: Callable, args: tuple) -> tuple[Callable, Callable, tuple[str, ...]]:
    """``(original, transformed, rules)``: ``fn`` may be ``autota.transform(f, rules=...)``,
    whose rules and static arguments are then the ones used; otherwise every rule the
    transform supports is, and Python ``int``/``bool`` arguments are static (the gradient
    holds them fixed as Python values too)."""
    from autota.jaxpr import api

    traced = getattr(fn, "__autota_traced__", None)
    if traced is not None:
        return traced.fn, fn, tuple(sorted(traced.enabled))
    rules = tuple(sorted(api.SUPPORTED))
    static = tuple(i for i, a in enumerate(args) if isinstance(a, (bool, int)))
    return fn, api.transform(fn, rules=rules, static_argnums=static), rules


def _differentiable(fn: Callable, args: tuple, kwargs: dict):
    """``(f, wrt, names)``: ``fn`` as a function of the float leaves of its arguments (the
    rest held fixed, as :mod:`autota.proof.gradients` does), those leaves and their names."""
    leaves, treedef = jax.tree_util.tree_flatten((args, kwargs))
    paths = [jax.tree_util.keystr(p) for p, _ in jax.tree_util.tree_flatten_with_path((args, kwargs))[0]]
    positions = [i for i, leaf in enumerate(leaves) if gradients.is_float_leaf(leaf)]
    if not positions:
        raise ProofInputError("no float argument to differentiate: grad saves nothing")

    def f(*values):
        full = list(leaves)
        for i, v in zip(positions, values):
            full[i] = v
        a, k = jax.tree_util.tree_unflatten(treedef, full)
        return fn(*a, **k)

    f.__autota_name__ = getattr(fn, "__name__", "the function")
    names = [_arg_name(paths[i]) for i in positions]
    return f, [jax.numpy.asarray(leaves[i]) for i in positions], names


def _arg_name(path: str) -> str:
    """``[0][1]['w']`` (of ``(args, kwargs)``) as ``arg1['w']``; ``[1]['k']`` as ``k``."""
    m = re.match(r"\[0\]\[(\d+)\](.*)", path)
    if m:
        return f"arg{m.group(1)}{m.group(2)}"
    m = re.match(r"\[1\]\['([^']*)'\](.*)", path)
    return f"{m.group(1)}{m.group(2)}" if m else path


def residuals(fn: Callable, *args, **kwargs) -> ResidualReport:
    """What ``jax.grad`` of ``fn(*args, **kwargs)`` saves, per loop and outside loops, before
    and after ``autota.transform``, with the rule that removes each residual and XLA's temp
    bytes of ``jit(grad)``.

    ``fn`` may be ``autota.transform(f, rules=...)`` to choose the rules compared (default:
    every rule the transform supports, AT203 included). Gradients are taken with respect to
    every float leaf of the arguments; the other leaves are held fixed.
    """
    from autota.jaxpr import analyze

    original, transformed, rules = _split(fn, args)
    name = getattr(original, "__name__", "fn")
    f_before, wrt, names = _differentiable(original, args, kwargs)
    before = _measured(read_program(f_before, wrt, names), f_before, wrt)
    after, after_error, findings = None, None, ()
    try:
        findings = tuple(analyze(transformed, *args, **kwargs))
        f_after, _, _ = _differentiable(transformed, args, kwargs)
        after = _measured(read_program(f_after, wrt, names), f_after, wrt)
    except Exception as err:  # the transform refused it: the "before" table still stands
        after_error = one_line(err)
    before, after = attribute(before, after, findings)
    return ResidualReport(name, rules, before, after, findings, after_error)


def _measured(program: Program, fun: Callable, wrt) -> Program:
    try:
        temp, out = xla_figures(fun, wrt)
    except Exception as err:  # the forward pass traced, the backward does not (a while_loop)
        name = getattr(fun, "__autota_name__", "the function")
        raise ProofInputError(f"cannot differentiate {name}: {one_line(err)}") from err
    return program.replace(grad_temp_bytes=temp, forward_output_bytes=out)


def attribute(before: Program, after: Program | None, findings: Sequence) -> tuple[Program, Program | None]:
    """Attach the transform's findings to the loops they are about (by source line) and mark
    each residual of ``before`` that ``after`` no longer has with the rules applied there."""
    by_source: dict = {}
    for f in findings:
        by_source.setdefault(f.source, []).append(f)
    applied_anywhere = tuple(dict.fromkeys(f.code for f in findings if f.applied))

    def with_findings(program: Program) -> Program:
        loops = tuple(
            dataclasses.replace(loop, findings=tuple(by_source.get(loop.source, ()))) for loop in program.loops
        )
        return program.replace(loops=loops)

    before = with_findings(before)
    if after is None:
        return before, None
    after = with_findings(after)

    def mark(residuals: Sequence[Residual], remaining: Counter, rules: tuple) -> tuple[Residual, ...]:
        out = []
        for r in residuals:
            if remaining[r.key] > 0:
                remaining[r.key] -= 1
                out.append(r)
            else:
                out.append(dataclasses.replace(r, removed_by=rules or ("-",)))
        return tuple(out)

    loops = []
    for loop, twin in paired(before, after):
        remaining = Counter(r.key for r in twin.residuals) if twin is not None else Counter()
        rules = tuple(dict.fromkeys(f.code for f in loop.findings if f.applied)) or applied_anywhere
        loops.append(dataclasses.replace(loop, residuals=mark(loop.residuals, remaining, rules)))
    outside = mark(before.outside, Counter(r.key for r in after.outside), applied_anywhere)
    return before.replace(loops=tuple(loops), outside=outside), after


# -- growth in T -------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoopGrowth:
    """One loop's residual and carry bytes at each size, before and after, with their fits."""

    label: str
    sizes: tuple[int, ...]
    before: tuple  # total residual bytes per size (None where the loop is absent)
    after: tuple
    carry: tuple
    carry_after: tuple
    largest: Residual | None  # the largest per-step residual before, at the largest size

    @property
    def fit_before(self) -> Fit:
        return fit(self.sizes, self.before)

    @property
    def fit_after(self) -> Fit:
        return fit(self.sizes, self.after)

    @property
    def fit_carry(self) -> Fit:
        return fit(self.sizes, self.carry)

    @property
    def fit_carry_after(self) -> Fit:
        return fit(self.sizes, self.carry_after)


@dataclass(frozen=True)
class ResidualGrowth:
    """How the residuals of each loop grow with T, and XLA's ``jit(grad)`` temp bytes."""

    name: str
    sizes: tuple[int, ...]
    reports: tuple[ResidualReport, ...]
    loops: tuple[LoopGrowth, ...]
    run_before: tuple = ()  # seconds per jit(grad) call at each size, when timed
    run_after: tuple = ()

    def series(self, which: str) -> list:
        """A figure at every size: ``total_before``/``total_after`` (residual bytes),
        ``temp_before``/``temp_after`` (XLA temp bytes of jit(grad))."""
        side, _, part = which.partition("_")
        out = []
        for r in self.reports:
            prog = r.before if part == "before" else r.after
            if prog is None:
                out.append(None)
            else:
                out.append(prog.total_bytes if side == "total" else prog.grad_temp_bytes)
        return out

    def __str__(self) -> str:
        return render_growth(self)

    def markdown(self) -> str:
        return render_growth(self, markdown=True)


def residual_growth(
    fn: Callable,
    make_args: Callable[[int], tuple],
    sizes: Sequence[int] = (64, 128, 256, 512),
    *,
    time: bool = False,
    repeats: int = 5,
    progress: Callable[[], None] | None = None,
) -> ResidualGrowth:
    """:func:`residuals` at each size of ``make_args(T)``, with each loop's residual bytes fitted
    as an exponent of T before and after (and its carry bytes). ``time=True`` also times
    ``jit(grad)`` before and after, side by side, at each size."""
    from autota.proof.measure import make_args_at

    sizes = tuple(sorted(set(sizes)))
    if len(sizes) < 2:
        raise ProofInputError("growth needs at least 2 sizes")
    reports, run_before, run_after = [], [], []
    for size in sizes:
        args = make_args_at(make_args, size)
        report = residuals(fn, *args)
        reports.append(report)
        if time:
            b, a = _time_grad(fn, args, report.after is not None, repeats)
            run_before.append(b)
            run_after.append(a)
        if progress is not None:
            progress()
    name = reports[-1].name
    return ResidualGrowth(name, sizes, tuple(reports), _loop_growth(sizes, reports), tuple(run_before), tuple(run_after))


def _loop_growth(sizes, reports) -> tuple[LoopGrowth, ...]:
    """Loops matched across sizes by their position in the before program."""
    count = len(reports[-1].before.loops)
    out = []
    for i in range(count):
        before, after, carry, carry_after = [], [], [], []
        for r in reports:
            pairs = paired(r.before, r.after)
            loop, twin = pairs[i] if i < len(pairs) else (None, None)
            before.append(loop.total_bytes if loop else None)
            carry.append(loop.carry_bytes if loop else None)
            after.append(twin.total_bytes if twin else None)
            carry_after.append(twin.carry_bytes if twin else None)
        last = reports[-1].before.loops[i]
        largest = max((x for x in last.residuals if x.kind == STEP), key=lambda x: x.bytes, default=None)
        out.append(LoopGrowth(last.label, tuple(sizes), tuple(before), tuple(after), tuple(carry), tuple(carry_after), largest))
    return tuple(out)


def paired(before: Program, after: Program | None) -> list[tuple[Loop, Loop | None]]:
    """Each loop of ``before`` with the loop of ``after`` at the same source line (the rewrite
    keeps it), taken in order where one line holds several loops; ``None`` where there is none."""
    waiting: dict = {}
    for loop in after.loops if after is not None else ():
        waiting.setdefault(loop.source, []).append(loop)
    pairs = []
    for loop in before.loops:
        same_line = waiting.get(loop.source)
        pairs.append((loop, same_line.pop(0) if same_line else None))
    return pairs


def _time_grad(fn: Callable, args: tuple, with_after: bool, repeats: int) -> tuple[float, float | None]:
    original, transformed, _ = _split(fn, args)
    f_before, wrt, _ = _differentiable(original, args, {})
    fns = {"before": gradients.grad_fn(f_before, tuple(range(len(wrt))))}
    if with_after:
        f_after, _, _ = _differentiable(transformed, args, {})
        fns["after"] = gradients.grad_fn(f_after, tuple(range(len(wrt))))
    got = timing.side_by_side(fns, tuple(wrt), repeats=repeats)
    return got["before"][0], got["after"][0] if with_after else None


# -- rendering ---------------------------------------------------------------------------------


def short(source: str | None) -> str:
    """``file.py:12`` relative to the working directory when under it, else its base name."""
    if not source:
        return "<unknown>"
    path, _, line = source.rpartition(":")
    try:
        rel = os.path.relpath(path)
    except ValueError:
        rel = path
    shown = rel if not rel.startswith("..") else os.path.basename(path)
    return f"{shown}:{line}"


def code_at(source: str | None, width: int = 44) -> str:
    """The stripped text of the user's line, for a table cell."""
    if not source:
        return ""
    path, _, line = source.rpartition(":")
    try:
        text = linecache.getline(path, int(line)).strip()
    except ValueError:
        return ""
    return text if len(text) <= width else text[: width - 3] + "..."


def _b(n: int | None) -> str:
    return human("_bytes", n)


RESIDUAL_HEADERS = ("residual", "per step", "total", "produced by", "at", "code", "removed by")


def _residual_rows(rs: Sequence[Residual], with_removed: bool) -> list[list[str]]:
    rows = []
    for r in sorted(rs, key=lambda x: -x.total_bytes):
        kind = r.type + (" (mask)" if r.dtype == "bool" and r.shape else "")
        rows.append([
            kind, _b(r.bytes) if r.kind == STEP else "once", _b(r.total_bytes), r.producer,
            short(r.source) if r.producer != "argument" else r.source, code_at(r.source) if r.producer != "argument" else "",
            (",".join(r.removed_by) if r.removed_by else "kept") if with_removed else "",
        ])
    return rows


def _table(headers, rows, markdown: bool) -> str:
    """Aligned text, or a Markdown table set apart by blank lines (as a table must be)."""
    return f"\n{markdown_table(headers, rows)}\n" if markdown else text_table(headers, rows)


def render(report: ResidualReport, markdown: bool = False) -> str:
    """The per-loop residual tables and the summary of one :class:`ResidualReport`."""
    h = (lambda s: f"**{s}**") if markdown else (lambda s: s)
    out = [h(f"What grad of {report.name} saves (after = autota.transform, rules {','.join(report.rules)})"), ""]
    after = report.after
    sections = paired(report.before, after)
    for loop, twin in sections:
        out.append(h(f"{loop.label}: {loop.length} steps, carry {', '.join(t for t, _ in loop.carry) or '-'}"))
        for f in loop.findings:
            status = "rewritten" if f.applied else "left alone"
            out.append(f"{'-' if markdown else ' '} {f.code} {f.name}: {f.message} ({status})")
        headers = RESIDUAL_HEADERS if after else RESIDUAL_HEADERS[:-1]
        rows = [row if after else row[:-1] for row in _residual_rows(loop.residuals, True)]
        out += ["before:", _table(headers, rows, markdown) if rows else "  (nothing saved)"]
        if twin is not None:
            rows = [row[:-1] for row in _residual_rows(twin.residuals, False)]
            out += ["after:", _table(RESIDUAL_HEADERS[:-1], rows, markdown) if rows else "  (nothing saved)"]
        out.append("")
    if report.before.outside or (after and after.outside):
        rows = _residual_rows(report.before.outside, after is not None)
        rows = [row if after else row[:-1] for row in rows]
        headers = RESIDUAL_HEADERS if after else RESIDUAL_HEADERS[:-1]
        out += [h("outside loops"), "before:", _table(headers, rows, markdown) if rows else "  (nothing saved)"]
        if after is not None:
            rows = [row[:-1] for row in _residual_rows(after.outside, False)]
            out += ["after:", _table(RESIDUAL_HEADERS[:-1], rows, markdown) if rows else "  (nothing saved)"]
        out.append("")
    out += [h("summary"), _table(*_summary(report), markdown)]
    for line in notes(report):
        out.append(f"note: {line}")
    return "\n".join(out)


def _summary(report: ResidualReport):
    headers = ("where", "per step before", "per step after", "total before", "total after")
    after = report.after
    rows = []
    for loop, twin in paired(report.before, after):
        rows.append([loop.label, _b(loop.bytes_per_step), _b(twin.bytes_per_step) if twin else "-",
                     _b(loop.total_bytes), _b(twin.total_bytes) if twin else "-"])
    outside = sum(r.total_bytes for r in report.before.outside)
    outside_after = sum(r.total_bytes for r in after.outside) if after else None
    rows.append(["outside loops", "-", "-", _b(outside), _b(outside_after)])
    rows.append(["residuals in all", "-", "-", _b(report.before.total_bytes), _b(after.total_bytes if after else None)])
    rows.append(["arguments kept (already in memory)", "-", "-", _b(sum(r.total_bytes for r in report.before.arguments)),
                 _b(sum(r.total_bytes for r in after.arguments)) if after else "-"])
    rows.append(["XLA: forward pass outputs", "-", "-", _b(report.before.forward_output_bytes),
                 _b(after.forward_output_bytes if after else None)])
    rows.append(["XLA: jit(grad) temp", "-", "-", _b(report.before.grad_temp_bytes),
                 _b(after.grad_temp_bytes if after else None)])
    rows.append(["residuals vs XLA forward outputs", "-", "-", _pct(report.before.xla_mismatch),
                 _pct(after.xla_mismatch) if after else "-"])
    return headers, rows


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%} off"


def notes(report: ResidualReport) -> list[str]:
    """Plain sentences: whether the table matches XLA, and why the transform did not run."""
    lines = []
    for label, prog in (("before", report.before), ("after", report.after)):
        if prog is None or prog.xla_mismatch is None:
            continue
        if prog.xla_mismatch > MATCH_TOLERANCE:
            lines.append(
                f"{label}: the residuals ({_b(prog.output_bytes)} in {prog.outputs} outputs) differ from XLA's "
                f"forward outputs ({_b(prog.forward_output_bytes)}) by {prog.xla_mismatch:.1%}"
            )
    if report.after_error:
        lines.append(f"after: not computed: {report.after_error}")
    return lines


def render_growth(growth: ResidualGrowth, markdown: bool = False) -> str:
    """The fitted growth of each loop's residuals, and what it means."""
    h = (lambda s: f"**{s}**") if markdown else (lambda s: s)
    t = ",".join(str(s) for s in growth.sizes)
    headers = ("where", f"before (T={t})", "after")
    rows = []
    for lg in growth.loops:
        rows.append([lg.label + " residuals", str(lg.fit_before), str(lg.fit_after)])
        rows.append([lg.label + " carry", str(lg.fit_carry), str(lg.fit_carry_after)])
    rows.append(["residuals in all", str(fit(growth.sizes, growth.series("total_before"))),
                 str(fit(growth.sizes, growth.series("total_after")))])
    rows.append(["XLA: jit(grad) temp", str(fit(growth.sizes, growth.series("temp_before"))),
                 str(fit(growth.sizes, growth.series("temp_after")))])
    if growth.run_before:
        rows.append(["jit(grad) run time", str(fit(growth.sizes, growth.run_before)),
                     str(fit(growth.sizes, growth.run_after))])
    bytes_headers = ("where", *(f"T={s}" for s in growth.sizes))
    bytes_rows = []
    for lg in growth.loops:
        bytes_rows.append([f"{lg.label} before", *(_b(v) for v in lg.before)])
        bytes_rows.append([f"{lg.label} after", *(_b(v) for v in lg.after)])
    bytes_rows.append(["XLA temp before", *(_b(v) for v in growth.series("temp_before"))])
    bytes_rows.append(["XLA temp after", *(_b(v) for v in growth.series("temp_after"))])
    if growth.run_before:
        bytes_rows.append(["jit(grad) time before", *(human("run_s", v) for v in growth.run_before)])
        bytes_rows.append(["jit(grad) time after", *(human("run_s", v) for v in growth.run_after)])
    out = [h("growth in T"), _table(headers, rows, markdown), "", _table(bytes_headers, bytes_rows, markdown)]
    out += [f"verdict: {line}" for line in verdicts(growth)]
    return "\n".join(out)


def verdicts(growth: ResidualGrowth) -> list[str]:
    """What the fits mean, loop by loop: where the O(T^2) comes from."""
    lines = []
    run = fit(growth.sizes, growth.run_before) if growth.run_before else None
    for lg in growth.loops:
        b, a, c, ca = lg.fit_before, lg.fit_after, lg.fit_carry, lg.fit_carry_after
        if b.exponent is None:
            continue
        if b.exponent > 1.5:
            what = ""
            if lg.largest is not None:
                what = (f": every step saves {lg.largest.type} from {lg.largest.producer} at {short(lg.largest.source)}"
                        + (f" ({code_at(lg.largest.source)})" if code_at(lg.largest.source) else ""))
            tail = f"; after the transform {a.cls}" if a.exponent is not None else ""
            lines.append(f"{lg.label} saves {b.cls} residuals{what}{tail}")
        elif c.exponent is not None and c.exponent > 0.5:
            timed = f" (jit(grad) run time measured {run})" if run is not None and run.exponent is not None else ""
            after = f"; after the transform it carries {ca.cls} bytes" if ca.exponent is not None else ""
            lines.append(
                f"{lg.label} saves {b.cls} residuals, but carries {c.cls} bytes through each of its T steps: "
                "under grad the cotangent of that carry goes back through every step too, and copying it is "
                f"O(T^2) time{timed}. Quadratic run time here comes from those copies, not from residuals{after}"
            )
        else:
            lines.append(f"{lg.label} saves {b.cls} residuals and carries {c.cls} bytes: no quadratic cost from it")
    return lines


def plot_growth(growth: ResidualGrowth, path) -> Any:
    """Saved bytes against T per loop, before (solid) and after (dashed), with XLA's temp."""
    from pathlib import Path

    from autota.proof.plot import require

    require()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for k, lg in enumerate(growth.loops):
        for values, style, side in ((lg.before, "-", "before"), (lg.after, "--", "after")):
            pts = [(t, v) for t, v in zip(growth.sizes, values) if v]
            if pts:
                ax.plot(*zip(*pts), style, color=f"C{k}", marker="o", label=f"{lg.label} {side}")
    for values, style, side in ((growth.series("temp_before"), "-", "before"), (growth.series("temp_after"), "--", "after")):
        pts = [(t, v) for t, v in zip(growth.sizes, values) if v]
        if pts:
            ax.plot(*zip(*pts), style, color="grey", marker="x", label=f"XLA jit(grad) temp {side}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("T")
    ax.set_ylabel("bytes")
    ax.set_title(f"{growth.name}: residual bytes saved by grad")
    ax.legend(fontsize="small")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


__all__ = [
    "Loop", "LoopGrowth", "MATCH_TOLERANCE", "Program", "Residual", "ResidualGrowth", "ResidualReport",
    "plot_growth", "read_program", "residual_growth", "residuals",
]
