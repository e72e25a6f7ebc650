"""AT301: a jitted step returns an updated copy of an argument without donating it.

``jit`` cannot update an argument in place unless it is donated: every call allocates and
fills a new buffer as large as the argument, and a Python loop that calls ``buf = step(buf)``
pays that copy once per step. Donation (``donate_argnums``) lets XLA reuse the input buffer.
The fix is unsafe by nature: after the call the caller's old array is deleted.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Collection

import libcst as cst

from autota.catalogue import Fix
from autota.source import prefilter, scopes
from autota.source.prefilter import UPDATE_METHODS
from autota.source.rule import SourceRule
from autota.source.vocabulary import JIT, PARTIAL, REPLACE, REPLACE_METHODS, TREE_MAP

LAX = "jax.lax"
WRITES = frozenset(
    {f"{LAX}.dynamic_update_slice", f"{LAX}.dynamic_update_slice_in_dim", f"{LAX}.dynamic_update_index_in_dim"}
)
DONATE = ("donate_argnums", "donate_argnames")


class DonationRule(SourceRule):
    codes = ("AT301",)
    triggers = ("jit", "pmap")

    @classmethod
    def triggered(cls, text: str, imported) -> bool:
        """``jit``, or the name of a step another module of the run jits (see
        :attr:`ProjectFunctions.undonated`), which a loop may call here."""
        return super().triggered(text, imported) or any(name.rpartition(".")[2] in text for name in imported.undonated)

    @classmethod
    def relevant(cls, facts: prefilter.Facts) -> set[int] | None:
        """Jitted functions that update an array, and the loops that call them."""
        # functions that write an array: a jitted one, or a helper a jitted one calls
        writers = {id(function): function for update in facts.updates for function in update.functions}
        helper_names = {f.name for f in writers.values() if isinstance(f, ast.FunctionDef)}
        helper_names |= facts.updater_names  # a function of another module of the run that writes
        calling: set[int] = set()
        for _ in range(3):  # `put(buf, ...)`, `pool.update(...)` of a method that writes, a forward pass around one
            calling = {
                id(function) for site in facts.calls
                if isinstance(site.node.func, (ast.Name, ast.Attribute)) and prefilter.terminal(site.node.func) in helper_names
                for function in site.functions
            }
            wider = helper_names | {f.node.name for f in facts.functions if id(f.node) in calling and isinstance(f.node, ast.FunctionDef)}
            if wider == helper_names:
                break
            helper_names = wider
        jitted = [f for f in facts.jitted() if id(f.node) in writers or id(f.node) in calling]
        imported = _imported_steps(facts)
        if imported:  # `step = jax.jit(put)` of another module's `put`, or its own jitted `update`
            names = imported | {
                n for n, s in facts.call_assigns
                if facts.name(s.node.func) in prefilter.JIT_NAMES and s.node.args and prefilter.terminal(s.node.args[0]) in imported
            }
            callers = [s for s in facts.calls if s.in_loop and prefilter.terminal(_jitted_at_call(facts, s.node.func)) in names]
            if callers:
                jit_sites = [s for n, s in facts.call_assigns if n in names]
                return prefilter.tops(callers) | prefilter.tops(jit_sites) | _held_units(facts, callers) | cls.relevant_own(
                    facts, jitted
                )
        return cls.relevant_own(facts, jitted)

    @classmethod
    def relevant_own(cls, facts: prefilter.Facts, jitted: list[prefilter.Site]) -> set[int]:
        """The file's own jitted functions that write, their helpers, and the loops that call them."""
        if not jitted:
            return set()
        names = {f.node.name for f in jitted if not isinstance(f.node, ast.Lambda)}  # a lambda: by the name bound to it
        names |= {name for name, site in facts.call_assigns if facts.name(site.node.func) in prefilter.JIT_NAMES}
        factories = {  # `def make_step(): @jax.jit def _step(...): ...; return _step`
            f.functions[-1].name for f in jitted if f.functions and isinstance(f.functions[-1], ast.FunctionDef)
        }
        names |= {name for name, site in facts.call_assigns if prefilter.terminal(site.node.func) in factories}
        callers = [
            s for s in facts.calls if s.in_loop and prefilter.terminal(_jitted_at_call(facts, s.node.func)) in names
        ]
        if not callers:
            return set()
        called: set[str] = set()
        methods: set[str] = set()  # `store.append(buffer, x)`: the classes defining such a method
        reading = list(jitted)
        for _ in range(3):  # the records a step rebuilds (`State(...)`) and the helpers that write for it, and theirs
            sites = prefilter.inside(facts.calls, reading)
            called |= {site.node.func.id for site in sites if isinstance(site.node.func, ast.Name)}
            methods |= {site.node.func.attr for site in sites if isinstance(site.node.func, ast.Attribute)}
            reading = [f for f in facts.functions if isinstance(f.node, ast.FunctionDef) and f.node.name in called and f not in reading]
            if not reading:
                break
        helpers = {
            top for top, cls in facts.classes
            if cls.name in called or any(isinstance(m, ast.FunctionDef) and m.name in methods for m in cls.body)
        } | {f.top for f in facts.functions if isinstance(f.node, ast.FunctionDef) and f.node.name in called}
        return (
            prefilter.tops(jitted) | prefilter.tops(callers) | helpers | _held_units(facts, callers)
            | prefilter.tracing_call_tops(facts, jitted)
        )

    def visit_Module(self, node: cst.Module) -> None:
        for function, jit_node in self._jitted(node):
            donated = self._donated(jit_node)
            if donated is True:
                continue
            if function is None:  # `step = jax.jit(put)` of another module's `put`
                updated = {k: f"argument {k}" for k in self._imported[id(jit_node)]}
                params = []
            else:
                updated = self.updated_params(function)
                params = [p.name.value for p in function.params.params]
            if not updated:
                continue
            runs = functools.partial(self._runs, function=function, jit_node=jit_node, updated=updated)
            calls = self._loop_calls(node, runs, params, self._bound[id(jit_node)])
            for call, position in calls:  # the jitted callable's arguments start after a partial's
                argument = position - self._bound[id(jit_node)]
                if donated == EXCEPT_FIRST:
                    if argument != 0:
                        continue
                elif updated[position] in donated or argument in donated:
                    continue
                self._report(function, jit_node, call, updated[position], argument, bool(donated))
                break
        self._check_imported_steps(node)

    def _check_imported_steps(self, module: cst.Module) -> None:
        """Loops that call another module's function that its module jits donating nothing
        (``@jax.jit def update(T, dt): return T.at[1:-1].add(...)``), rebinding an argument it
        updates: each call copies the array; the donation belongs to that module."""
        undonated = self.context.imported.undonated
        if not undonated:
            return
        steps = {name: self.context.imported.updaters[name] for name in undonated}

        classes: dict[str, dict[str, tuple[int, ...]]] = {}  # `pkg.ring.Ring`: its jitted methods that write
        for name, positions in steps.items():
            owner, _, method = name.rpartition(".")
            classes.setdefault(owner, {})[method] = positions

        def runs(call: cst.Call) -> tuple[int, Collection[int]] | None:
            written = self._of_run(steps, call.func) if isinstance(call.func, (cst.Name, cst.Attribute)) else None
            if written:
                return 0, written
            made = self._made_as(call) if isinstance(call.func, cst.Attribute) else None
            methods = self._of_run(classes, made.func) if made is not None else None
            written = methods.get(call.func.attr.value) if methods else None
            return (1, written) if written else None  # `self.ring.add(state, r)`: `self` is argument 0

        for call, position in self._loop_calls(module, runs, [], 0):
            what = self.code_of(call.func)
            self.report(
                "AT301", call, _message(what, f"argument {position}"),
                reason=f"`{what}` is jitted in another module of the run; donate argument {position} there",
            )

    def _runs(self, call: cst.Call, function, jit_node, updated) -> tuple[int, Collection[int]] | None:
        """Whether ``call`` runs the callable that ``jit_node`` jits: ``None`` if not, else how
        many of its arguments the call leaves out (1 for ``self.step(buf)``, whose ``self`` is
        the jitted function's argument 0) and the positions it updates."""
        name = self._names[id(jit_node)]
        if call.func is jit_node:
            return 0, updated  # `jax.jit(step)(buf, ...)`
        if name is not None and isinstance(call.func, cst.Name) and call.func.value == name:
            binding = self.semantics.binding(call.func)
            if binding is jit_node or function is not None and binding is function:
                return 0, updated
        if isinstance(call.func, cst.Name) and function is not None and self._made_by_factory(call.func, function):
            return 0, updated  # `step = make_step()` ... `rows = step(rows, i, x)`
        if function is not None and (self._own_method_call(call, function, name) or self._held_object_call(call, function)):
            return 1, updated
        slot = self._slots.get(id(jit_node))
        called = self._object_slot(call.func) if slot is not None and isinstance(call.func, cst.Attribute) else None
        if called is not None and called[0] is slot[0] and called[1] == slot[1]:
            return 0, updated  # `out = self._insert(out, ...)` in another method of the class
        return None

    def _made_by_factory(self, name: cst.Name, function) -> bool:
        """Whether ``name`` holds what a call of a function of the file returns, where each of that
        function's ``return`` s gives ``function``, a ``def`` nested in it, or ``jax.jit`` of it
        (``step = make_step()``)."""
        made = self.semantics.binding(name)
        return isinstance(made, cst.Call) and function is not None and self._factory_product(made, jitted=True) is function

    def _factory_product(self, call: cst.Call, jitted: bool = False) -> cst.FunctionDef | None:
        """The ``def`` nested in a function of the file that ``call`` calls, where each of its
        ``return`` s gives that ``def`` (``make_step()``); with ``jitted``, also ``jax.jit`` of it
        (``return jax.jit(step)``)."""
        factory = self.semantics.binding(call.func) if isinstance(call.func, cst.Name) else None
        if not isinstance(factory, cst.FunctionDef):
            return None
        given = []
        for returned in self.semantics.own_of_kind(factory, cst.Return):
            value = returned.value
            if jitted and isinstance(value, cst.Call) and self.matches(value.func, JIT) and value.args and not value.args[0].keyword:
                value = value.args[0].value  # `return jax.jit(step)`
            given.append(self.semantics.binding(value) if isinstance(value, cst.Name) else None)
        made = given[0] if given else None
        if not isinstance(made, cst.FunctionDef) or any(g is not made for g in given) or not self.semantics.contains(factory, made):
            return None
        return made

    # -- which functions are jitted, and how --------------------------------------------------
    def _jitted(self, module: cst.Module):
        """``(function, node)``: the decorator expression or the ``jax.jit(f)`` call. Records, by
        node, the name the jitted callable is called by and how many of the function's first
        parameters a ``partial`` fills by position (the jitted callable's arguments come after)."""
        found = []
        self._imported: dict[int, tuple[int, ...]] = {}
        self._slots: dict[int, tuple[cst.ClassDef, str]] = {}
        for function in self.semantics.of_kind(module, cst.FunctionDef):
            for decorator in function.decorators:
                if self.is_jit(decorator.decorator):
                    found.append((function, decorator.decorator, function.name.value, 0))
        for assign in self.semantics.of_kind(module, cst.Assign):
            name = scopes.assign_to(assign)
            target = assign.targets[0].target if len(assign.targets) == 1 else None
            method_slot = isinstance(target, cst.Attribute) and self._class_member(target, assign) is not None  # `cls.step = jax.jit(cls.step)`
            slot = self._object_slot(target) if isinstance(target, cst.Attribute) and not method_slot else None
            jitted = self._jitted_call(assign.value, assign) if name or method_slot or slot else None
            if jitted is not None:
                found.append((jitted[0], assign.value, name, jitted[1]))
                if slot is not None:  # `self._insert = jax.jit(lambda dst, ...: ...)` in `__init__`
                    self._slots[id(assign.value)] = slot
        for call in self.semantics.of_kind(module, cst.Call):
            jitted = self._jitted_call(call.func)  # `jax.jit(step)(buf, ...)`: jitted where it is called
            if jitted is not None:
                found.append((jitted[0], call.func, None, jitted[1]))
        for returned in self.semantics.of_kind(module, cst.Return):
            jitted = self._jitted_call(returned.value) if returned.value is not None else None
            if jitted is not None:  # a factory's `return jax.jit(step)`: called where `step = make_step()` holds it
                found.append((jitted[0], returned.value, None, jitted[1]))
        self._names = {id(node): name for _, node, name, _ in found}
        self._bound = {id(node): bound for _, node, _, bound in found}
        return [(f, node) for f, node, _, _ in found]

    def _object_slot(self, attribute: cst.Attribute) -> tuple[cst.ClassDef, str] | None:
        """``(class, name)`` for ``self.name`` in a method of ``class`` (``self`` its first
        parameter), where the class binds that attribute of its objects in one statement: calls
        of ``self.name`` in its methods run what that statement bound."""
        method = next((a for a in self.ancestors(attribute) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
        cls = self.parent(self.parent(method)) if isinstance(method, cst.FunctionDef) else None
        if not (isinstance(cls, cst.ClassDef) and method.params.params and isinstance(attribute.value, cst.Name)) or (
            method.params.params[0].name.value != attribute.value.value
        ):
            return None
        name = attribute.attr.value
        stores = [
            t for a in self.semantics.of_kind(cls, cst.Assign, cst.AugAssign, cst.AnnAssign)
            for t in (a.targets if isinstance(a, cst.Assign) else [a])
            if isinstance(t.target, cst.Attribute) and t.target.attr.value == name
        ]
        return (cls, name) if len(stores) == 1 else None

    def _jitted_target(self, call: cst.Call) -> tuple[cst.BaseExpression, int]:
        """What ``jax.jit(...)`` jits, and how many of its first parameters a ``partial`` fills
        by position (``jax.jit(partial(store, 2.0))``)."""
        target, bound = call.args[0].value, 0
        if isinstance(target, cst.Call) and self.matches(target.func, PARTIAL) and target.args and not any(
            a.star for a in target.args
        ):
            bound = sum(1 for a in target.args[1:] if a.keyword is None)
            target = target.args[0].value
        return target, bound

    def _class_member(self, attribute: cst.Attribute, where: cst.CSTNode) -> cst.FunctionDef | None:
        """The method ``attribute`` names in the class around ``where``: ``cls.step`` in a
        classmethod (or ``self.step`` in a method) taking ``cls`` first, or ``Workflow.step``."""
        cls = next((a for a in self.ancestors(where) if isinstance(a, cst.ClassDef)), None)
        method = next((a for a in self.ancestors(where) if isinstance(a, cst.FunctionDef)), None)
        if cls is None or not isinstance(attribute.value, cst.Name):
            return None
        owner = attribute.value.value
        if owner != cls.name.value and not (
            method is not None and self.parent(self.parent(method)) is cls and method.params.params
            and method.params.params[0].name.value == owner
        ):
            return None
        return scopes.own_method(cls, attribute.attr.value)

    def _bound_to_instance(self, attribute: cst.Attribute, where: cst.CSTNode) -> bool:
        """Whether ``attribute`` (``self.put``) reads a method from the instance the method around
        ``where`` takes first (not from its class, ``cls.step`` in a classmethod): a bound method."""
        method = next((a for a in self.ancestors(where) if isinstance(a, cst.FunctionDef)), None)
        return method is not None and bool(method.params.params) and isinstance(attribute.value, cst.Name) and (
            method.params.params[0].name.value == attribute.value.value
        ) and not any(self.matches(d.decorator, {"builtins.classmethod", "builtins.staticmethod"}) for d in method.decorators)

    def _jitted_call(self, call: cst.BaseExpression, where: cst.CSTNode | None = None) -> tuple[cst.FunctionDef | cst.Lambda, int] | None:
        """For ``jax.jit(f)`` of a plain ``def`` or a lambda: the function, and how many of its
        first parameters a ``partial`` fills by position (``jax.jit(partial(store, 2.0))``); a
        method of the class around ``where`` too (``cls.step = jax.jit(cls.step)``)."""
        if not (isinstance(call, cst.Call) and self.matches(call.func, JIT) and call.args) or call.args[0].keyword:
            return None
        target, bound = self._jitted_target(call)
        function = self.semantics.binding(target) if isinstance(target, cst.Name) else target
        if isinstance(target, cst.Call):  # `jax.jit(make_step())`: the `def` the factory returns
            function = self._factory_product(target) or target
        if isinstance(target, cst.Attribute) and where is not None:
            function = self._class_member(target, where)
            if function is not None and self._bound_to_instance(target, where):
                bound += 1  # `jax.jit(self.put)`: the method with `self` given, called as `self.jit_put(buf, ...)`
        if isinstance(function, cst.Lambda) or isinstance(function, cst.FunctionDef) and not function.decorators:
            return function, bound
        written = self.updater(target) if function is None or isinstance(function, cst.Attribute) else None
        if written:  # `jax.jit(put)` of another module's `put`: by the positions it updates
            self._imported[id(call)] = written
            return None, bound
        return None

    def _donated(self, node) -> bool | str | set:
        """What the ``jit`` call donates: ``True`` where it may donate any argument (a keyword
        whose value is not a literal; Equinox's ``donate="all"``), :data:`EXCEPT_FIRST` for
        Equinox's ``"all-except-first"``/``"warn-except-first"``, else the positions and names
        its literal ``donate_argnums``/``donate_argnames`` list (none for ``()``, ``[]``,
        ``None``, or Equinox's ``"none"``)."""
        donated: set = set()
        for arg in node.args if isinstance(node, cst.Call) else ():
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword == "donate":  # `eqx.filter_jit(donate="all")`
                value = arg.value.evaluated_value if isinstance(arg.value, cst.SimpleString) else None
                if value in ("all-except-first", "warn-except-first"):
                    return EXCEPT_FIRST
                if value != "none":
                    return True
            elif keyword in DONATE and not _donates_nothing(arg.value):
                items = _literal_items(arg.value)
                if items is None:
                    return True
                donated |= items
        return donated

    def updated_params(self, function: cst.FunctionDef | cst.Lambda, depth: int = 0) -> dict[int, str]:
        """Positions of parameters whose updated copy the function returns (``depth``: how many
        helpers deep this function is called)."""
        params = [p.name.value for p in function.params.params]
        flow = _UpdatedCopies(self, params, depth)
        for assign in self.semantics.own_of_kind(function, cst.Assign):
            name = scopes.assign_to(assign)
            if name:
                flow.bind(name, assign.value)
            elif len(assign.targets) == 1 and isinstance(assign.targets[0].target, (cst.Tuple, cst.List)):
                flow.unpack(assign.targets[0].target, assign.value)  # `grid, ids = env`
        updated: dict[int, str] = {}
        returned = [function.body] if isinstance(function, cst.Lambda) else [
            ret.value for ret in self.semantics.own_of_kind(function, cst.Return)
        ]
        for value in returned:
            items = [e.value for e in value.elements] if isinstance(value, (cst.Tuple, cst.List)) else [value]
            for item in items:
                origin = flow.updated(item)
                if origin is not None:
                    updated[params.index(origin)] = origin
        return updated

    def _loop_calls(self, module, runs, params, bound_first):
        """Calls ``x = step(..., x, ...)`` inside a Python loop, with ``x`` at a position the step
        updates; ``runs(call)`` tells whether a call runs the step (see :meth:`_runs`)."""
        found = []
        for call in self.semantics.of_kind(module, cst.Call):
            ran = runs(call)
            if ran is None:
                continue
            skipped, written = ran
            if not scopes.enclosing_loops(self, call) or self.traced.context(call) is not None:
                continue  # not in a loop, or traced: a jitted call inside a trace is inlined, and donation is moot
            assign = self.parent(call)
            if not isinstance(assign, cst.Assign) or assign.value is not call:
                continue
            bound = {n.value for t in assign.targets for n in self.semantics.of_kind(t.target, cst.Name)}
            loop_bound = {
                n.value for loop in scopes.enclosing_loops(self, call) if isinstance(loop, cst.For)
                for n in self.semantics.of_kind(loop.target, cst.Name)
            }
            held = {  # `self.state.buf = put(self.state.buf, ...)`: stored back where it was read, the
                # same place each step (not `self.tensors[name]` over the names: each entry once)
                self.code_of(t.target) for t in assign.targets if isinstance(t.target, (cst.Attribute, cst.Subscript))
                and not any(n.value in loop_bound for n in self.semantics.of_kind(t.target, cst.Name))
            }
            position = skipped + bound_first
            for arg in call.args:
                if arg.star:
                    break
                if arg.keyword is not None:  # by keyword: `donate_argnums` counts its parameter's position
                    position = params.index(arg.keyword.value) if arg.keyword.value in params else None
                if position in written and (
                    isinstance(arg.value, cst.Name) and arg.value.value in bound or self.code_of(arg.value) in held
                ):
                    found.append((call, position))
                    break
                if position is not None and arg.keyword is None:
                    position += 1
        return found

    def _own_method_call(self, call: cst.Call, function: cst.FunctionDef, jitted_name: str | None = None) -> bool:
        """Whether ``call`` is ``self.name(...)`` in a method of the class whose method ``function``
        (a jitted ``def name(self, ...)``) is, ``self`` being the caller's first parameter; or
        ``self.step_jit(...)`` for ``step_jit = jax.jit(step)`` in the class body."""
        func = call.func
        if not (isinstance(function, cst.FunctionDef) and isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and (
            func.attr.value in (function.name.value, jitted_name)
        )):
            return False
        cls = self.parent(self.parent(function))  # the def's block, then its class
        if not isinstance(cls, cst.ClassDef) or not function.params.params:
            return False
        caller = next((a for a in self.ancestors(call) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
        if not isinstance(caller, cst.FunctionDef) or self.parent(self.parent(caller)) is not cls or not caller.params.params:
            return False
        return caller.params.params[0].name.value == func.value.value and not caller.decorators

    def _held_object_call(self, call: cst.Call, function: cst.FunctionDef | cst.Lambda) -> bool:
        """Whether ``call`` is ``obj.name(...)`` on an object of the class whose method ``function``
        is, seen by how the object was made (see :meth:`_made_as`). The object is then the
        method's ``self``."""
        func = call.func
        cls = self.parent(self.parent(function)) if isinstance(function, cst.FunctionDef) else None
        if not (isinstance(cls, cst.ClassDef) and isinstance(func, cst.Attribute) and func.attr.value == function.name.value):
            return False
        made = self._made_as(call)
        return made is not None and isinstance(made.func, cst.Name) and self.semantics.binding(made.func) is cls

    def _made_as(self, call: cst.Call) -> cst.Call | None:
        """For ``obj.name(...)``, the call that made ``obj``: ``ring = Ring(...)`` bound once in
        the caller's scope, or ``self.ring = Ring(...)`` once in the caller's own class
        (``self.ring.add(state, r)``)."""
        func = call.func
        holder = func.value if isinstance(func, cst.Attribute) else None
        made = None
        if isinstance(holder, cst.Name):
            made = self.semantics.assigned_value(holder)
        elif isinstance(holder, cst.Attribute) and isinstance(holder.value, cst.Name):
            caller = next((a for a in self.ancestors(call) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
            owner = self.parent(self.parent(caller)) if isinstance(caller, cst.FunctionDef) else None
            if isinstance(owner, cst.ClassDef) and caller.params.params and caller.params.params[0].name.value == holder.value.value:
                made_here = [
                    a.value for a in self.semantics.of_kind(owner, cst.Assign)
                    if len(a.targets) == 1 and isinstance(a.targets[0].target, cst.Attribute)
                    and a.targets[0].target.attr.value == holder.attr.value
                ]
                made = made_here[0] if len(made_here) == 1 else None
        return made if isinstance(made, cst.Call) else None

    def _report(self, function, jit_node, call, param: str, position: int, donates_others: bool) -> None:
        param = param if param.startswith("argument ") else f"`{param}`"  # (another module's: by position)
        what = function.name.value if isinstance(function, cst.FunctionDef) else self._names[id(jit_node)] or (
            self.code_of(call.func) if id(jit_node) in self._slots  # `self._insert`
            else "the lambda" if function is not None else self.code_of(self._jitted_target(jit_node)[0])
        )
        message = _message(what, param)
        jit = jit_node.func if isinstance(jit_node, cst.Call) else jit_node
        if isinstance(jit_node, cst.Call) and self.matches(jit, PARTIAL) and jit_node.args:
            jit = jit_node.args[0].value
        if self.matches(jit, {"equinox.filter_jit"}):
            self.report("AT301", call, message, reason="Equinox's `filter_jit` donates by `donate=` (`\"all\"` donates every array argument)")
            return
        if donates_others:
            self.report("AT301", call, message, reason=f"the `jit` call donates other arguments; add position {position} to them")
            return
        fix = self._fix(jit_node, position)
        if fix is None:
            self.report("AT301", call, message, reason="the `jit` call cannot be extended here")
            return
        self.report(
            "AT301",
            call,
            message,
            fix,
            reason="it assumes that nothing else holds the caller's old array: after each call it is deleted, so any "
            "other reference to it breaks (the same array passed twice in one call fails at once)",
        )

    def _fix(self, jit_node, position: int) -> Fix | None:
        keyword = f"donate_argnums=({position},)"
        if isinstance(jit_node, cst.Call):  # an empty donation keyword gives way to the new one
            args = [
                self.code_of(a).strip().rstrip(",").strip() for a in jit_node.args
                if not (a.keyword is not None and a.keyword.value in DONATE and _donates_nothing(a.value))
            ]
            new = f"{self.code_of(jit_node.func)}({', '.join(args + [keyword])})"
        else:
            # `@jax.jit(donate_argnums=...)` needs jax >= 0.8.1; `functools.partial` works in every
            # version, so it is used wherever `functools` is already imported.
            functools_name = self.semantics.module_spelling("functools")
            if functools_name is not None:
                new = f"{functools_name}.partial({self.code_of(jit_node)}, {keyword})"
            else:
                new = f"{self.code_of(jit_node)}({keyword})"
        return Fix("unsafe", f"donate argument {position}", (self.replace(jit_node, new),))


def _message(step: str, argument: str) -> str:
    return (
        f"`{step}` is jitted without donating {argument} and returns an updated copy of it; called in a loop that "
        "rebinds the argument, every call copies the whole array (O(size) a step)"
    )


EXCEPT_FIRST = "all-except-first"
"""What Equinox's ``donate="all-except-first"`` donates: every argument but the first."""


def _literal_items(value: cst.BaseExpression) -> set | None:
    """The ints and strings of a literal ``donate_argnums``/``donate_argnames`` (one, or a
    tuple or list of them), else ``None``."""
    elements = [e.value for e in value.elements] if isinstance(value, (cst.Tuple, cst.List)) else [value]
    items: set = set()
    for element in elements:
        if isinstance(element, cst.Integer):
            items.add(int(element.value, 0))
        elif isinstance(element, cst.SimpleString):
            items.add(element.evaluated_value)
        else:
            return None
    return items


def _donates_nothing(value: cst.BaseExpression) -> bool:
    """``()``, ``[]`` or ``None``: a donation keyword that names no argument."""
    return isinstance(value, (cst.Tuple, cst.List)) and not value.elements or isinstance(value, cst.Name) and (
        value.value == "None"
    )


class _UpdatedCopies:
    """Which parameter each name of a step's body holds a part of (``rows = state.rows``) or an
    updated copy of: a write into the parameter or a part of it (``state.rows.at[i].set(v)``,
    ``dynamic_update_slice(state.rows, ...)``), or the parameter rebuilt around such a write
    (``state._replace(rows=...)``, ``state.replace(...)``, ``dataclasses.replace(state, ...)``,
    ``{**state, "rows": ...}``, a dict display given an entry so written, ``tree_map(lambda b, v:
    b.at[i].set(v), state, values)``).
    Donating that parameter lets XLA write the updated leaf into the argument's memory.
    Assignments are read in source order, whatever branch they are in: the finding's fix is
    unsafe in any case, and a step that updates its argument on one path copies it there."""

    def __init__(self, rule: DonationRule, params: list[str], depth: int) -> None:
        self.rule = rule
        self.depth = depth
        self.parts: dict[str, str] = {p: p for p in params}
        self.copies: dict[str, str] = {}

    def unpack(self, target: cst.Tuple | cst.List, value: cst.BaseExpression) -> None:
        """``grid, ids = env``: each name holds a part of what ``value`` holds a part of. Of a
        helper's result that updates an argument (``y, cache = attend(x, cache)``), the name that
        argument is bound to holds the updated copy."""
        whole = self.part(value)
        origin = self.updated(value) if isinstance(value, cst.Call) else None
        given = {a.value.value for a in value.args if isinstance(a.value, cst.Name) and self._base(a.value) == origin} if (
            origin is not None
        ) else set()
        for element in target.elements:
            if isinstance(element.value, cst.Name):
                self.copies.pop(element.value.value, None)
                if element.value.value in given:
                    self.parts.pop(element.value.value, None)
                    self.copies[element.value.value] = origin
                elif whole is not None:
                    self.parts[element.value.value] = whole
                else:
                    self.parts.pop(element.value.value, None)

    def bind(self, name: str, value: cst.BaseExpression) -> None:
        origin, part = self.updated(value), self.part(value)
        self.parts.pop(name, None)
        self.copies.pop(name, None)
        if origin is not None:
            self.copies[name] = origin
        elif part is not None:
            self.parts[name] = part

    def part(self, expr: cst.BaseExpression) -> str | None:
        """The parameter that ``expr`` reads a part of, unchanged (``state``, ``state.rows``, ``state[0]``)."""
        while isinstance(expr, (cst.Attribute, cst.Subscript)):
            expr = expr.value
        return self.parts.get(expr.value) if isinstance(expr, cst.Name) else None

    def _base(self, expr: cst.BaseExpression) -> str | None:
        """The parameter ``expr`` holds a part or an updated copy of."""
        return self.part(expr) or self.updated(expr)

    def updated(self, expr: cst.BaseExpression) -> str | None:
        """The parameter ``expr`` is an updated copy of, if any."""
        if isinstance(expr, cst.Name):
            return self.copies.get(expr.value)
        if isinstance(expr, cst.Dict):  # `{**state, "rows": state["rows"].at[i].set(v)}`
            spread = [self.part(e.value) for e in expr.elements if isinstance(e, cst.StarredDictElement)]
            written = {self.updated(e.value) for e in expr.elements if isinstance(e, cst.DictElement)}
            if not spread:  # `{"xs": buf["xs"].at[p].set(x), "p": buf["p"] + 1}`: every entry given again
                return next((p for p in written if p is not None), None)
            return next((p for p in spread if p is not None and p in written), None)
        if not isinstance(expr, cst.Call):
            return None
        found = scopes.at_call(expr)
        if found is not None:
            return self._base(found[0]) if found[1] in UPDATE_METHODS else None
        if self.rule.matches(expr.func, WRITES) and expr.args:
            return self._base(expr.args[0].value)
        rebuilt = self._rebuilt(expr)
        if rebuilt is not None:
            origin = self._base(rebuilt)
            fields = [a.value for a in expr.args if a.keyword is not None]
            return origin if origin is not None and any(self.updated(f) == origin for f in fields) else None
        if self.rule.matches(expr.func, TREE_MAP) and len(expr.args) >= 2 and self._writes_first(expr.args[0].value):
            return self._base(expr.args[1].value)
        imported = self.rule.updater(expr.func) if self.rule.context.imported.updaters else None
        if imported is not None and not any(a.star or a.keyword is not None for a in expr.args[: max(imported) + 1]):
            origins = (self._base(expr.args[k].value) for k in imported if k < len(expr.args))
            return next((origin for origin in origins if origin is not None), None)  # `forward(params, tok, cache, pos)`
        callee = self.rule.semantics.binding(expr.func) if isinstance(expr.func, cst.Name) else None
        if isinstance(callee, cst.ClassDef):  # `State(idx=..., values=state.values.at[i].set(v))`: the record rebuilt
            return next((origin for a in expr.args if not a.star and (origin := self.updated(a.value)) is not None), None)
        if isinstance(callee, cst.FunctionDef) and not callee.decorators and self.depth < 2:
            written = self.rule.updated_params(callee, self.depth + 1)  # a helper that writes its argument
            positional = [a.value for a in expr.args if a.keyword is None and not a.star]
            origins = (self._base(positional[k]) for k in written if k < len(positional))
            return next((origin for origin in origins if origin is not None), None)
        method = self._only_method(expr.func) if self.depth < 2 else None
        written = self.rule.updated_params(method, self.depth + 1) if method is not None else {}
        if 0 in written:
            return self._base(expr.func.value)  # `pool.update(idxs, batch)` returning `self.replace(data=self.data.at[...])`
        if written and not any(a.star or a.keyword is not None for a in expr.args):
            # `store.append(buffer, x)` returning `buffer` rebuilt around a write: its argument's updated copy
            origins = (self._base(expr.args[k - 1].value) for k in sorted(written) if 0 < k <= len(expr.args))
            return next((origin for origin in origins if origin is not None), None)
        return None

    def _only_method(self, func: cst.BaseExpression) -> cst.FunctionDef | None:
        """For ``obj.name(...)``, the file's one method ``name`` (see
        :meth:`TracedFunctions.only_method`), plain or jitted: what the call runs on an object
        whose class the file cannot tell."""
        method = self.rule.traced.only_method(func.attr.value) if isinstance(func, cst.Attribute) else None
        if method is None or any(not self.rule.is_jit(d.decorator) for d in method.decorators):
            return None
        return method

    def _writes_first(self, fn: cst.BaseExpression) -> bool:
        """Whether ``fn`` returns a write into its first parameter: a lambda (``lambda b, v:
        b.at[t].set(v)``) or a ``def`` bound to a name (``def put(b, v): return b.at[t].set(v)``),
        whose every ``return`` gives one (under ``if`` tests, as per a leaf's rank)."""
        function = self.rule.semantics.binding(fn) if isinstance(fn, cst.Name) else fn
        returned = scopes.only_return(function)
        returns = [returned] if returned is not None else [  # `if src.ndim: return src.at[i].set(v)` / `return src.at[i, :].set(v)`
            r.value for r in self.rule.semantics.own_of_kind(function, cst.Return)
        ] if isinstance(function, cst.FunctionDef) and not function.decorators else []
        if not returns or not function.params.params:
            return False
        first = function.params.params[0].name.value
        return all(
            (found := scopes.at_call(value)) is not None and found[1] in UPDATE_METHODS
            and isinstance(found[0], cst.Name) and found[0].value == first
            for value in returns
        )

    def _rebuilt(self, call: cst.Call) -> cst.BaseExpression | None:
        """What ``call`` copies with some fields replaced: ``x`` of ``x._replace(...)``,
        ``x.replace(...)``, ``x.set(...)`` (fields by keyword) or ``dataclasses.replace(x, ...)``."""
        if self.rule.matches(call.func, REPLACE):
            return call.args[0].value if call.args and call.args[0].keyword is None else None
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in REPLACE_METHODS and call.args and all(
            a.keyword is not None for a in call.args
        ):
            return call.func.value
        return None


def _held_units(facts: prefilter.Facts, callers: list[prefilter.Site]) -> set[int]:
    """The units of the classes whose methods call ``self.ring.add(state, r)``: the caller's
    class says what ``self.ring`` is made as."""
    shell_of = {method: shell for shell, methods in facts.members.items() for method in methods}
    return {
        unit for site in callers if isinstance(site.node.func, ast.Attribute) and isinstance(site.node.func.value, ast.Attribute)
        and site.top in shell_of for unit in (shell_of[site.top], *facts.members[shell_of[site.top]])
    }


def _imported_steps(facts: prefilter.Facts) -> set[str]:
    """The names of other modules' functions that write a parameter and that the file may call
    jitted: jitted in their module donating nothing, or handed to a ``jit`` here."""
    handed = {prefilter.terminal(s.node.args[0]) for s in facts.calls_named(prefilter.JIT_NAMES) if s.node.args}
    return set(facts.undonated_names) | (handed & facts.updater_names)


def _jitted_at_call(facts: prefilter.Facts, func: ast.expr) -> ast.expr:
    """The function a loop's call runs: ``step`` of ``step(buf)``, and of ``jax.jit(step)(buf)``,
    jitted where it is called."""
    if isinstance(func, ast.Call) and facts.name(func.func) in prefilter.JIT_NAMES and func.args:
        return func.args[0]
    return func
