"""The loop body as the AT2xx rules see it: the carry, the writes, the other reads."""

from __future__ import annotations

import itertools
import re
from functools import cached_property
from dataclasses import dataclass, field

import libcst as cst

from autota.source import scopes, vocabulary
from autota.source.vocabulary import ARRAY_METADATA, INDEX_REDUCTIONS, INDEX_SAMPLERS, METADATA_FUNCTIONS, SLOT_WRITES
from autota.source.rules.loop_buffers.syntax import (
    JNP,
    PARAMS,
    DUS,
    DUS_IN_DIM,
    DUI_IN_DIM,
    DYNAMIC_WRITES,
    COND,
    CHOICE_PARAMS,
    block_of_rows,
    declared_fields,
    ordered_arguments,
    is_full_slice,
    is_none,
    int_value,
    invariant,
    reads_fixed_rows,
    reads_part,
    reads_slot,
    row_read_index,
    index_offset,
    all_params,
    several_slots,
    LOOPS,
    index_elements,
)


def _chained(rule, write: cst.Call) -> bool:
    """Whether ``write``'s result is updated again in the same expression (``.at[c].set(u).at[h]``)."""
    parent = rule.parent(write)
    return isinstance(parent, cst.Attribute) and parent.attr.value == "at"


_STORE = r"\s*(\[[^\n]*\])?\s*([-+*/%&|^@]|//|\*\*|>>|<<)?=(?!=)"
"""What follows a name stored to: an optional subscript, then `=` or an augmented one."""


@dataclass
class Write:
    """``buf = <write of buf>``: one slot of ``buf`` set at ``index`` along ``axis``."""

    statement: cst.Assign
    call: cst.Call
    buf: str
    """The carried name written (for a dict entry, the dict's name)."""
    label: str
    """How the message names the buffer: ``states`` or ``log["energy"]``."""
    form: str  # "at", "dus", "dus_in_dim", "dui_in_dim", "cond" (a write under `lax.cond`)
    index: cst.BaseExpression
    axis: int | None
    row: cst.BaseExpression | None
    """The value one step writes, without the unit axis (``h`` for ``h[None]``)."""
    problem: str | None = None
    """Why the write cannot be turned into a stacked output, if it cannot."""
    dict_entry: bool = False
    slot_read: cst.Subscript | None = None
    """``buf[i]`` at the written index elsewhere in the body (see ``slot_read_when``)."""
    slot_read_when: str | None = None
    """``"before"``: it reads the slot's old contents; ``"after"``: the value just written."""
    in_return: bool = False
    """The write is the buffer's element of the returned carry (``return h, buf.at[i].set(h)``)."""
    method: str = "set"
    """The ``.at[i]`` method of an ``at`` write: ``set``, or ``add``, which also reads the slot's
    old value (see :data:`~autota.source.vocabulary.SLOT_WRITES`)."""


@dataclass
class Body:
    """The loop body, and how its carry is taken apart and put back together."""

    function: cst.FunctionDef | cst.Lambda | None
    index_param: str | None = None
    carry_param: str | None = None
    elements: list[str] = field(default_factory=list)
    """The carried names, by position; ``[carry_param]`` for a single carry."""
    unpack: cst.Assign | None = None
    returned: list[cst.BaseExpression] | None = None
    returned_node: cst.BaseExpression | None = None
    """The carry expression in the ``return`` (for scan, the first element)."""
    ys: cst.BaseExpression | None = None
    """For scan: the stacked output returned beside the carry."""
    ret: cst.Return | None = None
    alias: cst.Assign | None = None
    """``name = carry``: the single carried value bound to another name."""
    forward: cst.Lambda | None = None
    """The loop's own body when it is a lambda passing the arguments on to ``function``."""
    problem: str | None = None


