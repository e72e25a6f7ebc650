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
import contextlib
import dataclasses

import libcst as cst

from autota.source import prefilter, scopes, vocabulary
from autota.source.rule import SourceRule
from autota.source.rules.loop_buffers.body import Body, LoopBodies, Verdict, Write, by_buffer
from autota.source.rules.loop_buffers.carried import CarriedBuffers, updates_state
from autota.source.rules.loop_buffers.model import (
    OPAQUE, BufferWrite, Function, LoopModel, LoopModeler, Written, display_item, string_key,
)
from autota.source.rules.loop_buffers.select import SelectUpdates
from autota.source.rules.loop_buffers.statics import StaticFacts
from autota.source.rules.loop_buffers.syntax import (
    BODY_ARG,
    INIT_ARG,
    LIFTED_LOOPS,
    LOOPS,
    WHERE,
    identity_test,
    int_value,
    invariant,
    is_bool_literal,
    is_none,
    ordered_arguments,
)
from autota.source.rules.loop_buffers.while_loops import WhileLoops

ONE_STEP = 1
"""A ``fori_loop`` of at most this many constant steps runs its body once: no buffer grows with it."""
RESHAPING_METHODS = frozenset({"reshape", "squeeze", "ravel", "flatten", "transpose", "swapaxes"})
RESHAPING_FUNCTIONS = frozenset(
    f"{vocabulary.JNP}.{name}" for name in ("reshape", "squeeze", "ravel", "expand_dims", "transpose", "swapaxes", "atleast_1d", "atleast_2d")
)
"""Array methods and functions whose result is the same elements, in the same dtype, reshaped."""


SELECT_TERMINALS = frozenset(vocabulary.terminal(name) for name in WHERE)


