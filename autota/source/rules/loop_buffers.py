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
from dataclasses import dataclass, field

import libcst as cst

from autota.catalogue import Edit, Fix
from autota.source import prefilter, scopes
from autota.source.rule import SourceRule

LAX = "jax.lax"
JNP = "jax.numpy"
FORI, SCAN, WHILE = f"{LAX}.fori_loop", f"{LAX}.scan", f"{LAX}.while_loop"
LOOPS = {FORI: "fori", SCAN: "scan", WHILE: "while", "flax.linen.scan": "nn.scan"}
PARAMS = {
    "fori": ("lower", "upper", "body_fun", "init_val"),
    "scan": ("f", "init", "xs", "length", "reverse", "unroll"),
    "while": ("cond_fun", "body_fun", "init_val"),
}
BODY_ARG = {"fori": "body_fun", "scan": "f", "while": "body_fun"}
INIT_ARG = {"fori": "init_val", "scan": "init", "while": "init_val"}
DUS = f"{LAX}.dynamic_update_slice"
DUS_IN_DIM = f"{LAX}.dynamic_update_slice_in_dim"
DUI_IN_DIM = f"{LAX}.dynamic_update_index_in_dim"
DYNAMIC_WRITES = frozenset({DUS, DUS_IN_DIM, DUI_IN_DIM})
CONSTRUCTORS = frozenset(
    f"{JNP}.{name}" for name in ("zeros", "ones", "empty", "full", "zeros_like", "ones_like", "full_like", "empty_like")
)
WHERE = frozenset({f"{JNP}.where", f"{LAX}.select"})
COND = f"{LAX}.cond"


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
    forward: cst.Lambda | None = None
    """The loop's own body when it is a lambda passing the arguments on to ``function``."""
    problem: str | None = None


