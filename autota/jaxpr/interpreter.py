"""Evaluate an IR program, letting rules replace the equations they recognise.

This is the interpreter of JAX's "Writing custom Jaxpr interpreters" tutorial over the IR of
:mod:`autota.jaxpr.ir`. A rule registers, for some primitive names, a *planner* that decides
(and records as findings) what it would change about an equation, and an *applier* that
computes the outputs with public ``lax`` functions. Everything else is rebuilt only where it
changed, as Equinox's ``_finalise_jaxpr`` does: an equation with nothing to rewrite, its nested
programs included, is bound exactly as it was, every parameter kept (``unroll`` of any kind,
``_split_transpose``, parameters JAX has not invented yet); one whose nested jaxprs change
is bound with those jaxprs replaced and every other parameter kept. Running it under
``jax.make_jaxpr`` yields the rewritten program.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from autota.jaxpr import ir
from autota.jaxpr import jaxcompat as jc
from autota.jaxpr.findings import LoopFinding, unknown_layout

Planner = Callable[["Context", ir.Eqn, ir.Body], Any]
Applier = Callable[["Context", ir.Eqn, Any, list, ir.Body], list]


@dataclass(frozen=True)
class Rule:
    """``plan(ctx, eqn, body)`` returns a plan or ``None`` (nothing to change) and records
    findings; ``apply(ctx, eqn, plan, invals, body)`` returns the outputs of a planned rewrite."""

    plan: Planner
    apply: Applier


RULES: dict[str, Rule] = {}
PREPASSES: list[Callable] = []


def handles(*names: str, plan: Planner):
    """Register the decorated applier, with ``plan``, for the primitives ``names``."""

    def register(apply: Applier) -> Applier:
        for name in names:
            RULES[name] = Rule(plan, apply)
        return apply

    return register


def prepass(fn):
    """Register ``fn(ctx, body, eqns) -> eqns``: a structural rewrite of a body before evaluation."""
    PREPASSES.append(fn)
    return fn


class Context:
    """The enabled rules, the IR read so far, the plans made and the findings recorded.

    Everything is keyed by object identity and computed once, so that a body traced twice
    (a loop rebuilt inside another) is read, planned and reported once.
    """

    def __init__(self, enabled: Iterable[str]):
        self.enabled = frozenset(enabled)
        self._memo: dict[tuple, tuple] = {}
        self._findings: dict[tuple, LoopFinding] = {}

    def memo(self, kind: str, obj, build):
        """``build()``, computed once per ``(kind, obj)`` (``obj`` kept alive with its entry)."""
        key = (kind, id(obj))
        entry = self._memo.get(key)
        if entry is None or entry[0] is not obj:
            entry = (obj, build())
            self._memo[key] = entry
        return entry[1]

    def ir(self, jaxpr) -> ir.Body:
        """The IR of ``jaxpr``, read once so that loop bodies traced twice share it."""
        return self.memo("ir", jaxpr, lambda: ir.from_jaxpr(jaxpr))

    def eqns(self, body: ir.Body) -> list:
        """The body's equations after the registered structural rewrites (computed once)."""

        def rewrite():
            eqns = body.eqns
            for fn in PREPASSES:
                try:
                    eqns = fn(self, body, eqns)
                except jc.UnknownLayout as err:
                    self.passed_through(None, err)
            return eqns

        return self.memo("eqns", body, rewrite)

    def plan(self, eqn: ir.Eqn, body: ir.Body):
        """The registered rule's plan for ``eqn`` (``None``: nothing of its own to change)."""

        def decide():
            rule = RULES.get(eqn.name)
            if rule is None:
                return None
            try:
                return rule.plan(self, eqn, body)
            except jc.UnknownLayout as err:
                self.passed_through(eqn, err)
                return None

        return self.memo("plan", eqn, decide)

    def nested_params(self, eqn: ir.Eqn) -> dict:
        """``eqn.params`` with every nested jaxpr that changes replaced by its rewrite.

        The same object as ``eqn.params`` when nothing inside changes, which is how callers
        tell; custom differentiation rules keep their programs, and say so where they hide loops.
        """
        return self.memo("nested", eqn, lambda: self._rewrite_nested(eqn))

    def _rewrite_nested(self, eqn: ir.Eqn) -> dict:
        nested = jc.nested_jaxprs(eqn.params)
        if not nested:
            return eqn.params
        if eqn.name in jc.CUSTOM_RULE_NAMES:
            if any(_has_loop_write(sub) for _, _, sub in nested):
                self.record(
                    (id(eqn), "custom"),
                    unknown_layout(
                        eqn.name, "a loop writing a buffer inside a custom differentiation rule is not "
                        "examined: the rule refers to the original program", eqn.source,
                    ),
                )
            return eqn.params
        replaced = {}
        for key, pos, sub in nested:
            body = self.ir(sub)
            if not self.changes(body):
                continue
            new = jc.retrace_like(lambda *args, _b=body: evaluate(self, _b, args), sub)
            if new is None:
                self.record(
                    (id(eqn), key, pos),
                    unknown_layout(
                        eqn.name, f"its rewritten {key} could not be traced again as it was (other types, "
                        "constants or shardings, or an axis name only its own trace binds: a `shard_map` or "
                        "`pmap` body); kept as it was", eqn.source,
                    ),
                )
                continue
            replaced[(key, pos)] = new
        return jc.with_jaxprs(eqn.params, replaced) if replaced else eqn.params

    def changes(self, body: ir.Body) -> bool:
        """Whether evaluating ``body`` rewrites anything, at any depth.

        Every equation is planned (not only up to the first change), so that each loop at
        every depth is reported whether or not anything around it changes.
        """

        def decide():
            eqns = self.eqns(body)
            changed = len(eqns) != len(body.eqns) or any(a is not b for a, b in zip(eqns, body.eqns))
            for eqn in eqns:
                own = self.plan(eqn, body) is not None
                inner = self.nested_params(eqn) is not eqn.params
                changed = changed or own or inner
            return changed

        return self.memo("changes", body, decide)

    def passed_through(self, eqn: ir.Eqn | None, err: jc.UnknownLayout) -> None:
        """Report an equation bound untouched because its layout is not understood."""
        key = (id(eqn), "layout") if eqn is not None else ("layout", err.primitive, err.detail)
        source = eqn.source if eqn is not None else None
        self.record(key, unknown_layout(err.primitive, f"parameters not understood: {err.detail}", source))

    def record(self, key: tuple, finding: LoopFinding) -> None:
        """Record a finding once, however often its body is traced."""
        self._findings.setdefault(key, finding)

    @property
    def findings(self) -> list[LoopFinding]:
        return list(self._findings.values())


