"""AT203: a loop that reads the buffer it fills gets a gradient with O(T) residuals.

Under ``jax.grad`` a scan body that reads its own buffer (attention or a mean over past outputs)
saves, at every step, an array as large as the buffer: the buffer itself, or a mask over it.
When the buffer is *write-once* the saved copies are redundant. Write-once means the body makes
the new buffer by exactly one write of one slot into the incoming buffer, at an index affine in
the step number with a non-zero stride and inside the buffer at every step (through an exact
widening cast and back, if the written value is wider), and nothing reads the written buffer
inside the body. Then the buffer at the start of step ``k`` is
``where(slot written before k, final buffer, initial buffer)``, bit for bit, and the backward
pass can rebuild it from those two arrays instead of loading a saved one.

So the loop becomes a ``jax.custom_vjp``: its primal is the original scan (same values), its
forward pass also emits the non-buffer carries of every step, and its backward pass is the
ordinary transpose of a scan (a reverse scan carrying the carries' cotangents, ``jax.vjp`` of the
body at each step) in which only the primal buffer is recomputed. Residuals: the consts, the xs,
the per-step non-buffer carries and the initial and final buffers, nothing of the buffer's size
per step. JAX cannot apply forward mode (``jvp``) to a ``custom_vjp``, which is why this rewrite
runs only when rule AT203 is selected.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from autota.jaxpr import jaxcompat as jc
from autota.jaxpr.buffers import LoopForm, slot_of, write_chain
from autota.jaxpr.interpreter import Context, evaluate


@dataclass(frozen=True)
class WriteOnce:
    """A proven write-once buffer: carry ``carry``, written along ``axis``."""

    carry: int
    axis: int
    written_at: np.ndarray  # per position along ``axis``: the step that writes it, or ``length``


def prove(form: LoopForm, values: dict, j: int) -> WriteOnce | str:
    """The write-once plan of carry ``j``, or why the buffer is not provably write-once."""
    body, nc, length = form.body, form.num_consts, form.length
    cin, cout = body.invars[nc + j], body.outvars[j]
    if form.effectful:
        return "the body has side effects, which the backward pass would repeat"
    write, _, cast_back = write_chain(body, cin, cout)
    if write is None:
        return "the buffer is not written unconditionally, once per iteration"
    # A write of a wider dtype is a cast up, the write and a cast back; ``write_chain`` accepts
    # it only when the widening is exact, so unwritten slots still come back bit for bit.
    if body.uses[cout] != 1 or (cast_back is not None and body.uses[write.outs[0]] != 1):
        return "the body reads the buffer after writing it"
    if any(a is cin for a in body.outvars):
        return "the body returns the buffer it reads"
    if not jc.is_inexact_dtype(cin.dtype):
        return "the buffer is not floating point"
    found = slot_of(write, values)
    if isinstance(found, str):
        return found
    axis, slot = found[0], found[1]
    if slot.a == 0:
        return "the write index does not change with the iteration"
    if length < 1:
        return "the loop has no iterations"
    lo, hi = slot.bounds(length)
    if lo < 0 or hi >= cin.shape[axis]:
        return "the write index may leave the buffer's range"
    written_at = np.full(cin.shape[axis], length, np.int32)
    steps = np.arange(length)
    written_at[slot.a * steps + slot.b] = steps
    return WriteOnce(j, axis, written_at)


def _buffer_at(plan: WriteOnce, step, init, final):
    """The buffer as it was at the start of ``step``: slots written before it hold final values."""
    shape = [1] * np.ndim(final)
    shape[plan.axis] = -1
    mask = jnp.asarray(plan.written_at.reshape(shape)) < step
    return jnp.where(mask, final, init)


def rebuild(ctx: Context, form: LoopForm, plans: list[WriteOnce], invals: list, unroll):
    """Run ``form`` as a ``custom_vjp`` whose backward pass recomputes the planned buffers."""
    body, nc, ncarry, length, reverse = form.body, form.num_consts, form.num_carry, form.length, form.reverse
    bufs = {p.carry: p for p in plans}
    others = [j for j in range(ncarry) if j not in bufs]
    invars = body.invars
    nx = len(invars) - nc - ncarry
    inexact = [jc.is_inexact_dtype(v.dtype) for v in invars]
    out_inexact = [jc.is_inexact_dtype(a.dtype) for a in body.outvars]

    def scan(consts, init, xs, save):
        def step(carry, x):
            outs = evaluate(ctx, body, [*consts, *carry, *x])
            saved = [carry[j] for j in others] if save else []
            return outs[:ncarry], (outs[ncarry:], saved)

        return lax.scan(step, list(init), list(xs), length=length, reverse=reverse, unroll=unroll)

    @jax.custom_vjp
    def loop(consts, init, xs):
        carry, (ys, _) = scan(consts, init, xs, False)
        return carry, ys

    def fwd(consts, init, xs):
        carry, (ys, saved) = scan(consts, init, xs, True)
        return (carry, ys), (consts, xs, saved, [init[j] for j in bufs], [carry[j] for j in bufs])

    def bwd(res, cts):
        consts, xs, saved, inits, finals = res
        ct_carry, ct_ys = cts
        diff_in = [i for i in range(len(invars)) if inexact[i]]
        diff_carry = [j for j in range(ncarry) if inexact[nc + j]]
        diff_ys = [m for m in range(len(ct_ys)) if out_inexact[ncarry + m]]

        def bstep(acc, inp):
            ct_consts, ct_c = acc
            step, x, kept, ct_y = inp
            carry = [None] * ncarry
            for j, value in zip(others, kept, strict=True):
                carry[j] = value
            for (j, plan), init, final in zip(bufs.items(), inits, finals, strict=True):
                carry[j] = _buffer_at(plan, step, init, final)
            args = [*consts, *carry, *x]

            def f(diff):
                full = list(args)
                for i, value in zip(diff_in, diff, strict=True):
                    full[i] = value
                outs = evaluate(ctx, body, full)
                return [jnp.asarray(outs[j]) for j in diff_carry] + [jnp.asarray(outs[ncarry + m]) for m in diff_ys]

            _, pull = jax.vjp(f, [args[i] for i in diff_in])
            (grads,) = pull([*ct_c, *ct_y])
            by_input = dict(zip(diff_in, grads, strict=True))
            ct_consts = [a + by_input[i] for a, i in zip(ct_consts, (i for i in diff_in if i < nc))]
            ct_c = [by_input[nc + j] for j in diff_carry]
            ct_x = [by_input[i] for i in diff_in if i >= nc + ncarry]
            return (ct_consts, ct_c), ct_x

        steps = np.arange(length, dtype=np.int32)
        steps = steps[::-1].copy() if reverse else steps
        acc0 = ([jnp.zeros_like(consts[i]) for i in diff_in if i < nc], [ct_carry[j] for j in diff_carry])
        inputs = (steps, list(xs), saved, [ct_ys[m] for m in diff_ys])
        (ct_consts, ct_init), ct_xs = lax.scan(bstep, acc0, inputs, length=length, reverse=not reverse)
        return (
            _scatter(ct_consts, [i for i in diff_in if i < nc], nc),
            _scatter(ct_init, diff_carry, ncarry),
            _scatter(ct_xs, [i - nc - ncarry for i in diff_in if i >= nc + ncarry], nx),
        )

    loop.defvjp(fwd, bwd)
    consts, init, xs = invals[:nc], invals[nc : nc + ncarry], invals[nc + ncarry :]
    carry, ys = loop(list(consts), list(init), list(xs))
    return [*carry, *ys]


def _scatter(values: list, positions: list, n: int) -> list:
    """A list of ``n`` cotangents: ``values`` at ``positions``, ``None`` (zero) elsewhere."""
    out = [None] * n
    for value, p in zip(values, positions, strict=True):
        out[p] = value
    return out
