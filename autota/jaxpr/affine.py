"""Which integer scalars in a loop body are affine in the iteration number.

A rewrite may move a write out of a loop only where its index is known at every step. This
module runs a small abstract interpretation over one straight-line body: each integer scalar is
either ``Affine(a, b)`` (``a * s + b`` at step ``s = 0 .. L-1`` in execution order), a known
boolean, or unknown. Comparisons are decided only where they hold at every step, which is what
lets the negative-index normalisation ``select_n(lt(i, 0), i, add(i, T))`` fold away when
``i`` provably stays non-negative.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from autota.jaxpr import jaxcompat as jc
from autota.jaxpr.ir import Body, Lit, Var


@dataclass(frozen=True)
class Affine:
    a: int
    b: int

    def at(self, s: int) -> int:
        return self.a * s + self.b

    def bounds(self, length: int) -> tuple[int, int]:
        """Smallest and largest value over steps ``0 .. length-1`` (``length >= 1``)."""
        first, last = self.at(0), self.at(length - 1)
        return min(first, last), max(first, last)


_COMPARE = {
    "lt": lambda lo, hi: (True if hi < 0 else False if lo >= 0 else None),
    "le": lambda lo, hi: (True if hi <= 0 else False if lo > 0 else None),
    "gt": lambda lo, hi: (True if lo > 0 else False if hi <= 0 else None),
    "ge": lambda lo, hi: (True if lo >= 0 else False if hi < 0 else None),
    "eq": lambda lo, hi: (True if lo == hi == 0 else False if lo > 0 or hi < 0 else None),
    "ne": lambda lo, hi: (False if lo == hi == 0 else True if lo > 0 or hi < 0 else None),
}

_PASS_THROUGH = frozenset({"copy", "copy_p", "broadcast_in_dim", "reshape", "squeeze"})


def literal_abstract(lit: Lit):
    value = np.asarray(lit.value)
    if value.size != 1:
        return None
    item = value.reshape(()).item()
    if isinstance(item, (bool, np.bool_)):
        return bool(item)
    if isinstance(item, (int, np.integer)):
        return Affine(0, int(item))
    return None


def propagate(body: Body, seeds: dict, length: int) -> dict:
    """Abstract values of the body's variables, starting from ``seeds`` (``Var -> value``)."""
    values: dict = {var: v for var, v in seeds.items() if _fits(v, var.dtype, length)}

    def get(atom):
        if isinstance(atom, Lit):
            return literal_abstract(atom)
        return values.get(atom)

    for eqn in body.eqns:
        if len(eqn.outs) != 1 or eqn.outs[0] is None:
            continue
        out = eqn.outs[0]
        if int(np.prod(out.shape, dtype=int)) != 1:
            continue
        result = _step(eqn, [get(a) for a in eqn.ins], length)
        if result is not None and _fits(result, out.dtype, length):
            values[out] = result
    return values


def _fits(value, dtype, length: int) -> bool:
    """Whether an integer result stays in its dtype's range at every step: an index cast to
    ``uint8`` or summed past ``int32`` wraps, and is then not the affine value it looks like."""
    if not isinstance(value, Affine) or not jc.is_integer_dtype(dtype) or length < 1:
        return True
    info = np.iinfo(np.dtype(dtype))
    lo, hi = value.bounds(length)
    return info.min <= lo and hi <= info.max


def _step(eqn, ins: list, length: int):
    name = eqn.name
    if name in _PASS_THROUGH:
        return ins[0] if len(ins) == 1 else None
    if name == "convert_element_type":
        dtype = jc.convert_dtype(eqn.params)
        if isinstance(ins[0], Affine) and dtype is not None and jc.is_integer_dtype(dtype):
            return ins[0]
        if isinstance(ins[0], bool) and dtype is not None and jc.is_integer_dtype(dtype):
            return Affine(0, int(ins[0]))
        return None
    if name == "select_n":
        pred = ins[0]
        if isinstance(pred, bool):
            return ins[1 + int(pred)]
        if isinstance(pred, Affine) and pred.a == 0 and 0 <= pred.b < len(ins) - 1:
            return ins[1 + pred.b]
        return None
    if not all(isinstance(v, Affine) for v in ins):
        return None
    if name == "add" and len(ins) == 2:
        return Affine(ins[0].a + ins[1].a, ins[0].b + ins[1].b)
    if name == "sub" and len(ins) == 2:
        return Affine(ins[0].a - ins[1].a, ins[0].b - ins[1].b)
    if name == "neg":
        return Affine(-ins[0].a, -ins[0].b)
    if name == "mul" and len(ins) == 2:
        x, y = ins
        if x.a == 0:
            return Affine(x.b * y.a, x.b * y.b)
        if y.a == 0:
            return Affine(y.b * x.a, y.b * x.b)
        return None
    if name in _COMPARE and len(ins) == 2 and length >= 1:
        diff = Affine(ins[0].a - ins[1].a, ins[0].b - ins[1].b)
        return _COMPARE[name](*diff.bounds(length))
    if name == "clamp" and length >= 1:
        lo, x, hi = ins
        if lo.a == 0 and hi.a == 0:
            xlo, xhi = x.bounds(length)
            if lo.b <= xlo and xhi <= hi.b:
                return x
        return None
    return None


def iota_affine(body: Body, atom, length: int) -> Affine | None:
    """``Affine(1, 0)`` in the element position when ``atom`` is ``arange(length)`` (an ``iota``)."""
    if not isinstance(atom, Var):
        return None
    eqn = body.producers.get(atom)
    if eqn is None or eqn.name != "iota" or not jc.is_integer_dtype(atom.dtype):
        return None
    params = jc.iota_params(eqn.params)
    if params is None or params[0] != 0 or params[1] != (length,):
        return None
    return Affine(1, 0)
