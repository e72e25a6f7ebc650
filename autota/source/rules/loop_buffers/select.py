"""AT204: selecting between a buffer and its one-slot update."""

from __future__ import annotations

import libcst as cst

from autota.catalogue import Fix
from autota.source import scopes, vocabulary
from autota.source.rules.loop_buffers.syntax import (
    BODY_ARG,
    CHOICE_PARAMS,
    FORI,
    INIT_ARG,
    JNP,
    LOOPS,
    PLAIN_VALUES,
    WHERE,
    alone_on_its_line,
    assigns,
    is_bool_literal,
    ordered_arguments,
    rebinds,
)


class SelectUpdates:
    """AT204."""

    def _check_select(self, call: cst.Call) -> None:
        values = ordered_arguments(call, CHOICE_PARAMS[self.matches(call.func, WHERE)])
        if values is None or len(values) != 3:
            return
        pred, on_true, on_false = values
        for updated, other, flipped in ((on_true, on_false, False), (on_false, on_true, True)):
            # the update bound to a name first (`new = buf.at[i].set(v)`), or a buffer that is an
            # element of the carry (`c[0]`): reported, not rewritten
            spelled = None
            if isinstance(updated, cst.Name) and isinstance(bound := self.semantics.assigned_value(updated), cst.Call):
                updated, spelled = bound, f"the update is bound to `{updated.value}` before the select; the rewrite takes it in place"
            if not _plain_receiver(other) and _element(other):
                spelled = spelled or f"the buffer `{self.code_of(other)}` is an element of a tuple; the rewrite takes a name"
            elif not _plain_receiver(other):
                continue
            if not isinstance(updated, cst.Call):
                continue
            buf = self.code_of(other)
            write = self._write_call(updated, buf, None, vocabulary.UPDATE_METHODS)  # each copies the buffer
            at = scopes.at_call(updated)
            several = write is None and at is not None and at[1] == "set" and self.code_of(at[0]) == buf
            if write is None and not several:
                continue  # `several`: `buf.at[r, c].set(v)`, one slot of a grid
            traced = self.traced.context(call)
            in_body = traced is not None and "loop-body" in (traced.kind, traced.origin)
            loops = scopes.enclosing_loops(self, call)
            if not (in_body or loops) or not in_body and all(self.few_trips(loop) for loop in loops):
                return  # no loop, or a few constant steps (`for idx in [a, b]`, a swap): a fixed cost
            compiled = in_body or traced is not None and not any(self.traced.concrete_each_step(loop) for loop in loops)
            if compiled and (
                self.traced.never_differentiated(call)
                or self._modeler().exact_dtype(self._carry_initial(call, other, traced) if in_body else self._made_as(other))
                or self._integer_field(other)
            ):
                # compiled, the select costs only under `grad`: XLA makes a select around a one-slot
                # update an update of the selected slot, forward; here `grad` never comes, or the
                # buffer (int, bool) has no cotangent
                return
            message = (
                f"selecting between `{buf}` and its one-slot update rewrites the whole buffer every "
                "step (O(size) a step, O(T^2) in all)" if not compiled else
                f"selecting between `{buf}` and its one-slot update costs the whole buffer every step "
                "under `jax.grad` (O(size) a step, O(T^2) in all; forward, XLA selects the slot itself)"
            )
            if several:
                self.report("AT204", call, message, reason="the write's index is not one position on axis 0")
                return
            if spelled:
                self.report("AT204", call, message, reason=spelled)
                return
            if write.form != "at":
                self.report(
                    "AT204", call, message,
                    reason="the update is a `lax.dynamic_update_*` call; the rewrite takes `buf.at[i].set(row)`",
                )
                return
            if write.problem or write.row is None or write.axis != 0:
                self.report("AT204", call, message, reason=write.problem or "the write is not on axis 0")
                return
            if write.method != "set":
                self.report("AT204", call, message, reason=f"only a selected `.at[].set` is rewritten, not `.{write.method}`")
                return
            if self.matches(call.func, {f"{JNP}.where"}) and any(a.keyword is not None for a in call.args):
                self.report("AT204", call, message, reason=(
                    "`jnp.where` is called with keywords, which JAX refuses (its arguments are positional-only), "
                    "where the fix's positional call would run"
                ))
                return
            if self.semantics.of_kind(call, cst.NamedExpr):
                self.report("AT204", call, message, reason=(
                    "the call binds a name with `:=`, and the fix evaluates its parts in another order "
                    "(the index twice)"
                ))
                return
            jnp_name = self.semantics.module_spelling(JNP)
            func = call.func
            where = self.code_of(func) if self.matches(func, {f"{JNP}.where"}) else (
                f"{jnp_name}.where" if jnp_name else None
            )
            if where is None:
                self.report("AT204", call, message, reason=self.unspelled("jax.numpy"))
                return
            # the row as `.at[i].set` makes it: converted to the buffer's dtype (`where` would first
            # promote the slot to the row's dtype: an int32 slot through float32 loses bits), with its
            # warnings, promotion errors and Python-int conversion
            def rewrite(pred_code: str, index: str, row_code: str) -> str:
                slot = f"{buf}[{index}]"
                value = f"{slot}.at[...].set({row_code})"
                chosen = f"{where}({pred_code}, {slot}, {value})" if flipped else f"{where}({pred_code}, {value}, {slot})"
                return f"{buf}.at[{index}].set({chosen})"

            pred_code, index_code, row_code, first = self._computed_first(call, buf, pred, write.index, write.row)
            new = rewrite(pred_code, index_code, row_code)
            shown = rewrite(self.code_of(pred), self.code_of(write.index), self.code_of(write.row))  # the message shows it inline
            edits = (self.replace(call, new),)
            if first:
                line = self.start_line(call)
                indent = self.context.source.indentation(line)
                edits = (self.context.source.insert_lines_before(line, [f"{indent}{s}" for s in first]), *edits)
            fix = Fix("safe", "select the slot's value, not the whole buffer", edits)
            problems = []  # every fact the fix cannot prove: the unsafe tier names each difference
            if self.matches(func, {f"{JNP}.where"}) is None and not _bool_predicate(pred):
                problems.append(
                    f"the predicate `{self.code_of(pred)}` is not provably a bool: `lax.select` refuses another "
                    "dtype, where the fix's `jnp.where` takes its truth value"
                )
            if not self._scalar_predicate(pred):
                problems.append(
                    f"the predicate `{self.code_of(pred)}` is not provably a scalar; if it has the buffer's shape, "
                    "selecting the slot changes the result"
                )
            if not isinstance(other, cst.Name):
                problems.append(
                    f"`{buf}` is reached through a subscript or attribute, which the fix reads in another order "
                    "(before the predicate and the row): a `__getitem__` or property with effects would see that"
                )
            if index_code == self.code_of(write.index) and _may_act(self, write.index):
                problems.append(
                    f"the index `{index_code}` calls, subscripts or reads an attribute (a property, a `__getitem__` "
                    "with effects), and the fix evaluates it three times, the last two after the row"
                )
            if scopes.may_overflow_int32(write.row, self.semantics.value_sources):
                problems.append(
                    f"the written value `{self.code_of(write.row)}` is a Python int that may not fit an int32: "
                    "where converting it raises OverflowError, the fix reads the slot first, which raises "
                    "IndexError instead on a zero-length buffer"
                )
            if not (_promotes_to_buffer(write.row, buf) or self._strong_inexact_carry(call, other, traced)):
                problems.append(
                    f"the row `{self.code_of(write.row)}` may have another dtype than the buffer, one it does not "
                    "promote to without loss: `.at[].set` takes the whole buffer through the promoted dtype and back (an int32 "
                    "buffer written with a float32 row loses what float32 cannot hold), where the fix converts the "
                    "slot alone"
                )
            problems += [  # (reviews 81-83)
                f"it assumes that {a}" for a in self.setting_assumptions("strict promotion", "warnings as errors", "checkify")
            ]
            rebinding = self.module_rebinding({jnp_name.split(".")[0]}) if jnp_name else None
            if rebinding is not None:  # (review 86: `loops.jnp = fake` in another module)
                problems.append(
                    f"it assumes that nothing binds `{jnp_name.split('.')[0]}` in this module again ({rebinding}): the loop "
                    "called its `where` on the whole buffer, the fix on the slot"
                )
            if problems:
                self.report("AT204", call, f"{message}; select the slot instead", Fix("unsafe", fix.message, fix.edits),
                            reason="; and ".join(problems))
            else:
                self.report("AT204", call, f"{message}; select the slot instead: `{shown}`", fix)
            return

    def _computed_first(self, call: cst.Call, buf: str, pred, index, row) -> tuple[str, str, str, list[str]]:
        """The predicate's, the index's and the row's code for the fix, and the statements that
        compute them first. The select computed the predicate, then the index, then the row, then
        wrote the slot (a zero-length axis raising there); the fix reads the slot at the index
        three times, before the row, so an index that may act (a call, a subscript, an
        attribute: see :func:`_may_act`) and a row that is more than a name or a literal are
        computed first, once, each in a statement of its own, in that order (the predicate before
        them), where the select is the whole value of a statement alone on its line. Elsewhere
        the order is left as it was (a known gap of the doc; an index that may act makes the fix
        unsafe)."""
        pred_code, index_code, row_code = self.code_of(pred), self.code_of(index), self.code_of(row)
        statement = self.parent(call)
        alone = isinstance(statement, cst.Assign) and statement.value is call and alone_on_its_line(self, statement)
        acts = _may_act(self, index)
        if isinstance(row, PLAIN_VALUES) and not acts or not alone or any("\n" in c for c in (pred_code, index_code, row_code)):
            return pred_code, index_code, row_code, []
        base = buf if buf.isidentifier() else "slot"
        first = []
        if not isinstance(pred, PLAIN_VALUES):
            picked = self.fresh_name(f"{base}_pick", call)
            first.append(f"{picked} = {pred_code}")
            pred_code = picked
        if acts:
            at = self.fresh_name(f"{base}_index", call)
            first.append(f"{at} = {index_code}")
            index_code = at
        if not isinstance(row, PLAIN_VALUES):
            held = self.fresh_name(f"{base}_value", call)
            first.append(f"{held} = {row_code}")
            row_code = held
        return pred_code, index_code, row_code, first

    def _strong_inexact_carry(self, call: cst.Call, buf: cst.BaseExpression, traced) -> bool:
        """Whether ``buf`` is the carry of the loop whose body makes ``call`` (see
        :meth:`_carry_initial`) and the loop's initial value of it is visibly a strongly typed
        floating or complex array. Such a buffer, promoted with any row, goes through an inexact
        dtype at least as wide and back unchanged, so converting the slot alone changes nothing."""
        return self._modeler().strong_inexact(self._carry_initial(call, buf, traced))

    def _made_as(self, buf: cst.BaseExpression) -> cst.BaseExpression | None:
        """What a buffer that a traced function's Python loop updates was made as, where every
        binding of its name in that function makes it or updates it (``obs = jnp.zeros(shape,
        dtype=bool)``, ``obs = obs.at[y, x].set(1)``, a select of such): the one constructor."""
        if not isinstance(buf, cst.Name):
            return None
        made = []
        for value in self.semantics.bound_values(buf) or [None]:
            while value is not None and (inner := self._modeler().updated_array(value)) is not None:
                value = inner
            if isinstance(value, cst.Call) and self.matches(value.func, WHERE):
                continue  # (a select between it and its update, as judged here)
            if isinstance(value, cst.Name) and value.value == buf.value:
                continue
            made.append(value)
        return made[0] if len(made) == 1 else None

    def _integer_field(self, buf: cst.BaseExpression) -> bool:
        """Whether ``buf`` is a field of a record (``st.owner``) that every construction of the
        file's record classes declaring it makes an integer or boolean array
        (``State(owner=jnp.zeros(n, jnp.int32))`` in ``reset``): see
        :meth:`~.model.LoopModeler.record_field_values`."""
        if not (isinstance(buf, cst.Attribute) and isinstance(buf.value, cst.Name)):
            return False
        modeler = self._modeler()
        values = modeler.record_field_values(buf.attr.value)
        return bool(values) and all(modeler.exact_dtype(v) for v in values)

    def _carry_initial(self, call: cst.Call, buf: cst.BaseExpression, traced) -> cst.BaseExpression | None:
        """The loop's initial value of ``buf``, where ``buf`` is the carry of the loop whose body
        (used by that loop only) makes ``call``, as the step received it (bound in the body only by
        the carry's unpacking and by the statement of ``call``); ``None`` elsewhere."""
        if traced is None or traced.kind != "loop-body" or not isinstance(buf, cst.Name):
            return None
        loop = traced.node
        kind = LOOPS.get(self.matches(loop.func, LOOPS))
        if kind not in INIT_ARG:
            return None
        args = self._arguments(loop, kind)
        if args is None or INIT_ARG[kind] not in args or BODY_ARG[kind] not in args or "**" in args:
            return None
        function = self._function(args[BODY_ARG[kind]].value)
        if not isinstance(function, cst.FunctionDef) or not self.semantics.contains(function, call):
            return None
        if not self._sole_use(function, args[BODY_ARG[kind]].value):
            return None  # another loop may run the same body from another initial value
        body = self._body(function, kind)
        if body.problem or buf.value not in body.elements:
            return None
        statement = next((a for a in self.ancestors(call) if isinstance(a, cst.Assign)), None)
        allowed = [n for n in (body.unpack, statement) if n is not None]
        bindings = [*self.semantics.stores(function.body, buf.value), *assigns(self.semantics, function, buf.value)]
        if any(not any(b is a or self.semantics.contains(a, b) for a in allowed) for b in bindings):
            return None
        path = (body.elements.index(buf.value),) if body.unpack is not None else ()
        if body.unpack is None and buf.value != body.carry_param:
            return None
        return self._modeler().initial(args[INIT_ARG[kind]].value, path)

    def _scalar_predicate(self, pred: cst.BaseExpression) -> bool:
        """Comparisons of loop indices, counters, literals and shapes: a scalar by construction,
        unless a class of the file defines a comparison of its own (a static argument's
        ``__gt__`` may return a vector)."""
        if isinstance(pred, (cst.Integer, cst.Float)) or is_bool_literal(pred):
            return True
        if isinstance(pred, cst.Comparison):
            if any(self.semantics.defines_attribute(name) for name in vocabulary.COMPARISONS):
                return False
            return self._scalar_operand(pred.left) and all(self._scalar_operand(c.comparator) for c in pred.comparisons)
        if isinstance(pred, cst.BooleanOperation):
            return self._scalar_predicate(pred.left) and self._scalar_predicate(pred.right)
        if isinstance(pred, cst.UnaryOperation):
            return self._scalar_predicate(pred.expression)
        if isinstance(pred, cst.BinaryOperation) and isinstance(pred.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
            return self._scalar_predicate(pred.left) and self._scalar_predicate(pred.right)
        return False

    def _scalar_operand(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, (cst.Integer, cst.Float)):
            return True
        if self._is_static(expr, expr):  # a module variable an importer may set to an array proves nothing
            return self.public_module_variable(expr) is None
        if isinstance(expr, cst.BinaryOperation):
            return self._scalar_operand(expr.left) and self._scalar_operand(expr.right)
        if isinstance(expr, cst.Name):
            # the index of the enclosing fori_loop body, the nearest scope binding the name, never rebound
            for ancestor in self.ancestors(expr):
                if not isinstance(ancestor, (cst.FunctionDef, cst.Lambda)):
                    continue
                params = [p.name.value for p in ancestor.params.params]
                bound = expr.value in params or (isinstance(ancestor, cst.FunctionDef) and rebinds(self.semantics, ancestor, expr.value))
                if not bound:
                    continue
                traced = self.traced.by_function.get(ancestor)
                only_the_loop = isinstance(ancestor, cst.Lambda) or len(
                    self.semantics.names_in(scopes.enclosing_scope(self, ancestor), ancestor.name.value)
                ) == 2 and not self._used_elsewhere(ancestor)  # a body also called directly may get a vector there
                return (
                    only_the_loop
                    and traced is not None
                    and isinstance(traced.node, cst.Call)
                    and bool(self.matches(traced.node.func, {FORI}))
                    and params[:1] == [expr.value]
                    and not (isinstance(ancestor, cst.FunctionDef) and rebinds(self.semantics, ancestor, expr.value))
                )
        return False


def _may_act(rule, index: cst.BaseExpression) -> bool:
    """Whether evaluating ``index`` may run code of its own or see the row's effects: a call, a
    subscript (a ``__getitem__``, a list the row pops) or an attribute (a property)."""
    return bool(rule.semantics.of_kind(index, cst.Call, cst.Subscript, cst.Attribute))


def _bool_predicate(pred: cst.BaseExpression) -> bool:
    """A comparison, a bool literal, or ``~``/``&``/``|``/``^`` of them: a bool by construction."""
    if isinstance(pred, cst.Comparison) or is_bool_literal(pred):
        return True
    if isinstance(pred, cst.UnaryOperation) and isinstance(pred.operator, cst.BitInvert):
        return _bool_predicate(pred.expression)
    if isinstance(pred, cst.BinaryOperation) and isinstance(pred.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return _bool_predicate(pred.left) and _bool_predicate(pred.right)
    return False


def _element(node) -> bool:
    """``c[0]``: an element of a name at an int literal."""
    return (
        isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and len(node.slice) == 1
        and isinstance(node.slice[0].slice, cst.Index) and isinstance(node.slice[0].slice.value, cst.Integer)
    )


def _plain_receiver(node) -> bool:
    """A buffer the select names directly: ``buf``, ``log["energy"]`` (a string key), ``state.buf``."""
    if isinstance(node, cst.Name):
        return True
    if isinstance(node, cst.Attribute):
        return isinstance(node.value, cst.Name)
    return (
        isinstance(node, cst.Subscript)
        and isinstance(node.value, cst.Name)
        and len(node.slice) == 1
        and isinstance(node.slice[0].slice, cst.Index)
        and isinstance(node.slice[0].slice.value, cst.SimpleString)
    )


def _promotes_to_buffer(row: cst.BaseExpression, buf: str) -> bool:
    """Whether writing ``row`` takes the buffer through no dtype that loses its values: a slot of
    the buffer itself, or a Python int or bool literal (weakly typed, so it promotes to the
    buffer's dtype, or a bool buffer to int32, which holds every bool). A float literal takes an
    int32 buffer through float32."""
    if isinstance(row, cst.UnaryOperation) and isinstance(row.operator, cst.Minus):
        row = row.expression
    if isinstance(row, cst.Integer) or is_bool_literal(row):
        return True
    return isinstance(row, cst.Subscript) and isinstance(row.value, cst.Name) and row.value.value == buf
