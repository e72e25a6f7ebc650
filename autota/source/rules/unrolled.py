"""AT401: a Python ``for`` loop inside a jitted function, carrying arrays.

Under ``jit`` a Python loop runs at trace time: the program holds one copy of the body per
iteration, so compile time grows with the trip count (23 s at T=1024, 58 s with ``grad``,
against 0.1-0.3 s for ``lax.scan``). The fix to ``lax.scan`` is unsafe, for the reasons in
:data:`UNSAFE_DIFFERENCES`. It keeps what it can by construction: the index is carried from a
Python int (weakly typed, as the Python int promoted), no step runs for an empty range, and a
loop whose carried names a nested function or ``locals()`` can read gets no fix.
"""

from __future__ import annotations

import ast
import re

import libcst as cst

from autota.catalogue import Edit, Fix
from autota.source import prefilter, scopes, vocabulary
from autota.source.tracing import COMPILED
from autota.source.rule import FEW_TRIPS, SourceRule
from autota.source.rules.growth import GROWTH

"""Products whose result has the axes of both factors: a carry multiplied in grows each step."""


UNSAFE_DIFFERENCES = (
    "the loop index becomes a traced int32 (weakly typed, so it promotes as the Python int did): indexing "
    "an array with it clamps instead of raising, and using it where Python or NumPy needs a concrete number "
    "raises (indexing a Python list, tuple, dict or NumPy array, a slice bound, `range`, a shape, a bool test "
    "such as `done or t > 3`, `float(t)`, `max(t, 1)`, `math`/NumPy functions, `t ** -1`, a static argument "
    "of a jitted call, the bounds of an inner `fori_loop`, which then has no reverse-mode gradient); "
    "arithmetic on it wraps around where a Python int would raise OverflowError or grow (a `range` "
    "beyond int32 raises OverflowError), a division by zero (`t % 0`, `1 / t` or `1 // t` at `t == 0`) gives a "
    "value (inf, -1) where Python raised ZeroDivisionError; it is no Python int, so a type or identity test "
    "of it (`isinstance(t, int)`, `hasattr(t, ...)`, `t is 0`, `(t == 0) is True`) answers otherwise and an "
    "int's own attributes (`t.bit_length()`, `t.numerator`) raise AttributeError; and "
    "float arithmetic on it runs in float32 where Python's ran in float64 (`t * 0.1` may differ in the last "
    "bit), and XLA compiles one scan step apart from its neighbours, so float results and gradients may "
    "differ in the last bits; the body is traced once, so its Python side effects (`print`, NumPy's random numbers, `next()` of "
    "an iterator) happen once instead of every step; Python numbers and NumPy arrays carried through the loop "
    "come back as JAX arrays (NumPy functions refuse them inside the body, and float64 becomes float32); and "
    "a carry whose dtype, shape or Python type changes from one step to the next (a tuple that becomes a "
    "list), or that is not a JAX type (a Flax NNX module, another Python object), makes `lax.scan` raise a "
    "TypeError"
)
"""What may differ after the fix, and nothing else: the message and the doc both say it."""