class LoopBufferRule(CarriedBuffers, WhileLoops, SelectUpdates, LoopBodies, StaticFacts, SourceRule):
    """One visitor for the family: each ``lax`` loop call is taken apart once (:mod:`.body`), then
    each buffer it writes is judged by the rule that fits (:mod:`.carried`, :mod:`.while_loops`);
    ``jnp.where``/``lax.select`` calls go to :mod:`.select`."""

    codes = ("AT201", "AT202", "AT203", "AT204")
    triggers = ("fori_loop", "scan", "while_loop", "where", "select")

    @classmethod
    def relevant(cls, facts: prefilter.Facts) -> set[int] | None:
        """``lax`` loop calls whose body updates an array: the functions the call's arguments name
        (a ``def``, a method, through a ``partial`` or a forwarding ``lambda``), and the functions
        those call, a few levels deep, as the loop model inlines them."""
        functions: dict[str, list[prefilter.Site]] = {}
        reachable: dict[tuple[str, int | None], list[prefilter.Site]] = {}
        """A name reaches the functions of its own statement and the module's (``None``)."""
        for f in facts.functions:
            if not isinstance(f.node, ast.Lambda):
                functions.setdefault(f.node.name, []).append(f)
                reachable.setdefault((f.node.name, f.top if f.functions else None), []).append(f)
        mentions: dict[int, set[str]] = {}

        def mentioned(node: ast.AST) -> set[str]:
            if id(node) not in mentions:
                mentions[id(node)] = {
                    n.id if isinstance(n, ast.Name) else n.attr
                    for n in ast.walk(node)
                    if isinstance(n, (ast.Name, ast.Attribute))
                }
            return mentions[id(node)]

        bound_calls: dict[str, list[prefilter.Site]] = {}
        for name, site in facts.call_assigns:
            bound_calls.setdefault(name, []).append(site)
        updated = {id(f) for u in facts.updates for f in u.functions}
        needed: set[int] = set()
        around: list[prefilter.Site] = []
        mentioned_by: dict[str, set[int]] | None = None
        for call in facts.calls_named(prefilter.LOOP_NAMES | facts.loop_wrapper_names):
            args = [*call.node.args, *(k.value for k in call.node.keywords)]
            lambdas = [n for a in args for n in ast.walk(a) if isinstance(n, ast.Lambda)]
            names = set().union(*(mentioned(a) for a in args)) if args else set()
            handed = set(names)  # the loop's own functions (not those they call, nor what makes its carry)
            for name in set(names):
                for node in facts.named_lambdas.get(name, ()) if name not in functions else ():
                    lambdas.append(node)  # `run = lambda i, c: step(i, c)` passed by name
                    names = names | mentioned(node)
                    handed |= mentioned(node)
                for call_site in bound_calls.get(name, ()):  # `step_fn = functools.partial(self._step, ...)`,
                    names = names | mentioned(call_site.node)  # `body = make_body(...)` whose def is `body` too
                    if facts.name(call_site.node.func) in prefilter.TRACING_TERMINALS and call_site.node.args:
                        handed.add(prefilter.terminal(call_site.node.args[0]))
            reached: list[prefilter.Site] = []
            seen: set[int] = set()
            frontier = names
            for _ in range(4):
                new = [
                    f
                    for name in frontier
                    for f in (*reachable.get((name, call.top), ()), *reachable.get((name, None), ()))
                    if id(f) not in seen
                ]
                # a helper bound as a lambda (`put = lambda b, i, v: b.at[i].set(v)`) that a body calls
                named = [n for name in frontier - set(functions) for n in facts.named_lambdas.get(name, ()) if id(n) not in seen]
                if not new and not named:
                    break
                seen.update(id(f) for f in (*new, *named))
                reached += new
                lambdas += named
                frontier = set().union(*(mentioned(f.node) for f in new), *(mentioned(n) for n in named)) - names
                names |= frontier
            if any(id(f.node) in updated for f in reached) or any(id(arg) in updated for arg in lambdas):
                needed |= {call.top} | prefilter.tops(reached)
                if facts.name(call.node.func) in facts.loop_wrapper_names:  # the file's own wrapper, where it is one
                    needed |= prefilter.tops(reachable.get((facts.name(call.node.func), None), ()))
                # every definition that mentions a module-level body: the fix rewrites a body only
                # where the loop is its sole use, which the rule can judge only if it sees the others
                # (a nested body's uses lie in its own function, kept whole)
                if mentioned_by is None:  # a class by its own lines: each method is a unit of its own
                    mentioned_by = {}
                    for top, unit in enumerate(facts.units):
                        if facts.top_is_definition[top]:
                            parts = _shell_parts(unit) if top in facts.members else (unit,)
                            for name in set().union(*(mentioned(part) for part in parts)):
                                mentioned_by.setdefault(name, set()).add(top)
                for f in reached:  # (a helper the body calls is rewritten only where it writes the buffer)
                    if not f.functions and (f.node.name in handed or id(f.node) in updated):
                        needed |= mentioned_by.get(f.node.name, set())
                # and where the function holding the loop is used: whether `grad` can reach it at all
                around.extend(f for f in facts.functions if any(f.node is g for g in call.functions))
            unknown = names - set(functions)
            if unknown:  # `nn.scan(Cell, ...)`: a class whose method updates an array, or holds one that does
                updating = {
                    node.name: top for top, node in facts.classes
                    if any(node.lineno <= u.node.lineno <= node.end_lineno for u in facts.updates)
                }
                for top, node in facts.classes:
                    held = [updating[name] for name in mentioned(node) & set(updating) if name != node.name]
                    if node.name in unknown and (node.name in updating or held):  # `self.step = Step()` in `setup`
                        needed |= {call.top, top, *held}
        # `jnp.where`/`lax.select` between a buffer and its update (AT204), in a `lax` body or a Python loop
        # (also an update bound to a name first, `new = buf.at[i].set(v)`: a unit holding both)
        updating_units = {u.top for u in facts.updates}
        for call in facts.calls_named(SELECT_TERMINALS):
            if call.top in updating_units:
                needed.add(call.top)
                # and what shows whether its function runs as a loop body (a combinator of the file)
                around.extend(f for f in facts.functions if any(f.node is g for g in call.functions))
        if around:
            needed |= prefilter.tracing_call_tops(facts, around)
        return needed  # (and the classes the kept code names: see prefilter.slice_module)

    def __init__(self, context) -> None:
        super().__init__(context)
        self._reported: set[tuple[str, int, int]] = set()

    def report(self, code, node, message, fix=None, reason=None, **details) -> None:
        """Once per code and place: a body shared by two loops is judged by each of them. In a
        loop that autota reports but does not rewrite, no fix, and that is the reason."""
        location = self.location(node)
        key = (code, location.line, location.column)
        if key not in self._reported:
            self._reported.add(key)
            if self._not_rewritten is not None:
                fix, reason = None, self._not_rewritten
            super().report(code, node, message, fix, reason, **details)

    _not_rewritten: str | None = None
    """While a loop autota does not rewrite is judged, why not."""

    @contextlib.contextmanager
    def not_rewritten(self, reason: str):
        """Judge a loop that autota reports but does not rewrite: its findings have no fix, and
        ``reason`` says why."""
        self._not_rewritten = reason
        try:
            yield
        finally:
            self._not_rewritten = None

    def visit_Call(self, node: cst.Call) -> None:
        if self.matches(node.func, WHERE):
            self._check_select(node)  # AT204: in an eager loop a copy each step; compiled, a cost under `grad`
            return
        if self.traced.never_differentiated(node):
            return  # a while_loop's body, a custom_vjp's own body or rules: `grad` does not go through it
        lifted = self.matches(node.func, LIFTED_LOOPS)
        if lifted is not None:  # `nnx.fori_loop`, `hk.scan`: `lax`'s loop over a body that may hold modules
            library, short = ("Flax NNX", "nnx") if lifted.startswith("flax.") else ("Haiku", "hk")
            with self.not_rewritten(f"autota does not rewrite {library}'s `{short}.{lifted.rsplit('.', 1)[1]}`"):
                self._check_loop(node, LIFTED_LOOPS[lifted])
            return
        name = self.matches(node.func, LOOPS)
        if name is not None:
            kind = LOOPS[name]
            if kind == "nn.scan":
                self._check_flax_scan(node)
            elif kind == "nn.while":
                self._check_flax_while(node)
            else:
                self._check_loop(node, kind)
            return
        wrapper = self.loop_wrapper(node.func)
        if wrapper is not None:  # `control_flow.fori_loop(0, n, step, init)`: a project's own loop function
            local = any(wrapper is w for w in self.context.own.loop_wrappers.values())
            where = f"`{wrapper.name.rpartition('.')[2]}` (line {wrapper.line})" if local else (
                f"`{wrapper.name}` (line {wrapper.line} of its module)"
            )
            with self.not_rewritten(f"the loop runs inside {where}, and the fix rewrites a `lax` loop called here"):
                self._check_loop(node, wrapper.kind)

    def _check_loop(self, call: cst.Call, kind: str) -> None:
        args = self._arguments(call, kind)
        if args is None or not {BODY_ARG[kind], INIT_ARG[kind], *(("cond_fun",) if kind == "while" else ())} <= set(args):
            return
        if kind == "fori" and any(self._array_valued(args[b].value) for b in ("lower", "upper") if b in args):
            return  # a bound JAX computes (`jnp.minimum(level, 3)`): it runs as a `while_loop`, which `grad` cannot go through
        if kind == "fori" and self._one_step(args):
            return  # `fori_loop(K - 1, K, ...)`: one step, whatever the input; nothing grows with a loop
        function = self._function(args[BODY_ARG[kind]].value)
        body = self._body(function, kind)
        modeler = self._modeler()
        if modeler.without_cotangent(args[INIT_ARG[kind]].value) and (
            kind != "scan" or body.ys is not None and is_none(body.ys) or modeler.exact_input(args.get("xs"))
        ):
            return  # nothing leaves the loop with a gradient: AT201-AT203 are about costs under `grad`
        writes = self._writes(body)
        for group in by_buffer(writes):
            if self._through_while(body.function, group[0].buf, [w.row for w in group]):
                continue  # the body hands the buffer to a `while_loop`: `grad` of the loop fails, it saves nothing
            verdict = self._judge_buffer(call, kind, args, body, group)
            if verdict is None:
                continue
            if kind == "while":
                self._report_while(call, args, body, group[0], group)
            elif verdict.read is not None:
                self._report_read_back(kind, group[0], verdict.read)
            else:
                self._report_carried(call, kind, args, body, group[0], group, verdict.previous, verdict.kept)
        # every other spelling of a carried buffer: the loop model sees through it
        model = self._model(call, kind, args)
        for found in self._unseen(model, writes):
            if model.body is not None and self._through_while(model.body.node, None, [found.write.row]):
                continue
            if self._modelled_matters(model, found, args[INIT_ARG[kind]].value):
                self._report_modelled(model, found)

    def _judge_buffer(self, call, kind: str, args: dict, body: Body, group: list[Write]) -> Verdict | None:
        """Whether the buffer that ``group`` writes (read syntactically) is worth a finding, and
        what the finding rests on; ``None`` where it is state, an accumulator, an integer or
        constant buffer, or (in a ``while_loop``) has no gradient."""
        write = group[0]
        if self._rewritten_whole(body, write, group):
            return None  # the loop's state, all of it recomputed each step (`y = y + d`): no rows
        if len({w.axis for w in group if w.axis is not None}) > 1:
            return None  # a row and a column each step (`F.at[:, i]`, `F.at[i, :]`: balancing a matrix): no rows to stack
        uses = self._other_reads(body, write.buf, group)
        # uses that read no rows back but keep the buffer in the body: its shape, the written slot
        one_slot = all(w.index is not None and w.index.deep_equals(write.index) for w in group)  # `t.at[k]` set twice
        kept = [  # (`buf is not None` asks of the object, and reads none of its values)
            name for name in uses
            if self._reads_metadata(name) or one_slot and self._reads_written_slot(name, write)
            or self._written_again(name, write.buf) or identity_test(self.parent(name))
        ]
        reads = [name for name in uses if name not in kept]
        init = args.get(INIT_ARG[kind])  # unknown where a scanned form is called elsewhere
        motions = [self._index_motion(body, w, self._index_kind(call, kind, args, w)) for w in group]
        fixed = [motion == "fixed" or self._invariant(body, w.index) for motion, w in zip(motions, group, strict=True)]
        if init is not None and all(fixed) and self._few_fixed_slots(self._first_initial(call, kind, init.value, body, write)):
            return None  # a running value in a few slots (`stats.at[0].add(loss)`): nothing grows with the loop
        if all(fixed) and self._several_slots(body, group):
            return None  # several fixed slots each step (`it.at[0]`, `it.at[1]`): a recurrence's state, no rows
        exact = init is not None and self._exact_buffer(init.value, body, write)
        parts = all(self._reads_part(name) for name in reads)
        if exact and parts:
            reads = []  # an int/bool buffer read at a slot or band: `grad` saves the part, not the buffer
        if kind != "while" and (reads or kept) and parts and self._invariant(body, write.index):
            return None  # one block read and rewritten every step (an accumulator): no history, O(T) memory
        previous = self._previous_rows(call, kind, args, body, group, reads)
        data_slot = self._slot_from_data(call, kind, motions[0])
        moving = not data_slot and not any(fixed)  # each step a slot no earlier step wrote
        old_slot = self._reads_old_slot(group, kept, implied=not moving) or previous is None and self._row_of_whole(
            write.row, write.index, [n for n in reads if not self._reads_part(n)]
        )
        if updates_state(bool(reads) and previous is None, old_slot, data_slot):
            return None  # the loop's state updated in place (Gauss-Seidel, a histogram): no rows
        if data_slot and self._several_slots(body, group) and all(self._slot_from_data(call, kind, m) for m in motions[1:]):
            return None  # several slots the data picks, each step (a pair's two agents): a scatter into state, no row a step
        integer_row = init is not None and self._carried_integer(body, init.value, write.row)
        if kind == "while":  # `grad` cannot go through it, so nothing is saved: AT202, whatever it reads
            if exact or integer_row or self._gradient_free(self._written_value(write)) or self._invariant(body, write.index):
                return None
            return Verdict()
        slots = all(self._reads_fixed_rows(name, write.axis) for name in reads)
        value = self._written_value(write)
        if all(fixed) and (self._constant_row(value) or self._gradient_free(value)):
            return None  # a boundary held at one value (`salt.at[0, 2:5].set(0.0)` each step): state, no rows
        if reads and previous is None and not slots:
            return Verdict(read=reads[0])  # beyond single slots: `grad` may save as much as the buffer every step
        if exact or integer_row or self._constant_row(value) or self._gradient_free(value) or self._invariant(
            body, value, pure_calls=True
        ):
            return None  # no cotangent, or a buffer cleared or filled with one value or flags: nothing `grad` goes through
        # read at single slots along the written axis only (`buf[t - 2]`): `grad` saves at most those
        # rows, not the buffer; the buffer is still carried, and the reads keep it in the body
        return Verdict(previous=previous or [], kept=kept + (reads if previous is None else []))

    def _through_while(self, function, buf: str | None, rows: list) -> bool:
        """Whether the body ``function`` passes ``buf``, or a part of it (``g = U[:, j]``), into the initial
        carry of a loop it runs that is a ``while_loop`` (a retry loop that resamples a slot until
        it is valid; a ``fori_loop`` whose bound the outer step computes), or that loop's body
        reads it from the step's scope (an Arnoldi step's inner Gram-Schmidt), or a written row
        is that loop's result (``w, h = fori_loop(0, k + 1, ...)``, then ``H.at[:, k].set(h)``;
        ``s = while_loop(...)``, then ``.set(s.acc)``):
        reverse-mode autodiff cannot go through that loop, so no ``grad`` of the outer loop
        carries the buffer. ``buf`` is ``None`` for a buffer only the loop model names (a record's field)."""
        if function is None:
            return False
        written = {  # the names the written rows read
            n.value for row in rows if row is not None for n in self.semantics.of_kind(row, cst.Name)
        }
        for inner in self.semantics.of_kind(function, cst.Call):
            kind = self._loop_kind(inner.func)
            args = self._arguments(inner, kind) if kind in ("while", "fori") else None
            if args is None or kind == "fori" and not any(
                self._array_valued(args[b].value) for b in ("lower", "upper") if b in args
            ):
                continue
            init = args.get(INIT_ARG[kind])
            if buf is not None and init is not None and (_holds(init.value, buf) or self._part_of(init.value, buf)):
                return True
            assign = self.parent(inner)
            if isinstance(assign, cst.Assign) and assign.value is inner and written & {
                n.value for t in assign.targets for n in self.semantics.of_kind(t.target, cst.Name)
            }:
                return True
            inner_body = self._function(args[BODY_ARG[kind]].value) if BODY_ARG[kind] in args else None
            if buf is not None and inner_body is not None and any(  # `def orth(i, st): ... V[:, i] ...`: the buffer read by closure
                self.semantics.binding_scope(name) is function for name in self.semantics.names_in(inner_body, buf)
            ):
                return True
        return False

    def _loop_kind(self, func: cst.BaseExpression) -> str | None:
        """``fori``, ``scan``, ``while``... for a call of a ``lax`` loop, a lifted one
        (``nnx.fori_loop``) or a loop wrapper of the run, else ``None``."""
        name = self.matches(func, LOOPS)
        if name is not None:
            return LOOPS[name]
        name = self.matches(func, LIFTED_LOOPS)
        if name is not None:
            return LIFTED_LOOPS[name]
        wrapper = self.loop_wrapper(func)
        return wrapper.kind if wrapper is not None else None

    def _part_of(self, expr: cst.BaseExpression, buf: str) -> bool:
        """Whether ``expr`` is a name whose binding that reaches it is a subscript of ``buf``
        (``g = U[:, j]``)."""
        reaching = self.semantics.reaching_value(expr) if isinstance(expr, cst.Name) else None
        value = reaching[1] if reaching is not None and reaching[0] == () else None
        return isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name) and value.value.value == buf

    def _array_valued(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """Whether ``expr`` reads the result of a JAX array function (``k - 1`` with ``k =
        jnp.minimum(level, 3)``), directly or through names bound once, a loop's tracer or a
        parameter its ``jit`` traces: under ``jit`` a traced value, so a ``fori_loop`` bounded by
        it runs as a ``while_loop``."""
        if depth > 4:
            return False
        for node in self.semantics.of_kind(expr, cst.Call, cst.Name):
            if isinstance(node, cst.Call) and self.array_function(node.func) and not all(
                self._shape_only(a.value) for a in node.args
            ):
                return True
            if isinstance(node, cst.Name) and (scopes.static_read(self.semantics, node) or self._measured(node)):
                continue  # `C.shape[1]` of the carry, `len(ts)`: a Python int when JAX traces
            if isinstance(node, cst.Name) and (bound := self.semantics.assigned_value(node)) is not None:
                if self._array_valued(bound, depth + 1):
                    return True
            if isinstance(node, cst.Name) and (self._loop_input(node) or self._jit_traced_parameter(node)):
                return True
            if isinstance(node, cst.Name) and self._passed_arrays(node, depth):
                return True
        return False

    def _passed_arrays(self, name: cst.Name, depth: int) -> bool:
        """Whether ``name`` is a parameter of a function that traced code of this file calls, and
        every such call passes it a value :meth:`_array_valued` reads as an array
        (``self.update(h, order=jnp.minimum(count, 3))``): a tracer wherever the function runs."""
        if self.semantics.reaching_value(name) is not None:
            return False
        function = self.semantics.binding_scope(name)
        if not isinstance(function, cst.FunctionDef):
            return False
        params = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
        keyword_only = {p.name.value for p in function.params.kwonly_params}
        if name.value not in params and name.value not in keyword_only:
            return False
        calls = list(self.traced.traced_calls.get(function, ()))
        passed = [_argument_for(call, function, name.value, params) for call in calls]
        return bool(calls) and all(
            value is not None and self._array_valued(value, depth + 1) for value in passed
        )

    def _measured(self, name: cst.Name) -> bool:
        """Whether ``name`` is the argument of the builtin ``len``, or the array of a part of it
        (``len(walls[0])``, ``len(state.rows)``): an array's static length."""
        arg = self.parent(name)
        while isinstance(arg, (cst.Subscript, cst.Attribute)) and arg.value is name:
            name, arg = arg, self.parent(arg)
        call = self.parent(arg) if isinstance(arg, cst.Arg) else None
        return isinstance(call, cst.Call) and len(call.args) == 1 and self.matches(call.func, {"builtins.len"}) is not None

    def _jit_traced_parameter(self, name: cst.Name) -> bool:
        """Whether ``name`` is a parameter of the jitted function around it that its ``jit``
        traces (``N`` of ``@partial(jax.jit, static_argnums=(3,)) def traj(x0, N, ...)``): a
        tracer, so a ``fori_loop(0, N, ...)`` runs as a ``while_loop``."""
        if self.semantics.reaching_value(name) is not None:
            return False
        scope = self.semantics.binding_scope(name)
        return isinstance(scope, cst.FunctionDef) and name.value in self.traced.traced_parameters(scope)

    def _loop_input(self, name: cst.Name, depth: int = 0) -> bool:
        """Whether ``name`` holds what a ``lax`` loop hands its body, a tracer: the body's carry
        or index parameter, or a part of it unpacked (``V, k = carry`` in a ``scan`` body: a
        ``fori_loop(0, k + 1, ...)`` there has a traced bound)."""
        reaching = self.semantics.reaching_value(name)
        if reaching is not None:
            value = reaching[1]
            return isinstance(value, cst.Name) and depth < 3 and self._loop_input(value, depth + 1)
        scope = self.semantics.binding_scope(name)
        if not isinstance(scope, (cst.FunctionDef, cst.Lambda)):
            return False
        params = [p.name.value for p in scope.params.params]
        traced = self.traced.by_function.get(scope)
        if name.value not in params or traced is None or traced.kind != "loop-body" or not isinstance(traced.node, cst.Call):
            return False
        if any(
            n is not name and scopes.binding_role(self.semantics.parents, n)[0] is not None
            and not isinstance(self.parent(n), cst.Param)
            for n in self.semantics.variables(scope, name.value)
        ):
            return False  # bound again in the body: not only the loop's input
        kind = self._loop_kind(traced.node.func)
        handed = {"fori": 2, "scan": 2, "while": 1}.get(kind, 0)  # what the loop passes by position
        return params.index(name.value) < handed

    def _shape_only(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """Whether ``expr`` is made of literals, shapes (``x.shape[0]``), ``len(...)`` and names
        bound once to those: a JAX function of it (``jnp.int8(xs.shape[0])``) is a constant."""
        if depth > 4:
            return False
        if isinstance(expr, (cst.Integer, cst.Float)):
            return True
        if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute) and expr.value.attr.value == "shape":
            return True
        if isinstance(expr, cst.Call) and self.matches(expr.func, {"builtins.len"}):
            return True
        if isinstance(expr, cst.Name):
            bound = self.semantics.assigned_value(expr)
            return bound is not None and self._shape_only(bound, depth + 1)
        if isinstance(expr, cst.BinaryOperation):
            return self._shape_only(expr.left, depth) and self._shape_only(expr.right, depth)
        if isinstance(expr, cst.UnaryOperation):
            return self._shape_only(expr.expression, depth)
        if isinstance(expr, (cst.Tuple, cst.List)):
            return all(isinstance(e, cst.Element) and self._shape_only(e.value, depth) for e in expr.elements)
        return False

    def _unseen(self, model: LoopModel, writes: list[Write]) -> list[BufferWrite]:
        """The model's writes that the syntactic reading of the body did not find."""
        seen = [self.location(w.call) for w in writes]
        for w in writes:  # `lax.cond(p, record, keep, ys)`: the write the model finds sits in `record`
            if isinstance(w.call, cst.Call) and self.matches(w.call.func, {vocabulary.COND}):
                branches = [self._function(a.value) for a in w.call.args if isinstance(a.value, cst.Name)]
                seen += [self.location(f) for f in branches if f is not None]
        unseen = []
        for found in model.writes:
            where = self.location(found.write.call)
            if not any(_within(where, s) or _within(s, where) for s in seen):
                seen.append(where)
                unseen.append(found)
        return unseen

    def _slot_from_data(self, call: cst.Call, kind: str, motion: str | None) -> bool:
        """Whether the data picks the written slot: the index reads as data, or it is the element
        of a ``scan``'s ``xs`` that is not visibly ``jnp.arange`` (a list of slots to update, one
        a step, which may repeat; either of two, chosen by an ``if`` expression, is one), where
        "one slot a step" is not shown. The element of ``xs``
        written out as a tuple is that of one of its ``jnp.arange`` parts (the model makes the
        others data)."""
        if motion == "data":
            return True
        if motion != "element" or kind != "scan":
            return False
        args = self._arguments(call, "scan")
        xs = self.semantics.plain_value(args.get("xs").value) if args is not None and args.get("xs") is not None else None
        ranges = [xs.body, xs.orelse] if isinstance(xs, cst.IfExp) else [xs]  # `jnp.arange(n) if lower else jnp.arange(n - 1, -1, -1)`
        return not (all(self._modeler().moves_by_one(r) for r in ranges) or isinstance(xs, (cst.Tuple, cst.List)))

    def _modelled_matters(self, model: LoopModel, found: BufferWrite, init: cst.BaseExpression | None) -> bool:
        """Whether a write only the loop model sees is worth a finding: the same questions as
        :meth:`_judge_buffer` asks, of the model's facts."""
        modeler = self._modeler()
        fixed = found.index == "fixed" or found.write.index_node is not None and invariant(self, found.write.index_node, model.body.node)
        if init is not None and fixed and self._few_fixed_slots(modeler.initial(init, found.path)):
            return False  # a running value in a few slots: nothing grows with the loop
        exact = init is not None and modeler.exact_dtype(modeler.initial(init, found.path))
        if exact and found.whole_read is None:
            found = dataclasses.replace(found, read=None)  # read at a slot or band: see `_exact_buffer`
        if model.kind != "while" and found.read is not None and found.whole_read is None and (
            found.index == "data" and invariant(self, found.write.index_node, model.body.node)
        ):
            return False  # one block read and rewritten every step (an accumulator): O(T) memory
        old_slot = found.old_slot_read is not None or found.old_whole_read is not None and self._row_of_whole(
            found.write.row, found.write.index_node, [found.old_whole_read]
        )
        if updates_state(found.read is not None, old_slot, self._slot_from_data(model.call, model.kind, found.index)):
            return False  # the loop's state updated in place: no rows
        row = self._written_value(found.write)  # (the update of a block, `ids.reshape(b, 1)`, where no row is read)
        if model.kind == "while":
            return not (exact or self._gradient_free(row) or found.index == "fixed" or (
                found.write.index_node is not None and invariant(self, found.write.index_node, model.body.node)
            ))
        at201 = found.read is None or found.index == "fixed" or found.slot_reads
        return not at201 or not (
            exact or self._constant_row(row) or self._gradient_free(row)
            or row is not None and invariant(self, row, model.body.node, pure_calls=True)  # one value every step
        )

    def _constant_row(self, row: cst.BaseExpression | None) -> bool:
        """Whether the written row has one value every step: a literal, or an array of one made
        by a JAX constructor (``jnp.zeros(2)``, ``jnp.ones_like(h)``, ``jnp.full(n, -1.0)``):
        the buffer is cleared or filled slot by slot, with no per-step values to collect."""
        if scopes.is_constant(row):
            return True
        made = self.construction(row) if isinstance(row, cst.Call) else None
        if made is None or made.name in ("empty", "empty_like", "arange"):
            return False
        if made.name in ("full", "full_like"):
            fill = made.positional[1] if len(made.positional) > 1 else made.keywords.get("fill_value")
            return scopes.is_constant(fill)
        return True

    def _gradient_free(self, row: cst.BaseExpression | None, depth: int = 0) -> bool:
        """Whether a written row visibly has no gradient: a bool literal (a mask cleared slot by
        slot, ``mask.at[i].set(False)``), a comparison or a logical combination of comparisons
        (``(err == 0) & (err != 1)``), an integer or boolean array made or cast
        (``jnp.array([r, c, 3], dtype=jnp.int32)``), or an integer result (``jnp.argmax``, a
        ``jax.random.categorical`` draw: a decoder's next token), also cast (``.astype``), directly or through a name
        bound once to one, or a part of one (``tok[:2]``), a constant shaped like anything
        (``jnp.zeros_like(tok)``), a value ``lax.stop_gradient`` cuts from ``grad``, a count or other reduction of one (``jnp.sum(ok.astype(jnp.int32))``), or a choice between two such (``jnp.where(done, jnp.zeros_like(tok), tok)``, a ``lax.cond`` whose branches each return one), ``lax.top_k``'s indices, or a gather from such (``jnp.take_along_axis(idx, pick)``). The buffer then collects nothing that
        ``grad`` could go through (a buffer that starts as constants keeps a zero tangent: JAX
        leaves it out of the differentiated loop), and forward it is updated in place: neither
        AT201's nor AT202's rewrite has anything to offer. The
        result of a function of this file counts where each of its ``return`` s gives such a value
        there (``tok, _ = self.pick(logits)`` where ``pick`` returns ``jnp.argmax(...), None``), a
        few calls deep (``depth``)."""
        position: int | None = None
        for _ in range(4):  # `ids = lax.cond(...)`, then `ids = ids.reshape(b, 1)`: each binding followed
            while (inner := self._reshaped(row)) is not None:  # `tok[:2]`, `tok.reshape(-1, 1)`: still an integer array
                row = inner
            if position is not None or not isinstance(row, cst.Name) or is_bool_literal(row):
                break
            reaching = self.semantics.reaching_value(row)
            if reaching is None or len(reaching[0]) > 1:
                break
            position = reaching[0][0] if reaching[0] else None
            row = reaching[1]
        if is_bool_literal(row) or position is None and _logical(row, lambda part: self._gradient_free(part, depth)):
            return True
        if not isinstance(row, cst.Call):
            return False
        if position is None and (self.matches(row.func, vocabulary.INTEGER_RESULTS) is not None or self._modeler().exact_dtype(row)):
            return True  # (`jnp.array([r, c, 3], dtype=jnp.int32)`: an integer array made, of no gradient)
        if position is not None and vocabulary.INTEGER_ELEMENTS.get(self.matches(row.func, vocabulary.INTEGER_ELEMENTS)) == position:
            return True  # `vals, idx = lax.top_k(logits, k)`: `idx`
        if position is None and picked_first(row) is not None and self.matches(row.func, vocabulary.GATHERS) is not None:
            return self._gradient_free(picked_first(row), depth)  # `jnp.take_along_axis(idx, pick, axis=-1)`: elements of `idx`
        if position is None and self.matches(row.func, vocabulary.CONSTANT_LIKE | {vocabulary.STOP_GRADIENT}) is not None:
            return True  # `jnp.zeros_like(tok)`: a constant, whatever it is shaped like; `lax.stop_gradient(h)`: no cotangent
        picked = [a.value for a in row.args if a.keyword is None and not a.star]
        if position is None and self.matches(row.func, WHERE) is not None and len(picked) == 3 == len(row.args):
            return self._gradient_free(picked[1], depth) and self._gradient_free(picked[2], depth)  # `jnp.where(done, 0 * tok, tok)`
        if position is None and isinstance(row.func, cst.Attribute) and row.func.attr.value == "astype":
            return self._gradient_free(row.func.value, depth)  # `randint(...).astype(float)`: a cast of no gradient has none
        if position is None and picked and self.matches(row.func, vocabulary.KEEPING_REDUCTIONS) is not None:
            return self._gradient_free(picked[0], depth)  # `jnp.sum(valid.astype(jnp.int32))`: a count
        if position is None and isinstance(row.func, cst.Attribute) and row.func.attr.value in vocabulary.KEEPING_REDUCTION_METHODS:
            return self._gradient_free(row.func.value, depth)  # `mask.sum()`
        if self.matches(row.func, {vocabulary.COND}) is not None:  # `lax.cond(hot, sample, greedy, logits)`
            chosen = ordered_arguments(row, vocabulary.CHOICE_PARAMS[vocabulary.COND], "operand")
            branches = [self._modeler().callable(b) for b in chosen[1:3]] if chosen is not None and len(chosen) >= 3 else []
            return bool(branches) and all(self._returns_gradient_free(b, position, depth) for b in branches)
        return self._returns_gradient_free(self._modeler().callable(row.func), position, depth)

    def _returns_gradient_free(self, function, position: int | None, depth: int) -> bool:
        """Whether each ``return`` of a function of this file (a ``def``, or a lambda's body)
        gives a value of no gradient (:meth:`_gradient_free`; with ``position``, the element
        there of the tuple it returns): an integer result, also cast, `jax.random.categorical(k,
        l).astype(jnp.int32)`, followed a few calls deep."""
        if function is None or depth > 2:
            return False
        if isinstance(function.node, cst.Lambda):
            given = [function.node.body] if position is None else []
        elif isinstance(function.node, cst.FunctionDef):
            given = self._modeler().returned(function.node, position)
        else:
            return False
        return bool(given) and all(v is not None and self._gradient_free(v, depth + 1) for v in given)

    def _written_value(self, write: Write | Written) -> cst.BaseExpression | None:
        """The row a write sets (read as written, or by the loop model), or where the rewrite cannot take it as one (``.set(v, mode=...)``,
        an update not visibly one slot thick, ``ids.reshape(-1, 1)``) the value it writes: whether
        that has a gradient does not depend on its shape."""
        if write.row is not None or write.form not in ("at", "dus", "dus_in_dim", "dui_in_dim"):
            return write.row
        update = "update" if write.form != "at" else None
        for position, arg in enumerate(write.call.args):
            if arg.keyword is not None and arg.keyword.value == update or arg.keyword is None and not arg.star and (
                position == (1 if update else 0)
            ):
                return arg.value
        return None

    def _reshaped(self, row: cst.BaseExpression | None) -> cst.BaseExpression | None:
        """The array that ``row`` takes a part of or reshapes, keeping its dtype: ``x[:2]``,
        ``x.reshape(-1, 1)``, ``x.squeeze()``, ``jnp.expand_dims(x, 1)``; else ``None``."""
        if isinstance(row, cst.Subscript):
            return row.value
        if not isinstance(row, cst.Call) or any(a.star for a in row.args):
            return None
        if self.matches(row.func, RESHAPING_FUNCTIONS) is not None:  # (before the method: `jnp.squeeze(x)` is no `x.squeeze()`)
            return row.args[0].value if row.args and row.args[0].keyword is None else None
        if isinstance(row.func, cst.Attribute) and row.func.attr.value in RESHAPING_METHODS:
            return row.func.value
        return None

    def _one_step(self, args: dict) -> bool:
        """Whether a ``fori_loop``'s bounds are at most :data:`ONE_STEP` apart: int literals
        (``fori_loop(0, 1, ...)``) or a bound and the other plus or minus a literal
        (``fori_loop(K - 1, K, ...)``, a stencil's last level)."""
        lower, upper = args.get("lower"), args.get("upper")
        if lower is None or upper is None:
            return False
        low, high = lower.value, upper.value
        if int_value(low) is not None and int_value(high) is not None:
            return 0 <= int_value(high) - int_value(low) <= ONE_STEP
        for bound, other, sign in ((high, low, cst.Add), (low, high, cst.Subtract)):
            if isinstance(bound, cst.BinaryOperation) and isinstance(bound.operator, sign) and (
                self.code_of(bound.left) == self.code_of(other) and (step := int_value(bound.right)) is not None
            ):
                return 0 <= step <= ONE_STEP
        return False

    def _rewritten_whole(self, body: Body, write: Write, group: list[Write]) -> bool:
        """Whether the body also recomputes the buffer as a whole each step, beside its one-slot
        writes: arithmetic on it (``y = y + jnp.where(mask, d, 0.0)``, ``y *= 0.9``), or an update
        of a band of it (``ey = ey.at[1:, :].set(...)``, a field's interior, the boundary row
        written at a fixed slot), or a result of an inner ``lax`` loop (``p, q, u =
        lax.fori_loop(...)``). Such a buffer is the loop's state (a Levinson recursion, a
        finite-difference field, an ADI sweep), not rows collected one a step."""
        function = body.function
        if function is None or write.dict_entry or body.unpack is None and body.alias is None and body.carry_param != write.buf:
            return False
        writes = {id(w.call) for w in group}
        for node in self.semantics.own_of_kind(function, cst.Assign, cst.AugAssign):
            if isinstance(node, cst.AugAssign):
                if isinstance(node.target, cst.Name) and node.target.value == write.buf:
                    return True
                continue
            if node is not body.unpack and isinstance(node.value, cst.Call) and self.matches(node.value.func, LOOPS) and any(
                isinstance(n, cst.Name) and n.value == write.buf
                for t in node.targets for n in self.semantics.of_kind(t.target, cst.Name)
            ):
                return True  # `p, q, u = lax.fori_loop(...)`: an inner loop recomputes it
            if len(node.targets) != 1 or not (isinstance(node.targets[0].target, cst.Name) and node.targets[0].target.value == write.buf):
                continue
            value = node.value
            if id(value) in writes:
                continue
            if isinstance(value, (cst.BinaryOperation, cst.UnaryOperation)) and self.semantics.names_in(value, write.buf):
                return True
            if self._arithmetic_helper(value, write.buf):
                return True  # `salt = diffuse(salt, 0.1)`, a helper returning arithmetic on it
            found = scopes.at_call(value)
            if found is not None and isinstance(found[0], cst.Name) and found[0].value == write.buf and any(
                isinstance(e.slice, cst.Slice) and (e.slice.lower is not None or e.slice.upper is not None)
                for e in value.func.value.slice
            ):
                return True
        return False

    def _arithmetic_helper(self, value: cst.BaseExpression, buf: str) -> bool:
        """Whether ``value`` calls a function of this file with ``buf`` by position, and each
        ``return`` of it is arithmetic on that parameter (``return salt + d * (...)``)."""
        if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Name):
            return False
        helper = self.semantics.binding(value.func)
        if not isinstance(helper, cst.FunctionDef):
            return False
        params = [p.name.value for p in (*helper.params.posonly_params, *helper.params.params)]
        passed = [
            params[k] for k, a in enumerate(value.args[: len(params)])
            if a.keyword is None and not a.star and isinstance(a.value, cst.Name) and a.value.value == buf
        ]
        returns = self.semantics.own_of_kind(helper, cst.Return)
        return bool(passed) and bool(returns) and all(
            isinstance(r.value, (cst.BinaryOperation, cst.UnaryOperation))
            and any(self.semantics.names_in(r.value, p) for p in passed)
            for r in returns
        )

    def _carried_integer(self, body: Body, init: cst.BaseExpression, row: cst.BaseExpression | None) -> bool:
        """Whether the written row is a value of the carry, as the body unpacked it, that the
        initial carry shows to be a strongly typed integer or boolean array (``idx`` of ``idx,
        step, path = c`` starting as ``start.astype(jnp.uint32)``: path reconstruction writing
        the index it chases). A loop keeps such a carry's dtype (JAX refuses a body that changes
        it; only weakly typed values are promoted), so the row is an integer at every step and
        has no gradient, whatever the buffer's dtype."""
        if not isinstance(row, cst.Name) or body.unpack is None or body.carry_param is None:
            return False
        reaching = self.semantics.reaching_value(row)
        if reaching is None or len(reaching[0]) != 1:
            return False
        source = reaching[1]
        if not (isinstance(source, cst.Name) and source.value == body.carry_param) or self.semantics.reaching_value(source):
            return False
        modeler = self._modeler()
        return modeler.strong_integer(modeler.initial(init, reaching[0]))

    def _row_of_whole(self, row, index, whole_reads: list[cst.CSTNode]) -> bool:
        """Whether the written row is the written slot of a value computed from the whole buffer
        as read (``z = g(y)`` then ``y.at[i].set(z[i])``, an autoregressive inverse): the step
        reads the slot's old value through ``g`` with the rest, an update in place (Gauss-Seidel
        through a call), not a row made from rows written so far."""
        if not whole_reads or index is None or not isinstance(row, cst.Subscript) or len(row.slice) != 1:
            return False
        element = row.slice[0].slice
        if not isinstance(element, cst.Index) or self.code_of(element.value) != self.code_of(index):
            return False
        pending, followed = [row.value], 0
        while pending and followed < 8:
            expr = pending.pop()
            followed += 1
            # the read itself, or inside a helper of this file the expression calls (`g(w, y)`), as the model reads it
            holders = [expr] + [
                callee for call in self.semantics.of_kind(expr, cst.Call)
                if isinstance(call.func, cst.Name) and isinstance(callee := self.semantics.binding(call.func), cst.FunctionDef)
            ]
            if any(read is holder or self.semantics.contains(holder, read) for holder in holders for read in whole_reads):
                return True
            for name in self.semantics.variables(expr):
                reaching = self.semantics.reaching_value(name)
                if reaching is not None:
                    pending.append(reaching[1])
        return False

    def _exact_buffer(self, init: cst.BaseExpression, body, write: Write) -> bool:
        """Whether the carried ``buf`` starts as a visibly integer or boolean array. Written and
        not read back, such a buffer costs nothing: it has no cotangent for `grad` to carry, and
        forward it is updated in place (an assignment's state). Read back whole it is still AT203:
        the backward pass may need each step's mask or indices; read at a slot or a band, only
        that part is saved. AT202 is about the `while_loop`."""
        return self._modeler().exact_dtype(self._initial_buffer(init, body, write))

    def _initial_buffer(self, init: cst.BaseExpression, body, write: Write) -> cst.BaseExpression | None:
        """The expression the carried ``buf`` starts as, where the loop's initial carry shows it."""
        if write.buf not in body.elements:
            return None
        path = (body.elements.index(write.buf),) if body.unpack is not None else ()
        if write.dict_entry:  # `s["valid"] = ...`: the entry of the carried dict
            entry = string_key(write.statement.targets[0].target)
            if entry is None:
                return None
            path += (entry,)
        return self._modeler().initial(init, path)

    def _first_initial(self, call: cst.Call, kind: str, init: cst.BaseExpression, body, write: Write) -> cst.BaseExpression | None:
        """What the carried ``buf`` starts as on the loop's first run: as :meth:`_initial_buffer`
        finds it, or, where the loop runs again in a Python loop and hands its result back as
        its initial carry (``acc = jnp.zeros(2)``, then ``for i in range(2): d, acc =
        fori_loop(2, n, body, (d, acc))``), the one other value the scope binds the name to. A
        loop's result has its initial carry's shape and dtype, so that value answers questions
        of those alone, not of the buffer's contents."""
        found = self._initial_buffer(init, body, write)
        if found is not None or write.buf not in body.elements or write.dict_entry:
            return found
        path = (body.elements.index(write.buf),) if body.unpack is not None else ()
        name = display_item(init, path)
        if not isinstance(name, cst.Name):
            return None
        result = (0, *path) if kind == "scan" else path  # where the call's result holds the buffer
        scope = self.semantics.binding_scope(name)
        values = []
        for bound in self.semantics.variables(scope, name.value):
            role, holder = scopes.binding_role(self.semantics.parents, bound)
            if role is None or self.semantics.enclosing_scope(bound) is not scope:
                continue
            if isinstance(holder, cst.Assign) and holder.value is call and len(holder.targets) == 1 and (
                scopes.target_path(holder.targets[0].target, bound) == result
            ):
                continue  # the loop's own result, handed back
            if role != "plain":
                return None
            values.append(holder.value)
        return values[0] if len(values) == 1 else None

    def _few_fixed_slots(self, initial: cst.BaseExpression | None) -> bool:
        """Whether a buffer written at fixed slots is of a constant shape (``stats =
        jnp.zeros(2)``, ``stats.at[0].add(loss)``): a running value in a few slots, whose size
        does not grow with the loop."""
        dims = self._buffer_dims(initial) if initial is not None else None
        return dims is not None and all(int_value(self._resolve(n)) is not None for n in dims)

    def _several_slots(self, body: Body, group: list[Write]) -> bool:
        """Whether a step writes two different slots (indices spelled differently) on the same
        trace (not on two sides of a Python ``if``)."""
        return any(
            self.code_of(a.index) != self.code_of(b.index) and not self.apart(a.call, [b.call], body.function)
            for k, a in enumerate(group) for b in group[k + 1 :]
            if a.index is not None and b.index is not None
        )

    def _model(self, call: cst.Call, kind: str, args: dict, method: cst.FunctionDef | None = None) -> LoopModel:
        """The loop model of ``call``, built once; ``method``: the scanned module's ``__call__``
        (``nn.scan(Cell, ...)``), whose ``self`` is the module."""
        if getattr(self, "_models", None) is None:
            self._models: dict[int, tuple[cst.Call, LoopModel]] = {}
        if id(call) not in self._models:  # the call is kept with its model, so that its id stays its own
            lifted = LOOPS.get(self.matches(call.func, LOOPS)) in ("nn.while", "nn.scan")  # `body(mdl, carry, ...)`
            body = Function(method, [OPAQUE]) if method is not None else None
            self._models[id(call)] = (call, self._modeler().build(call, kind, args, module_first=lifted, body=body))
        return self._models[id(call)][1]

    def _modeler(self) -> LoopModeler:
        if getattr(self, "_loop_modeler", None) is None:
            self._loop_modeler = LoopModeler(self)
        return self._loop_modeler

    def _report_modelled(
        self, model: LoopModel, found: BufferWrite, where: str | None = None, output: str = "a `scan` output"
    ) -> None:
        """A carried buffer the model found in a spelling the fix builder does not rewrite;
        ``where`` says which loop carries it and ``output`` what takes its rows, where that is not
        a ``lax`` loop's call."""
        loop = {"fori": "fori_loop", "scan": "scan", "while": "while_loop"}[model.kind]
        write = found.write
        if found.read is not None and found.index != "fixed" and model.kind != "while" and not found.slot_reads:
            self.report(
                "AT203",
                found.read,
                f"the `{loop}` body reads `{found.label}` (line {self.start_line(found.read)}), the buffer it writes "
                f"at line {self.start_line(write.call)}: under `jax.grad` an array as large as the buffer is saved "
                "every step, O(T^2) memory; use `autota.transform`, carry a running summary of the rows instead of "
                "reading them back, or wrap the body in `jax.checkpoint`",
                reason="the rows are read back inside the loop, so they cannot leave the carry",
            )
            return
        if model.kind == "while":
            self.report(
                "AT202",
                write.call,
                f"`{found.label}` is written in a `while_loop`, which cannot be reverse-differentiated (`jax.grad` "
                "fails); if it runs a fixed number of steps, a `fori_loop`/`scan` with stacked outputs makes it "
                "differentiable; otherwise a `scan` over the maximum length that masks the steps after the exit "
                "(`jnp.where(done, old, new)`); or, without `grad`, donate the buffer at the `jit` boundary",
                reason=_spelling(found) or "the condition is not visibly a counter compared with a static bound",
            )
            return
        kind = "some-steps" if write.form == "some-steps" else found.index
        message = self._written_message(
            found.label, where or f"carried through `{loop}`", kind, write.index_node, output
        )
        reason = _spelling(found)
        if reason is None and found.maybe_read is not None:
            reason = (
                f"the body hands the carry holding `{found.label}` to code that may read it (line "
                f"{self.start_line(found.maybe_read)}), so its rows may not leave the carry"
            )
        self.report("AT201", write.call, message, reason=reason or self._spelling_of(model))


    def _spelling_of(self, model: LoopModel) -> str:
        """What in the body's spelling keeps the rewrite away, where the model saw the buffer."""
        body = model.body.node
        method = isinstance(body, cst.FunctionDef) and isinstance(self.semantics.enclosing_scope(body), cst.ClassDef)
        if model.body.bound or model.body.keywords or method:
            return "the body is a `functools.partial` or a method; the rewrite takes a `def` called with the loop's arguments"
        args = self._arguments(model.call, model.kind) or {}
        made = args[vocabulary.BODY_ARG[model.kind]].value if vocabulary.BODY_ARG[model.kind] in args else None
        if isinstance(made, cst.Name):  # `body = make_body(0.9)` passed by name
            made = self.semantics.assigned_value(made) if not isinstance(self.semantics.binding(made), cst.FunctionDef) else made
        if isinstance(made, cst.Call) and self.matches(made.func, vocabulary.PARTIAL | vocabulary.REMATS) is None:
            return "the body is made by a call (a factory); the rewrite takes a `def` the loop names"
        if isinstance(made, cst.Call):
            return "the body is wrapped (`jax.checkpoint`, `functools.partial`); the rewrite takes a `def` the loop names"
        if isinstance(body, cst.FunctionDef) and body.decorators:
            return "the body function is decorated; the rewrite takes an undecorated `def`"
        if isinstance(body, cst.Lambda):
            return "the body is a `lambda`; write it as a `def` to get a fix"
        if not any(_within(self.location(w.write.call), self.location(body)) for w in model.writes):
            return "the write is made in a helper function the body calls; inline it to get a fix"
        if isinstance(body, cst.FunctionDef) and isinstance(body.body, cst.SimpleStatementSuite):
            return "the body is defined on one line; write it on indented lines to get a fix"
        if isinstance(body, cst.FunctionDef) and (
            body.params.kwonly_params or isinstance(body.params.star_arg, cst.Param) or body.params.star_kwarg
            or any(p.default is not None for p in (*body.params.posonly_params, *body.params.params))
        ):
            return "the body takes parameters beyond the loop's (a default, `*args`, keyword-only); the rewrite passes the loop's alone"
        if isinstance(body, cst.FunctionDef) and body.params.posonly_params:
            return "the body's parameters are positional-only (`/`); the rewrite unpacks the carry from named parameters"
        return (
            "the carry is indexed (`state[k]`) or the write is bound to another name than the buffer's; unpack the "
            "carry into names and write `buf = buf.at[i].set(row)` to get a fix"
        )


