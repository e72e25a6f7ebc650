"""The loop model: what one ``lax`` loop call computes, as facts the AT2xx rules ask about.

Built once per loop call. The body is resolved wherever it comes from (a ``def``, a ``lambda``,
a ``functools.partial``, a method, a nested ``def``; a name defined twice resolves to the
binding that reaches the call). Then the body is evaluated symbolically: each carry output
becomes a small dataflow expression of the carry inputs, the loop index and the scanned
element, following local assignments, tuple packing and unpacking, subscripts and attributes
of the carry, NamedTuple/dataclass construction and ``_replace``/``replace``, same-module
helpers (inlined a few levels), ``tree_map`` over pytrees of buffers, and ``lax.cond``/
``jnp.where`` or a static ``if`` whose branches write the same slot.

So a rule asks "does carry output ``p`` leave as a write into carry input ``p``, at which
index?" and gets the same answer however the program spells it: the write in the ``return``,
bound to a new name, through ``state.buf``, ``state[2]`` or ``state._replace(buf=...)``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import partial

import libcst as cst

from autota.source import scopes, vocabulary
from autota.source.rules.loop_buffers.syntax import (
    block_of_rows,
    declared_fields,
    identity_test,
    int_value,
    is_bool_literal,
    is_full_slice,
    is_none,
    index_elements,
    ordered_arguments,
    reads_fixed_rows,
    reads_part,
    reads_slot,
    several_slots,
)

INLINE_DEPTH = 3
"""How many levels of same-module helper calls are inlined."""


# -- values ---------------------------------------------------------------------------------
@dataclass(eq=False)
class Value:
    """A symbolic value computed by the body."""


@dataclass(eq=False)
class Carry(Value):
    """The carry input at ``path`` (``()``: the whole carry; ``(2,)``; ``(".buf",)``)."""

    path: tuple


@dataclass(eq=False)
class Index(Value):
    """The loop index (``fori_loop``) or the scanned element (``scan``), plus ``offset``; with
    ``symbolic``, plus a value the step does not change too (``l**2 + l + m`` in a loop over
    ``m``); ``reverse``: that value minus the index (``T - 1 - j``), one slot a step counting down.
    Only messages read the last two."""

    offset: int = 0
    element: bool = False
    symbolic: bool = False
    reverse: bool = False
    clamped: bool = False
    """Held inside bounds (``jnp.clip(i, 0, n - 1)``): one slot a step until the bound holds it.
    Only the judgment of the write reads it; arithmetic on it is not followed."""


@dataclass(eq=False)
class Counted(Value):
    """A carry input plus an int constant: ``t + 1`` for a carried ``t``; with ``symbolic``,
    plus a value the step does not change too (``nh + t + 1``, ``nh`` bound around the body)."""

    carry: Carry
    offset: int
    symbolic: bool = False
    clamped: bool = False
    """Held inside bounds, as :attr:`Index.clamped`."""


@dataclass(eq=False)
class Const(Value):
    value: int


@dataclass(eq=False)
class Key(Value):
    """A string literal, as a dict carry's key: ``"h"`` passed to a helper that writes
    ``log[key]`` writes the entry ``"h"``."""

    entry: str


@dataclass(eq=False)
class Pack(Value):
    """A tuple or list."""

    items: list


@dataclass(eq=False)
class Record(Value):
    """A NamedTuple or dataclass: ``fields`` set explicitly, the rest taken from ``base``."""

    fields: dict
    base: Value | None = None


@dataclass(eq=False)
class Written(Value):
    """``base`` with one slot set: ``base.at[index].set(row)`` and the ``dynamic_update_*`` forms."""

    base: Value
    index: Value
    index_node: cst.BaseExpression | None
    call: cst.Call
    form: str
    """``at``, ``dus``, ``cond`` (both branches of a ``lax.cond``/``where`` write the slot),
    ``some-steps`` (one branch leaves the buffer as it was), ``flag`` (under a Python ``if``,
    which the trace decides once: written every step or never), ``tree_map``."""
    row: cst.BaseExpression | None = None
    method: str = "set"
    """``set``, or ``add`` (``base.at[index].add(row)``), which reads the slot's old value too."""
    axis: int | None = None
    """The axis the slot is on, where the index shows it (``base.at[:, i]``: 1)."""


@dataclass(eq=False)
class Function(Value):
    """A function value: a ``def`` or ``lambda`` with the leading arguments already bound."""

    node: cst.FunctionDef | cst.Lambda
    bound: list = field(default_factory=list)
    keywords: dict = field(default_factory=dict)
    """The keyword arguments a ``partial`` binds."""
    closure: dict | None = None
    """The body's names where a nested ``def`` or ``lambda`` was made."""


@dataclass(eq=False)
class Opaque(Value):
    """Anything else."""

    node: cst.CSTNode | None = None


@dataclass(eq=False)
class Either(Value):
    """One of ``options``, chosen by a Python condition (``(out, None) if force_scan else out``)
    that the model cannot evaluate; the loop picks the one its carry's shape admits."""

    options: list


OPAQUE = Opaque()


# -- the model ------------------------------------------------------------------------------
@dataclass
class BufferWrite:
    """A carry output that leaves the loop as a one-slot write into the same carry input."""

    path: tuple
    write: Written
    label: str
    """How a message names the buffer: ``buf``, ``state.buf``, ``carry[2]``."""
    index: str
    """``loop-index`` (``+ offset``), ``element`` (the scanned element), ``reverse`` (a value
    minus the loop index), ``counter`` (a carried value stepped by one), ``fixed`` (a constant
    slot) or ``data`` (anything else)."""
    offset: int = 0
    read: cst.CSTNode | None = None
    """Where the body reads the buffer other than to write it, if it does."""
    whole_read: cst.CSTNode | None = None
    """Where the body reads more of the buffer than a slot or a band, if it does."""
    maybe_read: cst.CSTNode | None = None
    """Where the body hands a structure holding the buffer to code the model does not follow."""
    old_slot_read: cst.CSTNode | None = None
    """Where the body reads the written slot of the buffer as it came in (``x[i]`` before
    ``x.at[i].set(...)``), if it does."""
    old_whole_read: cst.CSTNode | None = None
    """Where the body reads more than a slot or a band of the buffer as it came in (``g(y)``
    before ``y.at[i].set(...)``): the written slot's old value among the rest."""
    slot_reads: bool = False
    """Whether every read takes one slot along the written axis (``buf[t - 1]``): ``grad`` keeps
    those rows, not the buffer (AT201, not AT203)."""


@dataclass
class LoopModel:
    kind: str
    call: cst.Call
    body: Function | None
    problem: str | None = None
    """Why the body could not be evaluated, if it could not."""
    outputs: list = field(default_factory=list)
    """``(path, value)`` for each carry output, leaves only."""
    writes: list = field(default_factory=list)
    """The :class:`BufferWrite` s."""


class _GiveUp(Exception):
    pass


