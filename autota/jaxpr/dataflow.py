"""Which loop carries are buffers: the carries some write primitive updates.

A loop carries much that is not a buffer: sampler positions, PRNG keys, counters, the state of
an optimiser. They are produced by ``select_n``, ``cond``, nested loops and arithmetic, and
none of that is an accumulation pattern. A carry is a buffer when its value on the way out of
the body descends from its value on the way in through at least one ``scatter`` or
``dynamic_update_slice`` whose operand (the array written into) carries it, possibly passing
through selects, casts, copies, branches of a ``cond``, nested loops and ``checkpoint`` bodies.

The analysis labels each variable with the carries it is "the buffer of" and whether a write
has happened on the way; nested programs are read into the IR and labelled the same way.
"""

from __future__ import annotations

from autota.jaxpr import ir
from autota.jaxpr import jaxcompat as jc
from autota.jaxpr.lift import CHECKPOINT, SWITCH

WRITES = frozenset({"scatter", "scatter-add", "scatter_add", "scatter-mul", "scatter_mul", "dynamic_update_slice"})
# Primitives whose output is (a view of) their array operands: the buffer passes through.
_PASS = frozenset({"select_n", "convert_element_type", "copy", "copy_p", "stop_gradient", "optimization_barrier"})
# Primitives that move a buffer's contents about (a reorder, a shift): the written buffer stays
# one, so that the finding can say what the body did to it.
_MOVE = frozenset({"gather", "rev", "transpose", "reshape", "concatenate", "pad", "slice", "dynamic_slice"})


def written_carries(body: ir.Body, num_consts: int, num_carry: int) -> set[int]:
    """The carries ``j`` whose output descends from their input through a write."""
    seeds = {body.invars[num_consts + j]: frozenset({(j, False)}) for j in range(num_carry)}
    labels = _propagate(body, seeds)
    found = set()
    for j, out in enumerate(body.outvars[:num_carry]):
        if (j, True) in labels.get(out, frozenset()):
            found.add(j)
    return found


def _propagate(body: ir.Body, seeds: dict) -> dict:
    labels = dict(seeds)

    def of(atom):
        return labels.get(atom, frozenset()) if isinstance(atom, ir.Var) else frozenset()

    for eqn in body.eqns:
        outs = _eqn_labels(eqn, [of(a) for a in eqn.ins])
        for var, lab in zip(eqn.outs, outs):
            if var is not None and lab:
                labels[var] = lab
    return labels


def _eqn_labels(eqn: ir.Eqn, ins: list) -> list:
    n = len(eqn.outs)
    if not any(ins):
        return [frozenset()] * n
    if eqn.name in WRITES:
        return [frozenset((j, True) for j, _ in ins[0])]
    if eqn.name in _PASS:
        cases = ins[1:] if eqn.name == "select_n" else ins
        return [frozenset().union(*cases)] * n
    if eqn.name in _MOVE:
        moved = ins if eqn.name == "concatenate" else ins[:1]
        return [frozenset().union(*moved)] * n
    nested = _nested(eqn, ins)
    return nested if nested is not None else [frozenset()] * n


def _nested(eqn: ir.Eqn, ins: list):
    """Labels of the outputs of a ``cond``, loop, ``checkpoint`` or call (a custom derivative's
    function) from those of its inputs: a write made inside a call is a write the loop makes,
    which the transform passes through and must report."""
    if eqn.name == jc.COND:
        branches = jc.cond_branches(eqn.params) or []
        outs = [frozenset()] * len(eqn.outs)
        for branch in branches:
            sub = ir.from_jaxpr(branch)
            res = _through(sub, ins[1:])
            outs = [a | b for a, b in zip(outs, res)]
        return outs
    if eqn.name == SWITCH:  # a cond whose writes were lifted out (autota.jaxpr.lift)
        outs = [frozenset()] * len(eqn.outs)
        for sub in eqn.params["branches"]:
            outs = [a | b for a, b in zip(outs, _through(sub, ins[1:]))]
        return outs
    if eqn.name == CHECKPOINT:
        return _through(eqn.params["body"], ins)
    if eqn.name in jc.REMAT_NAMES:
        params = jc.remat_params(eqn.params)
        return _through(ir.from_jaxpr(params[0]), ins) if params is not None else None
    if eqn.name == jc.SCAN:
        sp = jc.scan_params(eqn.params)
        if sp is None:
            return None
        return _loop(ir.from_jaxpr(sp.body), ins, sp.num_consts, sp.num_carry, len(eqn.outs))
    if eqn.name == jc.WHILE:
        wp = jc.while_params(eqn.params)
        if wp is None:
            return None
        ncc = wp.cond_nconsts
        return _loop(ir.from_jaxpr(wp.body), ins[ncc:], wp.body_nconsts, len(eqn.outs), len(eqn.outs))
    called = jc.call_body(eqn.name, eqn.params)  # a `custom_jvp`/`custom_vjp` function, a `jit` left as a call
    if called is not None:
        sub = ir.from_jaxpr(called)
        if len(sub.invars) == len(ins) and len(sub.outvars) == len(eqn.outs):
            return _through(sub, ins)
    return None


def _through(sub: ir.Body, ins: list) -> list:
    labels = _propagate(sub, dict(zip(sub.invars, ins)))
    return [labels.get(a, frozenset()) if isinstance(a, ir.Var) else frozenset() for a in sub.outvars]


def _loop(sub: ir.Body, ins: list, nc: int, ncarry: int, nouts: int) -> list:
    """A nested loop passes a carry's label on, marked written when its body writes that carry."""
    inner = written_carries(sub, nc, ncarry)
    outs = [frozenset()] * nouts
    for k in range(min(ncarry, nouts)):
        lab = ins[nc + k]
        outs[k] = frozenset((j, w or k in inner) for j, w in lab)
    return outs
