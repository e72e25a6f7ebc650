"""Writes lifted out of ``cond`` branches and ``checkpoint`` bodies inside a loop body.

AT201 moves a write out of a loop when the body writes its buffer once, at the top level. Two
common shapes hide the write one level down:

* ``lax.cond(p, lambda b: b.at[t].set(f(x)), lambda b: b.at[t].set(g(x)), buf)``: every branch
  writes the same slot. That is ``buf.at[t].set(lax.cond(p, f, g, x))``.
* ``jax.checkpoint`` around the whole step: ``checkpoint(body)(t, buf)`` writes ``buf`` inside.
  That is ``buf.at[t].set(checkpoint(body')(t))`` with ``body'`` returning the written value.

Both rewrites compute the same values and the same gradients: the written slot gets the value
the branch (or the checkpointed body) computed, the other slots keep the buffer's, and the
buffer no longer enters the ``cond`` or the ``checkpoint`` (so nothing of its size is saved
there under ``grad``). A write is lifted only when every branch writes the buffer it received
exactly once, reads it nowhere else, with the same primitive and parameters, at indices that
are the same operands of the ``cond`` (or ``checkpoint``) or equal literals.
"""

from __future__ import annotations

import jax
import numpy as np
from jax import lax

from autota.jaxpr import jaxcompat as jc
from autota.jaxpr.interpreter import Context, evaluate, handles
from autota.jaxpr.ir import Body, Eqn, Lit, Var

SWITCH = "autota_switch"
CHECKPOINT = "autota_checkpoint"


def loop_body(ctx: Context, jaxpr) -> Body:
    """The IR of a loop body with writes lifted out of its ``cond``s and ``checkpoint``s."""
    return ctx.memo("lifted", jaxpr, lambda: lift_writes(ctx, ctx.ir(jaxpr)))


def lift_writes(ctx: Context, body: Body) -> Body:
    """``body`` with every liftable write moved up one level (recursively); ``body`` itself
    when nothing moved."""
    eqns, changed = [], False
    for eqn in body.eqns:
        lifted = _lift(ctx, eqn)
        if lifted is None:
            eqns.append(eqn)
        else:
            eqns.extend(lifted)
            changed = True
    if not changed:
        return body
    return Body(body.constvars, body.consts, body.invars, eqns, body.outvars)


def _nested(ctx: Context, eqn: Eqn):
    """``(bodies, first operand position, rebuild)`` of a ``cond`` or ``checkpoint`` (or of one
    this module made), else ``None``. ``rebuild(bodies, ins, outs)`` makes the new equation."""
    if eqn.name == jc.COND:
        branches = jc.cond_branches(eqn.params)
        if not branches:
            return None
        return [ctx.ir(b) for b in branches], 1, lambda new, ins, outs: Eqn(
            SWITCH, None, {"branches": new}, ins, outs, eqn.source, eqn.info
        )
    if eqn.name in jc.REMAT_NAMES:
        params = jc.remat_params(eqn.params)
        if params is None:
            return None
        jaxpr, kwargs = params
        return [ctx.ir(jaxpr)], 0, lambda new, ins, outs: Eqn(
            CHECKPOINT, None, {"body": new[0], "kwargs": kwargs}, ins, outs, eqn.source, eqn.info
        )
    if eqn.name in (SWITCH, CHECKPOINT):
        bodies = eqn.params["branches"] if eqn.name == SWITCH else [eqn.params["body"]]
        offset = 1 if eqn.name == SWITCH else 0
        kwargs = eqn.params.get("kwargs")
        return bodies, offset, lambda new, ins, outs: Eqn(
            eqn.name, None, {"branches": new} if eqn.name == SWITCH else {"body": new[0], "kwargs": kwargs},
            ins, outs, eqn.source, eqn.info,
        )
    return None