class UnrolledLoopRule(SourceRule):
    codes = ("AT401",)
    triggers = ("jit", "fori_loop", "scan", "while_loop", "cond", "switch", "map")

    @classmethod
    def relevant(cls, facts: prefilter.Facts) -> set[int] | None:
        """Compiled functions (jitted ones, ``lax`` loop bodies and branches), and the module's
        functions they call, that hold a ``for ... in range(...)`` loop, what shows they run
        traced, and the module's functions they call (whether the index sets a shape there is
        read from them)."""
        jitted = facts.compiled()
        reached, frontier = list(jitted), list(jitted)
        seen = {id(f) for f in reached}
        for _ in range(3):  # the module's functions that jitted code calls, a few calls down
            called = _called_from(facts, frontier, methods=True)  # as `self.fill(...)` too: generous
            called |= facts.wrapped(called)  # `batched(x)` where `batched = jax.vmap(f)`
            frontier = [
                f for f in facts.functions
                if not isinstance(f.node, ast.Lambda) and f.node.name in called and id(f) not in seen
            ]
            if not frontier:
                break
            reached += frontier
            seen.update(id(f) for f in frontier)
        looping = prefilter.holding(reached, facts.range_loops)
        aliases = _aliased(facts, reached)
        aliasing = [f for g in looping if not isinstance(g.node, ast.Lambda) for f in aliases.get(g.node.name, ())]
        called, frontier = set(), looping
        for _ in range(3):  # the helpers the loops call, a few calls down (whether they grow an array)
            new = _called_from(facts, frontier, methods=False) - called
            called |= new
            frontier = [f for f in facts.functions if not isinstance(f.node, ast.Lambda) and f.node.name in new]
            if not frontier:
                break
        helpers = {  # and the classes they make (`Block()(x)`: a layer of its own a step)
            k for k, unit in enumerate(facts.units)
            if isinstance(unit, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and unit.name in called
        }
        shown = prefilter.tops(looping) | prefilter.tracing_call_tops(facts, looping)
        kernels = prefilter.tops(facts.calls_named(vocabulary.KERNEL_CALL_TERMINALS)) if looping else set()
        return shown | prefilter.tops(aliasing) | prefilter.tracing_call_tops(facts, aliasing) | kernels | helpers


    def visit_For(self, node: cst.For) -> None:
        iterator = self.range_call(node.iter)
        arange = iterator is None and self._over_arange(node.iter)
        if iterator is None and not arange:
            return
        traced = self.traced.context(node)
        if traced is None or not COMPILED.intersection((traced.kind, traced.origin)):
            return  # not compiled here (a `vmap`ped function runs op by op; a model's method may not be jitted)
        if self.traced.in_kernel(node):
            return  # a Pallas or Triton kernel's loop: unrolled tiles, as its author meant
        function = next((a for a in self.ancestors(node) if isinstance(a, cst.FunctionDef)), None)
        if function is None or self.traced.by_function.get(function) is None:
            return
        if traced is self.traced.by_function[function] and traced.kind == "called" and self._flag_left_off(node, function):
            return  # a branch that only a flag the jitted code never sets takes (`if debug:`)
        if self._constant_left_off(node, function):
            return  # a branch a module constant turns off (`DEBUG = False` ... `if DEBUG:`)
        if iterator is not None and self._traced_bound(iterator, function):
            return  # `range(n)` of an argument `jit` traces raises: nothing unrolls
        carried = [name for name in self._carried(node, function) if not self._builds_function(node, name)]
        recurrences = [] if carried else self._list_recurrences(node, function)
        carried = carried or recurrences
        if not carried or self._grows(node, carried):
            return  # nothing carried, or an array grown by concatenation: AT101 reports that loop
        if self._static_index(node, function):
            return  # the index sets a shape or picks a Python item: no `lax.scan` expresses the loop
        if self.few_trips(node) or iterator is not None and self._few_trips_by_default(iterator, function):
            return  # a few copies of the body, whatever the input: the program does not grow
        if self._static_use(node.body, set(carried), function, 0, control=False) or self._reshaped_carry(node, carried):
            return  # a carried int sets a shape (`x[mid:end]`), or a carried array changes shape: nothing a scan carries
        if self._makes_layers(node):
            return  # a layer (its own parameters) made each step: one `scan` body cannot hold them
        if self._python_only(node, function, carried):
            return  # Python numbers and shapes alone: the loop runs at trace time and adds no operation
        under = _where_compiled(traced, self.start_line(traced.node))
        message = (
            f"this Python loop {under}, so it is unrolled: the program holds one copy of the body per "
            f"iteration and compile time grows with the trip count (23 s at T=1024, 58 s with `grad`, against "
            f"0.1-0.3 s for `lax.scan`); carry {', '.join(f'`{c}`' for c in carried)} through `lax.scan`"
            + (" with `reverse=True`" if iterator is not None and iterator is not node.iter else "")
        )
        problem = (
            f"the step reads back an item of the list it grows (`{recurrences[0]}`); carry that item as a value "
            "instead, and stack the outputs" if recurrences
            else "the loop runs over `jnp.arange(...)`, whose items are arrays already; the fix rewrites `range` loops" if arange
            else "the loop runs over `reversed(range(...))`" if iterator is not node.iter else None
        )
        problem = problem or self._problem(node, function, carried)
        if problem:
            self.report("AT401", node, f"{message}; no fix: {problem}")
            return
        fix = self._fix(node, carried)
        if isinstance(fix, str):
            self.report("AT401", node, f"{message}; no fix: {fix}")
            return
        self.report(
            "AT401",
            node,
            f"{message}; the fix is unsafe: {UNSAFE_DIFFERENCES}",
            fix,
        )

    def _flag_left_off(self, loop: cst.For, function: cst.FunctionDef) -> bool:
        """Whether an ``if`` around ``loop`` tests a parameter of ``function`` (``if debug:``, ``if
        not fast:``, ``if cache is None:``) that no traced call of it passes and the function never
        rebinds, and whose default sends the loop's branch the other way: from jitted code the
        loop never runs. (A function that traced code of another module of the run calls is
        traced from there, and keeps its finding: that call may pass the flag.)"""
        defaults = self._defaults_kept(function)
        if not defaults:
            return False
        branch = loop
        for holder in self.ancestors(loop):
            if holder is function:
                return False
            if isinstance(holder, cst.If):
                truth = _truth(holder.test, defaults)
                if truth is not None and truth != self.semantics.contains(holder.body, branch):
                    return True
            branch = holder
        return False

    def _defaults_kept(self, function: cst.FunctionDef) -> dict[str, object]:
        """The parameters of ``function`` with a literal default (``True``, ``None``, an int)
        that no traced call of it may pass and the function never rebinds, with their defaults:
        their values wherever jitted code of this file runs it."""
        calls = self.traced.traced_calls.get(function, {})
        if not calls:
            return {}
        positional = [*function.params.posonly_params, *function.params.params]
        defaults = {}
        for index, param in enumerate([*positional, *function.params.kwonly_params]):
            value = _literal(param.default) if param.default is not None else _NO_VALUE
            if value is _NO_VALUE or self.semantics.binds_here(function, param.name.value):
                continue
            position = index if index < len(positional) else None
            if not any(self._call_may_pass(call, function, param.name.value, position) for call in calls):
                defaults[param.name.value] = value
        return defaults

    def _call_may_pass(self, call: cst.Call, function: cst.FunctionDef, name: str, position: int | None) -> bool:
        """Whether ``call`` may pass ``function``'s parameter ``name``: where it calls the
        function, as :func:`_may_pass` reads its arguments; where it hands it to ``tree_map``, as
        many positional arguments as the trees it maps (``tree_map(project, params)`` passes one);
        where it hands it to anything else, whatever that callee passes."""
        handed = _handing(call, function)
        if not handed:
            return _may_pass(call, name, position)
        if not self.matches(call.func, vocabulary.TREE_MAP) or call.args[0] is not handed[0] or len(handed) > 1:
            return True
        trees = call.args[1:]
        if any(a.star for a in trees):
            return True
        return position is not None and position < sum(1 for a in trees if a.keyword is None)

    def _few_trips_by_default(self, iterator: cst.Call, function: cst.FunctionDef) -> bool:
        """Whether ``range(n)`` stops at a parameter of ``function`` whose default, which every
        traced call of this file keeps (``def project(a, num_iter=1)`` mapped by ``tree_map``),
        makes a few steps: as few copies of the body as the ``range`` of that constant."""
        given = [a for a in iterator.args if a.keyword is None and not a.star]
        if len(given) != len(iterator.args) or len(given) > 2 or (
            len(given) == 2 and scopes.int_value(given[0].value) is None
        ):
            return False
        stop = given[-1].value
        if not isinstance(stop, cst.Name) or self.semantics.binding_scope(stop) is not function:
            return False
        default = self._defaults_kept(function).get(stop.value, _NO_VALUE)
        start = scopes.int_value(given[0].value) if len(given) == 2 else 0
        return isinstance(default, int) and not isinstance(default, bool) and len(range(start, default)) <= FEW_TRIPS

    def _constant_left_off(self, loop: cst.For, function: cst.FunctionDef) -> bool:
        """Whether an ``if`` around ``loop`` tests a module-level name bound once to a literal
        (``DEBUG = False``) whose value sends the loop's branch the other way: it never runs."""
        branch = loop
        for holder in self.ancestors(loop):
            if holder is function:
                return False
            if isinstance(holder, cst.If):
                values = {}
                for name in self.semantics.of_kind(holder.test, cst.Name):
                    bound = self.semantics.assigned_value(name)
                    if bound is not None and isinstance(self.semantics.binding_scope(name), cst.Module):
                        value = _literal(bound)
                        if value is not _NO_VALUE:
                            values[name.value] = value
                truth = _truth(holder.test, values) if values else None
                if truth is not None and truth != self.semantics.contains(holder.body, branch):
                    return True
            branch = holder
        return False

    def _rebound_by_another_loop(self, name: cst.Name, var: str) -> bool:
        """Whether ``name`` is another ``for var in ...``'s target, or is read in that loop's body,
        where the loop has bound ``var`` itself: neither sees the value this loop leaves."""
        for ancestor in self.ancestors(name):
            if isinstance(ancestor, scopes.NESTED_SCOPES):
                return False
            if isinstance(ancestor, cst.For) and isinstance(ancestor.target, cst.Name) and ancestor.target.value == var:
                return True
        return False

    def _builds_function(self, loop: cst.For, name: str) -> bool:
        """Whether the loop rebinds ``name`` to a transformed function (``split = jax.vmap(split,
        ...)`` once per axis) or a lambda (``g = lambda v, prev=prev: jax.grad(prev)(v)``, the next
        derivative): composing functions emits no operation, so no program grows."""
        makers = vocabulary.TRACING_TRANSFORMS | vocabulary.JIT | vocabulary.PARTIAL
        return any(
            scopes.assign_to(assign, name) and (
                isinstance(assign.value, cst.Lambda)
                or isinstance(assign.value, cst.Call) and self.matches(assign.value.func, makers)
            )
            for assign in self.semantics.of_kind(loop.body, cst.Assign)
        )

    def _traced_bound(self, iterator: cst.Call, function: cst.FunctionDef) -> bool:
        """Whether ``range(...)`` takes a parameter of ``function`` that its ``jit`` decorator
        traces (not named by ``static_argnums``/``static_argnames``) and nothing rebinds: Python
        cannot make a ``range`` of a tracer, so the function raises instead of unrolling."""
        traced = self.traced.traced_parameters(function)
        return any(
            isinstance(arg.value, cst.Name) and arg.value.value in traced and sum(
                scopes.binding_role(self.semantics.parents, n)[0] is not None
                for n in self.semantics.names_in(function, arg.value.value)
            ) == 1
            for arg in iterator.args
        )

    def _list_recurrences(self, loop: cst.For, function: cst.FunctionDef) -> list[str]:
        """The Python lists the body grows with a value computed from one of their own items
        (``rets.append(r[t] + d[t] * rets[-1])``, ``adv.insert(0, f(adv[0]))``): a recurrence
        carried through the list, which the unrolled loop repeats as a name-carried one does;
        not one of Python numbers and shapes (``strides.append(strides[-1] * shape[k])``), which
        runs at trace time."""
        static = self._static_locals(function) | ({loop.target.value} if isinstance(loop.target, cst.Name) else set())
        found = []
        for call in self.semantics.find(loop.body, lambda n: isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)):
            owner = call.func.value
            if call.func.attr.value not in ("append", "insert") or not isinstance(owner, cst.Name) or owner.value in found:
                continue
            if any(
                isinstance(read.value, cst.Name) and read.value.value == owner.value
                for arg in call.args for read in self.semantics.of_kind(arg.value, cst.Subscript)
            ) and not all(self._static(arg.value, static | {owner.value}) for arg in call.args):
                found.append(owner.value)
        return found

    def _static_locals(self, function: cst.FunctionDef) -> set[str]:
        """The names ``function`` binds once, plainly, to a Python value at trace time (see
        :meth:`_static`; ``buf_shape = cells.shape[:dim]``), a few assignments deep."""
        values: dict[str, list] = {}
        for node in self.semantics.own_of_kind(function, cst.Name):
            role, holder = scopes.binding_role(self.semantics.parents, node)
            if role is not None:
                values.setdefault(node.value, []).append(holder.value if role == "plain" else None)
        static: set[str] = set()
        for _ in range(3):
            grown = {
                name for name, bound in values.items()
                if name not in static and len(bound) == 1 and bound[0] is not None and self._static(bound[0], static)
            }
            if not grown:
                break
            static |= grown
        return static

    def _over_arange(self, iterator: cst.BaseExpression) -> bool:
        """Whether the loop runs over ``jnp.arange(...)`` (or its ``reversed``): under ``jit`` each
        of its items is a step of the unrolled program, as ``range``'s are (rlax's returns)."""
        if isinstance(iterator, cst.Call) and self.matches(iterator.func, {"builtins.reversed"}) and len(iterator.args) == 1:
            iterator = iterator.args[0].value
        return isinstance(iterator, cst.Call) and self.matches(iterator.func, {f"{vocabulary.JNP}.arange"}) is not None

    def _makes_layers(self, loop: cst.For) -> bool:
        """Whether the body makes a model's layer or parameter each step (``nn.Dense(16)(x)``,
        ``Block(...)`` of a model class of this file, ``Conv(16)(x)`` in a model's method of a class
        it imports, ``self.param(...)``, ``hk.get_parameter``):
        each step has its own parameters, which only the framework's lifted scan could stack."""
        in_model = any(isinstance(a, cst.ClassDef) and a in self.traced.models for a in self.ancestors(loop))

        def makes(call: cst.Call) -> bool:
            func = call.func
            if in_model and isinstance(func, cst.Call) and isinstance(func.func, cst.Name) and func.func.value[:1].isupper() and any(
                "." in q for q in self.qualified_names(func.func)
            ):
                return True  # `Conv(16)(x)` in a model's method, `Conv` imported (another module's layer)
            if isinstance(func, cst.Attribute) and func.attr.value in vocabulary.INITIALIZER_METHODS and (
                isinstance(func.value, cst.Name) and func.value.value == "self"
            ):
                return True
            if self.matches(func, vocabulary.PARAMETER_CALLS):
                return True
            if isinstance(func, cst.Name) and self.semantics.binding(func) in self.traced.models:
                return True
            return any(
                name.startswith(vocabulary.LAYER_PACKAGES) and name.rsplit(".", 1)[1][:1].isupper()
                for name in self.qualified_names(func)
            )
        return bool(self.semantics.find(loop.body, lambda n: isinstance(n, cst.Call) and makes(n)))

    def _grows(self, loop: cst.For, carried: list[str]) -> bool:
        """Whether the body grows a carried array (``xp = jnp.concatenate([xp, y])``, or a helper
        of this file that returns one: ``xp = pad_ends(xp)``; also through a temporary or another
        carried name): its shape changes every step, which AT101 reports and no `scan` carry can
        hold. A stack of this step's values alone (``c = jnp.stack([a, b])``) grows nothing."""
        for assign in self.semantics.of_kind(loop.body, cst.Assign):
            if isinstance(assign.value, cst.Call) and (
                self.matches(assign.value.func, GROWTH) or self._growing_helper(assign.value.func)
            ):
                if any(self.semantics.variables(assign.value, name) for name in carried) and self._carried_back(
                    loop, assign, carried
                ):
                    return True  # `acc = concatenate([acc, y])`, also through a temporary (`tmp = ...; acc = tmp`)
        for extended in self.semantics.of_kind(loop.body, cst.AugAssign):
            if isinstance(extended.operator, cst.AddAssign) and isinstance(extended.value, (cst.Tuple, cst.List)) and (
                isinstance(extended.target, cst.Name) and extended.target.value in carried
            ):
                return True  # `shape += (n * k,)`: a Python tuple one item longer each step
        return False

    def _carried_back(self, loop: cst.For, assign: cst.Assign, carried: list[str]) -> bool:
        """Whether the grown value is carried to the next step: bound to a carried name, or to a
        name the body then binds a carried one to as it is (``tmp = ...; acc = tmp``). A window
        built from the carry and reduced (``window = concatenate([tok, drafts])`` ... ``tok =
        argmax(window @ w)``) keeps the carry's shape."""
        targets = {n.value for t in assign.targets for n in _bound_roots(t.target)}
        if targets & set(carried):
            return True
        return any(
            isinstance(other.value, cst.Name) and other.value.value in targets
            and any(n.value in carried for t in other.targets for n in _bound_roots(t.target))
            for other in self.semantics.of_kind(loop.body, cst.Assign)
        )

    def _growing_helper(self, func: cst.BaseExpression, depth: int = 0) -> bool:
        """Whether ``func`` is a helper of this file every ``return`` of which grows an array, by a
        growth function or another such helper (``_extrapolate_left(_extrapolate_right(y))``)."""
        helper = self.semantics.binding(func) if isinstance(func, cst.Name) and depth < 3 else None
        if not isinstance(helper, cst.FunctionDef):
            return False
        returns = self.semantics.own_of_kind(helper, cst.Return)
        return bool(returns) and all(
            isinstance(r.value, cst.Call) and (
                self.matches(r.value.func, GROWTH) is not None or self._growing_helper(r.value.func, depth + 1)
            )
            for r in returns
        )

    def _static_index(self, loop: cst.For, function: cst.FunctionDef) -> bool:
        """Whether the body uses the index where Python needs an int (see :meth:`_static_use`)."""
        var = _loop_var(loop)
        return var is not None and (
            self._static_use(loop.body, {var}, function, 0, self._edges(loop), index=True) or self._walks_sequence(loop, var)
        )

    def _reshaped_carry(self, loop: cst.For, carried: list[str]) -> bool:
        """Whether the body binds a carried name to a value that slices it (``img = img[::2] +
        img[1::2]``, ``x = x[1:]``), multiplies it by an outer product, or adds an axis to it
        (``m = jnp.expand_dims(m, -1)``): its shape changes from step to step, where a ``scan``'s
        carry keeps one."""
        for assign in self.semantics.of_kind(loop.body, cst.Assign):
            for name in (n.value for t in assign.targets for n in _bound_roots(t.target)):
                if name in carried and (
                    self._slices(assign.value, name, _loop_var(loop)) or self._slicing_helper(assign.value, name)
                    or self._outer_product(assign.value, name) or self._adds_axis(assign.value, name)
                ):
                    return True
        return False

    def _outer_product(self, value: cst.BaseExpression, name: str) -> bool:
        """Whether ``value`` is an outer product with ``name`` as a factor (``jnp.outer``,
        ``jnp.kron``, ``jnp.tensordot(r, m, axes=0)``, a polynomial product ``jnp.polymul``, a
        ``jnp.convolve`` not in mode ``"same"``): its rank or size changes each step."""
        if not isinstance(value, cst.Call) or any(a.star for a in value.args):
            return False
        factors = [a.value for a in value.args if a.keyword is None][:2]
        if not any(isinstance(f, cst.Name) and f.value == name for f in factors):
            return False
        if self.matches(value.func, vocabulary.OUTER_PRODUCTS):
            return True
        if self.matches(value.func, vocabulary.CONVOLUTIONS):
            mode = [a.value for a in value.args if a.keyword is not None and a.keyword.value == "mode"] or [
                a.value for a in value.args if a.keyword is None
            ][2:3]
            return not mode or isinstance(mode[0], cst.SimpleString) and mode[0].evaluated_value != "same"
        if self.matches(value.func, {"jax.numpy.tensordot"}):
            axes = [a.value for a in value.args if a.keyword is not None and a.keyword.value == "axes"] or [
                a.value for a in value.args if a.keyword is None
            ][2:3]
            return bool(axes) and scopes.int_value(axes[0]) == 0
        return False

    def _adds_axis(self, value: cst.BaseExpression, name: str) -> bool:
        """Whether ``value`` is ``name`` with an axis added (``jnp.expand_dims(x, -1)``,
        ``x[..., None]``, ``x[None]``, ``jnp.reshape(x, x.shape + (1,))``): its rank grows each step."""
        if isinstance(value, cst.Call) and self.matches(value.func, {f"{vocabulary.JNP}.expand_dims"}) and value.args and (
            isinstance(value.args[0].value, cst.Name) and value.args[0].value.value == name
        ):
            return True
        reshaped = [a.value for a in value.args] if isinstance(value, cst.Call) and (
            self.matches(value.func, {f"{vocabulary.JNP}.reshape"})
            or isinstance(value.func, cst.Attribute) and value.func.attr.value == "reshape"
            and isinstance(value.func.value, cst.Name) and value.func.value.value == name
        ) else []
        if any(  # `jnp.reshape(x, x.shape + (1,))`: its own shape and more
            isinstance(shape, cst.BinaryOperation) and isinstance(shape.operator, cst.Add) and any(
                isinstance(side, cst.Attribute) and side.attr.value == "shape" and isinstance(side.value, cst.Name)
                and side.value.value == name for side in (shape.left, shape.right)
            ) for shape in reshaped
        ):
            return True
        return isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name) and value.value.value == name and any(
            isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Name) and e.slice.value.value == "None"
            for e in value.slice
        )

    def _slices(self, expr: cst.CSTNode, name: str, index: str | None = None) -> bool:
        """Whether ``expr`` takes a part of ``name`` along an axis (``x[1:]``, ``img[::2]``), other
        than a window of fixed length that moves with the loop's ``index`` (``d[:, k:k + 1]`` in a
        Floyd-Warshall step, which broadcasts back against ``d``: the same shape every step)."""
        return any(
            isinstance(s.value, cst.Name) and s.value.value == name
            and any(
                isinstance(e.slice, cst.Slice) and (e.slice.lower, e.slice.upper, e.slice.step) != (None, None, None)
                and not self._moving_window(e.slice, index)
                for e in s.slice
            )
            for s in self.semantics.of_kind(expr, cst.Subscript)
        )

    def _moving_window(self, part: cst.Slice, index: str | None) -> bool:
        """Whether ``part`` is ``lower:lower + c`` (``c`` an int literal) with ``lower`` reading
        the loop's ``index``."""
        upper = part.upper
        return index is not None and part.lower is not None and part.step is None and (
            isinstance(upper, cst.BinaryOperation) and isinstance(upper.operator, cst.Add)
            and isinstance(upper.right, cst.Integer) and self.code_of(upper.left) == self.code_of(part.lower)
            and bool(self.semantics.names_in(part.lower, index))
        )

    def _slicing_helper(self, value: cst.BaseExpression, name: str) -> bool:
        """Whether ``value`` calls a helper of this file with ``name`` by position, and a
        ``return`` of the helper slices that parameter (``c = derivative(c)`` where ``derivative``
        returns ``c[:-1] * ...``): the carry changes shape the same way."""
        if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Name):
            return False
        helper = self.semantics.binding(value.func)
        if not isinstance(helper, cst.FunctionDef):
            return False
        params = [p.name.value for p in helper.params.params]
        positions = [
            k for k, a in enumerate(value.args)
            if a.keyword is None and not a.star and isinstance(a.value, cst.Name) and a.value.value == name
        ]
        return any(
            k < len(params) and r.value is not None and self._slices(r.value, params[k])
            for k in positions for r in self.semantics.own_of_kind(helper, cst.Return)
        )

    def _edges(self, loop: cst.For) -> frozenset[str]:
        """The loop's first and last index as spelled (``0`` and ``T - 1`` for ``range(T)``, either
        way round for its ``reversed``): a test of the index against one peels an edge step
        (``last if t == T - 1 else values[t + 1]``), which a scan writes with ``jnp.where``."""
        iterator = self.range_call(loop.iter)
        if iterator is None:
            return frozenset()
        args = [a.value for a in iterator.args]
        if not 1 <= len(args) <= 2 or any(a.keyword or a.star for a in iterator.args):
            return frozenset()  # a step makes the last index a computation
        start, stop = ("0", self.code_of(args[0])) if len(args) == 1 else (self.code_of(args[0]), self.code_of(args[1]))
        literal = scopes.int_value(args[-1])
        last = str(literal - 1) if literal is not None else f"{stop} - 1"
        return frozenset({start, last})

    def _walks_sequence(self, loop: cst.For, var: str) -> bool:
        """Whether the loop walks ``range(len(obj.items))`` and reads ``obj.items[var]``: an
        object's attribute measured by ``len`` and walked by position is a Python list of arrays
        (of different lengths, often: jax-fem's ``fe.node_inds_list``) as often as an array, and a
        traced index cannot subscript a list."""
        iterator = loop.iter
        if not (isinstance(iterator, cst.Call) and self.matches(iterator.func, {"builtins.range"}) and len(iterator.args) == 1):
            return False
        measured = iterator.args[0].value
        if not (isinstance(measured, cst.Call) and self.matches(measured.func, {"builtins.len"}) and len(measured.args) == 1):
            return False
        items = measured.args[0].value
        if not isinstance(items, cst.Attribute):
            return False  # a parameter or a local: an array as often as a list (`range(len(xs))`)
        spelled = self.code_of(items)
        return any(
            self.code_of(node.value) == spelled
            and any(isinstance(e.slice, cst.Index) and self.semantics.names_in(e.slice.value, var) for e in node.slice)
            for node in self.semantics.of_kind(loop.body, cst.Subscript)
        )

    def _static_use(
        self, tree: cst.CSTNode, names: set[str], function: cst.FunctionDef, depth: int, edges: frozenset[str] = frozenset(),
        control: bool = True, index: bool = False,
    ) -> bool:
        """Whether ``tree`` uses one of ``names`` (or a name computed from one) where Python needs
        an int: a bound of a slice whose length changes with it (``x[k + 1:n]``, not
        ``x[i:i + 2]``), a ``range`` argument, the test of an ``if`` or a conditional expression, an index into a container that ``function``
        assigns items of (``parts[j] = ...``, which JAX arrays refuse) or that is a list, tuple or
        dict display, or whose item is called (``layers[k](x)``: no array is callable), a string
        made of it (``"w%d" % (l + 1)``, ``f"w{l}"``, ``str(l)``: a dict key, a layer's name), a
        boolean mask computed from it (``x[np.arange(n) != i]``, whose size must be concrete), a keyword argument that JAX needs static (``axis=``, ``shape=``, see
        :data:`vocabulary.STATIC_KEYWORDS`), an argument of a NumPy or ``math`` function or of
        ``int()`` (``np.min([(i + 1) * b, n])``: they need a concrete value), a shape or count of
        a JAX array function (``jnp.arange(-el, el + 1)``), or an argument of a function of this
        module that uses it so, or of one of another module of the run (whose body is not read here).
        A test of the index itself against one of ``edges`` (``t == T - 1``) is not: see :meth:`_edges`.
        Without ``control``, no test is (a flag the loop carries, ``if not seen:``, a scan can carry
        and test with ``lax.cond``). Only for the loop's ``index`` is a call of another module's
        function a use (a carried value handed to one, ``state = step(state)``, is a scan's carry)."""
        derived = set(names)
        computed: dict[str, list[cst.BaseExpression]] = {}  # a derived name -> the values assigned to it
        for assign in self.semantics.of_kind(tree, cst.Assign):
            if len(assign.targets) != 1 or not any(self.semantics.names_in(assign.value, v) for v in derived):
                continue
            target = assign.targets[0].target
            if isinstance(target, cst.Name):
                derived.add(target.value)
                computed.setdefault(target.value, []).append(assign.value)
            elif isinstance(target, (cst.Tuple, cst.List)):  # `ca, cd = dwt(image)`: each part is computed from it
                derived.update(n.value for n in _bound_roots(target))
        uses = lambda node: node is not None and any(self.semantics.names_in(node, v) for v in derived)  # noqa: E731

        def uses_value(node: cst.BaseExpression) -> bool:
            """:func:`uses`, but not through an array's metadata (``shape=logits.shape``): a scan
            keeps its carry's shape and dtype, so those stay Python values."""
            return any(
                not (isinstance(self.parent(n), cst.Attribute) and self.parent(n).value is n
                     and self.parent(n).attr.value in vocabulary.ARRAY_METADATA)
                for v in derived for n in self.semantics.names_in(node, v)
            )

        def int_of_index(expr: cst.BaseExpression, depth: int = 0) -> bool:
            """Whether ``expr`` is the index itself or int arithmetic of it (``el``, ``-mm``,
            ``N - 1 + n``, through names bound once), not an array computed from it."""
            if isinstance(expr, cst.Name):
                return expr.value in names or len(computed.get(expr.value, ())) == 1 and depth < 4 and int_of_index(
                    computed[expr.value][0], depth + 1
                )
            if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
                return int_of_index(expr.expression, depth)
            if isinstance(expr, cst.BinaryOperation) and isinstance(
                expr.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
            ):
                sides = [expr.left, expr.right]
                return any(int_of_index(e, depth) for e in sides) and all(
                    int_of_index(e, depth) or isinstance(e, (cst.Integer, cst.Name)) and not uses(e) for e in sides
                )
            return False

        moving: dict[str, bool] = {}

        def polynomial(expr: cst.BaseExpression, depth: int = 0) -> dict[tuple[str, ...], int]:
            """A slice bound as a sum of products of atoms (names and whatever else is not
            ``+``, ``-``, ``*`` of int literals), each product with its count, names computed
            once followed a few levels: two bounds that differ by products of fixed atoms alone
            make a window of fixed length (``x[t:t + 2]``, ``x[bs * i:bs * (i + 1)]``,
            ``end = start + size``)."""
            if isinstance(expr, cst.Integer):
                return {(): int(expr.evaluated_value)}
            if isinstance(expr, cst.Name) and len(computed.get(expr.value, ())) == 1 and depth < 4:
                return polynomial(computed[expr.value][0], depth + 1)
            if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
                return {k: -v for k, v in polynomial(expr.expression, depth).items()}
            if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract, cst.Multiply)):
                left, right = polynomial(expr.left, depth), polynomial(expr.right, depth)
                if isinstance(expr.operator, cst.Multiply):
                    terms = [(tuple(sorted(m + n)), c * d) for m, c in left.items() for n, d in right.items()]
                else:
                    sign = -1 if isinstance(expr.operator, cst.Subtract) else 1
                    terms = [*left.items(), *((m, sign * c) for m, c in right.items())]
                summed: dict[tuple[str, ...], int] = {}
                for monomial, count in terms:
                    summed[monomial] = summed.get(monomial, 0) + count
                return summed
            code = self.code_of(expr.with_changes(lpar=[], rpar=[]) if getattr(expr, "lpar", None) else expr)
            moving[code] = moving.get(code, False) or uses(expr)
            return {(code,): 1}

        def fixed_length(lower: cst.BaseExpression, upper: cst.BaseExpression) -> bool:
            difference = polynomial(upper)
            for monomial, count in polynomial(lower).items():
                difference[monomial] = difference.get(monomial, 0) - count
            return not any(count and any(moving[atom] for atom in monomial) for monomial, count in difference.items())
        item_assigned = {  # `parts[j] = ...`, `table[0][j] = ...`: the container's name
            _root(target).value
            for a in self.semantics.of_kind(function.body, cst.Assign, cst.AugAssign)
            for target in ([t.target for t in a.targets] if isinstance(a, cst.Assign) else [a.target])
            if isinstance(target, cst.Subscript) and isinstance(_root(target), cst.Name)
        }
        kinds = (
            cst.Slice, cst.Call, cst.Subscript, cst.If, cst.IfExp, cst.While, cst.CompIf, cst.BinaryOperation,
            cst.FormattedStringExpression,
        )
        for node in self.semantics.of_kind(tree, *kinds):
            if isinstance(node, cst.FormattedStringExpression):
                if uses_value(node.expression):
                    return True  # `f"w{l}"`: a string made of the index (a dict key, a name)
            elif isinstance(node, cst.BinaryOperation):
                if isinstance(node.operator, cst.Modulo) and isinstance(node.left, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)) and uses_value(node.right):
                    return True  # `"w%d" % (l + 1)`
            elif isinstance(node, (cst.If, cst.IfExp, cst.While, cst.CompIf)):
                if control and uses(node.test) and not (isinstance(node, (cst.If, cst.IfExp)) and _tests_edge(self, node.test, names, edges)):
                    return True  # Python control flow on the index (a comprehension's `if u != t` too)
            elif isinstance(node, cst.Slice) or isinstance(node, cst.Call) and self.matches(node.func, {"builtins.slice"}):
                lower, upper, step = _slice_bounds(node)
                if uses(step) or uses(lower) != uses(upper):
                    return True
                if uses(lower) and not fixed_length(lower, upper):
                    return True  # `x[start:end]`, `end = min(n, start + size)`: a length that may change
            elif isinstance(node, cst.Call):
                if self.matches(node.func, {"builtins.range", "builtins.str", "builtins.repr"}) and any(uses(a.value) for a in node.args):
                    return True  # (`str(l)`: a string made of the index)
                if isinstance(node.func, cst.Attribute) and node.func.attr.value == "format" and isinstance(
                    node.func.value, (cst.SimpleString, cst.ConcatenatedString)
                ) and any(uses_value(a.value) for a in node.args):
                    return True  # `"w{}".format(l)`
                if any(uses_value(a.value) for a in node.args) and any(
                    q.startswith(("numpy.", "math.")) or q in vocabulary.CONCRETE_CONVERSIONS for q in self.qualified_names(node.func)
                ):
                    return True  # `np.min([(i + 1) * b, n])`, `math.floor(i / 2)`, `int(i)`: they need a concrete value
                if any(a.keyword is not None and a.keyword.value in vocabulary.STATIC_KEYWORDS and uses_value(a.value)
                       for a in node.args):
                    return True  # `jnp.cumsum(x, axis=k)`: JAX refuses a traced axis, shape or count
                shaped = self.matches(node.func, vocabulary.STATIC_POSITIONALS)
                if shaped is not None and any(
                    uses_value(a.value) for a in [a for a in node.args if a.keyword is None][: vocabulary.STATIC_POSITIONALS[shaped]]
                ):
                    return True  # `jnp.arange(-el, el + 1)`: a shape or count made of the index
                if index and depth == 0 and any(int_of_index(a.value) for a in node.args) and self._of_other_module(node.func):
                    return True  # `compute(d, beta, L, el)` of another module of the run: it may need the int
                callee, params = self._positional_params(node.func)
                if callee is not None and depth < 2 and not any(a.star or a.keyword for a in node.args):
                    passed = {p for p, a in zip(params, node.args) if uses(a.value)}
                    if passed and self._static_use(callee.body, passed, callee, depth + 1, control=control, index=index):
                        return True
            elif any(isinstance(e.slice, cst.Index) and uses(e.slice.value) for e in node.slice):
                masks = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
                if any(isinstance(m, cst.Comparison) or isinstance(m, cst.Name) and any(
                    isinstance(v, cst.Comparison) for v in computed.get(m.value, ())
                ) for m in masks if uses(m)):
                    return True  # `x[np.arange(n) != i]`: a boolean mask's size must be concrete
                called = self.parent(node)
                if isinstance(called, cst.Call) and called.func is node:
                    return True  # `blocks[b][k](x)`: no array is callable, so this is a Python sequence of functions
                root = _root(node)  # `table[0][k]` indexes the same container as `table[k]`
                if isinstance(root, cst.Name) and (root.value in item_assigned or self._holds_container(root, function)):
                    return True  # a Python container (`mems = [m for m in mems]`, `mems: list[Memory]`)
                if isinstance(root, cst.Name) and node.value is not root and root.value in self._appended_members():
                    return True  # `params["w"][i]` where the file appends to `params[...]`: a list of layers
        return False

    def _positional_params(self, func: cst.BaseExpression) -> tuple[cst.FunctionDef | None, list[str]]:
        """The ``def`` of this file that calling ``func`` runs, and the parameters the call's
        positional arguments go to: ``func`` names the ``def``, or a name bound to a ``partial``
        of it (``refine = partial(_refine, c)``: the call's first argument goes to the second
        parameter, the keywords it binds taken out)."""
        callee = self.semantics.binding(func) if isinstance(func, cst.Name) else None
        bound: list[cst.Arg] = []
        if isinstance(callee, cst.Call) and self.matches(callee.func, vocabulary.PARTIAL) and callee.args and not any(
            a.star for a in callee.args
        ) and callee.args[0].keyword is None and isinstance(callee.args[0].value, cst.Name):
            bound = list(callee.args[1:])
            callee = self.semantics.binding(callee.args[0].value)
        if not isinstance(callee, cst.FunctionDef):
            return None, []
        keywords = {a.keyword.value for a in bound if a.keyword is not None}
        params = [p.name.value for p in (*callee.params.posonly_params, *callee.params.params)]
        return callee, [p for p in params[sum(a.keyword is None for a in bound):] if p not in keywords]

    def _of_other_module(self, func: cst.BaseExpression) -> bool:
        """Whether ``func`` names a function of another module of the run (``from helpers import
        step``): its body, which this rule does not read, may need the index as a Python int
        (a ``static_argnums`` parameter, a shape, an ``if``)."""
        modules = self.context.imported.modules
        return bool(modules) and any(name.rpartition(".")[0] in modules for name in self.run_names(func))

    def _appended_members(self) -> frozenset[str]:
        """The names whose items or attributes the file appends to (``params[name + ".w"].append(w)``):
        a parameter of that name holds lists there (a layer's weights each, of its own shape), which
        a traced index cannot pick from."""
        if getattr(self, "_appended", None) is None:  # read from the text: the parsed slice may leave out `__init__`
            appended = r"\b(\w+)\s*\[[^\n]*\]\s*\.\s*(?:append|extend|insert)\s*\("
            self._appended = frozenset(m.group(1) for m in re.finditer(appended, self.context.source.text))
        return self._appended

    def _holds_container(self, name: cst.Name, function: cst.FunctionDef) -> bool:
        """Whether ``name`` may hold a Python list, tuple or dict where it is read: ``function``
        binds it to a display, a comprehension or ``list(...)`` (anywhere: it may be the value at
        the read), or annotates its parameter so (``memories: List[Memory]``); outside ``function``,
        the one value the module binds to it is one."""
        def display(value: cst.BaseExpression | None) -> bool:
            return isinstance(value, (cst.List, cst.Tuple, cst.Dict, cst.ListComp, cst.DictComp)) or (
                isinstance(value, cst.Call) and self.matches(value.func, PYTHON_CONTAINERS) is not None
            )

        def container(value: cst.BaseExpression | None) -> bool:
            """A display, or an item of a display of displays (`idx = index_lists[s]`), or a part of
            a name whose entries the file appends to (`Ws = params["Ws"]`: a list of layers)."""
            if display(value):
                return True
            root = _root(value) if isinstance(value, (cst.Subscript, cst.Attribute)) else None
            if not isinstance(root, cst.Name):
                return False
            if root.value in self._appended_members():
                return True
            if not (isinstance(value, cst.Subscript) and value.value is root):
                return False
            outer = self.semantics.assigned_value(root)
            return any(
                isinstance(o, (cst.List, cst.Tuple)) and bool(o.elements)
                and all(not isinstance(e, cst.StarredElement) and display(e.value) for e in o.elements)
                for o in ([outer] if outer is not None else self._given_arguments(root))
            )
        if self.semantics.binding_scope(name) is not function:
            return container(self.semantics.assigned_value(name))
        if any(
            p.name.value == name.value and p.annotation is not None and _annotated_container(p.annotation.annotation)
            for p in scopes.all_params(function)
        ) or self._given_container(name, function, container):
            return True
        for node in self.semantics.names_in(function.body, name.value):
            role, holder = scopes.binding_role(self.semantics.parents, node)
            if role == "plain" and self.semantics.enclosing_scope(node) is function and container(holder.value):
                return True
        return self._carried_container(name, function)

    def _given_container(self, name: cst.Name, function: cst.FunctionDef, container) -> bool:
        """Whether a traced call of this file gives ``function``'s parameter ``name`` a Python
        container: a display or ``list(...)`` (``weights([x, x + 1.0], n)``), or a name its caller
        binds to one (``ws = [x, x + 1.0]`` then ``weights(ws, n)``)."""
        has, position = _parameter_slot(function, name.value)
        if not has:
            return False
        for call in self.traced.traced_calls.get(function, {}):
            arg = scopes.call_argument(call, name.value, position)
            if not isinstance(arg, cst.Arg) or _handing(call, function):
                continue  # left to its default, or through a star; or the function handed on, not called
            value = arg.value
            if container(value) or isinstance(value, cst.Name) and container(self.semantics.assigned_value(value)):
                return True
        return False

    def _given_arguments(self, name: cst.Name) -> list[cst.BaseExpression]:
        """Where ``name`` is a parameter of a ``def`` of the file (a factory's ``index_lists``,
        read by the function it builds), the values the file's calls of that ``def`` give it
        (``make([[0, 2], [1]], sizes)``)."""
        scope = self.semantics.binding_scope(name)
        has, position = _parameter_slot(scope, name.value) if isinstance(scope, cst.FunctionDef) else (False, None)
        if not has:
            return []
        given = []
        for use in self.semantics.names_in(self.context.module, scope.name.value):
            call = self.semantics.parents.get(use)
            if isinstance(call, cst.Call) and call.func is use and self.semantics.binding(use) is scope:
                arg = scopes.call_argument(call, name.value, position)
                if isinstance(arg, cst.Arg):
                    given.append(arg.value)
        return given

    def _carried_container(self, name: cst.Name, function: cst.FunctionDef) -> bool:
        """Whether ``name`` is unpacked from the carry of a ``lax`` loop body (``state, obs, mems
        = carry``) at a position where each ``return`` of the body puts a Python container back
        (``return (state, obs, new_mems), ys`` with ``new_mems = []``): a loop keeps its carry's
        structure, so the carry holds that container at every step."""
        traced = self.traced.by_function.get(function)
        if traced is None or traced.kind != "loop-body":
            return False
        params = {p.name.value for p in scopes.all_params(function)}
        position, arity = None, None
        for node in self.semantics.names_in(function.body, name.value):
            role, holder = scopes.binding_role(self.semantics.parents, node)
            if role is None:
                continue
            target = holder.targets[0].target if isinstance(holder, cst.Assign) and len(holder.targets) == 1 else None
            if position is not None or not (
                isinstance(target, cst.Tuple) and isinstance(holder.value, cst.Name) and holder.value.value in params
            ):
                return False  # bound otherwise, or twice
            names = [e.value for e in target.elements]
            if any(isinstance(e, cst.StarredElement) for e in target.elements) or node not in names:
                return False
            position, arity = names.index(node), len(names)
        returns = self.semantics.own_of_kind(function, cst.Return)
        if position is None or not returns:
            return False
        for ret in returns:
            carry = ret.value
            if isinstance(carry, cst.Tuple) and len(carry.elements) == 2 and isinstance(carry.elements[0].value, cst.Tuple):
                carry = carry.elements[0].value  # a `scan` body's `(carry, ys)`
            if not isinstance(carry, cst.Tuple) or len(carry.elements) != arity:
                return False
            value = carry.elements[position].value
            if isinstance(value, (cst.List, cst.Tuple, cst.Dict, cst.ListComp, cst.DictComp)):
                continue
            if not (isinstance(value, cst.Name) and value.value != name.value and self._holds_container(value, function)):
                return False
        return True

    def _carried(self, loop: cst.For, function: cst.FunctionDef) -> list[str]:
        """Names bound before the loop and assigned in its body: what a ``lax.scan`` of the body
        carries from step to step and out of the loop (read in the body or only after it)."""
        before = {p.name.value for p in function.params.params}
        for assign in self.semantics.own_of_kind(function, cst.Assign, cst.AnnAssign, cst.AugAssign):
            if self.semantics.precedes(assign, loop):
                targets = assign.targets if isinstance(assign, cst.Assign) else [assign]
                for t in targets:
                    before.update(n.value for n in self.semantics.of_kind(t.target, cst.Name))
        carried = []
        for assign in self.semantics.of_kind(loop.body, cst.Assign, cst.AugAssign):
            targets = assign.targets if isinstance(assign, cst.Assign) else [assign]
            for t in targets:
                for name in _bound_roots(t.target):
                    if name.value in before and name.value not in carried and name.value != _loop_var(loop):
                        carried.append(name.value)
        return [name for name in carried if not self._step_local(loop, function, name)]

    def _step_local(self, loop: cst.For, function: cst.FunctionDef, name: str) -> bool:
        """Whether ``name``, though bound before the loop, is a temporary of each step: a plain
        statement of the body binds it before any read there (``loss = f(x[n])`` then ``loss <
        best``), and nothing reads it after the loop or from a nested function. Bound before in
        another branch (``if parallel: loss = ...``), it is no value a scan carries. A read in a
        later loop that binds the name first in each of its steps (scratch names shared by
        consecutive loops) reads that loop's value, not this one's."""
        if not self._bound_first(loop, name):
            return False
        around = []  # the loops around this one in the function
        for ancestor in self.ancestors(loop):
            if ancestor is function:
                break
            if isinstance(ancestor, (cst.For, cst.While)):
                around.append(ancestor)
        for use in self.semantics.names_in(function.body, name):
            if self.semantics.enclosing_scope(use) is not function:
                return False
            if scopes.binding_role(self.semantics.parents, use)[0] is not None or self.semantics.contains(loop, use):
                continue  # a binding, or in the loop
            if not self.semantics.after(use, loop):
                if any(self.semantics.contains(outer, use) for outer in around):
                    return False  # read on the next pass of a loop around this one, after it
                continue
            later = next((
                a for a in self.ancestors(use)
                if isinstance(a, cst.For) and self.semantics.after(a, loop) and self.semantics.within(use, a.body)
            ), None)
            if later is None or not self._bound_first(later, name):
                return False
        return True

    def _bound_first(self, loop: cst.For, name: str) -> bool:
        """Whether a plain statement of the loop's body binds ``name`` before any read of it there."""
        body = loop.body.body if isinstance(loop.body, cst.IndentedBlock) else ()
        for statement in body:
            small = statement.body if isinstance(statement, cst.SimpleStatementLine) else ()
            binds = [
                s for s in small if isinstance(s, cst.Assign) and any(
                    any(isinstance(n, cst.Name) and n.value == name for n in _unpacked(t.target)) for t in s.targets
                )
            ]
            if binds and len(small) == 1:
                return not self.semantics.names_in(binds[0].value, name)  # `x = x + 1`: read before bound again
            if self.semantics.names_in(statement, name):
                return False  # read (or bound in a branch) before a plain binding
        return False

    def _problem(self, loop: cst.For, function: cst.FunctionDef, carried: list[str]) -> str | None:
        if not isinstance(loop.target, cst.Name):
            return "the loop target is not a single name"
        if loop.orelse is not None and not scopes.does_nothing(loop.orelse.body):
            return "the loop has an `else` clause"
        if list(scopes.exits(loop)):
            return "the loop exits early (`break`/`continue`)"
        if any(a.keyword or a.star for a in loop.iter.args) or not 1 <= len(loop.iter.args) <= 3:
            return "`range` is called with keywords or unpacking"
        if not isinstance(loop.body, cst.IndentedBlock):
            return "the body shares the `for` line"
        assigned = []
        for line in loop.body.body:
            if not isinstance(line, cst.SimpleStatementLine):
                return "the body holds more than assignments (a nested block)"
            for small in line.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                    assigned.append(small.targets[0].target.value)
                elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
                    assigned.append(small.target.value)
                else:
                    return "the body holds more than assignments to names"
        for name in assigned:
            if name not in carried and not self._step_local(loop, function, name):
                return f"the body assigns `{name}`, which is not bound before the loop and is read after it or before the body binds it"
        var = loop.target.value
        if self.semantics.of_kind(loop.body, cst.NamedExpr):
            return "the body binds a name with `:=`, which the scan body would bind in its own scope"
        declared = self.semantics.of_kind(function.body, cst.Global, cst.Nonlocal)
        if declared:
            return f"the function declares `global`/`nonlocal` names (line {self.start_line(declared[0])}), which code the loop calls may read step by step"
        unbound = next((c for c in carried if not self._bound_before(loop, function, c)), None)
        if unbound is not None:
            return f"`{unbound}` is not bound on every path to the loop, and the scan's initial carry reads it"
        derived = {var}  # `lo = b * 4`, `hi = lo + 4`: names the body computes from the index
        assigns = self.semantics.of_kind(loop.body, cst.Assign)
        while True:
            grown = {
                n.value for a in assigns if any(self.semantics.names_in(a.value, v) for v in derived)
                for t in a.targets for n in _bound_roots(t.target)
            } - derived
            if not grown:
                break
            derived |= grown
        windows = [
            n for n in self.semantics.of_kind(loop.body, cst.Slice)
            if any(part is not None and self.semantics.names_in(part, v) for part in (n.lower, n.upper) for v in derived)
        ]
        if windows:
            return (
                f"the index `{var}` is a slice bound (line {self.start_line(windows[0])}), which a traced index cannot "
                "be; take the window with `lax.dynamic_slice_in_dim` first"
            )
        if any(self.semantics.names_in(e.test, var) for e in self.semantics.of_kind(loop.body, cst.IfExp)):
            return f"the body tests `{var}` in a conditional expression (a peeled first or last step), which a scan writes with `jnp.where`"
        outside = [
            n for n in self.semantics.names_in(function.body, var)
            if not self.semantics.contains(loop, n) and not self._rebound_by_another_loop(n, var)
            and scopes.binding_role(self.semantics.parents, n)[0] not in ("plain", "unpack")  # `x, _ = c` only binds it
        ]
        if outside:
            return f"the loop variable `{var}` is used outside the loop"
        for nested in self.semantics.find(function.body, lambda n: isinstance(n, scopes.NESTED_SCOPES)):
            seen = next((c for c in carried if scopes.sees(nested, c)), None)
            if seen and not self.semantics.contains(loop, nested):
                return (
                    f"a nested function (line {self.start_line(nested)}) reads `{seen}`: in the loop it sees each "
                    "step's value, inside a scan body only the value before the loop"
                )
        reader = self.frame_reader(function.body)
        if reader is not None:
            call, name = reader
            return f"`{name}` (line {self.start_line(call)}) may read the function's locals by name (a frame it is handed or reaches)"
        return None

    def _python_only(self, loop: cst.For, function: cst.FunctionDef, carried: list[str]) -> bool:
        """Whether every carried name holds Python numbers, tuples or shapes before the loop and
        after each assignment in it (``scale = scale * 0.5``, ``dims = dims + (x.shape[k],)``):
        the loop then computes at trace time and puts nothing in the program. Names the function
        binds once to such values count too (``n = u.shape[1]`` ... ``c *= (n + k) / k``)."""
        names = {*carried, loop.target.value} if isinstance(loop.target, cst.Name) else set(carried)
        names |= self._static_locals(function) - names
        if names & {p.name.value for p in scopes.all_params(function)}:
            return False  # a parameter may hold an array
        if any(
            not (isinstance(small, (cst.Assign, cst.AugAssign, cst.Pass)) or self._appends_number(small, function, names))
            for small in self.semantics.find(loop.body, lambda n: isinstance(n, cst.BaseSmallStatement))
        ):
            return False  # the body does more than compute its numbers (`terms.append(c * u[:, k])`)
        for assign in self.semantics.own_of_kind(function, cst.Assign, cst.AugAssign, cst.AnnAssign):
            targets = [t.target for t in assign.targets] if isinstance(assign, cst.Assign) else [assign.target]
            if not any(n.value in carried for t in targets for n in _bound_roots(t)):
                continue
            if not self.semantics.precedes(assign, loop) and not self.semantics.contains(loop, assign):
                continue  # after the loop
            if len(targets) != 1 or assign.value is None or not self._static_binding(targets[0], assign.value, names):
                return False
        return bool(carried)

    def _static_binding(self, target: cst.BaseExpression, value: cst.BaseExpression, names: set[str]) -> bool:
        """Whether ``target = value`` binds Python values only: a name to one (:meth:`_static`),
        or a tuple of names to a tuple of as many (``x, y = y, x + y``)."""
        if isinstance(target, cst.Name):
            return self._static(value, names)
        if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)):
            return len(target.elements) == len(value.elements) and all(
                isinstance(t, cst.Element) and isinstance(v, cst.Element) and self._static_binding(t.value, v.value, names)
                for t, v in zip(target.elements, value.elements, strict=True)
            )
        return False

    def _appends_number(self, small: cst.BaseSmallStatement, function: cst.FunctionDef, names: set[str]) -> bool:
        """``coefs.append(c)`` of a Python value (see :meth:`_static`) to a list the function binds
        only to a display of such values (``coefs = []``): a list of numbers, made at trace time."""
        call = small.value if isinstance(small, cst.Expr) else None
        if not (
            isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "append"
            and isinstance(call.func.value, cst.Name) and len(call.args) == 1 and not call.args[0].keyword
            and not call.args[0].star and self._static(call.args[0].value, names)
        ):
            return False
        held = call.func.value.value
        if held in {p.name.value for p in scopes.all_params(function)}:
            return False
        bindings = [
            n for n in self.semantics.names_in(function, held)
            if scopes.binding_role(self.semantics.parents, n)[0] is not None
        ]
        values = [self.semantics.assigned_value(n) for n in bindings]
        return bool(values) and all(
            isinstance(v, cst.List) and all(isinstance(e, cst.Element) and self._static(e.value, names) for e in v.elements)
            for v in values
        )

    def _static(self, expr: cst.BaseExpression, names: set[str]) -> bool:
        """Whether ``expr`` is a Python value at trace time, built from literals, ``names``, array
        shapes and ``len``."""
        if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)):
            return True
        if isinstance(expr, cst.Name):
            return expr.value in names or expr.value in ("True", "False", "None")
        if isinstance(expr, cst.Tuple):
            return all(isinstance(e, cst.Element) and self._static(e.value, names) for e in expr.elements)
        if isinstance(expr, cst.Attribute):
            return expr.attr.value in ("shape", "ndim", "size")
        if isinstance(expr, cst.Subscript):  # `x.shape[k]`, `x.shape[:k]`: an item of a Python value is one
            return self._static(expr.value, names)
        if isinstance(expr, cst.BinaryOperation):
            return self._static(expr.left, names) and self._static(expr.right, names)
        if isinstance(expr, cst.UnaryOperation):
            return self._static(expr.expression, names)
        if isinstance(expr, cst.Call):
            return self.matches(expr.func, {"builtins.len"}) is not None and len(expr.args) == 1
        return False

    def _bound_before(self, loop: cst.For, function: cst.FunctionDef, name: str) -> bool:
        """Whether ``name`` is bound on every path to ``loop``: a parameter of ``function``, or a
        name a plain statement before the loop binds in the loop's block or a block around it
        (not one under an ``if`` or a ``try`` beside it)."""
        if name in {p.name.value for p in scopes.all_params(function)}:
            return True
        node: cst.CSTNode = loop
        while node is not function:
            block = self.parent(node)
            if isinstance(block, cst.IndentedBlock):
                siblings = list(block.body)
                for earlier in siblings[: siblings.index(node)]:
                    if isinstance(earlier, cst.SimpleStatementLine) and any(
                        scopes.binding_role(self.semantics.parents, n)[0] is not None
                        for n in self.semantics.names_in(earlier, name)
                    ):
                        return True
            node = block
        return False

    def _fix(self, loop: cst.For, carried: list[str]) -> Fix | str:
        lax = self.semantics.module_spelling("jax.lax")
        if lax is None:
            return self.unspelled("jax.lax")
        if self.semantics.builtin_shadowed("len") or self.semantics.builtin_shadowed("range"):
            return "`len` or `range` may not be the builtin here (a binding of the name or a star import), and the rewrite counts the steps with them"
        inner, text, comment = self._verbatim_body(loop)
        source = self.context.source
        indent = source.indentation(self.start_line(loop))
        body_name = self.fresh_name("scan_body", loop)
        var = loop.target.value
        # names of the rewrite's own that no read of the body can mean: not only the carried ones
        carry_name, unused, steps = (self.fresh_name(base, loop) for base in ("carry", "unused", "steps"))
        packed = carried[0] if len(carried) == 1 else f"({', '.join(carried)})"
        # The `range` is made once, where the loop made it: its start and step are the Python ints
        # the loop counted with (`__index__` of a NumPy int included), read by the body as
        # constants, so the index stays weakly typed and combines with other values as the Python
        # int did (an int8 carry plus the index stays int8), whatever the body rebinds.
        # The body's own lines stay as they are, at the depth they had in the loop (continuation
        # lines and multi-line strings unchanged).
        lines = [
            f"{steps} = range({', '.join(self.code_of(a.value) for a in loop.iter.args)}){comment}",
            f"{indent}def {body_name}({carry_name}, {unused}):",
            f"{inner}{packed}, {var} = {carry_name}",
            text,
            f"{inner}return ({packed}, {var} + {steps}.step), None",
            f"{indent}if {steps}:  # as the loop, run nothing for no steps (a scan traces its body even then)",
            f"{inner}{packed} = {lax}.scan({body_name}, ({packed}, {steps}.start), None, length=len({steps}))[0][0]",
        ]
        loc = self.location(loop)
        end = source.line(loc.end_line)
        edit = Edit(loc.line, loc.column, loc.end_line, len(end) + 1, source.newline.join(lines))
        return Fix("unsafe", "rewrite the loop as a `lax.scan`", (edit,))

    def _verbatim_body(self, loop: cst.For) -> tuple[str, str, str]:
        """The loop body's indentation, its lines as the file has them (from its first statement's
        leading comments to the end of its last line), and the `for` line's comment."""
        source, body = self.context.source, loop.body
        first, last = body.body[0], self.location(body.body[-1])
        begin = self.start_line(first) - len(first.leading_lines)
        text = source.text[source.offset(begin, 1) : source.offset(last.end_line, len(source.line(last.end_line)) + 1)]
        comment = body.header.comment
        return source.indentation(self.start_line(first)), text, f"  {comment.value}" if comment else ""