class LoopBodies:
    """Taking a loop call apart: its arguments, its body function, how the body unpacks and
    returns the carry, which carried buffers it writes, and what else reads them."""

    def _arguments(self, call: cst.Call, kind: str) -> dict[str, cst.Arg] | None:
        """The loop's arguments by parameter name; a ``**opts`` argument under ``"**"`` (what it
        holds is unknown, so no fix is made), and ``None`` for a ``*args``, whose positions are."""
        wrapper = self.loop_wrapper(call.func) if self.matches(call.func, LOOPS) is None else None
        if wrapper is not None:
            return self._wrapped_arguments(call, wrapper)
        names = PARAMS[kind]
        found: dict[str, cst.Arg] = {}
        for position, arg in enumerate(call.args):
            if arg.star == "**":
                found["**"] = arg
                continue
            if arg.star:
                return None
            if arg.keyword is None:
                if position >= len(names):
                    return None
                found[names[position]] = arg
            else:
                found[arg.keyword.value] = arg
        return found

    def _wrapped_arguments(self, call: cst.Call, wrapper: LoopWrapper) -> dict[str, cst.Arg] | None:
        """The arguments of a call of a loop wrapper by the loop parameter each one reaches."""
        given: dict[str, cst.Arg] = {}
        for position, arg in enumerate(call.args):
            if arg.star:
                return None
            if arg.keyword is None:
                if position >= len(wrapper.params):
                    return None
                given[wrapper.params[position]] = arg
            elif arg.keyword.value in wrapper.keywords:
                given[arg.keyword.value] = arg
            else:
                return None
        return {loop_param: given[param] for loop_param, param in wrapper.passes if param in given}

    def _unknown_options(self, args: dict[str, cst.Arg]) -> str | None:
        """Why a rewrite cannot keep the loop's ``**opts``: what it holds (``reverse``, ``length``,
        ``unroll``, or a key the loop refuses) changes what the loop computes or raises."""
        if "**" in args:
            return f"the loop is called with `**{self.code_of(args['**'].value)}`, whose keys are not known here"
        return None

    def _out_of_order(self, call: cst.Call, kind: str) -> str | None:
        """Why a rewrite of ``call`` would evaluate its arguments in another order: keywords
        given out of the signature's order run in the order written, and a rewrite writes them
        in the signature's."""
        names = PARAMS[kind]
        given = [arg.keyword.value if arg.keyword is not None else names[k] for k, arg in enumerate(call.args) if not arg.star]
        ranks = [names.index(g) for g in given if g in names]
        if ranks != sorted(ranks):
            return "the loop's keyword arguments are not in the order of its parameters, and the fix evaluates them in that order"
        return None

    def _function(self, expr: cst.BaseExpression) -> cst.FunctionDef | cst.Lambda | None:
        """The ``def`` or ``lambda`` that ``expr`` names where it is read: the binding that reaches
        the read (a notebook-style module defines ``step`` again before each loop)."""
        if isinstance(expr, cst.Lambda):
            return expr
        if not isinstance(expr, cst.Name):
            return None
        binding = self.semantics.binding(expr)  # `cond = lambda s: ...` or a `def`
        return binding if isinstance(binding, (cst.FunctionDef, cst.Lambda)) else None

    def _forwarded(self, function: cst.Lambda | cst.FunctionDef, kind: str):
        """``(def, index, carry)`` when ``function`` only passes the loop's arguments on to a
        ``def`` (``lambda c, i: step(i, c)``, ``lambda _, c: advance(c)``, or a ``def`` whose one
        statement is ``return step(s)``): the ``def`` and which of its parameters receive the loop
        index (``None`` if dropped) and the carry."""
        call = function.body if isinstance(function, cst.Lambda) else scopes.only_return(function)
        params = function.params
        if not isinstance(call, cst.Call) or params.star_arg not in (None, cst.MaybeSentinel.DEFAULT):
            return None
        names = [p.name.value for p in params.params]
        if len(names) != {"fori": 2, "scan": 2, "while": 1}[kind] or params.kwonly_params or params.posonly_params:
            return None
        target = self._function(call.func)
        if not isinstance(target, cst.FunctionDef):
            return None
        passed = [a.value.value if isinstance(a.value, cst.Name) and a.keyword is None and not a.star else None
                  for a in call.args]
        own = target.params
        if (
            None in passed
            or len(set(passed)) != len(passed)
            or not set(passed) <= set(names)
            or own.star_arg not in (None, cst.MaybeSentinel.DEFAULT)
            or own.kwonly_params
            or own.posonly_params
            or own.star_kwarg is not None
            or len(own.params) != len(passed)
            or any(p.default is not None for p in own.params)
        ):
            return None
        index, carry = (names[0], names[1]) if kind == "fori" else (names[1], names[0]) if kind == "scan" else (None, names[0])
        if carry not in passed:
            return None
        received = {outer: p.name.value for outer, p in zip(passed, own.params)}
        return target, received.get(index), received[carry]

    def _sees_carry(self, name: cst.Name, function, carry: str) -> bool:
        """Whether ``name`` is the body's own carry, not a nested function's parameter or local of
        the same name (AT201's fix writes `lambda carry, i: step(i, carry)` for an inner loop)."""
        scope = self.semantics.enclosing_scope(name)
        while scope is not function and not isinstance(scope, cst.Module):
            if self.semantics.declares_outer(scope, carry):
                return True  # `nonlocal carry`: the body's own, read (and maybe rebound) there
            if carry in [p.name.value for p in all_params(scope)] or self.semantics.binds_here(scope, carry):
                return False
            scope = self.semantics.enclosing_scope(scope)
        return True

    def _body(self, function, kind: str) -> Body:
        body = Body(function)
        if function is None:
            body.problem = "the body is not a `def` or `lambda` found in scope"
            return body
        forwarded = self._forwarded(function, kind) if kind in ("fori", "scan", "while") else None  # (not a module's method)
        if forwarded is not None:
            if isinstance(function, cst.FunctionDef):
                body.problem = (
                    f"the body `{function.name.value}` passes the step on to `{forwarded[0].name.value}`; the fix "
                    "rewrites a body that is one `def`"
                )
            else:
                body.forward = function  # `lambda c, i: step(i, c)`, which the fix rewrites too
            function, body.index_param, body.carry_param = forwarded
            body.function = function
        else:
            params = function.params
            plain = [p.name.value for p in params.params]
            if params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or params.kwonly_params or params.posonly_params:
                body.problem = "the body takes `*args` or keyword-only parameters"
                return body
            if kind in ("nn.scan", "nn.while"):
                plain = plain[1:]  # a module's method or a function of the module: the module first
            wanted = {"fori": 2, "scan": 2, "nn.scan": 2, "while": 1, "nn.while": 1}[kind]
            if len(plain) != wanted:
                body.problem = "the body does not take the loop's arguments one by one"
                return body
            if kind == "fori":
                body.index_param, body.carry_param = plain
            elif kind in ("scan", "nn.scan"):
                body.carry_param, body.index_param = plain
            else:
                body.carry_param = plain[0]
        if kind in ("nn.scan", "nn.while"):
            kind = kind[3:]  # the method returns what a `scan` or `while_loop` body returns
        carry = body.carry_param
        if isinstance(function, cst.Lambda):
            body.elements = [carry]
            value = function.body
            if kind == "scan":
                if isinstance(value, cst.Tuple) and len(value.elements) == 2:
                    body.returned_node, body.ys = value.elements[0].value, value.elements[1].value
                else:
                    body.problem = "the lambda does not return `(carry, y)`"
                    return body
            else:
                body.returned_node = value
            body.returned = [body.returned_node]
            return body
        statements = function.body.body
        returns = self.semantics.own_of_kind(function, cst.Return)
        last = statements[-1] if statements else None
        if (
            len(returns) != 1
            or not isinstance(last, cst.SimpleStatementLine)
            or returns[0] not in last.body
            or returns[0].value is None
        ):
            body.problem = "the body does not end in its only `return`"
            return body
        body.ret = returns[0]
        value = body.ret.value
        if kind == "scan":
            if isinstance(value, cst.Tuple) and len(value.elements) == 2 and not any(
                isinstance(e, cst.StarredElement) for e in value.elements
            ):
                body.returned_node, body.ys = value.elements[0].value, value.elements[1].value
            else:
                body.problem = "the body does not return `carry, y`"
                return body
        else:
            body.returned_node = value
        uses = [n for n in self.semantics.names_in(function.body, carry) if self._sees_carry(n, function, carry)]
        unpacks = [
            small
            for line in statements
            if isinstance(line, cst.SimpleStatementLine)
            for small in line.body
            if isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, (cst.Tuple, cst.List))
            and isinstance(small.value, cst.Name)
            and small.value.value == carry
        ]
        if len(unpacks) == 1 and len(uses) == 1:
            target = unpacks[0].targets[0].target
            if all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in target.elements):
                body.unpack = unpacks[0]
                body.elements = [e.value.value for e in target.elements]
        aliases = [
            small
            for line in statements
            if isinstance(line, cst.SimpleStatementLine)
            for small in line.body
            if scopes.assign_to(small) and isinstance(small.value, cst.Name) and small.value.value == carry
        ]
        if body.unpack is None and len(aliases) == 1 and len(uses) == 1:
            # `totals = carry`: a single carried array under another name (what AT201's fix
            # leaves when one of two carried values is taken out)
            body.alias = aliases[0]
            body.elements = [scopes.assign_to(aliases[0])]
        if not body.elements:
            body.elements = [carry]
        node = body.returned_node
        if body.unpack is not None:
            if isinstance(node, (cst.Tuple, cst.List)) and len(node.elements) == len(body.elements) and not any(
                isinstance(e, cst.StarredElement) for e in node.elements
            ):
                body.returned = [e.value for e in node.elements]
            elif self._named_tuple_built(node, len(body.elements)):
                body.returned = [a.value for a in node.args]  # its fields in the order the body unpacked them
                body.problem = f"the returned carry is built by `{self.code_of(node.func)}`; the rewrite returns a tuple"
            else:
                body.problem = "the returned carry is not a tuple like the one unpacked"
        else:
            body.returned = [node]
        return body

    def _named_tuple_built(self, node: cst.BaseExpression, size: int) -> bool:
        """Whether ``node`` is ``State(a, b, c)``, a NamedTuple class of the file given ``size``
        values by position, one a field: unpacked, it gives them back in that order."""
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Name) or len(node.args) != size or any(
            a.keyword is not None or a.star for a in node.args
        ):
            return False
        cls = self.semantics.binding(node.func)
        return isinstance(cls, cst.ClassDef) and any(
            self.matches(b.value, {"typing.NamedTuple"}) for b in cls.bases if b.keyword is None
        ) and len(declared_fields(cls)) == size

    def _writes(self, body: Body) -> list[Write]:
        function = body.function
        if function is None:
            return []
        found = []
        if isinstance(function, cst.Lambda):
            # `lambda i, buf: buf.at[i].set(y)`: the returned expression is the write.
            if isinstance(body.returned_node, cst.Call):
                write = self._write_call(body.returned_node, body.carry_param, None)
                if write is not None:
                    found.append(write)
            return found
        carried = set(body.elements)
        for assign in self.semantics.own_of_kind(function, cst.Assign):
            if len(assign.targets) != 1 or not isinstance(assign.value, cst.Call):
                continue
            target = assign.targets[0].target
            if isinstance(target, cst.Name) and target.value in carried:
                write = self._write_call(assign.value, target.value, assign) or self._conditional_write(
                    assign.value, target.value, assign
                )
            elif (
                isinstance(target, cst.Subscript)
                and isinstance(target.value, cst.Name)
                and target.value.value in carried
            ):
                receiver = self.code_of(target)
                write = self._write_call(assign.value, receiver, assign) or self._conditional_write(
                    assign.value, receiver, assign
                )
                if write is not None:
                    write.buf, write.dict_entry = target.value.value, True
            else:
                continue
            if write is not None:
                found.append(write)
        if body.returned is not None and len(body.returned) == len(body.elements):
            for name, returned in zip(body.elements, body.returned):
                if isinstance(returned, cst.Call):
                    write = self._write_call(returned, name, None)
                    if write is not None:
                        write.in_return = True
                        found.append(write)
        return found

    def _conditional_write(self, call: cst.Call, receiver: str, statement) -> Write | None:
        """``buf = lax.cond(p, lambda b: b.at[i].set(y), lambda b: b, buf)``: a write on some steps only."""
        values = ordered_arguments(call, CHOICE_PARAMS[COND], "operand") if self.matches(call.func, {COND}) else None
        if values is None or len(values) < 4 or not any(self.code_of(v) == receiver for v in values[3:]):
            return None
        writes = []
        for branch in values[1:3]:
            function = self._function(branch)
            params = function.params.params if function is not None else ()
            writes.append(next((
                write for param in params
                for inner in self.semantics.of_kind(function, cst.Call)
                if (write := self._write_call(inner, param.name.value, None)) is not None
            ), None))
        found = next((w for w in writes if w is not None), None)
        if found is None or any(w is not None and _chained(self, w.call) for w in writes):
            return None  # (`t.at[c].set(t[h]).at[h].set(t[c])`: two slots a step, a swap, as outside a `cond`)
        if all(w is not None for w in writes) and self.code_of(writes[0].index) == self.code_of(writes[1].index):
            problem = (  # every step writes the slot: only which row is chosen
                f"both branches of the `lax.cond` (line {self.start_line(call)}) write slot "
                f"`{self.code_of(found.index)}`; the rewrite takes the write outside the `lax.cond` "
                "(choose the row under it, write it once)"
            )
        else:
            problem = (
                f"the write is made under `lax.cond` (line {self.start_line(call)}), on some steps "
                "only, where a stacked output needs a row every step; to stack the snapshots, nest "
                "the loop: an outer `scan` over the snapshots around an inner `fori_loop` of the steps "
                "between them"
            )
        return Write(statement, call, receiver, receiver, "cond", found.index, found.axis, None, problem=problem)

    def _steady_band(self, band: cst.Slice, call: cst.Call) -> bool:
        """Whether a slice of a write (``1:N - 1``) has bounds the function around ``call`` does
        not bind (literals, names from outside): the same band every step, not a moving window."""
        function = next((a for a in self.ancestors(call) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
        parts = [p for p in (band.lower, band.upper, band.step) if p is not None]
        return function is not None and all(
            self.semantics.binding_scope(n) is not function
            for p in parts for n in self.semantics.of_kind(p, cst.Name)
        )

    def _write_call(self, call: cst.Call, receiver: str, statement, methods=SLOT_WRITES) -> Write | None:
        """The write of ``receiver`` (a name, or the code of ``d["key"]``) that ``call`` is, by one
        of the ``x.at[...]`` ``methods``."""
        func = call.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in methods
            and isinstance(func.value, cst.Subscript)
            and isinstance(func.value.value, cst.Attribute)
            and func.value.value.attr.value == "at"
            and self.code_of(func.value.value.value) == receiver
        ):
            elements = index_elements(func.value.slice)
            axis, index, fixed, ellipsis, banded = None, None, [], False, False
            for position, element in enumerate(elements):
                value = element.slice.value if isinstance(element.slice, cst.Index) else None
                if isinstance(value, cst.Ellipsis) and not ellipsis and axis is None:
                    ellipsis = True
                elif value is not None and int_value(value) is not None:
                    fixed.append((position, value))  # a fixed position along another axis: a smaller slot
                elif value is not None:
                    if axis is not None:
                        return None
                    axis, index = position, value
                elif not is_full_slice(element.slice):
                    if not self._steady_band(element.slice, call):
                        return None
                    banded = True  # `p.at[1:N - 1, j]`: the same band of each slot, every step
            if axis is None and len(fixed) == 1 and not ellipsis:
                (axis, index), fixed = fixed[0], []  # `buf.at[3].set(v)`: the same slot every step
            if axis is None or isinstance(index, cst.Tuple) or is_none(index) or several_slots(self, index):
                return None
            write = Write(statement, call, receiver, receiver, "at", index, axis, None, method=func.attr.value)
            positional = [a for a in call.args if a.keyword is None and not a.star]
            if ellipsis:
                write.problem = "the written axis is counted from the end (`buf.at[..., i]`); the rewrite needs it from the start"
            elif banded:
                write.problem = (
                    f"the write takes a band along another axis (`[{self.code_of(func.value).split('[', 1)[1]}`); "
                    "the rewrite takes writes of whole slots"
                )
            elif fixed:
                write.problem = (
                    f"the write also fixes a position along another axis (`[{self.code_of(func.value).split('[', 1)[1]}`); "
                    "the rewrite takes writes of whole slots"
                )
            elif len(call.args) != 1 or len(positional) != 1:
                write.problem = f"the `.at[].{func.attr.value}` write passes keyword arguments (`mode=`...)"
            else:
                write.row = positional[0].value
            return write
        name = self.matches(func, DYNAMIC_WRITES)
        if name is None or not call.args or self.code_of(call.args[0].value) != receiver:
            return None
        args = {}
        order = ("operand", "update", "start_indices") if name == DUS else ("operand", "update", "index", "axis")
        if name == DUS_IN_DIM:
            order = ("operand", "update", "start_index", "axis")
        for position, arg in enumerate(call.args):
            if arg.star:
                return None
            key = arg.keyword.value if arg.keyword else (order[position] if position < len(order) else None)
            if key is None:
                return None
            args[key] = arg.value
        if "update" not in args:
            return None
        form = {DUS: "dus", DUS_IN_DIM: "dus_in_dim", DUI_IN_DIM: "dui_in_dim"}[name]
        problem = None
        if name == DUS:
            starts = args.get("start_indices")
            if not isinstance(starts, (cst.Tuple, cst.List)):
                return None
            dynamic = [(k, e.value) for k, e in enumerate(starts.elements) if not int_value(e.value) == 0]
            if len(dynamic) != 1:
                if not dynamic:
                    return None
                problem = "the write moves along more than one axis"
                dynamic = dynamic[:1]
            axis, index = dynamic[0]
        else:
            index = args.get("index", args.get("start_index"))
            axis = int_value(args["axis"]) if "axis" in args else None
            if index is None or axis is None or axis < 0:
                return None
        if block_of_rows(self, args["update"], axis):
            return None  # a block of slots a step (a swap of neighbours), not a row
        if set(args) - {"operand", "update", "start_indices", "index", "start_index", "axis"}:
            problem = problem or "the write passes keyword arguments"
        row = self._unit_axis_removed(args["update"], axis)
        if row is None and problem is None:
            problem = (
                f"the update is not visibly one slot thick along axis {axis} "
                f"(write it as `y[None]` or `jnp.expand_dims(y, {axis})`)"
            )
        if row is None and form == "dui_in_dim" and problem is not None:
            problem = "cannot tell whether the update already has the written axis"
        return Write(statement, call, receiver, receiver, form, index, axis, row, problem)

    def _unit_axis_removed(self, update: cst.BaseExpression, axis: int) -> cst.BaseExpression | None:
        """``y`` for ``y[None]``, ``y[:, None]`` (axis 1) or ``jnp.expand_dims(y, axis)``."""
        if isinstance(update, cst.Subscript):
            elements = update.slice
            if len(elements) < axis + 1:
                return None
            if not all(is_full_slice(e.slice) for e in elements[:axis]):
                return None
            marker = elements[axis].slice
            if not (isinstance(marker, cst.Index) and (is_none(marker.value) or self._is_newaxis(marker.value))):
                return None
            rest = elements[axis + 1 :]
            if all(is_full_slice(e.slice) or (isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Ellipsis)) for e in rest):
                return update.value
            return None
        if isinstance(update, cst.Call) and self.matches(update.func, {f"{JNP}.expand_dims"}):
            args = update.args
            if len(args) == 2 and all(a.keyword is None or a.keyword.value in ("a", "axis") for a in args):
                if int_value(args[1].value) == axis:
                    return args[0].value
        return None

    def _is_newaxis(self, node: cst.BaseExpression) -> bool:
        return bool(self.matches(node, {f"{JNP}.newaxis", "numpy.newaxis"}))

    def _class(self, name: cst.Name) -> cst.ClassDef | None:
        """The class ``name`` refers to, defined once in an enclosing scope."""
        scope = scopes.enclosing_scope(self, name)
        while True:
            found = self.semantics.definitions_in(scope, name.value)
            if found or isinstance(scope, cst.Module):
                return found[0] if len(found) == 1 and isinstance(found[0], cst.ClassDef) else None
            scope = scopes.enclosing_scope(self, scope)

    def _other_reads(self, body: Body, buf: str, writes: list[Write]) -> list[cst.Name]:
        """Uses of ``buf`` in the body other than the writes, the unpacking and the return."""
        function = body.function
        allowed: set[int] = set()
        for write in writes:
            if write.form == "at":
                receivers = [write.call.func.value.value.value]
            elif write.form == "cond":
                receivers = [a.value for a in write.call.args[3:]]
            else:
                receivers = [write.call.args[0].value]
            for receiver in receivers:
                allowed.update(id(n) for n in self.semantics.names_in(receiver, buf))
            if write.statement is not None:
                allowed.update(id(n) for n in self.semantics.names_in(write.statement.targets[0].target, buf))
        for unpack in (body.unpack, body.alias):
            if unpack is not None:
                allowed.update(id(n) for n in self.semantics.names_in(unpack.targets[0].target, buf))
        position = body.elements.index(buf) if buf in body.elements else None
        if body.returned is not None and position is not None and position < len(body.returned):
            element = body.returned[position]
            if _cast_of_name(element):  # `return buf.astype(int)`: a loop keeps its carry's dtype, so a no-op
                element = element.func.value
            if isinstance(element, cst.Name):
                allowed.add(id(element))
        reads = []
        searched = function.body if isinstance(function, cst.FunctionDef) else function.body
        for name in self.semantics.variables(searched, buf):
            if id(name) in allowed:
                continue
            parent = self.parent(name)
            if isinstance(parent, cst.Param) and parent.name is name or isinstance(function, cst.Lambda) and name in [
                p.name for p in function.params.params
            ]:
                continue
            if scopes.binding_role(self.semantics.parents, name)[0] is not None:
                continue  # `buf = r` on another path binds the name, it reads nothing
            if self._nested_own(name, function):
                continue  # a nested function's own `buf` (`def inner(i, val)` in a body over `val`)
            if self._shallow_copy(name):
                continue  # `c = dict(c)`: the same entries under the same name, nothing read
            if self.apart(name, [w.call for w in writes], function):
                continue  # `if debug: write ... else: read`: the trace takes one side for every step
            if writes[0].dict_entry:
                # another entry of the dict (a different string key) is not a read of this buffer
                key = entry_key(writes[0])
                other = _subscript_index(parent) if isinstance(parent, cst.Subscript) and parent.value is name else None
                if isinstance(other, cst.SimpleString) and key is not None and other.evaluated_value != key:
                    continue
                if key is None and isinstance(parent, cst.Subscript) and self.code_of(parent) != writes[0].label:
                    continue
                if key is not None and self._repacked(parent, key, name.value):
                    continue  # `c = {"u": u, "traj": c["traj"]}`: the entry moved into the new dict, not read
            index = _subscript_index(parent) if isinstance(parent, cst.Subscript) and parent.value is name else None
            slot = next((w for w in writes if index is not None and self.code_of(index) == self.code_of(w.index)), None)
            when = self._slot_read_order(function, parent, slot) if slot is not None else None
            if when is not None:
                if slot.slot_read_when != "before":  # a read of the old value anywhere stays one
                    slot.slot_read, slot.slot_read_when = parent, when
                continue
            reads.append(name)
        return reads

    def _repacked(self, read: cst.CSTNode, key: str, holder: str) -> bool:
        """Whether ``read`` (``c["traj"]``) is the entry of the same key in a dict display bound
        to the dict's own name (``c = {"u": u, "traj": c["traj"]}``): the buffer moves into the new
        dict as it is."""
        element = self.parent(read)
        display = self.parent(element) if isinstance(element, cst.DictElement) and element.value is read else None
        statement = self.parent(display) if isinstance(display, cst.Dict) else None
        return (
            isinstance(statement, cst.Assign) and statement.value is display and scopes.assign_to(statement) == holder
            and isinstance(element.key, cst.SimpleString) and element.key.evaluated_value == key
        )

    def _shallow_copy(self, name: cst.Name) -> bool:
        """Whether ``name`` is copied into itself: ``c = dict(c)``, ``copy.copy(c)``, or
        ``c = dict(c, i=i + 1)`` (the entries, those given by keyword replaced)."""
        arg = self.parent(name)
        call = self.parent(arg) if isinstance(arg, cst.Arg) else None
        statement = self.parent(call) if isinstance(call, cst.Call) else None
        if not (
            isinstance(statement, cst.Assign) and statement.value is call and call.args[0] is arg and not arg.keyword
            and not arg.star and scopes.assign_to(statement) == name.value
        ):
            return False
        if len(call.args) == 1:
            return self.matches(call.func, vocabulary.SHALLOW_COPIES) is not None
        return self.matches(call.func, {"builtins.dict"}) is not None and all(
            a.keyword is not None and not a.star for a in call.args[1:]
        )

    def apart(self, node: cst.CSTNode, writes: list[cst.CSTNode], function: cst.CSTNode) -> bool:
        """Whether ``node`` and each of ``writes`` sit on opposite sides of Python ``if`` s with
        the same test, on names the body does not bind (``if debug:`` around the write, ``else:``
        around the read): the body is traced once, so every step takes the same side, and the
        read never sees the buffer the write fills."""
        mine = self._sides(node, function)
        return bool(mine) and all(
            any((test, not side) in self._sides(write, function) for test, side in mine) for write in writes
        )

    def _sides(self, node: cst.CSTNode, function: cst.CSTNode) -> set[tuple[str, bool]]:
        """``(test, side)`` for each Python ``if`` around ``node`` in ``function`` whose test reads
        only names the function does not bind: the test's code, and whether ``node`` is in its body."""
        sides, inner = set(), node
        for ancestor in self.ancestors(node):
            if ancestor is function:
                break
            if isinstance(ancestor, cst.If) and inner is not ancestor.test and not any(
                self.semantics.binds_here(function, n.value) for n in self.semantics.variables(ancestor.test)
            ):
                sides.add((self.code_of(ancestor.test), inner is ancestor.body))
            inner = ancestor
        return sides

    def _nested_own(self, name: cst.Name, function: cst.CSTNode) -> bool:
        """Whether ``name`` in ``function``'s body stands for a nested function's or lambda's own
        variable of that spelling (a parameter, a local), which no call of the body hands the
        buffer: an inner loop's carry (``def inner(i, val)`` run over ``jnp.zeros(3)``), not a
        branch given the buffer (``lax.cond(p, update, keep, val)``, whose ``update(val)`` reads it)."""
        for scope in self.ancestors(name):
            if scope is function:
                return False
            if isinstance(scope, (cst.FunctionDef, cst.Lambda)) and not self.semantics.within(name, scope.body):
                continue  # a default, an annotation or a decorator: evaluated where the function is made
            if isinstance(scope, (cst.FunctionDef, cst.Lambda)) and (
                name.value in {p.name.value for p in scopes.all_params(scope)}
                or isinstance(scope, cst.FunctionDef) and self.semantics.binds_here(scope, name.value)
                and not self.semantics.declares_outer(scope, name.value)  # `nonlocal val` is the body's `val`
            ):
                return not self._handed_buffer(scope, name.value, function)
        return False

    def _handed_buffer(self, nested: cst.FunctionDef | cst.Lambda, buf: str, function: cst.CSTNode) -> bool:
        """Whether ``nested`` may be handed the buffer: unless each of its uses in ``function`` is a
        direct call, or the body of a ``lax`` loop, with no argument that mentions ``buf``. Any
        other use (a ``partial``, a ``cond`` branch, stored, returned) may hand it the buffer."""
        if isinstance(nested, cst.FunctionDef):
            uses = [n for n in self.semantics.names_in(function, nested.name.value) if n is not nested.name]
        else:
            uses = [nested]
        for use in uses:
            parent = self.parent(use)
            call = parent if isinstance(parent, cst.Call) and parent.func is use else (
                self.parent(parent) if isinstance(parent, cst.Arg) else None
            )
            if not isinstance(call, cst.Call) or call.func is not use and self.matches(call.func, LOOPS) is None:
                return True
            if any(self.semantics.names_in(a.value, buf) for a in call.args):
                return True
        return False

    def _entry_of(self, name: cst.Name) -> cst.CSTNode:
        """The buffer that ``name`` reads: ``st["out"]`` for the dict carry ``st`` (a string key
        picks the entry, not a slot), else the name."""
        parent = self.parent(name)
        if isinstance(parent, cst.Subscript) and parent.value is name and isinstance(_subscript_index(parent), cst.SimpleString):
            return parent
        return name

    def _read_of(self, name: cst.Name) -> tuple[cst.CSTNode | None, cst.Arg | None]:
        """The subscript of ``name`` (``buf[i]``), or the call that takes it first, with its
        argument (``lax.dynamic_slice(buf, ...)``, ``len(buf)``); ``(None, None)`` elsewhere.
        A dict carry's entry (``st["out"][i]``) counts as the name."""
        name = self._entry_of(name)
        parent = self.parent(name)
        if isinstance(parent, cst.Subscript):
            return (parent if parent.value is name else None), None
        call = self.parent(parent) if isinstance(parent, cst.Arg) else None
        if isinstance(call, cst.Call) and call.args and call.args[0] is parent:
            padded = self._padded_use(call)
            return self._read_of(padded) if padded is not None else (call, parent)
        return None, None

    def _padded_use(self, call: cst.Call) -> cst.Name | None:
        """For ``xpad = jnp.pad(x, w)`` whose name has one use in the function (``lax.dynamic_slice(xpad,
        [i], [w])``): that use, which reads what it reads of ``x``, each value moved to a fixed place."""
        if self.matches(call.func, {f"{vocabulary.JNP}.pad"}) is None or any(a.star for a in call.args):
            return None
        statement = self.parent(call)
        padded = scopes.assign_to(statement) if isinstance(statement, cst.Assign) and statement.value is call else None
        function = next((a for a in self.ancestors(call) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
        if padded is None or function is None:
            return None
        uses = [n for n in self.semantics.names_in(function, padded) if scopes.binding_role(self.semantics.parents, n)[0] is None]
        return uses[0] if len(uses) == 1 and self.semantics.reaching_value(uses[0]) is not None else None

    def _reads_metadata(self, name: cst.Name) -> bool:
        """``buf.shape``, ``len(buf)``: a use that tracing answers, which reads none of the values;
        or ``jnp.argmin(buf)``, whose integer result `grad` does not go through."""
        parent = self.parent(self._entry_of(name))
        if isinstance(parent, cst.Attribute):
            return parent.value is name and parent.attr.value in ARRAY_METADATA
        if isinstance(parent, cst.Arg) and self._weighs_positions(parent):
            return True
        call, arg = self._read_of(name)
        if not (isinstance(call, cst.Call) and arg.keyword is None and not arg.star):
            return False
        if self.matches(call.func, INDEX_REDUCTIONS) is not None:
            return True
        return len(call.args) == 1 and self.matches(call.func, METADATA_FUNCTIONS) is not None

    def _written_again(self, name: cst.Name, buf: str) -> bool:
        """Whether ``name`` is the buffer as another write of the step takes it (``H = H.at[k + 1,
        k].set(beta)`` beside ``H = H.at[:, k].set(col)``): a `set` or `add` reads none of its
        values back (`grad` saves nothing of it), but the buffer stays in the body."""
        call = next((a for a in itertools.islice(self.ancestors(name), 4) if isinstance(a, cst.Call)), None)
        found = scopes.at_call(call) if call is not None else None
        holder = self.parent(call) if call is not None else None
        return found is not None and found[0] is name and found[1] in SLOT_WRITES and isinstance(holder, cst.Assign) and (
            scopes.assign_to(holder) == buf
        )

    def _weighs_positions(self, arg: cst.Arg) -> bool:
        """Whether ``arg`` only weighs which position a random function picks
        (``jax.random.choice(k, n, p=buf)``, ``jax.random.categorical(k, buf)``): its values
        reach no result that `grad` goes through."""
        call = self.parent(arg)
        sampler = self.matches(call.func, INDEX_SAMPLERS) if isinstance(call, cst.Call) else None
        if sampler is None or arg.star:
            return False
        position, keyword = INDEX_SAMPLERS[sampler]
        if arg.keyword is not None:
            return arg.keyword.value == keyword
        return call.args.index(arg) == position and not any(a.star for a in call.args[:position])

    def _reads_part(self, name: cst.Name) -> bool:
        """A read of a slot or a band (see :func:`.syntax.reads_part`), not of the whole buffer
        (``buf[:]`` and ``buf[None]`` read it whole)."""
        read, arg = self._read_of(name)
        return read is not None and (arg is None or arg.keyword is None and not arg.star) and reads_part(self, read)

    def _reads_fixed_rows(self, name: cst.Name, axis: int | None) -> bool:
        """A read of one slot or a band of a literal width along the written axis, whole along
        the others (``buf[t - 2]``, ``buf[k, :]``, ``lax.dynamic_slice_in_dim(buf, t - 2, 2)``):
        under ``grad`` it keeps at most those rows, where a growing band (``buf[:i]``) or a
        column across the slots may keep as much as the buffer."""
        read, arg = self._read_of(name)
        if read is None or axis is None or arg is not None and (arg.keyword is not None or arg.star):
            return False
        return reads_fixed_rows(self, read, axis)

    def _reads_written_slot(self, name: cst.Name, write: Write) -> bool:
        """A read of the slot the step writes, before it is overwritten (a block accumulator): it
        holds what the buffer held before the loop there (see :func:`.syntax.reads_slot`)."""
        read, _ = self._read_of(name)
        return read is not None and reads_slot(self, read, write.index)

    def _reads_old_slot(self, writes: list[Write], kept: list[cst.Name], implied: bool = True) -> bool:
        """Whether the step reads the old value of the slot it writes (``buf[i]`` before
        ``buf.at[i].set(...)``, ``lax.dynamic_slice(buf, (i,), ...)`` kept in the body, or, with
        ``implied``, ``buf.at[i].add(...)`` itself: where the slot moves one a step, the value an
        ``add`` combines with is the initial buffer's, which no step wrote, a row's, not a state's)."""
        return any(w.slot_read_when == "before" or implied and w.method != "set" for w in writes) or any(
            self._reads_written_slot(name, writes[0]) for name in kept
        )

    def _shared_trace(self, call: cst.Call, function, reads_initial: bool) -> str | None:
        """What a fix of the loop ``call`` assumes where the statement may run more than once
        with the same body function (defined at module level, in an enclosing function, or before
        a Python loop around the call): JAX reuses a body's trace for the same function and
        argument types, freezing what the body reads around it, and the fix changes which runs
        share a trace (its carry has other types; a new lambda each run; a read of the initial
        buffer, ``reads_initial``, in the body). ``None`` where the body is made anew for each run,
        or reads around it nothing that a run may change."""
        if function is None or self._made_per_run(function, call):
            return None
        functions = self._reached_functions(function)
        changing = next((
            n.value for reached in functions for n in self._free_names(reached)
            if not self._bound_once(n) or self._may_differ_between_runs(n) or self._defined_unseen(n)
            or self.semantics.module_variable(n)
        ), None) or next((read for reached in functions if (read := self._module_value_read(reached)) is not None), None)
        effect = next((found for reached in functions if (found := self._trace_effect(reached)) is not None), None)
        if changing is None and effect is None and not reads_initial:
            return None
        what = (
            f"`{changing}`" if changing is not None
            else f"`{effect}`, which runs once a trace" if effect is not None
            else "the initial buffer, which the fix reads in the body"
        )
        return (
            f"that the body reads nothing around it that changes between runs of this loop ({what}): the body "
            "is defined outside the statement's run, and JAX reuses a body's trace for the same function and "
            "argument types, freezing what it read; the fix changes which runs share a trace"
        )

    def _may_differ_between_runs(self, name: cst.Name) -> bool:
        """Whether the object ``name`` holds may be another between two runs of a loop: it is
        changed in place (:meth:`_changed_in_place`), or it is not visibly immutable (a NumPy
        array, a list, an object of a class: a helper it is passed to, or a method of its own,
        may change it unseen, `GAIN[0] = v` in `set_gain(GAIN, v)`, `SCALE.fill(2.0)`, a
        property over state a method sets)."""
        return self._changed_in_place(name) or not self._immutable(name)

    def _immutable(self, name: cst.Name, depth: int = 0) -> bool:
        """Whether ``name`` visibly holds an object nothing can change: a function, a class, an
        import (a module or what it exports: a known gap where that is a mutable object), a
        builtin, or a value :meth:`_immutable_value` accepts."""
        held = self.semantics.binding(name)
        if isinstance(held, cst.FunctionDef):
            return True
        if isinstance(held, cst.ClassDef):
            return self._immutable_class(held, depth)
        if held is None:  # an import, a builtin, or a binding the file cannot tell (a parameter, an unpacking)
            scope = self.semantics.binding_scope(name)
            roles = [scopes.binding_role(self.semantics.parents, n) for n in self.semantics.names_in(scope, name.value)]
            return all(
                isinstance(holder, cst.AsName) and isinstance(self.parent(holder), cst.ImportAlias)
                for role, holder in roles if role is not None
            )
        return depth < 3 and self._immutable_value(held, depth)

    def _rewritable_parameters(self, function: cst.FunctionDef) -> list[str] | None:
        """The parameters of an undecorated ``def`` as written (annotations kept), where a fix may
        reorder them or add one: all plain (no default, ``*``, ``/``, keyword-only), and the file
        spells none of :data:`vocabulary.DYNAMIC_ACCESS` (``eval``, ``getattr``, ``locals``...),
        through which code may call the body or read its frame without naming it."""
        if not isinstance(function, cst.FunctionDef) or function.decorators or any(
            self.context.name_count(name) for name in vocabulary.DYNAMIC_ACCESS
        ):
            return None
        params = function.params
        if (params.posonly_params or params.kwonly_params or params.star_arg is not cst.MaybeSentinel.DEFAULT
                or params.star_kwarg is not None or any(p.default is not None for p in params.params)):
            return None
        return [self.code_of(p.with_changes(comma=cst.MaybeSentinel.DEFAULT)).strip() for p in params.params]

    def _immutable_class(self, cls: cst.ClassDef, depth: int) -> bool:
        """Whether a class's attributes visibly stay as its body binds them: each to an immutable
        value (a list there can change item by item), and nothing in the file stores an attribute
        through a class object it cannot name (``cls.gain = g`` in a classmethod, ``type(self).gain
        = g``, ``self.__class__``, ``setattr``). A store through the class's own name is
        :meth:`_changed_in_place`'s to find."""
        text = self.context.source.text
        if cls.decorators or any(b.keyword is not None for b in cls.bases):
            return False  # a class decorator or a metaclass (`__getattr__` on the class) may supply any attribute
        classes = self._class_and_bases(cls)
        if any(klass is None for klass in classes):
            return False  # a base the file does not define: what it binds is not in sight
        bound = [  # the class's own attributes and those it inherits
            small for klass in classes for line in klass.body.body if isinstance(line, cst.SimpleStatementLine)
            for small in line.body if isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None
        ]
        names = {n.value for small in bound for t in (small.targets if isinstance(small, cst.Assign) else [small])
                 for n in self.semantics.of_kind(t.target, cst.Name)}
        if names and re.search(rf"\.\s*({'|'.join(map(re.escape, sorted(names)))}){_STORE}", text):
            return False  # stored through any object (`klass.gain = g`, an alias, a loop variable)
        if re.search(rf"(\bcls|\btype\s*\([^)\n]*\)|__class__)\s*\.\s*\w+{_STORE}|\b(setattr|__setattr__|__dict__)\b", text):
            return False
        return depth < 3 and all(
            self._immutable_value(small.value, depth + 1)
            for line in cls.body.body if isinstance(line, cst.SimpleStatementLine)
            for small in line.body if isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None
        )

    def _immutable_value(self, value: cst.BaseExpression, depth: int) -> bool:
        """Literals, tuples of immutable values, arithmetic on them, a module's attribute
        (``np.pi``, ``jnp.float32``), a new JAX array (immutable, of its own memory), or a name
        that holds one of these."""
        if isinstance(value, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)):
            return True
        if isinstance(value, cst.Name):
            return value.value in ("True", "False", "None") or self._immutable(value, depth + 1)
        if isinstance(value, cst.Tuple):
            return all(isinstance(e, cst.Element) and self._immutable_value(e.value, depth) for e in value.elements)
        if isinstance(value, cst.UnaryOperation):
            return self._immutable_value(value.expression, depth)
        if isinstance(value, cst.BinaryOperation):
            return self._immutable_value(value.left, depth) and self._immutable_value(value.right, depth)
        if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name):  # `np.pi`, not `os.environ`
            return self.semantics.binding(value.value) is None and self._immutable(value.value, depth + 1) and any(
                q.startswith(CONSTANT_MODULES) for q in self.qualified_names(value)
            )
        return isinstance(value, cst.Call) and self.new_jax_array(value, own_memory=True)

    @cached_property
    def _globals_changed_in_place(self) -> frozenset[str] | _Everything:
        """The names the file's text stores an item or attribute through (``GAIN[0] = g``,
        ``cfg.lr = x``, ``sys.modules[__name__].GAIN = g``), calls a mutating method on
        (``table.update(...)``) or deletes a part of; every name where it stores by name or reaches
        its globals (``setattr``, ``__dict__``, ``globals()``, ``vars()``). Read once a file: asked
        of each global a loop reads, a search of the text per name made a file of many loops
        quadratic."""
        text = self.context.source.text
        if re.search(r"\b(setattr|__setattr__|__dict__)\b|\b(globals|vars)\s*\(", text):
            return _EVERYTHING
        op = r"([-+*/%&|^@]|//|\*\*|>>|<<)?"
        stored = rf"\b(\w+)(?=\s*(\[[^\n]*\]|\.\w+)\s*{op}=(?!=))"
        mutated = rf"\b(\w+)(?=\.({'|'.join(sorted(MUTATORS))})\s*\()"
        deleted = r"\bdel\s+(\w+)\s*[\[.]"
        through_module = rf"\.\s*(\w+)(?={_STORE})"  # `sys.modules[__name__].GAIN = g`
        return frozenset(
            m.group(1) for pattern in (stored, mutated, deleted, through_module) for m in re.finditer(pattern, text)
        )

    def _changed_in_place(self, name: cst.Name) -> bool:
        """Whether the object ``name`` holds may change without a new binding: an item or an
        attribute is stored through it (``scale[0] = k``, ``cfg.lr = x``), a method that changes
        a container is called on it (``table.update(...)``), or, for a module's global, the
        module can rebind it unseen (``globals()``, ``vars()``)."""
        scope = self.semantics.binding_scope(name)
        if isinstance(scope, cst.Module):  # a global: the parsed slice may leave out the function that changes it
            return name.value in self._globals_changed_in_place
        for use in self.semantics.names_in(self.context.module, name.value):
            if self.semantics.binding_scope(use) is not scope:
                continue
            parent = self.parent(use)
            holder = self.parent(parent)
            if isinstance(parent, (cst.Subscript, cst.Attribute)) and parent.value is use:
                if isinstance(holder, (cst.AssignTarget, cst.Del)) or isinstance(holder, cst.AugAssign) and holder.target is parent:
                    return True
                if isinstance(parent, cst.Attribute) and parent.attr.value in MUTATORS and isinstance(holder, cst.Call):
                    return True
        return False

    def _trace_effect(self, function) -> str | None:
        """A call in ``function`` whose effect or result depends on when it runs (``print``,
        ``np.random.rand``, ``next``): it runs once per trace, and the fix changes how many
        traces there are."""
        for found in self.semantics.of_kind(function, cst.Call):
            names = set(self.qualified_names(found.func))
            if isinstance(found.func, cst.Name):  # `_say = print` ... `_say(...)`
                held = self.semantics.binding(found.func)
                if isinstance(held, (cst.Name, cst.Attribute)):
                    names |= self.qualified_names(held)
            if any(q in TRACE_EFFECTS or q.startswith(TRACE_EFFECT_MODULES) for q in names):
                return f"{self.code_of(found.func)}(...)"
        return None

    def _module_value_read(self, function) -> str | None:
        """A value ``function`` reads from a module other than a constant one, not a function it
        calls (``sys.path``, ``os.environ``): a mutable object the program may change."""
        for name in self._free_names(function):
            parent = self.parent(name)
            if not (isinstance(parent, cst.Attribute) and parent.value is name) or self.semantics.binding(name) is not None:
                continue
            called = self.parent(parent)
            if isinstance(called, cst.Call) and called.func is parent:
                continue
            if self._imported_module(name) and not any(q.startswith(CONSTANT_MODULES) for q in self.qualified_names(parent)):
                return self.code_of(parent)
        return None

    def _imported_module(self, name: cst.Name) -> bool:
        """Whether ``name`` is bound by an ``import`` of a module (``import sys``, ``import os.path``)."""
        for node in self.semantics.names_in(self.semantics.binding_scope(name), name.value):
            holder = self.parent(node)
            while isinstance(holder, (cst.Attribute, cst.AsName)):
                holder = self.parent(holder)
            if isinstance(holder, cst.ImportAlias) and isinstance(self.parent(holder), cst.Import):
                return True
        return False

    def _made_per_run(self, function, call: cst.Call) -> bool:
        """Whether each run of ``call`` gets a body function of its own: the ``def`` (or lambda)
        runs in the call's scope, inside every Python loop around the call there."""
        scope = self.semantics.enclosing_scope(call)
        if self.semantics.enclosing_scope(function) is not scope:
            return False
        for ancestor in self.ancestors(call):
            if ancestor is scope:
                return True
            if isinstance(ancestor, (*scopes.LOOPS, cst.CompFor)) and not self.semantics.contains(ancestor, function):
                return False
        return True

    def _reached_functions(self, function) -> list:
        """``function`` and the functions of the file it reads by name, and theirs: a helper the
        body calls runs in the body's trace, so what the helper reads is frozen there too."""
        found, pending = [function], [function]
        while pending and len(found) < 32:
            for name in self._free_names(pending.pop()):
                held = self.semantics.binding(name)
                reached = [held] if isinstance(held, cst.FunctionDef) else []
                parent = self.parent(name)
                if isinstance(held, cst.ClassDef) and isinstance(parent, cst.Attribute) and parent.value is name:
                    reached = self._class_methods(held, parent.attr.value)  # `C.gain()`: its method
                elif isinstance(held, cst.ClassDef) and isinstance(parent, cst.Call) and parent.func is name:
                    outer = self.parent(parent)  # `C().gain()`, and `C(...)` runs `__init__`
                    attribute = outer.attr.value if isinstance(outer, cst.Attribute) and outer.value is parent else None
                    reached = self._class_methods(held, "__init__") + (self._class_methods(held, attribute) if attribute else [])
                for method in reached:
                    if all(method is not f for f in found):
                        found.append(method)
                        pending.append(method)
        return found

    def _class_methods(self, cls: cst.ClassDef, name: str) -> list[cst.FunctionDef]:
        """The ``def name`` of ``cls`` or of the first of its bases of the file that has one."""
        for klass in self._class_and_bases(cls):
            method = scopes.own_method(klass, name) if klass is not None else None
            if method is not None:
                return [method]
        return []

    def _class_and_bases(self, cls: cst.ClassDef, depth: int = 0) -> list[cst.ClassDef | None]:
        """``cls`` and its bases, in order, each of the file as its ``ClassDef``, ``None`` for one
        the file does not define (an import, an expression), ``object`` left out."""
        found: list[cst.ClassDef | None] = [cls]
        for base in cls.bases:
            if base.keyword is not None:
                continue
            if isinstance(base.value, cst.Name) and base.value.value == "object":
                continue
            held = self.semantics.binding(base.value) if isinstance(base.value, cst.Name) else None
            if isinstance(held, cst.ClassDef) and depth < 5:
                found += self._class_and_bases(held, depth + 1)
            else:
                found.append(None)
        return found

    def _defined_unseen(self, name: cst.Name) -> bool:
        """Whether ``name`` has no binding in the parsed code but the file binds it at its top
        level (a function or a global the slice left out): what it holds is unknown."""
        if self.semantics.binding(name) is not None or not isinstance(self.semantics.binding_scope(name), cst.Module):
            return False
        word = re.escape(name.value)
        return re.search(rf"^(def|class|async\s+def)\s+{word}\b|^{word}\s*(:[^=\n]*)?=(?!=)", self.context.source.text, re.M) is not None

    def _free_names(self, function) -> list[cst.Name]:
        """The names ``function`` (or a function inside it) reads that it does not bind."""
        return [
            n for n in self.semantics.variables(function)
            if scopes.binding_role(self.semantics.parents, n)[0] is None
            and not self.semantics.contains(function, self.semantics.binding_scope(n))
            and self.semantics.binding_scope(n) is not function
        ]

    def _bound_once(self, name: cst.Name) -> bool:
        """Whether the scope that binds ``name`` binds it once, outside any loop, and nothing
        declares it ``global``/``nonlocal`` (an import, a ``def``, a constant); a builtin is."""
        scope = self.semantics.binding_scope(name)
        bindings = [
            n for n in self.semantics.names_in(scope, name.value)
            if scopes.binding_role(self.semantics.parents, n)[0] is not None
        ]
        in_scope = [n for n in bindings if self.semantics.enclosing_scope(n) is scope]
        declared = any(isinstance(self.semantics.parents.get(n), cst.NameItem) for n in bindings)
        if declared or len(in_scope) > 1:
            return False  # a function declares it `global`/`nonlocal` (and may rebind it), or it is rebound
        return not in_scope or not any(
            isinstance(a, (*scopes.LOOPS, cst.CompFor)) for a in self._ancestors_within(in_scope[0], scope)
        )

    def _ancestors_within(self, node: cst.CSTNode, scope: cst.CSTNode):
        for ancestor in self.ancestors(node):
            if ancestor is scope:
                return
            yield ancestor

    def _invariant(self, body: Body, expr: cst.BaseExpression | None, pure_calls: bool = False) -> bool:
        """Whether ``expr`` (a written index or row of the body) is the same every step (see
        :func:`.syntax.invariant`)."""
        return body.function is not None and expr is not None and invariant(self, expr, body.function, pure_calls)

    def _slot_read_order(self, function, read: cst.Subscript, write: Write) -> str | None:
        """``"before"`` when ``buf[i]`` reads the slot the step is about to overwrite (inside the write,
        or in an earlier statement), ``"after"`` when it reads back the slot just written; ``None``
        when the order is not plain from the body's top-level statements."""
        if write.statement is None or not isinstance(function, cst.FunctionDef):
            return None
        if self.semantics.contains(write.call, read):
            return "before"
        order = [s for line in function.body.body for s in (line.body if isinstance(line, cst.SimpleStatementLine) else [line])]
        holder = lambda node: next((k for k, s in enumerate(order) if self.semantics.contains(s, node)), None)
        read_at, write_at = holder(read), holder(write.statement)
        if read_at is None or write_at is None or read_at == write_at:
            return None
        return "before" if read_at < write_at else "after"

    def counted_down(self, body: Body, index: cst.BaseExpression | None) -> str | None:
        """``k`` where the written index is ``k`` or ``k + c`` and the body binds ``k = m - i``
        before it, ``i`` the loop index and ``m`` the same every step: one slot a step, counting
        down."""
        named = index.left if isinstance(index, cst.BinaryOperation) and int_value(index.right) is not None else index
        reaching = self.semantics.reaching_value(named) if isinstance(named, cst.Name) and body.index_param else None
        value = reaching[1] if reaching is not None and reaching[0] == () else None
        if not (isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Subtract)):
            return None
        right, left = value.right, value.left
        down = isinstance(right, cst.Name) and right.value == body.index_param and invariant(self, left, body.function)
        return named.value if down else None

    def _previous_rows(self, call, kind, args, body: Body, writes: list[Write], reads) -> list[cst.CSTNode] | None:
        """The reads, when every one is ``buf[i - 1]`` for a write at ``buf[i]`` (or a call that
        reads that one row, see :func:`.syntax.row_read_index`): the row the previous step wrote
        (or, on the first step, the initial buffer's row there). Counting down (see
        :meth:`counted_down`), that row is ``buf[k + 1]``."""
        write = writes[0]
        if not reads or kind == "while" or len(writes) != 1 or write.dict_entry or write.axis != 0:
            return None
        bounds = self._index_bounds(kind, args, body)
        down = self.counted_down(body, write.index)
        var, step = (body.index_param, 1) if down is None else (down, -1)
        written = index_offset(write.index, var)
        if bounds is None or written is None:
            return None
        found = []
        for name in reads:
            read, arg = self._read_of(name)
            if isinstance(read, cst.Subscript):
                index = _subscript_index(read)
            else:  # `jnp.take(buf, i - 1, axis=0)`, `lax.dynamic_index_in_dim(buf, i - 1)`: no fix, the same row
                index = row_read_index(self, read) if arg is not None and arg.keyword is None else None
            if index is None or index_offset(index, var) != written - step:
                return None
            found.append(read)
        return found


