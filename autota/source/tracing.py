"""Which functions run traced (under ``jit`` or as a ``lax`` loop body) rather than eagerly.

The same Python loop costs different things in the two worlds: eagerly, every step dispatches
and copies; traced, the loop is unrolled into the program and the cost moves to compile time
(while XLA updates buffers in place). Rules ask this module which world a node lives in.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import libcst as cst

from autota.source import scopes, vocabulary

JIT = vocabulary.JIT
PARTIAL = vocabulary.PARTIAL
STATIC_METHODS = frozenset({"builtins.staticmethod", "builtins.classmethod"})
LOOP_BODIES = vocabulary.TRACED_ARGUMENTS
MAY_RUN_TRACED = frozenset({"initializer", "model", "elsewhere", "by-name", "handed"})
"""Kinds whose trace is decided outside the file (see :class:`Traced`)."""
ARRAY_COMPARISONS = (cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)
"""Comparison operators that, on a JAX array, give a JAX array (``is`` and ``in`` give Python bools)."""
COMPILED = frozenset({"jit", "loop-body", "branch"})
"""Traces whose program XLA compiles: a jitted function's, and a ``lax`` loop body's or a
``cond`` branch's (compiled even when called eagerly)."""


def _overrides(known: Traced | None, kind: str) -> bool:
    """Whether a trace of ``kind`` (the root's, for a function called from traced code) says more
    than ``known``: a model's functions only may run traced, the rest do; and a function given
    to ``vmap``/``grad``, or one that calls a collective, runs compiled where compiled code calls
    it (``jax.jit(jax.vmap(f))``, a jitted function calling ``batched = jax.vmap(f)``, ``jax.pmap(step)``),
    and so do the functions it calls (a ``loss`` given to ``jax.grad`` inside a jitted step, and what
    ``loss`` calls, reached first from the ``grad``)."""
    return known is None or known.kind in MAY_RUN_TRACED and kind not in MAY_RUN_TRACED or (
        (known.origin or known.kind) in ("transform", "collective", "autograph") and kind in COMPILED
    )


def _autograph(call: cst.BaseExpression) -> bool:
    """Whether a jit-named wrapper is called with ``autograph=True`` (Catalyst's and PennyLane's
    ``qjit``): it converts the function's Python loops and branches into compiled ones, so it
    runs traced but a ``for`` over ``range`` is one loop in the program, not unrolled."""
    return isinstance(call, cst.Call) and any(
        a.keyword is not None and a.keyword.value == "autograph" and isinstance(a.value, cst.Name) and a.value.value == "True"
        for a in call.args
    )


@dataclass(frozen=True)
class Traced:
    """Why a function is traced: ``"jit"``, ``"autograph"`` (a jit-named wrapper that converts
    Python control flow, ``qjit(autograph=True)``: traced, its loops not unrolled), ``"loop-body"``, ``"branch"`` (of a ``cond`` or
    ``switch``), ``"transform"`` (``vmap``, ``grad``...),
    ``"called"`` (called from a traced function of this module), ``"elsewhere"`` (called from
    traced code of another module of the run), ``"by-name"`` (the one method of this file of
    that name, which traced code calls on an object of a class it cannot tell:
    ``params["scf"].slater(x)``), ``"handed"`` (a function the file never calls but hands on:
    its factory returns it, a ``partial`` binds it, a call of another module or a class is given it;
    ``make_loss(n)``'s closure is jitted by whoever receives it as often as it runs eagerly),
    ``"initializer"`` (a parameter
    initializer, run inside a model's ``init``) or ``"model"`` (a method of a Flax, Haiku or
    Equinox module or of a JAX environment, or a function given to ``hk.transform``, run inside
    the model's ``init``/``apply`` or the environment's jitted ``step``), ``"collective"`` (it
    calls ``lax.psum``, ``ppermute``... over a named axis, which only a trace binds), and the node that says
    so. Trainers usually jit a model's ``init`` and ``apply``: whether those run traced is
    decided outside this file, so rules that need to know keep off."""

    kind: str
    node: cst.CSTNode
    origin: str | None = None
    """For ``"called"``: how the function at the root of the calls is traced."""


