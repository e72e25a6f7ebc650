"""AT201-AT204: buffers carried through ``lax`` loops and written one slot a step.

A preallocated buffer carried through ``fori_loop``/``scan`` and written at the loop index is
what ``scan``'s stacked outputs are for: under ``jax.grad`` the carried buffer is saved or
rebuilt every step (run time ~T^1.85), the stacked output is not. The AT201 fix removes the
buffer from the carry, returns the written value as a stacked output, and writes all the rows
into the initial buffer once after the loop, so every name after the loop holds what it held
before (unwritten slots, dtype casts and dropped out-of-range writes included). It is offered
only where that is proven from the source; elsewhere the finding names the precondition that
failed.
"""

from __future__ import annotations

import ast

import libcst as cst

from autota.source import prefilter
from autota.source.rule import SourceRule
from autota.source.rules.loop_buffers.body import LoopBodies, Write
from autota.source.rules.loop_buffers.carried import CarriedBuffers
from autota.source.rules.loop_buffers.select import SelectUpdates
from autota.source.rules.loop_buffers.statics import StaticFacts
from autota.source.rules.loop_buffers.syntax import BODY_ARG, INIT_ARG, LOOPS, WHERE
from autota.source.rules.loop_buffers.while_loops import WhileLoops


class LoopBufferRule(CarriedBuffers, WhileLoops, SelectUpdates, LoopBodies, StaticFacts, SourceRule):
    """One visitor for the family: each ``lax`` loop call is taken apart once (:mod:`.body`), then
    each buffer it writes is judged by the rule that fits (:mod:`.carried`, :mod:`.while_loops`);
    ``jnp.where``/``lax.select`` calls go to :mod:`.select`."""

    codes = ("AT201", "AT202", "AT203", "AT204")
    triggers = ("fori_loop", "scan", "while_loop", "where", "select")

    @classmethod
    def relevant(cls, facts: prefilter.Facts) -> set[int] | None:
        """``lax`` loop calls whose body (a named function or a lambda) updates an array, with
        every function the call names (a ``while_loop``'s condition too)."""
        functions: dict[str, list[prefilter.Site]] = {}
        for f in facts.functions:
            if not isinstance(f.node, ast.Lambda):
                functions.setdefault(f.node.name, []).append(f)
        needed: set[int] = set()
        classes = None
        for call in facts.calls_named(prefilter.LOOP_NAMES):
            args = [*call.node.args, *(k.value for k in call.node.keywords)]
            lambdas = [a for a in args if isinstance(a, ast.Lambda)]
            # a named body, or one a lambda forwards to (`lambda c, i: step(i, c)`)
            mentioned = [a for a in args if isinstance(a, ast.Name)]
            mentioned += [n for a in lambdas for n in ast.walk(a.body) if isinstance(n, ast.Name)]
            named = [f for a in mentioned for f in functions.get(a.id, ())]
            if any(prefilter.inside(u, f) for u in facts.updates for f in named) or any(
                f is arg for u in facts.updates for f in u.functions for arg in lambdas
            ):
                needed |= {call.top} | prefilter.tops(named)
            unknown = {a.id for a in mentioned} - set(functions)
            if unknown:  # `nn.scan(Cell, ...)`: a class whose method updates an array
                if classes is None:
                    classes = [
                        (top, node)
                        for top, statement in enumerate(facts.tree.body)
                        for node in ast.walk(statement)
                        if isinstance(node, ast.ClassDef)
                    ]
                for top, node in classes:
                    if node.name in unknown and any(
                        node.lineno <= u.node.lineno <= node.end_lineno for u in facts.updates
                    ):
                        needed |= {call.top, top}
        return needed

    def __init__(self, context) -> None:
        super().__init__(context)
        self._reported: set[tuple[str, int, int]] = set()

    def report(self, code, node, message, fix=None, reason=None, **details) -> None:
        """Once per code and place: a body shared by two loops is judged by each of them."""
        location = self.location(node)
        key = (code, location.line, location.column)
        if key not in self._reported:
            self._reported.add(key)
            super().report(code, node, message, fix, reason, **details)

    def visit_Call(self, node: cst.Call) -> None:
        name = self.matches(node.func, LOOPS)
        if name is not None:
            kind = LOOPS[name]
            if kind == "nn.scan":
                self._check_flax_scan(node)
            else:
                self._check_loop(node, kind)
            return
        if self.matches(node.func, WHERE):
            self._check_select(node)

    def _check_loop(self, call: cst.Call, kind: str) -> None:
        args = self._arguments(call, kind)
        if args is None or BODY_ARG[kind] not in args or INIT_ARG[kind] not in args:
            return
        function = self._function(args[BODY_ARG[kind]].value)
        body = self._body(function, kind)
        writes = self._writes(body)
        if not writes:
            return
        by_buffer: dict[str, list[Write]] = {}
        for write in writes:
            by_buffer.setdefault(write.label, []).append(write)
        for label, group in by_buffer.items():
            write = group[0]
            reads = self._other_reads(body, write.buf, group)
            previous = self._previous_rows(call, kind, args, body, group, reads)
            if reads and previous is None:
                self._report_read_back(kind, write, reads[0])
                continue
            if kind == "while":
                self._report_while(call, args, body, write, group)
                continue
            self._report_carried(call, kind, args, body, write, group, previous or [])
