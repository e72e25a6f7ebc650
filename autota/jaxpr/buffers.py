"""AT201 analysis: which carries of a scan-form loop are write-only buffers.

A carry may leave the loop and become a stacked output only when the body (1) produces it by
exactly one write of one slot into the incoming carry, (2) reads neither the incoming nor the
written buffer anywhere else, and (3) writes at an index affine in the iteration number, not
constant, and inside the buffer at every step. Then the buffer after the loop is the initial
buffer with the written range replaced by the stacked values. Anything else is left alone and
the reason recorded.
"""

from __future__ import annotations

from dataclasses import dataclass

from autota.jaxpr import jaxcompat as jc
from autota.jaxpr.dataflow import written_carries
from autota.jaxpr.affine import Affine, iota_affine, literal_abstract, propagate
from autota.jaxpr.ir import Body, Eqn, Lit, Var

WRITES = jc.WRITES


@dataclass(frozen=True)
class LoopForm:
    """A loop in ``scan`` form: inputs are ``consts + carries + xs``, outputs ``carries + ys``."""

    body: Body
    num_consts: int
    num_carry: int
    length: int
    reverse: bool
    init: tuple  # the outer atoms of consts + carries + xs (literals are known values)
    outer: Body | None  # the program the loop sits in, to recognise ``arange`` xs
    effectful: bool = False  # the body declares side effects


@dataclass(frozen=True)
class BufferPlan:
    carry: int
    write: Eqn
    update: object  # the body atom holding the written slice
    axis: int
    squeeze: bool  # the update keeps the written axis (size 1) and must be squeezed
    slot: Affine  # slot written at step s
    cast: Eqn | None  # the ``convert_element_type`` back to the buffer's dtype, if the write casts
    skips: frozenset  # body equations the rewrite no longer evaluates


@dataclass(frozen=True)
class BufferVerdict:
    carry: int
    shape: tuple
    plan: BufferPlan | None
    code: str
    reason: str | None
    source: str | None


def seeds(form: LoopForm) -> dict:
    """Known integer values at step entry: counters ``i -> i + c`` from a literal, ``arange`` xs."""
    body, nc, ncarry = form.body, form.num_consts, form.num_carry
    known: dict = {}
    for j, atom in enumerate(form.init[:nc]):
        if isinstance(atom, Lit) and literal_abstract(atom) is not None:
            known[body.invars[j]] = literal_abstract(atom)
    for j in range(ncarry):
        cin, cout, init = body.invars[nc + j], body.outvars[j], form.init[nc + j]
        start = literal_abstract(init) if isinstance(init, Lit) else None
        if not isinstance(start, Affine) or not jc.is_integer_dtype(cin.dtype):
            continue
        step = _counter_step(body, cin, cout)
        if step is not None:
            known[cin] = Affine(step, start.b)
    if form.outer is not None:
        for m, atom in enumerate(form.init[nc + ncarry :]):
            per_k = iota_affine(form.outer, atom, form.length)
            if per_k is None:
                continue
            if form.reverse:  # step s reads element L-1-s
                known[body.invars[nc + ncarry + m]] = Affine(-per_k.a, per_k.a * (form.length - 1) + per_k.b)
            else:
                known[body.invars[nc + ncarry + m]] = per_k
    return known


def _counter_step(body: Body, cin: Var, cout) -> int | None:
    eqn = body.producers.get(cout) if isinstance(cout, Var) else None
    if eqn is None or eqn.name != "add":
        return None
    x, y = eqn.ins
    other = y if x is cin else x if y is cin else None
    if not isinstance(other, Lit):
        return None
    value = literal_abstract(other)
    return value.b if isinstance(value, Affine) else None


def affine_values(form: LoopForm) -> dict:
    """The body's integer scalars known to be affine in the step number."""
    return propagate(form.body, seeds(form), form.length)


def analyse(form: LoopForm) -> list[BufferVerdict]:
    """A verdict for every carry that is a buffer: one some write primitive updates.

    Carries that no ``scatter`` or ``dynamic_update_slice`` writes (sampler state, keys,
    counters) are not buffers and get no verdict.
    """
    body, nc = form.body, form.num_consts
    values = affine_values(form)
    verdicts = []
    buffers = written_carries(body, nc, form.num_carry)
    for j in range(form.num_carry):
        cin, cout = body.invars[nc + j], body.outvars[j]
        if not cin.shape or j not in buffers:
            continue
        plan, code, reason, source = _plan(form, values, j, cin, cout)
        verdicts.append(BufferVerdict(j, cin.shape, plan, code, reason, source))
    return verdicts


def _plan(form: LoopForm, values: dict, j: int, cin: Var, cout):
    body = form.body
    write, cast_up, cast_back = write_chain(body, cin, cout)
    source = write.source if write is not None else _write_source(body, cout)
    if write is None:
        return None, "AT201", why_not_one_write(body, cin, cout), source
    chain = [v for e in (cast_up, write, cast_back) if e is not None for v in e.outs]
    if body.uses[cin] != 1 or any(body.uses[v] != 1 for v in chain):
        return None, "AT203", "the body reads the buffer it writes", source
    if form.length == 0:  # no index has a value to read, so no reason about it applies
        return None, "AT201", "the loop runs no steps: nothing is written, so the buffer costs nothing", source
    form_of_write = slot_of(write, values)
    if isinstance(form_of_write, str):
        return None, "AT201", form_of_write, source
    axis, slot, update, squeeze = form_of_write
    if slot.a == 0:
        return None, "AT201", "the write index does not change with the iteration", source
    if form.length >= 1:
        lo, hi = slot.bounds(form.length)
        if lo < 0 or hi >= cin.shape[axis]:
            return None, "AT201", "the write index may leave the buffer's range", source
    skips = frozenset(e for e in (cast_up, write, cast_back) if e is not None)
    return BufferPlan(j, write, update, axis, squeeze, slot, cast_back, skips), "AT201", None, source


