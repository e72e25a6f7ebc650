"""AT202: buffers in ``while_loop``s, and the rewrite of a counted ``while_loop`` into a ``fori_loop``."""

from __future__ import annotations

import libcst as cst

from autota.catalogue import Fix
from autota.source import scopes, vocabulary
from autota.source.rules.loop_buffers.body import Write, Body
from autota.source.rules.loop_buffers.syntax import JNP, all_params, int_value
from autota.source.vocabulary import ARRAY_METADATA


SIZED = frozenset({"builtins.range"} | {f"{JNP}.{c}" for c in ("zeros", "ones", "empty", "full")})
"""Calls whose first argument is a size or a shape: they refuse a float there."""


class WhileLoops:
    """AT202."""

    def _report_while(self, call, args, body: Body, write: Write, group: list[Write]) -> None:
        base = (
            f"`{write.label}` is written in a `while_loop`, which cannot be reverse-differentiated (`jax.grad` fails)"
        )
        cond = self._function(args["cond_fun"].value)
        named = args["cond_fun"].value
        if isinstance(cond, cst.Lambda) and isinstance(named, cst.Name) and self.semantics.single_assignment(
            scopes.enclosing_scope(self, cond), named.value
        ) is not cond:
            # the binding that reaches the loop is the one that runs only where no other is made
            test = f"the condition `{named.value}` is bound more than once"
        else:
            test = self._counter_bound(cond, body, call)
        if isinstance(test, str):
            if self._constant_row(self._written_value(write)) and self._stops_on_event(cond):
                return  # each step reached marked with one value (`codes.at[i].set(3)`): a mask of the steps run, no rows
            self.report(
                "AT202",
                write.call,
                f"{base}; the loop is not proven to run a fixed number of steps (it may exit early, or its bound "
                "may not be static); options: a `scan` over the maximum length that masks the steps after "
                "the exit (`jnp.where(done, old, new)`) makes it differentiable; or, without `grad`, keep the "
                "buffer and donate it at the `jit` boundary (`donate_argnums`)",
                reason=test,
            )
            return
        counter, position, bound = test
        message = (
            f"{base}; its condition `{counter} < {self.code_of(bound)}` counts a step-by-one counter to a static "
            "bound, so it runs a fixed number of steps"
        )
        plan = self._while_plan(call, args, cond, body, position, bound)
        if isinstance(plan, str):
            self.report(
                "AT202",
                write.call,
                f"{message}: rewrite it as a `fori_loop`/`scan` (then AT201 applies) and `grad` becomes possible",
                reason=plan,
            )
            return
        shared = self._shared_trace(call, body.forward or body.function, reads_initial=False)
        graded = self.traced.reverse_mode_call(call) if shared is None else None
        if graded is not None:
            shared = (
                f"that the loop is not reverse-differentiated: `{self.code_of(graded.func).strip()}` reaches it (line "
                f"{self.start_line(graded)}), where the `while_loop` raised `ValueError` and the fix returns the gradient"
            )
        if shared is None and self.context.source.mentions("linear_transpose"):
            shared = (
                "that `jax.linear_transpose` is not applied to the loop's function: it refuses the `while_loop` "
                "with a `ValueError` and the fix's `fori_loop` with a `NotImplementedError`"
            )
        if shared is None:  # the carry may hold floats (an integer one is no finding): `grad` may reach it from anywhere
            shared = (
                "that no reverse-mode derivative goes through the loop (`jax.grad`, `vjp`, `jacrev` of a function "
                "that calls it, in this file or another, by any spelling): there the `while_loop` raised "
                "`ValueError`, and the fix returns the gradient"
            )
        static = [n.value for n in self.semantics.variables(bound) if self._static_parameter(n)]
        if static:  # a caller's int: what it holds is not in the file
            shared += (
                f"; and that the static argument `{static[0]}` lies inside int32: beyond it the condition raised "
                "`OverflowError` comparing it with the int32 counter, where the `fori_loop` runs (none of the steps, "
                "for a large negative bound)"
            )
        self.report(
            "AT202",
            write.call,
            f"{message}: a `fori_loop` with static bounds over the same body computes the same carry and lowers to "
            "a `scan`, so `jax.grad` works; AT201 then makes the buffer a stacked output",
            Fix("unsafe", f"run the body as a `fori_loop` over `{plan[1]}` steps (was: `while_loop`)", plan[0]),
            reason=f"it assumes {shared}",
        )

    def _stops_on_event(self, cond) -> bool:
        """Whether the condition is a conjunction (``(i < n) & (t >= times[i])``, ``and``,
        ``jnp.logical_and``): a loop that may stop before its bound, on what the data says."""
        if not isinstance(cond, (cst.FunctionDef, cst.Lambda)):
            return False
        tests = [cond.body] if isinstance(cond, cst.Lambda) else [
            r.value for r in self.semantics.own_of_kind(cond, cst.Return) if r.value is not None
        ]
        return bool(tests) and all(
            isinstance(t, cst.BinaryOperation) and isinstance(t.operator, cst.BitAnd)
            or isinstance(t, cst.BooleanOperation) and isinstance(t.operator, cst.And)
            or isinstance(t, cst.Call) and self.matches(t.func, {f"{JNP}.logical_and"}) is not None
            for t in tests
        )

    def _conditional(self, function: cst.FunctionDef, scope: cst.CSTNode, call: cst.Call) -> bool:
        """Whether ``function``'s ``def`` may not have run when the loop is called: it sits under a
        compound statement of its scope (an ``if``, a loop, a ``try``, a ``with``), or after the
        loop's statement in the same scope."""
        if scopes.enclosing_scope(self, call) is scope and self.start_line(function) > self.start_line(call):
            return True
        for ancestor in self.ancestors(function):
            if ancestor is scope:
                return False
            if isinstance(ancestor, (cst.If, cst.For, cst.While, cst.Try, cst.TryStar, cst.With, cst.Match)):
                return True
        return False

    def _acts_before(self, bound: cst.BaseExpression, init: cst.BaseExpression) -> bool:
        """Whether evaluating ``bound`` before ``init`` (the fix's order; the condition read it
        after) may show: the bound reads a name that ``init`` rebinds with ``:=``, or calls or
        subscripts something while ``init`` may act on it (a call, a subscript, an attribute that
        may be a property, an operator on something other than literals, or one that may raise on
        literals alone: ``1 / 0``)."""
        names = {n.value for n in self.semantics.of_kind(bound, cst.Name)}
        walrus = self.semantics.of_kind(init, cst.NamedExpr)
        if any(isinstance(w.target, cst.Name) and w.target.value in names for w in walrus) or walrus and not names <= {"len"}:
            return True
        if not self.semantics.of_kind(bound, cst.Call, cst.Subscript):
            return False
        if walrus or self._action(init) is not None:
            return True
        for node in self.semantics.of_kind(init, cst.Attribute, cst.BinaryOperation, cst.UnaryOperation):
            if isinstance(node, cst.Attribute):
                if not self.qualified_names(node) or not any(q.startswith(("jax.", "numpy.")) for q in self.qualified_names(node)):
                    return True  # `h.buf`: a property may run code
            elif not all(
                isinstance(part, (cst.Integer, cst.Float, cst.Imaginary))
                for part in ((node.left, node.right) if isinstance(node, cst.BinaryOperation) else (node.expression,))
            ):
                return True  # `0 + a`: an operator another object may define
            elif isinstance(getattr(node, "operator", None), (cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power, cst.LeftShift, cst.RightShift)):
                return True  # `1 / 0`, `2 ** -1 ** 0.5`, `1 << -1`: literals alone may raise
        return False

    def _bound_changed_while_tracing(self, bound, body: Body, cond) -> str | None:
        """Why the bound may not be the same each time the condition is traced: a `while_loop`
        traces its condition again after its body where a carried value's weak type changes, and
        tracing the body may rebind a name the bound reads (`global`/`nonlocal`) or change what a
        call in it measures (`len(steps)` of a list the body appends to, also through another
        name: `alias = steps; alias += [0]`; or a `__len__` of the file's own that counts). The
        fix reads it once."""
        body_function = body.function
        names = {n.value for n in self.semantics.variables(bound)}
        # what a call, an item or an attribute reads may change while the body is traced
        # (`len(steps)`, `cfg["data"].shape[0]`); a name alone changes only by a declaration
        measured = bool(self.semantics.of_kind(bound, cst.Call, cst.Subscript, cst.Attribute))
        again = "and the `while_loop` may trace its condition again after the body"
        if measured and self.semantics.defines_attribute("__len__"):
            return f"a class of this file defines `__len__`, which may change what the bound `{self.code_of(bound)}` measures, {again}"
        if measured and isinstance(body_function, (cst.FunctionDef, cst.Lambda)):
            calls = self.semantics.find(body_function, lambda n: isinstance(n, cst.Call) and not self.writes_nothing(n))
            if calls:
                return (
                    f"the body calls `{self.code_of(calls[0].func)}(...)` (line {self.start_line(calls[0])}), which may "
                    f"change what the bound `{self.code_of(bound)}` measures while it is traced, {again}"
                )
            carried = {*body.elements, body.carry_param}
            changes = self.semantics.of_kind(body_function, cst.AugAssign, cst.AssignTarget, cst.Del)
            for change in changes:
                target = change.target
                if isinstance(target, (cst.Subscript, cst.Attribute)) or (
                    isinstance(change, cst.AugAssign) and isinstance(target, cst.Name) and target.value not in carried
                ):
                    return (
                        f"the body changes `{self.code_of(target)}` in place (line {self.start_line(change)}), which may "
                        f"be what the bound `{self.code_of(bound)}` measures under another name, {again}"
                    )
        for function in (body_function, cond):
            if not isinstance(function, (cst.FunctionDef, cst.Lambda)):
                continue
            for name in sorted(names):
                uses = self.semantics.names_in(function, name)
                if any(self.semantics.declaration(n) for n in uses):
                    return f"the loop's functions declare `{name}`, which the bound reads, global or nonlocal"
                if measured and function is body_function and any(self._may_change(n) for n in uses):
                    return (
                        f"the body uses `{name}`, which the bound `{self.code_of(bound)}` measures: tracing the body "
                        "may change it, and the `while_loop` may trace its condition again after the body"
                    )
        return None

    def _may_change(self, name: cst.Name) -> bool:
        """Whether this use of ``name`` may change the object it holds: a method or attribute other
        than an array's metadata (`steps.append(x)`), an argument of a call, a store into it;
        reading `xs[i]` or `xs.shape` changes nothing."""
        parent = self.parent(name)
        if isinstance(parent, cst.Attribute) and parent.value is name:
            return parent.attr.value not in ARRAY_METADATA
        if isinstance(parent, cst.Subscript) and parent.value is name:
            return isinstance(self.parent(parent), (cst.AssignTarget, cst.AugAssign, cst.Del))
        return isinstance(parent, cst.Arg) or isinstance(parent, (cst.AssignTarget, cst.Del))

    def _counter_bound(self, cond, body: Body, call: cst.Call):
        """``(counter, position, bound)`` when the condition is only ``counter < bound``, the counter a
        carried value stepped by one once a step and the bound static; else why not."""
        read = self._condition_comparison(cond)
        if isinstance(read, str):
            return read
        comparison, carry, unpacked = read
        if body.problem:
            return body.problem
        if body.unpack is None or isinstance(body.function, cst.Lambda):
            return "the body does not unpack the carry as a tuple"
        left, bound = comparison.left, comparison.comparisons[0].comparator
        if isinstance(comparison.comparisons[0].operator, cst.GreaterThan):  # `bound > counter`
            left, bound = bound, left
        position = self._carry_position(left, carry, unpacked, len(body.elements))
        if isinstance(position, str):
            return position
        counter = body.elements[position]
        if body.elements.count(counter) != 1:
            return f"the body unpacks the carry into `{counter}` more than once"
        problem = self._bound_problem(bound, {carry, *(unpacked or ())}, cond, body, call)
        if problem:
            return problem
        if self._counter_step(body, counter) is None:
            return f"the counter `{counter}` is not stepped by one exactly once a step, unconditionally"
        return self.code_of(left), position, bound

    def _condition_comparison(self, cond):
        """``(comparison, carry, unpacked)`` when ``cond`` takes the carry as its one parameter and
        only returns ``a < b`` or ``a > b``, maybe after unpacking the carry into names
        (``unpacked``, else ``None``); else why not."""
        if not isinstance(cond, (cst.Lambda, cst.FunctionDef)):
            return "the condition is not a `def` or `lambda` found in scope"
        params = cond.params
        if (
            len(params.params) != 1
            or params.posonly_params
            or params.kwonly_params
            or params.star_arg not in (None, cst.MaybeSentinel.DEFAULT)
            or params.star_kwarg is not None
        ):
            return "the condition does not take the carry as its one parameter"
        carry = params.params[0].name.value
        unpacked: list[str] | None = None
        if isinstance(cond, cst.FunctionDef):
            smalls = list(cond.body.body) if isinstance(cond.body, cst.SimpleStatementSuite) else []  # `def cond(c): return ...`
            for line in cond.body.body if not smalls else ():
                if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
                    return "the condition is more than `return counter < bound`"
                smalls.append(line.body[0])
            ret = smalls[-1] if smalls else None
            if not isinstance(ret, cst.Return) or ret.value is None or len(smalls) > 2:
                return "the condition is more than `return counter < bound`"
            if len(smalls) == 2:
                unpack = smalls[0]
                if not (
                    isinstance(unpack, cst.Assign)
                    and len(unpack.targets) == 1
                    and isinstance(unpack.targets[0].target, (cst.Tuple, cst.List))
                    and isinstance(unpack.value, cst.Name)
                    and unpack.value.value == carry
                    and all(
                        isinstance(e, cst.Element) and isinstance(e.value, cst.Name)
                        for e in unpack.targets[0].target.elements
                    )
                ):
                    return "the condition does more than unpack the carry and return `counter < bound`"
                unpacked = [e.value.value for e in unpack.targets[0].target.elements]
            test = ret.value
        else:
            test = cond.body
        if not (
            isinstance(test, cst.Comparison)
            and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, (cst.LessThan, cst.GreaterThan))
        ):
            return "the condition is not a single `counter < bound`"
        return test, carry, unpacked

    def _carry_position(self, left: cst.BaseExpression, carry: str, unpacked: list[str] | None, size: int):
        """Which of the ``size`` carried values the condition compares: ``carry[k]``, or a name the
        condition unpacked the carry into; else why not."""
        position = None
        if (
            isinstance(left, cst.Subscript)
            and isinstance(left.value, cst.Name)
            and left.value.value == carry
            and len(left.slice) == 1
            and isinstance(left.slice[0].slice, cst.Index)
        ):
            position = int_value(left.slice[0].slice.value)
            if position is not None and -size <= position < 0:
                position += size
        elif isinstance(left, cst.Name) and unpacked is not None and unpacked.count(left.value) == 1:
            if len(unpacked) != size:
                return "the condition unpacks the carry into a different number of values than the body"
            position = unpacked.index(left.value)
        if position is None or not 0 <= position < size:
            return f"`{self.code_of(left)}` is not an element of the carry"
        return position

    def _bound_problem(self, bound: cst.BaseExpression, carried: set[str], cond, body: Body, call: cst.Call) -> str | None:
        """Why ``bound`` is not a static int32 that stays the same while the loop traces, if it is
        not (``carried``: the condition's names for the carry and its parts; ``call``: the loop,
        where the fix reads the bound)."""
        if any(self.semantics.names_in(bound, name) for name in carried):
            return f"the bound `{self.code_of(bound)}` reads the carry"
        loop_scope = scopes.enclosing_scope(self, call)
        for name in self.semantics.variables(bound):
            if self.semantics.binding_scope(name) is loop_scope and not any(
                scopes.binding_role(self.semantics.parents, n)[0] is not None and self.start_line(n) < self.start_line(call)
                for n in self.semantics.names_in(loop_scope, name.value)
            ):  # `T = 3` after the loop: the condition raised NameError, the fix UnboundLocalError
                return f"`{name.value}`, which the bound reads, is not bound before the loop"
        if not self._is_static(bound, cond, integer=True, static_args=True):
            return f"the bound `{self.code_of(bound)}` is not provably a static integer"
        changed = self._bound_changed_while_tracing(bound, body, cond)
        if changed:
            return changed
        parts = [bound, *self.semantics.of_kind(bound, cst.Name, cst.Integer, cst.BinaryOperation)]
        if any(scopes.may_overflow_int32(part, self.semantics.value_sources) for part in parts):
            return (
                f"the bound `{self.code_of(bound)}` may not fit an int32: the condition compares it with the "
                "int32 counter and raises OverflowError, where `fori_loop` takes it"
            )
        return None

    def _used_directly(self, name: cst.Name, dimension: cst.BaseExpression) -> bool:
        """Whether ``name`` reaches the dimension through ``+``/``-``/``*`` arithmetic, elements of
        a literal shape and shape concatenation (``(n + 1,) + x.shape``) only: a float there
        reaches the constructor (no call, comparison or condition between, and no tuple
        repetition: ``(n,) * 0`` is ``()``)."""
        node = name
        while node is not dimension:
            parent = self.parent(node)
            if isinstance(parent, cst.BinaryOperation):
                shapes = isinstance(parent.left, (cst.Tuple, cst.List)) or isinstance(parent.right, (cst.Tuple, cst.List))
                if not isinstance(parent.operator, (cst.Add, cst.Subtract, cst.Multiply)) or shapes and not isinstance(
                    parent.operator, cst.Add
                ):
                    return False
            elif isinstance(parent, cst.Element):
                if not isinstance(self.parent(parent), (cst.Tuple, cst.List)):
                    return False
            elif not isinstance(parent, (cst.Tuple, cst.List)):
                return False
            node = parent
        return True

    def _int_parameter(self, name: cst.Name) -> bool:
        """Whether the parameter ``name`` is proven an int where the condition reads it: a
        statement of its function's own body, before the one that holds the read (the condition's
        ``def``, or the loop with its ``lambda``), makes an array of that size or a ``range`` of it,
        unconditionally (no ``and``/``or``/``if`` expression, ``lambda`` or comprehension around
        it), so any run that reaches the loop has refused a float. An annotation or an int default
        proves nothing of what a caller passes. Such a call proves only an ``__index__``: in a
        file whose classes define one, or comparisons of their own, the parameter may be such an
        object, whose `i < n` runs its own comparison where the fix's ``int(n)`` counts."""
        if any(self.semantics.defines_attribute(a) for a in ("__index__", *vocabulary.COMPARISONS)):
            return False
        scope = scopes.enclosing_scope(self, name)
        while isinstance(scope, (cst.FunctionDef, cst.Lambda)):
            params = [p for p in all_params(scope) if p.name.value == name.value]
            if params:
                if isinstance(scope, cst.Lambda):
                    return False
                statements = scope.body.body
                reader = next((k for k, s in enumerate(statements) if self.semantics.within(name, s)), None)
                if reader is None:
                    return False
                for call in self.semantics.of_kind(scope, cst.Call):
                    if not (call.args and call.args[0].keyword is None and not call.args[0].star) or not self.matches(
                        call.func, SIZED
                    ):
                        continue
                    holder = next((k for k, s in enumerate(statements) if self.semantics.within(call, s)), None)
                    if holder is None or holder >= reader or not self._unconditional(call, statements[holder]):
                        continue
                    dimension = call.args[0].value
                    if any(
                        self.semantics.enclosing_scope(n) is scope and self._used_directly(n, dimension)
                        for n in self.semantics.names_in(dimension, name.value)
                    ):
                        return True
                return False
            scope = scopes.enclosing_scope(self, scope)
        return False

    def _unconditional(self, call: cst.Call, statement: cst.CSTNode) -> bool:
        """Whether ``call`` runs whenever the simple statement ``statement`` holding it does."""
        if not isinstance(statement, cst.SimpleStatementLine):
            return False
        conditional = (cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.GeneratorExp, cst.ListComp, cst.SetComp,
                       cst.DictComp)
        for ancestor in self.ancestors(call):
            if ancestor is statement:
                return True
            if isinstance(ancestor, conditional):
                return False
        return False

    def _while_plan(self, call, args, cond, body: Body, position: int, bound):
        """The edit turning the ``while_loop`` into a ``fori_loop`` and the trip count, or why not."""
        for role, function in (("condition", cond), ("body", body.function)):
            if isinstance(function, cst.FunctionDef):
                if function.decorators:
                    return f"the {role} function `{function.name.value}` is decorated"
                if function.asynchronous is not None or self.semantics.own_nodes(
                    function, lambda n: isinstance(n, (cst.Yield, cst.Await))
                ):
                    return f"the {role} function `{function.name.value}` is a coroutine or a generator, which the loop refuses"
                scope = scopes.enclosing_scope(self, function)
                if len(self.semantics.variables(scope, function.name.value)) != 2:
                    return f"the {role} function `{function.name.value}` is used or bound elsewhere too"
                if self._conditional(function, scope, call):
                    return (
                        f"the {role} function `{function.name.value}` is defined under an `if`, a loop or a `try`, or after the loop: "
                        "where that code did not run, the loop raised, and the fix would not read it"
                    )
        where = self.run_mentions("disable_jit")
        if where is not None:
            return (
                f"{where} mentions `disable_jit` (`jax.disable_jit`, `jax_disable_jit`, `JAX_DISABLE_JIT`), under which a `fori_loop` runs as a Python loop and returns the "
                "carry unconverted (Python ints, NumPy arrays) where the `while_loop` converted it"
            )
        if cond is not args["cond_fun"].value and self.semantics.of_kind(bound, cst.Name):
            if scopes.enclosing_scope(self, cond) is not scopes.enclosing_scope(self, call):
                return (
                    f"the condition `{self.code_of(args['cond_fun'].value)}` is defined in another scope than "
                    "the loop, so its bound may mean something else there"
                )
        if isinstance(scopes.enclosing_scope(self, call), cst.ClassDef):
            return "the loop runs in a class body, whose names a `lambda` cannot see"
        disorder = self._out_of_order(call, "while") or self._unknown_options(args)
        if disorder:
            return disorder
        if any(
            self._static_parameter(n) and not self._int_parameter(n)
            for n in self.semantics.of_kind(bound, cst.Name)
        ):
            own = next((a for a in ("__index__", *vocabulary.COMPARISONS) if self.semantics.defines_attribute(a)), None)
            kind = f"an object with its own `{own}` (the file gives objects one)" if own else "a float"
            return (
                f"the bound `{self.code_of(bound).strip()}` is static through a `static_argnums` parameter, which "
                f"may be {kind} (a `while_loop` compares with it; a `fori_loop` needs an int)"
            )
        init = args["init_val"].value
        elements = init
        if isinstance(init, cst.Name):
            elements = self.semantics.assigned_value(init)
            if not isinstance(elements, cst.Tuple):
                elements = None
        if (
            not isinstance(elements, (cst.Tuple, cst.List))
            or len(elements.elements) != len(body.elements)
            or any(isinstance(e, cst.StarredElement) for e in elements.elements)
        ):
            return "the initial carry is not written out as a tuple with one value per carried name"
        if self._acts_before(bound, init):
            return (
                f"the bound `{self.code_of(bound).strip()}` would be evaluated before the initial carry (the "
                "condition read it after), and both may raise or have effects; bind it to a name before the loop"
            )
        start = int_value(elements.elements[position].value)
        if start is None:
            return f"the counter `{body.elements[position]}` does not start at an integer literal"
        if not -(2**31) <= start < 2**31:
            return f"the counter starts at {start}, outside int32, where the `while_loop` raised converting it"
        lax_name = self._lax_spelling(call)
        if lax_name is None:
            return self.unspelled("jax.lax")
        function = args["body_fun"].value
        if isinstance(function, cst.Lambda):  # `lambda s: advance(s)` takes the index beside `s`
            carry = function.params.params[0].name.value
            step = self.code_of(function.body)
            used = {carry, *(n.value for n in self.semantics.of_kind(function.body, cst.Name))}
        else:
            name = self.code_of(function)
            carry = "carry" if name != "carry" else "state"
            step = f"{name}({carry})"
            used = {carry, *(n.value for n in self.semantics.of_kind(function, cst.Name))}
        # the index the `fori_loop` passes is unused: a name the step does not read
        index = next(n for n in ("_", "_i", "_step", "_index", "_unused_index") if n not in used)
        upper = self.code_of(bound).strip()
        if any(self._static_parameter(n) for n in self.semantics.of_kind(bound, cst.Name)):
            # a static argument may be a bool or a NumPy int, which `while_loop`'s comparison takes
            # and `fori_loop` refuses beside an int literal: `int` gives the same trip count, but for
            # a counter from below zero (an unsigned NumPy bound compares it as unsigned)
            if start < 0:
                return "the counter starts below zero and the bound reads a static argument, which may be an unsigned NumPy int"
            if self.semantics.builtin_shadowed("int"):
                return "the bound reads a static argument, and `int` may not be the builtin here (a binding of the name or a star import)"
            upper = f"int({upper})"
        lower = str(start)
        trips = upper if start == 0 else f"{upper} - {start}" if start > 0 else f"{upper} + {-start}"
        widened = self._widened_parameters(function, index)
        if widened is not None:
            # the body itself takes the index beside its carry: the `fori_loop` gets the very function
            # the `while_loop` got, whose trace JAX reuses between runs as it did (a fresh lambda each
            # run is traced again: trace-time warnings would repeat)
            held = self.semantics.binding(function)
            new = f"{lax_name}.fori_loop({lower}, {upper}, {name}, {self.code_of(init).strip()})"
            return (self.replace(held.params, widened), self.replace(call, new)), trips
        new = f"{lax_name}.fori_loop({lower}, {upper}, lambda {index}, {carry}: {step}, {self.code_of(init).strip()})"
        return (self.replace(call, new),), trips

    def _widened_parameters(self, function: cst.BaseExpression, index: str) -> str | None:
        """The parameter list of a ``while_loop`` body ``def body(state)`` with the unused index a
        ``fori_loop`` passes first (``_, state``), where ``function`` names that ``def``, which
        :meth:`_while_plan` has shown undecorated and used by this loop alone, it is no public
        function of the module, and it takes one parameter :meth:`_rewritable_parameters` accepts."""
        held = self.semantics.binding(function) if isinstance(function, cst.Name) else None
        if not isinstance(held, cst.FunctionDef) or self.semantics.find(held, lambda n: isinstance(n, cst.Name) and n.value == index):
            return None  # the body reads the name the index would take (a global `_`)
        if self._used_elsewhere(held):
            return None  # other modules may call it with one argument
        params = self._rewritable_parameters(held)
        return f"{index}, {params[0]}" if params is not None and len(params) == 1 else None
