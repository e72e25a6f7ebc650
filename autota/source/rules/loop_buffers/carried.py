"""AT201 carried buffers (and AT203 read-back buffers): findings, preconditions and the rewrite into stacked ``scan`` outputs."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from autota.catalogue import Edit, Fix
from autota.source import scopes, vocabulary
from autota.source.rules.loop_buffers.syntax import (
    JNP,
    BODY_ARG,
    INIT_ARG,
    CONSTRUCTORS,
    PLAIN_VALUES,
    alone_on_its_line,
    is_none,
    literal_bool,
    int_value,
    int_value_text,
    index_offset,
    rebinds,
    identifier,
    all_params,
)
from autota.source.rules.loop_buffers.body import Write, Body, by_buffer


LINE_LENGTH = 88
"""A rewritten loop call longer than this (or than the line it replaces) gets one argument a line."""


NOT_BOUND = "the loop's result is neither assigned to names (`a, b = lax....`) nor returned"


CARRIED_COST = "under `jax.grad` the carried buffer costs ~T^1.85 time (10-12x slower than stacked outputs at T=1024)"
"""What a buffer carried through a `scan` or `fori_loop` costs, as measured (see the AT201 doc)."""


def _stores_into(node: cst.CSTNode) -> bool:
    """Whether ``node`` is a statement that changes an object in place: a store into a subscript
    or an attribute (``start[:] = 7.0``, ``obj.n += 1``) or a ``del`` of one."""
    if isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
    elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.Del)):
        targets = [node.target]
    else:
        return False
    return any(isinstance(t, (cst.Subscript, cst.Attribute)) or isinstance(t, (cst.Tuple, cst.List)) and any(
        isinstance(e.value, (cst.Subscript, cst.Attribute)) for e in t.elements) for t in targets)


def updates_state(reads_rest: bool, reads_old_slot: bool, data_slot: bool) -> bool:
    """Whether a carried buffer written one slot a step is the loop's state rather than rows it
    collects, from three facts about the step: it reads the buffer elsewhere than the slot it
    writes, it reads the old value of that slot, and the data picks the slot (``argmin``, a
    queue's free place). Any one alone is a history: rows read back (AT203), a block accumulator
    (``buf[i] + row``, AT201), a permuted write. Two together are an update in place (Gauss-Seidel,
    coordinate descent, a sprite blended where the data says), which keeps no rows to stack and
    whose cost under ``grad`` is the algorithm's own."""
    return reads_rest + reads_old_slot + data_slot >= 2

@dataclass(frozen=True)
class LoopResult:
    """Where a loop's result goes. The fix rebinds the names that receive it; a result that is
    returned or indexed (``return lax.fori_loop(...)``, ``x = lax.fori_loop(...)[1]``) first gets
    names the fix introduces, and ``tail`` then returns or binds what the original did."""

    statement: cst.Assign | cst.Return
    target: cst.BaseExpression
    """The names that receive the result: the assignment's own target, or a tree of names the fix
    introduces (not the file's own nodes)."""
    holder: cst.BaseExpression | None = None
    """Where names are introduced: the call, or the subscript of it that the statement reads."""
    tail: str | None = None
    """The statement after the rebuild that gives back what the original statement did."""


@dataclass
class CarriedPlan:
    """What the rewrite of one carried buffer is built from: the loop, and the facts that
    :meth:`CarriedBuffers._plan`'s steps proved of it, with the assumptions that make it unsafe."""

    call: cst.Call
    kind: str
    args: dict[str, cst.Arg]
    body: Body
    write: Write
    previous: list[cst.CSTNode]
    """The previous step's row, where the body reads it back (it is carried as a value instead):
    ``buf[i - 1]``, or a call that reads that row (no fix)."""
    key: cst.SimpleString | None = None
    """The dict carry's key, for a dict entry."""
    position: int = 0
    """The buffer's place among the carried values."""
    binding: LoopResult | None = None
    lax_name: str | None = None
    jnp_name: str | None = None
    remote_init: cst.Assign | None = None
    """``init = (h0, 0, buf0)`` a few lines above the loop, where its carry is written out there."""
    inits: list[cst.BaseExpression] | None = None
    results: list[cst.BaseExpression] | None = None
    ys_target: cst.BaseExpression | None = None
    checked: bool = False
    """Whether each row is checked where the write ran (see ``_checked_in_body``)."""
    start_code: str = ""
    bounds: tuple[cst.BaseExpression, cst.BaseExpression] | None = None
    trips: str | None = None
    assumptions: list[str] = field(default_factory=list)


class CarriedBuffers:
    """AT201 (and AT203 for bodies that read their buffer back)."""

    def _check_flax_scan(self, call: cst.Call) -> None:
        """``nn.scan(Cell, ...)``: the module's ``__call__`` is the scan body; ``nn.scan(fn, ...)``
        over a function ``fn(module, carry, x)``: the function is. Their buffers are reported;
        rewriting a lifted transform and every place its scanned form is called is left to the
        author."""
        target = next(
            (a.value for a in call.args if a.keyword is None and not a.star or a.keyword and a.keyword.value == "target"),
            None,
        )
        if any(a.keyword is not None and a.keyword.value == "methods" for a in call.args):
            return
        cls = self._class(target) if isinstance(target, cst.Name) else None
        if cls is not None:
            methods = [
                n for n in cls.body.body if isinstance(n, cst.FunctionDef) and n.name.value == "__call__"
            ]
            if len(methods) != 1:
                return
            function, name, output = methods[0], cls.name.value, "the method's `y` (stacked by `nn.scan` along `out_axes`)"
        else:
            function = self._function(target) if target is not None else None
            if not isinstance(function, cst.FunctionDef):
                return
            name, output = function.name.value, "the function's `y` (stacked by `nn.scan` along `out_axes`)"
        body = self._body(function, "nn.scan")
        # the initial carry, where the scanned form is called at once: `nn.scan(fn, ...)(mdl, carry, xs)`
        outer = self.parent(call)
        given = [a.value for a in outer.args if a.keyword is None and not a.star] if (
            isinstance(outer, cst.Call) and outer.func is call and not any(a.star for a in outer.args)
        ) else []
        init = given[1] if len(given) >= 2 and cls is None else None
        args = {"f": cst.Arg(target), **({"init": cst.Arg(init)} if init is not None else {})}
        where = f"carried through the Flax `nn.scan` of `{name}` (line {self.start_line(call)})"
        with self.not_rewritten("autota does not rewrite Flax's lifted `nn.scan` and the calls of its scanned form"):
            writes = self._writes(body)
            for group in by_buffer(writes):
                verdict = self._judge_buffer(call, "scan", args, body, group)
                if verdict is not None and verdict.read is not None:
                    self._report_read_back("scan", group[0], verdict.read)
                elif verdict is not None:
                    self.report("AT201", group[0].call, self._carried_message(where, body, group[0], output))
            # other spellings (an attribute carry, `val.lp = val.lp.at[...]`): the loop model's
            model = self._model(call, "scan", args, function if cls is not None else None)
            for found in self._unseen(model, writes):
                if self._modelled_matters(model, found, init):
                    self._report_modelled(model, found, where, output)

    def _swapped_parameters(self, function) -> str | None:
        """The parameter list of a ``fori_loop`` body ``def step(i, carry)`` written for a scan,
        ``carry, i``, where the swap changes nothing else: two plain parameters without defaults,
        no decorator (``partial(jax.checkpoint, static_argnums=(0,))`` counts positions): see
        :meth:`_rewritable_parameters`."""
        params = self._rewritable_parameters(function)
        if params is None or len(params) != 2:
            return None
        index, carry = params
        return f"{carry}, {index}"

    def _check_flax_while(self, call: cst.Call) -> None:
        """``nn.while_loop(cond_fn, body_fn, mdl, init)``: ``body_fn(mdl, carry)`` is a
        ``while_loop`` body, which `grad` cannot go through; its buffers are AT202, judged as a
        ``lax.while_loop``'s are, reported, not rewritten (a lifted transform, whose module
        argument a `fori_loop` does not take)."""
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        if len(positional) < 4 or any(a.star for a in call.args):
            return
        function = self._function(positional[1])
        if not isinstance(function, cst.FunctionDef):
            return
        if self._modeler().without_cotangent(positional[3]):
            return  # nothing differentiable in the carry
        body = self._body(function, "nn.while")
        args = {"body_fun": cst.Arg(positional[1]), "init_val": cst.Arg(positional[3])}
        message = (
            "is written in the Flax `nn.while_loop` of `{name}` (line {line}), which cannot be reverse-differentiated "
            "(`jax.grad` fails); if it runs a fixed number of steps, a `nn.scan` with stacked outputs makes it "
            "differentiable; otherwise a scan over the maximum length that masks the steps after the exit "
            "(`jnp.where(done, old, new)`); or, without `grad`, donate the buffer at the `jit` boundary"
        ).format(name=function.name.value, line=self.start_line(call))
        with self.not_rewritten("autota does not rewrite Flax's lifted `nn.while_loop`"):
            writes = self._writes(body)
            for group in by_buffer(writes):
                if self._judge_buffer(call, "while", args, body, group) is not None:
                    self.report("AT202", group[0].call, f"`{group[0].label}` {message}")
            # other spellings (an attribute carry, `val.ids = val.ids.at[...]`): the loop model's
            model = self._model(call, "while", args)
            for found in self._unseen(model, writes):
                if self._modelled_matters(model, found, positional[3]):
                    self.report("AT202", found.write.call, f"`{found.label}` {message}")

    def _report_read_back(self, kind: str, write: Write, read: cst.Name) -> None:
        loop = {"fori": "fori_loop", "scan": "scan", "while": "while_loop"}[kind]
        self.report(
            "AT203",
            read,
            f"the `{loop}` body reads `{write.label}` (line {self.start_line(read)}), the buffer it writes "
            f"at line {self.start_line(write.call)}: under `jax.grad` an array as large as the buffer (the buffer, "
            "or the mask over it) is saved every step, O(T^2) memory; use `autota.transform`, carry a running "
            "summary of the rows instead of reading them back, or wrap the body in `jax.checkpoint`",
            reason="the rows are read back inside the loop, so they cannot leave the carry",
        )

    def _report_carried(self, call, kind: str, args, body: Body, write: Write, group: list[Write],
                        previous: list[cst.CSTNode], kept: list[cst.Name]) -> None:
        """``kept`` are the body's uses of the buffer that read no rows back but need the buffer
        in the body: its shape or dtype (``buf.shape[0]``), or the slot the step writes, read
        before the write (``lax.dynamic_slice(buf, (i,), ...)``)."""
        loop = "fori_loop" if kind == "fori" else "scan"
        index_kind = self._index_kind(call, kind, args, write)
        message = self._carried_message(f"carried through `{loop}`", body, write, "a `scan` output", index_kind)
        if previous:
            message += (
                f", and carry the previous step's row that the body reads back (`{self.code_of(previous[0])}`, "
                f"line {self.start_line(previous[0])}) as a value"
            )
        if previous and self.counted_down(body, write.index) is not None:
            plan = (
                f"the body reads back the row the previous step wrote, counting down (`{self.code_of(previous[0])}`, "
                f"line {self.start_line(previous[0])}), and the fix carries a previous row only for a loop counting up"
            )
        elif kept and self._written_again(kept[0], write.buf):
            again = self.parent(self.parent(self.parent(self.parent(kept[0]))))  # `H.at[k + 1, k].set(beta)`
            plan = (
                f"the body writes the buffer again (`{self.code_of(again)}`, line {self.start_line(again)}), and the "
                "rewrite takes the buffer out of the body"
            )
        elif kept:
            use = self.parent(kept[0])
            use = self.parent(use) if isinstance(use, cst.Arg) else use
            plan = (
                f"the body reads `{self.code_of(use)}` (line {self.start_line(use)}), and the rewrite takes the "
                "buffer out of the body"
            )
        else:
            plan = self._plan(call, kind, args, body, write, group, previous)
        if isinstance(plan, str):
            self.report("AT201", write.call, message, reason=plan)
            return
        fix, unsafe_reason = plan
        if unsafe_reason:
            fix = Fix("unsafe", fix.message, fix.edits)
            self.report("AT201", write.call, message, fix, reason=unsafe_reason)
            return
        self.report("AT201", write.call, message, fix)

    def _sole_use(self, function: cst.FunctionDef, read: cst.BaseExpression) -> bool:
        """Whether ``read`` (the loop's body argument) is the only use of ``function``, which the
        fix rewrites. A name defined again (a notebook-style module redefines ``step`` before each
        loop) is judged by the binding each read reaches, proven only where every binding and read
        of the name is a statement of the scope's own straight-line code, so that line order is
        the order they run in."""
        if any(self.context.name_count(dynamic) for dynamic in vocabulary.REACH_BY_NAME):
            return False  # `f.__globals__["step"]`, `eval("step(...)")`: a use no name shows
        scope = scopes.enclosing_scope(self, function)
        name = function.name.value
        if re.search(rf"""(?:->|:)[ \t]*[rRuU]?(["'])[^"'\n]*\b{re.escape(name)}\b""", self.context.source.text):
            return False  # `step: "_step"`, an annotation `typing.get_type_hints` evaluates to the function (read
            # from the whole text: the parsed slice may leave out the class that holds it)
        names = self.semantics.variables(scope, name)  # not `body_fun=` nor `obj.body_fun`
        if len(names) == 2:
            return True
        if not isinstance(read, cst.Name) or not self._straight_line(function, scope):
            return False
        if self.semantics.enclosing_scope(read) is not scope or not self._straight_line(read, scope):
            return False  # read in a lambda or nested function: it runs when called, not where it stands
        for node in names:
            if node is function.name or node is read:
                continue
            parent = self.parent(node)
            holder = parent if isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is node else node
            if self.semantics.enclosing_scope(holder) is not scope or not self._straight_line(holder, scope):
                return False  # a nested function may run at any time, a loop or `if` in any order
            if isinstance(parent, cst.ImportAlias) or isinstance(parent, cst.Attribute) and parent.attr is node:
                return False  # an import binds it out of the binding model's sight; `x.step` is not it
            role, _ = scopes.binding_role(self.semantics.parents, node)
            if role is None and self.semantics.binding(node) in (function, None):
                return False
        return self.semantics.binding(read) is function

    def _straight_line(self, node: cst.CSTNode, scope: cst.CSTNode) -> bool:
        """Whether ``node`` lies in a statement of ``scope``'s own body (not under ``if``/a loop/``try``/``with``)."""
        body = scope.body.body if isinstance(scope, cst.FunctionDef) else scope.body if isinstance(scope, cst.Module) else ()
        previous = node
        for ancestor in self.ancestors(node):
            if ancestor is scope or isinstance(ancestor, cst.IndentedBlock) and ancestor is getattr(scope, "body", None):
                return any(previous is statement for statement in body)
            if isinstance(ancestor, (cst.BaseCompoundStatement, cst.BaseSuite)) and ancestor is not node:
                return False
            previous = ancestor
        return False

    def _index_kind(self, call, kind: str, args, write: Write) -> str | None:
        """How the loop model classifies the index of ``write`` (see ``BufferWrite.index``), where
        it models that write: it follows the body's locals (``i = T - 1 - j``), which the
        syntactic reading of the index does not."""
        model = self._model(call, kind, args)
        found = next((f for f in model.writes if f.write.call is write.call), None)
        return found.index if found is not None else None

    def _carried_message(self, where: str, body: Body, write: Write, output: str, index_kind: str | None = None) -> str:
        """What the finding says, by where the step writes: stepping through the buffer (a history:
        stacked outputs), one fixed slot (a running value), or a data-dependent slot. ``index_kind``
        is the loop model's reading of the index, where it has one; else the index is read as
        written."""
        return self._written_message(write.label, where, self._write_kind(body, write, index_kind), write.index, output)

    def _write_kind(self, body: Body, write: Write, index_kind: str | None) -> str:
        """Where the step writes: ``cond`` (under a branch), the loop model's reading of the index
        (``reverse``, ``loop-index``, ``element``, ``counter``), ``fixed`` (a literal slot) or
        ``data`` (a slot the data picks)."""
        return "cond" if write.form == "cond" else self._index_motion(body, write, index_kind)

    def _index_motion(self, body: Body, write: Write, index_kind: str | None) -> str:
        """How the written slot moves from step to step, under a branch or not: the loop model's
        reading where it models the write (``reverse``, ``loop-index``, ``element``, ``counter``,
        ``fixed``, ``data``: a carried slot the step sets to `way[j - 1]` is data), else the index
        as written: ``fixed`` (a literal), ``reverse`` (see :meth:`counted_down`), ``loop-index``
        (the index, or a carried counter stepped by one, plus a constant) or ``data`` (a slot a
        stream compaction moves only when it keeps a value)."""
        index = write.index
        if index_kind is not None:
            return index_kind
        if int_value(index) is not None:
            return "fixed"
        if self.counted_down(body, index) is not None:
            return "reverse"
        names = {n.value for n in self.semantics.of_kind(index, cst.Name)} if index is not None else set()
        stepping = index_offset(index, body.index_param) is not None or any(  # (a counter stepped by one, not
            index_offset(index, n) is not None and self._counter_step(body, n) is not None  # `s = jnp.where(ok, s + 1, s)`)
            for n in names & set(body.elements)
        )
        return "loop-index" if stepping else "data"

    def _written_message(self, label: str, where: str, kind: str, index: cst.CSTNode | None, output: str) -> str:
        """The finding's message for the buffer ``label`` {``where``}, by how its index moves:
        ``kind`` as ``BufferWrite.index`` names it, or ``cond`` (written under `lax.cond`) or
        ``some-steps``. The syntactic reading and the loop model's both say it in these words."""
        head = f"`{label}` is {where} and written"
        if kind == "cond":
            return f"{head} one slot at a time under `lax.cond`: {CARRIED_COST}"
        if kind == "some-steps":
            return f"{head} on some steps only: {CARRIED_COST}"
        if kind == "reverse":
            return (
                f"{head} one slot a step, counting down (`{self.code_of(index)}`): {CARRIED_COST}; return the written "
                "value as an output of a `scan` with `reverse=True` instead"
            )
        if kind == "fixed":
            return (
                f"{head} at the fixed slot `{self.code_of(index)}` every step: {CARRIED_COST}; carry that slot's value "
                "instead of the whole buffer"
            )
        if kind == "data":
            return (
                f"{head} at `{self.code_of(index)}`, an index not shown to move one slot a step: {CARRIED_COST}; if the "
                f"indices are distinct, return `(index, value)` as {output} and write them all with one "
                "`.at[indices].set(values)` after the loop"
            )
        return f"{head} one slot a step: {CARRIED_COST}; return the written value as {output} instead"

    def _plan(self, call, kind, args, body: Body, write: Write, group: list[Write], previous):
        """The fix and why it is unsafe (``None`` when safe), or the precondition that failed.

        Each step asks one question of the loop, records what it proved in a :class:`CarriedPlan`
        (and the assumptions that make the fix unsafe), or refuses with its reason; the first
        refusal is the finding's reason."""
        plan = CarriedPlan(call, kind, args, body, write, previous)
        problem = (
            self._body_shape(plan, group)
            or self._result_spelling(plan)
            or self._carry_layout(plan)
            or self._frame_readers(plan)
            or self._write_checks(plan)
            or self._schedule(plan)
            or self._row_facts(plan)
        )
        if problem:
            return problem
        fix = self._fix(plan)
        if isinstance(fix, str):
            return fix
        return fix, "; ".join(plan.assumptions) if plan.assumptions else None

    def _body_shape(self, plan: CarriedPlan, group: list[Write]) -> str | None:
        """Whether the body is a ``def`` that the rewrite can take: one unconditional write of the
        buffer, which leaves the body in its place in the carry, a body used by this loop only."""
        call, kind, args, body, write = plan.call, plan.kind, plan.args, plan.body, plan.write
        if body.problem:
            return body.problem
        if len(group) != 1:
            return f"`{write.label}` is written more than once a step"
        if write.problem:
            return write.problem
        if isinstance(body.function, cst.Lambda):
            return "the body is a `lambda`; write it as a `def` to get a fix"
        called = next((read for read in plan.previous if isinstance(read, cst.Call)), None)
        if called is not None:
            return (
                f"the previous row is read by a call (`{self.code_of(called.func)}`, line {self.start_line(called)}); "
                f"the fix carries a row read as `{write.buf}[...]` only"
            )
        disorder = self._out_of_order(call, kind)
        if disorder:
            return disorder
        options = self._unknown_options(args)
        if options:
            return options
        function = body.function
        if write.in_return:
            position = body.elements.index(write.buf)
            if not all(isinstance(e, (cst.Name, cst.Integer, cst.Float)) for e in body.returned[:position]):
                return (
                    "the carry values returned before the write are computed in the `return`, and the fix "
                    "computes the row first"
                )
            if len(self.parent(body.ret).body) != 1:
                return "the `return` shares its line with other statements"
        elif write.statement is None or not any(
            isinstance(line, cst.SimpleStatementLine) and write.statement in line.body for line in function.body.body
        ):
            return "the write is not an unconditional statement of the body (it sits under `if`/`with`/a loop)"
        stores = [s for s in self.semantics.stores(function.body, write.buf)]
        plain = self.semantics.own_nodes(function, lambda n: scopes.assign_to(n, write.buf) is not None)
        aliased = body.alias is not None and body.elements == [write.buf]
        if stores or len(plain) != (0 if write.dict_entry or write.in_return else 1) + aliased:
            return f"`{write.buf}` is bound more than once in the body"
        if write.dict_entry:
            target = write.statement.targets[0].target
            key = target.slice[0].slice.value if len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index) else None
            if not isinstance(key, cst.SimpleString):
                return f"the dict carry `{write.buf}` is written at a key that is not a string literal"
            plan.key = key
        plan.position = position = body.elements.index(write.buf)
        returned = body.returned[position]
        if not (isinstance(returned, cst.Name) and returned.value == write.buf or returned is write.call):
            return f"the body does not return `{write.buf}` in its place in the carry"
        named = args[BODY_ARG[kind]].value
        if body.forward is not None and isinstance(named, cst.Name) and self.semantics.single_assignment(
            scopes.enclosing_scope(self, body.forward), named.value
        ) is not body.forward:
            return f"the body `{named.value}` is bound more than once"  # the reaching one runs only if no other is made
        if not self._sole_use(function, body.forward.body.func if body.forward is not None else named):
            return f"the body function `{function.name.value}` is used elsewhere too"
        if function.decorators:
            return f"the body function `{function.name.value}` is decorated"
        if kind == "scan" and "reverse" in args and literal_bool(args["reverse"].value) is not False:
            return "the scan runs in reverse"
        if kind == "scan" and "_split_transpose" in args:
            return "the scan passes `_split_transpose`"
        return None

    def _result_spelling(self, plan: CarriedPlan) -> str | None:
        """Where the loop's result goes, and the module names the generated code can use."""
        call = plan.call
        plan.lax_name = self._lax_spelling(call)
        plan.jnp_name = self.semantics.module_spelling(JNP)
        if plan.lax_name is None:
            return self.unspelled("jax.lax")
        if plan.jnp_name is None:
            return self.unspelled("jax.numpy")
        binding = self._loop_result(call, plan.kind, plan.args, plan.body, plan.write)
        if isinstance(binding, str):
            return binding
        plan.binding = binding
        if isinstance(scopes.enclosing_scope(self, call), cst.ClassDef):
            return "the loop runs in a class body, whose names a `lambda` cannot see"
        if self.semantics.of_kind(binding.target, cst.StarredElement):
            return "the loop's result is unpacked with `*`"

        shadowed = self._shadowed(plan.jnp_name, plan.lax_name)
        if shadowed == "*":
            return "a star import may bind `tuple`, `range` or a module name the generated code uses"
        if shadowed in ("tuple", "range"):
            return f"`{shadowed}` is bound in this file, so the generated `{shadowed}(...)` could call something else"
        if shadowed:
            return f"`{shadowed}` is bound in a function here, so the generated code could mean another module"
        return None

    def _carry_layout(self, plan: CarriedPlan) -> str | None:
        """Each carried value's initial expression at the call and the name its result is bound
        to: the rewrite takes the buffer out of both, by position."""
        call, kind, args, body, write = plan.call, plan.kind, plan.args, plan.body, plan.write
        init = args[INIT_ARG[kind]].value
        n = len(body.elements)
        if body.unpack is not None and isinstance(init, cst.Name) and not write.dict_entry:
            # `init = (h0, 0, buf0)` a few lines up, used only by this loop
            value = self.semantics.assigned_value(init)
            scope = scopes.enclosing_scope(self, init)
            holder = self.parent(value) if value is not None else None
            if (
                isinstance(value, (cst.Tuple, cst.List))
                and len(self.semantics.names_in(scope, init.value)) == 2
                and isinstance(holder, cst.Assign)
                and scopes.enclosing_scope(self, holder) is scope
                and self.start_line(holder) < self.start_line(call)
            ):
                plan.remote_init = holder
                init = value
        inits = None
        if body.unpack is not None:
            if isinstance(init, (cst.Tuple, cst.List)) and len(init.elements) == n and not any(
                isinstance(e, cst.StarredElement) for e in init.elements
            ):
                inits = [e.value for e in init.elements]
                returned = body.ret.value if kind == "fori" else body.ret.value.elements[0].value
                if type(returned) is not type(init):  # the loop refuses a carry that changes its type
                    kinds = {cst.Tuple: "a tuple", cst.List: "a list"}
                    return (
                        f"the body returns its carry as {kinds.get(type(returned), 'another pytree')} where the "
                        f"initial carry is {kinds[type(init)]}: the loop raises TypeError, the rewrite would not"
                    )
            elif not write.dict_entry:
                return "the initial carry is not written out as a tuple where the loop is called"
        else:
            inits = [init]
        plan.inits = inits
        target = plan.binding.target
        if kind == "scan":
            if not (isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2):
                return "the scan's result is not unpacked as `carry, ys = ...`"
            carry_target, plan.ys_target = target.elements[0].value, target.elements[1].value
        else:
            carry_target = target
        if body.unpack is not None:
            if not isinstance(carry_target, (cst.Tuple, cst.List)) or len(carry_target.elements) != n:
                return "the loop's result is not unpacked into one name per carried value"
            plan.results = [e.value for e in carry_target.elements]
        else:
            plan.results = [carry_target]
        result = plan.results[plan.position]
        if not isinstance(result, cst.Name):
            return "the buffer's result is not bound to a name"
        bound_here = {n.value for n in self.semantics.of_kind(target, cst.Name)}
        read_after = [args[k].value for k in ("lower", "upper") if k in args]
        if kind == "scan" and "xs" in args and isinstance(args["xs"].value, cst.Call):
            read_after.append(args["xs"].value)  # `jnp.arange(lo, hi)`: the rebuild may name its bounds
        rebound = sorted(bound_here & {n.value for e in read_after for n in self.semantics.of_kind(e, cst.Name)})
        if rebound:
            return f"the loop's own assignment rebinds `{rebound[0]}`, which its bounds read"
        if len(self.semantics.names_in(target, result.value)) != 1:
            # `h, _, _ = loop(...)`: the last binding wins, and the rewrite binds the buffer's name last
            return f"the buffer's result name `{result.value}` is bound more than once by the loop's assignment"
        return None

    def _frame_readers(self, plan: CarriedPlan) -> str | None:
        """Whether the body or the function running the loop can read locals by name."""
        for scope in (plan.body.function, scopes.enclosing_scope(self, plan.call)):
            reader = self.frame_reader(scope)
            if reader is not None:
                found, name = reader
                return f"`{name}` (line {self.start_line(found)}) may read locals by name (a frame it is handed or reaches), which the fix renames and adds"
        return None

    def _write_checks(self, plan: CarriedPlan) -> None:
        """Whether each row is checked where the write ran (see :meth:`_checked_in_body`), and
        else what the unchecked template assumes of the code around the loop and after the write."""
        plan.checked = self._checked_in_body(
            plan.call, plan.body.function, plan.write, plan.key, plan.previous, plan.inits, plan.position
        )
        plan.assumptions += self._surroundings(plan.binding.statement, plan.call, plan.checked)
        after = None if plan.checked else self._after_write(plan.body, plan.write)
        if after:
            plan.assumptions.append(after)
        shared = self._shared_trace(plan.call, plan.body.forward or plan.body.function, plan.checked)
        if shared:
            plan.assumptions.append(shared)
        if plan.write.form == "at" and self.context.source.mentions("linear_transpose"):
            plan.assumptions.append(
                "that `jax.linear_transpose` is not applied to the loop's function: the fix writes the rows with "
                "one `.at[indices]` scatter, which JAX transposes only for indices it is told are unique"
            )
        plan.assumptions += [  # (reviews 81-83)
            f"that {a}" for a in self.setting_assumptions("checkify", "strict promotion", "warnings as errors", "shard_map")
        ]
        names = {"tuple", "range", *(n.split(".")[0] for n in (plan.jnp_name, plan.lax_name) if n)}
        rebinding = self.module_rebinding(names)
        if rebinding is not None:  # (review 85: `loops.range = ...`, `loops.jnp = numpy` in another module)
            plan.assumptions.append(
                f"that nothing binds a name the fix's code reads ({', '.join(f'`{n}`' for n in sorted(names))}) in this "
                f"module again: {rebinding}"
            )
        return None

    def _settable_bounds(self, lower: cst.BaseExpression, upper: cst.BaseExpression) -> str | None:
        """Why a ``fori_loop``'s bounds are not proven Python ints where they read a public module
        variable (see :meth:`~.statics.StaticFacts.public_module_variable`), else ``None``."""
        variable = self.public_module_variable(lower) or self.public_module_variable(upper)
        if variable is None:
            return None
        return (
            f"the bounds read the module variable `{variable}`, which code outside the run may set (`mylib.{variable} "
            "= True`, a NumPy integer: `fori_loop` refused bounds of two types, where `jnp.arange` takes them)"
        )

    def _zero_trips_seen(self, lower: cst.BaseExpression, upper: cst.BaseExpression) -> str | None:
        """Why a ``fori_loop`` that may run no step shows the fix: under ``jax.disable_jit()`` JAX
        refuses a zero-length ``scan``, where the ``fori_loop`` returned its initial carry. Only
        where the run mentions ``disable_jit`` and the bounds are not int literals a step apart or more."""
        low, high = int_value(lower), int_value(upper)
        if low is not None and high is not None and high > low:
            return None
        where = self.run_mentions("disable_jit")
        if where is None:
            return None
        return (
            f"that the loop runs at least one step or `jax.disable_jit` is off ({where} mentions `disable_jit`): "
            "under it JAX refuses a zero-length `scan` (`ValueError`), where the `fori_loop` returned its initial carry"
        )

    def _schedule(self, plan: CarriedPlan) -> str | None:
        """Where the step writes: loop step k (from 0) writes at ``start + k``, for a known number
        of steps; ``start`` is the loop index's first value plus the write's offset, or a carried
        counter's first value."""
        call, kind, args, body, write = plan.call, plan.kind, plan.args, plan.body, plan.write
        function, inits, unsafe = body.function, plan.inits, plan.assumptions
        bounds = self._index_bounds(kind, args, body)
        offset = index_offset(write.index, body.index_param) if bounds is not None else None
        if offset is not None:
            lower, upper = bounds
            integers = self._is_static(lower, call, integer=True) and self._is_static(upper, call, integer=True)
            zero = self._zero_trips_seen(lower, upper) if kind == "fori" else None
            if zero:
                unsafe.append(zero)
            if kind == "fori" and not (self._is_static(lower, call) and self._is_static(upper, call)):
                unsafe.append(
                    "the trip count is not provably static (a traced bound makes `jnp.arange` fail where "
                    "`fori_loop` would run as a `while_loop`)"
                )
            elif kind == "fori" and (settable := self._settable_bounds(lower, upper)):
                unsafe.append(settable)
            elif kind == "fori" and not integers:
                unsafe.append(
                    "the bounds are not provably Python ints (a `static_argnums` argument may be a `bool` or a "
                    "NumPy integer: `fori_loop` refuses bounds of two types, `jnp.arange` takes them)"
                )
            if kind == "scan" and not integers:
                unsafe.append(
                    "the bounds of `jnp.arange` are not provably integers (a float `arange` scans float "
                    "elements, which the write refused as an index and the rebuild does not)"
                )
            lower_value = int_value(lower)
            if lower_value is not None:
                start = lower_value + offset
                start_code = str(start)
                if start < 0:
                    return "the first index is negative (`.at[]` wraps it around to the end, `dynamic_update_slice` clamps it to 0)"
            else:
                start_code = self.code_of(lower) if offset == 0 else (
                    f"{self.code_of(lower)} + {offset}" if offset > 0 else f"{self.code_of(lower)} - {-offset}"
                )
                unsafe.append(
                    f"the first index `{start_code}` is not provably non-negative, and the rows are written back "
                    "from it evaluated again after the loop (tracing the body may change it)"
                )
            if kind == "fori":
                index_use = self._index_use_problem(function, body.index_param, write)
                if index_use:
                    unsafe.append(index_use)
            trips = None
        else:
            if body.index_param is not None and rebinds(self.semantics, function, body.index_param):
                return f"the loop index `{body.index_param}` is rebound in the body"
            if plan.previous:
                return "the previous row is read at a counter, not at the loop index minus one"
            bounds = None
            counter = write.index
            offset, counter_name = None, None
            names_in = [n.value for n in self.semantics.of_kind(counter, cst.Name)]
            for candidate in names_in:
                if candidate in body.elements and candidate != write.buf:
                    counter_name = candidate
                    offset = index_offset(counter, candidate)
                    break
            if counter_name is None or offset is None or inits is None:
                if kind == "scan" and index_offset(write.index, body.index_param) is not None:
                    return (
                        f"the index `{self.code_of(write.index)}` is the scanned element of `xs`, which is not "
                        "visibly `jnp.arange(lo, hi)` stepping by one"
                    )
                what = "the loop index" if kind == "fori" else "a carried counter"
                return f"the index `{self.code_of(write.index)}` is not {what} plus a constant"
            step = self._counter_step(body, counter_name, before=write.statement)
            if step is None:
                return f"the counter `{counter_name}` is not stepped by one exactly once a step"
            initial = int_value(inits[body.elements.index(counter_name)])
            if initial is None:
                return f"the counter `{counter_name}` does not start at an integer literal"
            start = initial + offset + step
            if start < 0:
                return "the first index is negative (`.at[]` wraps it around to the end, `dynamic_update_slice` clamps it to 0)"
            start_code = str(start)
            if kind == "fori":
                lower, upper = args["lower"].value, args["upper"].value
                zero = self._zero_trips_seen(lower, upper)
                if zero:
                    unsafe.append(zero)
                if not (self._is_static(lower, call) and self._is_static(upper, call)):
                    unsafe.append("the trip count is not provably static")
                elif settable := self._settable_bounds(lower, upper):
                    unsafe.append(settable)
                trips = self._canonical(upper) if int_value(lower) == 0 else None
                if body.index_param is not None:  # the index still turns from weak to strong int32
                    index_use = self._index_use_problem(function, body.index_param, write)
                    if index_use:
                        unsafe.append(index_use)
            else:
                trips = self._scan_trips(args)
        plan.start_code, plan.bounds, plan.trips = start_code, bounds, trips
        return None

    def _row_facts(self, plan: CarriedPlan) -> str | None:
        """What the written row is, and what a stacked output of it keeps of the write's own
        conversion; and what the rewrite moves (the initial carry's order, a public body)."""
        write, function, inits, position, unsafe = plan.write, plan.body.function, plan.inits, plan.position, plan.assumptions
        if write.method != "set" and plan.previous:
            return (
                f"the step adds into the slot (`.at[].{write.method}`) and reads back the previous row, whose "
                "value the rewrite would carry without the initial buffer's part"
            )
        if write.slot_read is not None:
            read = f"`{self.code_of(write.slot_read)}`, line {self.start_line(write.slot_read)}"
            if write.slot_read_when == "after":
                return f"the step reads back the slot it has just written ({read}): use the written value instead"
            return f"the step reads the slot it overwrites ({read}), which still holds the initial buffer's value"
        if plan.key is None and not self._is_jax_array(inits[position], own_memory=True) and isinstance(
            function, (cst.FunctionDef, cst.Lambda)
        ):
            changes = self.semantics.find(function, lambda n: isinstance(n, cst.Call) and not self.writes_nothing(n) or _stores_into(n))
            if changes:
                first = changes[0]
                what = f"{self.code_of(first.func)}(...)" if isinstance(first, cst.Call) else self.code_of(first).strip()
                unsafe.append(
                    f"that `{what}` (line {self.start_line(first)}) changes nothing in the "
                    f"initial buffer `{self.code_of(inits[position])}`, which may be a NumPy array: the loop converted it "
                    "when it started, the fix reads it again after the loop"
                )
        if write.form != "at":
            length_of = self._entry_initial(write, inits, position) if write.dict_entry else inits[position]
            problem = self._dus_range(write, length_of, plan.start_code, plan.bounds, plan.trips)
            if problem:
                unsafe.append(problem)
        row_value = self._value_before(write.row) if isinstance(write.row, cst.Name) else None
        if isinstance(write.row, (cst.Tuple, cst.List)) or isinstance(row_value, (cst.Tuple, cst.List)):
            return (
                f"the written value `{self.code_of(write.row)}` is a tuple or list: `.at[].set` makes one array of it, "
                "a stacked output would stack each element apart"
            )
        if _python_number(write.row) or row_value is not None and _python_number(row_value):
            unsafe.append(
                f"the written value `{self.code_of(write.row)}` is a Python number: as a stacked output it becomes a "
                "32-bit JAX value first (overflow, double rounding) where the write converted it to the buffer's dtype"
            )
        elif not self._jax_value(write.row, function):
            unsafe.append(
                f"the written value `{self.code_of(write.row)}` is not computed from the loop's carry, index or "
                "element, so it may be a Python number: as a stacked output it would become a 32-bit JAX value "
                "first (double rounding) where the write converted it to the buffer's dtype"
            )
        if write.form == "dui_in_dim":
            unsafe.append(
                "`dynamic_update_index_in_dim` adds the written axis itself when the update lacks it, so "
                f"`{self.code_of(write.call.args[1].value)}` may be a whole row rather than a row with a unit axis"
            )
        if plan.key is None and inits is not None:
            moved = self._reordering(inits, position, remote=plan.remote_init is not None)
            if moved:
                unsafe.append(moved)
        if self._used_elsewhere(function):
            unsafe.append(
                f"the body `{function.name.value}` is a module-level function whose return value changes, which other "
                "modules may call (it is public, `__all__` names it, another module of the run spells its name or reaches "
                "names by computed spellings or unpickles, or the file imports itself)"
            )
        if plan.key is None and inits is not None:
            init = inits[position]
            if not self._one_array(init):
                unsafe.append(
                    f"that the initial buffer `{self.code_of(init)}` is one array: the loop carries a list, a tuple "
                    "or another pytree as it is, where the fix reads a row of it and converts it as one array"
                )
            if isinstance(init, cst.Name) and self.semantics.declared_global(init.value):
                unsafe.append(
                    f"that nothing rebinds `{init.value}` while the loop runs (a `global` or `nonlocal` statement "
                    "names it): the loop read it once, the fix reads it again in every step and after the loop"
                )
        if plan.previous:
            unsafe.append(
                "the carried row equals the buffer's row only while every write lands inside the buffer, "
                "and it is converted with `jnp.asarray(row, dtype)` where the write converted it itself"
            )
        return None

    def _after_write(self, body: Body, write: Write) -> str | None:
        """Why running the body past the write may show: where the write raises while tracing (a
        zero-length axis, a row of the wrong shape), the original stops there, and the fix raises
        after the loop instead. Another buffer's write after it would raise first, and a call
        that is not JAX's (``print``, a list's ``append``, a helper) would run."""
        if write.in_return:
            position = body.elements.index(write.buf)
            later = list(body.returned[position + 1 :])
        else:
            statements = list(body.function.body.body)
            line = next(k for k, s in enumerate(statements) if self.semantics.contains(s, write.statement))
            later = statements[line + 1 :]
        for node in later:
            for found in self.semantics.of_kind(node, cst.Call):
                if scopes.at_update(found) is not None:
                    return (
                        f"that the write raises nothing while tracing: the write at line {self.start_line(found)} "
                        "after it would raise first in the fix, which raises this write's error after the loop"
                    )
                root = found.func
                while isinstance(root, (cst.Attribute, cst.Subscript, cst.Call)):
                    root = root.func if isinstance(root, cst.Call) else root.value
                # a method of a value the body itself holds (a parameter, a local): an array's
                # under tracing; a name from outside may be a list that `append` changes
                method = isinstance(found.func, cst.Attribute) and isinstance(root, cst.Name) and (
                    root.value in [p.name.value for p in all_params(body.function)]
                    or self.semantics.binds_here(body.function, root.value)
                )
                if not method and not self.array_function(found.func):
                    return (
                        f"that the write raises nothing while tracing: the original stops there, the fix runs "
                        f"`{self.code_of(found.func)}(...)` (line {self.start_line(found)}) after it and raises "
                        "the write's error after the loop"
                    )
        return None

    def _checked_in_body(self, call, function, write: Write, key, previous, inits, position: int) -> bool:
        """Whether the body can make each row from its slot of the initial buffer, so that the
        write's own checks run where it ran: an `.at[].set` of a whole slot, the body a `def` in
        the function that runs the loop (so it sees the buffer's name), which binds no name the
        buffer's initial value is read by."""
        if key is not None or previous or write.form != "at" or inits is None:
            return False
        scope = scopes.enclosing_scope(self, call)
        if not isinstance(scope, cst.FunctionDef) or scopes.enclosing_scope(self, function) is not scope:
            return False
        init = inits[position]
        names = {n.value for n in self.semantics.variables(init)} if not isinstance(init, cst.Name) else {init.value}
        own = {p.name.value for p in all_params(function)}
        # the buffer's own name in the body is bound only by the unpacking and the write, which
        # the fix removes: after it, the name is the function's
        return not any(n in own or n != write.buf and self.semantics.binds_here(function, n) for n in names)

    def _surroundings(self, statement: cst.CSTNode, call: cst.Call, checked: bool) -> list[str]:
        """What a fix of the loop statement assumes of the code around it: unless the body checks
        each row itself (``checked``), a caught exception would see the names the rewritten
        statement binds before it raises the write's error after the loop (the original raised
        in the loop call, binding none); at module level the fix's names become attributes of
        the module."""
        found = []
        scope = scopes.enclosing_scope(self, call)
        for ancestor in [] if checked else self.ancestors(statement):
            if ancestor is scope:
                break
            if isinstance(ancestor, (cst.Try, cst.TryStar, cst.With)):
                block = "with" if isinstance(ancestor, cst.With) else "try"
                found.append(
                    f"that the `{block}` at line {self.start_line(ancestor)} catches nothing the loop raises: the "
                    "fix binds the loop's results before it raises the write's error after the loop"
                )
                break
        if isinstance(scope, cst.Module):
            found.append("that nothing reads the names the fix adds: at module level they become attributes of the module")
        return found

    def _loop_result(self, call: cst.Call, kind: str, args, body: Body, write: Write) -> LoopResult | str:
        """Where the loop's result goes, or why the fix cannot rebind it."""
        holder, selected, parent = call, None, self.parent(call)
        if isinstance(parent, cst.Subscript) and parent.value is call:
            selected = self._selected_part(parent, kind, body)
            if selected is None:
                return "the loop's result is indexed other than by a literal position of its carry"
            holder, parent = parent, self.parent(parent)
        line = self.parent(parent)
        if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
            if isinstance(parent, (cst.Assign, cst.Return)) and parent.value is holder:
                return (
                    "the loop's statement shares its line with others (`;`, or after `if ...:` on one line), "
                    "and the fix writes lines of its own"
                )
            return NOT_BOUND
        if isinstance(parent, cst.Assign) and parent.value is holder and len(parent.targets) == 1:
            receiver = parent.targets[0].target
            if selected is None:
                return LoopResult(parent, receiver)
            if not isinstance(receiver, cst.Name):
                return "the selected part of the loop's result is not bound to a name"
            keyword = f"{receiver.value} ="
        elif isinstance(parent, cst.Return) and parent.value is holder:
            keyword = "return"
        else:
            return NOT_BOUND
        if write.dict_entry:
            return "the buffer is an entry of a dict carry, and the fix rebinds names, not entries"
        if call.lpar or holder.lpar:
            return "the loop's result is in parentheses, which the fix does not rewrite"
        init = args[INIT_ARG[kind]].value
        if isinstance(init, cst.Name):
            init = self.semantics.assigned_value(init) or init
        # the loop gives its carry back as the pytree it was given: a list stays a list
        open_, close = ("[", "]") if isinstance(init, cst.List) else ("(", ")")
        carry = [self.fresh_name(f"{e}_out", call) for e in body.elements]
        if body.unpack is not None:
            carry_target = ", ".join(carry) + ("," if len(carry) == 1 else "")
            carry_value = f"{open_}{carry_target}{close}"
            if kind == "scan":
                carry_target = f"({carry_target})"
        else:
            carry_target = carry_value = carry[0]
        parts = [carry_value]
        target = carry_target
        if kind == "scan":
            ys = self.fresh_name("ys_out", call)
            target, parts = f"{carry_target}, {ys}", [carry_value, ys]
        if selected is None:
            value = ", ".join(parts) if kind == "scan" else carry_value
        else:
            value = parts[selected] if kind == "scan" else carry[selected]
        return LoopResult(parent, cst.parse_expression(target), holder, f"{keyword} {value}")

    def _selected_part(self, subscript: cst.Subscript, kind: str, body: Body) -> int | None:
        """The part of the loop's result that ``loop(...)[k]`` selects: an element of an unpacked
        ``fori_loop`` carry, or a scan's carry (0) or outputs (1); ``None`` for another index."""
        if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
            return None
        k = int_value(subscript.slice[0].slice.value)
        size = 2 if kind == "scan" else len(body.elements) if body.unpack is not None else 0
        if k is None or not -size <= k < size:
            return None
        return k % size

    def _bind_result(self, binding: LoopResult, call: cst.Call, new_target: str) -> list[Edit]:
        """The edits that bind the rewritten loop's result to ``new_target``."""
        if binding.holder is None:
            return [self.replace(binding.statement.targets[0].target, new_target)]
        start, first = self.location(binding.statement), self.location(call)
        edits = [Edit(start.line, start.column, first.line, first.column, f"{new_target} = ")]
        if binding.holder is not call:  # drop the `[k]`: the tail selects
            end, whole = self.location(call), self.location(binding.holder)
            edits.append(Edit(end.end_line, end.end_column, whole.end_line, whole.end_column, ""))
        return edits

    def _jax_value(self, expr: cst.BaseExpression, function) -> bool:
        """Whether ``expr`` is visibly a JAX value, never a Python number: what the loop hands
        the body (its parameters, the names it unpacks them into), a name every binding of
        which in the body is such a value, and what JAX operations make of them (see
        :meth:`_visibly_jax`)."""
        if self._is_jax_array(expr):
            return True
        params = {p.name.value for p in all_params(function)}
        bindings: dict[str, list[cst.BaseExpression | None]] = {}
        for assign in self.semantics.own_of_kind(function, cst.Assign, cst.AnnAssign):
            targets = [t.target for t in assign.targets] if isinstance(assign, cst.Assign) else [assign.target]
            for target in targets:
                if isinstance(target, cst.Name):
                    bindings.setdefault(target.value, []).append(assign.value)
                    continue
                unpacked = isinstance(assign.value, cst.Name) and assign.value.value in params or self._jax_results(assign.value)
                for name in self.semantics.of_kind(target, cst.Name):
                    if self.parent(name) is target or isinstance(self.parent(name), (cst.Element, cst.StarredElement)):
                        bindings.setdefault(name.value, []).append(assign.value if unpacked else None)
        for node in self.semantics.own_of_kind(function, cst.NamedExpr, cst.For, cst.CompFor):
            for name in self.semantics.of_kind(node.target, cst.Name):
                bindings.setdefault(name.value, []).append(None)
        # the largest set of names each of whose bindings is a JAX value given the others
        # (`level = level + 0.25` after `level, levels = carry`)
        known = {p for p in params if p not in bindings} | set(bindings)
        shrank = True
        while shrank:
            shrank = False
            for name, values in bindings.items():
                if name in known and not all(
                    v is not None and (isinstance(v, cst.Name) and v.value in params or self._visibly_jax(v, known))
                    for v in values
                ):
                    known.discard(name)
                    shrank = True
        return self._visibly_jax(expr, known)

    def _jax_results(self, expr: cst.BaseExpression | None) -> bool:
        """Whether ``expr`` is a call whose results are all JAX arrays: a ``jnp``/``lax``
        function (a loop's carry, ``lax.fori_loop(...)``), or a function that ``jit``, ``vmap``
        or ``grad`` made (``jax.value_and_grad(loss)(w)``)."""
        if not isinstance(expr, cst.Call):
            return False
        if self._jax_call(expr):
            return True
        made = expr.func
        return isinstance(made, cst.Call) and self.matches(made.func, vocabulary.ARRAY_TRANSFORMS) is not None

    def _visibly_jax(self, expr: cst.BaseExpression, known: set[str]) -> bool:
        """Whether ``expr`` makes a JAX value from the names ``known`` to hold one: a ``jnp``/
        ``lax`` call (but those with Python results), an ``.at`` update, arithmetic or an order
        comparison with a JAX operand, a subscript of one or at one, its ``.T``/``.real``/``.imag``, a
        method of one but ``.item()``/``.tolist()``, a conditional expression both of whose
        values are. ``is``, ``in``, ``not``, ``.shape``/``.nbytes`` and the like give Python values."""
        if isinstance(expr, cst.Name):
            return expr.value in known
        if isinstance(expr, cst.Call):
            if self._jax_results(expr):
                return True
            func = expr.func
            return (
                isinstance(func, cst.Attribute) and func.attr.value not in vocabulary.PYTHON_METHODS
                and self._visibly_jax(func.value, known)
            )
        if isinstance(expr, cst.BinaryOperation):
            return self._visibly_jax(expr.left, known) or self._visibly_jax(expr.right, known)
        if isinstance(expr, cst.UnaryOperation):
            return not isinstance(expr.operator, cst.Not) and self._visibly_jax(expr.expression, known)
        if isinstance(expr, cst.Comparison):
            operands = [expr.left, *(c.comparator for c in expr.comparisons)]
            return all(isinstance(c.operator, ORDERINGS) for c in expr.comparisons) and any(
                self._visibly_jax(o, known) for o in operands
            )
        if isinstance(expr, cst.Subscript):  # of a JAX value, or at a traced index (`xs[i]`)
            return self._visibly_jax(expr.value, known) or any(
                isinstance(e.slice, cst.Index) and self._visibly_jax(e.slice.value, known) for e in expr.slice
            )
        if isinstance(expr, cst.Attribute):
            return expr.attr.value in ("T", "mT", "real", "imag") and self._visibly_jax(expr.value, known)
        if isinstance(expr, cst.IfExp):
            return self._visibly_jax(expr.body, known) and self._visibly_jax(expr.orelse, known)
        return False

    def _used_elsewhere(self, function: cst.FunctionDef) -> bool:
        """Whether ``function`` is one of the module's that another module may call: public, or
        private but :meth:`_exported`."""
        return isinstance(scopes.enclosing_scope(self, function), cst.Module) and (
            not function.name.value.startswith("_") or self._exported(function.name.value)
        )

    def _exported(self, name: str) -> bool:
        """Whether another module may use the module's ``name`` though it is private: the module's
        ``__all__`` may name it (a display holding its string, or an ``__all__`` built some other
        way), another module of the run spells it
        (:attr:`ProjectFunctions.private_references`), or the file imports a module of its own name."""
        reacher = self.context.imported.name_reacher
        if name in self.context.imported.private_references or self.imports_itself or (
            reacher is not None and reacher[0] != self.module_name
        ):
            return True
        for node in self.semantics.names_in(self.context.module, "__all__"):
            holder = self.parent(self.parent(node)) if isinstance(self.parent(node), cst.AssignTarget) else self.parent(node)
            value = getattr(holder, "value", None) if isinstance(holder, (cst.Assign, cst.AugAssign, cst.AnnAssign)) else None
            if value is None:
                continue
            if not isinstance(value, (cst.List, cst.Tuple)):
                return True
            if any(isinstance(e.value, cst.SimpleString) and e.value.evaluated_value == name for e in value.elements):
                return True
        return False

    def _jax_call(self, expr: cst.BaseExpression) -> bool:
        """A ``jax.numpy``/``lax``/``random`` call or an ``.at[]`` update: its result is a JAX array."""
        if not isinstance(expr, cst.Call):
            return False
        if scopes.at_update(expr) is not None:
            return True
        return self.array_function(expr.func)

    def _one_array(self, expr: cst.BaseExpression) -> bool:
        """Whether ``expr`` visibly makes one array, JAX's or NumPy's (which the loop converts), not
        a list, a tuple or another pytree."""
        if self._is_jax_array(expr):
            return True
        value = self._value_before(expr) if isinstance(expr, cst.Name) else expr
        value = self._resolve(value) if value is not None else None
        return isinstance(value, cst.Call) and any(
            q.startswith("numpy.") and f"jax.{q}" not in vocabulary.NOT_ARRAY_RESULTS
            for q in self.qualified_names(value.func)
        )

    def _is_jax_array(self, expr: cst.BaseExpression, own_memory: bool = False) -> bool:
        """Whether ``expr`` visibly makes a JAX array: a ``jax.numpy``/``lax``/``random`` call or an
        ``.at[]`` update (a name is followed to its one assignment); with ``own_memory``, one
        that shares no NumPy array's memory (not ``jnp.asarray``: see :meth:`new_jax_array`)."""
        value = self._value_before(expr) if isinstance(expr, cst.Name) else expr
        value = self._resolve(value) if value is not None else None
        return isinstance(value, cst.Call) and (
            scopes.at_update(value) is not None or self.new_jax_array(value, own_memory)
        )

    def _reordering(self, inits, position: int, remote: bool) -> str | None:
        """Why evaluating the initial buffer on its own line, before the loop, may change a result:
        the carry binds names with ``:=``, or, in a tuple assigned a few lines up (``remote``),
        whose earlier values the fix cannot bind first, they run calls or subscripts."""
        earlier = [e for k, e in enumerate(inits) if k < position]
        for expr in inits:  # before the buffer, it runs later; after it, it may rebind the name the fix reads back
            if self.semantics.of_kind(expr, cst.NamedExpr):
                return "the initial carry binds a name with `:=`, and the fix evaluates the buffer on its own line first"
        for expr in earlier if remote else ():
            action = self._action(expr)
            if isinstance(action, cst.Call):
                return (
                    f"the initial carry calls `{self.code_of(action.func)}` before the buffer, and the fix evaluates "
                    "the buffer first"
                )
            if action is not None:
                return (
                    f"the initial carry reads `{self.code_of(action)}` before the buffer (it may raise), and "
                    "the fix evaluates the buffer first"
                )
        return None

    def _shadowed(self, *modules: str | None) -> str | None:
        """A name the fix writes that the file binds to something else: a module (`jnp`, `lax`)
        bound other than by a module-level import, or a builtin it calls (`tuple`, `range`) bound anywhere."""
        return self.semantics.shadowed(tuple(sorted({m.split(".")[0] for m in modules if m})))

    def _entry_initial(self, write: Write, inits, position: int) -> cst.BaseExpression | None:
        """The initial value of the dict entry ``write`` writes, from a ``{"key": value}`` literal."""
        carried = self._resolve(inits[position]) if inits is not None else None
        if not isinstance(carried, cst.Dict):
            return None
        key = self.code_of(write.statement.targets[0].target.slice[0].slice.value)
        for element in carried.elements:
            if isinstance(element, cst.DictElement) and self.code_of(element.key) == key:
                return element.value
        return None

    def _dus_range(self, write, init, start_code, bounds, trips) -> str | None:
        """Why a clamping ``dynamic_update_*`` write may be out of range, if it may."""
        length = self._buffer_length(init, write.axis) if init is not None else None
        clamp = (
            f"`{write.form.replace('dus', 'dynamic_update_slice').replace('dui', 'dynamic_update_index')}` clamps "
            "out-of-range writes and the buffer's length is not visibly at least the number of steps"
        )
        if length is None or start_code is None or not self._stable(length):
            return clamp
        if bounds is not None:
            lower, upper = bounds
            last = int_value(upper)
            start = int_value_text(start_code)
            lower = int_value(lower)
            if start is None or lower is None:
                return clamp
            offset = start - lower
            if last is not None and int_value(length) is not None:
                return None if last + offset <= int_value(length) else clamp
            if offset <= 0 and self._stable(upper) and self._canonical(upper) == self._canonical(length):
                return None
            return clamp
        start = int_value_text(start_code)
        if start == 0 and trips is not None and trips == self._canonical(length):
            return None
        if start is not None and trips is not None and int_value_text(trips) is not None and int_value(length) is not None:
            return None if start + int_value_text(trips) <= int_value(length) else clamp
        return clamp

    def _fix(self, plan: CarriedPlan):
        """The edits: the body returns the written value as a stacked output, the loop becomes a
        ``scan``, and after it the rows go into the initial buffer with one write.

        A plain buffer leaves the carry. A dict entry stays in the carried dict untouched (so the
        dict keeps its keys and their order) and is written after the loop. A buffer whose previous
        row is read back leaves the carry too, and that row is carried in its place.
        """
        call, kind, args, body, write, previous = plan.call, plan.kind, plan.args, plan.body, plan.write, plan.previous
        binding, inits, results, position, ys_target = plan.binding, plan.inits, plan.results, plan.position, plan.ys_target
        lax_name, jnp_name, start_code, key, checked = plan.lax_name, plan.jnp_name, plan.start_code, plan.key, plan.checked
        source, module = self.context.source, self.context.module
        function = body.function
        statement = binding.statement
        buf = write.buf
        result = results[position].value
        stem = result if key is None else f"{result}_{identifier(key.evaluated_value)}"
        rows = self.fresh_name(f"{stem}_rows", call)
        row = self.fresh_name(f"{buf if key is None else stem}_row", call)
        prev = self.fresh_name(f"{buf}_prev", call) if previous else None
        removed = key is None and not previous
        keep = [k for k in range(len(body.elements)) if k != position or not removed]

        def pack(items: list[str]) -> str:
            if not items:
                return "None"
            if len(items) == 1:
                return items[0]
            return f"({', '.join(items)})"

        edits: list[Edit] = []
        # 1. the body: unpack the rest of the carry, return the written value as an output
        if body.unpack is not None and key is None:
            left = [prev if k == position else body.elements[k] for k in keep]
            if left:
                unpack = left[0] if len(left) == 1 else ", ".join(left)
                edits.append(self.replace(body.unpack, f"{unpack} = {body.carry_param}"))
            else:
                edits.append(self.replace(body.unpack, f"del {body.carry_param}"))
        elif body.alias is not None and key is None:
            edits.append(self.replace(body.alias, f"{prev} = {body.carry_param}" if previous else f"del {body.carry_param}"))
        elif previous:
            param = next(p for p in function.params.params if p.name.value == body.carry_param)
            edits.append(self.replace(param.name, prev))
        value = write.row
        holder = write.call if write.in_return else write.statement
        for read in previous:
            if self.semantics.contains(holder, read):
                if not self.semantics.contains(write.row, read):
                    return "the previous row is read in the write's index"
                value = value.deep_replace(read, cst.Name(prev))
            else:
                edits.append(self.replace(read, prev))
        code = self.original_text(value) if value is write.row else self.code_of(value)
        if "\n" in code:  # it spanned lines inside the write's parentheses
            code = f"({code})"
        comments = [  # the write's own comments, outside the row, would go with it
            c.value for c in scopes.comments(holder)
            if not self.semantics.contains(write.row, c)
        ]
        carried = [self.code_of(body.returned[k]) for k in keep]
        if previous:
            carried[keep.index(position)] = (
                f"{jnp_name}.broadcast_to({jnp_name}.asarray({row}, {prev}.dtype), {prev}.shape)"
            )
        new_carry = pack(carried)
        # a scan's `None` output can go only where nothing is bound to it (`_`)
        only_rows = kind == "fori" or is_none(body.ys) and isinstance(ys_target, cst.Name) and ys_target.value == "_"
        if only_rows:
            ret = f"{new_carry}, {row}"
        else:
            ret = f"{new_carry}, ({self.code_of(body.ys)}, {row})"
        edits.append(self.replace(body.ret.value, ret))
        # 2. the initial buffer: its value is needed again after the loop
        prelude: dict[int, list[str]] = {}  # lines to insert before a line, in order
        hoisted: dict[int, str] = {}  # carry values the fix binds to names before the buffer's line
        if key is not None:
            base = f"{result}[{self.code_of(key)}]"  # passed through the loop untouched
            new_init = self.code_of(args[INIT_ARG[kind]].value)
        else:
            init = inits[position]
            other_targets = {
                n.value for k in keep if k != position for n in self.semantics.of_kind(results[k], cst.Name)
            }
            anchor = plan.remote_init if plan.remote_init is not None else statement
            if plan.remote_init is None and isinstance(init, cst.Name) and init.value not in other_targets and not (
                ys_target is not None and self.semantics.names_in(ys_target, init.value)
            ):
                base = init.value
            elif isinstance(init, cst.Call) and self.matches(init.func, CONSTRUCTORS) or isinstance(init, cst.Name):
                base = self.fresh_name(f"{result}_init", call)
                indent = source.indentation(self.start_line(anchor))
                if plan.remote_init is None:
                    # the carry's values before the buffer ran before it: they keep their order
                    for k in range(position):
                        if not isinstance(inits[k], (cst.Name, cst.Integer, cst.Float, cst.SimpleString)):
                            hoisted[k] = self.fresh_name(f"{body.elements[k]}_init", call)
                            prelude.setdefault(self.start_line(anchor), []).append(
                                f"{indent}{hoisted[k]} = {self.code_of(inits[k])}"
                            )
                prelude.setdefault(self.start_line(anchor), []).append(f"{indent}{base} = {self.code_of(init)}")
            else:
                return (
                    "the initial buffer is neither a name nor a `jnp.zeros`-like constructor, so it cannot be "
                    "reused after the loop"
                )
            initial = [hoisted.get(k, self.code_of(inits[k])) for k in keep]
            if previous:
                first = int_value_text(start_code)
                before = str(first - 1) if first is not None else f"{start_code} - 1"
                initial[keep.index(position)] = f"{base}[{before}]"
            new_init = pack(initial)
            if plan.remote_init is not None:
                remote = plan.remote_init.value
                bare = new_init[1:-1] if remote.lpar and len(keep) > 1 else new_init
                edits.append(self.replace(remote, bare))
                new_init = self.code_of(args[INIT_ARG[kind]].value)
        # the loop turned its initial buffer into a JAX array; a NumPy one must be converted too
        array = base if key is not None or self._is_jax_array(inits[position]) else f"{jnp_name}.asarray({base})"
        row_statements = []
        if checked:
            # the row made as the write made it, into a copy of its slot of the initial buffer
            # (seen from the body, which the loop's function holds): converted, broadcast and
            # refused exactly there, at the same step (a zero-length axis, a row of the wrong
            # shape), so nothing after it runs; `stop_gradient`: the slot's old value is discarded.
            # The row leaves in the dtype the write promoted the buffer to (`jnp.result_type`): a
            # row of another dtype took every slot through it each step, which the one write after
            # the loop then repeats once (an int32 buffer written with float32 rows loses what
            # float32 cannot hold; a weak `jnp.full(n, -100)` written with uint8 rows wraps; a weak
            # `jnp.full(n, 0.1)` with bfloat16 rows rounds). But a float or complex buffer's round
            # trip through a type it casts to safely changes nothing, and done once outside the loop
            # XLA may flush its subnormals (review 67): that row stays in the buffer's dtype, and the
            # write after the loop promotes nothing. (Whether the loop's own round trips flush them
            # depends on XLA: an `add`'s did under jax 0.10 and not under 0.12, review 68.)
            # `.at[i].add` keeps the slot's old value, the initial buffer's (each slot is written
            # once), and its gradient: no `stop_gradient` there.
            slot = ", ".join([":"] * write.axis + [self.code_of(write.index)])
            # (`stop_gradient` and `jnp.asarray` also make a JAX array of a NumPy buffer, which a
            # traced index cannot subscript)
            if write.method == "set":
                old = f"{lax_name}.stop_gradient({base})"
            else:
                old = array
            # The written value is computed first, as the write computed it before converting it
            # into the slot: an error of its own comes before a zero-length axis's IndexError.
            if isinstance(write.row, PLAIN_VALUES):
                held = code
            else:
                held = self.fresh_name(f"{write.buf}_value", call)
                if isinstance(write.row, cst.GeneratorExp) and not write.row.lpar:
                    code = f"({code})"
                row_statements.append(f"{held} = {code}")
            # The write promotes the buffer with the value before it looks at the slot (under strict
            # promotion its TypePromotionError comes before a zero-length axis's IndexError); the
            # row leaves in that dtype only where it differs (a static test, at trace time): an
            # `astype` to the row's own dtype would drop a weak type, and with it the weak type of
            # the gradient flowing back.
            promoted = self.fresh_name(f"{write.buf}_dtype", call)
            row_statements.append(f"{promoted} = {jnp_name}.result_type({base}, {jnp_name}.asarray({held}))")
            row_statements.append(f"{row} = {old}[{slot}].at[...].{write.method}({held})")
            code = (
                f"{row} if {row}.dtype == {promoted} or {jnp_name}.issubdtype({row}.dtype, {jnp_name}.inexact) and "
                f"{jnp_name}.can_cast({row}.dtype, {promoted}) else {row}.astype({promoted})"
            )
        statements = [*row_statements, f"{row} = {code}"]
        if write.in_return:  # the row is computed just before the `return` that wrote it
            line = self.start_line(body.ret)
            edits.append(source.insert_lines_before(line, [f"{source.indentation(line)}{s}" for s in statements]))
        else:
            joint = "; "
            if alone_on_its_line(self, write.statement):
                joint = f"{source.newline}{source.indentation(self.start_line(write.statement))}"
            edits.append(self.replace(write.statement, joint.join(statements) + "".join(f"  {c}" for c in comments)))
        # 3. the call: a scan over the steps, without the buffer
        if kind == "fori":
            lower, upper = self.code_of(args["lower"].value), self.code_of(args["upper"].value)
            swapped = self._swapped_parameters(function) if body.forward is None else None
            if swapped is not None and _overlaps(self.replace(function.params, swapped), edits):
                swapped = None  # the rewrite edits the parameters already (a body on the `def` line)
            if body.forward is not None:
                index_var, carry_var = (p.name.value for p in body.forward.params.params)
                step = self.code_of(body.forward.body)
            elif swapped is not None:
                # the body itself takes `(carry, i)`: the scan gets the very function the loop got,
                # whose trace JAX reuses between runs as it did (a fresh lambda each run is traced
                # again: trace-time warnings would repeat)
                edits.append(self.replace(function.params, swapped))
            else:
                carry_var = "carry" if function.name.value != "carry" else "state"
                index_var = "i" if function.name.value != "i" else "step"
                step = f"{function.name.value}({index_var}, {carry_var})"
            callee = f"{lax_name}.scan"
            steps = f"{jnp_name}.arange({lower}, {upper})"
            if not all(isinstance(args[k].value, (cst.Name, cst.Integer)) for k in ("lower", "upper")):
                # `fori_loop` evaluated its bounds before the initial carry, a scan takes its
                # steps after it: the steps are made first, so a bound's effects and errors come first
                name = self.fresh_name("steps", call)
                indent = source.indentation(self.start_line(statement))
                prelude.setdefault(self.start_line(statement), []).insert(0, f"{indent}{name} = {steps}")
                steps = name
            new_args = [function.name.value if swapped is not None else f"lambda {carry_var}, {index_var}: {step}", new_init, steps]
            if "unroll" in args:
                new_args.append(f"unroll={self.code_of(args['unroll'].value)}")
        else:
            callee = self.code_of(call.func)
            new_args = []
            for number, arg in enumerate(call.args):
                if arg.keyword is None and number == 1 or arg.keyword is not None and arg.keyword.value == "init":
                    new_args.append(f"{arg.keyword.value}={new_init}" if arg.keyword else new_init)
                else:  # the argument alone: a comment after its comma would swallow the rest of the line
                    value = f"{arg.star}{self.code_of(arg.value)}"
                    new_args.append(f"{arg.keyword.value}={value}" if arg.keyword is not None else value)
        # The indices count the rows the loop stacked: the bounds are not evaluated again after
        # the loop, where tracing the body may have changed them (`len` of a list it appends to).
        first = int_value_text(start_code)
        if first == 0:
            index_code = f"{jnp_name}.arange({rows}.shape[0])"
        else:
            index_code = f"{jnp_name}.arange({rows}.shape[0]) + {start_code}"
        # 4. the result: the same names, the buffer's rows as the stacked output
        names = [self.code_of(results[k]) for k in keep]
        # a name for what the rewrite discards: `_` only where nothing else in the scope uses it
        # (gettext's `_`, read before the loop, would become an unbound local)
        scope = scopes.enclosing_scope(self, statement)
        own = set(map(id, self.semantics.names_in(binding.target, "_")))
        discard = "_" if all(id(n) in own for n in self.semantics.names_in(scope, "_")) else self.fresh_name(
            "_unused", statement
        )
        if previous:
            names[keep.index(position)] = discard
        carry_names = pack(names) if keep else discard
        if only_rows:
            new_target = f"{carry_names}, {rows}"
        else:
            new_target = f"{carry_names}, ({self.code_of(ys_target)}, {rows})"
        edits.extend(self._bind_result(binding, call, new_target))
        indent = source.indentation(self.start_line(statement))
        new_call = f"{callee}({', '.join(new_args)})"
        original = self.code_of(statement).splitlines()[0]
        if len(f"{indent}{new_target} = {new_call}") > max(LINE_LENGTH, len(indent) + len(original)):
            inner = indent + module.default_indent
            newline = source.newline
            new_call = f"{callee}({newline}" + "".join(f"{inner}{arg},{newline}" for arg in new_args) + f"{indent})"
        edits.append(self.replace(call, new_call))
        # 5. after the loop: write every row into the initial buffer at once
        destination = result if key is None else base
        axis = write.axis
        if write.form == "at":
            # `.at[idx].set` drops out-of-range indices exactly as each step's `.at[i].set` did, and
            # the indices are distinct and non-negative, so one scatter equals the T writes. Rows are
            # given back the axes `.at[i].set` would have broadcast them to, before the step axis moves.
            # Unchecked rows are the written values themselves: `.at[i].add` adds them after the loop.
            method = "set" if checked else write.method
            expanded = f"{jnp_name}.expand_dims({rows}, tuple(range(1, 1 + {base}.ndim - {rows}.ndim)))"
            if axis == 0:
                value, where = expanded, index_code
            else:
                value = f"{jnp_name}.moveaxis({expanded}, 0, {axis})"
                where = ", ".join([":"] * axis + [index_code])
            inner = indent + module.default_indent
            values = [f"{inner}{value}"]
            if axis == 0 and len(values[0]) > LINE_LENGTH:
                deeper = inner + module.default_indent
                values = [
                    f"{inner}{jnp_name}.expand_dims(",
                    f"{deeper}{rows},",
                    f"{deeper}tuple(range(1, 1 + {base}.ndim - {rows}.ndim)),",
                    f"{inner})",
                ]
            rebuild = [f"{indent}{destination} = {array}.at[{where}].{method}(", *values, f"{indent})"]
        else:
            # The writes are proven in range (or the fix is marked unsafe): one block write at the
            # first index equals the T one-slot writes.
            block = rows if axis == 0 else f"{jnp_name}.moveaxis({rows}, 0, {axis})"
            rebuild = [
                f"{indent}{destination} = {lax_name}.dynamic_update_slice_in_dim({array}, {block}, {start_code}, {axis})"
            ]
        tail = [f"{indent}{binding.tail}"] if binding.tail else []
        guard = [] if checked else self._empty_guard(
            write, inits[position] if key is None else None, base, indent, module.default_indent,
            f"{jnp_name}.result_type({array}, {rows})",
        )
        settled = [  # unchecked rows of a `set`: in the buffer's dtype where it casts safely, as above
            f"{indent}{rows} = {rows}.astype({array}.dtype) if {jnp_name}.issubdtype({array}.dtype, {jnp_name}.inexact) and "
            f"{jnp_name}.can_cast({array}.dtype, {jnp_name}.result_type({array}, {rows})) else {rows}"
        ] if not checked and write.form == "at" and write.method == "set" else []
        edits.append(source.insert_lines_before(self.end_line(statement) + 1, guard + settled + rebuild + tail))
        edits.extend(source.insert_lines_before(line, lines) for line, lines in prelude.items())
        loop = "fori_loop" if kind == "fori" else "scan"
        return Fix(
            "safe",
            f"return `{self.code_of(write.row)}` as a stacked `scan` output and "
            f"{'add' if write.method == 'add' and not checked else 'write'} the rows into the initial "
            f"buffer after the loop (was: `{write.label}` carried through `{loop}`)",
            tuple(edits),
        )

    def _empty_guard(self, write: Write, init, base: str, indent: str, step: str, promotion: str) -> list[str]:
        """Lines that raise what each step's write raised when the written axis has length 0.

        JAX traces the body even for zero trips, and a write into a zero-length axis fails while
        tracing (`.at[i]` with IndexError, a one-row `dynamic_update_slice` with TypeError); the
        stacked rows would go into it silently. The shape is static, so a Python test keeps the
        error; it is left out where the length is a positive literal. `.at[i]` promotes the buffer
        with the row before it looks at the index: ``promotion`` repeats that first (under strict
        promotion its TypePromotionError comes before the IndexError).
        """
        length = self._buffer_length(init, write.axis) if init is not None else None
        if length is not None and (int_value(length) or 0) > 0:
            return []
        axis = write.axis
        if write.form == "at":
            error = f'IndexError("index is out of bounds for axis {axis} with size 0")'
        else:
            error = 'TypeError("dynamic_update_slice update shape must be smaller than operand shape")'
        what = f"`.at[i].{write.method}`" if write.form == "at" else "write"
        promote = [f"{indent}{step}{promotion}  # as the write, promote first"] if write.form == "at" else []
        return [
            f"{indent}if {base}.shape[{axis}] == 0:  # the loop's {what} raised this while tracing",
            *promote,
            f"{indent}{step}raise {error}",
        ]


ORDERINGS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)
"""Comparisons that give a JAX value where an operand is one (``is`` and ``in`` give Python's)."""


def _python_number(expr) -> bool:
    """A literal number, or arithmetic on literal numbers only."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary)):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return _python_number(expr.expression)
    if isinstance(expr, cst.BinaryOperation):
        return _python_number(expr.left) and _python_number(expr.right)
    return False


def _overlaps(edit: Edit, edits: list[Edit]) -> bool:
    """Whether ``edit`` touches text one of ``edits`` replaces (positions as ``(line, column)``)."""
    return any(
        (edit.line, edit.column) < (e.end_line, e.end_column) and (e.line, e.column) < (edit.end_line, edit.end_column)
        for e in edits
    )
