"""Facts about values the AT201/AT202 fixes depend on, proven from the source."""

from __future__ import annotations

import libcst as cst

from autota.source import scopes
from autota.source.rules.loop_buffers.syntax import (
    assigns,
    LAX,
    JNP,
    DYNAMIC_WRITES,
    CONSTRUCTORS,
    int_value,
    ordered_arguments,
    index_offset,
    rebinds,
    all_params,
)
from autota.source.rules.loop_buffers.body import Write, Body


class StaticFacts:
    """What can be proven about values at trace time: static ints, bound names, counters,
    the range an index runs over."""

    def _index_bounds(self, kind: str, args, body: Body):
        """``(lower, upper)`` when the body's index parameter steps by one from ``lower`` to ``upper``:
        a ``fori_loop``'s index, or the element of a ``scan`` over ``jnp.arange(lower, upper)``."""
        index, function = body.index_param, body.function
        if index is None or not isinstance(function, (cst.FunctionDef, cst.Lambda)):
            return None
        if rebinds(self.semantics, function, index):
            return None
        if kind == "fori":
            return args["lower"].value, args["upper"].value
        if kind != "scan" or "xs" not in args or "length" in args:
            return None
        xs = args["xs"].value
        if not (isinstance(xs, cst.Call) and self.matches(xs.func, {f"{JNP}.arange"})):
            return None
        if not 1 <= len(xs.args) <= 3:
            return None
        bounds = ordered_arguments(xs, ("start", "stop", "step")[: len(xs.args)])  # `arange(start=0, stop=n)` too
        if bounds is None:
            return None
        if len(bounds) == 3 and int_value(bounds[2]) != 1:  # `jnp.arange(0, n, 1)`
            return None
        if len(bounds) == 1:
            return cst.Integer("0"), bounds[0]
        return bounds[0], bounds[1]

    def _scan_trips(self, args) -> str | None:
        """The scan's number of steps as comparable text, when its names are stable."""
        if "length" in args:
            value = args["length"].value
            return self._canonical(value) if self._stable(value) else None
        xs = args.get("xs")
        if xs is None:
            return None
        value = xs.value
        if isinstance(value, (cst.Tuple, cst.List)) and value.elements:
            value = value.elements[0].value
        return f"{self._canonical(value)}.shape[0]" if self._stable(value) else None

    def _buffer_length(self, init: cst.BaseExpression, axis: int) -> cst.BaseExpression | None:
        dims = self._buffer_dims(init)
        return dims[axis] if dims is not None and axis < len(dims) else None

    def _buffer_dims(self, init: cst.BaseExpression) -> list[cst.BaseExpression] | None:
        """The shape's entries of a ``jnp.zeros``/``ones``/``empty``/``full`` buffer, where its
        shape is written out (an int, or a tuple or list of them)."""
        init = self._resolve(init)
        if not isinstance(init, cst.Call) or not self.matches(init.func, CONSTRUCTORS):
            return None
        if not self.matches(init.func, {f"{JNP}.zeros", f"{JNP}.ones", f"{JNP}.empty", f"{JNP}.full"}):
            return None
        shapes = [a.value for a in init.args if a.keyword is None and a is init.args[0] or a.keyword and a.keyword.value == "shape"]
        if len(shapes) != 1:
            return None
        shape = shapes[0]
        if isinstance(shape, (cst.Tuple, cst.List)):
            if any(not isinstance(e, cst.Element) for e in shape.elements):
                return None
            return [e.value for e in shape.elements]
        return [shape]

    def _resolve(self, expr: cst.BaseExpression, depth: int = 0) -> cst.BaseExpression:
        if isinstance(expr, cst.Name) and depth < 5:
            value = self.semantics.assigned_value(expr)
            if value is not None:
                return self._resolve(value, depth + 1)
        return expr

    def _value_before(self, name: cst.Name) -> cst.BaseExpression | None:
        """What ``name`` holds where it is read: the value of the last plain ``name = value`` among
        the earlier statements of the same function body, if nothing else binds it in between."""
        scope = scopes.enclosing_scope(self, name)
        if not isinstance(scope, cst.FunctionDef):
            return self.semantics.assigned_value(name)
        statements = list(scope.body.body)
        here = next((k for k, s in enumerate(statements) if self.semantics.contains(s, name)), None)
        for statement in reversed(statements[:here] if here is not None else []):
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                if statement.name.value == name.value:
                    return None
                continue  # what a nested function binds is its own
            small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
            if scopes.assign_to(small, name.value) is not None:
                return small.value
            if self.semantics.stores(statement, name.value) or assigns(self.semantics, statement, name.value):
                return None  # bound some other way
        return None

    def _stable(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """Whether every name in ``expr`` is bound once (an unrebound parameter, or one assignment
        of a stable value), so that its text means the same wherever it is read."""
        if depth > 5:
            return False
        for name in self.semantics.variables(expr):
            value = self.semantics.assigned_value(name)
            if value is not None:
                if not self._stable(value, depth + 1):
                    return False
                continue
            scope = scopes.enclosing_scope(self, name)
            while not (isinstance(scope, cst.Module) or _binds(self.semantics, scope, name.value)):
                scope = scopes.enclosing_scope(self, scope)
            params = [p.name.value for p in all_params(scope)] if isinstance(scope, cst.FunctionDef) else []
            if name.value not in params or rebinds(self.semantics, scope, name.value):
                return False
        return True

    def _canonical(self, expr: cst.BaseExpression) -> str:
        """The code of ``expr`` with names bound once replaced by their values, for comparisons."""
        resolved = self._resolve(expr)
        if isinstance(resolved, cst.BinaryOperation):
            return f"({self._canonical(resolved.left)}{self.code_of(resolved.operator).strip()}{self._canonical(resolved.right)})"
        if resolved is not expr:
            return self._canonical(resolved)
        return self.code_of(expr).strip()

    def _action(self, expr: cst.BaseExpression) -> cst.Call | cst.Subscript | None:
        """What in ``expr`` may have effects or raise on its own, so that evaluating it in another
        order may show: a call of anything but JAX's array functions, else a subscript other than
        of a ``.shape``."""
        found = self.semantics.of_kind(expr, cst.Call, cst.Subscript)
        calls = [
            n for n in found
            if isinstance(n, cst.Call) and not self.array_function(n.func)
        ]
        subscripts = [
            n for n in found
            if isinstance(n, cst.Subscript) and not (isinstance(n.value, cst.Attribute) and n.value.attr.value == "shape")
        ]
        return (calls or subscripts or [None])[0]

    def _is_static(self, expr: cst.BaseExpression, where: cst.CSTNode, depth: int = 0, integer: bool = False,
                   static_args: bool = False) -> bool:
        """Whether ``expr`` is a Python value at trace time: literals, shapes, ``len``, static args;
        with ``integer``, a Python int (no ``/`` or ``**`` on the way, through the names followed,
        and no static argument, whose type only the caller knows, unless ``static_args``)."""
        if depth > 6:
            return False
        if isinstance(expr, cst.Integer):
            return True
        if isinstance(expr, cst.UnaryOperation):
            return self._is_static(expr.expression, where, depth + 1, integer, static_args)
        if isinstance(expr, cst.BinaryOperation):
            if integer and isinstance(expr.operator, (cst.Divide, cst.Power)):
                return False
            return self._is_static(expr.left, where, depth + 1, integer, static_args) and self._is_static(
                expr.right, where, depth + 1, integer, static_args
            )
        # `x.size`/`x.ndim` are static ints only if `x` is an array; a NamedTuple or dataclass field
        # named `size` may hold a traced int8 or a vector, so they prove nothing. `x.shape[k]` is
        # taken to be one unless this module gives its own objects a `shape` (a field, a property)
        if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute) and expr.value.attr.value == "shape":
            return not self.semantics.defines_attribute("shape")
        if isinstance(expr, cst.Call) and self.matches(expr.func, {"builtins.len"}):
            return True
        if isinstance(expr, cst.Call) and self.matches(expr.func, {"builtins.int"}) and len(expr.args) == 1:
            # `int(n)` of a static value is a Python int (what AT202's fix writes for a static argument)
            arg = expr.args[0]
            return arg.keyword is None and not arg.star and self._is_static(arg.value, where, depth + 1, False, static_args)
        if isinstance(expr, cst.Name):
            value = self.semantics.assigned_value(expr)
            if value is not None and isinstance(self.semantics.binding_scope(expr), cst.Module) and (
                self.module_rebinding({expr.value}) is not None
            ):
                return False  # `N = 3`, then `globals()["N"] = 2.5` or `mylib.N = 2.5`: bound once is not proven
            if value is not None:
                return self._is_static(value, where, depth + 1, integer, static_args)
            scope = scopes.enclosing_scope(self, expr)
            while True:  # `n, d = x.shape` in this function or one around it, as `x.shape[k]` above
                if self.semantics.unpacked_shape(scope, expr.value):
                    return not self.semantics.defines_attribute("shape")
                if isinstance(scope, cst.Module) or _binds(self.semantics, scope, expr.value):
                    break
                scope = scopes.enclosing_scope(self, scope)
            # a static argument's type is the caller's: `True` or `np.uint8(2)` pass for an int
            return (not integer or static_args) and self._static_parameter(expr)
        return False

    def public_module_variable(self, expr: cst.BaseExpression, depth: int = 0) -> str | None:
        """A variable of the module that ``expr`` reads, directly or through names bound once
        (``N``, ``N + 1``, ``steps = 2 * N``), whose name is public: a name bound by assignment at
        module level, not by a ``def``, a ``class`` or an import. Any importer may set it between
        calls (``mylib.N = True``, an array), and code outside the run is not read; a private
        name (``_N``) is taken to be the module's own, as a private function is."""
        if depth > 6:
            return None
        for name in self.semantics.variables(expr):
            value = self.semantics.assigned_value(name)
            if value is None:
                continue
            if isinstance(self.semantics.binding_scope(name), cst.Module) and not name.value.startswith("_"):
                return name.value
            found = self.public_module_variable(value, depth + 1)
            if found is not None:
                return found
        return None

    def _static_parameter(self, name: cst.Name) -> bool:
        """``name`` is a parameter listed in ``static_argnums``/``static_argnames`` of a ``jit``."""
        scope = scopes.enclosing_scope(self, name)
        while isinstance(scope, (cst.FunctionDef, cst.Lambda)):
            params = [p.name.value for p in all_params(scope)]
            rebound = isinstance(scope, cst.FunctionDef) and rebinds(self.semantics, scope, name.value)
            if name.value in params and (isinstance(scope, cst.Lambda) or rebound):
                return False  # a lambda's own parameter, or a static argument replaced in the body
            if rebound:
                return False  # a local name shadowing any outer one
            if name.value in params:
                index = params.index(name.value)
                static = (scopes.static_arguments(d.decorator) for d in scope.decorators)
                return any(s is not None and (name.value in s or index in s) for s in static)
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
        for small in self.semantics.own_of_kind(function, cst.Assign, cst.AugAssign):
            if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and small.target.value == counter:
                if isinstance(small.operator, cst.AddAssign) and int_value(small.value) == 1:
                    increments.append(small)
                else:
                    return None
            elif isinstance(small, cst.Assign) and any(self.semantics.names_in(t.target, counter) for t in small.targets):
                if small is body.unpack:
                    continue
                if scopes.assign_to(small, counter) and index_offset(small.value, counter) == 1:
                    increments.append(small)
                else:
                    return None
        if self.semantics.stores(function.body, counter) and not all(isinstance(s, cst.AugAssign) for s in self.semantics.stores(function.body, counter)):
            return None
        in_return = isinstance(returned, cst.BinaryOperation) and index_offset(returned, counter) == 1
        plain_return = isinstance(returned, cst.Name) and returned.value == counter
        if len(increments) == 1 and plain_return and increments[0] in statements:
            if before is None or before not in statements:
                return 0
            return 1 if statements.index(increments[0]) < statements.index(before) else 0
        if not increments and in_return:
            return 0
        return None

    def _index_use_problem(self, function: cst.FunctionDef, index: str, write: Write) -> str | None:
        """A use of the ``fori_loop`` index whose result could change when it becomes strongly typed.

        ``scan`` over ``jnp.arange`` gives a strong int32 where ``fori_loop`` gives a weak one.
        Arithmetic with static ints gives the same value either way; used as an index, or compared
        with a static int, so does the result. Anything else (``t < lens`` with an int8 ``lens``:
        the weak index would be cast to int8) may differ.
        """
        for name in self.semantics.names_in(function.body, index):
            node = name
            parent = self.parent(node)
            while isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)) and all(
                self._is_static(other, name, integer=True)
                for other in ((parent.left, parent.right) if isinstance(parent, cst.BinaryOperation) else ())
                if other is not node
            ):
                node, parent = parent, self.parent(parent)
            if isinstance(parent, cst.Element) and isinstance(self.parent(parent), cst.Tuple):
                packed = self.parent(parent)  # `x[(t, ...)]` is `x[t, ...]`
                if isinstance(self.parent(packed), cst.Index):
                    parent = self.parent(packed)
            if isinstance(parent, cst.Index) and isinstance(self.parent(parent), cst.SubscriptElement):
                subscript = self.parent(self.parent(parent))
                why = self._custom_subscript(subscript, function)
                if why is None:
                    continue
                return (
                    f"the loop index `{index}` subscripts `{self.code_of(subscript.value)}` (line "
                    f"{self.start_line(name)}), {why}; `scan` over `jnp.arange` gives a strongly typed int32 where "
                    "`fori_loop` gives a weakly typed one, which can change dtype promotion"
                )
            if isinstance(parent, (cst.Comparison, cst.ComparisonTarget)):
                comparison = parent if isinstance(parent, cst.Comparison) else self.parent(parent)
                operands = [comparison.left, *(c.comparator for c in comparison.comparisons)]
                if all(o is node or self._is_static(o, name, integer=True) for o in operands):
                    continue
            while isinstance(parent, (cst.Element, cst.Tuple, cst.List)):
                parent = self.parent(parent)
            if isinstance(parent, cst.Arg) and self._is_dynamic_index_arg(parent):
                continue
            return (
                f"the loop index `{index}` is used other than as an index or in arithmetic and comparisons with "
                f"static ints (line {self.start_line(name)}); `scan` over `jnp.arange` gives a strongly typed "
                "int32 where `fori_loop` gives a weakly typed one, which can change dtype promotion"
            )
        return None

    def _custom_subscript(self, subscript: cst.Subscript, body: cst.FunctionDef) -> str | None:
        """Why ``subscript`` may call a ``__getitem__`` that computes with the index, which sees
        its type, unless it subscripts ``x.at``, what the loop hands the body (its parameters
        and the names it unpacks them into), a name bound only to new JAX arrays, or a
        parameter of a function around the body (taken to be an array: `xs[i]`). Index tricks
        (``jnp.r_``), objects other calls made, attributes and other expressions may compute,
        and so may anything in a file one of whose classes defines ``__getitem__``."""
        value = subscript.value
        if isinstance(value, cst.Attribute) and value.attr.value == "at":
            return None
        if self.semantics.defines_attribute("__getitem__"):
            return "and a class of this file defines `__getitem__`, which may compute with it"
        root = value
        while isinstance(root, (cst.Subscript, cst.Attribute)):  # `book["value"][t]`: a part of the carry
            root = root.value
        if isinstance(root, cst.Name) and root is not value and self._from_parameters(root.value, body):
            return None
        if not isinstance(value, cst.Name):
            return "which is no name: its `__getitem__` may compute with the index"
        if self._from_parameters(value.value, body):
            return None
        values = self.semantics.bound_values(value)
        if values is None:
            scope = self.semantics.binding_scope(value)
            if isinstance(scope, cst.FunctionDef) and value.value in {p.name.value for p in all_params(scope)}:
                return None
            return "an object of unknown kind: its `__getitem__` may compute with the index"
        if not all(self._makes_jax_array(made) for made in values):
            return "an object not proven a JAX array: its `__getitem__` may compute with the index"
        return None

    def _makes_jax_array(self, value: cst.BaseExpression) -> bool:
        """Whether ``value`` is a call that makes a new JAX array: one of JAX's array functions
        (not one that may share a NumPy array's memory) or an update (``ys.at[t].set(...)``)."""
        return isinstance(value, cst.Call) and (self.new_jax_array(value) or scopes.at_call(value) is not None)

    def _from_parameters(self, name: str, body: cst.FunctionDef) -> bool:
        """Whether ``name`` is a parameter of ``body``, or bound in it only by unpacking one
        (``h, buf = carry``) and to new JAX arrays: a part of what the loop hands the body."""
        params = {p.name.value for p in all_params(body)}
        if name in params:
            return True
        bindings = [
            n for n in self.semantics.own_nodes(body, lambda n: isinstance(n, cst.Name) and n.value == name)
            if scopes.binding_role(self.semantics.parents, n)[0] is not None
        ]
        def handed(name: cst.Name) -> bool:
            role, holder = scopes.binding_role(self.semantics.parents, name)
            if role == "unpack":
                return isinstance(holder.value, cst.Name) and holder.value.value in params
            return role == "plain" and self._makes_jax_array(holder.value)  # `ys = ys.at[t].set(...)`: still an array

        return bool(bindings) and all(handed(n) for n in bindings)

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
        return self.semantics.module_spelling(LAX)



def _binds(semantics: scopes.Semantics, scope: cst.CSTNode, name: str) -> bool:
    """Whether ``scope`` binds ``name`` itself (so outer scopes' bindings do not reach in)."""
    if isinstance(scope, (cst.FunctionDef, cst.Lambda)) and name in [p.name.value for p in all_params(scope)]:
        return True
    return bool(semantics.stores(scope, name) or assigns(semantics, scope, name))