class LoopModeler:
    """Builds :class:`LoopModel` s; ``rule`` answers name resolution and source positions."""

    def __init__(self, rule) -> None:
        self.rule = rule
        self.semantics = rule.semantics

    # -- resolving callables ---------------------------------------------------------------
    def callable(self, expr: cst.BaseExpression, depth: int = 0) -> Function | None:
        """The function ``expr`` denotes, with the arguments a ``partial`` or method binds."""
        if depth > 4:
            return None
        if isinstance(expr, cst.Lambda):
            return Function(expr)
        if isinstance(expr, cst.Call):
            if self.rule.matches(expr.func, vocabulary.PARTIAL) and expr.args and not expr.args[0].star:
                inner = self.callable(expr.args[0].value, depth + 1)
                rest = expr.args[1:]
                if inner is None or any(a.star for a in rest):
                    return None
                positional = [a for a in rest if a.keyword is None]
                keywords = {a.keyword.value: OPAQUE for a in rest if a.keyword is not None}
                return Function(inner.node, inner.bound + [OPAQUE] * len(positional), {**inner.keywords, **keywords})
            if self.rule.matches(expr.func, vocabulary.REMATS) and len(expr.args) == 1:
                return self.callable(expr.args[0].value, depth + 1)
            return self._made_by(expr)
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
            # `self.step`, or `Sim.step` on a class of this module (no instance: a plain def takes the loop's arguments)
            on_self = expr.value.value == "self"
            cls = next((a for a in self.rule.ancestors(expr) if isinstance(a, cst.ClassDef)), None) if on_self else (
                self.semantics.binding(expr.value)
            )
            if not isinstance(cls, cst.ClassDef):
                return None
            methods = [
                s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == expr.attr.value
            ]
            if not methods and on_self:
                held = self._held_function(cls, expr.attr.value)
                return self.callable(held, depth + 1) if held is not None else self._held_module(cls, expr.attr.value)
            if len(methods) != 1:
                return None
            (method,) = methods
            kinds = {d.decorator.value for d in method.decorators if isinstance(d.decorator, cst.Name)}
            bound = "classmethod" in kinds or on_self and "staticmethod" not in kinds
            return Function(method, [OPAQUE] if bound else [])
        if isinstance(expr, cst.Name):
            binding = self.semantics.binding(expr)
            if isinstance(binding, cst.FunctionDef):
                return Function(binding)
            if isinstance(binding, cst.BaseExpression):
                return self.callable(binding, depth + 1)
        return None

    def _held_function(self, cls: cst.ClassDef, attribute: str) -> cst.BaseExpression | None:
        """The one value the methods of ``cls`` store in ``self.<attribute>``, where it is a function
        (``self._step = functools.partial(self._step_fun, scale=0.1)`` in ``__init__``, a lambda):
        the body a loop given ``self._step`` runs."""
        stored = [
            assign for assign in self.semantics.of_kind(cls, cst.Assign, cst.AugAssign, cst.AnnAssign)
            for target in (assign.targets if isinstance(assign, cst.Assign) else [assign])
            for node in [target.target]
            if isinstance(node, cst.Attribute) and node.attr.value == attribute and isinstance(node.value, cst.Name)
            and node.value.value == "self"
        ]
        if len(stored) != 1 or not isinstance(stored[0], cst.Assign) or len(stored[0].targets) != 1:
            return None
        value = stored[0].value
        if isinstance(value, cst.Lambda) or isinstance(value, cst.Call) and self.rule.matches(value.func, vocabulary.PARTIAL):
            return value
        return None

    def _held_module(self, cls: cst.ClassDef, attribute: str) -> Function | None:
        """``self.step(x)`` where a method of ``cls`` (a Flax ``setup``) sets ``self.step =
        Step(...)``, one class of this module (:meth:`TracedFunctions.held_class`): that object's
        ``__call__``, its ``self`` bound."""
        held = self.rule.traced.held_class(cls, "self", attribute)
        calls = [s for s in held.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__call__"] if (
            held is not None
        ) else []
        return Function(calls[0], [OPAQUE]) if len(calls) == 1 else None

    def _unwrapped(self, value: cst.BaseExpression | None) -> cst.BaseExpression | None:
        """``step`` for ``jax.checkpoint(step)`` (or ``remat``): the same function, recomputed."""
        if isinstance(value, cst.Call) and len(value.args) == 1 and not value.args[0].keyword and self.rule.matches(
            value.func, vocabulary.REMATS
        ):
            return value.args[0].value
        return value

    def _made_by(self, call: cst.Call) -> Function | None:
        """The function a factory of this module returns (``make_body(xs)`` whose every ``return``
        gives its nested ``def body`` or one ``lambda``, also through ``jax.checkpoint``); what the
        body closes over in the factory is data to the model."""
        factory = self.semantics.binding(call.func) if isinstance(call.func, cst.Name) else None
        if not isinstance(factory, cst.FunctionDef) or factory.asynchronous:
            return None
        made = {
            id(m): m for v in map(self._unwrapped, self.returned(factory))
            for m in [self.semantics.binding(v) if isinstance(v, cst.Name) else v]
        }
        (function,) = made.values() if len(made) == 1 else (None,)
        if isinstance(function, cst.Lambda) or isinstance(function, cst.FunctionDef) and self.semantics.within(function, factory):
            return Function(function)
        return None

    # -- the initial carry ---------------------------------------------------------------
    def initial(self, init: cst.BaseExpression, path: tuple, depth: int = 0) -> cst.BaseExpression | None:
        """What the initial carry ``init`` holds at ``path``, where the source shows it: tuple and
        list positions, fields given by keyword to a constructor, entries of a dict display, names followed to the value that
        reaches them (``None`` elsewhere)."""
        if isinstance(init, cst.Name) and path and self.semantics.reaching_value(init) is None:
            # a branch that runs the body once before the loop (`state = body_fn(state)`) keeps the path's value
            reaching = self.semantics.reaching_value(init, partial(self._self_updates, init.value, path))
            if reaching is not None:
                return self.initial(reaching[1], reaching[0] + path, depth + 1)
        if isinstance(init, cst.Name) and path and isinstance(path[0], str) and path[0][:1] in (".", "["):
            # a field or entry set on the carried object before the loop: `val.ids = jnp.zeros(..., jnp.int32)`,
            # `state["mask"] = jnp.zeros(n, bool)`
            given = self.semantics.member_set_before(init, path[0])
            if given is not None:
                return self.initial(given, path[1:], depth + 1)
        value = self._value_of(init, depth)
        for k, step in enumerate(path):
            if isinstance(value, cst.Call) and isinstance(self.semantics.binding(value.func) if isinstance(value.func, cst.Name) else None, cst.FunctionDef):
                return self._helper_result(value, path[k:], depth + 1)  # `state = body_fn(state)`
            if isinstance(step, str) and step.startswith(".") and isinstance(value, cst.Call):
                # a field of a NamedTuple or dataclass carry built by its constructor: `Loop(tokens=t, ...)`,
                # or by position in the order the class of this file declares its fields: `State(0, seq)`
                given = next((a.value for a in value.args if a.keyword is not None and a.keyword.value == step[1:]), None)
                if given is None:
                    given = self._positional_field(value, step[1:])
                if given is None:
                    return None
                value = self._value_of(given, depth)
                continue
            if isinstance(step, str) and step.startswith("[") and isinstance(value, cst.Dict):
                # an entry of a dict carry built by a display: `{"idx": 0, "valid": valid}`
                if any(not isinstance(e, cst.DictElement) or not isinstance(e.key, cst.SimpleString) for e in value.elements):
                    return None
                given = [e.value for e in value.elements if _entry(e.key.evaluated_value) == step]
                if len(given) != 1:
                    return None
                value = self._value_of(given[0], depth)
                continue
            if not isinstance(step, int) or not isinstance(value, (cst.Tuple, cst.List)):
                return None
            elements = value.elements
            if step >= len(elements) or any(isinstance(e, cst.StarredElement) for e in elements):
                return None
            value = self._value_of(elements[step].value, depth)
        return value

    def _positional_field(self, made: cst.Call, field_name: str) -> cst.BaseExpression | None:
        """The argument that ``made``, a call of a class of this file, passes by position to the
        field ``field_name``: the class's annotated fields (``seq: jax.Array``) in their order."""
        cls = self.semantics.binding(made.func) if isinstance(made.func, cst.Name) else None
        if not isinstance(cls, cst.ClassDef) or any(a.star for a in made.args):
            return None
        fields = declared_fields(cls)
        positional = [a.value for a in made.args if a.keyword is None]
        k = fields.index(field_name) if field_name in fields else None
        return positional[k] if k is not None and k < len(positional) else None

    def record_field_values(self, field_name: str) -> list[cst.BaseExpression]:
        """What each construction in the file of a record class of the file that declares the
        field ``field_name`` (``owner: jax.Array`` in a ``struct.dataclass`` or ``NamedTuple``)
        gives that field, by keyword or position, followed to the value that reaches it; empty
        where a construction passes it otherwise (a star), leaves it out, or there is none. A
        loop keeps its carry's dtypes, so a field each construction makes an integer array
        stays one in a step that receives the record as a parameter (its caller's value unseen:
        a fact for reporting, not for a fix)."""
        classes = [c for c in self.semantics.of_kind(self.semantics.module, cst.ClassDef) if field_name in declared_fields(c)]
        values = []
        for cls in classes:
            for use in self.semantics.names_in(self.semantics.module, cls.name.value):
                made = self.semantics.parents.get(use)
                if not (isinstance(made, cst.Call) and made.func is use) or self.semantics.binding(use) is not cls:
                    continue
                given = next((a.value for a in made.args if a.keyword is not None and a.keyword.value == field_name), None)
                given = given if given is not None else self._positional_field(made, field_name)
                value = self._value_of(given) if given is not None else None
                if value is None:
                    return []
                values.append(value)
        return values

    def _value_of(self, expr: cst.BaseExpression, depth: int = 0) -> cst.BaseExpression | None:
        """``expr``, or for a name the value that reaches it: through assignments and unpacking,
        through a loop's result, whose carry has the dtypes of the loop's initial carry (JAX
        refuses a body that changes them), and through ``x.at[i].set(v)``, an array like ``x``."""
        if depth > 20:
            return None
        updated = self.updated_array(expr)
        if updated is not None:
            return self._value_of(updated, depth + 1)  # `x.at[i].set(v)` has the dtype of `x`
        if not isinstance(expr, cst.Name):
            return expr
        reaching = self.semantics.reaching_value(expr)  # a dtype fact must hold on every path to the loop
        if reaching is None:
            return None
        path, value = reaching
        if not path:
            return self._value_of(value, depth + 1)
        if isinstance(value, (cst.Tuple, cst.List)):
            return self.initial(value, path, depth + 1)
        loop = self.rule.matches(value.func, vocabulary.LOOPS) if isinstance(value, cst.Call) else None
        kind = vocabulary.LOOPS.get(loop)
        if loop is None and isinstance(value, cst.Call):
            return self._helper_result(value, path, depth + 1)
        if kind not in ("fori", "scan", "while") or kind == "scan" and path[0] != 0:
            return None
        args = self.rule._arguments(value, kind)
        init = args.get(vocabulary.INIT_ARG[kind]) if args is not None else None
        return self.initial(init.value, path[1:] if kind == "scan" else path, depth + 1) if init is not None else None

    def updated_array(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        """The array that ``expr`` updates, keeping its dtype: ``x`` of ``x.at[i].set(v)`` or of
        ``lax.dynamic_update_slice(x, ...)``."""
        updated = scopes.at_call(expr)
        if updated is not None and updated[1] in vocabulary.UPDATE_METHODS:
            return updated[0]
        if isinstance(expr, cst.Call) and self.rule.matches(expr.func, vocabulary.DYNAMIC_WRITES):
            first = expr.args[0] if expr.args else None
            return first.value if first is not None and first.keyword is None and not first.star else None
        return None

    def _helper_result(self, call: cst.Call, path: tuple, depth: int) -> cst.BaseExpression | None:
        """The value that reaches ``path`` of what a helper of this file returns (``obs, idx =
        write(obs, 0, header)``; ``state = body_fn(state)`` read at ``.sequences``), where every
        ``return`` of its gives there the same parameter's value at one path, or an update of it
        (``lax.dynamic_update_slice(state.sequences, ...)`` through local names and record
        constructors), and the helper rebinds that parameter to nothing but its own updates and
        sets none of its fields: the argument given for it, at that path, whose dtype the result keeps."""
        kept = self._kept_argument(call, path, depth)
        return self.initial(kept[0], kept[1], depth + 1) if kept is not None else None

    def _kept_argument(self, call: cst.Call, path: tuple, depth: int) -> tuple[cst.BaseExpression, tuple] | None:
        """For :meth:`_helper_result`: the argument of ``call`` and the path in it whose value
        (or an update of it) the helper returns at ``path``."""
        function = self.semantics.binding(call.func) if isinstance(call.func, cst.Name) else None
        if not isinstance(function, cst.FunctionDef) or any(a.star for a in call.args) or depth > 20:
            return None
        if any(not self.rule.is_jit(d.decorator) for d in function.decorators):
            return None  # a decorator may return anything; `jit` returns what the function does
        kept = set()
        for value in self.returned(function):
            kept.add(self._kept_parameter(function, value, path, depth) if value is not None else None)
        if len(kept) != 1 or None in kept:
            return None
        name, inner = kept.pop()
        params = [p.name.value for p in function.params.params]
        index = params.index(name)
        given = [a.value for a in call.args if a.keyword is not None and a.keyword.value == name]
        if not given and index < len(call.args) and all(a.keyword is None for a in call.args[: index + 1]):
            given = [call.args[index].value]
        if len(given) != 1 or self._rebound_beyond_updates(function, name) or self._fields_set(function.body, name):
            return None
        return given[0], inner

    def _self_updates(self, name: str, path: tuple, statement: cst.CSTNode, bindings: list) -> bool:
        """Whether every binding of ``name`` in ``statement`` is ``name = helper(name, ...)`` whose
        result keeps the value at ``path`` of the ``name`` it is given (``if first_token_given:
        state = body_fn(state)``): the value there is the one from before the statement."""
        if self._fields_set(statement, name):
            return False
        for bound in bindings:
            role, holder = scopes.binding_role(self.semantics.parents, bound)
            if role != "plain" or not isinstance(holder.value, cst.Call):
                return False
            kept = self._kept_argument(holder.value, path, 0)
            if kept is None or not (isinstance(kept[0], cst.Name) and kept[0].value == name and kept[1] == path):
                return False
        return True

    def _kept_parameter(self, function: cst.FunctionDef, expr: cst.BaseExpression, path: tuple, depth: int):
        """``(parameter, path)`` where the value at ``path`` of ``expr``, in ``function``, is that
        parameter's value at that path or an update of it; ``None`` where the source does not show one."""
        if depth > 20:
            return None
        while not path and (inner := self.updated_array(expr)) is not None:
            expr = inner  # `x.at[i].set(v)` is an array like `x`
        if isinstance(expr, cst.Name):
            if expr.value in [p.name.value for p in function.params.params] and (
                self.semantics.binding_scope(expr) is function
            ):
                return expr.value, path
            reaching = self.semantics.reaching_value(expr)
            if reaching is None or self.semantics.enclosing_scope(expr) is not function:
                return None
            return self._kept_parameter(function, reaching[1], reaching[0] + path, depth + 1)
        if isinstance(expr, cst.Attribute):  # `state.sequences`
            return self._kept_parameter(function, expr.value, (f".{expr.attr.value}", *path), depth + 1)
        if not path:
            return None
        step, rest = path[0], path[1:]
        if isinstance(expr, cst.Tuple) and isinstance(step, int):
            if step >= len(expr.elements) or any(isinstance(e, cst.StarredElement) for e in expr.elements):
                return None
            return self._kept_parameter(function, expr.elements[step].value, rest, depth + 1)
        if isinstance(expr, cst.Call) and isinstance(step, str) and step.startswith("."):
            # a record made by its constructor: `State(cur_len=n + 1, sequences=next_sequences)`
            given = next((a.value for a in expr.args if a.keyword is not None and a.keyword.value == step[1:]), None)
            if given is None:
                given = self._positional_field(expr, step[1:])
            return self._kept_parameter(function, given, rest, depth + 1) if given is not None else None
        return None

    def _fields_set(self, node: cst.CSTNode, name: str) -> bool:
        """Whether ``node`` (a function, a statement) assigns to a field or item of ``name`` (``state.x = v``)."""
        def sets(node: cst.CSTNode) -> bool:
            targets = (
                [t.target for t in node.targets] if isinstance(node, cst.Assign)
                else [node.target] if isinstance(node, (cst.AugAssign, cst.AnnAssign)) else []
            )
            for target in targets:
                for part in self.semantics.of_kind(target, cst.Attribute, cst.Subscript):
                    root = part.value
                    while isinstance(root, (cst.Attribute, cst.Subscript)):
                        root = root.value
                    if isinstance(root, cst.Name) and root.value == name:
                        return True
            return False
        return bool(self.semantics.find(node, sets))

    def returned(self, function: cst.FunctionDef, position: int | None = None) -> list[cst.BaseExpression | None]:
        """What each ``return`` (or ``yield``) of ``function`` gives: the value, or with
        ``position`` the element there of a tuple display with no ``*`` element (``None`` where one
        gives no such value)."""
        returns = self.semantics.own_of_kind(function, cst.Return, cst.Yield)
        given = [r.value if isinstance(r, cst.Return) else None for r in returns]
        if position is None:
            return given
        return [
            v.elements[position].value if isinstance(v, cst.Tuple) and position < len(v.elements) and not any(
                isinstance(e, cst.StarredElement) for e in v.elements
            ) else None
            for v in given
        ]

    def _rebound_beyond_updates(self, function: cst.FunctionDef, name: str) -> bool:
        """Whether ``function`` binds its parameter ``name`` to anything but an update of itself
        (``obs = obs.at[i].set(v)`` keeps the array's dtype; a nested scope's binding counts too)."""
        for node in self.semantics.names_in(function.body, name):
            role, holder = scopes.binding_role(self.semantics.parents, node)
            if role is None:
                continue
            value = holder.value if role == "plain" else None
            while value is not None and (inner := self.updated_array(value)) is not None:
                value = inner
            if not (isinstance(value, cst.Name) and value.value == name):
                return True
        return False

    def exact_dtype(self, expr: cst.BaseExpression | None) -> bool:
        """Whether ``expr`` visibly makes an integer or boolean array: a ``jnp`` constructor with
        such a ``dtype`` (or ``lax.empty``'s), ``jnp.full`` of an int or bool literal, ``jnp.arange`` of int literals,
        or a cast to such a dtype (``x.astype(jnp.uint32)``, ``jnp.int32(x)``,
        ``jnp.array(x, jnp.int32)``)."""
        if not isinstance(expr, cst.Call) or any(a.star for a in expr.args):
            return False
        exact = (vocabulary.EXACT_DTYPES, vocabulary.EXACT_DTYPE_STRINGS)
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "astype" and len(expr.args) == 1:
            return self.rule.dtype_in(expr.args[0].value, *exact)
        if self.rule.matches(expr.func, vocabulary.EXACT_DTYPES) is not None:
            return True  # `jnp.int32(x)`, `int(x)`
        if self.rule.matches(expr.func, {f"{vocabulary.LAX}.empty"}) is not None:  # `lax.empty(shape, dtype)`
            dtype = _second_or_dtype(expr)
            return dtype is not None and self.rule.dtype_in(dtype, *exact)
        if self.rule.matches(expr.func, {f"{vocabulary.JNP}.array", f"{vocabulary.JNP}.asarray"}):
            dtype = _second_or_dtype(expr)
            if dtype is not None:
                return self.rule.dtype_in(dtype, *exact)
            return len(expr.args) == 1 and expr.args[0].keyword is None and _exact_literal(expr.args[0].value)
        made = self.rule.construction(expr)
        if made is None:
            return False
        if made.dtype is not None:
            return self.rule.dtype_in(made.dtype, vocabulary.EXACT_DTYPES, vocabulary.EXACT_DTYPE_STRINGS)
        if made.name == "full" and len(made.positional) >= 2:
            fill = made.positional[1]
            return int_value(fill) is not None or isinstance(fill, cst.Name) and fill.value in ("True", "False")
        if made.name == "arange":
            return bool(made.positional) and not made.keywords and all(self.semantics.python_int(a) for a in made.positional)
        return False

    def strong_integer(self, expr: cst.BaseExpression | None) -> bool:
        """Whether ``expr`` visibly makes a strongly typed integer or boolean JAX array: a cast
        (``x.astype(jnp.uint32)``, ``jnp.int32(x)``), a constructor with such a ``dtype``, or
        ``jnp.arange`` of ints. Not a Python int or a weakly typed array (``jnp.array(0)``,
        ``jnp.full(n, 1)``): carried through a loop, JAX promotes those to what the body makes
        of them, a float included."""
        value = self._value_of(expr) if expr is not None else None
        if not isinstance(value, cst.Call) or any(a.star for a in value.args):
            return False
        if self.rule.matches(value.func, {"builtins.int", "builtins.bool"}):
            return False
        made = self.rule.construction(value)
        if made is not None and made.dtype is None and made.name != "arange":
            return False  # `jnp.full(n, 1)`: weakly typed
        if self.rule.matches(value.func, {f"{vocabulary.JNP}.array", f"{vocabulary.JNP}.asarray"}) and len(value.args) == 1:
            return False  # `jnp.array(0)`: weakly typed
        return self.exact_dtype(value)

    def strong_inexact(self, expr: cst.BaseExpression | None) -> bool:
        """Whether ``expr`` visibly makes a strongly typed floating or complex array: ``jnp.zeros``,
        ``ones`` or ``empty`` with no dtype (the default float) or an inexact one, or ``full`` and
        the ``_like`` constructors with an inexact ``dtype``. A ``full`` without one takes the
        fill's type, weakly for a Python number."""
        made = self.rule.construction(self._value_of(expr) if expr is not None else None)
        if made is None or made.name == "arange":
            return False
        if made.dtype is None:
            return made.name in ("zeros", "ones", "empty") and len(made.positional) == 1 and set(made.keywords) <= {"shape"}
        return self.rule.dtype_in(made.dtype, vocabulary.INEXACT_DTYPES, vocabulary.INEXACT_DTYPE_STRINGS)

    def without_cotangent(self, init: cst.BaseExpression | None) -> bool:
        """Whether every value of the initial carry is visibly an integer or boolean array, a PRNG
        key, or a Python int or bool: such a carry has no cotangent, so under ``grad`` the loop
        saves and carries nothing for it, and a buffer in it costs what it costs forward (in place)."""
        if init is None:
            return False
        if is_bool_literal(init):
            return True
        value = self._value_of(init)
        if isinstance(value, (cst.Tuple, cst.List)):
            return bool(value.elements) and all(
                not isinstance(e, cst.StarredElement) and self.without_cotangent(e.value) for e in value.elements
            )
        return value is not None and (
            int_value(value) is not None or self.exact_dtype(value)
            or isinstance(value, cst.Call) and self.rule.matches(value.func, vocabulary.KEY_FUNCTIONS) is not None
        )

    def exact_input(self, xs: cst.Arg | None) -> bool:
        """Whether a ``scan``'s ``xs`` visibly holds no floats: absent or ``None``, PRNG keys,
        an integer or boolean array, or a ``jnp.arange`` with no float in its arguments. With a
        carry :meth:`without_cotangent`, nothing differentiable then enters the loop but what
        the body closes over."""
        if xs is None or is_none(xs.value):
            return True
        value = self._value_of(xs.value)
        if not isinstance(value, cst.Call) or any(a.star for a in value.args):
            return False
        if self.rule.matches(value.func, vocabulary.KEY_FUNCTIONS) is not None or self.exact_dtype(value):
            return True
        return self.rule.matches(value.func, {f"{vocabulary.JNP}.arange"}) is not None and not any(
            a.keyword is not None or self.semantics.of_kind(a.value, cst.Float, cst.Imaginary)
            or self.semantics.find(a.value, lambda n: isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.Divide))
            for a in value.args
        )

    def _scanned(self, xs: cst.Arg | None) -> Value:
        """What a ``scan`` body gets each step: the scanned element, which moves one slot a step
        where ``xs`` is ``jnp.arange`` (the rule asks of ``xs`` itself); for ``xs`` written out
        as a tuple or list (``(jnp.arange(T), data)``, or a name bound to one), its parts: the element of each
        ``jnp.arange``, data for the others."""
        value = self.semantics.plain_value(xs.value) if xs is not None else None
        if not isinstance(value, (cst.Tuple, cst.List)) or any(isinstance(e, cst.StarredElement) for e in value.elements):
            return Index(element=True)
        return Pack([Index(element=True) if self.moves_by_one(e.value) else OPAQUE for e in value.elements])

    def moves_by_one(self, expr: cst.BaseExpression | None, depth: int = 0) -> bool:
        """Whether ``expr``, scanned as ``xs``, hands the body one slot a step: ``jnp.arange(...)``,
        one moved by a static int (``start + jnp.arange(n)``, ``start`` a literal, a length or a
        shape's size), or a name bound to one of those."""
        if depth > 3:
            return False
        if isinstance(expr, cst.Name):
            reaching = self.semantics.reaching_value(expr)
            return reaching is not None and reaching[0] == () and self.moves_by_one(reaching[1], depth + 1)
        if isinstance(expr, cst.Call):
            return self.rule.matches(expr.func, {f"{vocabulary.JNP}.arange"}) is not None
        if not (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract))):
            return False
        return self.moves_by_one(expr.left, depth + 1) and self.semantics.python_int(expr.right) or (
            isinstance(expr.operator, cst.Add) and self.semantics.python_int(expr.left) and self.moves_by_one(expr.right, depth + 1)
        )

    # -- the model -------------------------------------------------------------------------
    def build(
        self, call: cst.Call, kind: str, args: dict, module_first: bool = False, body: Function | None = None,
    ) -> LoopModel:
        """The model of one loop; ``module_first``: the body takes a Flax module before the loop's
        arguments (``nn.while_loop``'s ``body_fn(mdl, carry)``); ``body``: the body where the
        loop's argument is no function (the ``__call__`` of a class ``nn.scan`` scans)."""
        if body is None:  # (a given method's `self` is the module already)
            body = self.callable(args[vocabulary.BODY_ARG[kind]].value)
            if body is not None and module_first:
                body = Function(body.node, [OPAQUE, *body.bound], body.keywords, body.closure)
        model = LoopModel(kind, call, body)
        if body is None:
            model.problem = "the body is not a function found in this module"
            return model
        inputs = {"fori": [Index(), Carry(())], "scan": [Carry(()), self._scanned(args.get("xs"))], "while": [Carry(())]}[kind]
        evaluation = _Evaluation(self)
        init = args[vocabulary.INIT_ARG[kind]].value if vocabulary.INIT_ARG[kind] in args else None
        evaluation.carry_sizes = _display_sizes(init, ()) if init is not None else {}
        try:
            result = evaluation.call(body, inputs, {}, 0)
        except _GiveUp as stop:
            model.problem = str(stop) or "the body does something the model does not follow"
            return model
        if isinstance(result, Either):  # the option whose shape fits the loop's carry
            init = args[vocabulary.INIT_ARG[kind]].value if vocabulary.INIT_ARG[kind] in args else None
            size = len(init.elements) if isinstance(init, (cst.Tuple, cst.List)) else None
            fits = [
                o for o in result.options
                if kind == "scan" and len(o.items) == 2 and (size is None or isinstance(o.items[0], Pack) and len(o.items[0].items) == size)
                or kind != "scan" and size is not None and len(o.items) == size
            ]
            result = fits[0] if len(fits) == 1 else OPAQUE
        if kind == "scan":
            if not (isinstance(result, Pack) and len(result.items) == 2):
                model.problem = "the body does not visibly return `(carry, y)`"
                return model
            result = result.items[0]
        model.outputs = list(_leaves(result, ()))
        params = [p.name.value for p in (*body.node.params.posonly_params, *body.node.params.params)]
        carry_at = len(body.bound) + (1 if kind == "fori" else 0)
        self._carry_name = params[carry_at] if carry_at < len(params) else "carry"
        for path, value in model.outputs:
            if isinstance(value, Written) and isinstance(value.base, Carry) and value.base.path == path:
                index, offset = self._classify(value.index, model.outputs)
                ours = [  # not a read on the other side of a Python `if` than the write (one side a trace)
                    (n, old) for p, n, old in evaluation.reads if len(p) >= len(path) and _overlap(p, path)
                    and not self.rule.apart(n, [value.call], body.node)
                ]
                reads = [
                    n for n, _ in ours
                    if not reads_slot(self.rule, n, value.index_node)
                    and not (isinstance(n, cst.Call) and self.rule.matches(n.func, vocabulary.INDEX_REDUCTIONS))
                ]
                whole = next((n for n in reads if not reads_part(self.rule, n)), None)
                maybe = next((n for p, n, _ in evaluation.reads if len(p) < len(path) and _overlap(p, path)), None)
                old_slot = value.call if value.method != "set" and index in ("fixed", "data") else next(
                    (n for n, old in ours if old and reads_slot(self.rule, n, value.index_node)), None
                )
                old_whole = next((n for n, old in ours if old and n in reads and not reads_part(self.rule, n)), None)
                slot_reads = bool(reads) and value.axis is not None and all(
                    reads_fixed_rows(self.rule, n, value.axis) for n in reads
                )
                model.writes.append(
                    BufferWrite(
                        path, value, self._label(value, path, body.node, init), index, offset, next(iter(reads), None), whole, maybe, old_slot,
                        old_whole, slot_reads,
                    )
                )
        return model

    def _classify(self, index: Value, outputs) -> tuple[str, int]:
        if isinstance(index, Index):
            return ("reverse" if index.reverse else "element" if index.element else "loop-index"), index.offset
        if isinstance(index, Const):
            return "fixed", index.value
        counter = index if isinstance(index, Counted) else Counted(index, 0) if isinstance(index, Carry) else None
        if counter is not None:
            stepped = dict(outputs).get(counter.carry.path) if counter.carry.path in dict(outputs) else None
            if isinstance(stepped, Counted) and stepped.carry.path == counter.carry.path and stepped.offset == 1 and not stepped.symbolic:
                return "counter", counter.offset
        return "data", 0

    def _label(self, write: Written, path: tuple, body: cst.CSTNode, init: cst.BaseExpression | None) -> str:
        """The buffer as the body writes it (``hist`` of ``hist.at[t].set(h)`` after ``h, t, hist =
        carry``, ``log["e"]``), where the body itself writes it; else as the initial carry's display
        names it (``Q`` of ``(Q, H, v)``, written by a helper the body hands ``*val``); else as the
        body's carry parameter reaches it: ``buf``, ``state[2]``, ``s.buf``."""
        receiver = None
        if write.form in ("at", "dus") and self.semantics.within(write.call, body):
            if write.form == "dus" and write.call.args:
                receiver = write.call.args[0].value
            elif isinstance(write.call.func, cst.Attribute) and isinstance(write.call.func.value, cst.Subscript):
                at = write.call.func.value.value
                receiver = at.value if isinstance(at, cst.Attribute) and at.attr.value == "at" else None
        if isinstance(receiver, (cst.Name, cst.Attribute, cst.Subscript)) and len(code := self.rule.code_of(receiver)) <= 40:
            return code
        given = display_item(init, path) if path else None
        if isinstance(given, cst.Name):
            return given.value
        return self._carry_name + "".join(f"[{p}]" if isinstance(p, int) else p for p in path)