PYTHON_CONTAINERS = frozenset({"builtins.list", "builtins.tuple", "builtins.dict"})
"""Calls that make a Python container, which a traced index cannot subscript."""



def _where_compiled(traced, line: int) -> str:
    """Where the loop runs, for the message: why it is unrolled into a compiled program."""
    origin = traced.origin or traced.kind
    if traced.kind == "jit":
        return "runs under `jit`"
    if traced.kind == "called" and origin == "jit":
        return f"runs under `jit` (its function is called from jitted code, line {line})"
    if traced.kind == "called":
        return f"runs in a compiled program (its function is called from a `lax` loop body or branch, line {line})"
    what = "a `lax` loop body" if traced.kind == "loop-body" else "a `cond`/`switch` branch"
    return f"runs in {what} (line {line}), which is compiled"


def _called_from(facts: prefilter.Facts, functions: list, methods: bool) -> set[str]:
    """The names ``functions`` call (with ``methods``, also the attribute of ``x.name(...)``),
    and those they wrap where they run them: ``f`` of ``jax.vmap(f)(x)`` or ``jax.grad(f)``."""
    inside = prefilter.inside(facts.calls, functions)
    called = {
        site.node.func.id if isinstance(site.node.func, ast.Name) else site.node.func.attr
        for site in inside
        if isinstance(site.node.func, (ast.Name, ast.Attribute) if methods else ast.Name)
    }
    if methods and called & vocabulary.MODEL_ENTRIES:
        called.add("__call__")  # `model.apply(params, x)` runs a Flax module's `__call__`
    if methods and called & facts.instances({node.name for _, node in facts.classes}):
        called.add("__call__")  # `smoother(x)` of `smoother = Smoother()` runs its `__call__`
    return called | {
        prefilter.terminal(site.node.args[0])
        for site in inside
        if site.node.args and facts.name(site.node.func) in prefilter.TRACING_TERMINALS
        and prefilter.terminal(site.node.args[0]) is not None
    } | {  # `tree_map(smooth, x)`, `apply(fn=self.step)`: what the callee runs, it runs traced
        name
        for site in inside if methods and facts.name(site.node.func) not in vocabulary.SEPARATE_RUNNER_TERMINALS
        for arg in (*site.node.args, *(k.value for k in site.node.keywords))
        if isinstance(arg, (ast.Name, ast.Attribute)) and (name := prefilter.terminal(arg)) is not None
    } | (set(_aliased(facts, functions)) if methods else set())


