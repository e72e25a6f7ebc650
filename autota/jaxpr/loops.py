"""AT201, AT202 and AT203: rebuild loops with public ``lax.scan``.

A loop is rebuilt only when a buffer of its own is rewritten; otherwise the interpreter binds
it as it was, with nested bodies rewritten where they change. Carries that
:mod:`autota.jaxpr.buffers` proves to be write-only buffers leave the carry and become
stacked outputs; the final buffer is the initial one with the written range replaced by them,
so slots never written keep their initial contents. A ``while_loop`` whose trip count is
static becomes a ``scan`` of that length first, which is what makes ``jax.grad`` work on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jax import lax
import jax.numpy as jnp
import numpy as np

from autota.jaxpr import jaxcompat as jc
from autota.jaxpr import write_once
from autota.jaxpr.affine import Affine, literal_abstract
from autota.jaxpr.buffers import BufferPlan, LoopForm, affine_values, analyse
from autota.jaxpr.findings import LoopFinding
from autota.jaxpr.interpreter import Context, handles, read, run
from autota.jaxpr.lift import loop_body
from autota.jaxpr.ir import Body, Eqn, Lit, Var


@dataclass(frozen=True)
class LoopPlan:
    """What a loop's rebuild moves out of the carry, decided before anything is traced."""

    form: LoopForm
    kind: str
    plans: list  # AT201 buffer plans
    write_once: list  # AT203 plans (the whole loop becomes a custom VJP)
    unroll: Any
    carry_start: int  # where the scan-form inputs start among the equation's inputs


def plan_scan(ctx: Context, eqn: Eqn, outer: Body) -> LoopPlan | None:
    sp = jc.scan_params(eqn.params)
    form = LoopForm(
        loop_body(ctx, sp.body), sp.num_consts, sp.num_carry, sp.length, sp.reverse, eqn.ins, outer,
        jc.has_effects(sp.body),
    )
    plans, write_once_plans = _buffer_plans(ctx, eqn, form, "scan")
    if not plans and not write_once_plans:
        return None
    unroll = sp.unroll if isinstance(sp.unroll, (int, bool)) else 1
    return LoopPlan(form, "scan", plans, write_once_plans, unroll, 0)


@handles(jc.SCAN, plan=plan_scan)
def apply_loop(ctx: Context, eqn: Eqn, plan: LoopPlan, invals: list, outer: Body):
    invals = invals[plan.carry_start :]
    if plan.write_once:
        return write_once.rebuild(ctx, plan.form, plan.write_once, invals, plan.unroll)
    return rebuild_scan(ctx, plan.form, plan.plans, invals, plan.unroll)


def plan_while(ctx: Context, eqn: Eqn, outer: Body) -> LoopPlan | None:
    """A ``while_loop`` is rebuilt (as a ``scan``) only for AT202; otherwise it is bound as it
    was, with its cond and body rewritten where they change."""
    wp = jc.while_params(eqn.params)
    cond, body = ctx.ir(wp.cond), loop_body(ctx, wp.body)
    ncc, nbc = wp.cond_nconsts, wp.body_nconsts
    carry_init = eqn.ins[ncc + nbc :]
    length = _static_trip_count(cond, body, eqn.ins[:ncc], eqn.ins[ncc : ncc + nbc], carry_init)
    form = LoopForm(
        body, nbc, len(carry_init), length or 0, False, tuple(eqn.ins[ncc:]), outer, jc.has_effects(wp.body)
    )
    if "AT202" not in ctx.enabled:
        return None
    verdicts = analyse(form)
    if verdicts and length is not None and jc.has_effects(wp.cond):
        ctx.record(
            (id(eqn), "AT202"),
            LoopFinding(
                "AT202", "buffer written in a while_loop", False,
                "the condition has side effects (a print or callback), which a scan would drop",
                eqn.source, verdicts[0].shape, "no reverse-mode gradient", "no reverse-mode gradient",
                verdicts[0].source,
            ),
        )
        return None
    if not verdicts:
        return None
    first = verdicts[0]
    if length is None:
        ctx.record(
            (id(eqn), "AT202"),
            LoopFinding(
                "AT202", "buffer written in a while_loop", False,
                "the trip count is not static (the condition is not `i < n` for an integer counter from a "
                "known start and a static n, stepped without passing its dtype's largest value)",
                eqn.source, first.shape, "no reverse-mode gradient", "no reverse-mode gradient", first.source,
            ),
        )
        return None
    ctx.record(
        (id(eqn), "AT202"),
        LoopFinding(
            "AT202", f"while_loop with a static trip count of {length} becomes a scan",
            True, None, eqn.source, first.shape, "no reverse-mode gradient", "O(T)", first.source,
        ),
    )
    plans, write_once_plans = _buffer_plans(ctx, eqn, form, "while_loop")
    return LoopPlan(form, "while_loop", plans, write_once_plans, 1, ncc)