def _lift(ctx: Context, eqn: Eqn):
    """Equations replacing ``eqn`` with its writes lifted out, or ``None``."""
    nested = _nested(ctx, eqn)
    if nested is None:
        return None
    raw, offset, rebuild = nested
    bodies = [lift_writes(ctx, b) for b in raw]
    changed = any(new is not old for new, old in zip(bodies, raw))
    operands = list(eqn.ins[offset:])
    lifts = []  # (output position, operand position of the buffer, writes per body)
    for m, out in enumerate(eqn.outs):
        if out is None:
            continue
        found = _common_write(bodies, m)
        if found is not None:
            lifts.append((m, *found))
    counters = _index_outputs(bodies, eqn.outs, {m for m, _, _ in lifts})
    if not lifts:
        return [rebuild(bodies, eqn.ins, eqn.outs)] if changed else None
    dropped = {k for _, k, _ in lifts}
    if len(dropped) != len(lifts):  # two outputs written from one buffer: leave it
        return None
    keep = [j for j in range(len(operands)) if j not in dropped]
    new_bodies = []
    for b, body in enumerate(bodies):
        skip = {writes[b] for _, _, writes in lifts}
        outvars = list(body.outvars)
        for m, _, writes in lifts:
            outvars[m] = writes[b].ins[1] if writes[b].name == "dynamic_update_slice" else writes[b].ins[2]
        new_bodies.append(
            Body(body.constvars, body.consts, tuple(body.invars[j] for j in keep),
                 [e for e in body.eqns if e not in skip], tuple(outvars))
        )
    outs = list(eqn.outs)
    after = []
    for m, k, writes in lifts:
        w = writes[0]
        update = new_bodies[0].outvars[m]
        value = Var(update.aval)
        outs[m] = value
        done: dict = {}
        update_at = 1 if w.name == "dynamic_update_slice" else 2
        # the indices only (pure index arithmetic, see `_common_write`): the update's own
        # computation stays in the branch, which alone may run it (effects, multi-output primitives)
        ins = [operands[k], *(value if p == update_at else _hoist(bodies[0], a, operands, after, done)
                              for p, a in enumerate(w.ins) if p > 0)]
        after.append(Eqn(w.name, w.primitive, w.params, tuple(ins), (eqn.outs[m],), w.source, w.info))
    for m in counters:  # index arithmetic the loop's affine analysis must see: computed outside
        outs[m] = Var(eqn.outs[m].aval)
        _hoist(bodies[0], bodies[0].outvars[m], operands, after, {}, target=eqn.outs[m])
    ins = (*eqn.ins[:offset], *(operands[j] for j in keep))
    return [rebuild(new_bodies, ins, tuple(outs)), *after]


def _index_outputs(bodies: list, outs: tuple, lifted: set) -> list:
    """Outputs that every body computes as the same integer index arithmetic of its inputs
    (a step counter ``t + 1`` inside a checkpointed step): worth computing outside too."""
    found = []
    for m, out in enumerate(outs):
        if out is None or m in lifted or not all(isinstance(b.outvars[m], Var) for b in bodies):
            continue
        if any(b.outvars[m] not in b.producers for b in bodies):
            continue
        expr = _index_expr(bodies[0], bodies[0].outvars[m])
        if expr is not None and all(_index_expr(b, b.outvars[m]) == expr for b in bodies[1:]):
            found.append(m)
    return found


def _common_write(bodies: list, m: int):
    """``(operand position, write per body)`` when every body's output ``m`` is one set-write
    into the same operand, at the same indices, read nowhere else; else ``None``."""
    writes, position = [], None
    for body in bodies:
        out = body.outvars[m]
        w = body.producers.get(out) if isinstance(out, Var) else None
        if w is None or w.name not in jc.WRITES or body.uses[out] != 1:
            return None
        operand = w.ins[0]
        k = _invar_position(body, operand)
        if k is None or body.uses[operand] != 1 or (position is not None and k != position):
            return None
        position = k
        writes.append(w)
    first = writes[0]
    index_slots = range(2, len(first.ins)) if first.name == "dynamic_update_slice" else (1,)
    for body, w in zip(bodies, writes):
        if w.name != first.name or not _same_params(w.params, first.params):
            return None
        update = w.ins[1] if w.name == "dynamic_update_slice" else w.ins[2]
        first_update = first.ins[1] if first.name == "dynamic_update_slice" else first.ins[2]
        if update.shape != first_update.shape or update.dtype != first_update.dtype:
            return None
        for s in index_slots:
            if not _same_index(body, w.ins[s], bodies[0], first.ins[s]):
                return None
    return position, writes