def _aliased(facts: prefilter.Facts, functions: list) -> dict[str, list]:
    """The names of the attributes ``functions`` bind to a local name (``helper = Model.spread``,
    then ``helper(x, n)``), each with the functions that do: what the alias runs, they run."""
    held = {id(f.node): f for f in functions}
    found: dict[str, list] = {}
    for site in facts.attribute_binds:
        for around in site.functions:
            if id(around) in held:
                found.setdefault(site.node.value.attr, []).append(held[id(around)])
    return found


def _parameter_slot(function: cst.FunctionDef, name: str) -> tuple[bool, int | None]:
    """Whether ``function`` has a parameter ``name`` a call may pass, and its position among those
    a call may pass by position (``None`` for a keyword-only one), as
    :func:`scopes.call_argument` takes it."""
    positional = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
    if name in positional:
        return True, positional.index(name)
    return any(p.name.value == name for p in function.params.kwonly_params), None


def _handing(call: cst.Call, function: cst.FunctionDef) -> list[cst.Arg]:
    """The arguments of ``call`` that hand ``function`` on by its name (``tree_map(project,
    params)``): the call runs it elsewhere, with arguments it does not show."""
    return [a for a in call.args if isinstance(a.value, cst.Name) and a.value.value == function.name.value]


def _may_pass(call: cst.Call, name: str, position: int | None) -> bool:
    """Whether ``call`` may pass the parameter ``name`` (at ``position``, ``None`` for a
    keyword-only one), counting positions from the first parameter, or the second for
    ``obj.name(...)``, whose ``self`` comes first."""
    if position is not None and isinstance(call.func, cst.Attribute):
        if position == 0:
            return True  # `self`
        position -= 1
    return scopes.call_argument(call, name, position) is not None