def _holds(expr: cst.BaseExpression, name: str) -> bool:
    """Whether ``expr`` is the name ``name`` or a tuple, list or dict display holding it as an
    item (``(key, pair, case)``): the array itself, not a value computed from it."""
    if isinstance(expr, cst.Name):
        return expr.value == name
    if isinstance(expr, (cst.Tuple, cst.List)):
        return any(isinstance(e, cst.Element) and _holds(e.value, name) for e in expr.elements)
    if isinstance(expr, cst.Dict):
        return any(isinstance(e, cst.DictElement) and _holds(e.value, name) for e in expr.elements)
    return False


def _within(inner, outer) -> bool:
    return (outer.line, outer.column) <= (inner.line, inner.column) and (inner.end_line, inner.end_column) <= (
        outer.end_line,
        outer.end_column,
    )


def _spelling(found: BufferWrite) -> str | None:
    """Why the fix builder, which rewrites ``buf = buf.at[i].set(row)`` over a carry unpacked into
    names, does not rewrite this spelling."""
    form = found.write.form
    if form == "some-steps":
        return (
            "the write is made on some steps only (one branch of a `lax.cond` or `jnp.where` leaves the buffer "
            "as it was), where a stacked output needs a row every step"
        )
    if form == "cond":
        return (
            "both branches of a `lax.cond` or `jnp.where` write the slot: select the row first and write it "
            "once (`buf.at[i].set(lax.cond(p, f, g, x))`), then the rewrite applies"
        )
    if form == "flag":
        return (
            "the write sits under a Python `if`, which the trace decides once for every step; the rewrite takes "
            "an unconditional write"
        )
    if form == "tree_map":
        return "the buffers are a pytree written together (`tree_map`, or a comprehension over them); the rewrite takes one buffer at a time"
    if any(isinstance(p, str) and p.startswith(".") for p in found.path):
        return "the buffer is a field of a NamedTuple or dataclass carry; the rewrite takes a tuple of names"
    return None


