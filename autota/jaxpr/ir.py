"""A small, JAX-version-independent view of a jaxpr.

The pattern analyses need three things a jaxpr does not give directly: fresh variable identities
(the same inner jaxpr may be inlined twice), the equation that produced a variable, and how
often a variable is used. Nested ``jit`` calls are inlined while reading, so that
``lax.dynamic_update_index_in_dim`` (a ``jit`` wrapping ``dynamic_update_slice``) is seen as the
write it is. Other nested jaxprs (loop bodies, branches) stay in the parameters and are read
on demand.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from autota.jaxpr import jaxcompat as jc


class Var:
    """A variable: compared by identity, carrying its abstract value."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    @property
    def shape(self) -> tuple:
        return tuple(self.aval.shape)

    @property
    def dtype(self):
        return self.aval.dtype

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Var({self.aval})"


@dataclass(frozen=True, eq=False)
class Lit:
    """A literal constant appearing as an operand."""

    value: Any
    aval: Any

    @property
    def shape(self) -> tuple:
        return tuple(np.shape(self.value))

    @property
    def dtype(self):
        return self.aval.dtype


@dataclass(eq=False)
class Eqn:
    name: str
    primitive: Any
    params: dict
    ins: tuple
    outs: tuple  # Var, or None for a dropped output
    source: str | None
    info: Any = None
    """JAX's source information, re-applied when the equation is bound again."""


@dataclass(eq=False)
class Body:
    """An open program: ``consts`` are bound to ``constvars`` before evaluation."""

    constvars: tuple
    consts: list
    invars: tuple
    eqns: list
    outvars: tuple
    producers: dict = field(default_factory=dict)

    def __post_init__(self):
        for eqn in self.eqns:
            for v in eqn.outs:
                if v is not None:
                    self.producers[v] = eqn

    @cached_property
    def uses(self) -> Counter:
        """How many times each variable is read (as an operand or as an output)."""
        counts: Counter = Counter()
        for eqn in self.eqns:
            for a in eqn.ins:
                if isinstance(a, Var):
                    counts[a] += 1
        for a in self.outvars:
            if isinstance(a, Var):
                counts[a] += 1
        return counts


def from_jaxpr(jaxpr) -> Body:
    """Read a closed (or open, const-free) jaxpr into a :class:`Body`, inlining ``jit`` calls."""
    inner, consts = jc.open_jaxpr(jaxpr)
    constvars, invars, _, _ = jc.jaxpr_parts(inner)
    env: dict = {}
    new_constvars = tuple(_fresh(env, v) for v in constvars)
    new_invars = tuple(_fresh(env, v) for v in invars)
    eqns: list[Eqn] = []
    outvars = _read_into(inner, env, eqns)
    return Body(new_constvars, list(consts), new_invars, eqns, tuple(outvars))


def _fresh(env: dict, v) -> Var:
    new = Var(jc.aval_of(v))
    env[v] = new
    return new


def _atom(env: dict, a):
    if jc.is_literal(a):
        return Lit(jc.literal_value(a), jc.aval_of(a))
    return env[a]


def _read_into(inner, env: dict, eqns: list, caller=None) -> list:
    """Append the equations of open jaxpr ``inner`` (variables already in ``env``) to ``eqns``.

    ``caller`` is the ``jit`` equation ``inner`` is inlined from: its equations without a
    user source line of their own (a ``jnp`` function's internals) take the caller's."""
    _, _, jeqns, outvars = jc.jaxpr_parts(inner)
    for eqn in jeqns:
        source, info = jc.eqn_source(eqn), jc.source_info(eqn)
        if source is None and caller is not None:
            source, info = caller
        ins, outs = jc.eqn_io(eqn)
        name = jc.eqn_name(eqn)
        params = jc.eqn_params(eqn)
        atoms = [_atom(env, a) for a in ins]
        callee = jc.jit_inner(params) if name in jc.JIT_NAMES else None
        if callee is not None:
            sub, sub_consts = jc.open_jaxpr(callee)
            sub_constvars, sub_invars, _, _ = jc.jaxpr_parts(sub)
            if len(sub_consts) == len(sub_constvars):  # its constants (`v + C` of a NumPy `C`) become literals
                sub_env = {**{v: Lit(c, jc.abstract(c)) for v, c in zip(sub_constvars, sub_consts)}, **dict(zip(sub_invars, atoms))}
                results = _read_into(sub, sub_env, eqns, (source, info))
                for v, r in zip(outs, results):
                    if not jc.is_dropvar(v):
                        env[v] = r
                continue
        new_outs = tuple(None if jc.is_dropvar(v) else _fresh(env, v) for v in outs)
        eqns.append(Eqn(name, jc.eqn_primitive(eqn), params, tuple(atoms), new_outs, source, info))
    return [_atom(env, a) for a in outvars]