_NO_VALUE = object()


def _literal(expr: cst.BaseExpression):
    """The value of ``True``, ``False``, ``None`` or an int literal, else ``_NO_VALUE``."""
    if isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[expr.value]
    value = scopes.int_value(expr)
    return _NO_VALUE if value is None else value


def _truth(test: cst.BaseExpression, values: dict[str, object]) -> bool | None:
    """Whether ``test`` holds with the names in ``values`` bound to them (``flag``, ``not flag``,
    ``flag is None``, ``flag is not None``), or ``None`` where that is not decided."""
    if isinstance(test, cst.Name):
        return bool(values[test.value]) if test.value in values else None
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _truth(test.expression, values)
        return None if inner is None else not inner
    if (
        isinstance(test, cst.Comparison)
        and isinstance(test.left, cst.Name)
        and test.left.value in values
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, (cst.Is, cst.IsNot))
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
    ):
        same = values[test.left.value] is None
        return same if isinstance(test.comparisons[0].operator, cst.Is) else not same
    return None


def _tests_edge(rule: SourceRule, test: cst.BaseExpression, names: set[str], edges: frozenset[str]) -> bool:
    """Whether ``test`` compares ``i`` with ``edge`` (``i == edge``, ``i != edge``, or an order,
    ``i < T - 1``, which in the loop's range holds on every step but the edge; either way round),
    ``i`` one of ``names`` and ``edge`` one of ``edges`` as spelled."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    target = test.comparisons[0]
    if not isinstance(target.operator, (
        cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual,
    )):
        return False
    sides = [test.left, target.comparator]
    return any(
        isinstance(a, cst.Name) and a.value in names and rule.code_of(b) in edges for a, b in (sides, sides[::-1])
    )


def _unpacked(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    """What an assignment target binds as a whole: the name, or the elements of a tuple or list
    target (``new, _ = f(x)``), nested ones too."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _unpacked(e.value)]
    return [target]


