"""Which functions run traced (under ``jit`` or as a ``lax`` loop body) rather than eagerly.

The same Python loop costs different things in the two worlds: eagerly, every step dispatches
and copies; traced, the loop is unrolled into the program and the cost moves to compile time
(while XLA updates buffers in place). Rules ask this module which world a node lives in.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from autota.source import scopes

JIT = frozenset(
    {
        "jax.jit",
        "jax.pmap",
        "jax.experimental.pjit.pjit",
        "equinox.filter_jit",
        "equinox.filter_pmap",
        "flax.linen.jit",
    }
)
PARTIAL = frozenset({"functools.partial"})
LOOP_BODIES = {
    "jax.lax.fori_loop": (2,),
    "jax.lax.scan": (0,),
    "jax.lax.while_loop": (0, 1),
    "jax.lax.map": (0,),
}


@dataclass(frozen=True)
class Traced:
    """Why a function is traced: ``"jit"`` or ``"loop-body"``, and the node that says so."""

    kind: str
    node: cst.CSTNode


class TracedFunctions:
    """Index of the module's traced functions, built once per file and rule."""

    def __init__(self, rule, module: cst.Module) -> None:
        self.rule = rule
        self.by_function: dict[cst.CSTNode, Traced] = {}
        for node in scopes.find(module, lambda n: isinstance(n, (cst.FunctionDef, cst.Call))):
            if isinstance(node, cst.FunctionDef):
                for decorator in node.decorators:
                    if self._is_jit(decorator.decorator):
                        self.by_function[node] = Traced("jit", decorator)
            else:
                self._record_call(node)

    def _is_jit(self, expr: cst.BaseExpression) -> bool:
        if self.rule.matches(expr, JIT):
            return True
        if isinstance(expr, cst.Call):
            if self.rule.matches(expr.func, JIT):
                return True
            if self.rule.matches(expr.func, PARTIAL) and expr.args:
                return bool(self.rule.matches(expr.args[0].value, JIT))
        return False

    def _record_call(self, call: cst.Call) -> None:
        if self._is_jit(call.func) and call.args:
            self._mark(call.args[0].value, Traced("jit", call))
        positions = None
        name = self.rule.matches(call.func, LOOP_BODIES)
        if name:
            positions = LOOP_BODIES[name]
        for index in positions or ():
            if index < len(call.args) and call.args[index].keyword is None:
                self._mark(call.args[index].value, Traced("loop-body", call))

    def _mark(self, expr: cst.BaseExpression, traced: Traced) -> None:
        if isinstance(expr, cst.Lambda):
            self.by_function.setdefault(expr, traced)
        elif isinstance(expr, cst.Name):
            for definition in self._definitions(expr):
                self.by_function.setdefault(definition, traced)

    def _definitions(self, name: cst.Name) -> list[cst.FunctionDef]:
        scope = scopes.enclosing_scope(self.rule, name)
        while True:
            found = [
                d for d in self.rule.semantics.definitions_in(scope, name.value) if isinstance(d, cst.FunctionDef)
            ]
            if found or isinstance(scope, cst.Module):
                return found
            scope = scopes.enclosing_scope(self.rule, scope)

    def context(self, node: cst.CSTNode) -> Traced | None:
        """The trace that ``node`` runs under, from the innermost traced function around it."""
        for ancestor in self.rule.ancestors(node):
            traced = self.by_function.get(ancestor)
            if traced is not None:
                return traced
        return None