def _leaves(value: Value, path: tuple):
    if isinstance(value, Pack):
        for k, item in enumerate(value.items):
            yield from _leaves(item, path + (k,))
    elif isinstance(value, Record):
        for name, item in value.fields.items():
            yield from _leaves(item, path + (_field(name),))
    else:
        yield path, value


def _overlap(a: tuple, b: tuple) -> bool:
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def _carries(value: Value, seen=None):
    """The carry inputs a value is built from."""
    if isinstance(value, Carry):
        yield value.path
    elif isinstance(value, Counted):
        yield value.carry.path
    elif isinstance(value, Pack):
        for item in value.items:
            yield from _carries(item)
    elif isinstance(value, Record):
        for item in value.fields.values():
            yield from _carries(item)
        if value.base is not None:
            yield from _carries(value.base)
    elif isinstance(value, Written):
        yield from _carries(value.base)
    elif isinstance(value, Function):
        for item in (*value.bound, *value.keywords.values()):
            yield from _carries(item)


class _Evaluation:
    """One symbolic run of a body: environments per inlined call, and the reads of the carry."""

    def __init__(self, modeler: LoopModeler) -> None:
        self.modeler = modeler
        self.rule = modeler.rule
        self.reads: list[tuple[tuple, cst.CSTNode, bool]] = []
        """``(carry path, node, old)``: ``old`` when the value read is the carry as it came in,
        not a write into it."""
        self.active: set[int] = set()
        self.carry_sizes: dict[tuple, int] = {}
        """The number of items at each path of the carry that the initial carry gives as a tuple or
        list display (``(Q, H, v)``: three at ``()``): a loop's carry keeps its structure, so
        ``*val`` spreads as many wherever the body reads it."""

    def read(self, value: Value, node: cst.CSTNode) -> None:
        for path in _carries(value):
            self.reads.append((path, node, not isinstance(value, Written)))

    # -- calls -----------------------------------------------------------------------------
    def call(self, function: Function, args: list, kwargs: dict, depth: int) -> Value:
        node = function.node
        if id(node) in self.active or depth > INLINE_DEPTH:
            raise _GiveUp("the body calls a helper recursively or too deeply")
        params = node.params
        # a helper's `*args` holds the positional arguments left over (`def map_tree(fn, tree,
        # *rest): return tree_map(fn, tree, *rest)`); the loop's own body must take them one by one
        extra = params.star_arg if isinstance(params.star_arg, cst.Param) and depth > 0 else None
        if isinstance(params.star_arg, cst.Param) and extra is None or params.star_kwarg is not None:  # a bare `*` is fine
            raise _GiveUp("the body takes `*args` or `**kwargs`")
        names = [p.name.value for p in (*params.posonly_params, *params.params)]
        values = [*function.bound, *args]
        kwargs = {**function.keywords, **kwargs}
        if len(values) > len(names) and extra is None:
            raise _GiveUp("the body does not take the loop's arguments one by one")
        env = {**(function.closure or {}), **dict(zip(names, values))}
        if extra is not None:
            env[extra.name.value] = Pack(values[len(names):])
        for p in (*params.posonly_params, *params.params, *params.kwonly_params):
            name = p.name.value
            if name in kwargs:
                env[name] = kwargs[name]
            elif name not in env:
                if p.default is None:
                    raise _GiveUp("the body does not take the loop's arguments one by one")
                env[name] = OPAQUE
        self.active.add(id(node))
        try:
            if isinstance(node, cst.Lambda):
                return self.expr(node.body, env, depth)
            returned = self.block(node.body.body, env, depth)
            if returned is None:
                raise _GiveUp("the body does not end in a `return`")
            return returned
        finally:
            self.active.discard(id(node))

    # -- statements ------------------------------------------------------------------------
    def block(self, statements, env: dict, depth: int) -> Value | None:
        """Run ``statements`` (a block's lines, or the small statements of a one-line suite:
        ``def put(b, v, i): return b.at[i].set(v)``); the returned value, or ``None`` if they
        fall through."""
        for place, statement in enumerate(statements):
            smalls = [statement] if isinstance(statement, cst.BaseSmallStatement) else getattr(statement, "body", None)
            if isinstance(statement, (cst.SimpleStatementLine, cst.BaseSmallStatement)):
                for small in smalls:
                    if isinstance(small, cst.Return):
                        return self.expr(small.value, env, depth) if small.value is not None else Opaque(small)
                    self.small(small, env, depth)
            elif isinstance(statement, cst.FunctionDef):
                env[statement.name.value] = Function(statement, closure=env)
            elif isinstance(statement, cst.If):
                returned, falling = self.branches(statement, env, depth)
                if falling is not None:  # one branch returns; the other runs on through the rest
                    rest = self.block(statements[place + 1 :], falling, depth)
                    if rest is None:
                        raise _GiveUp("the body returns from one branch of an `if` only")
                    return _merge(returned, rest, statement, static=True)
                if returned is not None:
                    return returned
            elif isinstance(statement, cst.With):
                for item in statement.items:
                    self.expr(item.item, env, depth)
                returned = self.block(statement.body.body, env, depth)
                if returned is not None:
                    return returned
            else:  # loops, try, match, classes: what they bind is not followed
                if self.modeler.semantics.of_kind(statement, cst.Return):
                    raise _GiveUp("the body returns from inside a loop or `try`")
                self.opaque_block(statement, env)
        return None

    def opaque_block(self, statement: cst.CSTNode, env: dict) -> None:
        for name in self.modeler.semantics.of_kind(statement, cst.Name):
            if name.value in env:
                role, _ = scopes.binding_role(self.modeler.semantics.parents, name)
                if role is None:
                    self.read(env[name.value], name)
                else:
                    env[name.value] = Opaque(statement)

    def branches(self, statement: cst.If, env: dict, depth: int) -> tuple[Value | None, dict | None]:
        """Run both branches of ``statement``: ``(the merged returned value, None)`` where both
        return, ``(None, None)`` where neither does (``env`` then holds the merged names), and
        ``(the value one branch returns, the other branch's names)`` where only one does."""
        self.read(self.expr(statement.test, env, depth), statement.test)
        left, right = dict(env), dict(env)
        returned_left = self.block(statement.body.body, left, depth)
        orelse = statement.orelse
        if isinstance(orelse, cst.If):
            returned_right, falling = self.branches(orelse, right, depth)
            if falling is not None:
                raise _GiveUp("the body returns from one branch of an `elif` only")
        elif orelse is not None:
            returned_right = self.block(orelse.body.body, right, depth)
        else:
            returned_right = None
        if returned_left is not None and returned_right is not None:
            return _merge(returned_left, returned_right, statement, static=True), None
        if returned_left is not None:
            return returned_left, right
        if returned_right is not None:
            return returned_right, left
        for name in {*left, *right}:
            a, b = left.get(name, OPAQUE), right.get(name, OPAQUE)
            env[name] = a if a is b else _merge(a, b, statement, static=True)
        return None, None

    def small(self, small: cst.BaseSmallStatement, env: dict, depth: int) -> None:
        if isinstance(small, cst.Assign):
            value = self.expr(small.value, env, depth)
            for target in small.targets:
                self.bind(target.target, value, env, depth)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                self.bind(small.target, self.expr(small.value, env, depth), env, depth)
        elif isinstance(small, cst.AugAssign):
            value = self.expr(small.value, env, depth)
            target = small.target
            if isinstance(target, cst.Name) or isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and (
                isinstance(env.get(target.value.value), (Carry, Record))
            ):  # `i += 1`, `val.step += 1` on a carried object
                old = env.get(target.value, OPAQUE) if isinstance(target, cst.Name) else self.expr(target, env, depth)
                step = value.value if isinstance(value, Const) else None
                if step is not None and isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign)):
                    self.bind(target, _shift(old, step if isinstance(small.operator, cst.AddAssign) else -step), env, depth)
                else:
                    self.read(old, small)
                    self.read(value, small)
                    self.bind(target, Opaque(small), env, depth)
            else:
                self.read(value, small)
                self.expr(small.target, env, depth)
        elif isinstance(small, cst.Expr):
            if not self.dict_update(small.value, env, depth):
                self.read(self.expr(small.value, env, depth), small)
        elif isinstance(small, cst.Assert):  # `assert hasattr(val, "logprobs")`: its test read, as an `if`'s
            self.read(self.expr(small.test, env, depth), small.test)
            if small.msg is not None:
                self.read(self.expr(small.msg, env, depth), small.msg)
        elif isinstance(small, (cst.Global, cst.Nonlocal)):
            raise _GiveUp("the body declares `global`/`nonlocal` names")
        elif isinstance(small, cst.Del):
            for name in self.modeler.semantics.of_kind(small.target, cst.Name):
                env.pop(name.value, None)
        else:
            self.opaque_block(small, env)

    def dict_update(self, call: cst.BaseExpression, env: dict, depth: int) -> bool:
        """``carry.update({"hist": ..., "p": p})`` (or ``update(hist=...)``) on a dict carry or a
        copy of one: it leaves with those entries replaced, as ``carry["hist"] = ...`` does."""
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "update"):
            return False
        owner = call.func.value
        if not isinstance(owner, cst.Name) or not isinstance(env.get(owner.value), (Carry, Record)):
            return False
        if any(a.star for a in call.args) or len([a for a in call.args if a.keyword is None]) > 1:
            return False
        entries = {}
        for arg in call.args:
            if arg.keyword is not None:
                entries[_entry(arg.keyword.value)] = self.expr(arg.value, env, depth)
            elif isinstance(arg.value, cst.Dict) and all(
                isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString) for e in arg.value.elements
            ):
                entries.update({_entry(e.key.evaluated_value): self.expr(e.value, env, depth) for e in arg.value.elements})
            else:
                return False
        env[owner.value] = _replaced(env[owner.value], entries)
        return True

    def bind(self, target: cst.BaseExpression, value: Value, env: dict, depth: int) -> None:
        if isinstance(target, cst.Name):
            env[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            if any(isinstance(e, cst.StarredElement) for e in elements):
                self.read(value, target)
                for name in self.modeler.semantics.of_kind(target, cst.Name):
                    env[name.value] = OPAQUE
                return
            for k, element in enumerate(elements):
                self.bind(element.value, _item(value, k, len(elements)), env, depth)
        elif (stored := self.stored_into(target, value, env, depth)) is not None:
            # `log["energy"] = ...`, `info["stats"]["ret"] = ...` on a dict carry, `val.logprobs = ...` on a
            # carried object: it leaves with that entry or field replaced
            env[stored[0]] = stored[1]
        else:  # `d["k"] = v`, `self.x = v`: the container is read and changed in place
            self.read(value, target)
            for name in self.modeler.semantics.of_kind(target, cst.Name):
                if name.value in env:
                    self.read(env[name.value], target)

    def branch(self, function: Function, operands: list, env: dict, node: cst.Call, depth: int) -> Value:
        """What a branch of ``lax.cond`` (``node``) returns given ``operands``; a branch run for its
        effects (``def _outfeed(): ...`` with no return) reads them and what it reads around it."""
        try:
            return self.call(function, operands, {}, depth + 1)
        except _GiveUp:
            for value in operands:
                self.read(value, node)
            self.opaque_block(function.node, dict(function.closure or env))
            return Opaque(node)

    def stored_into(self, target: cst.BaseExpression, value: Value, env: dict, depth: int) -> tuple[str, Value] | None:
        """Where ``target`` is an entry (``d["k"]``) or a field (``o.f``) of a carried dict or
        object, also nested (``info["stats"]["ret"]``): the carried name and its value with that
        entry replaced by ``value``; ``None`` elsewhere."""
        if isinstance(target, cst.Subscript):
            key = self.entry(target, env)
        elif isinstance(target, cst.Attribute):
            key = target.attr.value
        else:
            return None
        if key is None:
            return None
        container = target.value
        current = env.get(container.value) if isinstance(container, cst.Name) else (
            self.expr(container, env, depth) if isinstance(container, (cst.Subscript, cst.Attribute)) else None
        )
        if not isinstance(current, (Carry, Record)):
            return None
        if isinstance(container, cst.Name):
            return container.value, _replaced(current, {key: value})
        return self.stored_into(container, _replaced(current, {key: value}), env, depth)

    # -- expressions -----------------------------------------------------------------------
    def function(self, node: cst.BaseExpression, env: dict, depth: int) -> Value:
        """``node`` where a function is expected: a local value, else resolved in the module
        (asked only here, so that names which are not called cost no lookup). A ``partial`` made
        in the body binds the values its arguments have there (``partial(put, i=i)``)."""
        made = self.partial(node, env, depth)
        if made is not None:
            return made
        if isinstance(node, cst.Name) and node.value not in env or isinstance(node, cst.Attribute) and (
            isinstance(node.value, cst.Name) and node.value.value == "self" and "self" not in env
            or isinstance(self.expr(node.value, env, depth), Opaque)
        ) or isinstance(node, cst.Call):
            function = self.modeler.callable(node)
            if function is not None:
                return function
        return self.expr(node, env, depth)

    def partial(self, node: cst.BaseExpression, env: dict, depth: int) -> Function | None:
        """``partial(f, *args, **kwargs)`` of a function ``f`` the model resolves, with the values
        its arguments have here; ``None`` for anything else."""
        if not (isinstance(node, cst.Call) and self.rule.matches(node.func, vocabulary.PARTIAL) and node.args) or any(
            a.star for a in node.args
        ) or node.args[0].keyword is not None:
            return None
        inner = self.function(node.args[0].value, env, depth)
        if not isinstance(inner, Function):
            return None
        rest = node.args[1:]
        bound = [self.expr(a.value, env, depth) for a in rest if a.keyword is None]
        keywords = {a.keyword.value: self.expr(a.value, env, depth) for a in rest if a.keyword is not None}
        return Function(inner.node, inner.bound + bound, {**inner.keywords, **keywords}, inner.closure)

    def expr(self, node: cst.BaseExpression, env: dict, depth: int) -> Value:
        if isinstance(node, cst.Name):
            return env.get(node.value) or Opaque(node)
        if isinstance(node, cst.Integer):
            return Const(int(node.evaluated_value))
        if isinstance(node, cst.SimpleString):
            return Key(_entry(node.evaluated_value))
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            inner = self.expr(node.expression, env, depth)
            if isinstance(inner, Const):
                return Const(-inner.value)
            self.read(inner, node)
            return Opaque(node)
        if isinstance(node, (cst.Tuple, cst.List)):
            if any(isinstance(e, cst.StarredElement) for e in node.elements):
                for e in node.elements:
                    self.read(self.expr(e.value, env, depth), node)
                return Opaque(node)
            return Pack([self.expr(e.value, env, depth) for e in node.elements])
        if isinstance(node, cst.BinaryOperation):
            left, right = self.expr(node.left, env, depth), self.expr(node.right, env, depth)
            if isinstance(node.operator, (cst.Add, cst.Subtract)):
                sign = 1 if isinstance(node.operator, cst.Add) else -1
                if isinstance(right, Const):
                    if isinstance(left, Const):
                        return Const(left.value + sign * right.value)
                    shifted = _shift(left, sign * right.value)
                    if not isinstance(shifted, Opaque):
                        return shifted
                if isinstance(left, Const) and sign == 1:
                    shifted = _shift(right, left.value)
                    if not isinstance(shifted, Opaque):
                        return shifted
                stepped = self._index_plus_invariant(left, right, sign, env)
                if stepped is not None:
                    return stepped
            self.read(left, node)
            self.read(right, node)
            return Opaque(node)
        if isinstance(node, cst.Attribute):
            base = self.expr(node.value, env, depth)
            attr = node.attr.value
            if attr in scopes.STATIC_ATTRIBUTES:
                return Opaque(node)
            if isinstance(base, Record):
                if attr in base.fields:
                    return base.fields[attr]
                if base.base is not None:
                    return _attribute(base.base, attr)
            if isinstance(base, Carry):
                return Carry(base.path + (f".{attr}",))
            if isinstance(base, Opaque) and base.node is not None and isinstance(node.value, cst.Name):
                return Opaque(node)  # a module attribute: `jnp.zeros`
            self.read(base, node)
            return Opaque(node)
        if isinstance(node, cst.Subscript):
            return self.subscript(node, env, depth)
        if isinstance(node, cst.Call):
            return self.call_expr(node, env, depth)
        if isinstance(node, cst.IfExp):
            self.read(self.expr(node.test, env, depth), node.test)
            body, orelse = self.expr(node.body, env, depth), self.expr(node.orelse, env, depth)
            merged = _merge(body, orelse, node, static=True)
            if isinstance(merged, Opaque) and isinstance(body, Pack) and isinstance(orelse, Pack):
                return Either([body, orelse])
            if isinstance(merged, Opaque):  # `outs if flag else 0.0`: what either side reads is read
                self.read(body, node)
                self.read(orelse, node)
            return merged
        if isinstance(node, cst.Lambda):
            return Function(node, closure=env)
        if isinstance(node, cst.Dict):
            return self.dict_display(node, env, depth)
        if isinstance(node, cst.ListComp):
            mapped = self.mapped_list(node, env, depth)
            if mapped is not None:
                return mapped
        operands = _operands(node)
        if operands is not None:  # `c.step % 4 == 0` reads the field, not the whole carry
            for operand in operands:
                self.read(self.expr(operand, env, depth), node)
            return Opaque(node)
        return self.read_names(node, env)

    def read_names(self, node: cst.BaseExpression, env: dict) -> Opaque:
        """An expression the model does not follow: every value of ``env`` it names is read."""
        for name in self.modeler.semantics.of_kind(node, cst.Name):
            if name.value in env:
                self.read(env[name.value], name)
        return Opaque(node)

    def mapped_list(self, node: cst.ListComp, env: dict, depth: int) -> Value | None:
        """``[b.at[i].set(x) for b, x in zip(bufs, xs)]`` over a carried list of buffers: each
        element written as ``tree_map(lambda b, x: b.at[i].set(x), bufs, xs)`` writes it (one
        ``for``, no ``if``, the target a name or a tuple of names, ``zip`` of as many trees)."""
        comp = node.for_in
        if comp.inner_for_in is not None or comp.ifs or comp.asynchronous is not None:
            return None
        target, iterator = comp.target, comp.iter
        names = [target] if isinstance(target, cst.Name) else [e.value for e in target.elements] if isinstance(
            target, (cst.Tuple, cst.List)
        ) else []
        if not names or not all(isinstance(n, cst.Name) for n in names):
            return None
        if isinstance(target, cst.Name):
            sources = [iterator]
        elif isinstance(iterator, cst.Call) and self.rule.matches(iterator.func, {"builtins.zip"}) and not any(
            a.keyword or a.star for a in iterator.args
        ):
            sources = [a.value for a in iterator.args]
        else:
            return None
        if len(sources) != len(names):
            return None
        trees = [self.expr(source, env, depth) for source in sources]
        inner = {**env, **{n.value: tree for n, tree in zip(names, trees)}}
        result = self.expr(node.elt, inner, depth)
        if isinstance(result, Written) and isinstance(result.base, Carry):
            return Written(result.base, result.index, result.index_node, node, "tree_map", result.row, result.method, result.axis)
        for tree in trees:
            self.read(tree, node)
        return Opaque(node)

    def dict_display(self, node: cst.Dict, env: dict, depth: int) -> Value:
        """``{"buf": v, ...}``, or ``{**log, "buf": v}``: a record of its string-keyed entries, the
        rest taken from the one ``**`` in front; anything else is read whole."""
        elements = list(node.elements)
        base = None
        if elements and isinstance(elements[0], cst.StarredDictElement):
            base = self.expr(elements.pop(0).value, env, depth)
        if all(isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString) for e in elements):
            fields = {_entry(e.key.evaluated_value): self.expr(e.value, env, depth) for e in elements}
            if len(fields) == len(elements):
                return Record(fields, base)
        return self.read_names(node, env)

    def _index_plus_invariant(self, left: Value, right: Value, sign: int, env: dict) -> Index | Counted | None:
        """``index + c``, ``c + index`` or ``c - index`` where ``c`` reads nothing the step computes
        (a name from around the body, the shape of a carried array): the loop index, moved by a
        value fixed for the loop; so too a carried value plus ``c`` (``nh + t``, which a counter
        ``t`` moves one slot a step)."""
        if any(isinstance(v, (Index, Counted)) and v.clamped for v in (left, right)):
            return None
        fixed = partial(self._fixed, env=env)
        if isinstance(left, Index) and not left.reverse and fixed(right):
            return Index(left.offset, left.element, symbolic=True)
        if isinstance(right, Index) and not right.reverse and fixed(left):
            return Index(0, right.element, symbolic=True, reverse=sign < 0)
        for carried, other in ((left, right), (right, left) if sign > 0 else (None, None)):
            if isinstance(carried, (Carry, Counted)) and fixed(other):
                counted = carried if isinstance(carried, Counted) else Counted(carried, 0)
                return Counted(counted.carry, counted.offset, symbolic=True)
        return None

    def _fixed(self, value: Value, env: dict) -> bool:
        """Whether ``value`` reads nothing the step computes: a constant, or code that reads only
        names from around the body (``A.shape`` of a carried array is the same every step) and
        calls nothing."""
        if isinstance(value, Const):
            return True
        if not isinstance(value, Opaque) or value.node is None:
            return False
        semantics = self.modeler.semantics
        return not any(
            n.value in env and not scopes.static_read(semantics, n) for n in semantics.of_kind(value.node, cst.Name)
        ) and not semantics.of_kind(value.node, cst.Call)

    def clamp(self, node: cst.Call, place: int | None, env: dict, depth: int) -> Value | None:
        """``jnp.clip(it, 0, n - 1)`` (``place``: where the held value stands; ``None``: either of
        two, ``jnp.minimum``) of the loop index or a carried counter and bounds the step does not
        compute: that index, clamped; else ``None`` (read as any other call)."""
        if any(a.star or a.keyword is not None for a in node.args) or not 2 <= len(node.args) <= 3:
            return None
        values = [self.expr(a.value, env, depth) for a in node.args]
        for value in values:  # (a carried array held so, `jnp.minimum(buf, 1.0)`, is read whole)
            self.read(value, node)
        places = [place] if place is not None else [0, 1] if len(values) == 2 else []
        for k in places:
            held = values[k] if k < len(values) else None
            if isinstance(held, Carry):
                held = Counted(held, 0)
            if isinstance(held, (Index, Counted)) and not held.clamped and all(
                self._fixed(v, env) for j, v in enumerate(values) if j != k
            ):
                return dataclasses.replace(held, clamped=True)
        return None

    def entry(self, node: cst.Subscript, env: dict) -> str | None:
        """The key of ``d["key"]``, or of ``d[key]`` where ``key`` holds a string literal (a
        helper's parameter: ``record(log, "h", ...)``)."""
        entry = string_key(node)
        if entry is None and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            key = node.slice[0].slice.value
            value = env.get(key.value) if isinstance(key, cst.Name) else None
            entry = value.entry if isinstance(value, Key) else None
        return entry

    def subscript(self, node: cst.Subscript, env: dict, depth: int) -> Value:
        base = self.expr(node.value, env, depth)
        entry = self.entry(node, env)
        if entry is not None and isinstance(base, Record) and (entry in base.fields or base.base is not None):
            return base.fields[entry] if entry in base.fields else _attribute(base.base, entry)
        if entry is not None and isinstance(base, Carry):  # `log["energy"]`: an entry of a dict carry
            return Carry(base.path + (entry,))
        if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            key = int_value(node.slice[0].slice.value)
            if key is not None:
                if isinstance(base, Pack) and -len(base.items) <= key < len(base.items):
                    return base.items[key]
                if isinstance(base, Carry) and key >= 0:
                    return Carry(base.path + (key,))
        if isinstance(base, Opaque) and isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape":
            return Opaque(node)
        self.read(base, node)
        for element in node.slice:
            self.read_slice(element.slice, env, depth)
        return Opaque(node)

    def read_slice(self, part, env: dict, depth: int) -> None:
        if isinstance(part, cst.Index):
            self.read(self.expr(part.value, env, depth), part)
        else:
            for bound in (part.lower, part.upper, part.step):
                if bound is not None:
                    self.read(self.expr(bound, env, depth), bound)

    def call_expr(self, node: cst.Call, env: dict, depth: int) -> Value:
        rule = self.rule
        func = node.func
        made = self.partial(node, env, depth)  # `upd = partial(dus, i=i)`: a function value
        if made is not None:
            return made
        if rule.matches(func, vocabulary.SHALLOW_COPIES) and len(node.args) == 1 and not (node.args[0].keyword or node.args[0].star):
            return self.expr(node.args[0].value, env, depth)  # `c = dict(c)`: the same entries, nothing read
        if rule.matches(func, vocabulary.TYPE_QUESTIONS):
            return Opaque(node)  # `hasattr(val, "entropy")`: asks of the object, reads no array of it
        if isinstance(func, cst.Attribute) and func.attr.value == "copy" and not node.args:
            base = self.expr(func.value, env, depth)
            if isinstance(base, (Carry, Record)):
                return base  # `new = carry.copy()`: the same entries (or the same values of an array)
        if rule.matches(func, {"builtins.dict"}) and node.args and not (node.args[0].keyword or node.args[0].star) and all(
            a.keyword is not None and not a.star for a in node.args[1:]
        ):  # `dict(s, i=i + 1)`: the entries, with those given replaced
            base = self.expr(node.args[0].value, env, depth)
            return _replaced(base, {_entry(a.keyword.value): self.expr(a.value, env, depth) for a in node.args[1:]})
        if node.args and int_value(node.args[0].value) is not None and not (node.args[0].keyword or node.args[0].star) and (
            rule.matches(func, vocabulary.SCALAR_CONSTRUCTORS)
        ):  # `count + jnp.asarray(1, jnp.int32)`: a counter stepped by one (an array, which only reports read)
            return Const(int_value(node.args[0].value))
        if isinstance(func, cst.Attribute) and func.attr.value == "astype" and len(node.args) == 1:
            base = self.expr(func.value, env, depth)
            if isinstance(base, (Written, Carry)):
                # `return buf.astype(int)`: a loop keeps its carry's dtype (JAX refuses a body that
                # changes it), so on the carry's way out the cast changes nothing
                return base
        # `x.at[i].set(v)`
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Subscript)
            and isinstance(func.value.value, cst.Attribute)
            and func.value.value.attr.value == "at"
        ):
            base = self.expr(func.value.value.value, env, depth)
            index_node = _single_index(func.value.slice)
            if index_node is not None and several_slots(rule, index_node):
                index_node = None
            args = [self.expr(a.value, env, depth) for a in node.args]
            for value in args:
                self.read(value, node)
            method = func.attr.value
            if method in vocabulary.SLOT_WRITES and index_node is not None and node.args and not node.args[0].keyword and all(
                a.keyword is not None and a.keyword.value in vocabulary.UPDATE_OPTIONS for a in node.args[1:]
            ):  # `.set(v, mode="drop")`: still one slot a step
                index = self.expr(index_node, env, depth)
                self.read(index, index_node)
                axis = next(k for k, e in enumerate(index_elements(func.value.slice)) if not is_full_slice(e.slice))
                if method == "set" and isinstance(base, Written) and _same(base.index, index) and base.axis == axis:
                    base = base.base  # the slot set again: the first value is gone (`t.at[k].set(a)` then `.at[k].set(b)`)
                return Written(base, index, index_node, node, "at", node.args[0].value, method, axis)
            self.read(base, node)
            for element in func.value.slice:
                self.read_slice(element.slice, env, depth)
            return Opaque(node)
        name = rule.matches(func, vocabulary.DYNAMIC_WRITES)
        if name is not None and len(node.args) >= 3 and not any(a.keyword or a.star for a in node.args[:3]):
            base = self.expr(node.args[0].value, env, depth)
            update = self.expr(node.args[1].value, env, depth)
            self.read(update, node)
            start = node.args[2].value
            axis = 0 if len(node.args) < 4 else int_value(node.args[3].value)
            made = update.node if isinstance(update, Opaque) and isinstance(update.node, cst.BaseExpression) else None
            if name == vocabulary.DUS_IN_DIM and block_of_rows(rule, made or node.args[1].value, axis):
                self.read(base, node)  # a block of slots a step (a swap of neighbours), not a row
                return Opaque(node)
            if name == vocabulary.DUS and isinstance(start, (cst.Tuple, cst.List)):
                moving = [e.value for e in start.elements if int_value(e.value) != 0]
                index_node = moving[0] if len(moving) == 1 else None
                for e in start.elements:
                    self.read(self.expr(e.value, env, depth), e)
            else:
                index_node = start
            if index_node is not None:
                index = self.expr(index_node, env, depth)
                self.read(index, index_node)
                return Written(base, index, index_node, node, "dus")
            self.read(base, node)
            return Opaque(node)
        clamp = rule.matches(func, vocabulary.CLAMPS)
        held = self.clamp(node, vocabulary.CLAMPS[clamp], env, depth) if clamp is not None else None
        if held is not None:
            return held
        # `state._replace(f=v)`, `state.replace(f=v)`, `dataclasses.replace(state, f=v)`; jax-md's
        # dataclasses spell it `state.set(f=v)` (keywords only: no `.at[i].set(v)`, whose receiver is no record)
        if isinstance(func, cst.Attribute) and func.attr.value in vocabulary.REPLACE_METHODS and all(
            a.keyword is not None for a in node.args
        ) and node.args:
            base = self.expr(func.value, env, depth)
            if isinstance(base, (Carry, Record)):
                return _replaced(base, {a.keyword.value: self.expr(a.value, env, depth) for a in node.args})
        if rule.matches(func, vocabulary.REPLACE) and node.args and all(a.keyword is not None for a in node.args[1:]):
            base = self.expr(node.args[0].value, env, depth)
            if isinstance(base, (Carry, Record)):
                return _replaced(base, {a.keyword.value: self.expr(a.value, env, depth) for a in node.args[1:]})
        replaced = self.tree_at(node, env, depth) if rule.matches(func, {vocabulary.TREE_AT}) else None
        if replaced is not None:
            return replaced
        chosen = rule.matches(func, vocabulary.CHOICE_PARAMS)
        values = ordered_arguments(
            node, vocabulary.CHOICE_PARAMS[chosen], "operand" if chosen == vocabulary.COND else None
        ) if chosen else None
        if chosen == vocabulary.COND and values is not None:
            self.read(self.expr(values[0], env, depth), values[0])
            operands = [self.expr(v, env, depth) for v in values[3:]]
            functions = [self.function(branch, env, depth) for branch in values[1:3]]
            if not all(isinstance(f, Function) for f in functions):
                # a branch the model cannot follow (`cfg.sample`) reads what it is given; the other
                # still reads what it reads (`lambda x: P(e.table[slot])`, the slot it rewrites)
                for value in operands:
                    self.read(value, node)
                for function in functions:
                    if isinstance(function, Function):
                        self.branch(function, operands, env, node, depth)
                return Opaque(node)
            results = [self.branch(function, operands, env, node, depth) for function in functions]
            return _merge(results[0], results[1], node)
        if chosen in vocabulary.WHERE and values is not None and len(values) == 3:
            self.read(self.expr(values[0], env, depth), values[0])
            sides = self.expr(values[1], env, depth), self.expr(values[2], env, depth)
            merged = _merge(*sides, node)
            if isinstance(merged, Written) and merged.form == "cond":
                return merged
            for value in sides:  # `jnp.where(mask, outs, 0.0)` reads the buffer whole
                self.read(value, node)
            return Opaque(node)
        mapped = rule.matches(func, vocabulary.TREE_MAP) and len(node.args) >= 2 and not node.args[0].star and not any(
            a.keyword for a in node.args
        )
        spread = _packs_spread([(a, self.expr(a.value, env, depth)) for a in node.args[1:]]) if mapped else None
        if spread is not None:  # `tree_map(f, bufs, xs)`, `tree_map(fn, tree, *rest)` of a helper's `*rest`
            trees = [value for _, value in spread]
            function = self.function(node.args[0].value, env, depth)
            if isinstance(function, Function):
                result = self.call(function, trees, {}, depth + 1)
                if isinstance(result, Written) and isinstance(result.base, Carry):
                    return Written(
                        result.base, result.index, result.index_node, node, "tree_map", result.row, result.method, result.axis
                    )
            for value in trees:
                self.read(value, node)
            return Opaque(node)
        callee = self.function(func, env, depth)
        args = [(a, self.expr(a.value, env, depth)) for a in node.args]
        args = _packs_spread(args) or args  # `put(*rest)` of a helper's `*rest`: its items
        if isinstance(callee, Opaque) and isinstance(func, cst.Name):
            record = self.record(func, args)
            if record is not None:
                return record
        if isinstance(callee, Function) and any(a.star for a, _ in args):
            args = _spread(callee, args, self.carry_sizes) or args  # `step(*val, idx=i)`: the carry's parts, one a parameter
        if isinstance(callee, Function) and not any(a.star for a, _ in args) and isinstance(callee.node, (cst.FunctionDef, cst.Lambda)):
            if not (isinstance(callee.node, cst.FunctionDef) and _changes_binding(callee.node)):
                try:
                    return self.call(
                        callee,
                        [v for a, v in args if a.keyword is None],
                        {a.keyword.value: v for a, v in args if a.keyword is not None},
                        depth + 1,
                    )
                except _GiveUp:
                    pass
        self.read(callee, node)
        for _, value in args:
            self.read(value, node)
        return Opaque(node)

    def tree_at(self, node: cst.Call, env: dict, depth: int) -> Record | None:
        """``eqx.tree_at(lambda s: (s.x, s.traj), state, (x, traj))``: ``state`` with those fields
        replaced, where ``where`` picks fields of its parameter by name (one, or a tuple of them)
        and ``replace`` gives as many values; else ``None`` (read as any other call)."""
        values = ordered_arguments(node, ("where", "pytree", "replace"))
        if values is None or len(values) != 3 or not isinstance(values[0], cst.Lambda):
            return None
        where, pytree, replace = values
        params = where.params.params
        picked = [e.value for e in where.body.elements] if isinstance(where.body, cst.Tuple) else [where.body]
        given = [e.value for e in replace.elements] if isinstance(where.body, cst.Tuple) and isinstance(
            replace, (cst.Tuple, cst.List)
        ) else [replace]
        if len(params) != 1 or len(picked) != len(given) or not all(
            isinstance(p, cst.Attribute) and isinstance(p.value, cst.Name) and p.value.value == params[0].name.value
            for p in picked
        ):
            return None
        base = self.expr(pytree, env, depth)
        if not isinstance(base, (Carry, Record)):
            return None
        return _replaced(base, {p.attr.value: self.expr(v, env, depth) for p, v in zip(picked, given, strict=True)})

    def record(self, func: cst.Name, args) -> Record | None:
        """``State(a, b=c)`` for a NamedTuple or dataclass of this module, whose fields are its
        annotated class attributes in order; ``Logs(train=t, valid=v)`` for a class from another
        module (imported, or bound to one: ``Logs = types.Logs``) called with keywords alone,
        whose fields are read back by those names."""
        definitions = self.modeler.semantics.definitions.get(func.value, [])
        if not definitions and args and all(a.keyword is not None and not a.star for a, _ in args) and not any(
            q.startswith("builtins.") for q in self.modeler.rule.qualified_names(func)
        ):
            return Record({a.keyword.value: value for a, value in args})
        classes = [d for d in definitions if isinstance(d, cst.ClassDef)]
        if len(classes) != 1 or len(definitions) != 1:
            return None
        fields = declared_fields(classes[0])
        if not fields or any(a.star for a, _ in args):
            return None
        values: dict = {}
        for k, (arg, value) in enumerate(args):
            name = arg.keyword.value if arg.keyword is not None else fields[k] if k < len(fields) else None
            if name not in fields:
                return None
            values[name] = value
        return Record(values)


