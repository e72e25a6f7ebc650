"""AT301: a jitted step returns an updated copy of an argument without donating it.

``jit`` cannot update an argument in place unless it is donated: every call allocates and
fills a new buffer as large as the argument, and a Python loop that calls ``buf = step(buf)``
pays that copy once per step. Donation (``donate_argnums``) lets XLA reuse the input buffer.
The fix is unsafe by nature: after the call the caller's old array is deleted.
"""

from __future__ import annotations


import libcst as cst

from autota.catalogue import Fix
from autota.source import prefilter, scopes
from autota.source.prefilter import UPDATE_METHODS
from autota.source.rule import SourceRule
from autota.source.tracing import JIT, PARTIAL

LAX = "jax.lax"
WRITES = frozenset(
    {f"{LAX}.dynamic_update_slice", f"{LAX}.dynamic_update_slice_in_dim", f"{LAX}.dynamic_update_index_in_dim"}
)
DONATE = ("donate_argnums", "donate_argnames")


class DonationRule(SourceRule):
    codes = ("AT301",)
    triggers = ("jit",)

    @classmethod
    def relevant(cls, facts: prefilter.Facts) -> set[int] | None:
        """Jitted functions that update an array, and the loops that call them."""
        jitted = [f for f in facts.jitted() if any(prefilter.inside(u, f) for u in facts.updates)]
        if not jitted:
            return set()
        names = {f.node.name for f in jitted}
        names |= {name for name, site in facts.call_assigns if facts.name(site.node.func) in prefilter.JIT_NAMES}
        callers = [s for s in facts.calls if s.in_loop and prefilter.terminal(s.node.func) in names]
        if not callers:
            return set()
        return prefilter.tops(jitted) | prefilter.tops(callers) | prefilter.tracing_call_tops(facts, jitted)

    def visit_Module(self, node: cst.Module) -> None:
        for function, jit_node in self._jitted(node):
            if self._donates(jit_node):
                continue
            updated = self._updated_params(function)
            if not updated:
                continue
            params = [p.name.value for p in function.params.params]
            calls = self._loop_calls(node, function, jit_node, updated, params)
            for call, position in calls:
                self._report(function, jit_node, call, params[position], position)
                break

    # -- which functions are jitted, and how --------------------------------------------------
    def _is_jit(self, expr) -> bool:
        if self.matches(expr, JIT):
            return True
        if isinstance(expr, cst.Call):
            if self.matches(expr.func, JIT):
                return True
            if self.matches(expr.func, PARTIAL) and expr.args:
                return bool(self.matches(expr.args[0].value, JIT))
        return False

    def _jitted(self, module: cst.Module):
        """``(function, node)``: the decorator expression or the ``jax.jit(f)`` call."""
        found = []
        for function in self.semantics.find(module, lambda n: isinstance(n, cst.FunctionDef)):
            for decorator in function.decorators:
                if self._is_jit(decorator.decorator):
                    found.append((function, decorator.decorator, function.name.value))
        for assign in self.semantics.find(module, lambda n: isinstance(n, cst.Assign)):
            call = assign.value
            name = scopes.assign_to(assign)
            if name and isinstance(call, cst.Call) and self.matches(call.func, JIT) and call.args:
                target = call.args[0].value
                function = self.semantics.binding(target) if isinstance(target, cst.Name) else None
                if isinstance(function, cst.FunctionDef) and not function.decorators:
                    found.append((function, call, name))
        self._names = {id(node): name for _, node, name in found}
        return [(f, node) for f, node, _ in found]

    def _donates(self, node) -> bool:
        return isinstance(node, cst.Call) and any(a.keyword is not None and a.keyword.value in DONATE for a in node.args)

    def _updated_params(self, function: cst.FunctionDef) -> dict[int, str]:
        """Positions of parameters whose updated copy the function returns."""
        params = [p.name.value for p in function.params.params]
        derived: dict[str, str] = {}  # name -> parameter it is an updated copy of
        for assign in self.semantics.own_nodes(function, lambda n: isinstance(n, cst.Assign)):
            name = scopes.assign_to(assign)
            source = self._written(assign.value)
            if name and source is not None:
                origin = source if source in params else derived.get(source)
                if origin is not None:
                    derived[name] = origin
        updated: dict[int, str] = {}
        for ret in self.semantics.own_nodes(function, lambda n: isinstance(n, cst.Return)):
            values = [ret.value]
            if isinstance(ret.value, (cst.Tuple, cst.List)):
                values = [e.value for e in ret.value.elements]
            for value in values:
                origin = None
                if isinstance(value, cst.Name):
                    origin = derived.get(value.value)
                else:
                    source = self._written(value)
                    if source is not None:
                        origin = source if source in params else derived.get(source)
                if origin is not None:
                    updated[params.index(origin)] = origin
        return updated

    def _written(self, expr) -> str | None:
        """The name whose updated copy ``expr`` is (``x.at[i].set(v)``, ``dynamic_update_slice(x, ...)``)."""
        if not isinstance(expr, cst.Call):
            return None
        update = scopes.at_update(expr)
        if update is not None and update[1] in UPDATE_METHODS:
            return update[0]
        func = expr.func
        if self.matches(func, WRITES) and expr.args and isinstance(expr.args[0].value, cst.Name):
            return expr.args[0].value.value
        return None

    def _loop_calls(self, module, function, jit_node, updated, params):
        """Calls ``x = step(..., x, ...)`` inside a Python loop, with ``x`` at an updated position."""
        name = self._names[id(jit_node)]
        found = []
        for call in self.semantics.find(module, lambda n: isinstance(n, cst.Call)):
            if not (isinstance(call.func, cst.Name) and call.func.value == name):
                continue
            if self.semantics.binding(call.func) not in (jit_node, function):  # another `name` is called
                continue
            if not scopes.enclosing_loops(self, call):
                continue
            assign = self.parent(call)
            if not isinstance(assign, cst.Assign) or assign.value is not call:
                continue
            bound = {n.value for t in assign.targets for n in self.semantics.find(t.target, lambda x: isinstance(x, cst.Name))}
            for position, arg in enumerate(call.args):
                if arg.keyword is not None or arg.star:
                    break
                if position in updated and isinstance(arg.value, cst.Name) and arg.value.value in bound:
                    found.append((call, position))
                    break
        return found

    def _report(self, function, jit_node, call, param: str, position: int) -> None:
        message = (
            f"`{function.name.value}` is jitted without donating `{param}` and returns an updated copy of it; "
            f"called in a loop that rebinds the argument, every call copies the whole array (O(size) a step)"
        )
        fix = self._fix(jit_node, position)
        if fix is None:
            self.report("AT301", call, f"{message}; no fix: the `jit` call cannot be extended here")
            return
        self.report(
            "AT301",
            call,
            f"{message}; donate it (`donate_argnums=({position},)`); the fix is unsafe: after each call the "
            "caller's old array is deleted, so any other reference to it breaks (the same array passed twice in one "
            "call fails at once)",
            fix,
        )

    def _fix(self, jit_node, position: int) -> Fix | None:
        keyword = f"donate_argnums=({position},)"
        if isinstance(jit_node, cst.Call):
            args = [self.code_of(a).strip().rstrip(",").strip() for a in jit_node.args]
            new = f"{self.code_of(jit_node.func)}({', '.join(args + [keyword])})"
        else:
            # `@jax.jit(donate_argnums=...)` needs jax >= 0.8.1; `functools.partial` works in every
            # version, so it is used wherever `functools` is already imported.
            functools_name = self.semantics.module_spelling("functools")
            if functools_name is not None:
                new = f"{functools_name}.partial({self.code_of(jit_node)}, {keyword})"
            else:
                new = f"{self.code_of(jit_node)}({keyword})"
        return Fix("unsafe", f"donate argument {position}", (self.replace(jit_node, new),))