def _slice_bounds(node: cst.Slice | cst.Call) -> tuple:
    """A slice's lower bound, upper bound and step, written ``x[a:b]`` or as the object
    ``slice(a, b)`` (kept in a list and applied later: ``x[tuple(slices)]``)."""
    if isinstance(node, cst.Slice):
        return node.lower, node.upper, node.step
    args = [a.value for a in node.args if a.keyword is None and not a.star]
    given = [None, *args] if len(args) == 1 else args  # `slice(stop)`
    return tuple([*given, None, None, None][:3])


def _root(expr: cst.BaseExpression) -> cst.BaseExpression:
    """What a chain of subscripts indexes: ``table`` of ``table[0][k]``."""
    while isinstance(expr, cst.Subscript):
        expr = expr.value
    return expr


def _annotated_container(annotation: cst.BaseExpression) -> bool:
    """``list``, ``List[T]``, ``tuple[T, ...]``, ``Sequence[T]``, ``dict[K, V]``... (by its last name)."""
    head = annotation.value if isinstance(annotation, cst.Subscript) else annotation
    name = head.attr.value if isinstance(head, cst.Attribute) else head.value if isinstance(head, cst.Name) else None
    return name in ("list", "List", "tuple", "Tuple", "Sequence", "MutableSequence", "dict", "Dict", "Mapping")


def _bound_roots(target: cst.BaseExpression) -> list[cst.Name]:
    """The names an assignment target binds or changes: a name, the elements of a tuple or list
    target, and the object whose item or attribute is set (``table`` of ``table[2 * n][k] = v``,
    not ``n``)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _bound_roots(element.value)]
    if isinstance(target, cst.StarredElement):
        return _bound_roots(target.value)
    while isinstance(target, (cst.Subscript, cst.Attribute)):
        target = target.value
    return [target] if isinstance(target, cst.Name) else []


def _loop_var(loop: cst.For) -> str | None:
    return loop.target.value if isinstance(loop.target, cst.Name) else None