def _operands(node: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The operands of a comparison, a boolean operation or a unary operation, whose value reads
    just what they read; ``None`` for any other expression. An identity test (``buf is not None``)
    asks of the objects, not of their arrays: it reads nothing."""
    if identity_test(node):
        return []
    if isinstance(node, cst.Comparison):
        return [node.left, *(c.comparator for c in node.comparisons)]
    if isinstance(node, cst.BooleanOperation):
        return [node.left, node.right]
    if isinstance(node, cst.UnaryOperation):
        return [node.expression]
    return None


def _exact_literal(expr: cst.BaseExpression) -> bool:
    """An int or bool literal, or a non-empty list or tuple of them (nested): what ``jnp.array``
    makes an integer or boolean array of."""
    if isinstance(expr, (cst.List, cst.Tuple)):
        return bool(expr.elements) and all(
            not isinstance(e, cst.StarredElement) and _exact_literal(e.value) for e in expr.elements
        )
    return int_value(expr) is not None or is_bool_literal(expr)


def _changes_binding(function: cst.FunctionDef) -> bool:
    """Whether a decorator changes how ``function`` is called (``property``, ``classmethod``):
    others (``@jax.jit``, a type checker's ``@typed``) keep its arguments and its result, which
    is all the model follows, and the model only reports (fixes need an undecorated ``def``)."""
    return any(
        isinstance(d.decorator, cst.Name) and d.decorator.value in ("property", "classmethod", "staticmethod")
        or isinstance(d.decorator, cst.Attribute) and d.decorator.attr.value in ("setter", "getter", "deleter")
        for d in function.decorators
    )


# -- value algebra --------------------------------------------------------------------------
def _shift(value: Value, offset: int) -> Value:
    if isinstance(value, (Index, Counted)) and value.clamped:
        return OPAQUE  # `jnp.clip(i, 0, n - 1) + 1`: not followed
    if isinstance(value, Index):
        return Index(value.offset + offset, value.element, value.symbolic, value.reverse)
    if isinstance(value, Carry):
        return Counted(value, offset)
    if isinstance(value, Counted):
        return Counted(value.carry, value.offset + offset, value.symbolic)
    return OPAQUE


def _packs_spread(args: list) -> list | None:
    """``args`` (pairs of argument and value) with each ``*value`` that is a known tuple (a
    helper's ``*rest``) spread into its items, one an argument; ``None`` where a star spreads
    something else."""
    spread = []
    for arg, value in args:
        if not arg.star:
            spread.append((arg, value))
        elif arg.star == "*" and isinstance(value, Pack):
            spread.extend((arg.with_changes(star=""), item) for item in value.items)
        else:
            return None
    return spread


def _spread(callee: Function, args: list, carry_sizes: dict[tuple, int]) -> list | None:
    """``args`` with one ``*value`` spread into its items, where the callee's signature fixes
    how many it takes: the positional parameters left after the bound, positional and keyword
    arguments, none with a default, no ``*args`` (``step(*val, idx=i)`` of ``def step(q, h, v,
    idx)``: three). A call with another number of items raises ``TypeError`` at run time. A part
    of the carry whose initial display says how many items it holds (``carry_sizes``) spreads
    that many, whatever follows it (``step(*val, A, idx=i)``)."""
    params = callee.node.params
    stars = [k for k, (a, _) in enumerate(args) if a.star]
    if len(stars) != 1 or args[stars[0]][0].star != "*" or isinstance(params.star_arg, cst.Param):
        return None
    star_arg, value = args[stars[0]]
    if isinstance(value, Carry) and value.path in carry_sizes:
        spread = [(star_arg.with_changes(star=""), Carry(value.path + (k,))) for k in range(carry_sizes[value.path])]
        return [*args[: stars[0]], *spread, *args[stars[0] + 1:]]
    positional = [*params.posonly_params, *params.params]
    given = {a.keyword.value for a, _ in args if a.keyword is not None} | set(callee.keywords)
    before = len(callee.bound) + sum(1 for a, _ in args if a.keyword is None and not a.star)
    left = [p for p in positional[before:] if p.name.value not in given]
    if any(p.default is not None for p in left) or any(a.keyword is not None for a, _ in args[: stars[0]]):
        return None
    if any(a.keyword is None for a, _ in args[stars[0] + 1:]):
        return None  # positional arguments after the star: which parameters they take depends on its length
    star_arg, value = args[stars[0]]
    spread = [(star_arg.with_changes(star=""), _item(value, k, len(left))) for k in range(len(left))]
    return [*args[: stars[0]], *spread, *args[stars[0] + 1:]]


def display_item(display: cst.BaseExpression | None, path: tuple) -> cst.BaseExpression | None:
    """What the tuple and list displays of ``display`` hold at ``path`` (``Q`` of ``(Q, H, v)`` at
    ``(0,)``), where they show it."""
    for step in path:
        if not (isinstance(step, int) and isinstance(display, (cst.Tuple, cst.List)) and step < len(display.elements)):
            return None
        element = display.elements[step]
        display = element.value if isinstance(element, cst.Element) else None
    return display


def _display_sizes(init: cst.BaseExpression, path: tuple) -> dict[tuple, int]:
    """The number of items of each tuple or list display in the initial carry ``init``, by
    path (see :attr:`_Evaluation.carry_sizes`)."""
    if not isinstance(init, (cst.Tuple, cst.List)) or any(isinstance(e, cst.StarredElement) for e in init.elements):
        return {}
    sizes = {path: len(init.elements)}
    for k, element in enumerate(init.elements):
        sizes |= _display_sizes(element.value, path + (k,))
    return sizes


def _item(value: Value, k: int, n: int) -> Value:
    if isinstance(value, Pack) and len(value.items) == n:
        return value.items[k]
    if isinstance(value, Carry):
        return Carry(value.path + (k,))
    return OPAQUE


def _field(name: str) -> str:
    """The path step of a record field: ``.buf`` for an attribute, ``['buf']`` (kept as it is) for a
    dict entry."""
    return name if name.startswith("[") else f".{name}"


def _entry(key: str) -> str:
    """The field name of the dict entry ``d[key]``."""
    return f"[{key!r}]"


def _attribute(value: Value, attr: str) -> Value:
    if isinstance(value, Carry):
        return Carry(value.path + (_field(attr),))
    return OPAQUE


def _replaced(base: Value, fields: dict) -> Record:
    if isinstance(base, Record):
        return Record({**base.fields, **fields}, base.base)
    return Record(dict(fields), base)


def _same(a: Value, b: Value) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, Carry):
        return a.path == b.path
    if isinstance(a, Index):
        return (a.offset, a.element, a.symbolic, a.reverse) == (b.offset, b.element, b.symbolic, b.reverse)
    if isinstance(a, Counted):
        return (a.offset, a.symbolic) == (b.offset, b.symbolic) and a.carry.path == b.carry.path
    if isinstance(a, Const):
        return a.value == b.value
    if isinstance(a, Key):
        return a.entry == b.entry
    return False


def _merge(a: Value, b: Value, node: cst.CSTNode, static: bool = False) -> Value:
    """What a value is after a branch: the same on both sides, or a write of the same slot.
    ``static``: a Python ``if``, which the trace decides once for every step, where a write on
    one side is made every step or never (form ``flag``), not on some steps as under `lax.cond`."""
    if _same(a, b):
        return a
    for pack, whole in ((a, b), (b, a)):  # `lambda c: c` beside a branch that returns `(y, n + 1, ys.at[n].set(y))`:
        if isinstance(pack, Pack) and isinstance(whole, Carry):  # both sides have one structure, the carry's tuple
            whole = Pack([_item(whole, k, len(pack.items)) for k in range(len(pack.items))])
            a, b = (pack, whole) if pack is a else (whole, pack)
    for record, whole in ((a, b), (b, a)):  # `lambda c: c` beside `c._replace(ys=c.ys.at[n].set(y))`
        if isinstance(record, Record) and record.base is not None and _same(record.base, whole):
            whole = Record({}, whole)
            a, b = (record, whole) if record is a else (whole, record)
    if isinstance(a, Pack) and isinstance(b, Pack) and len(a.items) == len(b.items):
        return Pack([_merge(x, y, node, static) for x, y in zip(a.items, b.items)])
    if isinstance(a, Record) and isinstance(b, Record) and (
        a.base is b.base or a.base is not None and b.base is not None and _same(a.base, b.base)
    ):
        # `state._replace(x=...)` on one side, `state._replace(y=...)` on the other: each field as
        # it leaves either side (a field one side leaves alone is the base's)
        if a.fields.keys() != b.fields.keys() and a.base is None:
            return Opaque(node)
        return Record({k: _merge(_field_of(a, k), _field_of(b, k), node, static) for k in {**a.fields, **b.fields}}, a.base)
    built = a if isinstance(a, Record) and a.base is None else b if isinstance(b, Record) and b.base is None else None
    based = (b if built is a else a) if built is not None else None
    if isinstance(based, Record) and based.base is not None and set(based.fields) <= set(built.fields):
        # `s._replace(step=s.step + 1)` beside `S(step=s.step + 1, lat=...)`: each field the
        # construction sets, as it leaves either side
        return Record({k: _merge(_field_of(a, k), _field_of(b, k), node, static) for k in built.fields})
    if isinstance(a, Written) and isinstance(b, Written) and _same(a.base, b.base) and _same(a.index, b.index) and (
        a.method == b.method and a.axis == b.axis
    ):
        return Written(a.base, a.index, a.index_node, a.call, "flag" if static else "cond", None, a.method, a.axis)
    for written, other in ((a, b), (b, a)):  # under a Python `if`, the trace that writes the buffer carries it
        if isinstance(written, Written) and (_same(written.base, other) or static and isinstance(written.base, Carry)):
            form = "flag" if static else "some-steps"
            return Written(
                written.base, written.index, written.index_node, written.call, form, written.row, written.method, written.axis
            )
    return Opaque(node)


def _field_of(record: Record, key: str) -> Value:
    """The field ``key`` of ``record``: set there, or its base's."""
    return record.fields[key] if key in record.fields else _attribute(record.base, key[1:] if key.startswith(".") else key)


def string_key(node: cst.Subscript) -> str | None:
    """The field name of ``d["key"]`` (one string-literal key), else ``None``: a step of a
    carry path."""
    if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        key = node.slice[0].slice.value
        if isinstance(key, cst.SimpleString):
            return _entry(key.evaluated_value)
    return None


def _single_index(elements) -> cst.BaseExpression | None:
    """The index of ``x.at[:, i, :]`` with one non-``:`` element, else ``None``; a trailing
    ``...`` (``x.at[i, ...]``) is the ``:`` s it stands for."""
    found = None
    for element in index_elements(elements):
        if isinstance(element.slice, cst.Index) and not is_full_slice(element.slice):
            if found is not None:
                return None
            found = element.slice.value
        elif not is_full_slice(element.slice):
            return None
    if found is None or isinstance(found, (cst.Ellipsis, cst.Tuple)) or is_none(found):
        return None
    return found


def _second_or_dtype(call: cst.Call) -> cst.BaseExpression | None:
    """The ``dtype`` a call is given, by keyword or as its second positional argument
    (``jnp.array(x, jnp.int32)``, ``lax.empty(shape, jnp.int32)``)."""
    dtype = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "dtype"), None)
    if dtype is None and len(call.args) > 1 and call.args[1].keyword is None:
        dtype = call.args[1].value
    return dtype
