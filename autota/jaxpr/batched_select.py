"""AT204: ``select(p, buf.at[i].set(y), buf)`` becomes ``buf.at[i].set(select(p[i], y, buf[i]))``.

Under ``vmap`` a loop with a batched predicate writes its buffer through a ``select_n`` over the
whole buffer, which copies it every step (JAX issue 13522). Selecting only in the written
positions gives the same values everywhere: positions outside the write hold ``buf`` in both
forms. It is done only for unique-index ``scatter`` sets and ``dynamic_update_slice``, whose
written positions are read back by the matching ``gather``/``dynamic_slice``, and only where
the written array is used by the select alone.
"""

from __future__ import annotations

import numpy as np
from jax import lax

from autota.jaxpr import jaxcompat as jc
from autota.jaxpr.findings import LoopFinding
from autota.jaxpr.interpreter import Context, handles, prepass
from autota.jaxpr.ir import Body, Eqn, Lit, Var

_SELECT_WRITE = "autota_select_write"


@prepass
def fuse_select_writes(ctx: Context, body: Body, eqns: list) -> list:
    if "AT204" not in ctx.enabled:
        return eqns
    fused: dict = {}  # write eqn -> fused eqn replacing the select
    dropped: set = set()  # the masked operand copies of a batched cond the fused eqns bypass
    for eqn in eqns:
        if eqn.name != "select_n" or len(eqn.ins) != 3 or eqn.outs[0] is None:
            continue
        pred, case0, case1 = eqn.ins
        for written, base, written_case in ((case1, case0, 1), (case0, case1, 0)):
            write, operand, masks = _write_of(body, written, base), base, ()
            if write is None:
                write, operand, masks = _masked_write_of(body, written, base, pred, written_case)
            if write is None or write in fused or pred.shape not in ((), written.shape):
                continue
            fused[write] = Eqn(
                _SELECT_WRITE, None, {"write": write, "written_case": written_case},
                (pred, operand, *write.ins[1:]), eqn.outs, eqn.source, eqn.info,
            )
            dropped.update(masks)
            ctx.record(
                (id(eqn), "AT204"),
                LoopFinding(
                    "AT204", "select around a buffer update copies the whole buffer", True, None,
                    eqn.source or write.source, written.shape, "O(T^2)", "O(T)", write.source,
                ),
            )
            break
    if not fused:
        return eqns
    replaced = {f.outs[0]: f for f in fused.values()}
    out = []
    for eqn in eqns:
        if eqn in fused or eqn in dropped:
            continue
        if eqn.name == "select_n" and eqn.outs and eqn.outs[0] in replaced:
            out.append(replaced[eqn.outs[0]])
        else:
            out.append(eqn)
    return out


_MASKED_READ = "autota_masked_read"
_READS = frozenset({"gather", "dynamic_slice"})


@prepass
def narrow_masked_reads(ctx: Context, body: Body, eqns: list) -> list:
    """A batched ``cond`` masks every operand, ``select_n(m, stop_gradient(a), a)``, a copy of
    ``a``'s whole size per step (and its transpose under ``grad``). Where the copy is only read
    through ``gather``/``dynamic_slice`` (``x[t]`` of a closed-over array), mask the slice read
    instead: ``select_n(m[i], stop_gradient(a[i]), a[i])``, the same values and gradients."""
    if "AT204" not in ctx.enabled:
        return eqns
    readers: dict = {}
    for eqn in eqns:
        if eqn.name in _READS and isinstance(eqn.ins[0], Var):
            readers.setdefault(eqn.ins[0], []).append(eqn)
    replace, dropped = {}, set()
    for eqn in eqns:
        copy = _masked_operand(body, eqn)
        if copy is None:
            continue
        mask, x, stop = copy
        reads = readers.get(eqn.outs[0], [])
        if not reads or body.uses[eqn.outs[0]] != len(reads) or body.uses[stop.outs[0]] != 1:
            continue
        if mask.shape not in ((), x.shape):
            continue
        for r in reads:
            replace[r] = Eqn(_MASKED_READ, None, {"read": r}, (mask, x, *r.ins[1:]), r.outs, r.source)
        dropped.update((eqn, stop))
        ctx.record(
            (id(eqn), "AT204"),
            LoopFinding(
                "AT204", "a batched cond masks a whole operand to read a slice of it", True, None,
                eqn.source, x.shape, "O(T^2)", "O(T)", reads[0].source,
            ),
        )
    if not replace:
        return eqns
    return [replace.get(e, e) for e in eqns if e not in dropped]