def picked_first(call: cst.Call) -> cst.BaseExpression | None:
    """The first argument of ``call``, where it is passed by position without a star."""
    first = call.args[0] if call.args else None
    return first.value if first is not None and first.keyword is None and not first.star else None


def _logical(row: cst.BaseExpression, gradient_free) -> bool:
    """Whether ``row`` is a comparison, or ``&``, ``|``, ``^``, ``~`` or ``not`` of rows
    ``gradient_free`` accepts: a boolean array, with no gradient."""
    if isinstance(row, cst.Comparison):
        return True
    if isinstance(row, cst.UnaryOperation) and isinstance(row.operator, (cst.BitInvert, cst.Not)):
        return gradient_free(row.expression)
    if isinstance(row, cst.BinaryOperation) and isinstance(row.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return gradient_free(row.left) and gradient_free(row.right)
    return isinstance(row, cst.BooleanOperation) and gradient_free(row.left) and gradient_free(row.right)


def _shell_parts(cls: ast.ClassDef) -> list[ast.AST]:
    """A class's own parts, without its methods: bases, keywords, decorators and other statements."""
    return [
        *cls.bases, *cls.keywords, *cls.decorator_list,
        *(s for s in cls.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))),
    ]


def _argument_for(call: cst.Call, function: cst.FunctionDef, param: str, params: list[str]) -> cst.BaseExpression | None:
    """What ``call`` passes ``function``'s parameter ``param`` (``params``: those it takes by
    position), by keyword or by position (after ``self`` for ``obj.method(...)``); ``None`` where
    the call does not show it (a star argument, the function handed on rather than called)."""
    name = function.name.value
    called = call.func.value == name if isinstance(call.func, cst.Name) else (
        isinstance(call.func, cst.Attribute) and call.func.attr.value == name
    )
    if not called:
        return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == param), None)
    offset = 1 if isinstance(call.func, cst.Attribute) and params and params[0] in ("self", "cls") else 0
    index = params.index(param) - offset if param in params else None
    found = scopes.call_argument(call, param, index if index is None or index >= 0 else None)
    return found.value if isinstance(found, cst.Arg) else None