MUTATORS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem", "sort", "reverse",
     "add", "discard", "__setitem__", "__delitem__"}
)
"""Methods that change a Python container in place."""
TRACE_EFFECTS = frozenset({"builtins.print", "builtins.next", "builtins.input", "builtins.open"})
TRACE_EFFECT_MODULES = ("numpy.random.", "random.", "time.", "logging.", "os.", "sys.", "pprint.", "warnings.")
"""Calls whose result or effect depends on when they run: once per trace, inside a traced body."""
CONSTANT_MODULES = ("numpy.", "jax.", "math.", "cmath.")
"""Modules whose attributes a program reads as constants (``np.pi``, ``jnp.float32``, ``math.e``):
another module's attribute may be a mutable object (``sys.path``, ``os.environ``)."""


def _cast_of_name(node: cst.BaseExpression) -> bool:
    """``name.astype(dtype)``: one argument, on a name."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "astype" and (
        isinstance(node.func.value, cst.Name) and len(node.args) == 1
    )


@dataclass(frozen=True)
class Verdict:
    """A buffer worth a finding, and what the finding rests on: the read that keeps its rows in
    the carry (AT203), or the reads of the previous row and the uses that need the buffer in the
    body (AT201's fix)."""

    read: cst.Name | None = None
    previous: list = field(default_factory=list)
    kept: list = field(default_factory=list)


def by_buffer(writes: list[Write]) -> list[list[Write]]:
    """The writes grouped by the buffer they write, in order of first write."""
    groups: dict[str, list[Write]] = {}
    for write in writes:
        groups.setdefault(write.label, []).append(write)
    return list(groups.values())


def entry_key(write: Write) -> str | None:
    """The string key of the dict entry ``write`` writes (``"energy"``), if a string literal."""
    key = _subscript_index(write.statement.targets[0].target) if write.statement is not None else None
    return key.evaluated_value if isinstance(key, cst.SimpleString) else None


def _subscript_index(node: cst.Subscript) -> cst.BaseExpression | None:
    """``k`` for ``x[k]`` (one plain index), else ``None``."""
    if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) and node.slice[0].slice.star is None:
        return node.slice[0].slice.value
    return None


class _Everything:
    """Holds every name: a file that stores by name or reaches its globals may change any."""

    def __contains__(self, name: object) -> bool:
        return True


_EVERYTHING = _Everything()