def _invar_position(body: Body, atom):
    for j, v in enumerate(body.invars):
        if v is atom:
            return j
    return None


# Integer index arithmetic JAX emits around an index (negative-index wrap, casts, broadcasts):
# cheap, pure, and safe to compute once more outside the branch.
_INDEX_OPS = frozenset({
    "add", "sub", "mul", "neg", "select_n", "lt", "le", "gt", "ge", "eq", "ne", "and", "or", "not",
    "convert_element_type", "broadcast_in_dim", "concatenate", "squeeze", "reshape", "clamp",
})
_MAX_INDEX_SIZE = 8


def _index_expr(body: Body, atom, depth: int = 0):
    """A canonical form of an index computed from the body's inputs and literals, or ``None``."""
    if isinstance(atom, Lit):
        value = np.asarray(atom.value)
        return ("lit", str(atom.dtype), value.shape, value.tobytes())
    j = _invar_position(body, atom)
    if j is not None:
        return ("in", j)
    eqn = body.producers.get(atom)
    if (
        eqn is None or eqn.name not in _INDEX_OPS or depth > 32 or len(eqn.outs) != 1
        or not jc.is_integer_or_bool(atom.dtype) or int(np.prod(atom.shape, dtype=int)) > _MAX_INDEX_SIZE
    ):
        return None
    ins = tuple(_index_expr(body, a, depth + 1) for a in eqn.ins)
    if any(e is None for e in ins):
        return None
    params = tuple(sorted((k, repr(v)) for k, v in eqn.params.items()))
    return (eqn.name, params, ins)


def _same_index(body: Body, atom, first_body: Body, first_atom) -> bool:
    expr = _index_expr(body, atom)
    return expr is not None and expr == _index_expr(first_body, first_atom)


def _hoist(body: Body, atom, operands: list, out: list, done: dict, target=None):
    """The outer atom computing what ``atom`` computes in ``body`` (equations appended to
    ``out``; the last one defines ``target`` when given)."""
    if isinstance(atom, Lit):
        return atom
    j = _invar_position(body, atom)
    if j is not None:
        return operands[j]
    if atom in done:
        return done[atom]
    eqn = body.producers[atom]
    ins = tuple(_hoist(body, a, operands, out, done) for a in eqn.ins)
    new = target if target is not None else Var(atom.aval)
    out.append(Eqn(eqn.name, eqn.primitive, eqn.params, ins, (new,), eqn.source, eqn.info))
    done[atom] = new
    return new


def _same_params(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    try:
        return all(a[k] is b[k] or a[k] == b[k] for k in a)
    except Exception:  # parameters that cannot be compared are not the same
        return False


def _made_here(ctx: Context, eqn: Eqn, outer: Body) -> bool:
    """An equation this module made is always applied: it has no primitive to bind."""
    return True


@handles(SWITCH, plan=_made_here)
def switch_rule(ctx: Context, eqn: Eqn, plan: bool, invals: list, outer: Body):
    index, operands = invals[0], invals[1:]
    fns = [lambda *ops, _b=b: evaluate(ctx, _b, ops) for b in eqn.params["branches"]]
    return list(lax.switch(index, fns, *operands))


@handles(CHECKPOINT, plan=_made_here)
def checkpoint_rule(ctx: Context, eqn: Eqn, plan: bool, invals: list, outer: Body):
    body = eqn.params["body"]
    return list(jax.checkpoint(lambda *args: evaluate(ctx, body, args), **eqn.params["kwargs"])(*invals))
