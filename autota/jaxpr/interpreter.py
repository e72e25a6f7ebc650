"""Evaluate an IR program, letting rules replace the equations they recognise.

This is the interpreter of JAX's "Writing custom Jaxpr interpreters" tutorial over the IR of
:mod:`autota.jaxpr.ir`: every equation is bound with its own parameters unless a rule has
registered a handler for its primitive name, in which case the handler computes the outputs
(usually by calling public ``lax`` functions on Python bodies that evaluate rewritten jaxprs
with this same interpreter, which is how rewrites recurse into nested loops and branches).
Running it under ``jax.make_jaxpr`` yields the rewritten program.
"""

from __future__ import annotations

from typing import Callable, Iterable

from autota.jaxpr import ir
from autota.jaxpr import jaxcompat as jc
from autota.jaxpr.findings import LoopFinding

Handler = Callable[["Context", ir.Eqn, list, ir.Body], list]
HANDLERS: dict[str, Handler] = {}
PREPASSES: list[Callable[["Context", ir.Body], list]] = []


def handles(*names: str):
    """Register ``fn(ctx, eqn, invals, body) -> outvals`` for the primitives ``names``."""

    def register(fn: Handler) -> Handler:
        for name in names:
            HANDLERS[name] = fn
        return fn

    return register


def prepass(fn):
    """Register ``fn(ctx, body) -> eqns``: a structural rewrite of a body before evaluation."""
    PREPASSES.append(fn)
    return fn


class Context:
    """The enabled rules, the IR read so far (by jaxpr identity) and the findings recorded."""

    def __init__(self, enabled: Iterable[str]):
        self.enabled = frozenset(enabled)
        self._ir: dict[int, tuple[object, ir.Body]] = {}
        self._eqns: dict[int, list] = {}
        self._findings: dict[tuple, LoopFinding] = {}

    def ir(self, jaxpr) -> ir.Body:
        """The IR of ``jaxpr``, read once so that loop bodies traced twice share it."""
        entry = self._ir.get(id(jaxpr))
        if entry is None or entry[0] is not jaxpr:
            entry = (jaxpr, ir.from_jaxpr(jaxpr))
            self._ir[id(jaxpr)] = entry
        return entry[1]

    def eqns(self, body: ir.Body) -> list:
        """The body's equations after the registered structural rewrites (computed once)."""
        key = id(body)
        if key not in self._eqns:
            eqns = body.eqns
            for fn in PREPASSES:
                eqns = fn(self, body, eqns)
            self._eqns[key] = eqns
        return self._eqns[key]

    def record(self, key: tuple, finding: LoopFinding) -> None:
        """Record a finding once, however often its body is traced."""
        self._findings.setdefault(key, finding)

    @property
    def findings(self) -> list[LoopFinding]:
        return list(self._findings.values())


def read(env: dict, atom):
    return atom.value if isinstance(atom, ir.Lit) else env[atom]


def run(ctx: Context, body: ir.Body, args, skip: frozenset = frozenset()) -> dict:
    """Evaluate ``body`` on ``args`` (``None`` for inputs the caller removed); return the env.

    Equations in ``skip`` are not evaluated (their outputs were moved out by a rewrite).
    """
    env: dict = dict(zip(body.constvars, body.consts))
    for var, value in zip(body.invars, args):
        if value is not None:
            env[var] = value
    for eqn in ctx.eqns(body):
        if eqn in skip:
            continue
        invals = [read(env, a) for a in eqn.ins]
        handler = HANDLERS.get(eqn.name)
        with jc.at_source(eqn.info):  # what is bound here keeps the user's source line
            outs = handler(ctx, eqn, invals, body) if handler is not None else None
            if outs is None:
                outs = jc.bind(eqn.primitive, eqn.params, invals)
        for var, value in zip(eqn.outs, outs):
            if var is not None:
                env[var] = value
    return env


def evaluate(ctx: Context, body: ir.Body, args) -> list:
    """The outputs of ``body`` on ``args``."""
    env = run(ctx, body, args)
    return [read(env, a) for a in body.outvars]