handles(jc.WHILE, plan=plan_while)(apply_loop)


def _static_trip_count(cond: Body, body: Body, cond_consts, body_consts, carry_init) -> int | None:
    """The trip count of ``while i < n`` with ``i -> i + c`` (c > 0) from a literal, n static."""
    if len(cond.outvars) != 1 or not isinstance(cond.outvars[0], Var):
        return None
    test = cond.producers.get(cond.outvars[0])
    if test is None or test.name not in ("lt", "gt"):
        return None
    counter_atom, bound_atom = test.ins if test.name == "lt" else test.ins[::-1]
    ncc, nbc = len(cond_consts), len(body_consts)

    def carry_index(atom):
        for k, v in enumerate(cond.invars[ncc:]):
            if v is atom:
                return k
        return None

    k = carry_index(counter_atom)
    if k is None:
        return None
    start = literal_abstract(carry_init[k]) if isinstance(carry_init[k], Lit) else None
    cin, cout = body.invars[nbc + k], body.outvars[k]
    step_eqn = body.producers.get(cout) if isinstance(cout, Var) else None
    if not isinstance(start, Affine) or step_eqn is None or step_eqn.name != "add":
        return None
    x, y = step_eqn.ins
    step_atom = y if x is cin else x if y is cin else None
    step = literal_abstract(step_atom) if isinstance(step_atom, Lit) else None
    if not isinstance(step, Affine) or step.b <= 0:
        return None
    bound = _static_bound(cond, bound_atom, cond_consts, body, carry_init, carry_index)
    if bound is None:
        return None
    trips = max(0, -(-(bound - start.b) // step.b))
    # the counter's last value must be what Python's arithmetic says: a uint8 counter stepped
    # past 255 wraps to 0 and the loop runs on; a float one may stop moving (2.0**24 + 1)
    dtype = jc.aval_of(cin).dtype
    if not jc.is_integer_dtype(dtype):
        return None
    info = np.iinfo(np.dtype(dtype))
    if not info.min <= start.b <= info.max or start.b + trips * step.b > info.max:
        return None
    return trips


def _static_bound(cond: Body, atom, cond_consts, body: Body, carry_init, carry_index) -> int | None:
    if isinstance(atom, Lit):
        value = literal_abstract(atom)
        return value.b if isinstance(value, Affine) else None
    for j, v in enumerate(cond.invars[: len(cond_consts)]):
        if v is atom and isinstance(cond_consts[j], Lit):
            value = literal_abstract(cond_consts[j])
            return value.b if isinstance(value, Affine) else None
    m = carry_index(atom)
    nbc = len(body.invars) - len(body.outvars)
    if m is not None and body.outvars[m] is body.invars[nbc + m] and isinstance(carry_init[m], Lit):
        value = literal_abstract(carry_init[m])
        return value.b if isinstance(value, Affine) else None
    return None


def _buffer_plans(ctx: Context, eqn: Eqn, form: LoopForm, kind: str):
    """``(AT201 plans, write-once plans)``, recording a finding per buffer.

    The write-once rewrite takes the whole loop, so it applies only when every buffer of the
    loop is read back and proven write-once; otherwise the loop keeps its AT201 plans.
    """
    if not {"AT201", "AT203"} & ctx.enabled:
        return [], []
    verdicts = analyse(form)
    read_back = [v for v in verdicts if v.code == "AT203"]
    values = affine_values(form) if read_back else {}
    proofs = {v.carry: write_once.prove(form, values, v.carry) for v in read_back}
    rewrite = (
        "AT203" in ctx.enabled
        and len(read_back) == len(verdicts) > 0
        and not any(isinstance(p, str) for p in proofs.values())
    )
    plans = []
    for v in verdicts:
        if v.code == "AT203":
            _record_read_back(ctx, eqn, form, kind, v, proofs[v.carry], rewrite)
            continue
        if "AT201" not in ctx.enabled:
            continue
        applied = v.plan is not None
        message = f"buffer carried through a {kind} of length {form.length} and written once per step"
        after = "O(T)" if applied else "O(T^2) under grad"
        ctx.record(
            (id(eqn), v.carry),
            LoopFinding(
                v.code, message, applied, v.reason, eqn.source or v.source, v.shape, "O(T^2) under grad", after,
                v.source,
            ),
        )
        if applied:
            plans.append(v.plan)
    return plans, [proofs[v.carry] for v in read_back] if rewrite else []


def _record_read_back(ctx: Context, eqn: Eqn, form: LoopForm, kind: str, v, proof, rewrite: bool) -> None:
    before = "O(T^2) memory under grad"
    if rewrite:
        reason, after = None, "O(T) memory under grad"
    elif isinstance(proof, str):
        reason, after = f"{v.reason}, and it is not provably write-once: {proof}", before
    elif "AT203" not in ctx.enabled:
        reason, after = (
            f"{v.reason}; it is provably write-once: select rule AT203 to rewrite it (a custom VJP "
            "with O(T) residuals; forward-mode jvp then raises)"
        ), before
    else:
        reason, after = f"{v.reason}; the loop also has a buffer that is not read back", before
    ctx.record(
        (id(eqn), v.carry),
        LoopFinding(
            "AT203", f"{kind} body reads the buffer it writes", rewrite, reason,
            eqn.source or v.source, v.shape, before, after, v.source,
        ),
    )


def rebuild_scan(ctx: Context, form: LoopForm, plans: list[BufferPlan], invals: list, unroll):
    """Run ``form`` with ``lax.scan``, moving the planned buffers out of the carry."""
    nc, ncarry, body = form.num_consts, form.num_carry, form.body
    consts, init, xs = invals[:nc], invals[nc : nc + ncarry], invals[nc + ncarry :]
    moved = {p.carry for p in plans}
    kept = [j for j in range(ncarry) if j not in moved]
    skip = frozenset().union(*(p.skips for p in plans))

    def step(carry, x):
        args = [*consts, *([None] * ncarry), *x]
        for j, value in zip(kept, carry, strict=True):
            args[nc + j] = value
        env = run(ctx, body, args, skip)
        new_carry = [read(env, body.outvars[j]) for j in kept]
        ys = [read(env, a) for a in body.outvars[ncarry:]]
        slices = [_written(env, p) for p in plans]
        return new_carry, (ys, slices)

    carry, (ys, stacked) = lax.scan(
        step, [init[j] for j in kept], list(xs), length=form.length, reverse=form.reverse, unroll=unroll
    )
    finals = list(init)
    for j, value in zip(kept, carry, strict=True):
        finals[j] = value
    for plan, values in zip(plans, stacked, strict=True):
        final = _place(init[plan.carry], values, plan, form.length, form.reverse)
        # weakly typed as the body's write left the buffer: a scatter keeps the buffer's weak type,
        # `dynamic_update_slice` makes it strong
        finals[plan.carry] = jc.with_weak_type(final, jc.is_weak(body.outvars[plan.carry]))
    return [*finals, *ys]


def _written(env: dict, plan: BufferPlan):
    """The slice step writes, without the written axis and in the buffer's dtype."""
    value = read(env, plan.update)
    if plan.squeeze:
        value = lax.squeeze(value, (plan.axis,))
    if plan.cast is not None:
        (value,) = jc.bind(plan.cast.primitive, plan.cast.params, [value])
    return value


def _place(buffer, values, plan: BufferPlan, length: int, reverse: bool):
    """``buffer`` with the slots written by the loop replaced by ``values`` (stacked by step)."""
    if length == 0:
        return buffer
    # ys[k] was produced at step k (or L-1-k when reversed): its slot is alpha*k + beta.
    a, b = plan.slot.a, plan.slot.b
    alpha, beta = (-a, a * (length - 1) + b) if reverse else (a, b)
    if alpha < 0:
        values = jnp.flip(values, 0)
        alpha, beta = -alpha, beta + alpha * (length - 1)
    values = jnp.moveaxis(values, 0, plan.axis)
    if alpha == 1:
        starts = [0] * buffer.ndim
        starts[plan.axis] = beta
        return lax.dynamic_update_slice(buffer, values, starts)
    index = [slice(None)] * buffer.ndim
    index[plan.axis] = slice(beta, beta + alpha * (length - 1) + 1, alpha)
    return jnp.asarray(buffer).at[tuple(index)].set(values)  # a NumPy constant has no `.at`
