"""AT204: ``select(p, buf.at[i].set(y), buf)`` becomes ``buf.at[i].set(select(p[i], y, buf[i]))``.

Under ``vmap`` a loop with a batched predicate writes its buffer through a ``select_n`` over the
whole buffer, which copies it every step (JAX issue 13522). Selecting only in the written
positions gives the same values everywhere: positions outside the write hold ``buf`` in both
forms. It is done only for unique-index ``scatter`` sets and ``dynamic_update_slice``, whose
written positions are read back by the matching ``gather``/``dynamic_slice``, and only where
the written array is used by the select alone.
"""

from __future__ import annotations

from jax import lax

from autota.jaxpr import jaxcompat as jc
from autota.jaxpr.findings import LoopFinding
from autota.jaxpr.interpreter import Context, handles, prepass
from autota.jaxpr.ir import Body, Eqn, Var

_SELECT_WRITE = "autota_select_write"


@prepass
def fuse_select_writes(ctx: Context, body: Body, eqns: list) -> list:
    if "AT204" not in ctx.enabled:
        return eqns
    fused: dict = {}  # write eqn -> fused eqn replacing the select
    for eqn in eqns:
        if eqn.name != "select_n" or len(eqn.ins) != 3 or eqn.outs[0] is None:
            continue
        pred, case0, case1 = eqn.ins
        for written, base, written_case in ((case1, case0, 1), (case0, case1, 0)):
            write = _write_of(body, written, base)
            if write is None or write in fused or pred.shape not in ((), written.shape):
                continue
            fused[write] = Eqn(
                _SELECT_WRITE, None, {"write": write, "written_case": written_case},
                (pred, *write.ins), eqn.outs, eqn.source,
            )
            ctx.record(
                (id(eqn), "AT204"),
                LoopFinding(
                    "AT204", "select around a buffer update copies the whole buffer", True, None,
                    eqn.source or write.source, written.shape, "O(T^2)", "O(T)",
                ),
            )
            break
    if not fused:
        return eqns
    replaced = {f.outs[0]: f for f in fused.values()}
    out = []
    for eqn in eqns:
        if eqn in fused:
            continue
        if eqn.name == "select_n" and eqn.outs and eqn.outs[0] in replaced:
            out.append(replaced[eqn.outs[0]])
        else:
            out.append(eqn)
    return out


def _write_of(body: Body, written, base):
    """The one-use write producing ``written`` from ``base``, if it is one AT204 can narrow."""
    if not isinstance(written, Var):
        return None
    write = body.producers.get(written)
    if write is None or write.ins[0] is not base or body.uses[written] != 1:
        return None
    if write.name == "scatter" and jc.scatter_is_unique_set(write.params):
        return write
    if write.name == "dynamic_update_slice":
        return write
    return None


def _fused(ctx: Context, eqn: Eqn, outer: Body) -> bool:
    """A fused select-write made by the prepass is always applied: it has no primitive to bind."""
    return True


@handles(_SELECT_WRITE, plan=_fused)
def select_write(ctx: Context, eqn: Eqn, plan: bool, invals: list, outer: Body):
    write, written_case = eqn.params["write"], eqn.params["written_case"]
    pred, base = invals[0], invals[1]
    if write.name == "scatter":
        indices, update = invals[2], invals[3]
        old = jc.scatter_to_gather(write.params, base, indices, update.shape)
        mask = pred if pred.ndim == 0 else jc.scatter_to_gather(write.params, pred, indices, update.shape)
    else:
        update, starts = invals[2], invals[3:]
        old = lax.dynamic_slice(base, starts, update.shape)
        mask = pred if pred.ndim == 0 else lax.dynamic_slice(pred, starts, update.shape)
    cases = (update, old) if written_case == 0 else (old, update)
    new_update = lax.select_n(mask, *cases)
    return jc.bind(write.primitive, write.params, [base, *invals[2:-1], new_update] if write.name == "scatter"
                   else [base, new_update, *invals[3:]])