def write_chain(body: Body, cin: Var, cout):
    """``(write, cast_up, cast_back)`` when ``cout`` is one write into ``cin``, else Nones.

    A write of another dtype (``bf16_buf.at[t].set(f32_value)``) is traced as a cast of the
    buffer to the wider dtype, the write, and a cast back; that is accepted when the widening
    is exact, since then untouched slots come back bit for bit.
    """
    none = (None, None, None)
    write = body.producers.get(cout) if isinstance(cout, Var) else None
    cast_back = None
    if write is not None and write.name == "convert_element_type":
        cast_back, write = write, body.producers.get(write.ins[0]) if isinstance(write.ins[0], Var) else None
    if write is None or write.name not in WRITES:
        return none
    operand = write.ins[0]
    if operand is cin and cast_back is None:
        return write, None, None
    cast_up = body.producers.get(operand) if isinstance(operand, Var) else None
    if cast_back is None or cast_up is None or cast_up.name != "convert_element_type" or cast_up.ins[0] is not cin:
        return none
    if not jc.widening_is_exact(cin.dtype, operand.dtype) or cout.dtype != cin.dtype:
        return none
    return write, cast_up, cast_back


def slot_of(write: Eqn, values: dict):
    """``(axis, slot, update, squeeze)`` of a one-slot write, or a reason string."""
    operand = write.ins[0]
    if write.name == "scatter":
        _, indices, update = write.ins
        form = jc.single_slot_scatter(write.params, operand.shape, indices.shape, update.shape)
        if form is None:
            depth = jc.scatter_index_depth(write.params, indices.shape)
            if depth is not None and depth > 1:
                return (
                    f"the write indexes {depth} axes at once (buf.at[i, j]): one element per step, "
                    "not one slice along one axis"
                )
            return "the scatter writes more than one slot per step"
        slot = _value(indices, values)
        if not isinstance(slot, Affine):
            return "the write index is not affine in the iteration number"
        return form.axis, slot, update, False
    update, starts = write.ins[1], write.ins[2:]
    moving = [d for d, (u, o) in enumerate(zip(update.shape, operand.shape)) if u != o]
    if len(moving) > 1 or (moving and update.shape[moving[0]] != 1):
        return "the update is not one full slice of the buffer"
    if not moving:
        axis = next((d for d, s in enumerate(starts) if not _is_const(_value(s, values), 0)), None)
        if axis is None or update.shape[axis] != 1:
            return "the update is not one full slice of the buffer"
    else:
        axis = moving[0]
    for d, start in enumerate(starts):
        if d != axis and not _is_const(_value(start, values), 0):
            return "the update is not one full slice of the buffer"
    slot = _value(starts[axis], values)
    if not isinstance(slot, Affine):
        return "the write index is not affine in the iteration number"
    return axis, slot, update, True


def _value(atom, values: dict):
    return literal_abstract(atom) if isinstance(atom, Lit) else values.get(atom)


def _is_const(value, c: int) -> bool:
    return isinstance(value, Affine) and value.a == 0 and value.b == c


def _write_source(body: Body, cout):
    """Where the buffer is written: the nearest write (or nested program) producing ``cout``."""
    seen, todo = set(), [cout]
    while todo:
        atom = todo.pop()
        eqn = body.producers.get(atom) if isinstance(atom, Var) else None
        if eqn is None or id(eqn) in seen:
            continue
        seen.add(id(eqn))
        if eqn.name in WRITES or eqn.name in ("cond", "scan", "while") or eqn.name in jc.REMAT_NAMES:
            return eqn.source
        todo.extend(eqn.ins[1:] if eqn.name == "select_n" else eqn.ins[:1])
    return None


_NESTED = {"scan": "a nested scan", "while": "a nested while_loop"}


def why_not_one_write(body: Body, cin: Var, cout) -> str:
    """What the body does to a buffer instead of writing one slot of it once per step."""
    producer = body.producers.get(cout) if isinstance(cout, Var) else None
    name = producer.name if producer is not None else None
    if name == "select_n":
        return (
            "the write is conditional: a select keeps the old buffer where its condition fails "
            "(jnp.where around the write, or a cond under vmap)"
        )
    if name == "cond":
        return "the buffer is written in a cond whose branches do not all write the same slot"
    if name in _NESTED:
        return f"the buffer is written by {_NESTED[name]}, not once per step of this loop"
    if name in jc.REMAT_NAMES:
        return "the buffer is written inside a checkpoint that also reads it"
    if name in jc.CUSTOM_RULE_NAMES or name in jc.JIT_NAMES:
        return (
            f"the buffer is written inside `{name}` (a function with a custom derivative, or a call), which "
            "autota passes through untouched"
        )
    if name in ("scatter-add", "scatter_add", "scatter-mul", "scatter_mul"):
        return f"the body accumulates into the buffer ({name}) rather than setting a slot"
    if name in WRITES:
        operand = producer.ins[0]
        before = body.producers.get(operand) if isinstance(operand, Var) else None
        if before is not None and before.name in WRITES:
            return "the body writes the buffer more than once per step"
        what = before.name if before is not None else "another operation"
        return f"the body changes the buffer ({what}) before writing it"
    if name == "convert_element_type":
        return "the write goes through a cast that is not exact both ways"
    if name == "gather":
        return "the body reorders the buffer (a gather) after writing it"
    return f"the body transforms the written buffer ({name}) before carrying it on"