def _has_loop_write(jaxpr, in_loop: bool = False) -> bool:
    """Whether a loop in ``jaxpr`` (at any depth) writes with ``scatter``/``dynamic_update_slice``:
    the loops a pass-through can hide a buffer in. Loops without writes (a solver's iteration
    inside ``jax.scipy``'s ``custom_jvp`` functions) hide nothing."""
    inner, _ = jc.open_jaxpr(jaxpr)
    for eqn in jc.jaxpr_parts(inner)[2]:
        name = jc.eqn_name(eqn)
        if in_loop and name in jc.WRITES:
            return True
        looped = in_loop or name in (jc.SCAN, jc.WHILE)
        if any(_has_loop_write(sub, looped) for _, _, sub in jc.nested_jaxprs(jc.eqn_params(eqn))):
            return True
    return False


def read(env: dict, atom):
    return atom.value if isinstance(atom, ir.Lit) else env[atom]


def run(ctx: Context, body: ir.Body, args, skip: frozenset = frozenset()) -> dict:
    """Evaluate ``body`` on ``args`` (``None`` for inputs the caller removed); return the env.

    Equations in ``skip`` are not evaluated (their outputs were moved out by a rewrite).
    """
    env: dict = dict(zip(body.constvars, body.consts, strict=True))
    for var, value in zip(body.invars, args, strict=True):
        if value is not None:
            env[var] = value
    for eqn in ctx.eqns(body):
        if eqn in skip:
            continue
        invals = [read(env, a) for a in eqn.ins]
        plan = ctx.plan(eqn, body)
        with jc.at_source(eqn.info):  # what is bound here keeps the user's source line
            if plan is not None:
                outs = RULES[eqn.name].apply(ctx, eqn, plan, invals, body)
            else:
                outs = jc.bind(eqn.primitive, ctx.nested_params(eqn), invals)
        for var, value in zip(eqn.outs, outs, strict=True):
            if var is not None:
                env[var] = value
    return env


def evaluate(ctx: Context, body: ir.Body, args) -> list:
    """The outputs of ``body`` on ``args``."""
    env = run(ctx, body, args)
    return [read(env, a) for a in body.outvars]