class LoopBufferRule(SourceRule):
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
        self._slot_reads: set[str] = set()

    # -- entry points -----------------------------------------------------------------------
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

    # -- argument and body analysis -----------------------------------------------------------
    def _arguments(self, call: cst.Call, kind: str) -> dict[str, cst.Arg] | None:
        names = PARAMS[kind]
        found: dict[str, cst.Arg] = {}
        for position, arg in enumerate(call.args):
            if arg.star:
                return None
            if arg.keyword is None:
                if position >= len(names):
                    return None
                found[names[position]] = arg
            else:
                found[arg.keyword.value] = arg
        return found

    def _function(self, expr: cst.BaseExpression) -> cst.FunctionDef | cst.Lambda | None:
        if isinstance(expr, cst.Lambda):
            return expr
        if not isinstance(expr, cst.Name):
            return None
        scope = scopes.enclosing_scope(self, expr)
        while True:
            found = [
                node
                for node in scopes.find(scope, lambda n: isinstance(n, cst.FunctionDef))
                if node.name.value == expr.value and scopes.enclosing_scope(self, node) is scope
            ]
            if len(found) == 1:
                return found[0]
            if found:
                return None
            value = scopes.single_assignment(scope, expr.value)  # `cond = lambda s: ...`
            if value is not None:
                return value if isinstance(value, cst.Lambda) else None
            if isinstance(scope, cst.Module):
                return None
            scope = scopes.enclosing_scope(self, scope)

    def _forwarded(self, function: cst.Lambda, kind: str):
        """``(def, index, carry)`` when ``function`` only passes the loop's arguments on to a
        ``def`` (``lambda c, i: step(i, c)``, ``lambda _, c: advance(c)``): the ``def`` and which
        of its parameters receive the loop index (``None`` if dropped) and the carry."""
        call = function.body
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

    def _body(self, function, kind: str) -> Body:
        body = Body(function)
        if function is None:
            body.problem = "the body is not a `def` or `lambda` found in scope"
            return body
        forwarded = self._forwarded(function, kind) if isinstance(function, cst.Lambda) else None
        if forwarded is not None:
            body.forward = function
            function, body.index_param, body.carry_param = forwarded
            body.function = function
        else:
            params = function.params
            plain = [p.name.value for p in params.params]
            if params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or params.kwonly_params or params.posonly_params:
                body.problem = "the body takes `*args` or keyword-only parameters"
                return body
            if kind == "nn.scan":
                plain = plain[1:]  # a module's method: `self` first
            wanted = {"fori": 2, "scan": 2, "nn.scan": 2, "while": 1}[kind]
            if len(plain) != wanted:
                body.problem = "the body does not take the loop's arguments one by one"
                return body
            if kind == "fori":
                body.index_param, body.carry_param = plain
            elif kind in ("scan", "nn.scan"):
                body.carry_param, body.index_param = plain
            else:
                body.carry_param = plain[0]
        if kind == "nn.scan":
            kind = "scan"  # the method returns `(carry, y)` like a `scan` body
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
        returns = scopes.own_nodes(function, lambda n: isinstance(n, cst.Return))
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
        uses = [n for n in scopes.names(function.body, carry)]
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
        if not body.elements:
            body.elements = [carry]
        node = body.returned_node
        if body.unpack is not None:
            if isinstance(node, (cst.Tuple, cst.List)) and len(node.elements) == len(body.elements) and not any(
                isinstance(e, cst.StarredElement) for e in node.elements
            ):
                body.returned = [e.value for e in node.elements]
            else:
                body.problem = "the returned carry is not a tuple like the one unpacked"
        else:
            body.returned = [node]
        return body

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
        for assign in scopes.own_nodes(function, lambda n: isinstance(n, cst.Assign)):
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
        return found

    def _conditional_write(self, call: cst.Call, receiver: str, statement) -> Write | None:
        """``buf = lax.cond(p, lambda b: b.at[i].set(y), lambda b: b, buf)``: a write on some steps only."""
        if not self.matches(call.func, {COND}) or len(call.args) < 4 or any(a.keyword or a.star for a in call.args):
            return None
        if not any(self.code_of(a.value) == receiver for a in call.args[3:]):
            return None
        for branch in call.args[1:3]:
            function = self._function(branch.value)
            if function is None:
                continue
            for param in function.params.params:
                for inner in scopes.find(function, lambda n: isinstance(n, cst.Call)):
                    write = self._write_call(inner, param.name.value, None)
                    if write is None:
                        continue
                    return Write(
                        statement, call, receiver, receiver, "cond", write.index, write.axis, None,
                        problem=(
                            f"the write is made under `lax.cond` (line {self.start_line(call)}), on some steps "
                            "only, where a stacked output needs a row every step; to stack the snapshots, nest "
                            "the loop: an outer `scan` over the snapshots around an inner `fori_loop` of the steps "
                            "between them"
                        ),
                    )
        return None

    def _write_call(self, call: cst.Call, receiver: str, statement) -> Write | None:
        """The write of ``receiver`` (a name, or the code of ``d["key"]``) that ``call`` is."""
        func = call.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value == "set"
            and isinstance(func.value, cst.Subscript)
            and isinstance(func.value.value, cst.Attribute)
            and func.value.value.attr.value == "at"
            and self.code_of(func.value.value.value) == receiver
        ):
            elements = func.value.slice
            axis, index = None, None
            for position, element in enumerate(elements):
                if isinstance(element.slice, cst.Index) and not _is_full_slice(element.slice):
                    if axis is not None:
                        return None
                    axis, index = position, element.slice.value
                elif not _is_full_slice(element.slice):
                    return None
            if axis is None or isinstance(index, (cst.Ellipsis, cst.Tuple)) or _is_none(index):
                return None
            write = Write(statement, call, receiver, receiver, "at", index, axis, None)
            positional = [a for a in call.args if a.keyword is None and not a.star]
            if len(call.args) != 1 or len(positional) != 1:
                write.problem = "the `.at[].set` write passes keyword arguments (`mode=`...)"
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
            dynamic = [(k, e.value) for k, e in enumerate(starts.elements) if not _int_value(e.value) == 0]
            if len(dynamic) != 1:
                if not dynamic:
                    return None
                problem = "the write moves along more than one axis"
                dynamic = dynamic[:1]
            axis, index = dynamic[0]
        else:
            index = args.get("index", args.get("start_index"))
            axis = _int_value(args["axis"]) if "axis" in args else None
            if index is None or axis is None or axis < 0:
                return None
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
            if not all(_is_full_slice(e.slice) for e in elements[:axis]):
                return None
            marker = elements[axis].slice
            if not (isinstance(marker, cst.Index) and (_is_none(marker.value) or self._is_newaxis(marker.value))):
                return None
            rest = elements[axis + 1 :]
            if all(_is_full_slice(e.slice) or (isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Ellipsis)) for e in rest):
                return update.value
            return None
        if isinstance(update, cst.Call) and self.matches(update.func, {f"{JNP}.expand_dims"}):
            args = update.args
            if len(args) == 2 and all(a.keyword is None or a.keyword.value in ("a", "axis") for a in args):
                if _int_value(args[1].value) == axis:
                    return args[0].value
        return None

    def _is_newaxis(self, node: cst.BaseExpression) -> bool:
        return bool(self.matches(node, {f"{JNP}.newaxis", "numpy.newaxis"}))

    # -- the loops ------------------------------------------------------------------------------
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

    def _check_flax_scan(self, call: cst.Call) -> None:
        """``nn.scan(Cell, ...)``: the module's ``__call__`` is the scan body. Its buffers are reported;
        rewriting a module and every place its scanned form is called is left to its author."""
        target = next(
            (a.value for a in call.args if a.keyword is None and not a.star or a.keyword and a.keyword.value == "target"),
            None,
        )
        if any(a.keyword is not None and a.keyword.value == "methods" for a in call.args):
            return
        cls = self._class(target) if isinstance(target, cst.Name) else None
        if cls is None:
            return
        methods = [
            n for n in cls.body.body if isinstance(n, cst.FunctionDef) and n.name.value == "__call__"
        ]
        if len(methods) != 1:
            return
        body = self._body(methods[0], "nn.scan")
        by_buffer: dict[str, list[Write]] = {}
        for write in self._writes(body):
            by_buffer.setdefault(write.label, []).append(write)
        for group in by_buffer.values():
            write = group[0]
            reads = self._other_reads(body, write.buf, group)
            if reads:
                self._report_read_back("scan", write, reads[0])
                continue
            self.report(
                "AT201",
                write.call,
                f"`{write.label}` is carried through the Flax `nn.scan` of `{cls.name.value}` (line "
                f"{self.start_line(call)}) and written one slot a step: under `jax.grad` the carried buffer costs "
                "~T^1.85 time (10-12x slower than stacked outputs at T=1024); return the written value as the "
                "method's `y` (stacked by `nn.scan` along `out_axes`) and drop the buffer from the carry; no safe "
                "fix: autota does not rewrite a module and the calls of its scanned form",
            )

    def _class(self, name: cst.Name) -> cst.ClassDef | None:
        """The class ``name`` refers to, defined once in an enclosing scope."""
        scope = scopes.enclosing_scope(self, name)
        while True:
            found = [
                n
                for n in scopes.find(scope, lambda n: isinstance(n, (cst.ClassDef, cst.FunctionDef)))
                if n.name.value == name.value and scopes.enclosing_scope(self, n) is scope
            ]
            if found or isinstance(scope, cst.Module):
                return found[0] if len(found) == 1 and isinstance(found[0], cst.ClassDef) else None
            scope = scopes.enclosing_scope(self, scope)

    def _previous_rows(self, call, kind, args, body: Body, writes: list[Write], reads) -> list[cst.Subscript] | None:
        """The reads, when every one is ``buf[i - 1]`` for a write at ``buf[i]``: the row the previous
        step wrote (or, on the first step, the initial buffer's row there)."""
        write = writes[0]
        if not reads or kind == "while" or len(writes) != 1 or write.dict_entry or write.axis != 0:
            return None
        bounds = self._index_bounds(kind, args, body)
        written = _offset(write.index, body.index_param)
        if bounds is None or written is None:
            return None
        found = []
        for name in reads:
            read = self.parent(name)
            if not (
                isinstance(read, cst.Subscript)
                and read.value is name
                and len(read.slice) == 1
                and isinstance(read.slice[0].slice, cst.Index)
                and read.slice[0].slice.star is None
                and _offset(read.slice[0].slice.value, body.index_param) == written - 1
            ):
                return None
            found.append(read)
        return found

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
                allowed.update(id(n) for n in scopes.names(receiver, buf))
            if write.statement is not None:
                allowed.update(id(n) for n in scopes.names(write.statement.targets[0].target, buf))
        if body.unpack is not None:
            allowed.update(id(n) for n in scopes.names(body.unpack.targets[0].target, buf))
        position = body.elements.index(buf) if buf in body.elements else None
        if body.returned is not None and position is not None and position < len(body.returned):
            element = body.returned[position]
            if isinstance(element, cst.Name):
                allowed.add(id(element))
        reads = []
        searched = function.body if isinstance(function, cst.FunctionDef) else function.body
        for name in scopes.names(searched, buf):
            if id(name) in allowed:
                continue
            parent = self.parent(name)
            if isinstance(parent, cst.Attribute) and parent.attr is name:
                continue
            if isinstance(parent, cst.Arg) and parent.keyword is name:
                continue
            if isinstance(parent, cst.Param) or isinstance(function, cst.Lambda) and name in [
                p.name for p in function.params.params
            ]:
                continue
            if writes[0].dict_entry:
                # another entry of the dict, or the dict carried whole, is not a read of this buffer
                if isinstance(parent, cst.Subscript) and self.code_of(parent) != writes[0].label:
                    continue
                if isinstance(parent, (cst.Element, cst.Return)):
                    continue
            if (
                isinstance(parent, cst.Subscript)
                and len(parent.slice) == 1
                and isinstance(parent.slice[0].slice, cst.Index)
                and any(
                    scopes.contains(w.call, name) and self.code_of(parent.slice[0].slice.value) == self.code_of(w.index)
                    for w in writes
                )
            ):
                self._slot_reads.add(buf)  # the slot about to be overwritten: its initial value
                continue
            reads.append(name)
        return reads

    # -- AT203 ------------------------------------------------------------------------------------
    def _report_read_back(self, kind: str, write: Write, read: cst.Name) -> None:
        loop = {"fori": "fori_loop", "scan": "scan", "while": "while_loop"}[kind]
        self.report(
            "AT203",
            read,
            f"the `{loop}` body reads `{write.label}` (line {self.start_line(read)}), the buffer it writes "
            f"at line {self.start_line(write.call)}: under `jax.grad` an array as large as the buffer (the buffer, "
            "or the mask over it) is saved every step, O(T^2) memory; use `autota.transform`, carry a running "
            "summary of the rows instead of reading them back, or wrap the body in `jax.checkpoint`; no safe fix",
        )

    # -- AT202 ------------------------------------------------------------------------------------
    def _report_while(self, call, args, body: Body, write: Write, group: list[Write]) -> None:
        base = (
            f"`{write.label}` is written in a `while_loop`, which cannot be reverse-differentiated (`jax.grad` fails)"
        )
        cond = self._function(args["cond_fun"].value)
        test = self._counter_bound(cond, body, write)
        if isinstance(test, str):
            self.report(
                "AT202",
                write.call,
                f"{base}; no safe fix: {test}, so the loop is not proven to run a fixed number of steps (it may "
                "exit early, or its bound may not be static); options: a `scan` over the maximum length that masks "
                "the steps after "
                "the exit (`jnp.where(done, old, new)`) makes it differentiable; or, without `grad`, keep the "
                "buffer and donate it at the `jit` boundary (`donate_argnums`)",
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
                f"{message}: rewrite it as a `fori_loop`/`scan` (then AT201 applies) and `grad` becomes possible; "
                f"no safe fix: {plan}",
            )
            return
        self.report(
            "AT202",
            write.call,
            f"{message}: a `fori_loop` with static bounds over the same body computes the same carry and lowers to "
            "a `scan`, so `jax.grad` works; AT201 then makes the buffer a stacked output",
            Fix("safe", f"run the body as a `fori_loop` over `{plan[1]}` steps (was: `while_loop`)", (plan[0],)),
        )

    def _counter_bound(self, cond, body: Body, write: Write):
        """``(counter, position, bound)`` when the condition is only ``counter < bound``, the counter a
        carried value stepped by one once a step and the bound static; else why not."""
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
        local = {carry}
        unpacked: list[str] | None = None
        if isinstance(cond, cst.FunctionDef):
            smalls = []
            for line in cond.body.body:
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
                local.update(unpacked)
            test = ret.value
        else:
            test = cond.body
        if not (
            isinstance(test, cst.Comparison)
            and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.LessThan)
        ):
            return "the condition is not a single `counter < bound`"
        if body.problem:
            return body.problem
        if body.unpack is None or isinstance(body.function, cst.Lambda):
            return "the body does not unpack the carry as a tuple"
        size = len(body.elements)
        left, bound = test.left, test.comparisons[0].comparator
        position = None
        if (
            isinstance(left, cst.Subscript)
            and isinstance(left.value, cst.Name)
            and left.value.value == carry
            and len(left.slice) == 1
            and isinstance(left.slice[0].slice, cst.Index)
        ):
            position = _int_value(left.slice[0].slice.value)
            if position is not None and -size <= position < 0:
                position += size
        elif isinstance(left, cst.Name) and unpacked is not None and unpacked.count(left.value) == 1:
            if len(unpacked) != size:
                return "the condition unpacks the carry into a different number of values than the body"
            position = unpacked.index(left.value)
        if position is None or not 0 <= position < size:
            return f"`{self.code_of(left)}` is not an element of the carry"
        counter = body.elements[position]
        if body.elements.count(counter) != 1:
            return f"the body unpacks the carry into `{counter}` more than once"
        if any(scopes.names(bound, name) for name in local):
            return f"the bound `{self.code_of(bound)}` reads the carry"
        if not self._is_static(bound, cond) or scopes.find(
            bound, lambda n: isinstance(n, (cst.Divide, cst.Power))
        ):
            return f"the bound `{self.code_of(bound)}` is not provably a static integer"
        if self._counter_step(body, counter) is None:
            return f"the counter `{counter}` is not stepped by one exactly once a step, unconditionally"
        return self.code_of(left), position, bound

    def _while_plan(self, call, args, cond, body: Body, position: int, bound):
        """The edit turning the ``while_loop`` into a ``fori_loop`` and the trip count, or why not."""
        for role, function in (("condition", cond), ("body", body.function)):
            if isinstance(function, cst.FunctionDef):
                if function.decorators:
                    return f"the {role} function `{function.name.value}` is decorated"
                scope = scopes.enclosing_scope(self, function)
                if len(scopes.names(scope, function.name.value)) != 2:
                    return f"the {role} function `{function.name.value}` is used or bound elsewhere too"
        if isinstance(cond, cst.FunctionDef) and scopes.find(bound, lambda n: isinstance(n, cst.Name)):
            if scopes.enclosing_scope(self, cond) is not scopes.enclosing_scope(self, call):
                return (
                    f"the condition `{cond.name.value}` is defined in another scope than the loop, so its bound "
                    "may mean something else there"
                )
        init = args["init_val"].value
        elements = init
        if isinstance(init, cst.Name):
            elements = self._assigned(init)
            if not isinstance(elements, cst.Tuple):
                elements = None
        if (
            not isinstance(elements, (cst.Tuple, cst.List))
            or len(elements.elements) != len(body.elements)
            or any(isinstance(e, cst.StarredElement) for e in elements.elements)
        ):
            return "the initial carry is not written out as a tuple with one value per carried name"
        start = _int_value(elements.elements[position].value)
        if start is None:
            return f"the counter `{body.elements[position]}` does not start at an integer literal"
        lax_name = self._lax_spelling(call)
        if lax_name is None:
            return "`jax.lax` is not imported under a module name here"
        function = args["body_fun"].value
        if isinstance(function, cst.Lambda):  # `lambda s: advance(s)` takes the index beside `s`
            carry = function.params.params[0].name.value
            index = "_" if carry != "_" else "_i"
            step = self.code_of(function.body)
        else:
            name = self.code_of(function)
            carry = "carry" if name != "carry" else "state"
            index = "_" if name != "_" else "_i"
            step = f"{name}({carry})"
        upper = self.code_of(bound).strip()
        lower = str(start)
        trips = upper if start == 0 else f"{upper} - {start}" if start > 0 else f"{upper} + {-start}"
        new = f"{lax_name}.fori_loop({lower}, {upper}, lambda {index}, {carry}: {step}, {self.code_of(init).strip()})"
        return self.replace(call, new), trips

    # -- AT201 ------------------------------------------------------------------------------------
    def _report_carried(self, call, kind: str, args, body: Body, write: Write, group: list[Write],
                        previous: list[cst.Subscript]) -> None:
        loop = "fori_loop" if kind == "fori" else "scan"
        how = "one slot at a time under `lax.cond`" if write.form == "cond" else "one slot a step"
        message = (
            f"`{write.label}` is carried through `{loop}` and written {how}: under `jax.grad` the "
            f"carried buffer costs ~T^1.85 time (10-12x slower than stacked outputs at T=1024); return the "
            "written value as a `scan` output instead"
        )
        if previous:
            message += (
                f", and carry the previous step's row that the body reads back (`{self.code_of(previous[0])}`, "
                f"line {self.start_line(previous[0])}) as a value"
            )
        plan = self._plan(call, kind, args, body, write, group, previous)
        if isinstance(plan, str):
            self.report("AT201", write.call, f"{message}; no safe fix: {plan}")
            return
        fix, unsafe_reason = plan
        if unsafe_reason:
            fix = Fix("unsafe", fix.message, fix.edits)
            self.report("AT201", write.call, f"{message}; the fix is unsafe: {unsafe_reason}", fix)
            return
        self.report("AT201", write.call, message, fix)

    def _index_bounds(self, kind: str, args, body: Body):
        """``(lower, upper)`` when the body's index parameter steps by one from ``lower`` to ``upper``:
        a ``fori_loop``'s index, or the element of a ``scan`` over ``jnp.arange(lower, upper)``."""
        index, function = body.index_param, body.function
        if index is None or not isinstance(function, cst.FunctionDef):
            return None
        if _rebinds(function, index):
            return None
        if kind == "fori":
            return args["lower"].value, args["upper"].value
        if kind != "scan" or "xs" not in args or "length" in args:
            return None
        xs = args["xs"].value
        if not (isinstance(xs, cst.Call) and self.matches(xs.func, {f"{JNP}.arange"})):
            return None
        if not 1 <= len(xs.args) <= 2 or any(a.keyword is not None or a.star for a in xs.args):
            return None
        if len(xs.args) == 1:
            return cst.Integer("0"), xs.args[0].value
        return xs.args[0].value, xs.args[1].value

    def _plan(self, call, kind, args, body: Body, write: Write, group: list[Write], previous):
        """The fix and why it is unsafe (``None`` when safe), or the precondition that failed."""
        if body.problem:
            return body.problem
        if len(group) != 1:
            return f"`{write.label}` is written more than once a step"
        if write.problem:
            return write.problem
        if write.buf in self._slot_reads:
            return f"the step reads the slot it overwrites (`{write.label}[{self.code_of(write.index)}]`)"
        if isinstance(body.function, cst.Lambda):
            return "the body is a `lambda`; write it as a `def` to get a fix"
        function = body.function
        if write.statement is None or not any(
            isinstance(line, cst.SimpleStatementLine) and write.statement in line.body for line in function.body.body
        ):
            return "the write is not an unconditional statement of the body (it sits under `if`/`with`/a loop)"
        stores = [s for s in scopes.stores(function.body, write.buf)]
        plain = scopes.own_nodes(function, lambda n: scopes.assign_to(n, write.buf) is not None)
        if stores or len(plain) != (0 if write.dict_entry else 1):
            return f"`{write.buf}` is bound more than once in the body"
        key = None
        if write.dict_entry:
            target = write.statement.targets[0].target
            key = target.slice[0].slice.value if len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index) else None
            if not isinstance(key, cst.SimpleString):
                return f"the dict carry `{write.buf}` is written at a key that is not a string literal"
        position = body.elements.index(write.buf)
        returned = body.returned[position]
        if not (isinstance(returned, cst.Name) and returned.value == write.buf):
            return f"the body does not return `{write.buf}` in its place in the carry"
        if len(scopes.names(scopes.enclosing_scope(self, function), function.name.value)) != 2:
            return f"the body function `{function.name.value}` is used elsewhere too"
        if kind == "scan" and "reverse" in args and _literal_bool(args["reverse"].value) is not False:
            return "the scan runs in reverse"
        if kind == "scan" and "_split_transpose" in args:
            return "the scan passes `_split_transpose`"
        lax_name = self._lax_spelling(call)
        jnp_name = scopes.module_alias(self.context.module, JNP)
        if lax_name is None:
            return "`jax.lax` is not imported under a module name here"
        if jnp_name is None:
            return "`jax.numpy` is not imported under a module name here"
        statement = self._statement_of(call)
        if statement is None:
            return "the loop's result is not assigned to names (`a, b = lax....`)"
        init = args[INIT_ARG[kind]].value
        n = len(body.elements)
        self._remote_init = None
        if body.unpack is not None and isinstance(init, cst.Name) and not write.dict_entry:
            # `init = (h0, 0, buf0)` a few lines up, used only by this loop
            value = self._assigned(init)
            scope = scopes.enclosing_scope(self, init)
            holder = self.parent(value) if value is not None else None
            if (
                isinstance(value, (cst.Tuple, cst.List))
                and len(scopes.names(scope, init.value)) == 2
                and isinstance(holder, cst.Assign)
                and scopes.enclosing_scope(self, holder) is scope
                and self.start_line(holder) < self.start_line(call)
            ):
                self._remote_init = holder
                init = value
        inits = None
        if body.unpack is not None:
            if isinstance(init, (cst.Tuple, cst.List)) and len(init.elements) == n and not any(
                isinstance(e, cst.StarredElement) for e in init.elements
            ):
                inits = [e.value for e in init.elements]
            elif not write.dict_entry:
                return "the initial carry is not written out as a tuple where the loop is called"
        else:
            inits = [init]
        target = statement.targets[0].target
        if kind == "scan":
            if not (isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2):
                return "the scan's result is not unpacked as `carry, ys = ...`"
            carry_target, ys_target = target.elements[0].value, target.elements[1].value
        else:
            carry_target, ys_target = target, None
        if body.unpack is not None:
            if not isinstance(carry_target, (cst.Tuple, cst.List)) or len(carry_target.elements) != n:
                return "the loop's result is not unpacked into one name per carried value"
            results = [e.value for e in carry_target.elements]
        else:
            results = [carry_target]
        result = results[position]
        if not isinstance(result, cst.Name):
            return f"the buffer's result is not bound to a name"
        if write.dict_entry and len(scopes.names(target, result.value)) != 1:
            return f"the dict's result name `{result.value}` is bound more than once by the loop's assignment"
        # -- where the step writes: loop step k (from 0) writes at start + k ------------------
        unsafe: list[str] = []
        bounds = self._index_bounds(kind, args, body)
        offset = _offset(write.index, body.index_param) if bounds is not None else None
        if offset is not None:
            lower, upper = bounds
            if kind == "fori" and not (self._is_static(lower, call) and self._is_static(upper, call)):
                unsafe.append(
                    "the trip count is not provably static (a traced bound makes `jnp.arange` fail where "
                    "`fori_loop` would run as a `while_loop`)"
                )
            lower_value = _int_value(lower)
            if lower_value is not None:
                start = lower_value + offset
                start_code = str(start)
                if start < 0:
                    return "the first index is negative (it would wrap around to the end)"
            else:
                start_code = self.code_of(lower) if offset == 0 else (
                    f"{self.code_of(lower)} + {offset}" if offset > 0 else f"{self.code_of(lower)} - {-offset}"
                )
                unsafe.append(f"the first index `{start_code}` is not provably non-negative")
            if kind == "fori":
                index_use = self._index_use_problem(function, body.index_param, write)
                if index_use:
                    unsafe.append(index_use)
            trips = None
        else:
            if body.index_param is not None and _rebinds(function, body.index_param):
                return f"the loop index `{body.index_param}` is rebound in the body"
            if previous:
                return "the previous row is read at a counter, not at the loop index minus one"
            bounds = None
            counter = write.index
            offset, counter_name = None, None
            names_in = [n.value for n in scopes.find(counter, lambda x: isinstance(x, cst.Name))]
            for candidate in names_in:
                if candidate in body.elements and candidate != write.buf:
                    counter_name = candidate
                    offset = _offset(counter, candidate)
                    break
            if counter_name is None or offset is None or inits is None:
                what = "the loop index" if kind == "fori" else "a carried counter"
                return f"the index `{self.code_of(write.index)}` is not {what} plus a constant"
            step = self._counter_step(body, counter_name, before=write.statement)
            if step is None:
                return f"the counter `{counter_name}` is not stepped by one exactly once a step"
            initial = _int_value(inits[body.elements.index(counter_name)])
            if initial is None:
                return f"the counter `{counter_name}` does not start at an integer literal"
            start = initial + offset + step
            if start < 0:
                return "the first index is negative (it would wrap around to the end)"
            start_code = str(start)
            if kind == "fori":
                lower, upper = args["lower"].value, args["upper"].value
                if not (self._is_static(lower, call) and self._is_static(upper, call)):
                    unsafe.append("the trip count is not provably static")
                trips = self._canonical(upper) if _int_value(lower) == 0 else None
            else:
                trips = self._scan_trips(args)
        if write.form != "at":
            length_of = self._entry_initial(write, inits, position) if write.dict_entry else inits[position]
            problem = self._dus_range(write, length_of, start_code, bounds, trips)
            if problem:
                unsafe.append(problem)
        if previous:
            unsafe.append(
                "the carried row equals the buffer's row only while every write lands inside the buffer, "
                "and it is converted with `jnp.asarray(row, dtype)` where the write converted it itself"
            )
        fix = self._fix(
            call, kind, args, body, write, statement, inits, results, position, ys_target,
            lax_name, jnp_name, start_code, bounds, key, previous,
        )
        if isinstance(fix, str):
            return fix
        return fix, "; ".join(unsafe) if unsafe else None

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
        if length is None or start_code is None:
            return clamp
        if bounds is not None:
            lower, upper = bounds
            last = _int_value(upper)
            start = _int_value_text(start_code)
            lower = _int_value(lower)
            if start is None or lower is None:
                return clamp
            offset = start - lower
            if last is not None and _int_value(length) is not None:
                return None if last + offset <= _int_value(length) else clamp
            if offset <= 0 and self._canonical(upper) == self._canonical(length):
                return None
            return clamp
        start = _int_value_text(start_code)
        if start == 0 and trips is not None and trips == self._canonical(length):
            return None
        if start is not None and trips is not None and _int_value_text(trips) is not None and _int_value(length) is not None:
            return None if start + _int_value_text(trips) <= _int_value(length) else clamp
        return clamp

    def _scan_trips(self, args) -> str | None:
        if "length" in args:
            return self._canonical(args["length"].value)
        xs = args.get("xs")
        if xs is None:
            return None
        value = xs.value
        if isinstance(value, (cst.Tuple, cst.List)) and value.elements:
            value = value.elements[0].value
        return f"{self._canonical(value)}.shape[0]"

    def _buffer_length(self, init: cst.BaseExpression, axis: int) -> cst.BaseExpression | None:
        init = self._resolve(init)
        if not isinstance(init, cst.Call) or not self.matches(init.func, CONSTRUCTORS):
            return None
        if not self.matches(init.func, {f"{JNP}.zeros", f"{JNP}.ones", f"{JNP}.empty", f"{JNP}.full"}):
            return None
        if not init.args:
            return None
        shape = init.args[0].value
        if isinstance(shape, (cst.Tuple, cst.List)):
            if axis < len(shape.elements):
                return shape.elements[axis].value
            return None
        return shape if axis == 0 else None

    def _resolve(self, expr: cst.BaseExpression, depth: int = 0) -> cst.BaseExpression:
        if isinstance(expr, cst.Name) and depth < 5:
            value = self._assigned(expr)
            if value is not None:
                return self._resolve(value, depth + 1)
        return expr

    def _assigned(self, name: cst.Name) -> cst.BaseExpression | None:
        scope = scopes.enclosing_scope(self, name)
        while True:
            if isinstance(scope, cst.FunctionDef) and name.value in [p.name.value for p in _all_params(scope)]:
                return None
            value = scopes.single_assignment(scope, name.value)
            if value is not None:
                return value
            if isinstance(scope, cst.Module) or scopes.stores(scope, name.value) or scopes.own_nodes(
                scope, lambda n: scopes.assign_to(n, name.value) is not None
            ):
                return None
            scope = scopes.enclosing_scope(self, scope)

    def _canonical(self, expr: cst.BaseExpression) -> str:
        """The code of ``expr`` with names bound once replaced by their values, for comparisons."""
        resolved = self._resolve(expr)
        if isinstance(resolved, cst.BinaryOperation):
            return f"({self._canonical(resolved.left)}{self.code_of(resolved.operator).strip()}{self._canonical(resolved.right)})"
        if resolved is not expr:
            return self._canonical(resolved)
        return self.code_of(expr).strip()

    def _is_static(self, expr: cst.BaseExpression, where: cst.CSTNode, depth: int = 0) -> bool:
        """Whether ``expr`` is a Python value at trace time: literals, shapes, ``len``, static args."""
        if depth > 6:
            return False
        if isinstance(expr, cst.Integer):
            return True
        if isinstance(expr, cst.UnaryOperation):
            return self._is_static(expr.expression, where, depth + 1)
        if isinstance(expr, cst.BinaryOperation):
            return self._is_static(expr.left, where, depth + 1) and self._is_static(expr.right, where, depth + 1)
        if isinstance(expr, cst.Attribute) and expr.attr.value in ("ndim", "size"):
            return True
        if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute) and expr.value.attr.value == "shape":
            return True
        if isinstance(expr, cst.Call) and self.matches(expr.func, {"builtins.len"}):
            return True
        if isinstance(expr, cst.Name):
            value = self._assigned(expr)
            if value is not None:
                return self._is_static(value, where, depth + 1)
            if scopes.unpacked_shape(scopes.enclosing_scope(self, expr), expr.value):
                return True
            return self._static_parameter(expr)
        return False

    def _static_parameter(self, name: cst.Name) -> bool:
        """``name`` is a parameter listed in ``static_argnums``/``static_argnames`` of a ``jit``."""
        scope = scopes.enclosing_scope(self, name)
        while isinstance(scope, (cst.FunctionDef, cst.Lambda)):
            params = [p.name.value for p in _all_params(scope)] if isinstance(scope, cst.FunctionDef) else []
            if name.value in params and isinstance(scope, cst.FunctionDef):
                index = params.index(name.value)
                for decorator in scope.decorators:
                    expr = decorator.decorator
                    if isinstance(expr, cst.Call):
                        for arg in expr.args:
                            if arg.keyword is not None and arg.keyword.value == "static_argnames":
                                if name.value in _string_values(arg.value):
                                    return True
                            if arg.keyword is not None and arg.keyword.value == "static_argnums":
                                if index in _int_values(arg.value):
                                    return True
                return False
            scope = scopes.enclosing_scope(self, scope)
        return False

    def _counter_step(self, body: Body, counter: str, before=None) -> int | None:
        """1 if the counter is stepped by one before the ``before`` statement, 0 if after; else None."""
        function = body.function
        if function is None or body.returned is None or isinstance(function, cst.Lambda):
            return None
        position = body.elements.index(counter)
        returned = body.returned[position]
        statements = [s for line in function.body.body if isinstance(line, cst.SimpleStatementLine) for s in line.body]
        increments = []
        for small in scopes.own_nodes(function, lambda n: isinstance(n, (cst.Assign, cst.AugAssign))):
            if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and small.target.value == counter:
                if isinstance(small.operator, cst.AddAssign) and _int_value(small.value) == 1:
                    increments.append(small)
                else:
                    return None
            elif isinstance(small, cst.Assign) and any(scopes.names(t.target, counter) for t in small.targets):
                if small is body.unpack:
                    continue
                if scopes.assign_to(small, counter) and _offset(small.value, counter) == 1:
                    increments.append(small)
                else:
                    return None
        if scopes.stores(function.body, counter) and not all(isinstance(s, cst.AugAssign) for s in scopes.stores(function.body, counter)):
            return None
        in_return = isinstance(returned, cst.BinaryOperation) and _offset(returned, counter) == 1
        plain_return = isinstance(returned, cst.Name) and returned.value == counter
        if len(increments) == 1 and plain_return and increments[0] in statements:
            if before is None or before not in statements:
                return 0
            return 1 if statements.index(increments[0]) < statements.index(before) else 0
        if not increments and in_return:
            return 0
        return None

    def _index_use_problem(self, function: cst.FunctionDef, index: str, write: Write) -> str | None:
        """Uses of the ``fori_loop`` index that could see its type change (weak to strong int32)."""
        for name in scopes.names(function.body, index):
            node, ok = name, False
            for ancestor in self.ancestors(name):
                if isinstance(ancestor, (cst.SubscriptElement, cst.Comparison)):
                    ok = True
                    break
                if isinstance(ancestor, cst.Arg) and self._is_dynamic_index_arg(ancestor):
                    ok = True
                    break
                if isinstance(ancestor, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
                    break
                node = ancestor
            if not ok:
                return (
                    f"the loop index `{index}` is used in arithmetic (line {self.start_line(name)}); `scan` over "
                    "`jnp.arange` gives a strongly typed int32 where `fori_loop` gives a weakly typed one, which "
                    "can change dtype promotion"
                )
        return None

    def _is_dynamic_index_arg(self, arg: cst.Arg) -> bool:
        call = self.parent(arg)
        if not isinstance(call, cst.Call):
            return False
        names = {
            f"{LAX}.dynamic_slice", f"{LAX}.dynamic_index_in_dim", f"{LAX}.dynamic_slice_in_dim",
            *DYNAMIC_WRITES,
        }
        first = 2 if self.matches(call.func, DYNAMIC_WRITES) else 1
        return bool(self.matches(call.func, names)) and call.args.index(arg) >= first

    def _lax_spelling(self, call: cst.Call) -> str | None:
        func = call.func
        if isinstance(func, cst.Attribute) and LAX in self.qualified_names(func.value):
            return self.code_of(func.value)
        return scopes.module_alias(self.context.module, LAX)

    def _statement_of(self, call: cst.Call) -> cst.Assign | None:
        parent = self.parent(call)
        if isinstance(parent, cst.Assign) and parent.value is call and len(parent.targets) == 1:
            line = self.parent(parent)
            if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
                return parent
        return None

    # -- the AT201 rewrite --------------------------------------------------------------------------
    def _fix(self, call, kind, args, body: Body, write: Write, statement, inits, results, position,
             ys_target, lax_name, jnp_name, start_code, bounds, key, previous):
        """The edits: the body returns the written value as a stacked output, the loop becomes a
        ``scan``, and after it the rows go into the initial buffer with one write.

        A plain buffer leaves the carry. A dict entry stays in the carried dict untouched (so the
        dict keeps its keys and their order) and is written after the loop. A buffer whose previous
        row is read back leaves the carry too, and that row is carried in its place.
        """
        source, module = self.context.source, self.context.module
        function = body.function
        buf = write.buf
        result = results[position].value
        stem = result if key is None else f"{result}_{_identifier(key.evaluated_value)}"
        rows = scopes.fresh_name(module, f"{stem}_rows")
        row = scopes.fresh_name(module, f"{buf if key is None else stem}_row")
        prev = scopes.fresh_name(module, f"{buf}_prev") if previous else None
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
        elif previous:
            param = next(p for p in function.params.params if p.name.value == body.carry_param)
            edits.append(self.replace(param.name, prev))
        value = write.row
        for read in previous:
            if scopes.contains(write.statement, read):
                if not scopes.contains(write.row, read):
                    return "the previous row is read in the write's index"
                value = value.deep_replace(read, cst.Name(prev))
            else:
                edits.append(self.replace(read, prev))
        edits.append(self.replace(write.statement, f"{row} = {self.code_of(value)}"))
        carried = [self.code_of(body.returned[k]) for k in keep]
        if previous:
            carried[keep.index(position)] = (
                f"{jnp_name}.broadcast_to({jnp_name}.asarray({row}, {prev}.dtype), {prev}.shape)"
            )
        new_carry = pack(carried)
        if kind == "fori" or _is_none(body.ys):
            ret = f"{new_carry}, {row}"
        else:
            ret = f"{new_carry}, ({self.code_of(body.ys)}, {row})"
        edits.append(self.replace(body.ret.value, ret))
        # 2. the initial buffer: its value is needed again after the loop
        prelude = []
        if key is not None:
            base = f"{result}[{self.code_of(key)}]"  # passed through the loop untouched
            new_init = self.code_of(args[INIT_ARG[kind]].value)
        else:
            init = inits[position]
            other_targets = {
                n.value for k in keep if k != position for n in scopes.find(results[k], lambda x: isinstance(x, cst.Name))
            }
            anchor = self._remote_init if self._remote_init is not None else statement
            if self._remote_init is None and isinstance(init, cst.Name) and init.value not in other_targets and not (
                ys_target is not None and scopes.names(ys_target, init.value)
            ):
                base = init.value
            elif isinstance(init, cst.Call) and self.matches(init.func, CONSTRUCTORS) or isinstance(init, cst.Name):
                base = scopes.fresh_name(module, f"{result}_init")
                indent = source.indentation(self.start_line(anchor))
                prelude.append(
                    source.insert_lines_before(self.start_line(anchor), [f"{indent}{base} = {self.code_of(init)}"])
                )
            else:
                return (
                    "the initial buffer is neither a name nor a `jnp.zeros`-like constructor, so it cannot be "
                    "reused after the loop"
                )
            initial = [self.code_of(inits[k]) for k in keep]
            if previous:
                first = _int_value_text(start_code)
                before = str(first - 1) if first is not None else f"{start_code} - 1"
                initial[keep.index(position)] = f"{base}[{before}]"
            new_init = pack(initial)
            if self._remote_init is not None:
                remote = self._remote_init.value
                bare = new_init[1:-1] if remote.lpar and len(keep) > 1 else new_init
                edits.append(self.replace(remote, bare))
                new_init = self.code_of(args[INIT_ARG[kind]].value)
        # 3. the call: a scan over the steps, without the buffer
        if kind == "fori":
            lower, upper = self.code_of(args["lower"].value), self.code_of(args["upper"].value)
            if body.forward is not None:
                index_var, carry_var = (p.name.value for p in body.forward.params.params)
                step = self.code_of(body.forward.body)
            else:
                carry_var = "carry" if function.name.value != "carry" else "state"
                index_var = "i" if function.name.value != "i" else "step"
                step = f"{function.name.value}({index_var}, {carry_var})"
            extra = f", unroll={self.code_of(args['unroll'].value)}" if "unroll" in args else ""
            new_call = (
                f"{lax_name}.scan(lambda {carry_var}, {index_var}: {step}, "
                f"{new_init}, {jnp_name}.arange({lower}, {upper}){extra})"
            )
        else:
            new_args = []
            for number, arg in enumerate(call.args):
                if arg.keyword is None and number == 1 or arg.keyword is not None and arg.keyword.value == "init":
                    new_args.append(f"{arg.keyword.value}={new_init}" if arg.keyword else new_init)
                else:
                    new_args.append(self.code_of(arg).strip().rstrip(",").strip())
            new_call = f"{self.code_of(call.func)}({', '.join(new_args)})"
        edits.append(self.replace(call, new_call))
        first = _int_value_text(start_code)
        if bounds is not None and _int_value(bounds[0]) is not None and first == _int_value(bounds[0]):
            index_code = f"{jnp_name}.arange({self.code_of(bounds[0])}, {self.code_of(bounds[1])})"
        elif first == 0:
            index_code = f"{jnp_name}.arange({rows}.shape[0])"
        else:
            index_code = f"{jnp_name}.arange({rows}.shape[0]) + {start_code}"
        # 4. the result: the same names, the buffer's rows as the stacked output
        names = [self.code_of(results[k]) for k in keep]
        if previous:
            names[keep.index(position)] = "_"
        carry_names = pack(names) if keep else "_"
        if kind == "fori" or _is_none(body.ys):
            new_target = f"{carry_names}, {rows}"
        else:
            new_target = f"{carry_names}, ({self.code_of(ys_target)}, {rows})"
        edits.append(self.replace(statement.targets[0].target, new_target))
        # 5. after the loop: write every row into the initial buffer at once
        indent = source.indentation(self.start_line(statement))
        destination = result if key is None else base
        axis = write.axis
        if write.form == "at":
            # `.at[idx].set` drops out-of-range indices exactly as each step's `.at[i].set` did, and
            # the indices are distinct and non-negative, so one scatter equals the T writes. Rows are
            # given back the axes `.at[i].set` would have broadcast them to, before the step axis moves.
            expanded = f"{jnp_name}.expand_dims({rows}, tuple(range(1, 1 + {base}.ndim - {rows}.ndim)))"
            if axis == 0:
                value, where = expanded, index_code
            else:
                value = f"{jnp_name}.moveaxis({expanded}, 0, {axis})"
                where = ", ".join([":"] * axis + [index_code])
            rebuild = [
                f"{indent}{destination} = {base}.at[{where}].set(",
                f"{indent}{module.default_indent}{value}",
                f"{indent})",
            ]
        else:
            # The writes are proven in range (or the fix is marked unsafe): one block write at the
            # first index equals the T one-slot writes.
            block = rows if axis == 0 else f"{jnp_name}.moveaxis({rows}, 0, {axis})"
            rebuild = [
                f"{indent}{destination} = {lax_name}.dynamic_update_slice_in_dim({base}, {block}, {start_code}, {axis})"
            ]
        edits.append(source.insert_lines_before(self.end_line(statement) + 1, rebuild))
        edits.extend(prelude)
        loop = "fori_loop" if kind == "fori" else "scan"
        return Fix(
            "safe",
            f"return `{self.code_of(write.row)}` as a stacked `scan` output and write the rows into the initial "
            f"buffer after the loop (was: `{write.label}` carried through `{loop}`)",
            tuple(edits),
        )

    # -- AT204 --------------------------------------------------------------------------------------
    def _check_select(self, call: cst.Call) -> None:
        args = [a for a in call.args]
        if len(args) != 3 or any(a.keyword is not None or a.star for a in args):
            return
        pred, on_true, on_false = (a.value for a in args)
        for updated, other, flipped in ((on_true, on_false, False), (on_false, on_true, True)):
            if not isinstance(other, cst.Name):
                continue
            if not isinstance(updated, cst.Call):
                continue
            write = self._write_call(updated, other.value, None)
            if write is None or write.form != "at":
                continue
            traced = self.traced.context(call)
            if not (traced is not None and traced.kind == "loop-body" or scopes.enclosing_loops(self, call)):
                return
            message = (
                f"selecting between `{other.value}` and its one-slot update rewrites the whole buffer every "
                "step (O(size) a step, O(T^2) in all)"
            )
            if write.problem or write.row is None or write.axis != 0:
                self.report("AT204", call, f"{message}; no safe fix: {write.problem or 'the write is not on axis 0'}")
                return
            jnp_name = scopes.module_alias(self.context.module, JNP)
            func = call.func
            where = self.code_of(func) if self.matches(func, {f"{JNP}.where"}) else (
                f"{jnp_name}.where" if jnp_name else None
            )
            if where is None:
                self.report("AT204", call, f"{message}; no safe fix: `jax.numpy` is not imported under a module name here")
                return
            index = self.code_of(write.index)
            slot = f"{other.value}[{index}]"
            value = self.code_of(write.row)
            chosen = f"{where}({self.code_of(pred)}, {slot}, {value})" if flipped else f"{where}({self.code_of(pred)}, {value}, {slot})"
            new = f"{other.value}.at[{index}].set({chosen})"
            fix = Fix("safe", "select the slot's value, not the whole buffer", (self.replace(call, new),))
            problem = None
            if not self._scalar_predicate(pred):
                problem = (
                    f"the predicate `{self.code_of(pred)}` is not provably a scalar; if it has the buffer's shape, "
                    "selecting the slot changes the result"
                )
            elif scopes.find(write.index, lambda n: isinstance(n, cst.Call)):
                problem = "the index is computed by a call, which the fix evaluates twice"
            if problem:
                self.report("AT204", call, f"{message}; select the slot instead; the fix is unsafe: {problem}",
                            Fix("unsafe", fix.message, fix.edits))
            else:
                self.report("AT204", call, f"{message}; select the slot instead: `{new}`", fix)
            return

    def _scalar_predicate(self, pred: cst.BaseExpression) -> bool:
        """Comparisons of loop indices, counters, literals and shapes: a scalar by construction."""
        if isinstance(pred, (cst.Integer, cst.Float)) or _is_bool_literal(pred):
            return True
        if isinstance(pred, cst.Comparison):
            return self._scalar_operand(pred.left) and all(self._scalar_operand(c.comparator) for c in pred.comparisons)
        if isinstance(pred, cst.BooleanOperation):
            return self._scalar_predicate(pred.left) and self._scalar_predicate(pred.right)
        if isinstance(pred, cst.UnaryOperation):
            return self._scalar_predicate(pred.expression)
        if isinstance(pred, cst.BinaryOperation) and isinstance(pred.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
            return self._scalar_predicate(pred.left) and self._scalar_predicate(pred.right)
        return False

    def _scalar_operand(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, (cst.Integer, cst.Float)) or self._is_static(expr, expr):
            return True
        if isinstance(expr, cst.BinaryOperation):
            return self._scalar_operand(expr.left) and self._scalar_operand(expr.right)
        if isinstance(expr, cst.Name):
            # the index of an enclosing fori_loop body
            for ancestor in self.ancestors(expr):
                traced = self.traced.by_function.get(ancestor)
                if traced is not None and isinstance(ancestor, cst.FunctionDef):
                    loop = traced.node
                    if isinstance(loop, cst.Call) and self.matches(loop.func, {FORI}):
                        params = ancestor.params.params
                        return bool(params) and params[0].name.value == expr.value
                    return False
        return False


# -- small syntactic helpers ------------------------------------------------------------------------
def _is_full_slice(node) -> bool:
    return isinstance(node, cst.Slice) and node.lower is None and node.upper is None and node.step is None


def _is_none(node) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _is_bool_literal(node) -> bool:
    return isinstance(node, cst.Name) and node.value in ("True", "False")


def _literal_bool(node) -> bool | None:
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return None


def _int_value(node) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and isinstance(node.expression, cst.Integer):
        return -int(node.expression.evaluated_value)
    return None


def _int_value_text(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return None


def _offset(expr: cst.BaseExpression, var: str | None) -> int | None:
    """``c`` when ``expr`` is ``var``, ``var + c``, ``c + var`` or ``var - c`` (``c`` an int literal)."""
    if var is None:
        return None
    if isinstance(expr, cst.Name):
        return 0 if expr.value == var else None
    if isinstance(expr, cst.BinaryOperation):
        left, right = expr.left, expr.right
        if isinstance(expr.operator, cst.Add):
            if isinstance(left, cst.Name) and left.value == var and _int_value(right) is not None:
                return _int_value(right)
            if isinstance(right, cst.Name) and right.value == var and _int_value(left) is not None:
                return _int_value(left)
        if isinstance(expr.operator, cst.Subtract):
            if isinstance(left, cst.Name) and left.value == var and _int_value(right) is not None:
                return -_int_value(right)
    return None


def _rebinds(function: cst.FunctionDef, name: str) -> bool:
    """Whether the body of ``function`` binds ``name`` again (a parameter no longer what it was)."""
    return bool(
        scopes.stores(function.body, name)
        or scopes.own_nodes(
            function, lambda n: isinstance(n, cst.Assign) and any(scopes.names(t.target, name) for t in n.targets)
        )
    )


def _identifier(text: str) -> str:
    """``text`` as a piece of a Python name: ``energy`` for ``"energy"``, ``x_1`` for ``"x-1"``."""
    cleaned = "".join(c if c.isalnum() or c == "_" else "_" for c in text).strip("_")
    return cleaned or "entry"


def _all_params(function: cst.FunctionDef) -> list[cst.Param]:
    params = function.params
    return [*params.posonly_params, *params.params, *params.kwonly_params]


def _string_values(node) -> list[str]:
    if isinstance(node, cst.SimpleString):
        return [node.evaluated_value]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [e.value.evaluated_value for e in node.elements if isinstance(e.value, cst.SimpleString)]
    return []


def _int_values(node) -> list[int]:
    if _int_value(node) is not None:
        return [_int_value(node)]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [v for v in (_int_value(e.value) for e in node.elements) if v is not None]
    return []