class TracedFunctions:
    """Index of the module's traced functions, built once per file and shared by its rules."""

    def __init__(self, rule, module: cst.Module) -> None:
        self.rule = rule
        self.by_function: dict[cst.CSTNode, Traced] = {}
        self._has_classes = any(
            isinstance(d, cst.ClassDef) for ds in rule.semantics.definitions.values() for d in ds
        )
        self._derived: dict[cst.ClassDef, list[cst.ClassDef]] | None = None
        self._held_classes: dict[tuple[cst.ClassDef, str], cst.ClassDef | None] = {}
        self._module = module
        self._kernels: set[cst.CSTNode] | None = None
        self._undifferentiated_roots: list[cst.FunctionDef | cst.Lambda] = []
        """Functions that reverse-mode autodiff never goes through: a ``custom_vjp`` or
        ``custom_jvp`` function's own body (``grad`` runs its rules instead), and lambdas given
        as a ``while_loop``'s body or condition (``grad`` of one fails) or as ``defvjp`` rules."""
        self._undifferentiated_uses: set[int] = set()
        """Names that hand a ``def`` to such a place (``lax.while_loop(cond, body, ...)``,
        ``f.defvjp(fwd, bwd)``, ``jax.custom_vjp(g)``): a ``def`` all of whose uses are such, or
        lie in code autodiff never goes through, is never differentiated."""
        self._undifferentiated: list[cst.FunctionDef | cst.Lambda] | None = None
        self._defined_names: Counter[str] | None = None
        self._stored: dict[cst.ClassDef, dict[str, list[cst.BaseExpression]]] = {}
        """By class: the values its methods store as ``self.<name>``, by name."""
        self._wrapper_params: dict[tuple[cst.FunctionDef, str], str] = {}
        """``(def, parameter)`` -> the trace kind, for a parameter of a function of the file that
        the function hands to a ``lax`` loop or branch as its body (a project's own loop
        combinator, ``def bounded_loop(cond_fun, body_fun, val, n)``)."""
        self.traced_calls: dict[cst.CSTNode, dict[cst.Call, None]] = {}
        """Every call of each function of the module from its traced functions, in source order."""
        models: set[cst.ClassDef] = set()
        self.models = models
        """The model classes of this file (Flax, Haiku, Equinox modules, JAX environments)."""
        kinds = frozenset({cst.FunctionDef, cst.Call, cst.ClassDef})
        for node in self.rule.semantics.find(module, lambda n: type(n) in kinds):
            if isinstance(node, cst.ClassDef):
                if any(self._jit_named(d.decorator) for d in node.decorators):  # `@jit_class`: a project's own wrapper
                    for method in node.body.body:
                        if isinstance(method, cst.FunctionDef) and method.name.value != "__init__":
                            self._record(method, Traced("jit", method))
                if any(self._is_model(base.value, models) for base in node.bases if base.keyword is None):
                    models.add(node)
                    for mixin in self._mixins(node, models):  # `class Model(hk.Module, SampleMixin)`
                        for method in mixin.body.body:
                            if isinstance(method, cst.FunctionDef) and vocabulary.runs_as_model(method.name.value):
                                self._record(method, Traced("model", node))
                    for method in node.body.body:
                        if isinstance(method, cst.FunctionDef) and vocabulary.runs_as_model(method.name.value):
                            if not self._factory(method):
                                self._record(method, Traced("model", node))
                        elif isinstance(method, cst.FunctionDef) and method.name.value == "__init__":
                            self._record_init_closures(method, node)
                        elif isinstance(method, cst.SimpleStatementLine):
                            self._record_held_functions(method, node)
                        if isinstance(method, cst.FunctionDef):
                            self._record_stored_functions(method, node)
            elif isinstance(node, cst.FunctionDef):
                for decorator in node.decorators:
                    if self._custom_derivative(decorator.decorator):
                        self._undifferentiated_roots.append(node)
                    if self.rule.is_jit(decorator.decorator):
                        self.by_function[node] = Traced("jit", decorator)
                    elif self._is_transform(decorator.decorator):
                        self.by_function.setdefault(node, Traced("transform", decorator))
                    elif self._jit_named(decorator.decorator):  # `@jit_method`: a project's own wrapper of `jit`
                        self._record(node, Traced("autograph" if _autograph(decorator.decorator) else "jit", node))
            else:
                self._record_call(node)
        if self._wrapper_params:
            self._mark_wrapped_bodies(module)
        self._mark_handed()
        for statement in module.body:  # called from traced code in another module of the run
            if isinstance(statement, cst.FunctionDef) and statement.name.value in rule.context.traced_elsewhere:
                self._record(statement, Traced("elsewhere", statement))
            elif isinstance(statement, cst.ClassDef):
                for method in statement.body.body:
                    if isinstance(method, cst.FunctionDef) and (
                        f"{statement.name.value}.{method.name.value}" in rule.context.traced_elsewhere
                    ):
                        self._record(method, Traced("elsewhere", method))
        self._propagate(module)

    def _mark_handed(self) -> None:
        """Mark ``"handed"`` each nested function (a closure, reached only through what its factory
        hands out) that no call of the file runs and that a use hands on: returned (``return
        loglike``, ``return Model(haz)``), bound by a ``partial``, or given to a call of another
        module's function or of a class (which may store it and call it in a jitted step).
        Python's own, NumPy's and SciPy's functions run what they are given eagerly (``map(f,
        xs)``, ``minimize(f, x0)``): not a hand-over; nor a function of this file, whose body says
        what it does with it."""
        semantics = self.rule.semantics
        candidates = {}
        for definition in semantics.of_kind(self._module, cst.FunctionDef):
            if definition in self.by_function or definition.decorators or not self._nested(definition):
                continue  # (a function of the module, which another module may import and call eagerly)
            # every read of the name where it is bound (of two `def loglike` in an `if`'s branches, both);
            # the function around it is parsed whole, so these are all
            uses = self._reads(semantics.enclosing_scope(definition), definition.name.value)
            if uses and not any(self._runs_here(n) for n in uses):
                handing = next((n for n in uses if self._hands_on(n)), None)
                if handing is not None:
                    candidates[definition] = handing
        if not candidates:
            return
        names = {d.name.value for d in candidates}
        for call in semantics.of_kind(self._module, cst.Call):  # `ll = make_loglike(8)` ... `ll(p)`: it runs here
            if isinstance(call.func, cst.Call) or (
                isinstance(call.func, cst.Name) and call.func.value not in names and semantics.binding(call.func) is not None
            ):
                candidates.pop(self._function(call.func), None)  # (and `make_loglike(8)(p)`)
        for definition, handing in candidates.items():
            self.by_function[definition] = Traced("handed", handing)

    def _nested(self, definition: cst.CSTNode) -> bool:
        """Whether ``definition`` is bound inside a function: reached only through what it hands out."""
        return isinstance(self.rule.semantics.enclosing_scope(definition), (cst.FunctionDef, cst.Lambda))

    def _runs_here(self, use: cst.Name) -> bool:
        """Whether ``use`` calls its function (``f(x)``), or names it as a decorator does."""
        parent = self.rule.parent(use)
        return isinstance(parent, cst.Call) and parent.func is use or isinstance(parent, cst.Decorator)

    def _hands_on(self, use: cst.Name) -> bool:
        """Whether ``use`` hands its function on (see :meth:`_mark_handed`)."""
        node, parent = use, self.rule.parent(use)
        while isinstance(parent, (cst.Element, cst.Tuple, cst.List)):
            node, parent = parent, self.rule.parent(parent)
        if isinstance(parent, cst.Return):
            return True
        if not isinstance(parent, cst.Arg):
            return False
        call = self.rule.parent(parent)
        if not isinstance(call, cst.Call) or call.func is node:
            return False
        if self.rule.matches(call.func, PARTIAL):
            return True
        if isinstance(call.func, cst.Name) and isinstance(self.rule.semantics.binding(call.func), cst.FunctionDef):
            return False  # a function of this file: its body runs what it is given, as its caller runs
        return not any(q.split(".", 1)[0] in vocabulary.EAGER_RUNNERS for q in self.rule.qualified_names(call.func))

    def _propagate(self, module: cst.Module) -> None:
        """A function a traced function calls runs traced too (its loops see tracers)."""
        calls: dict[cst.CSTNode, list[cst.Call]] = {}
        callees = frozenset({cst.Name, cst.Attribute, cst.Call})
        callable_ = lambda n: type(n) is cst.Call and type(n.func) in callees  # noqa: E731
        for call in self.rule.semantics.find(module, callable_):
            caller = next((a for a in self.rule.ancestors(call) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
            if caller is not None:
                calls.setdefault(caller, []).append(call)
        work = list(self.by_function)
        while work:
            caller = work.pop()
            for call in calls.get(caller, ()):
                if self._at_compile_time(call, caller):
                    continue  # `with jax.ensure_compile_time_eval():` runs it on concrete values, op by op
                if _named_callee(call.func):
                    callees = self._callees(call, caller)
                else:  # `jax.vmap(f)(x)`, `partial(f, k)(x)`: the function the wrapper runs
                    wrapped = self._function(call.func) if isinstance(call.func, cst.Call) else None
                    callees = [wrapped] if wrapped is not None else []
                for definition in callees:
                    self._reach(definition, call, caller, work)
                if not self.rule.matches(call.func, vocabulary.SEPARATE_RUNNERS):
                    for handed in self._handed_functions(call):  # `tree_map(self._update, p)`, `train(loss_fn=f)`
                        self._reach(handed, call, caller, work)
                if not callees and isinstance(call.func, cst.Attribute):
                    guess = self.only_method(call.func.attr.value)
                    if guess is not None and guess not in self.by_function:
                        self.by_function[guess] = Traced("by-name", call)
                        work.append(guess)

    def _at_compile_time(self, call: cst.Call, caller: cst.CSTNode) -> bool:
        """Whether ``call`` lies in a ``with jax.ensure_compile_time_eval():`` block of ``caller``:
        JAX runs what it computes from concrete values eagerly while tracing, so a helper called
        there (a table built from static sizes) runs its loops as Python does, outside the program."""
        if "ensure_compile_time_eval" not in self.rule.context.source.text:
            return False
        for ancestor in self.rule.ancestors(call):
            if ancestor is caller:
                return False
            if isinstance(ancestor, cst.With) and any(
                isinstance(item.item, cst.Call) and self.rule.matches(item.item.func, {vocabulary.COMPILE_TIME_EVAL})
                for item in ancestor.items
            ):
                return True
        return False

    def _factory(self, method: cst.FunctionDef) -> bool:
        """Whether a model's method is a static or class method (``from_image``, a factory that
        builds the model eagerly) or a property: it runs traced only where a traced method calls
        it (see :data:`vocabulary.UNMODELLED_METHODS`)."""
        return any(self.rule.matches(d.decorator, vocabulary.UNMODELLED_METHODS) for d in method.decorators)

    def in_kernel(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` is code of a Pallas or Triton kernel (:data:`vocabulary.KERNEL_CALLS`):
        inside a function handed to one (``pl.pallas_call(kernel, ...)``, or a lambda calling
        ``kernel``), or inside a function such a function calls by name."""
        if self._kernels is None:
            self._kernels = set()
            for word in vocabulary.KERNEL_CALL_TERMINALS:
                for name in self.rule.semantics.names_in(self._module, word):
                    call = self.rule.parent(name)
                    call = self.rule.parent(call) if isinstance(call, cst.Attribute) else call
                    if not (isinstance(call, cst.Call) and self.rule.matches(call.func, vocabulary.KERNEL_CALLS)):
                        continue
                    for arg in call.args[:1]:
                        kernel = self._function(arg.value)
                        if kernel is not None:
                            self._kernels.add(kernel)
                            self._kernels.update(self._called_by_name(kernel))
        return any(a in self._kernels for a in self.rule.ancestors(node) if isinstance(a, (cst.FunctionDef, cst.Lambda)))

    def _called_by_name(self, function: cst.FunctionDef | cst.Lambda) -> list[cst.FunctionDef]:
        """The functions of this file that ``function`` calls by their name (a kernel's lambda
        calling ``kernel(x_ref, o_ref, step=8)``)."""
        found = []
        for call in self.rule.semantics.find(function, lambda n: isinstance(n, cst.Call) and isinstance(n.func, cst.Name)):
            binding = self.rule.semantics.binding(call.func)
            if isinstance(binding, cst.FunctionDef):
                found.append(binding)
        return found

    def only_method(self, name: str) -> cst.FunctionDef | None:
        """The one definition of ``name`` in this file, where it is a method (not a dunder): what
        ``obj.name(...)`` on an object of a class this index cannot tell may run. One in the whole
        file's text, not only in the slice parsed (which may leave out another class's)."""
        if name.startswith("__") or not self._has_classes:
            return None
        definitions = self.rule.semantics.definitions.get(name, ())
        if len(definitions) != 1 or not isinstance(definitions[0], cst.FunctionDef):
            return None
        if self._defined_names is None:  # every `def name(` of the text, counted once
            self._defined_names = Counter(re.findall(r"\bdef\s+(\w+)\s*\(", self.rule.context.source.text))
        if self._defined_names[name] != 1:
            return None
        holder = self.rule.parent(self.rule.parent(definitions[0]))
        return definitions[0] if isinstance(holder, cst.ClassDef) else None

    def _reach(self, definition, call: cst.Call, caller, work: list) -> None:
        """``definition`` runs traced, called by ``call`` in the traced ``caller``."""
        self.traced_calls.setdefault(definition, {})[call] = None
        root = self.by_function[caller]
        origin = root.origin or root.kind
        if origin == "handed" and not self._nested(definition) and not self._only_handed_callers(definition):
            return  # a function of the module or a method: callers other than the handed one may run it eagerly
        if origin in MAY_RUN_TRACED and isinstance(definition, cst.FunctionDef) and definition.name.value == "__init__":
            return  # `Net(...)` in a model's `copy`: whether that runs traced is a guess, and the module is built eagerly
        if _overrides(self.by_function.get(definition), origin):
            self.by_function[definition] = Traced("called", call, origin)
            work.append(definition)

    def _only_handed_callers(self, definition) -> bool:
        """Whether ``definition`` is a private function of the module (``_lag_blocks``) that only
        functions found ``"handed"`` call: a helper of the model a factory hands to a sampler
        (``NUTS(model)``) runs where the model runs. (Private: taken to be the module's own; this
        keeps AT102 off it, which changes no fix.)"""
        if not isinstance(definition, cst.FunctionDef) or not definition.name.value.startswith("_") or definition.decorators:
            return False
        name = definition.name.value
        if not isinstance(self.rule.semantics.enclosing_scope(definition), cst.Module):
            return False
        uses = self._reads(self._module, name)
        for use in uses:
            caller = next((a for a in self.rule.ancestors(use) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
            traced = self.by_function.get(caller) if caller is not None else None
            if not self._runs_here(use) or traced is None or (traced.origin or traced.kind) != "handed":
                return False
        return bool(uses)

    def _reads(self, scope: cst.CSTNode, name: str) -> list[cst.Name]:
        """The ``Name`` s spelled ``name`` below ``scope`` that read it rather than bind it."""
        semantics = self.rule.semantics
        return [n for n in semantics.names_in(scope, name) if scopes.binding_role(semantics.parents, n)[0] is None]

    def _callees(self, call: cst.Call, caller: cst.CSTNode) -> list[cst.FunctionDef | cst.Lambda]:
        """The functions of this file that ``call`` may run: a function, a method (with the
        overrides of subclasses of this file, for ``self.name(...)``), the ``__init__`` of
        the class it makes (``ForceTokens(pairs)`` in jitted code runs its ``__init__`` traced),
        or the ``__call__`` of the class of the object it calls (``smoother = Smoother()``)."""
        if isinstance(call.func, cst.Attribute):
            method = self._method(call.func, caller)
            return [*([method] if method is not None else []), *self._overrides(call.func, caller)]
        binding = self.rule.semantics.binding(call.func)
        if isinstance(binding, cst.ClassDef):
            init = scopes.own_method(binding, "__init__")
            return [init] if init is not None else []
        instance = self._instance_class(call.func) if isinstance(call.func, cst.Name) else None
        if instance is not None:  # `smoother(x)` of `smoother = Smoother()` runs `Smoother.__call__`
            method = scopes.own_method(instance, "__call__")
            return [method] if method is not None else []
        function = self._held(binding, 0)
        return [function] if function is not None else []

    def _overrides(self, func: cst.Attribute, caller: cst.CSTNode) -> list[cst.FunctionDef]:
        """For ``self.name(...)`` in a method of a class of this file, the ``def name`` of each
        class of the file derived from it (evosax's jitted ``Base.ask`` calls ``self._ask``,
        which each algorithm defines)."""
        holder = self._own_class(func.value, caller) if isinstance(func.value, cst.Name) else None
        if holder is None:
            return []
        found = []
        for cls in self._subclasses(holder):
            method = scopes.own_method(cls, func.attr.value)
            if method is not None:
                found.append(method)
        return found

    def _subclasses(self, cls: cst.ClassDef) -> list[cst.ClassDef]:
        """The classes of this file derived from ``cls``, directly or through each other."""
        if self._derived is None:
            self._derived = {}
            for classes in self.rule.semantics.definitions.values():
                for other in classes:
                    if isinstance(other, cst.ClassDef):
                        for base in other.bases:
                            value = base.value.value if isinstance(base.value, cst.Subscript) else base.value
                            parent = self.rule.semantics.binding(value) if isinstance(value, cst.Name) and base.keyword is None else None
                            if isinstance(parent, cst.ClassDef):
                                self._derived.setdefault(parent, []).append(other)
        found, work = [], list(self._derived.get(cls, ()))
        while work:
            other = work.pop()
            if other not in found:
                found.append(other)
                work.extend(self._derived.get(other, ()))
        return found

    def _instance_class(self, name: cst.Name) -> cst.ClassDef | None:
        """The class of this file whose object ``name`` holds where it is read (``scf = Scf(...)``)."""
        if not self._has_classes:
            return None
        made = self.rule.semantics.binding(name)
        if isinstance(made, cst.Call) and isinstance(made.func, cst.Name):
            cls = self.rule.semantics.binding(made.func)
            return cls if isinstance(cls, cst.ClassDef) else None
        return None

    def _method(self, func: cst.Attribute, caller: cst.CSTNode) -> cst.FunctionDef | None:
        """The method ``Class.name(...)``, ``self.name(...)`` or ``obj.name(...)`` calls: a ``def
        name`` in the body of a class of this file, named, or the class of the method ``caller``
        whose first parameter is ``self`` (a subclass may override it; the one the file defines
        runs at least there), or the class ``obj`` was made of (``obj = Class(...)``). An object
        the class holds (``self.gen = gen or Generator(...)``) runs its class's ``__call__`` for
        ``self.gen(...)`` and its method for ``self.gen.name(...)``."""
        owner = func.value
        if isinstance(owner, cst.Attribute):  # `self.gen.name(...)`
            cls = self._own_class(owner.value, caller)
            held = self.held_class(cls, owner.value.value, owner.attr.value) if cls is not None else None
            return scopes.own_method(held, func.attr.value) if held is not None else None
        holder = self._own_class(owner, caller)
        if holder is not None:  # `self.name(...)` in a method: the method's own class
            method = scopes.own_method(holder, func.attr.value)
            if method is not None:
                return method
            held = self.held_class(holder, owner.value, func.attr.value)
            return scopes.own_method(held, "__call__") if held is not None else None
        if any(isinstance(d, cst.ClassDef) for d in self.rule.semantics.definitions.get(owner.value, ())):
            holder = self.rule.semantics.binding(owner)  # asked only of names some class has
            if not isinstance(holder, cst.ClassDef):
                return None
        else:
            holder = self._instance_class(owner)
            if holder is None:
                return None
        method = scopes.own_method(holder, func.attr.value)
        if method is None and holder in self.models and func.attr.value in vocabulary.MODEL_ENTRIES:
            return scopes.own_method(holder, "__call__")  # `model.apply(params, x)` runs the module's `__call__`
        return method

    def _own_class(self, owner: cst.Name, caller: cst.CSTNode) -> cst.ClassDef | None:
        """The class of the method ``caller`` where ``owner`` is its ``self`` (not a staticmethod),
        or of the method around ``caller`` whose ``self`` a nested function reads (a `lax` loop's
        body defined in a method: ``def body(i, c): return self.step(c)``)."""
        for function in [caller, *self.rule.ancestors(caller)]:
            if not isinstance(function, (cst.FunctionDef, cst.Lambda)):
                continue
            holder = self.rule.parent(self.rule.parent(function)) if isinstance(function, cst.FunctionDef) else None
            params = function.params.params if isinstance(holder, cst.ClassDef) else ()
            if params and params[0].name.value == owner.value and not any(
                self.rule.matches(d.decorator, {"builtins.staticmethod"}) for d in function.decorators
            ):
                return holder
            if any(p.name.value == owner.value for p in scopes.all_params(function)) or isinstance(
                function, cst.FunctionDef
            ) and self.rule.semantics.binds_here(function, owner.value):
                return None  # the nested function's own `self`
        return None

    def held_class(self, cls: cst.ClassDef, me: str, attribute: str) -> cst.ClassDef | None:
        """The class of this file whose object ``cls``'s methods store in ``self.attribute``
        (``self._generator = generator or Generator(...)``), where exactly one is."""
        key = (cls, attribute)
        if key not in self._held_classes:
            kinds = set()
            for assign in self.rule.semantics.of_kind(cls, cst.Assign):
                if any(
                    isinstance(t.target, cst.Attribute) and t.target.attr.value == attribute
                    and isinstance(t.target.value, cst.Name) and t.target.value.value == me
                    for t in assign.targets
                ):
                    for call in self.rule.semantics.of_kind(assign.value, cst.Call):
                        made = self.rule.semantics.binding(call.func) if isinstance(call.func, cst.Name) else None
                        if isinstance(made, cst.ClassDef):
                            kinds.add(made)
            self._held_classes[key] = next(iter(kinds)) if len(kinds) == 1 else None
        return self._held_classes[key]

    def _is_transform(self, expr: cst.BaseExpression) -> bool:
        """``jax.vmap``/``grad``... or ``partial(jax.vmap, ...)``: the function given is traced."""
        if self.rule.matches(expr, vocabulary.TRACING_TRANSFORMS):
            return True
        if isinstance(expr, cst.Call):
            if self.rule.matches(expr.func, vocabulary.TRACING_TRANSFORMS):
                return True
            if self.rule.matches(expr.func, PARTIAL) and expr.args:
                return bool(self.rule.matches(expr.args[0].value, vocabulary.TRACING_TRANSFORMS))
        return False

    def _record_init_closures(self, init: cst.FunctionDef, cls: cst.ClassDef) -> None:
        """The functions an ``__init__`` of a model or environment defines and neither calls nor
        hands to a call itself (JaxMARL keeps its ``step`` in ``self.step_env``, which the base
        class's jitted ``step`` calls): they run as the class's methods do. One it calls, or gives
        to `jax.tree.map`, runs eagerly, building the object."""
        used = {  # called, or handed to a call (`jax.tree.map(init_fn, ...)` runs it here)
            n.value for n in self.rule.semantics.own_of_kind(init, cst.Name)
            if isinstance(self.rule.parent(n), cst.Arg)
            or isinstance(self.rule.parent(n), cst.Call) and self.rule.parent(n).func is n
        }
        for statement in init.body.body:
            if isinstance(statement, cst.FunctionDef) and statement.name.value not in used:
                self._record(statement, Traced("model", cls))

    def _record_held_functions(self, line: cst.SimpleStatementLine, cls: cst.ClassDef) -> None:
        """A model's class attribute that holds a function (``conv_op = staticmethod(conv_nd)``,
        ``act = jax.nn.relu``) is one of its methods: it runs as they do."""
        for statement in line.body:
            if not isinstance(statement, cst.Assign):
                continue
            value = statement.value
            if isinstance(value, cst.Call) and self.rule.matches(value.func, STATIC_METHODS) and len(value.args) == 1:
                value = value.args[0].value
            self._record(self._function(value), Traced("model", cls))

    def _record_stored_functions(self, method: cst.FunctionDef, cls: cst.ClassDef) -> None:
        """A function a model's method stores on the model (``self.encode = partial(encode,
        chunk=4)`` in a Flax ``setup``, an Equinox ``__init__``) is called later as one of its
        methods: it runs as they do."""
        params = method.params.params
        if not params:
            return
        me = params[0].name.value
        for assign in self.rule.semantics.own_of_kind(method, cst.Assign):
            if any(isinstance(t.target, cst.Attribute) and isinstance(t.target.value, cst.Name) and t.target.value.value == me
                   for t in assign.targets):
                self._record(self._function(assign.value), Traced("model", cls))

    def _mixins(self, model: cst.ClassDef, models: set[cst.ClassDef]) -> list[cst.ClassDef]:
        """The classes of the file that ``model`` takes as bases beside its model base: their
        methods are the model's, and run as its methods do."""
        found = []
        for base in model.bases:
            bound = self.rule.semantics.binding(base.value) if base.keyword is None and isinstance(base.value, cst.Name) else None
            if isinstance(bound, cst.ClassDef) and bound not in models:
                found.append(bound)
        return found

    def _is_model(self, base: cst.BaseExpression, models: set[cst.ClassDef]) -> bool:
        """Whether ``base`` is a framework's module class, or a class of this file derived from one
        (defined before: a class's bases are evaluated when it is); ``Environment[State, ...]``
        is its generic base. Inside the framework's own package a relative import
        (``from ..environment import Environment``) names it by its tail."""
        if isinstance(base, cst.Subscript):
            base = base.value
        relative = {q.lstrip(".") for q in self.rule.qualified_names(base) if q.startswith(".")}
        if any(model.endswith("." + tail) for tail in relative for model in vocabulary.MODEL_CLASSES):
            return True
        return bool(self.rule.matches(base, vocabulary.MODEL_CLASSES)) or (
            isinstance(base, cst.Name) and self.rule.semantics.binding(base) in models
        )

    def _record_call(self, call: cst.Call) -> None:
        if self.rule.is_jit(call.func) and call.args:
            self._mark(call.args[0].value, Traced("jit", call))
        elif self._is_transform(call.func) and call.args:
            self._mark(call.args[0].value, Traced("transform", call))
        elif self.rule.matches(call.func, vocabulary.MODEL_TRANSFORMS) and call.args:
            self._mark(call.args[0].value, Traced("model", call))
        elif not isinstance(call.func, cst.Call) and self._jit_named(call.func) and call.args and call.args[0].keyword is None:  # `K.jit(f)`: a project's wrapper
            self._mark(call.args[0].value, Traced("autograph" if _autograph(call) else "jit", call))
        if self.rule.matches(call.func, vocabulary.COLLECTIVES):
            caller = next((a for a in self.rule.ancestors(call) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
            self._record(caller, Traced("collective", call))
        name = self.rule.matches(call.func, LOOP_BODIES)
        kind = "branch" if name is not None and vocabulary.terminal(name) in ("cond", "switch") else "loop-body"
        for index, keyword in LOOP_BODIES.get(name, ()):
            for arg in _given(call, index, keyword):
                self._mark(arg.value, Traced(kind, call))
                self._note_wrapper_param(arg.value, kind)
                if vocabulary.terminal(name) == "while_loop":
                    self._hand_undifferentiated(arg.value)
        wrapper = self.rule.loop_wrapper(call.func) if name is None else None
        if wrapper is not None:  # `control_flow.fori_loop(0, n, step, x)`: a project's loop function
            handed = dict(wrapper.passes)
            body = handed.get(vocabulary.BODY_ARG[wrapper.kind])
            for position, arg in enumerate(call.args):
                given = arg.keyword.value if arg.keyword is not None else wrapper.params[position] if position < len(wrapper.params) else None
                if given is not None and given in (body, handed.get("cond_fun")) and not arg.star:
                    self._mark(arg.value, Traced("loop-body", call))
        if self._custom_derivative(call.func) and call.args:  # `f = jax.custom_vjp(g)`
            self._hand_undifferentiated(call.args[0].value)
        solver = self.rule.matches(call.func, vocabulary.IMPLICIT_SOLVES)
        for keyword, index in vocabulary.IMPLICIT_SOLVES.get(solver, ()):  # `lax.custom_linear_solve(mv, b, solve)`
            for arg in _given(call, index, keyword):
                self._mark(arg.value, Traced("transform", call))
                self._hand_undifferentiated(arg.value)
                self._note_wrapper_param(arg.value, "solve")  # `def isolve(solver, ...)`: what its callers pass
        method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
        if method == vocabulary.DEFINE_VJP:  # `f.defvjp(fwd, bwd)`: both run only under differentiation
            rules = dict(zip(("fwd", "bwd"), [a.value for a in call.args if a.keyword is None]))
            rules |= {a.keyword.value: a.value for a in call.args if a.keyword is not None}
            for role in ("fwd", "bwd"):
                if role in rules:
                    self._mark(rules[role], Traced("transform", call))
                    self._hand_undifferentiated(rules[role])
        position = vocabulary.INITIALIZER_METHODS.get(method)
        if position is not None and position < len(call.args) and call.args[position].keyword is None:
            self._mark_initializer(call.args[position].value, call)
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value in vocabulary.INITIALIZER_KEYWORDS:
                self._mark_initializer(arg.value, call)

    def _note_wrapper_param(self, expr: cst.BaseExpression, kind: str) -> None:
        """Where a loop's body (or an implicit solve's ``solve``, ``kind`` ``solve``) is a
        parameter of a function of the file (also through ``jax.checkpoint`` or ``partial``,
        inline or bound to a name once), that function is a loop combinator: what its callers
        pass there runs as a body (see :meth:`_mark_wrapped_bodies`)."""
        while isinstance(expr, cst.Call) and expr.args and (
            self.rule.matches(expr.func, PARTIAL) or self._is_transform(expr.func)
        ):
            expr = expr.args[0].value
        made = self.rule.semantics.assigned_value(expr) if isinstance(expr, cst.Name) else None
        if isinstance(made, cst.Call) and self.rule.matches(made.func, PARTIAL) and made.args and not made.args[0].star:
            self._note_wrapper_param(made.args[0].value, kind)  # `s = partial(solver, maxiter=n)`
            return
        if not isinstance(expr, cst.Name) or self.rule.semantics.binding(expr) is not None:
            return
        scope = self.rule.semantics.binding_scope(expr)
        if isinstance(scope, (cst.FunctionDef, cst.Lambda)) and expr.value in [p.name.value for p in scope.params.params]:
            self._wrapper_params.setdefault((scope, expr.value), kind)

    def _mark_wrapped_bodies(self, module: cst.Module) -> None:
        """The functions given to a loop combinator of the file at the parameter it runs as a
        body (``bounded_loop(cond, body, init, n)``, or a lambda called where it is written,
        ``(lambda do: lambda _: lax.cond(ok, do, skip, None))(block)``): they run traced, as the
        body of the ``lax`` loop inside it. A body handed on to another combinator is followed a
        few times."""
        calls = [  # the calls of functions of the file, found once
            (call, wrapper)
            for call in self.rule.semantics.find(module, lambda n: isinstance(n, cst.Call) and isinstance(n.func, (cst.Name, cst.Lambda)))
            for wrapper in [call.func if isinstance(call.func, cst.Lambda) else self.rule.semantics.binding(call.func)]
            if isinstance(wrapper, (cst.FunctionDef, cst.Lambda)) and not any(a.star for a in call.args)
        ]
        for _ in range(3):
            known = dict(self._wrapper_params)
            for call, wrapper in calls:
                params = [p.name.value for p in wrapper.params.params]
                for position, arg in enumerate(call.args):
                    param = arg.keyword.value if arg.keyword is not None else params[position] if position < len(params) else None
                    kind = known.get((wrapper, param))
                    if kind == "branch" and self._runs_loop(wrapper):
                        kind = "loop-body"  # a branch of a step of the loop the combinator runs
                    if kind == "solve":  # the `solve` of an implicit solve: traced, never differentiated
                        self._mark(arg.value, Traced("transform", call))
                        self._hand_undifferentiated(arg.value)
                    elif kind is not None:
                        self._mark(arg.value, Traced(kind, call))
                    if kind is not None:
                        self._note_wrapper_param(arg.value, kind)
            if known == self._wrapper_params:
                return

    def _runs_loop(self, function: cst.FunctionDef) -> bool:
        """Whether ``function`` calls a ``lax`` loop (``scan``, ``fori_loop``, ``while_loop``, ``map``)."""
        return any(
            (name := self.rule.matches(c.func, LOOP_BODIES)) is not None and vocabulary.terminal(name) not in ("cond", "switch")
            for c in self.rule.semantics.of_kind(function, cst.Call)
        )

    def _mark_initializer(self, expr: cst.BaseExpression, call: cst.Call) -> None:
        """An initializer may run traced, unless the file also calls it itself (`table = init(...)`):
        then at least that call runs as its caller does."""
        function = self._function(expr)
        if isinstance(function, cst.FunctionDef) and any(
            isinstance(self.rule.parent(n), cst.Call) and self.rule.parent(n).func is n
            for n in self.rule.semantics.names_in(self.rule.context.module, function.name.value)
        ):
            return
        self._record(function, Traced("initializer", call))

    def _hand_undifferentiated(self, expr: cst.BaseExpression) -> None:
        """``expr`` goes where autodiff does not follow: a lambda is never differentiated; a name
        is a use of its ``def`` that does not differentiate it (its other uses decide), and a
        ``partial`` of a function, inline or bound to the name once, a use of that function."""
        if isinstance(expr, cst.Lambda):
            self._undifferentiated_roots.append(expr)
        elif isinstance(expr, cst.Name):
            self._undifferentiated_uses.add(id(expr))
            value = self.rule.semantics.assigned_value(expr)  # `solve = partial(_cg, maxiter=n)`: `_cg` goes there
            if isinstance(value, cst.Call) and self.rule.matches(value.func, PARTIAL) and value.args and not value.args[0].star:
                self._hand_undifferentiated(value.args[0].value)
        elif isinstance(expr, cst.Call) and self.rule.matches(expr.func, PARTIAL) and expr.args and not expr.args[0].star:
            self._hand_undifferentiated(expr.args[0].value)  # `custom_linear_solve(mv, b, partial(_cg, ...))`

    def _custom_derivative(self, expr: cst.BaseExpression) -> bool:
        """``jax.custom_vjp``/``custom_jvp``, called with options or through ``partial``
        (``@partial(jax.custom_vjp, nondiff_argnums=(0,))``)."""
        if isinstance(expr, cst.Call):
            if self.rule.matches(expr.func, PARTIAL) and expr.args:
                expr = expr.args[0].value
            elif self.rule.matches(expr.func, vocabulary.CUSTOM_DERIVATIVES):
                return not any(a.keyword is None for a in expr.args)  # `custom_vjp(nondiff_argnums=...)`
        return bool(self.rule.matches(expr, vocabulary.CUSTOM_DERIVATIVES))

    def _mark(self, expr: cst.BaseExpression, traced: Traced) -> None:
        if isinstance(expr, (cst.List, cst.Tuple)):  # `lax.switch(i, [f, g], x)`
            for element in expr.elements:
                self._mark(element.value, traced)
            return
        self._record(self._function(expr), traced)
        for other in self._branch_definitions(expr):
            self._record(other, traced)
        for handed, guessed in self._bound_functions(expr):  # `pmap(partial(step, loss_fn=model.loss))`: `step` calls it
            self._record(handed, Traced("by-name", traced.node) if guessed else Traced("called", traced.node, traced.origin or traced.kind))

    def _branch_definitions(self, expr: cst.BaseExpression) -> list[cst.FunctionDef]:
        """Where the ``def`` that ``expr`` names is one of several of that name in the branches
        of an ``if`` (``if kind == "sizes": def block(...)`` ... ``elif ...: def block(...)``),
        the others: which one a run hands on depends on the branch it took."""
        while self._wraps_first_argument(expr) and not expr.args[0].star:
            expr = expr.args[0].value  # `jax.jit(jax.shard_map(body, ...))`: the `def body` of each branch
        if not isinstance(expr, cst.Name):
            return []
        found = self.rule.semantics.binding(expr)
        if not isinstance(found, cst.FunctionDef) or not any(isinstance(a, cst.If) for a in self._ancestors_in_scope(found)):
            return []
        scope = self.rule.semantics.enclosing_scope(found)
        return [
            d for d in self.rule.semantics.definitions.get(expr.value, ())
            if d is not found and isinstance(d, cst.FunctionDef) and self.rule.semantics.enclosing_scope(d) is scope
            and any(isinstance(a, cst.If) for a in self._ancestors_in_scope(d))
        ]

    def _ancestors_in_scope(self, node: cst.CSTNode):
        for ancestor in self.rule.ancestors(node):
            if isinstance(ancestor, scopes.SCOPES):
                return
            yield ancestor

    def _handed_functions(self, call: cst.Call) -> list[cst.FunctionDef | cst.Lambda]:
        """The functions of this file that ``call`` is given as arguments (``tree_map(f, x)``,
        ``lax.map(self.step, xs)``, ``train(loss_fn=f)``): made in traced code, the call runs them
        traced, as the callee that takes them does (a host callback aside)."""
        return [
            handed for arg in call.args
            if isinstance(arg.value, (cst.Name, cst.Attribute, cst.Call))
            for handed in [self._function(arg.value)] if handed is not None and not self._foreign(handed)
        ]

    def _foreign(self, function: cst.FunctionDef | cst.Lambda) -> bool:
        """Whether another compiler owns ``function`` (``@triton.jit``, ``@numba.njit``): JAX
        never traces it, whoever it is handed to."""
        return isinstance(function, cst.FunctionDef) and any(
            q.split(".", 1)[0] in vocabulary.OTHER_COMPILERS
            for d in function.decorators
            for q in self.rule.qualified_names(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
        )

    def _bound_functions(self, expr: cst.BaseExpression, depth: int = 0) -> list[tuple[cst.FunctionDef | cst.Lambda, bool]]:
        """The functions a ``partial`` binds as arguments of the function it wraps, where ``expr``
        is one (or a name bound once to one, or a ``jit`` of one): the wrapped function calls them
        where it runs, traced. Each with whether it is guessed: a method of an object whose
        class this index cannot tell (``loss_fn=model.loss_function``, ``model`` a parameter) is
        taken to be the file's one method of that name, which may run traced (``"by-name"``)."""
        if depth > 3:
            return []
        if isinstance(expr, cst.Name):
            value = self.rule.semantics.assigned_value(expr)
            return self._bound_functions(value, depth + 1) if value is not None else []
        if not isinstance(expr, cst.Call) or not expr.args:
            return []
        if self.rule.matches(expr.func, PARTIAL):
            handed = []
            for arg in expr.args[1:]:
                function, guessed = self._function(arg.value), False
                if function is None and isinstance(arg.value, cst.Attribute) and isinstance(arg.value.value, cst.Name):
                    function, guessed = self.only_method(arg.value.attr.value), True
                if function is not None and not self._foreign(function):
                    handed.append((function, guessed))
            return handed + self._bound_functions(expr.args[0].value, depth + 1)
        if self.rule.is_jit(expr.func) or self._is_transform(expr.func):
            return self._bound_functions(expr.args[0].value, depth + 1)
        return []

    def _record(self, function: cst.FunctionDef | cst.Lambda | None, traced: Traced) -> None:
        if function is None:
            return
        if _overrides(self.by_function.get(function), traced.kind):
            self.by_function[function] = traced

    def _function(self, expr: cst.BaseExpression, depth: int = 0) -> cst.FunctionDef | cst.Lambda | None:
        """The function ``expr`` runs when called: a lambda, the ``def`` its name holds where it is
        read, or what a ``partial``/``jit``/``vmap`` of it wraps (``f = jax.vmap(f)``), also where
        a conditional expression picks one of two spellings of it."""
        if depth > 5:
            return None
        if isinstance(expr, cst.Lambda):
            return expr
        if isinstance(expr, cst.Name):
            return self._held(self.rule.semantics.binding(expr), depth)
        if isinstance(expr, cst.IfExp):  # `jax.checkpoint(f) if remat else f`: the same function either way
            chosen = self._function(expr.body, depth + 1)
            return chosen if chosen is not None and chosen is self._function(expr.orelse, depth + 1) else None
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):  # `scf.eval_orbitals`, `self.update`
            cls = self._instance_class(expr.value)
            named = self.rule.semantics.binding(expr.value) if cls is None and self._has_classes else None
            cls = named if isinstance(named, cst.ClassDef) else cls  # `helper = Model.spread`: the class itself
            if cls is None:
                caller = next((a for a in self.rule.ancestors(expr) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
                cls = self._own_class(expr.value, caller) if isinstance(caller, cst.FunctionDef) else None
            if cls is None:
                return None
            return scopes.own_method(cls, expr.attr.value) or self._stored_member(cls, expr.attr.value, depth)
        if self._wraps_first_argument(expr):
            return self._function(expr.args[0].value, depth + 1)  # `partial(body, ...)` runs `body`
        if isinstance(expr, cst.Call) and isinstance(expr.func, (cst.Name, cst.Attribute)):  # `make_cell(6)`, `self.make_adder()`
            return self._made(self._function(expr.func, depth + 1), depth)
        return None

    def _wraps_first_argument(self, expr: cst.BaseExpression) -> bool:
        """Whether ``expr`` is a ``partial``, a ``jit`` or a tracing transform of the function it is
        given first: calling what it makes runs that function."""
        return isinstance(expr, cst.Call) and bool(expr.args) and (
            self.rule.matches(expr.func, PARTIAL) or self.rule.is_jit(expr.func) or self._is_transform(expr.func)
        )

    def _stored_member(self, cls: cst.ClassDef, name: str, depth: int) -> cst.FunctionDef | cst.Lambda | None:
        """The function a method of ``cls`` stores as ``self.name`` (``self.step = _step`` in
        ``__init__``, ``_step`` a nested ``def``), where one assignment of the class does:
        ``jax.jit(env.step)`` jits it."""
        if cls not in self._stored:  # once a class: every `self.<name> = value` of its methods, by name
            found: dict[str, list[cst.BaseExpression]] = {}
            for method in cls.body.body:
                if not (isinstance(method, cst.FunctionDef) and method.params.params):
                    continue
                me = method.params.params[0].name.value
                for assign in self.rule.semantics.own_of_kind(method, cst.Assign):
                    for target in assign.targets:
                        if isinstance(target.target, cst.Attribute) and isinstance(target.target.value, cst.Name) and (
                            target.target.value.value == me
                        ):
                            found.setdefault(target.target.attr.value, []).append(assign.value)
            self._stored[cls] = found
        stored = self._stored[cls].get(name, [])
        return self._function(stored[0], depth + 1) if len(stored) == 1 else None

    def _made(self, factory: cst.CSTNode | None, depth: int) -> cst.FunctionDef | cst.Lambda | None:
        """The function a factory of this file returns (``make_cell(n)`` whose every ``return``
        gives its nested ``def cell``, or one lambda): what a call of it hands on."""
        if not isinstance(factory, cst.FunctionDef) or factory.asynchronous:
            return None
        semantics = self.rule.semantics
        returned = {
            id(f): f for r in semantics.own_of_kind(factory, cst.Return)
            for f in [self._function(r.value, depth + 1) if r.value is not None else None]
        }
        (made,) = returned.values() if len(returned) == 1 else (None,)
        return made if made is not None and semantics.within(made, factory) else None

    def _held(self, binding: cst.CSTNode | None, depth: int) -> cst.FunctionDef | cst.Lambda | None:
        """The function a name bound to ``binding`` (a ``def`` or a value) runs when called."""
        if isinstance(binding, cst.FunctionDef):
            return binding
        return self._function(binding, depth + 1) if isinstance(binding, cst.BaseExpression) else None

    def _jit_named(self, decorator: cst.BaseExpression) -> bool:
        """Whether a decorator's own name says it jits (``jit_method``, ``jit_class``, ``my_jit``,
        ``filter_jit``): a project's wrapper of ``jax.jit``, whose functions run traced; not one
        imported from another compiler (numba's ``njit``), nor one reached through a name spelled
        as such a package (``triton.jit`` where a helper returned the module). The node of such a trace is the
        function itself, not the decorator: its static arguments are unknown. Also through a
        ``partial`` (``@partial(K.jit, static_argnums=1)``) and as a call (``K.jit(f)``)."""
        if isinstance(decorator, cst.Call) and self.rule.matches(decorator.func, PARTIAL) and decorator.args:
            decorator = decorator.args[0].value
        func = decorator.func if isinstance(decorator, cst.Call) else decorator
        name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        root = func
        while isinstance(root, cst.Attribute):
            root = root.value
        spelled = root.value if isinstance(root, cst.Name) and root is not func else None  # `triton` of `triton.jit`
        return vocabulary.says_jit(name) and spelled not in vocabulary.OTHER_COMPILERS and not any(
            q.split(".", 1)[0] in vocabulary.OTHER_COMPILERS for q in self.rule.qualified_names(func)
        )

    def traced_parameters(self, function: cst.FunctionDef) -> set[str]:
        """The parameters of ``function`` that its ``jit`` decorator traces: those no literal
        ``static_argnums``/``static_argnames`` names (none where the decorator is no ``jit`` of
        known options: a static argument is whatever Python object the caller passed; none for
        Equinox's ``filter_jit``, which keeps the arguments that are not arrays static)."""
        traced = self.by_function.get(function)
        if traced is None or traced.kind != "jit" or not isinstance(traced.node, cst.Decorator):
            return set()
        jit = traced.node.decorator.func if isinstance(traced.node.decorator, cst.Call) else traced.node.decorator
        if isinstance(traced.node.decorator, cst.Call) and self.rule.matches(jit, PARTIAL):
            jit = traced.node.decorator.args[0].value
        if not self.rule.matches(jit, vocabulary.TRACES_ARGUMENTS):
            return set()
        static = scopes.static_arguments(traced.node.decorator)
        if static is None:
            return set()
        params = [p.name.value for p in function.params.params]
        return {name for k, name in enumerate(params) if name not in static and k not in static}

    def never_differentiated(self, node: cst.CSTNode) -> bool:
        """Whether reverse-mode autodiff never goes through ``node``: it lies in a function of
        :attr:`_undifferentiated_roots`, or in one that only such functions refer to (a helper a
        ``while_loop`` body calls, a solver step of a ``custom_vjp`` function)."""
        if self._undifferentiated is None:
            self._undifferentiated = self._close_undifferentiated()
        return any(self._inside_undifferentiated(node, f) for f in self._undifferentiated)

    def reverse_mode_call(self, node: cst.CSTNode) -> cst.Call | None:
        """A call of the file that hands a function reaching ``node`` to a reverse-mode
        transform (``jax.grad(run)``, ``jax.value_and_grad(loss)`` where ``loss`` calls ``run``,
        a few calls up), if there is one: there, reverse-mode autodiff goes through ``node``."""
        frontier = [a for a in self.rule.ancestors(node) if isinstance(a, (cst.FunctionDef, cst.Lambda))]
        seen: set[cst.CSTNode] = set()
        for _ in range(5):
            callers = []
            for function in frontier:
                if function in seen:
                    continue
                seen.add(function)
                for use in [function] if isinstance(function, cst.Lambda) else self._uses(function):
                    if self._graded(use):
                        return self.rule.parent(self.rule.parent(use))
                    callers += [a for a in self.rule.ancestors(use) if isinstance(a, (cst.FunctionDef, cst.Lambda))]
            frontier = callers
        return None

    def _inside_undifferentiated(self, node: cst.CSTNode, function: cst.CSTNode) -> bool:
        """Whether ``node`` lies in ``function`` with no function between them that is handed to
        ``jax.grad`` and the like (a ``grad`` taken inside a ``while_loop`` body differentiates)."""
        if not self.rule.semantics.within(node, function):
            return False
        for ancestor in self.rule.ancestors(node):
            if ancestor is function:
                return True
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)) and self._differentiated(ancestor):
                return False
        return True

    def _differentiated(self, function: cst.FunctionDef | cst.Lambda) -> bool:
        """Whether ``function`` is handed to a reverse-mode transform (``jax.grad(f)``,
        ``jax.vjp(lambda w: ..., w)``), by itself or by its name."""
        if isinstance(function, cst.Lambda):
            return self._graded(function)
        return any(self._graded(n) for n in self._uses(function))

    def _graded(self, expr: cst.CSTNode) -> bool:
        """Whether ``expr`` is the function argument of a reverse-mode transform (``jax.grad(expr)``)."""
        arg = self.rule.parent(expr)
        call = self.rule.parent(arg) if isinstance(arg, cst.Arg) else None
        return isinstance(call, cst.Call) and call.args and call.args[0] is arg and bool(
            self.rule.matches(call.func, vocabulary.REVERSE_TRANSFORMS)
        )

    def _uses(self, definition: cst.FunctionDef) -> list[cst.Name]:
        semantics = self.rule.semantics
        return [
            n for n in semantics.names_in(self._module, definition.name.value)
            if n is not definition.name and semantics.binding(n) is definition
        ]

    def _all_seen(self, definition: cst.FunctionDef, uses: list[cst.Name]) -> bool:
        """Whether ``uses`` are all the file's mentions of the function's name: the parsed slice
        may leave out a function that calls it (``jax.grad(loss)`` where ``loss`` calls it)."""
        name = definition.name.value
        seen = len(self.rule.semantics.names_in(self._module, name))
        return self.rule.context.name_count(name) <= seen

    def _close_undifferentiated(self) -> list[cst.FunctionDef | cst.Lambda]:
        """The roots, and every ``def`` of the file each of whose uses (calls, or a function
        handed on) is a hand-over that autodiff does not follow or lies in a function found
        already, and none hands it to ``grad``, a few levels of calls deep."""
        found = list(dict.fromkeys(self._undifferentiated_roots))
        if not found and not self._undifferentiated_uses:
            return found
        defs = [d for d in self.rule.semantics.of_kind(self._module, cst.FunctionDef) if d not in found]
        for _ in range(4):
            grown = []
            for definition in defs:
                uses = self._uses(definition)
                if uses and self._all_seen(definition, uses) and all(
                    self._undifferentiated_use(n, found) or self._undifferentiated_use(self._alias(n), found)
                    for n in uses
                ):
                    grown.append(definition)
            if not grown:
                break
            found += grown
            defs = [d for d in defs if d not in grown]
        return found

    def _undifferentiated_use(self, use: cst.Name | list[cst.Name] | None, found: list, depth: int = 0) -> bool:
        """Whether ``use`` (or each of a list of uses) hands its function where autodiff does not
        follow, or lies in a function of ``found``, or gives it to a parameter of a function of
        the file each of whose reads is such a use (``run(step, ...)`` where ``run`` calls
        ``step_fn`` only inside its ``while_loop`` body), a few hand-overs deep."""
        if isinstance(use, list):
            return bool(use) and all(self._undifferentiated_use(n, found, depth) for n in use)
        if use is None or self._graded(use):
            return False
        if id(use) in self._undifferentiated_uses or any(self._inside_undifferentiated(use, f) for f in found):
            return True
        reads = self._parameter_reads(use) if depth < 3 else None
        return bool(reads) and all(self._undifferentiated_use(n, found, depth + 1) for n in reads)

    def _parameter_reads(self, use: cst.Name) -> list[cst.Name] | None:
        """Where ``use`` is an argument of a call of a ``def`` of the file (``run(step, x)``):
        the reads of the parameter it binds in that function, if nothing there rebinds it."""
        arg = self.rule.parent(use)
        call = self.rule.parent(arg) if isinstance(arg, cst.Arg) else None
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and arg.value is use and not arg.star):
            return None
        callee = self.rule.semantics.binding(call.func)
        if not isinstance(callee, cst.FunctionDef) or any(a.star for a in call.args):
            return None
        params = [p.name.value for p in callee.params.params]
        position = call.args.index(arg)
        param = arg.keyword.value if arg.keyword is not None else params[position] if position < len(params) else None
        if param is None or param not in params:
            return None
        semantics = self.rule.semantics
        declared = next(p.name for p in callee.params.params if p.name.value == param)
        own = [n for n in semantics.variables(callee, param) if n is not declared and semantics.binding_scope(n) is callee]
        if any(scopes.binding_role(semantics.parents, n)[0] is not None for n in own):
            return None  # rebound in the function: its reads are not only the argument
        return own

    def _alias(self, use: cst.Name) -> list[cst.Name] | None:
        """The reads of the name that ``use`` is given to, where it is given to one name bound
        nowhere else in its scope (``fn = update if vectorized else coordinate_update``): the
        function is used where that name is read."""
        node, parent = use, self.rule.parent(use)
        while isinstance(parent, cst.IfExp) and node is not parent.test:
            node, parent = parent, self.rule.parent(parent)
        if not (
            isinstance(parent, cst.Assign) and parent.value is node and len(parent.targets) == 1
            and isinstance(parent.targets[0].target, cst.Name)
        ):
            return None
        alias = parent.targets[0].target
        semantics = self.rule.semantics
        spelled = semantics.variables(semantics.enclosing_scope(alias), alias.value)
        reads = [n for n in spelled if n is not alias]
        if any(scopes.binding_role(semantics.parents, n)[0] is not None for n in reads):
            return None
        return reads

    def context(self, node: cst.CSTNode) -> Traced | None:
        """The trace that ``node`` runs under, from the innermost traced function around it."""
        for ancestor in self.rule.ancestors(node):
            traced = self.by_function.get(ancestor)
            if traced is not None:
                return traced
        return None

    def assumed(self, traced: Traced) -> bool:
        """Whether ``traced`` is an assumption about callers outside the file (a model's method,
        a function that another module's traced code calls), not a trace the file makes."""
        return (traced.origin or traced.kind) in MAY_RUN_TRACED

    def concrete_each_step(self, loop: cst.For | cst.While) -> cst.CSTNode | None:
        """A node of ``loop`` that turns a JAX array into a Python value on every step (``if
        jnp.all(token == end): break``, ``best.item()``, ``while not jnp.all(done)``), else ``None``.
        Under ``jit`` each of those raises (``TracerBoolConversionError``,
        ``ConcretizationTypeError``), so such a loop runs eagerly, whatever the class around it
        suggests. Only what runs on every step counts: the loop's own test and the statements of
        its body outside branches and ``try`` blocks (a handler may catch the error)."""
        expressions = [loop.test] if isinstance(loop, cst.While) else []
        expressions += _every_step_expressions(loop.body.body)
        for expression in expressions:
            for node in _always_evaluated(expression):
                if self._concretizes(node):
                    return node
        return None

    def _concretizes(self, node: cst.CSTNode) -> bool:
        parent = self.rule.parent(node)
        if isinstance(parent, (cst.If, cst.While, cst.Assert, cst.IfExp)) and parent.test is node or (
            isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not)
        ) or isinstance(parent, cst.BooleanOperation) and parent.left is node:
            if self._jax_value(node):
                return True  # `bool()` of it
        if not isinstance(node, cst.Call) or any(a.star or a.keyword for a in node.args):
            return False
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in vocabulary.PYTHON_METHODS:
            return self._jax_value(func.value)  # `x.item()`
        return bool(node.args) and bool(self.rule.qualified_names(func) & vocabulary.CONCRETE_CONVERSIONS) and (
            self._jax_value(node.args[0].value)  # `int(x)`
        )

    def _jax_value(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """Whether ``expr`` is proven to be one JAX array: a call of a JAX array function, an
        arithmetic or comparison with one, or a name every binding of which binds one."""
        if depth > 8:
            return False
        if isinstance(expr, cst.Call):
            if self.rule.one_array_function(expr.func) and not any(a.star for a in expr.args):
                return True
            updated = scopes.at_call(expr)
            if updated is not None:
                return self._jax_value(updated[0], depth + 1)  # `img.at[:, h].set(v)`: an array like `img`
            return isinstance(expr.func, cst.Attribute) and expr.func.attr.value in vocabulary.ARRAY_METHODS and (
                self._jax_value(expr.func.value, depth + 1)  # `(img[:, h] != -1).all()`
            )
        if isinstance(expr, cst.Subscript):
            return self._jax_value(expr.value, depth + 1)  # `img[:, h]`: a part of a JAX array is one
        if isinstance(expr, cst.BinaryOperation):
            return self._jax_value(expr.left, depth + 1) or self._jax_value(expr.right, depth + 1)
        if isinstance(expr, cst.Comparison):
            return all(isinstance(c.operator, ARRAY_COMPARISONS) for c in expr.comparisons) and any(
                self._jax_value(e, depth + 1) for e in (expr.left, *(c.comparator for c in expr.comparisons))
            )
        if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
            return self._jax_value(expr.expression, depth + 1)
        if isinstance(expr, cst.Name):
            values = self.rule.semantics.bound_values(expr) or []
            own = [v for v in values if _updates_itself(v, expr.value)]  # `img = img.at[i].set(v)`: what `img` was
            return len(own) < len(values) and all(
                not isinstance(v, cst.AugAssign) and self._jax_value(v, depth + 1) for v in values if v not in own
            )
        return False


def _updates_itself(value: cst.BaseExpression, name: str) -> bool:
    """Whether ``value`` is ``name.at[...].method(...)``: ``name`` updated, an array like it."""
    found = scopes.at_call(value)
    return found is not None and isinstance(found[0], cst.Name) and found[0].value == name


def _every_step_expressions(statements) -> list[cst.BaseExpression]:
    """The expressions that run whenever ``statements`` run: simple statements' whole, the
    tests of branches and loops, the iterables of ``for`` loops, and ``with`` blocks' items and
    bodies; not what a branch, a nested loop's body or a ``try`` holds."""
    found: list = []
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            found.extend(statement.body)
        elif isinstance(statement, (cst.If, cst.While)):
            found.append(statement.test)
        elif isinstance(statement, cst.For):
            found.append(statement.iter)
        elif isinstance(statement, cst.With):
            found.extend(item.item for item in statement.items)
            found.extend(_every_step_expressions(statement.body.body))
    return found


def _always_evaluated(node: cst.CSTNode):
    """``node`` and the nodes under it that Python evaluates whenever it evaluates ``node``:
    not a lambda's body, a conditional expression's branches, the right side of ``and``/``or``
    or a comprehension's element and conditions (run once per item, perhaps never)."""
    yield node
    if isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
        return
    if isinstance(node, cst.IfExp):
        yield from _always_evaluated(node.test)
    elif isinstance(node, cst.BooleanOperation):
        yield from _always_evaluated(node.left)
    elif isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
        yield from _always_evaluated(node.for_in.iter)
    else:
        for child in node.children:
            yield from _always_evaluated(child)


def _named_callee(func: cst.BaseExpression) -> bool:
    """Whether :meth:`TracedFunctions._callees` can follow ``func``: ``f``, ``obj.f`` or ``self.obj.f``."""
    return isinstance(func, cst.Name) or isinstance(func, cst.Attribute) and (
        isinstance(func.value, cst.Name)
        or isinstance(func.value, cst.Attribute) and isinstance(func.value.value, cst.Name)
    )


def _given(call: cst.Call, index: int, keyword: str) -> list[cst.Arg]:
    """The argument of ``call`` for the parameter at ``index`` named ``keyword``, where the call
    shows it (see :func:`scopes.call_argument`)."""
    found = scopes.call_argument(call, keyword, index)
    return [found] if isinstance(found, cst.Arg) else []