def _masked_operand(body: Body, eqn: Eqn):
    """``(mask, x, stop_gradient eqn)`` when ``eqn`` is ``select_n(mask, stop_gradient(x), x)``."""
    if eqn.name != "select_n" or len(eqn.ins) != 3 or eqn.outs[0] is None:
        return None
    mask, frozen, x = eqn.ins
    stop = body.producers.get(frozen) if isinstance(frozen, Var) else None
    if stop is None or stop.name != "stop_gradient" or stop.ins[0] is not x or mask.dtype != np.bool_:
        return None
    return mask, x, stop


def _write_of(body: Body, written, base):
    """The one-use write producing ``written`` from ``base``, if it is one AT204 can narrow."""
    if not isinstance(written, Var):
        return None
    write = body.producers.get(written)
    if write is None or not write.ins or write.ins[0] is not base or body.uses[written] != 1:
        return None
    if write.name == "scatter" and jc.scatter_is_unique_set(write.params):
        return write
    if write.name == "dynamic_update_slice":
        return write
    return None


def _masked_write_of(body: Body, written, base, pred, written_case: int):
    """A batched ``cond`` around a write: ``(write, x, masked copies)``, or Nones.

    ``vmap`` turns ``cond(p, lambda b: b.at[i].set(y), lambda b: b, x)`` with a per-example
    ``p`` into both branches on masked copies of the operand, ``select_n(eq(k, c), sg(x), x)``
    (equal to ``x``; they let the gradient reach ``x`` only through the branch taken), and a
    ``select_n`` on the int32 branch index ``k``. With the masks matching the select's cases the
    result is the plain ``select(k, write(x), x)`` in values and in gradients, which AT204 narrows.
    """
    none = (None, None, ())
    if not isinstance(written, Var):
        return none
    write = body.producers.get(written)
    if write is None or body.uses[written] != 1 or write.name not in jc.WRITES:
        return none
    if write.name == "scatter" and not jc.scatter_is_unique_set(write.params):
        return none
    index = _strip(body, pred)
    masked_write = _masked_copy(body, write.ins[0], index, written_case)
    masked_base = _masked_copy(body, base, index, 1 - written_case)
    if masked_write is None or masked_base is None or masked_write[0] is not masked_base[0]:
        return none
    return write, masked_write[0], (*masked_write[1], *masked_base[1])


def _masked_copy(body: Body, atom, index, case: int):
    """``(x, its eqns)`` when ``atom`` is ``select_n(eq(index, case), stop_gradient(x), x)``."""
    eqn = body.producers.get(atom) if isinstance(atom, Var) else None
    if eqn is None or eqn.name != "select_n" or len(eqn.ins) != 3:
        return None
    mask, frozen, x = eqn.ins
    stop = body.producers.get(frozen) if isinstance(frozen, Var) else None
    if stop is None or stop.name != "stop_gradient" or stop.ins[0] is not x:
        return None
    test = body.producers.get(_strip(body, mask))
    if test is None or test.name != "eq" or _strip(body, test.ins[0]) is not index:
        return None
    k = test.ins[1]
    if not isinstance(k, Lit) or np.asarray(k.value).item() != case:
        return None
    dead = [e for e, v in ((eqn, atom), (stop, frozen)) if body.uses[v] == 1]
    return x, tuple(dead) if len(dead) == 2 else ()


def _strip(body: Body, atom):
    """``atom`` without the broadcasts and casts around it."""
    while isinstance(atom, Var):
        eqn = body.producers.get(atom)
        if eqn is None or eqn.name not in ("broadcast_in_dim", "convert_element_type"):
            break
        atom = eqn.ins[0]
    return atom


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
        old = jc.dynamic_slice(base, starts, update.shape)
        mask = pred if pred.ndim == 0 else jc.dynamic_slice(pred, starts, update.shape)
    cases = (update, old) if written_case == 0 else (old, update)
    new_update = lax.select_n(mask, *cases)
    return jc.bind(write.primitive, write.params, [base, *invals[2:-1], new_update] if write.name == "scatter"
                   else [base, new_update, *invals[3:]])


@handles(_MASKED_READ, plan=_fused)
def masked_read(ctx: Context, eqn: Eqn, plan: bool, invals: list, outer: Body):
    read = eqn.params["read"]
    mask, x, rest = invals[0], invals[1], invals[2:]
    (part,) = jc.bind(read.primitive, read.params, [x, *rest])
    if mask.ndim:
        (mask,) = jc.bind(read.primitive, read.params, [mask, *rest])
    return [lax.select_n(mask, lax.stop_gradient(part), part)]
