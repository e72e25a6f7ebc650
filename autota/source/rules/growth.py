"""AT101 and AT102: arrays grown or updated copy by copy inside Python loops.

Both cost O(T^2): every step builds a new array holding everything so far. Both fixes collect
the per-step pieces in a Python list (O(1) a step) and build the array once after the loop.
The fixes are offered only where the value after the loop is provably the same, shape, dtype
and the empty loop included; elsewhere the finding says which condition failed.
"""

from __future__ import annotations

import ast
import itertools
import re
from dataclasses import dataclass

import libcst as cst

from autota.catalogue import Fix
from autota.source import prefilter, scopes, vocabulary
from autota.source.rule import FEW_TRIPS, SourceRule

UNSTEADY = (cst.Call, cst.Attribute, cst.Subscript, cst.NamedExpr, cst.Await, cst.Yield, cst.Lambda,
            cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
"""What may give an index another value each step though it reads no name the loop binds."""

JNP = "jax.numpy"
SELF_CONVERSIONS = frozenset({f"{JNP}.array", f"{JNP}.asarray", f"{JNP}.copy", "numpy.array", "numpy.asarray", "numpy.copy"})
"""Calls that give an array's own values back (a copy, a conversion)."""
FLOAT_CONSTANTS = vocabulary.FLOAT_CONSTANTS
ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)

# Growth functions: qualified name -> (how the pieces are passed, axis keyword, default axis).
# "seq": f([a, b, ...], axis); "pair": jnp.append(arr, values, axis).
GROWTH = {
    f"{JNP}.concatenate": ("seq", "axis"),
    f"{JNP}.concat": ("seq", "axis"),
    "jax.lax.concatenate": ("seq", "dimension"),
    f"{JNP}.vstack": ("seq", None),
    f"{JNP}.row_stack": ("seq", None),
    f"{JNP}.hstack": ("seq", None),
    f"{JNP}.dstack": ("seq", None),
    f"{JNP}.column_stack": ("seq", None),
    f"{JNP}.append": ("pair", "axis"),
    f"{JNP}.stack": ("seq", "axis"),
}
UPDATE_METHODS = prefilter.UPDATE_METHODS
HELD_REASON = "the array is an attribute or an item; the fix rewrites a name (bind it to a local before the loop and back after it)"
POSITION_ARRAYS = frozenset({f"{JNP}.arange", "jax.lax.iota", f"{JNP}.indices", "jax.lax.broadcasted_iota"})
"""Arrays of positions: a comparison of one with the loop index is a one-hot mask of one row."""
COMBINING = frozenset(UPDATE_METHODS) - {"set"}
"""The ``x.at[...]`` methods that combine the old value with the new one."""
INDEX_SEQUENCES = frozenset({
    "builtins.zip", "itertools.product", "itertools.combinations", "itertools.permutations",
    "itertools.combinations_with_replacement", "numpy.ndindex",
})
"""Iterables whose items are positions walked one a step, or parts of several sequences side by
side: a loop unpacking them names a slot a step, not an entry's own slot."""
DYNAMIC_UPDATES = frozenset(
    {
        "jax.lax.dynamic_update_slice",
        "jax.lax.dynamic_update_index_in_dim",
        "jax.lax.dynamic_update_slice_in_dim",
    }
)


@dataclass(frozen=True)
class Spelling:
    """How the loop's ``acc = value`` reaches the call that grows or updates ``acc``: the value
    itself; the value of a name bound just before in the same block (``new = f(acc, ...)`` ...
    ``acc = new``); or the one ``return`` of a helper the value calls (``acc = put(acc, i, v)``),
    whose parameters stand for the loop's arguments. The program is the same in each spelling,
    so is the finding; only the first is what the fixes rewrite."""

    call: cst.Call
    receiver: str
    """How ``call`` names the array: ``acc`` itself, or the helper's parameter bound to it."""
    site: cst.CSTNode
    """Where the finding points: the call, or the loop's call of the helper."""
    indirect: str | None = None
    """Why no fix rewrites this spelling, where it is not the call itself."""
    arguments: tuple[tuple[str, cst.BaseExpression], ...] = ()
    """The helper's parameters and what the loop passes them."""


@dataclass
class Growth:
    """``acc = f(..., acc, ...)`` where ``f`` extends ``acc`` by ``pieces``."""

    statement: cst.Assign
    target: cst.BaseAssignTargetExpression
    """What ``statement`` binds the grown array to: a name (one element of ``a, b = helper(a,
    b)``), or an attribute or an item, which no fix rewrites."""
    call: cst.Call
    function: str
    acc: str
    pieces: list[cst.BaseExpression]
    prepend: bool
    axis: cst.Arg | None
    extra: frozenset[str]
    """Arguments other than the pieces and the axis (``dtype=``, or ``dtype`` given by position),
    as the message names them: they change each step's result, so no fix."""
    spelling: Spelling

    def key(self, rule) -> tuple:
        axis = rule.code_of(self.axis.value) if self.axis else None
        return (self.function, rule.code_of(self.call.func), self.prepend, axis)


def _may_grow(facts: prefilter.Facts, assign: ast.Assign, helpers: dict[str, set[int]]) -> bool:
    """Whether ``x = f(...x...)`` may be a growth (AT101) or an update (AT102) of ``x``, there or
    in ``helpers`` (see :func:`_growing_helpers`)."""
    target = assign.targets[0]
    if isinstance(target, (ast.Tuple, ast.List)):  # `a, b = step(a, b, x)`: a helper's tuple
        return isinstance(assign.value, ast.Call) and (
            isinstance(assign.value.func, ast.Name) and assign.value.func.id in helpers
            or facts.name(assign.value.func) in facts.grower_names
        )
    if not isinstance(target, ast.Name):
        return True  # `obj.data = obj.data.at[i].set(v)`, as the prefilter found it
    name = target.id
    return any(
        _may_grow_call(facts, call, name) or bool(_called_helpers(call, helpers))
        or facts.name(call.func) in facts.grower_names
        for call in prefilter.assigned_calls(assign.value)
    )


def _open_band(call: cst.Call) -> bool:
    """Whether ``call`` writes from a bound to one end of an axis, the others whole (``c.at[j:]``,
    ``h.at[..., :k]``, the bound not a literal): each step writes a part that grows with the array (a
    divided-difference table, a Householder sweep), so copying the whole array costs no more
    than the step's own work, and there are no rows to collect."""
    found = scopes.at_call(call)
    if found is None:
        return False
    parts = [e.slice for e in call.func.value.slice if not _whole_axis(e.slice)]  # not `buf.at[p, :n]`, row `p` of the step
    return len(parts) == 1 and isinstance(parts[0], cst.Slice) and parts[0].step is None and (
        (parts[0].lower is None) != (parts[0].upper is None)
    ) and scopes.int_value(parts[0].lower or parts[0].upper) is None


def _sets_whole(call: cst.BaseExpression) -> bool:
    """Whether ``call`` sets every slot of its array (``w.at[:, :].set(0)``, ``w.at[...].set(v)``)."""
    found = scopes.at_call(call)
    return found is not None and found[1] == "set" and all(_whole_axis(e.slice) for e in call.func.value.slice)


def _whole_axis(part: cst.BaseSlice) -> bool:
    """Whether an index part takes its axes whole: ``:`` or ``...``."""
    return isinstance(part, cst.Slice) and (part.lower, part.upper, part.step) == (None, None, None) or (
        isinstance(part, cst.Index) and isinstance(part.value, cst.Ellipsis)
    )


def _called_helpers(call: ast.Call, helpers: dict[str, set[int]]) -> list[str]:
    """The helpers of ``helpers`` that ``call`` calls (``put(b, i, v)``) or hands on by name as
    its first argument (``tree_map(grow, acc, x)``)."""
    named = [call.func, *call.args[:1]]
    return [n.id for n in named if isinstance(n, ast.Name) and n.id in helpers]


def _may_grow_call(facts: prefilter.Facts, call: ast.Call, name: str) -> bool:
    function = facts.name(call.func)
    if function in prefilter.GROWTH_NAMES and not facts.outside_jax(call.func):
        return prefilter.grows(call, name, pair=function == "append")
    if function in prefilter.DYNAMIC_UPDATE_NAMES and not facts.outside_jax(call.func):
        return True
    return prefilter.at_update_receiver(call) == name or prefilter.updates_parts(call, name)


def _growing_helpers(facts: prefilter.Facts) -> dict[str, set[int]]:
    """The file's functions that only return a growth or an update of a parameter (``def put(b,
    i, v): return b.at[i].set(v)``, ``put = lambda b, v: jnp.append(b, v)``), by name, with the
    units that define them: slicing keeps those where a loop calls one."""
    found: dict[str, set[int]] = {}
    lambdas = {id(node): name for name, nodes in facts.named_lambdas.items() for node in nodes}
    for site in facts.functions:
        node = site.node
        if isinstance(node, ast.Lambda):
            name, body = lambdas.get(id(node)), node.body
        else:
            name = node.name
            body = next((s.value for s in node.body[-1:] if isinstance(s, ast.Return)), None)
        params = [a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]]
        if isinstance(body, ast.Tuple) and not isinstance(node, ast.Lambda):  # `return alpha, seen`, bound to growths
            made = {
                s.targets[0].id: s.value for s in node.body
                if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Call)
            }
            calls = [made.get(e.id) if isinstance(e, ast.Name) else e for e in body.elts]
        elif isinstance(body, ast.Name) and body.id in params and not isinstance(node, ast.Lambda):
            calls = [  # `buf = buf.at[i].set(x)` (perhaps under an `if`) then `return buf`
                s.value for s in ast.walk(node) if isinstance(s, ast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], ast.Name) and s.targets[0].id == body.id
            ]
        else:
            calls = [body] if isinstance(node, ast.Lambda) or len(node.body) <= 2 or all(
                isinstance(s, ast.If) or isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) for s in node.body[:-1]
            ) else []  # (a docstring, `if i < 0: return buf` guards)
        if name is not None and any(
            isinstance(call, ast.Call) and any(_may_grow_call(facts, call, p) for p in params) for call in calls
        ):
            found.setdefault(name, set()).add(site.top)
    return found


_JOIN_MARK = "noqa: AT101 - only where the dtype widens"
"""The comment on the step-by-step growth of the join a fix puts after the loop."""

STRING_RENAMES = frozenset({"replace", "upper", "lower", "strip", "removeprefix", "removesuffix", "format"})
"""String methods that make a key from a key (``k.replace("rejected", "cat")``)."""


class GrowthRule(SourceRule):
    codes = ("AT101", "AT102")
    triggers = ("concat", "append", "stack", ".at[", "dynamic_update")

    def __init__(self, context) -> None:
        super().__init__(context)
        self._seen: set[tuple[str, int]] = set()
        self._updated: set[tuple[str, int]] = set()

    @classmethod
    def relevant(cls, facts: prefilter.Facts) -> set[int] | None:
        """Where a name is grown or updated by itself (``x = f([x, ...])``) inside a loop."""
        helpers = _growing_helpers(facts)
        candidates = [site for site in facts.self_assigns if site.in_loop and _may_grow(facts, site.node, helpers)]
        made = {}
        for name, site in facts.call_assigns:
            made.setdefault((name, site.top), []).append(site.node)
        candidates += [  # `new = f(x, ...)` then `x = new`
            site for site in facts.renames
            if any(_may_grow_call(facts, call, site.node.targets[0].id) for call in made.get((site.node.value.id, site.top), ()))
        ]
        if any(not facts.top_is_definition[site.top] for site in candidates):
            return None  # a module-level accumulator: any function of the module may see it
        around = prefilter.holding(facts.functions, candidates)
        called = {  # the helpers the candidates call
            top for site in candidates if isinstance(site.node.value, ast.Call)
            for name in _called_helpers(site.node.value, helpers) for top in helpers[name]
        }
        # the functions (and own methods) the loops' functions call by name: where an entry's slot
        # is read (`place(item)`, `self.place(item)`)
        names = {
            c.node.func.id if isinstance(c.node.func, ast.Name) else c.node.func.attr
            for c in prefilter.inside(facts.calls, around) if (
                isinstance(c.node.func, ast.Name)
                or isinstance(c.node.func, ast.Attribute) and isinstance(c.node.func.value, ast.Name) and c.node.func.value.id == "self"
            )
        }
        called |= {
            f.top for f in facts.functions
            if not isinstance(f.node, ast.Lambda) and f.node.name in names and facts.top_is_definition[f.top]
        }
        return prefilter.tops(candidates) | called | prefilter.tracing_call_tops(facts, around)

    # -- AT101 ------------------------------------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        growths = self._growths_of(node)
        for growth in growths:
            self._check_growth(growth)
        if growths:
            return
        update = self._update(node)
        if update is not None:
            self._check_update(node, *update)
            buf = scopes.assign_to(node)
            if buf is not None and isinstance(node.value, cst.Call) and update[0] != buf:
                for further in itertools.islice(self._part_updates(node.value, buf), 1, None):
                    self._check_update(node, *further)  # `replace(c, conv=..., rec=...)`: each field its own array

    def _spellings(self, node: cst.Assign, acc: str | None) -> list[Spelling]:
        """The calls that ``acc = value`` may grow or update ``acc`` by, in the spellings of
        :class:`Spelling`: the value itself first."""
        value = node.value
        if acc is None:
            return []
        if isinstance(value, cst.Name) and value.value != acc:
            reaching = self.semantics.reaching_value(value)
            loops = scopes.enclosing_loops(self, node)
            if reaching is None or reaching[0] != () or not isinstance(reaching[1], cst.Call):
                return []
            made = reaching[1]
            if not loops or not self.semantics.within(made, loops[0]):
                return []  # made once, outside the loop: not grown in it
            why = (
                f"the new value is bound to `{value.value}` (line {self.start_line(made)}) before `{acc}`; the fix "
                f"rewrites `{acc} = ...` made in one statement"
            )
            return [Spelling(made, acc, made, why)]
        if isinstance(value, cst.IfExp):
            growing = self._growing_branch(value, acc, node)
            if growing is None:
                return []
            why = (
                f"the first step binds `{acc}` to its first piece (line {self.start_line(node)}); the fix collects "
                "the pieces of a loop that grows an array bound before it"
            )
            return [Spelling(growing, acc, growing, why)]
        if not isinstance(value, cst.Call):
            return []
        if isinstance(value.func, cst.Attribute) and value.func.attr.value == "astype" and isinstance(value.func.value, cst.Call):
            cast = value.func.value  # `idx = jnp.append(idx, new).astype(jnp.int32)`: grown, then cast
            why = f"the grown array is cast (`.astype`, line {self.start_line(value)}); the fix collects the pieces of a growth alone"
            return [Spelling(cast, acc, cast, why)]
        mapped = self._mapped_spelling(value, acc)
        if mapped is not None:
            return [mapped]
        found = [Spelling(value, acc, value)]
        helper = self.semantics.binding(value.func) if isinstance(value.func, cst.Name) else None
        returned, guards = scopes.only_return(helper), []
        if returned is None:
            returned, guards = scopes.guarded_return(helper) or scopes.rebound_return(helper) or (None, [])
        arguments = _arguments(helper, value) if returned is not None else None
        if arguments:
            receivers = [p for p, arg in arguments.items() if isinstance(arg, cst.Name) and arg.value == acc]
            if len(receivers) == 1 and all(param == receivers[0] for _, param in guards):
                why = (
                    f"the helper `{value.func.value}` (line {self.start_line(helper)}) does the update; the "
                    "fix rewrites a call written in the loop"
                ) if not guards else (
                    f"the helper `{value.func.value}` hands the array back unchanged where `"
                    f"{self.code_of(guards[0][0].test)}` (line {self.start_line(guards[0][0])}); the fix rewrites a write "
                    "made every step"
                ) if not self.semantics.within(returned, guards[0][0]) else (
                    f"the helper `{value.func.value}` writes the array only where `{self.code_of(guards[0][0].test)}` "
                    f"(line {self.start_line(guards[0][0])}); the fix rewrites a write made every step"
                )
                found.append(Spelling(returned, receivers[0], value, why, tuple(arguments.items())))
        return found

    def _mapped_spelling(self, value: cst.Call, acc: str) -> Spelling | None:
        """``acc = tree_map(lambda a, x: f(a, x), acc, xs)``, or ``tree_map(grow, acc, xs)`` of a
        ``def grow(a, x): return f(a, x)``: each leaf of ``acc`` (a name, or the code of a field,
        ``s.f``) grown or updated by ``f``, whose parameter stands for ``acc``. No fix rewrites it:
        the fixes collect the pieces or rows of one array."""
        function = value.args[0].value if value.args and self.matches(value.func, vocabulary.TREE_MAP) else None
        helper = self.semantics.binding(function) if isinstance(function, cst.Name) else function
        returned = scopes.only_return(helper) if isinstance(helper, (cst.Lambda, cst.FunctionDef)) else None
        if returned is None or any(a.keyword or a.star for a in value.args) or (
            helper.params.star_arg is not cst.MaybeSentinel.DEFAULT or helper.params.kwonly_params
            or helper.params.posonly_params or helper.params.star_kwarg is not None
        ):
            return None
        params = [p.name.value for p in helper.params.params]
        trees = [a.value for a in value.args[1:]]
        if len(params) != len(trees):
            return None
        receivers = [p for p, tree in zip(params, trees, strict=True) if self.code_of(tree) == acc]
        if len(receivers) != 1:
            return None
        why = f"the arrays are the leaves of `{acc}`, each through `{self.code_of(value.func)}`; the fix rewrites one array"
        site = returned if isinstance(helper, cst.Lambda) else value
        return Spelling(returned, receivers[0], site, why, tuple(zip(params, trees, strict=True)))

    def _growing_branch(self, choice: cst.IfExp, acc: str, node: cst.CSTNode) -> cst.Call | None:
        """The call of ``acc = a if test else b`` that runs after the first step, where ``test``
        tells the first step (see :meth:`_first_step`)."""
        loops = scopes.enclosing_loops(self, node)
        first = self._first_step(choice.test, acc, loops[0]) if loops else None
        growing = None if first is None else choice.orelse if first else choice.body
        return growing if isinstance(growing, cst.Call) else None

    def _first_step(self, test: cst.BaseExpression, acc: str, loop: cst.CSTNode) -> bool | None:
        """``True`` where ``test`` holds on the first step of ``loop`` alone, the one that first
        binds ``acc`` (``acc is None``, ``t == 0`` on a counter that starts at 0: ``range(n)``,
        ``range(0, n)``, ``enumerate(xs)``); ``False`` for their negations (``acc is not None``,
        ``t != 0``, the counter itself as a truth value); else ``None`` (``t == 3`` binds it on a
        later step: the array is rebuilt)."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            negated = self._first_step(test.expression, acc, loop)  # `if not t:`
            return None if negated is None else not negated
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And) and (
            self._first_step(test.left, acc, loop) or self._first_step(test.right, acc, loop)
        ):
            return True  # `if t == 0 and fresh:`: the first step at most
        counter = self._counter(loop) if self._counts_from_zero(loop) else None
        if isinstance(test, cst.Name):
            return False if counter is not None and test.value == counter else None
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
            return None
        operator, other = test.comparisons[0].operator, test.comparisons[0].comparator
        if isinstance(test.left, cst.Name) and test.left.value == acc and self.matches(other, {"builtins.None"}):
            return True if isinstance(operator, cst.Is) else False if isinstance(operator, cst.IsNot) else None
        if counter is None:
            return None
        if isinstance(test.left, cst.Name) and test.left.value == counter:
            bound, flipped = scopes.int_value(other), False
        elif isinstance(other, cst.Name) and other.value == counter:
            bound, flipped = scopes.int_value(test.left), True  # `0 < t`
        else:
            return None
        if bound is None:
            return None
        if flipped:
            operator = {cst.LessThan: cst.GreaterThan(), cst.GreaterThan: cst.LessThan(), cst.LessThanEqual: cst.GreaterThanEqual(),
                        cst.GreaterThanEqual: cst.LessThanEqual()}.get(type(operator), operator)
        first = {  # on a counter from 0: which tests hold on the first step alone, and which on all others
            (cst.Equal, 0): True, (cst.NotEqual, 0): False, (cst.LessThan, 1): True, (cst.LessThanEqual, 0): True,
            (cst.GreaterThan, 0): False, (cst.GreaterThanEqual, 1): False,
        }
        return first.get((type(operator), bound))

    def _counts_from_zero(self, loop: cst.CSTNode) -> bool:
        """Whether the counter of ``loop`` (see :meth:`_counter`) is 0 on its first step: a
        ``range(n)`` or ``range(0, n[, step])``, not reversed, or ``enumerate(xs)`` with no start."""
        if not isinstance(loop, cst.For):
            return False
        iterator = loop.iter
        if isinstance(iterator, cst.Call) and self.matches(iterator.func, {"builtins.enumerate"}):
            return len(iterator.args) == 1 and iterator.args[0].keyword is None and not iterator.args[0].star
        given = self.range_call(iterator)
        return given is iterator and given is not None and not any(a.keyword or a.star for a in given.args) and (
            len(given.args) == 1 or len(given.args) >= 2 and scopes.int_value(given.args[0].value) == 0
        )

    def _seeds(self, name: cst.Name, acc: str, loop: cst.CSTNode) -> bool:
        """Whether this binding of ``acc`` in ``loop`` seeds it on the first step only (under ``if
        acc is None:`` or ``if t == 0:``): the loop still grows it."""
        for branch in itertools.takewhile(lambda a: a is not loop, self.ancestors(name)):
            first = self._first_step(branch.test, acc, loop) if isinstance(branch, cst.If) else None
            if first and self.semantics.within(name, branch.body) or first is False and (
                branch.orelse is not None and self.semantics.within(name, branch.orelse)
            ):
                return True
        return False

    def _fixed_branch(self, name: cst.Name, growth: cst.CSTNode, loop: cst.CSTNode) -> cst.If | None:
        """The ``if`` whose one branch binds ``name`` and whose other holds ``growth``, where its
        test is the same on every step (names the loop does not bind, constants, ``not``, ``and``,
        ``or`` and comparisons, no call: ``if pad:``): the growth runs on every step or on none."""
        for branch in itertools.takewhile(lambda a: a is not loop, self.ancestors(name)):
            if not isinstance(branch, cst.If) or branch.orelse is None:
                continue
            sides = (branch.body, branch.orelse)
            if not any(self.semantics.within(name, a) and self.semantics.within(growth, b) for a, b in (sides, sides[::-1])):
                continue
            allowed = (cst.Name, cst.Integer, cst.SimpleString, cst.UnaryOperation, cst.BooleanOperation, cst.Comparison,
                       cst.ComparisonTarget, cst.Not, cst.And, cst.Or, cst.Is, cst.IsNot, cst.Equal, cst.NotEqual)
            parts = self.semantics.find(branch.test, lambda n: True)
            if all(isinstance(n, allowed) for n in parts) and not any(
                scopes.binding_role(self.semantics.parents, other)[0] is not None
                for n in parts if isinstance(n, cst.Name) for other in self.semantics.names_in(loop, n.value)
            ):
                return branch
            return None
        return None

    def _growths_of(self, node: cst.Assign) -> list[Growth]:
        """The growths ``node`` makes: of its one name, or of the names it unpacks a helper's
        tuple into (``alpha, seen = step(alpha, seen, obs)``, where ``step`` returns ``alpha``
        grown)."""
        acc = scopes.assign_to(node)
        held = node.targets[0].target if acc is None and type(node) is cst.Assign and len(node.targets) == 1 else None
        if isinstance(held, (cst.Attribute, cst.Subscript)) and isinstance(node.value, cst.Call):
            growth = self._growth_by(node, held, Spelling(node.value, self.code_of(held), node.value, HELD_REASON))
            return [growth] if growth is not None else []  # `log[k] = jnp.concatenate([log[k], x])`
        if acc is not None:
            for spelling in self._spellings(node, acc):
                growth = self._growth_by(node, node.targets[0].target, spelling)
                if growth is not None:
                    return [growth]
            grown = self._grower_growth(node, node.targets[0].target, None)
            return [grown] if grown is not None else []
        found = []
        for target, spelling in self._unpacked_spellings(node):
            growth = self._growth_by(node, target, spelling)
            if growth is not None:
                found.append(growth)
        if not found and type(node) is cst.Assign and len(node.targets) == 1 and isinstance(
            node.targets[0].target, (cst.Tuple, cst.List)
        ):
            for position, element in enumerate(node.targets[0].target.elements):
                grown = self._grower_growth(node, element.value, position) if isinstance(element.value, cst.Name) else None
                if grown is not None:
                    found.append(grown)
        return found

    def _grower_growth(self, node: cst.Assign, target: cst.Name, position: int | None) -> Growth | None:
        """``target = grower(..., target, ...)`` (or ``..., target, ... = grower(...)`` at
        ``position``), where the grower (see :mod:`autota.source.growers`: a function of the
        file or of another module of the run, perhaps a few calls from the growth) returns there
        the array passed for one of its parameters, grown."""
        call = node.value
        if not isinstance(call, cst.Call) or any(a.star for a in call.args):
            return None
        grower = self.grower(call.func)
        if grower is None:
            return None
        for where, param in grower.grows:
            k = grower.params.index(param)
            given = [a.value for a in call.args if a.keyword is not None and a.keyword.value == param]
            if not given and k < len(call.args) and all(a.keyword is None for a in call.args[: k + 1]):
                given = [call.args[k].value]
            if where == position and given and isinstance(given[0], cst.Name) and given[0].value == target.value:
                local = any(grower is g for g in self.context.own.growers.values())
                where = f"`{grower.name.rpartition('.')[2]}` (line {grower.line})" if local else (
                    f"`{grower.name}` (line {grower.line} of its module)"
                )
                why = f"the array is grown by {where}, which the fix does not rewrite"
                spelling = Spelling(call, target.value, call, why, ((param, given[0]),))
                return Growth(node, target, call, grower.function, target.value, [], False, None, frozenset(), spelling)
        return None

    def _unpacked_spellings(self, node: cst.Assign) -> list[tuple[cst.Name, Spelling]]:
        """For ``a, b = helper(a, b, ...)``: each name with the call that makes its element of
        the tuple the helper returns, the helper's parameter it passes standing for the name."""
        value = node.value
        if not (
            type(node) is cst.Assign and len(node.targets) == 1 and isinstance(node.targets[0].target, (cst.Tuple, cst.List))
            and isinstance(value, cst.Call) and isinstance(value.func, cst.Name)
        ):
            return []
        elements = node.targets[0].target.elements
        helper = self.semantics.binding(value.func)
        if not isinstance(helper, cst.FunctionDef) or any(not isinstance(e.value, cst.Name) for e in elements):
            return []
        returned = self._returned_tuple(helper, len(elements))
        arguments = _arguments(helper, value) if returned is not None else None
        if not arguments:
            return []
        found = []
        for element, made in zip(elements, returned, strict=True):
            acc = element.value.value
            receivers = [p for p, arg in arguments.items() if isinstance(arg, cst.Name) and arg.value == acc]
            if made is None or len(receivers) != 1 or not self._parameter_at(helper, receivers[0], made):
                continue
            why = (
                f"the helper `{value.func.value}` (line {self.start_line(helper)}) does the update and returns "
                "the array in a tuple; the fix rewrites a call written in the loop"
            )
            found.append((element.value, Spelling(made, receivers[0], value, why, tuple(arguments.items()))))
        return found

    def _returned_tuple(self, helper: cst.FunctionDef, width: int) -> list[cst.Call | None] | None:
        """The calls whose results ``helper`` returns as a tuple of ``width`` elements, in order
        (``None`` for an element that is no call, nor a name the helper's body binds to one
        unconditionally): the helper's one ``return``, its last statement. A decorator other
        than ``jit``, which keeps what a function returns, may change it: ``None``."""
        if helper.asynchronous or any(not self.is_jit(d.decorator) for d in helper.decorators):
            return None
        lines = helper.body.body if isinstance(helper.body, cst.IndentedBlock) else ()
        last = lines[-1] if lines else None
        returns = self.semantics.own_of_kind(helper, cst.Return, cst.Yield)
        if not (
            isinstance(last, cst.SimpleStatementLine) and len(returns) == 1 and returns[0] is last.body[-1]
            and isinstance(returns[0], cst.Return) and isinstance(returns[0].value, cst.Tuple)
        ):
            return None
        elements = returns[0].value.elements
        if len(elements) != width or any(isinstance(e, cst.StarredElement) for e in elements):
            return None
        made = []
        for element in elements:
            value = element.value
            if isinstance(value, cst.Name):
                reaching = self.semantics.reaching_value(value)
                value = reaching[1] if reaching is not None and reaching[0] == () else None
            made.append(value if isinstance(value, cst.Call) else None)
        return made

    def _parameter_at(self, helper: cst.FunctionDef, param: str, call: cst.Call) -> bool:
        """Whether ``param`` still holds what the caller passed where ``call`` reads it: the helper
        binds it nowhere but as the target of ``call``'s own assignment."""
        holder = self.parent(call)
        for name in self.semantics.names_in(helper, param):
            if scopes.binding_role(self.semantics.parents, name)[0] is None or isinstance(self.parent(name), cst.Param):
                continue
            if not (isinstance(holder, cst.Assign) and any(t.target is name for t in holder.targets)):
                return False
        return True

    def _growth_by(self, node: cst.Assign, target: cst.Name, spelling: Spelling) -> Growth | None:
        call = spelling.call
        function = self.matches(call.func, GROWTH)
        if function is None:
            return None
        style, axis_keyword = GROWTH[function]
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if any(a.star for a in call.args):
            return None
        keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
        if style == "pair":
            if len(positional) < 2:
                return None
            items = [positional[0].value, positional[1].value]
            axis = positional[2] if len(positional) > 2 else keywords.get("axis")
            extra = {f"the keyword `{k}=`" for k in set(keywords) - {"axis", "arr", "values"}}
            extra |= {f"a positional argument `{self.code_of(a.value)}`" for a in positional[3:]}
        else:
            if not positional or not isinstance(positional[0].value, (cst.List, cst.Tuple)):
                return None
            elements = positional[0].value.elements
            if any(isinstance(e, cst.StarredElement) for e in elements):
                return None
            items = [e.value for e in elements]
            axis = positional[1] if len(positional) > 1 else keywords.get(axis_keyword or "")
            extra = {f"the keyword `{k}=`" for k in set(keywords) - {axis_keyword}}
            extra |= {f"a positional argument `{self.code_of(a.value)}`" for a in positional[2:]}  # `dtype`

        if len(items) < 2:
            return None
        is_acc = [
            isinstance(item, cst.Name) and item.value == spelling.receiver
            or type(item) is type(target) and not isinstance(target, cst.Name) and self.code_of(item) == spelling.receiver
            for item in items
        ]
        if is_acc[0] and not any(is_acc[1:]):
            prepend, pieces = False, items[1:]
        elif is_acc[-1] and not any(is_acc[:-1]):
            prepend, pieces = True, items[:-1]
        else:
            return None
        acc = target.value if isinstance(target, cst.Name) else spelling.receiver
        return Growth(node, target, call, function, acc, pieces, prepend, axis, frozenset(extra), spelling)

    def _check_growth(self, growth: Growth) -> None:
        loops = scopes.enclosing_loops(self, growth.statement)
        if not loops or all(self.few_trips(loop) for loop in loops):
            return  # no loop, or a few constant steps: a fixed cost, whatever the input
        if self._once_per_loop(growth.statement, loops[0]):
            return  # `if i == k:` around the growth: one copy, not one a step
        inner = loops[0]
        if not isinstance(growth.target, cst.Name) and not self._held_growth(growth, inner):
            return
        verdict = self._classify(growth, inner) if isinstance(growth.target, cst.Name) else "ok"
        if verdict == "rebound":
            return  # not an accumulator: rebuilt or cut back every step
        key = (growth.acc, self.start_line(inner))
        if key in self._seen:
            return
        self._seen.add(key)
        site = growth.spelling.site
        traced = self.traced.context(growth.statement)
        cost = (
            "the loop runs under jit, so it is unrolled and the cost is compile time, O(T^2) "
            "in program size"
            if traced is not None and traced.kind == "jit"
            else "each step copies everything so far: O(T^2) time and memory traffic"
        )
        short = growth.function.rsplit(".", 1)[1]
        message = f"`{growth.acc}` is grown by `{short}` every iteration; {cost}"
        if growth.function.endswith(".stack"):
            self.report("AT101", site, message, reason="`stack` adds an axis each step, and the pieces would need one stacked call")
            return
        if verdict != "ok" or growth.spelling.indirect:
            self.report("AT101", site, message, reason=verdict if verdict != "ok" else growth.spelling.indirect)
            return
        if growth.extra:
            self.report(
                "AT101",
                site,
                message,
                reason=f"{sorted(growth.extra)[0]} changes each step's result",
            )
            return
        if growth.function == f"{JNP}.concat" and growth.axis is not None and growth.axis.keyword is None:
            self.report(
                "AT101", site, message,
                reason="`jnp.concat` takes its axis by keyword only: the call raises `TypeError` at the loop's first step, "
                "where a fix would raise it only at the join after the loop",
            )
            return
        displayed = next((p for p in growth.pieces if isinstance(p, (cst.List, cst.Tuple))), None)
        if displayed is not None and growth.function in (f"{JNP}.concatenate", f"{JNP}.concat"):
            self.report(
                "AT101", site, message,
                reason=f"the piece `{self.code_of(displayed)}` is a list or tuple, which `{short}` refuses with `TypeError` "
                "at the loop's first step: there is nothing to collect",
            )
            return
        target = self._outermost(growth, loops)
        problem = self._refusal(growth.acc, target) or self._axis_refusal(growth, target)
        if problem:
            self.report("AT101", site, message, reason=problem)
            return
        fix = self._growth_fix(growth, target)
        if fix is None:
            self.report(
                "AT101",
                site,
                message,
                reason=self.unspelled("jax.numpy"),
            )
            return
        assumptions = (
            self._assumptions(target, growth.acc, "grown so far", [g.statement for g in self._growths_in(target, growth.acc)])
            + self._axis_assumptions(growth, target)
            + self._in_place_writes(growth, target)
            + self._early_returns(target)
        )
        if assumptions:
            self.report(
                "AT101",
                site,
                message,
                Fix("unsafe", fix.message, fix.edits),
                reason=f"it assumes {'; and '.join(assumptions)}",
            )
            return
        self.report(
            "AT101",
            site,
            f"{message}; collect the pieces in a list and call `{'concatenate' if short == 'append' else short}` once "
            "after the loop",
            fix,
        )

    def _growths_in(self, loop: cst.CSTNode, acc: str) -> list[Growth]:
        return [
            growth for statement in self.semantics.of_kind(loop, cst.Assign)
            for growth in self._growths_of(statement) if growth.acc == acc
        ]

    def _held_growth(self, growth: Growth, loop: cst.CSTNode) -> bool:
        """Whether an attribute or an item (``log[k]``) is one array that steps of ``loop`` grow:
        its key is a string or reads nothing the loop binds, or the loop tests it for membership
        (``if k in log:`` grow, ``else: log[k] = v``); the object holding it is not made anew in
        the loop, and nothing else there binds it but its first value, when its key is missing."""
        target, statement = growth.target, growth.statement
        if isinstance(target, cst.Subscript):
            key = target.slice[0].slice.value if len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index) else None
            if key is None or not (
                isinstance(key, cst.SimpleString)
                or not any(self._rebinds_in(loop, n.value) for n in self.semantics.variables(key))
                and not self.semantics.find(key, lambda n: isinstance(n, UNSTEADY))
                or self._membership_tested(target, loop)
                or self._key_repeats(key, statement)
            ):
                return False
        if self._holder_made_anew(growth.acc, statement, loop):
            return False
        return all(
            self._made_when_missing(other, loop) or self._other_branch(other, statement, loop)
            or any(g.acc == growth.acc for g in self._growths_of(other))
            for other in self._other_bindings(loop, growth.acc, statement)
        )

    def _key_repeats(self, key: cst.BaseExpression, statement: cst.CSTNode) -> bool:
        """Whether the key of ``parts[k] = concatenate([parts[k], x])`` may name the same entry on
        several steps: computed in the loop from the data (``k = int(labels[t])``, a group by
        label), or a target of the innermost loop that an outer loop runs again (``for t ...: for
        k in keys[t]:``). Each such entry grows step after step, as one array would."""
        loops = scopes.enclosing_loops(self, statement)
        if not isinstance(key, cst.Name) or not loops:
            return False
        inner = loops[0]
        for bound in self.semantics.names_in(inner, key.value):
            role, holder = scopes.binding_role(self.semantics.parents, bound)
            if role == "plain" and self._renamed_target(holder.value, inner):
                continue  # `key = k.replace("rejected", "cat")` of the loop's own `k`: another entry each step
            if role == "plain" and self.semantics.of_kind(holder.value, cst.Call, cst.Subscript):
                return True
            if role == "other" and isinstance(inner, cst.For) and self.semantics.within(bound, inner.target) and len(loops) > 1:
                return True
        return False

    def _renamed_target(self, value: cst.BaseExpression, loop: cst.CSTNode) -> bool:
        """Whether ``value`` renames the target of ``loop`` (a single name) with a string method of
        literal arguments (``k.replace("rejected", "cat")``, ``k.upper()``): a key made from each
        key the loop walks, not from the data."""
        target = loop.target if isinstance(loop, cst.For) else None
        return isinstance(target, cst.Name) and isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and (
            isinstance(value.func.value, cst.Name) and value.func.value.value == target.value
            and value.func.attr.value in STRING_RENAMES
            and all(not a.star and isinstance(a.value, (cst.SimpleString, cst.Integer)) for a in value.args)
        )

    def _classify(self, growth: Growth, loop: cst.CSTNode) -> str:
        """``ok``, ``rebound`` (not an accumulator), or why the loop also reads the array."""
        growths = self._growths_in(loop, growth.acc)
        allowed = set()
        for g in growths:
            allowed.add(id(g.target))
            first = g.call.args[0].value if g.call.args else None
            for item in (first.elements if isinstance(first, (cst.List, cst.Tuple)) else ()):
                if isinstance(item.value, cst.Name) and item.value.value == growth.acc:
                    allowed.add(id(item.value))
            if GROWTH[g.function][0] == "pair":
                for arg in g.call.args[:2]:
                    if isinstance(arg.value, cst.Name) and arg.value.value == growth.acc:
                        allowed.add(id(arg.value))
            allowed |= {id(value) for _, value in g.spelling.arguments}  # `acc = grow(acc, x)`: the helper's receiver
        growth_targets = {id(g.target) for g in growths}
        scope = self.semantics.enclosing_scope(growth.statement)
        seed = None
        for name in self.semantics.names_in(loop, growth.acc):
            # bound another way in the loop (`_, acc = f(...)`, `for acc in ...`): rebuilt, not grown
            if id(name) not in growth_targets and scopes.binding_role(self.semantics.parents, name)[0] is not None and (
                self.semantics.enclosing_scope(name) is scope
            ):
                if self._seeds(name, growth.acc, loop):
                    seed = seed or name
                    continue
                flag = self._fixed_branch(name, growth.statement, loop)
                if flag is None and self._trimmed_regrowth(name, growth.acc):
                    return (
                        f"the loop also binds `{growth.acc}` to a growth of its own head (line {self.start_line(name)}, "
                        "a seam blended before the next piece); the fix collects the pieces of a loop that only grows the array"
                    )
                if flag is None:
                    return "rebound"
                return (
                    f"`{growth.acc}` grows on every step or on none, as `{self.code_of(flag.test)}` decides once for the "
                    f"loop, and the other branch binds it anew (line {self.start_line(name)}); the fix collects the pieces "
                    "of a loop that only grows the array"
                )
        if seed is not None:
            return (
                f"the first step binds `{growth.acc}` to its first piece (line {self.start_line(seed)}); the fix "
                "collects the pieces of a loop that grows an array bound before it"
            )
        if self.semantics.stores(loop, growth.acc):
            return "rebound"
        for name in self.semantics.variables(loop, growth.acc):  # `x.acc` is another thing
            test = self.parent(name)
            if isinstance(growth.statement.value, cst.IfExp) and test is growth.statement.value.test:
                continue  # `y if acc is None else ...`: which step it is (no fix: the spelling's reason)
            if id(name) not in allowed:
                return (
                    f"the loop also reads `{growth.acc}` (line {self.start_line(name)}), so the list "
                    "fix would change what it sees; a preallocated buffer filled in a `fori_loop` "
                    "pads what each step sees and is at most an unsafe rewrite"
                )
        if len({g.key(self) for g in growths}) > 1:
            return f"`{growth.acc}` is grown by different calls or axes in one loop"
        if any(len(g.pieces) > 1 and g.prepend for g in growths):
            return "several pieces are prepended at once"
        return "ok"

    def _trimmed_regrowth(self, name: cst.Name, acc: str) -> bool:
        """Whether ``name`` is bound to a growth whose first piece is a head of ``acc``
        (``out = jnp.concatenate([out[:-overlap], blended])``): beside the loop's growth of
        ``acc``, the array keeps all but a seam each step, and still grows with the loop."""
        role, holder = scopes.binding_role(self.semantics.parents, name)
        value = holder.value if role == "plain" else None
        if not (isinstance(value, cst.Call) and self.matches(value.func, set(GROWTH)) and value.args):
            return False
        pieces = value.args[0].value
        first = pieces.elements[0].value if isinstance(pieces, (cst.List, cst.Tuple)) and pieces.elements else None
        if not (isinstance(first, cst.Subscript) and len(first.slice) == 1 and isinstance(first.value, cst.Name)):
            return False
        head = first.slice[0].slice
        return first.value.value == acc and isinstance(head, cst.Slice) and (
            head.lower is None and head.upper is not None and head.step is None
        )

    def _outermost(self, growth: Growth, loops: list) -> cst.CSTNode:
        """The outermost loop in which ``acc`` is only grown, so the fix saves the most."""
        target = loops[0]
        for loop in loops[1:]:
            if self._classify(growth, loop) != "ok":
                break
            target = loop
        return target

    def _refusal(self, name: str, loop: cst.CSTNode) -> str | None:
        """Why deferring the writes to ``name`` until after ``loop`` would be seen: no fix at all."""
        if isinstance(loop, (cst.For, cst.While)) and loop.orelse is not None and not scopes.does_nothing(loop.orelse.body):
            return "the loop has an `else` clause"
        # Answered from the file's name index: walking the scope per candidate made a
        # module-level loop in a long script cost the whole module each time.
        semantics = self.semantics
        scope = semantics.enclosing_scope(loop)
        spelled = semantics.names_in(scope, name)
        if any(semantics.declaration(n) for n in spelled):
            return f"`{name}` is declared global or nonlocal"
        nested = {}
        for node in spelled:
            outermost = None  # the nested function, lambda, class or generator of `scope` that holds the name
            for ancestor in semantics.ancestors(node):
                if ancestor is scope:
                    break
                if isinstance(ancestor, (*scopes.NESTED_SCOPES, cst.GeneratorExp)):
                    outermost = ancestor
            if outermost is not None and not semantics.within(outermost, loop):
                nested[id(outermost)] = outermost
        # a generator expression made before the loop reads the name when the loop advances it
        seeing = [n for n in nested.values() if isinstance(n, cst.GeneratorExp) or scopes.sees(n, name)]
        if seeing:
            first = min(seeing, key=self.start_line)
            what = "a generator expression" if isinstance(first, cst.GeneratorExp) else "a nested function"
            return f"{what} (line {self.start_line(first)}) can see `{name}` while the loop runs"
        reader = self.frame_reader(scope)
        if reader is not None:
            call, introspection = reader
            return f"`{introspection}` (line {self.start_line(call)}) can read `{name}` while the loop runs"
        pause = next(iter(semantics.own_of_kind(loop, cst.Yield, cst.Await)), None)
        if pause is not None:
            return (
                f"the loop waits at a `{'yield' if isinstance(pause, cst.Yield) else 'await'}` (line "
                f"{self.start_line(pause)}), where code outside can read `{name}` (the frame's `f_locals`)"
            )
        return None

    def _assumptions(self, loop: cst.CSTNode, name: str, partial: str, moved: list[cst.CSTNode]) -> list[str]:
        """What a fix of ``loop`` takes for granted beyond what the source proves: each makes it
        unsafe. ``moved``: the statements whose call the fix makes once after the loop."""
        found = []
        for statement in moved:
            for ancestor in self.ancestors(statement):
                if ancestor is loop:
                    break
                if isinstance(ancestor, (cst.Try, cst.TryStar, cst.With)):
                    block = "try" if isinstance(ancestor, (cst.Try, cst.TryStar)) else "with"
                    found.append(
                        f"that the `{block}` at line {self.start_line(ancestor)}, inside the loop, neither catches "
                        "what the call in it raises nor changes how it runs: the fix makes that call after the "
                        "loop, outside the block"
                    )
                    break
            if found:
                break
        scope = scopes.enclosing_scope(self, loop)
        for ancestor in self.ancestors(loop):
            if ancestor is scope:
                break
            if isinstance(ancestor, (cst.Try, cst.TryStar)):
                found.append(
                    f"that no exception raised in the loop is caught by the `try` at line "
                    f"{self.start_line(ancestor)}: after one, the original's `{name}` holds what was {partial}, "
                    "the fix's none of it"
                )
                break
            if isinstance(ancestor, cst.With):
                found.append(
                    f"that the `with` at line {self.start_line(ancestor)} swallows no exception raised in the "
                    f"loop: after one, the original's `{name}` holds what was {partial}, the fix's none of it"
                )
                break
        if isinstance(scope, (cst.Module, cst.ClassDef)):
            where = "module" if isinstance(scope, cst.Module) else "class"
            found.append(f"that nothing reads the names the fix adds: at {where} level they become attributes of the {where}")
        reader = self.context.imported.frame_reader
        if reader is not None and reader[0] != self.module_name:
            found.append(
                f"that no function of another module reads the loop's frame while it runs: `{reader[0]}` spells "
                f"`{reader[1]}`, through which a function the loop calls can read `{name}` as {partial}"
            )
        configured = next((c for c in self.semantics.of_kind(loop, cst.Call)
                           if self.matches(c.func, {vocabulary.CONFIG_UPDATE})), None)
        if configured is not None:
            found.append(
                f"that `jax.config.update` (line {self.start_line(configured)}) changes nothing the fix's work after "
                "the loop depends on: it runs under the configuration as it is then (dtype promotion, x64)"
            )
        rebinding = self.module_rebinding(self._jnp_roots(moved))
        if rebinding is not None:
            found.append(
                f"that nothing the loop runs (a call, a dunder method, a callback) binds `jax.numpy`'s name in this "
                f"module again ({rebinding}): the loop reached it through that name at each step, and the fix does "
                "after the loop too"
            )
        patched = self._patched_jax_function()
        if patched is not None:
            found.append(
                f"that `{patched}` is JAX's own: the file assigns it, or hands it to a call that may assign its "
                "functions, and the fix calls `jax.numpy` functions the loop did not"
            )
        found += [f"that {a}" for a in self.setting_assumptions("strict promotion")]  # (review 82)
        if vocabulary.DEVICE_COMMITMENT.search(self.context.source.text):  # (another module's: a gap, or every fix of a big run goes)
            found.append(
                "that the values are on one device (the module commits values to devices, `device_put` or `device=`): "
                "the loop raised at the first step that mixed values committed to two devices, the fix only where it "
                "joins them after the loop"
            )
        checked = self._value_check()
        if checked is not None:
            found.append(
                f"that {checked}, and under it a NaN or inf already in the array raises at the first step in the "
                "loop but only where the fix writes or joins it (later steps run first)"
            )
        observer = vocabulary.LIFETIME_OBSERVERS.search(self.context.source.text)
        watcher = self.context.imported.lifetime_observer
        if observer is not None or watcher is not None and watcher[0] != self.module_name:
            where = f"the file spells `{observer.group(0)}`" if observer is not None else f"`{watcher[0]}` spells `{watcher[1]}`"
            found.append(
                f"that nothing observes when an array or a value is freed ({where}): the fix keeps the array the loop "
                f"started from, and what each step gives, alive until after the loop, where the loop freed each as it rebound `{name}`"
            )
        return found

    def _value_check(self) -> str | None:
        """Why a value check (``jax_debug_nans``) may be on where the loop runs, in the words of an
        assumption: the file mentions one, switches an option named at run time, or reaches JAX's
        configuration otherwise, or another module of the run may switch one on."""
        mentioned = next((word for word in vocabulary.VALUE_CHECKS if self.context.source.mentions(word)), None)
        if mentioned is not None:
            return f"`{mentioned}` is off: the file mentions it"
        configured = self._config_update_by_value()
        if configured is not None:
            return (
                "no value check (`jax_debug_nans`) is on: the file calls `jax.config.update` with an option named at "
                f"run time (line {self.start_line(configured)})"
            )
        reached = vocabulary.CONFIG_UPDATE_BY_VALUE.search(self.context.source.text)
        if reached is not None:
            return f"no value check (`jax_debug_nans`) is on: the file reaches JAX's configuration otherwise (`{reached.group(0)}`)"
        checker = self.context.imported.value_checker
        if checker is not None and checker[0] != self.module_name:
            return f"no value check (`jax_debug_nans`) is on: `{checker[0]}` may switch one on (it spells `{checker[1]}`)"
        return None

    def _config_update_by_value(self) -> cst.Call | None:
        """The first ``jax.config.update`` (however spelled) of the file whose option is not one
        string literal: it may switch a value check on (see :data:`vocabulary.CONFIG_UPDATE_BY_VALUE`)."""
        if "update" not in self.context.source.text:
            return None
        for node in self.semantics.names_in(self.context.module, "update"):
            attribute = self.parent(node)
            call = self.parent(attribute) if isinstance(attribute, cst.Attribute) and attribute.attr is node else None
            if isinstance(call, cst.Call) and call.func is attribute and self.matches(call.func, {vocabulary.CONFIG_UPDATE}) and not (
                call.args and call.args[0].keyword is None and not call.args[0].star
                and isinstance(call.args[0].value, (cst.SimpleString, cst.ConcatenatedString))
            ):
                return call
        return None

    def _patched_jax_function(self) -> str | None:
        """The first attribute of a JAX module the file assigns or patches (``jnp.copy =
        counting_copy``, ``setattr(jnp, "copy", f)``, ``mock.patch.object(jnp, "asarray", ...)``,
        ``monkeypatch.setattr(jnp, ...)``, ``mock.patch("jax.numpy.asarray", ...)``, through an alias of
        the module, ``jnp.__setattr__``/``__dict__``), or the module itself where the file hands it to a
        call that does more than read it (``f = setattr`` then ``f(jnp, "stack", g)``), found once per file."""
        def jax_module(node: cst.BaseExpression) -> bool:
            return any(q == "jax" or q.startswith("jax.") for q in self.qualified_names(node))

        def module_object(node: cst.BaseExpression) -> bool:  # `jnp`, `jax.numpy`, `jax` itself
            return isinstance(node, (cst.Name, cst.Attribute)) and bool(self.qualified_names(node) & {"jax", JNP})

        def patching(node: cst.CSTNode) -> str | None:
            if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Attribute) and (
                jax_module(node.target.value) or isinstance(node.target.value, cst.Name) and module_object(
                    self.semantics.binding(node.target.value) or node.target.value
                )
            ):
                return self.code_of(node.target)  # (`xp = jnp` ... `xp.stack = f` too)
            if isinstance(node, cst.Attribute) and node.attr.value in ("__setattr__", "__delattr__", "__dict__") and (
                module_object(node.value)
            ):
                return self.code_of(node.value)  # `jnp.__setattr__("stack", f)`, `jnp.__dict__["stack"] = f`
            if isinstance(node, cst.Call) and any(module_object(a.value) for a in node.args) and not self.matches(
                node.func, vocabulary.MODULE_READERS | {"builtins.setattr", "builtins.delattr"}
            ):  # `f = setattr` ... `f(jnp, "stack", g)`: any call given the module may assign its functions
                return self.code_of(next(a.value for a in node.args if module_object(a.value)))
            if not isinstance(node, cst.Call) or not node.args:
                return None
            callee = node.func.attr.value if isinstance(node.func, cst.Attribute) else getattr(node.func, "value", None)
            first = node.args[0].value
            if callee in ("setattr", "delattr", "object") and jax_module(first):
                attribute = node.args[1].value if len(node.args) > 1 else None
                named = isinstance(attribute, cst.SimpleString) and isinstance(attribute.evaluated_value, str)
                return f"{self.code_of(first)}.{attribute.evaluated_value}" if named else self.code_of(first)
            if callee == "patch" and isinstance(first, cst.SimpleString) and str(first.evaluated_value).startswith("jax."):
                return str(first.evaluated_value)
            return None

        if not hasattr(self, "_patched"):
            kinds = (cst.AssignTarget, cst.Call, cst.Attribute)
            self._patched = next(
                (found for n in self.semantics.of_kind(self.context.module, *kinds)
                 if (found := patching(n)) is not None),
                None,
            )
        return self._patched

    def _traced_seed(self, growth: Growth, loop: cst.CSTNode) -> bool:
        """Whether the accumulator starts from a traced argument of the jitted function it is
        grown in (``trajectory = x[None]`` in ``@jax.jit def simulate(x, ...)``): a tracer, which
        nothing can change. The argument must be one no ``static_argnums``/``static_argnames``
        names (a static one is whatever Python object the caller passed)."""
        function = next((a for a in self.ancestors(growth.statement) if isinstance(a, cst.FunctionDef)), None)
        traced = self.traced.traced_parameters(function) if function is not None else set()
        if not traced:
            return False
        grown = {id(g.call) for g in self._growths_in(loop, growth.acc)}
        values = [v for v in self.semantics.bound_values(growth.target) or [None] if id(v) not in grown]
        for value in values:
            root = value
            while isinstance(root, cst.Subscript):  # not `state.table`: a static field may hold NumPy's
                root = root.value
            if not (isinstance(root, cst.Name) and root.value in traced):
                return False
        return bool(values)

    def _may_be_wide_integer(self, buf: cst.BaseExpression) -> bool:
        """Whether the buffer may have an integer dtype wider than int32 (see
        :data:`~autota.source.vocabulary.NARROW_DTYPES`): unless every value bound to it is a
        ``jnp`` constructor of another dtype (a float one by default) or its own update."""
        values = self.semantics.bound_values(buf) if isinstance(buf, cst.Name) else None
        return values is None or not all(
            scopes.at_update(v) is not None and scopes.at_update(v)[0] == buf.value or self._narrow_constructor(v)
            for v in values
        )

    def _narrow_constructor(self, value: cst.BaseExpression) -> bool:
        made = self.construction(value)
        if made is None or made.name == "arange":
            return False
        if made.dtype is None and made.name == "full" and len(made.positional) > 1:
            return isinstance(made.positional[1], (cst.Float, cst.Imaginary))  # an int fill is int64 under x64
        if made.dtype is None:
            return made.name in ("zeros", "ones", "empty")  # the default float
        return self.dtype_in(made.dtype, vocabulary.NARROW_DTYPES, vocabulary.NARROW_DTYPE_STRINGS)

    def _fits_int32_or_not_int(self, row: cst.BaseExpression, depth: int = 0) -> bool:
        """Whether ``row`` is visibly no Python int beyond int32: a float or complex literal, a
        JAX array function's result or a subscript of a name bound only to those, or ints and
        names under arithmetic and conditionals, which :func:`scopes.may_overflow_int32` judges;
        a name, by what each of its bindings takes its value from (``base = e.args[0]`` may be
        any int), a parameter counting as fitting, as documented."""
        if isinstance(row, (cst.Float, cst.Imaginary, cst.Integer)):
            return True  # literals: judged by `may_overflow_int32` above
        if isinstance(row, cst.Name):
            sources = self.semantics.value_sources(row) if depth < 4 else None
            return sources is None or all(
                self._fits_int32_or_not_int(v.value if isinstance(v, cst.AugAssign) else v, depth + 1) for v in sources
            )
        if isinstance(row, (cst.Tuple, cst.List)) and depth:  # an unpacking's source: any element may be it
            return all(self._fits_int32_or_not_int(e.value, depth) for e in row.elements)
        if isinstance(row, cst.UnaryOperation):
            return self._fits_int32_or_not_int(row.expression, depth)
        if isinstance(row, cst.BinaryOperation):
            return self._fits_int32_or_not_int(row.left, depth) and self._fits_int32_or_not_int(row.right, depth)
        if isinstance(row, cst.IfExp):
            return self._fits_int32_or_not_int(row.body, depth) and self._fits_int32_or_not_int(row.orelse, depth)
        if isinstance(row, cst.Subscript):
            return isinstance(row.value, cst.Name) and self._only_jax_values(row.value)
        if isinstance(row, cst.Attribute):
            return self.matches(row, FLOAT_CONSTANTS) is not None  # `jnp.inf`: a Python float
        return isinstance(row, cst.Call) and self.new_jax_array(row)

    def _only_jax_values(self, target: cst.Name, own_memory: bool = False) -> bool:
        """Whether every value bound to the name is a JAX array function's result or a JAX update
        of itself (``x = x.at[i].set(v)``): JAX arrays, not NumPy's or another object, nor one
        that shares a NumPy array's memory (``jnp.from_dlpack``); with ``own_memory``, nor one
        that may leave it uncopied (``jnp.asarray``): immutable."""
        def constant(v: cst.BaseExpression) -> bool:  # a number: a JAX array's operator takes it
            if isinstance(v, cst.UnaryOperation) and isinstance(v.operator, (cst.Minus, cst.Plus)):
                v = v.expression
            return isinstance(v, (cst.Integer, cst.Float)) or self.matches(v, FLOAT_CONSTANTS) is not None

        def fresh(v: cst.BaseExpression | None) -> bool:
            if isinstance(v, cst.BinaryOperation) and isinstance(v.operator, ARITHMETIC):
                # `jnp.ones(n) * -jnp.inf`: a JAX array's operator with a number or another array is a new array
                return fresh(v.left) and (fresh(v.right) or constant(v.right)) or constant(v.left) and fresh(v.right)
            return isinstance(v, cst.Call) and (
                self.new_jax_array(v, own_memory)
                or scopes.at_update(v) is not None and scopes.at_update(v)[0] == target.value
            )

        return all(fresh(v) for v in self.semantics.bound_values(target) or [None])

    def _in_place_writes(self, growth: Growth, loop: cst.CSTNode) -> list[str]:
        """The accumulator may start as a NumPy array (mutable), which code in the loop may change
        through another name, by a store, a call, an iterator or a property: the loop joined it
        as it was at its first step, the fix joins it as it is after the loop. Only an
        accumulator bound to new JAX arrays alone (immutable) is proven safe from that."""
        if self._only_jax_values(growth.target, own_memory=True) or self._traced_seed(growth, loop):
            return []
        return [
            f"that nothing changes the array `{growth.acc}` starts as while the loop runs (it may be a "
            "NumPy array, which is mutable: the fix reads the initial value after the loop)"
        ]

    def _rebinder(self, loop: cst.CSTNode, name: str) -> str | None:
        """How code that runs while ``loop`` runs may rebind ``name`` outside the loop's own
        statements: a ``global``/``nonlocal`` declaration (a helper's, a nested function's), or
        an assignment expression of its scope outside the loop, in a generator expression that
        the loop may advance (``g = ((i := None) for _ in r)``)."""
        scope = self.semantics.enclosing_scope(loop)
        spelled = self.semantics.names_in(scope, name)
        if any(self.semantics.declaration(n) for n in spelled):
            return "is declared global or nonlocal"
        walrus = next((
            n for n in spelled if isinstance(self.parent(n), cst.NamedExpr) and self.parent(n).target is n
            and not self.semantics.within(n, loop)
        ), None)
        if walrus is not None:
            return f"is bound by an assignment expression (line {self.start_line(walrus)}) that may run while the loop runs"
        return None

    def _axis_refusal(self, growth: Growth, loop: cst.CSTNode) -> str | None:
        axis = growth.axis.value if growth.axis is not None else None
        if isinstance(axis, cst.Name) and (
            self.semantics.stores(loop, axis.value) or any(scopes.assign_to(a, axis.value) for a in self.semantics.of_kind(loop, cst.Assign))
        ):
            return f"the axis `{axis.value}` is rebound in the loop, so one call after it would use its last value"
        if isinstance(axis, cst.Name) and self.semantics.declared_global(axis.value):
            return (
                f"the axis `{axis.value}` is declared `global` or `nonlocal` in a function, so a call in the loop "
                "may rebind it"
            )
        rebinder = self._rebinder(loop, axis.value) if isinstance(axis, cst.Name) else None
        if rebinder:
            return f"the axis `{axis.value}` {rebinder}, so one call after the loop may use another value"
        reader = self.frame_reader(self.context.module) if isinstance(axis, cst.Name) else None
        if reader is not None:
            return (
                f"the file uses `{reader[1]}` (line {self.start_line(reader[0])}), through which a call in the loop "
                f"may rebind the axis `{axis.value}`"
            )
        return None

    def _early_returns(self, loop: cst.CSTNode) -> list[str]:
        """Where the loop may ``return`` before the join after it: a piece the join refuses raised
        at the step that grew it, where the fix returns a value."""
        leaving = next(iter(self.semantics.own_of_kind(loop, cst.Return)), None)
        if leaving is None:
            return []
        return [
            f"that every piece joins: the loop may return (line {self.start_line(leaving)}) before the join after it, "
            "where the loop raised at the step that grew a piece the join refuses (a shape that does not fit, a "
            "dtype `lax.concatenate` refuses)"
        ]

    def _axis_assumptions(self, growth: Growth, loop: cst.CSTNode) -> list[str]:
        axis = growth.axis.value if growth.axis is not None else None
        if axis is None or _literal_int(axis, None):
            return []
        if isinstance(axis, cst.Name):
            found = [] if self.semantics.python_int(axis) else [
                f"that the axis `{axis.value}` is a Python int: the loop converted it at every step, the fix once after "
                "the loop (a NumPy array changed in place, or an object whose `__index__` answers otherwise, gives "
                "another axis)"
            ]
            if not self.semantics.module_variable(axis) or not self._calls_code(loop) and self.module_rebinding({axis.value}) is None:
                return found
            return found + [  # `piece.__globals__["AX"] = 0`, `entry.AX = 0` in another module: no statement here shows it
                f"that nothing the loop calls sets the module's variable `{axis.value}` (another module, `exec` or "
                "a function's `__globals__` may)"
            ]
        return [f"that the axis `{self.code_of(axis)}` has the same value at every step"]

    def _jnp_roots(self, moved: list[cst.CSTNode]) -> set[str]:
        """The names the fix reaches `jax.numpy` by: the file's spelling of it, and the root of
        each call of it in the statements the fix moves (`jax.numpy.append`: `jax`)."""
        spelling = self.semantics.module_spelling(JNP)
        roots = {spelling.split(".")[0]} if spelling else set()
        for statement in moved:
            for call in self.semantics.of_kind(statement, cst.Call):
                root = call.func
                while isinstance(root, cst.Attribute):
                    root = root.value
                if isinstance(root, cst.Name) and any(q.startswith(f"{JNP}.") for q in self.qualified_names(call.func)):
                    roots.add(root.value)
        return roots

    def _calls_code(self, loop: cst.CSTNode) -> bool:
        """Whether ``loop`` calls something other than JAX's, NumPy's or Python's builtins."""
        return any(
            not any(q.startswith(("jax.", "numpy.", "builtins.")) for q in self.qualified_names(call.func))
            for call in self.semantics.of_kind(loop, cst.Call)
        )

    def _growth_fix(self, growth: Growth, loop: cst.CSTNode) -> Fix | None:
        """Pieces converted as the growth call converts them when they are made (see
        :meth:`_checked_piece`), then one call after the loop. Each is copied, not only
        converted: a conversion may return the very
        array, which a later call in the loop may donate, where the loop had copied its value.
        Where a piece would widen the accumulator's dtype part-way, promotion step by step can
        round differently from one promotion over everything, so the collected pieces are then
        grown one by one, as the loop did: the result is the original's by construction, dtype,
        weak type and value. So they are where the accumulator is weakly typed: a narrower first
        piece takes it to its own dtype (300 wraps through int8), which a wider later one cannot
        undo, where one promotion over everything keeps the wider dtype."""
        source, acc = self.context.source, growth.acc
        namespace = self._jnp_namespace(growth.call.func)
        if namespace is None:
            return None
        parts = self.fresh_name(f"{acc}_parts", loop)
        part = self.fresh_name(f"{acc}_part", loop)
        func = self.code_of(growth.call.func)
        pair = GROWTH[growth.function][0] == "pair"
        flat = pair and growth.axis is None
        growths = self._growths_in(loop, acc)
        grouped = any(len(g.pieces) > 1 for g in growths)
        edits = []
        for g in growths:
            pieces = [f"{namespace}.copy({self._checked_piece(g, p, namespace, part)})" for p in g.pieces]
            item = (f"({pieces[0]},)" if len(pieces) == 1 else f"({', '.join(pieces)})") if grouped else pieces[0]
            edits.append(self.replace(g.statement, f"{parts}.append({item})"))
        axis = ""
        if growth.axis is not None:
            axis_code = self.code_of(growth.axis.value)
            axis = f", {growth.axis.keyword.value}={axis_code}" if growth.axis.keyword else f", {axis_code}"
        collected = f"[p for group in {parts} for p in group]" if grouped else parts
        ordered = f"*{collected}[::-1]" if growth.prepend else f"*{collected}"
        head = f"{namespace}.ravel({acc})" if flat else acc
        seq = f"[{ordered}, {head}]" if growth.prepend else f"[{head}, {ordered}]"
        once_func = f"{namespace}.concatenate" if pair else func
        once = f"{once_func}({seq}{'' if flat else axis})"
        step_pieces = f"*{part}" if grouped else part
        if pair:
            step = f"{func}({step_pieces}, {acc}{axis})" if growth.prepend else f"{func}({acc}, {step_pieces}{axis})"
        else:
            step = f"{func}([{step_pieces}, {acc}]{axis})" if growth.prepend else f"{func}([{acc}, {step_pieces}]{axis})"
        indent = source.indentation(self.start_line(loop))
        unit = self.context.module.default_indent
        asarray = f"{namespace}.asarray({acc})"
        edits.append(source.insert_lines_before(self.start_line(loop), [f"{indent}{parts} = []"]))
        edits.append(
            source.insert_lines_before(
                self._after_joins(loop) + 1,
                [
                    f"{indent}if {parts}:",
                    f"{indent}{unit}if not {asarray}.aval.weak_type and "
                    f"{namespace}.result_type({asarray}, {ordered.replace('[::-1]', '')}) == {asarray}.dtype:",
                    f"{indent}{unit}{unit}{acc} = {once}",
                    f"{indent}{unit}else:  # a piece widens the dtype part-way: grow step by step, as the loop did",
                    f"{indent}{unit}{unit}for {part} in {parts}:",
                    f"{indent}{unit}{unit}{unit}{acc} = {step}  # {_JOIN_MARK}",
                ],
            )
        )
        return Fix("safe", f"collect the pieces in `{parts}` and grow `{acc}` once after the loop", tuple(edits))

    def _after_joins(self, loop: cst.CSTNode) -> int:
        """The last line of ``loop`` and of the joins an earlier fix put right after it (``if
        a_parts:`` for a list ``a_parts = []`` made before the loop, marked :data:`_JOIN_MARK`):
        a join goes after those, so that the accumulators are joined in the order their growths
        run, and where two joins raise, the first growth's exception is the one raised, as in
        the loop."""
        block = self.parent(loop)
        body = list(block.body) if isinstance(block, (cst.IndentedBlock, cst.Module)) else [loop]
        position = next(k for k, statement in enumerate(body) if statement is loop)
        made = {
            small.targets[0].target.value for statement in body[:position] if isinstance(statement, cst.SimpleStatementLine)
            for small in statement.body if isinstance(small, cst.Assign) and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name) and isinstance(small.value, cst.List) and not small.value.elements
        }
        last = loop
        for statement in body[position + 1:]:
            if not (isinstance(statement, cst.If) and isinstance(statement.test, cst.Name) and statement.test.value in made
                    and _JOIN_MARK in self.code_of(statement)):
                break
            last = statement
        return self.end_line(last)

    def _checked_piece(self, growth: Growth, piece: cst.BaseExpression, namespace: str, temporary: str) -> str:
        """``piece`` passed through a call that accepts and converts it as the growth call does,
        keeping its shape (the join after the loop needs it). Which objects a growth function
        refuses differs between functions and JAX versions (a NumPy masked array: refused by
        every one in jax 0.10, by the jitted ones alone in 0.12; an object with
        ``__jax_array__``: by the jitted ones), and the refusal must come at the step that made
        the piece: so the stacks are called on the one piece (``vstack([p])`` is ``atleast_2d``,
        which the join leaves alone), and the others through a function built as they are:
        ``append``, a jitted function, through the jitted ``ravel`` (and back to the piece's
        shape, the piece bound to ``temporary`` so that it is computed once);
        ``jnp.concatenate``, which checks its arguments and converts them with
        ``asarray``, through ``squeeze`` of no axis, which does the same and, unlike
        ``concatenate`` of one piece, lets a zero-dimensional piece through to the join, which
        refuses it with the loop's ``TypeError``."""
        code = self.code_of(piece)
        style = GROWTH[growth.function][0]
        if style == "pair":
            if growth.axis is None:
                return f"{namespace}.ravel({code})"
            return f"{namespace}.reshape({namespace}.ravel({temporary} := {code}), {namespace}.shape({temporary}))"
        if growth.function in (f"{JNP}.concatenate", f"{JNP}.concat"):
            return f"{namespace}.squeeze({code}, ())"
        axis = ""
        if growth.axis is not None:
            axis_code = self.code_of(growth.axis.value)
            axis = f", {growth.axis.keyword.value}={axis_code}" if growth.axis.keyword else f", {axis_code}"
        return f"{self.code_of(growth.call.func)}([{code}]{axis})"

    def _jnp_namespace(self, func: cst.BaseExpression) -> str | None:
        """The user's spelling of ``jax.numpy``: as in ``<that>.append``, else as imported."""
        if isinstance(func, cst.Attribute) and JNP in self.qualified_names(func.value):
            return self.code_of(func.value)
        return self.semantics.module_spelling(JNP)

    # -- AT102 ------------------------------------------------------------------------------
    def _update(self, node: cst.Assign):
        """``buf = buf.at[idx].method(value)`` or ``buf = lax.dynamic_update_*(buf, ...)``; also
        ``obj.data = obj.data.at[idx].method(value)`` and ``d["buf"] = d["buf"].at[idx]...``,
        ``buf`` then the target's code; in each spelling of :class:`Spelling`."""
        buf = scopes.assign_to(node)
        call = node.value
        held = (cst.Attribute, cst.Subscript)
        target = node.targets[0].target if type(node) is cst.Assign and len(node.targets) == 1 else None
        if buf is None and (isinstance(target, cst.Attribute) or isinstance(target, cst.Subscript) and len(target.slice) == 1 and (
            isinstance(target.slice[0].slice, cst.Index)
        )):  # `d["buf"]`, a dict entry; `parts[s]`, where the loop may pick another array each step
            found = scopes.at_call(call)
            attribute = self.code_of(node.targets[0].target)
            if found is not None and found[1] in UPDATE_METHODS and isinstance(found[0], held) and (
                self.code_of(found[0]) == attribute
            ):
                return attribute, call, found[1], Spelling(call, attribute, call)
            return None
        held = self._part_update(call, buf) if buf is not None and isinstance(call, cst.Call) else None
        if held is not None:
            return held
        for spelling in self._spellings(node, buf):
            call = spelling.call
            held = self._part_update(call, spelling.receiver) if spelling.indirect else None
            if held is not None:  # `scene = put(scene, i, r)`, `def put(s, i, r): return s.replace(f=s.f.at[i].set(r))`
                part, update_call, method, _ = held
                why = (
                    f"the array is a field of `{buf}`, rebuilt with `{self.code_of(call.func)}` (line "
                    f"{self.start_line(call)}); the fix rewrites a name"
                )
                field = buf + part.removeprefix(spelling.receiver)
                return field, update_call, method, Spelling(update_call, part, spelling.site, why, spelling.arguments)
            update = scopes.at_update(call)
            if update is not None and update[0] == spelling.receiver and update[1] in UPDATE_METHODS:
                return buf, call, update[1], spelling
            name = self.matches(call.func, DYNAMIC_UPDATES)
            if name and call.args and isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == spelling.receiver:
                return buf, call, name.rsplit(".", 1)[1], spelling
        return None

    def _few_rows(self, call: cst.Call) -> bool:
        """Whether the array ``call`` updates is made, where the loop first reads it, by a
        constructor whose dimension along the written axis (the first the index neither takes
        whole nor holds at a literal slot) is a constant of at most :data:`FEW_TRIPS` (``probs = jnp.zeros(4)``,
        ``dense.at[:, 3 - j]`` of ``jnp.zeros((7, 4))``): the loop writes a few slots whatever its
        length, so each step copies an array that does not grow with it."""
        found = scopes.at_call(call)
        if found is None:
            return False  # (`dynamic_update_slice(out, u, (0, t))`: its start indices say the axis)
        parts = [e.slice for e in call.func.value.slice]
        axis = next((  # (`x.at[0, 0, s]` holds the first axes at one slot, and moves along the third)
            k for k, part in enumerate(parts)
            if not _whole_axis(part) and not (isinstance(part, cst.Index) and scopes.int_value(part.value) is not None)
        ), None)
        if axis is None or any(isinstance(p, cst.Index) and isinstance(p.value, cst.Ellipsis) for p in parts[:axis + 1]):
            return False  # `out.at[..., t]`: the axis counts from the end
        made = self.semantics.binding(found[0]) if isinstance(found[0], cst.Name) else None
        if not (isinstance(made, cst.Call) and self.matches(made.func, vocabulary.SHAPED_CONSTRUCTORS) and made.args) or made.args[0].keyword:
            return False
        shape = made.args[0].value
        if isinstance(shape, (cst.Tuple, cst.List)):
            elements = shape.elements
            shape = elements[axis].value if axis < len(elements) and isinstance(elements[axis], cst.Element) else None
        elif axis:
            return False
        rows = self._constant_int(shape) if shape is not None else None
        return rows is not None and rows <= FEW_TRIPS

    def _holder_made_anew(self, buf: str, statement: cst.Assign, loop: cst.CSTNode) -> bool:
        """Whether the object that holds the updated part (``state`` of ``state.x``,
        ``state.replace(x=...)`` or ``d["x"]``) is bound in the loop to anything but itself with
        a part updated or replaced: then each step may update another array."""
        root = _root(buf)
        if root in ("", buf):
            return False  # the array itself, or held by an expression (`(a or b).x`) the loop cannot bind
        for name in self.semantics.names_in(loop, root):
            role, holder = scopes.binding_role(self.semantics.parents, name)
            if role is None or holder is statement:
                continue
            if role != "plain" or not isinstance(holder.value, cst.Call) or not self._replaces(holder.value, root):
                return True
        return False

    def _replaces(self, value: cst.Call, name: str) -> bool:
        """Whether ``value`` is ``name`` rebuilt with some fields replaced (``name.replace(...)``,
        ``name._replace(...)``, ``dataclasses.replace(name, ...)``, jax-md's ``name.set(...)``): its
        other fields kept."""
        func = value.func
        return isinstance(func, cst.Attribute) and func.attr.value in vocabulary.REPLACE_METHODS and (
            isinstance(func.value, cst.Name) and func.value.value == name
        ) and bool(value.args) and all(a.keyword is not None for a in value.args) or bool(self.matches(func, vocabulary.REPLACE) and value.args and (
            isinstance(value.args[0].value, cst.Name) and value.args[0].value.value == name
        ))

    def _tree_at_field(self, value: cst.Call, name: str) -> tuple[str, cst.BaseExpression] | None:
        """``("name.f", new)`` where ``value`` is Equinox's ``tree_at(lambda h: h.f, name, new)``:
        ``name`` rebuilt with its field ``f`` replaced."""
        if not (self.matches(value.func, {vocabulary.TREE_AT}) and len(value.args) == 3 and not any(
            a.star or a.keyword for a in value.args
        )):
            return None
        where, tree, new = (a.value for a in value.args)
        if not (isinstance(tree, cst.Name) and tree.value == name and isinstance(where, cst.Lambda)):
            return None
        params = where.params.params
        body = where.body
        if len(params) != 1 or not (
            isinstance(body, cst.Attribute) and isinstance(body.value, cst.Name) and body.value.value == params[0].name.value
        ):
            return None
        return f"{name}.{body.attr.value}", new

    def _part_update(self, value: cst.Call, name: str):
        """``(part, call, method, spelling)`` where ``name = value`` hands back ``name`` with one
        field updated by ``call`` (``name.replace(f=name.f.at[i].set(v))``, ``_replace``,
        ``dataclasses.replace(name, f=...)``; the part ``name.f``), the first of them. No fix
        rewrites it: the fix collects the rows of an array bound to a name."""
        return next(self._part_updates(value, name), None)

    def _part_updates(self, value: cst.Call, name: str):
        """Each field update of ``name = value`` that :meth:`_part_update` reads, in order: a
        record rebuilt with two fields updated (``replace(c, conv=..., rec=...)``) updates two arrays."""
        picked = self._tree_at_field(value, name)
        if picked is not None:  # `tree_at(lambda h: h.f, name, name.f.at[i].set(v))`
            part, update = picked
            found = scopes.at_call(update)
            if found is not None and found[1] in UPDATE_METHODS and self.code_of(found[0]) == part:
                why = f"the array is a field of `{name}`, rebuilt with `{self.code_of(value.func)}`; the fix rewrites a name"
                yield part, update, found[1], Spelling(update, part, update, why)
            return
        if not self._replaces(value, name):
            return
        for arg in value.args:
            part = f"{name}.{arg.keyword.value}" if arg.keyword is not None else None
            found = scopes.at_call(arg.value) if part is not None else None
            if found is not None and found[1] in UPDATE_METHODS and self.code_of(found[0]) == part:
                why = f"the array is a field of `{name}`, rebuilt with `{self.code_of(value.func)}`; the fix rewrites a name"
                yield part, arg.value, found[1], Spelling(arg.value, part, arg.value, why)
                continue
            mapped = self._mapped_spelling(arg.value, part) if part is not None and isinstance(arg.value, cst.Call) else None
            update = scopes.at_update(mapped.call) if mapped is not None else None
            if update is not None and update[0] == mapped.receiver and update[1] in UPDATE_METHODS:
                yield part, mapped.call, update[1], mapped  # `s.replace(f=tree_map(lambda a, v: a.at[i].set(v), s.f, row))`

    def _check_update(self, statement: cst.Assign, buf: str, call: cst.Call, method: str, spelling: Spelling) -> None:
        loops = scopes.enclosing_loops(self, statement)
        traced = self.traced.context(statement)
        concrete = next(
            (node for loop in loops for node in [self.traced.concrete_each_step(loop)] if node is not None), None
        ) if traced is not None and self.traced.assumed(traced) else None
        if not loops or traced is not None and concrete is None:
            return  # traced: XLA updates in place (an unrolled loop is AT401's business)
        if all(self.few_trips(loop) for loop in loops):
            return  # a few constant steps: a few copies, whatever the input
        while loops and self._once_per_loop(statement, loops[0]):
            loops = loops[1:]  # `if i == order:` around the write: one copy a run of that loop, one a step of the next
        if not loops or all(self.few_trips(loop) for loop in loops):
            return
        if spelling.indirect is None and self._few_rows(call):
            return  # `probs = jnp.zeros(4)`: a few slots overwritten, whatever the loop's length
        if _open_band(call):
            return  # `c = c.at[j:].set(...)`: the step's own write is as large as the copy
        loop = loops[0]
        attribute = not isinstance(statement.targets[0].target, cst.Name)
        converted = None
        for assign in self._other_bindings(loop, buf, statement):
            update = self._update(assign)
            if self._converts_itself(assign, buf):
                converted = converted or assign  # `R = jnp.array(R)` on a fallback path: the same values
                continue
            if update is not None and update[0] == buf and _sets_whole(update[1]) and self.parent(
                self.parent(assign)
            ) is loop.body and not any(self.semantics.names_in(a.value, _root(buf)) for a in update[1].args):
                return  # `w = w.at[:, :].set(0)` every step: the array starts again, nothing is kept from step to step
            if (update is None or update[0] != buf) and not self._made_when_missing(assign, loop) and not (
                attribute and self._other_branch(assign, statement, loop)
            ) and not self._restarted_on_some_steps(assign, statement, loop, buf):
                return  # rebuilt in the loop: not one array updated step by step
        if self._holder_made_anew(buf, statement, loop):
            return  # `state = env.reset()` each step, then `state.x = state.x.at[i].set(v)`: a new array each step
        if (buf, id(loop)) in self._updated:
            return  # several writes a step (a pixel and its neighbours): one finding, at the first
        parts = self._index_parts_in_loop(call, method, spelling)
        target = statement.targets[0].target
        if isinstance(target, cst.Subscript) and not isinstance(target.slice[0].slice.value, cst.SimpleString) and not any(
            self._entry_repeated(target.slice[0].slice.value, parts, outer) for outer in loops
        ) and not self._membership_tested(target, loop):
            return  # `rows[i] = rows[i].at[0].set(v)`: a different array each step, each updated once
        if isinstance(target, cst.Subscript) and self._last_appended(target, loop, statement):
            return  # `tmp.append(x)` then `tmp[-1] = tmp[-1].at[:k].set(0)`: the step's own new array
        # the loops of a few constant steps (`for k in range(3)`) set a few slots, whatever the input:
        # judged by the others, state overwritten in place copies it each step but does not grow
        long = [outer for outer in loops if not self.few_trips(outer)]
        bounded = {
            n.value for inner in loops if isinstance(inner, cst.For) and self.few_trips(inner)
            for n in self.semantics.of_kind(inner.target, cst.Name)
        }
        if long and self._same_slots_every_step(parts, long[0], bounded) and not self._reads_loop_targets(parts, long):
            return  # state overwritten in place: each step copies it, but it does not grow with the loop
        if any(isinstance(part, cst.Index) and _wraps(part.value) for part in parts):
            return  # `hist.at[:, i % m]`: a ring of `m` slots rewritten in turn, not rows that grow with the loop
        copied = self._copied_from(target, loop) if isinstance(target, cst.Name) else set()
        if self._picked_by_data(parts, loops) and (
            method in COMBINING or self._combines_with_old_slot(call, {spelling.receiver} | copied, method)
            or self._read_whole(buf, statement, loop, spelling)
        ):  # two of the three facts of `updates_state`, as AT201 reads them
            return  # added where the data says (a histogram), or a mask read whole and cleared there: state, not rows
        carrying = [  # the loops around this one that keep the buffer from step to step (not made anew in them)
            outer for outer in long if outer is not loop and not any(
                (self._update(assign) or (None,))[0] != buf for assign in self._other_bindings(outer, buf, statement)
            )
        ]
        if self._entries_say_where(parts, loop, call.args[0].value if call.args and not call.args[0].star else None, carrying):
            return  # each entry of a collection writes where it says (parameter groups, entity classes)
        if self._masked(call):
            return  # a boolean mask picks the slots (`out.at[labels == k].set(i)`): not one row a step
        self._updated.add((buf, id(loop)))
        message = (
            f"`{buf}` is updated with `{method}` in an eager Python loop: each step copies the "
            "whole array, O(T^2) in all"
        ) + (
            f" (the loop needs a concrete value each step, `{self.code_of(concrete)}` at line "
            f"{self.start_line(concrete)}, so it cannot run under `jit`)" if concrete is not None else ""
        )
        problem = (
            HELD_REASON
            if attribute else spelling.indirect or (
                f"the loop also binds `{buf}` to a conversion of itself (line {self.start_line(converted)}), which the "
                "fix does not follow" if converted is not None else None
            ) or self._update_fix_problem(statement, buf, call, method, loop)
        )
        if problem:
            self.report("AT102", spelling.site, message, reason=problem)
            return
        fix = self._update_fix(statement, buf, call, loop)
        if fix is None:
            self.report("AT102", call, message, reason=self._no_update_fix_reason(call))
            return
        assumptions = self._assumptions(loop, buf, "written so far", [statement])
        writer = self.frame_reader(self.context.module)
        if writer is not None and isinstance(loop, cst.For) and self.range_call(loop.iter) is not None:
            assumptions.append(
                f"that `range` is Python's: the file uses `{writer[1]}` (line {self.start_line(writer[0])}), through "
                "which a module's names, `range` among them, can be bound by a string (the fix takes the indices "
                "for distinct ints)"
            )
        if not self._only_jax_values(statement.targets[0].target, own_memory=True):
            assumptions.append(
                f"that `{buf}` is a JAX array of its own (it is bound to something else than JAX's results: an "
                "object with its own `.at[...]` would not take the fix's row read, and `jnp.asarray` may share a "
                "NumPy array's memory, which the loop may change before the fix reads the buffer)"
            )
        target = statement.targets[0].target
        if any(isinstance(v, cst.Call) and self.matches(v.func, vocabulary.KEY_FUNCTIONS) for v in self.semantics.bound_values(target) or ()):
            assumptions.append(
                f"that `{buf}` holds no typed PRNG keys (`jax.random.key`): where the value is of another kind, the "
                "fix's `jnp.result_type` raises ValueError, where `.at[].set` raised TypeError"
            )
        index = call.func.value.slice[0].slice.value
        if scopes.may_overflow_int32(index, self.semantics.value_sources):
            assumptions.append(
                f"that the index `{self.code_of(index)}` fits an int32: JAX wraps or drops a static index beyond it, "
                "where the fix's read of the slot raises OverflowError"
            )
        row = call.args[0].value if call.args else None
        assumptions += [f"that {a}" for a in self.setting_assumptions("warnings as errors", "checkify")]  # (reviews 81, 83)
        if self.semantics.defines_attribute("__jax_array__"):
            assumptions.append(
                "that converting each value to an array has no effect: the fix converts it twice (once to "
                "promote it with the buffer, once to write its row), and a class of this file defines its own "
                "`__jax_array__`"
            )
        made_by_jax = isinstance(row, cst.Call) and self.new_jax_array(row)  # an array already: no Python int to convert
        if row is not None and not made_by_jax and scopes.may_overflow_int32(row, self.semantics.value_sources):
            assumptions.append(
                f"that `{self.code_of(row)}` fits an int32: the fix promotes the value with "
                "`jnp.asarray`, which raises OverflowError on a larger Python int that `.at[].set` converts to "
                "the buffer's own dtype (`2**31` into a uint32 buffer)"
            )
        if row is not None and self._may_be_wide_integer(call.func.value.value.value) and not self._fits_int32_or_not_int(row):
            assumptions.append(
                f"that `{self.code_of(row)}` is not a Python int beyond int32: the buffer may be a uint32, uint64 "
                "or int64 array, into which `.at[].set` converts such an int directly, where the fix's "
                "`jnp.asarray` raises OverflowError"
            )
        if assumptions:
            self.report(
                "AT102",
                call,
                message,
                Fix("unsafe", fix.message, fix.edits),
                reason=f"it assumes {'; and '.join(assumptions)}",
            )
            return
        self.report("AT102", call, f"{message}; collect the rows and write them in one update after the loop", fix)

    def _restarted_on_some_steps(self, assign: cst.Assign, statement: cst.CSTNode, loop: cst.CSTNode, buf: str) -> bool:
        """Whether ``assign`` makes the array anew only on some steps: under an ``if`` of the loop
        that the update is not under, from values that do not read it (a rollout buffer emptied
        when full, ``if steps == n: b_value = jnp.zeros(...)``). Between two such steps the loop
        updates one array, each update a copy."""
        holder = next((a for a in self.ancestors(assign) if isinstance(a, cst.If) or a is loop), None)
        return isinstance(holder, cst.If) and not self.semantics.within(statement, holder) and not any(
            self.semantics.names_in(assign.value, _root(buf))
        )

    def _masked(self, call: cst.Call) -> bool:
        """Whether ``call`` is ``x.at[mask].method(...)`` (or ``x.at[:, mask]``, the other axes
        whole) with a visibly boolean ``mask``: a
        comparison, a call of a function whose result is a mask (``jnp.isnan(x)``, ``jnp.any(m,
        axis=1)``), its negation, or ``&``/``|`` of such (also through a name bound once to one),
        or the positions such a mask marks (``jnp.where(mask)[0]``, ``jnp.nonzero(mask)[0]``).
        Each step writes the slots the mask picks, a relabelling of an array whose size is the
        data's, not one row a step of an array that grows with the loop. Not a mask of positions
        (``jnp.arange(n) == t``), which picks one row a step."""
        at = scopes.at_call(call)
        subscript = call.func.value if at is not None and isinstance(call.func, cst.Attribute) else None
        if not isinstance(subscript, cst.Subscript):
            return False
        picked = [e.slice for e in subscript.slice if not _whole_axis(e.slice)]  # `x.at[:, mask]`: the mask on another axis
        if len(picked) != 1 or not isinstance(picked[0], cst.Index):
            return False

        def boolean(expr: cst.BaseExpression | None, depth: int = 0) -> bool:
            if isinstance(expr, cst.Name) and depth < 3:
                return boolean(self.semantics.assigned_value(expr), depth + 1)
            if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.BitInvert, cst.Not)):
                return boolean(expr.expression, depth)
            if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr)):
                return boolean(expr.left, depth) and boolean(expr.right, depth)
            if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Slice):
                return boolean(expr.value, depth)  # `bad[:k]`: some of the positions a mask marks
            if isinstance(expr, cst.Call) and self.matches(expr.func, vocabulary.MASK_FUNCTIONS) is not None:
                return bool(expr.args) and not any(a.star or positions(a.value) for a in expr.args)
            if isinstance(expr, cst.Call) and self.matches(expr.func, vocabulary.MASK_POSITIONS) is not None:
                return (  # `np.where(mask)`, `jnp.nonzero(mask, size=n)`: the positions the mask marks
                    bool(expr.args) and expr.args[0].keyword is None and not expr.args[0].star and boolean(expr.args[0].value, depth)
                    and all(a.keyword is not None and a.keyword.value in ("size", "fill_value") for a in expr.args[1:])
                )
            if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index) and (
                scopes.int_value(expr.slice[0].slice.value) is not None or self.matches(expr.value, vocabulary.INDEX_EXPRESSIONS)
            ):  # `jnp.where(mask)[0]`, `hit[0][0]`: some of those positions; `jnp.index_exp[where]`: the same index
                inner = expr.value if scopes.int_value(expr.slice[0].slice.value) is not None else expr.slice[0].slice.value
                return boolean(inner, depth)
            if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index) and (
                boolean(expr.slice[0].slice.value, depth)
            ):
                return boolean(expr.value, depth)  # `idx[idx >= 0]`: some of the positions (or flags) a mask marks
            if isinstance(expr, cst.Call) and expr.args and expr.args[0].keyword is None and not expr.args[0].star and (
                self.matches(expr.func, vocabulary.ARRAYS_OF_DISPLAYS)
            ) and boolean(expr.args[0].value, depth):
                return True  # `jnp.asarray(jnp.nonzero(m)[0], dtype=jnp.int32)`: the same positions or flags
            if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "astype" and (
                boolean(expr.func.value, depth)
            ):
                return True  # `idx.astype(jnp.int32)`
            if isinstance(expr, cst.Call) and not any(a.star for a in expr.args):
                dtype = next((a.value for a in expr.args if a.keyword is not None and a.keyword.value == "dtype"), None)
                if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "astype" and len(expr.args) == 1:
                    dtype = expr.args[0].value
                if dtype is not None and self.dtype_in(dtype, vocabulary.BOOLEAN_DTYPES, frozenset({"bool"})):
                    return True  # `jnp.array(entry["segmentation"], dtype=bool)`, `m.astype(bool)`
            return isinstance(expr, cst.Comparison) and not any(
                isinstance(c.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)) for c in expr.comparisons
            ) and not any(positions(side) for side in (expr.left, *(c.comparator for c in expr.comparisons)))

        def positions(expr: cst.BaseExpression | None, depth: int = 0) -> bool:
            """``jnp.arange(n)`` (or a name bound to it): compared with the index, a one-hot row."""
            if isinstance(expr, cst.Name) and depth < 3:
                return positions(self.semantics.assigned_value(expr), depth + 1)
            return isinstance(expr, cst.Call) and self.matches(expr.func, POSITION_ARRAYS) is not None

        return boolean(picked[0].value)

    def _other_bindings(self, tree: cst.CSTNode, buf: str, statement: cst.Assign) -> list[cst.Assign]:
        """The assignments of ``tree`` but ``statement`` whose target is ``buf`` (a name, or the
        code of an attribute or an item): the buffer's updates, or its making anew."""
        root = _root(buf)
        return [
            assign for assign in self.semantics.of_kind(tree, cst.Assign)
            if assign is not statement and any(_spells(self, t.target, buf, root) for t in assign.targets)
        ]

    def _rebinds_in(self, tree: cst.CSTNode, name: str) -> bool:
        """Whether a statement of ``tree`` binds ``name`` again (``i = ...``, ``i += 1``, ``del i``...)."""
        return bool(self.semantics.stores(tree, name)) or any(
            scopes.assign_to(a, name) for a in self.semantics.of_kind(tree, cst.Assign)
        )

    def _once_per_loop(self, statement: cst.CSTNode, loop: cst.CSTNode) -> bool:
        """Whether ``statement`` runs on one step of ``loop`` at most: it sits in a branch that
        leaves the loop (``break``, ``return``, ``raise``), or the loop's body itself does and
        nothing in it may ``continue``, or under ``if t == k`` (either way
        round), ``t`` the loop's counter (over a ``range``, or ``enumerate``'s) and ``k`` an
        expression of no name the loop binds, which one value of ``t`` alone can equal."""
        branches = [
            a for a in itertools.takewhile(lambda a: a is not loop, self.ancestors(statement))
            if isinstance(a, cst.If) and self.semantics.within(statement, a.body)
        ]
        if any(
            _leaves_loop(branch.body, breaking=scopes.enclosing_loops(self, branch)[:1] == [loop]) for branch in branches
        ):
            return True  # a `break` of an inner loop leaves that loop alone: the write runs once a step of this one
        if isinstance(loop, (cst.For, cst.While)) and _leaves_loop(loop.body) and not self.semantics.of_kind(loop.body, cst.Continue):
            return True  # `for ri in hits: ...; break`: the loop runs one step at most
        counter = self._counter(loop) if branches else None
        if counter is None:
            return False
        bound = {n.value for n in self.semantics.of_kind(loop, cst.Name) if (
            scopes.binding_role(self.semantics.parents, n)[0] is not None
        )}
        for test in (branch.test for branch in branches):
            if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(
                test.comparisons[0].operator, cst.Equal
            ):
                sides = [test.left, test.comparisons[0].comparator]
                for mine, other in (sides, sides[::-1]):
                    if isinstance(mine, cst.Name) and mine.value == counter and not (
                        {n.value for n in self.semantics.of_kind(other, cst.Name)} & bound
                    ) and not self.semantics.of_kind(other, cst.Call):
                        return True
        return False

    def _counter(self, loop: cst.CSTNode) -> str | None:
        """The name that counts ``loop``'s steps, one value a step: the target of a ``for`` over a
        ``range``, or ``enumerate``'s first, where the body does not bind it again; ``for x in
        data`` has none (two steps may hold equal values)."""
        if not isinstance(loop, cst.For):
            return None
        target, iterator = loop.target, loop.iter
        if isinstance(iterator, cst.Call) and self.matches(iterator.func, {"builtins.enumerate"}) and (
            isinstance(target, cst.Tuple) and len(target.elements) == 2
        ):
            target = target.elements[0].value
        elif self.range_call(iterator) is None:
            return None
        if not isinstance(target, cst.Name) or self._rebinds_in(loop.body, target.value):
            return None
        return target.value

    def _index_parts_in_loop(self, call: cst.Call, method: str, spelling: Spelling) -> list:
        """The parts of the update's index as the loop gives them: a helper's parameter stands for
        the argument the loop passes it (``put(buf, t, v)`` writes at ``t``); a part that reads a
        parameter within an expression (``i + 1``) is judged by the arguments it reads."""
        parts = _index_parts(call, method)
        arguments = dict(spelling.arguments)
        if not arguments:
            return parts
        given = []
        for part in parts:
            read = [arguments[n.value] for n in self.semantics.of_kind(part, cst.Name) if n.value in arguments]
            given += read if read else [part]
        return given

    def _same_slots_every_step(self, parts: list, loop: cst.CSTNode, bounded: frozenset | set = frozenset()) -> bool:
        """Whether the update writes the same slots every step of ``loop`` and of the loops inside
        it: its index calls nothing, reads no attribute or subscript,
        and reads no name that the loops bind (a target, or a name assigned in a body), but the
        ``bounded`` targets of inner loops of a few constant steps. Such an array is state, not
        rows collected one a step."""
        if not parts:
            return False
        for part in parts:
            if self.semantics.find(part, lambda n: isinstance(n, UNSTEADY)):
                return False
            for name in self.semantics.variables(part):
                if name.value not in bounded and any(scopes.binding_role(self.semantics.parents, n)[0] for n in self.semantics.names_in(loop, name.value)):
                    return False
        return True

    def _entry_repeated(self, key: cst.BaseExpression, parts: list, loop: cst.CSTNode) -> bool:
        """Whether steps of ``loop`` update the same entry again (``parts[s]``) at slots that move
        with the loop's target (``.at[t]`` in ``for t``): the key calls nothing, reads no
        attribute or item, and reads no name the loop binds but the target of a loop inside it
        over the same things every step (``for s in streams``). Each entry is then an array
        copied once a step; ``rows[i] = rows[i].at[0].set(v)`` is a different array each step."""
        if not isinstance(loop, cst.For) or self.semantics.find(key, lambda n: isinstance(n, UNSTEADY)):
            return False
        for name in self.semantics.variables(key):
            for bound in self.semantics.names_in(loop, name.value):
                if scopes.binding_role(self.semantics.parents, bound)[0] is None:
                    continue
                inner = self.parent(bound)
                while isinstance(inner, (cst.Tuple, cst.List, cst.Element)):
                    inner = self.parent(inner)
                if inner is loop or not isinstance(inner, cst.For) or not self._same_every_step(inner.iter, loop):
                    return False
        return self._reads_loop_targets(parts, [loop])

    def _last_appended(self, target: cst.Subscript, loop: cst.CSTNode, statement: cst.CSTNode) -> bool:
        """Whether ``target`` is ``items[-1]`` of a list that every step of ``loop`` appends to
        before ``statement`` (a statement of the loop's own body, outside branches): the entry is
        the array the step appended, a different one each step."""
        key = target.slice[0].slice.value if len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index) else None
        if scopes.int_value(key) != -1 or not isinstance(loop, (cst.For, cst.While)):
            return False
        container = self.code_of(target.value)
        for line in loop.body.body:
            if line is statement or self.semantics.within(statement, line):
                return False
            if isinstance(line, cst.SimpleStatementLine) and any(
                isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)
                and isinstance(small.value.func, cst.Attribute) and small.value.func.attr.value == "append"
                and self.code_of(small.value.func.value) == container
                for small in line.body
            ):
                return self.semantics.within(statement, loop.body) and any(
                    s is statement or self.semantics.within(statement, s) for s in loop.body.body
                    if isinstance(s, cst.SimpleStatementLine)
                )
        return False

    def _membership_tested(self, target: cst.Subscript, loop: cst.CSTNode) -> bool:
        """Whether ``loop`` tests the entry's key for membership in the collection (``if key not
        in stacked: stacked[key] = jnp.zeros(...)``): an entry made on its key's first step and
        updated on the later ones, as a checkpoint loader stacks each layer's weights."""
        return any(
            self._tests_membership(test, target, (cst.In, cst.NotIn))
            for test in self.semantics.of_kind(loop, cst.Comparison)
        )

    def _made_when_missing(self, assign: cst.Assign, loop: cst.CSTNode) -> bool:
        """Whether ``assign`` binds an entry only when its key is missing (``if key not in
        stacked: stacked[key] = jnp.zeros(...)``): the entry's first value, made once a key."""
        target = assign.targets[0].target if len(assign.targets) == 1 else None
        if not isinstance(target, cst.Subscript) or len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
            return False
        for holder in self.ancestors(assign):
            if holder is loop:
                return False
            if isinstance(holder, cst.If) and self.semantics.within(assign, holder.body):
                return self._tests_membership(holder.test, target, (cst.NotIn,))
        return False

    def _other_branch(self, node: cst.CSTNode, other: cst.CSTNode, loop: cst.CSTNode) -> bool:
        """Whether ``node`` and ``other`` sit on the two sides of one ``if`` in ``loop``: a step
        runs one of them (``if block_index is not None: stacked[k] = stacked[k].at[...]`` ...
        ``else: stacked[k] = value``, an entry of another kind)."""
        for holder in self.ancestors(node):
            if holder is loop:
                return False
            if isinstance(holder, cst.If) and holder.orelse is not None:
                mine, others = (holder.body, holder.orelse) if self.semantics.within(node, holder.body) else (holder.orelse, holder.body)
                if self.semantics.within(other, others) and self.semantics.within(node, mine):
                    return True
        return False

    def _tests_membership(self, test: cst.BaseExpression, target: cst.Subscript, operators: tuple) -> bool:
        """Whether ``test`` is ``key in held`` (or ``held.keys()``, of ``operators``) for the entry
        ``held[key]``."""
        if not isinstance(test, cst.Comparison) or not isinstance(target.slice[0].slice, cst.Index):
            return False
        key, held = self.code_of(target.slice[0].slice.value), self.code_of(target.value)
        return self.code_of(test.left) == key and any(
            isinstance(c.operator, operators) and self.code_of(c.comparator) in (held, f"{held}.keys()") for c in test.comparisons
        )

    def _same_every_step(self, iterable: cst.BaseExpression, loop: cst.CSTNode) -> bool:
        """Whether ``iterable`` gives the same items on every step of ``loop``: a name, or
        ``range`` of names, that ``loop`` does not bind."""
        if isinstance(iterable, cst.Call) and self.matches(iterable.func, {"builtins.range"}):
            return self._same_slots_every_step([a.value for a in iterable.args], loop)
        return self._same_slots_every_step([iterable], loop)

    def _picked_by_data(self, parts: list, loops: list[cst.CSTNode]) -> bool:
        """Whether the data picks the update's slot: its index reads an element or a call
        (``counts.at[tiles[i]]``), or a target of a loop over something else than a ``range``
        or ``enumerate``'s counter (``for tile in tiles``). Combined into the old value there,
        the array is a histogram, whose size does not grow with the loop. A first part that starts
        at a name each step of the innermost loop advances (``out.at[off:off + n].add(...)`` with
        ``off += n``) is a cursor, not a pick: the blocks move along the array a step at a time."""
        first = parts[0].value if parts and isinstance(parts[0], cst.Index) else parts[0] if parts else None
        start = first.lower if isinstance(first, cst.Slice) else first
        if loops and isinstance(start, cst.Name) and start.value in self._running_offsets(loops[0]):
            return False
        # `idx = active_of(j)`, `rows, cols = np.array(vals).T` before the update; `k = bits(s)` then
        # `idx = idx + k`: the values that reach the index's names, a few assignments back
        pending, followed = [part.value if isinstance(part, cst.Index) else part for part in parts], set()
        while pending and len(followed) < 8:
            for name in self.semantics.variables(pending.pop()):
                if name.value not in followed and (reaching := self.semantics.reaching_value(name)) is not None and (
                    not loops or self.semantics.within(reaching[1], loops[-1])
                ):  # (a value bound before the loops, `start = jnp.sum(mask)`, is the same on every step)
                    followed.add(name.value)
                    parts = parts + [reaching[1]]
                    pending.append(reaching[1])
        picks = lambda n: (isinstance(n, cst.Subscript) or isinstance(n, cst.Call) and not self.matches(  # noqa: E731
            n.func, {"builtins.slice"}
        )) and not self._fixed_around(n, loops)  # (`s = slice(t * d, (t + 1) * d)` moves with the loop)
        if any(self.semantics.find(part, picks) for part in parts):
            return True  # `counts.at[tiles[i]]`, or `idx = active_of(j)` ... `full.at[idx]`
        data = set()
        for loop in loops:
            if not isinstance(loop, cst.For):
                continue
            target, iterator = loop.target, loop.iter
            if isinstance(iterator, cst.Call) and (self.matches(iterator.func, {"builtins.range"}) or self._positions(iterator)):
                continue
            if isinstance(iterator, cst.Call) and self.matches(iterator.func, {"builtins.enumerate"}) and (
                isinstance(target, cst.Tuple) and len(target.elements) == 2
            ):
                target = target.elements[1].value  # the counter is not the data
            data |= {n.value for n in self.semantics.of_kind(target, cst.Name)}
        return any(name.value in data for part in parts for name in self.semantics.variables(part))

    def _fixed_around(self, node: cst.CSTNode, loops: list[cst.CSTNode]) -> bool:
        """Whether ``node`` (a call or a subscript in an index) has one value on every step of
        ``loops``: it reads no name they bind, and calls only array methods and the functions of
        ``jax.numpy``, NumPy (not its random numbers) and Python's ``len``/``int``/``min``/``max``
        (``mask.at[:, lengths.sum() + i]``: an offset fixed around the loop, the slot moving one a step)."""
        if any(self._rebinds_in(loop, name.value) for loop in loops for name in self.semantics.variables(node)):
            return False
        for call in self.semantics.of_kind(node, cst.Call):
            names = self.qualified_names(call.func)
            method = isinstance(call.func, cst.Attribute) and call.func.attr.value in vocabulary.ARRAY_METHODS
            pure = bool(names) and all(
                q.startswith((f"{JNP}.", "numpy.")) and not q.startswith("numpy.random")
                or q in ("builtins.len", "builtins.int", "builtins.min", "builtins.max") for q in names
            )
            if not (method or pure):
                return False
        return True

    def _entries_say_where(self, parts: list, loop: cst.CSTNode, value: cst.BaseExpression | None,
                           outer: list[cst.CSTNode]) -> bool:
        """Whether ``loop`` steps through the entries of a collection (not a ``range``, no
        counter in the index) and the index is read from the entry rather than being it
        (``for group in groups: inds = group["indices"]``, ``pos = entities[kind].position``): each
        entry writes the slots it names, as many steps as the program has entries, not a row a
        step of a loop over the data's length. ``for i in order: buf.at[i]`` fills a slot a step;
        so does an index that reads the target of one of the ``outer`` loops around this one
        (``ids = {"a": int(a[i])}`` in ``for i in range(n)``, then ``buf.at[ids[name]]``)."""
        if not isinstance(loop, cst.For) or self.range_call(loop.iter) is not None or not parts:
            return False
        iterator = self._enumerated(loop.iter)
        if isinstance(iterator, cst.Call) and self._positions(iterator):
            return False  # `for N in np.ndindex(shape)`: each entry is a position (`out.at[:, N[0], N[1]]`), a slot a step
        counter = self._counter(loop)
        if isinstance(loop.iter, cst.Call) and self.matches(loop.iter.func, {"builtins.enumerate"}):
            target = loop.target.elements[1].value if isinstance(loop.target, cst.Tuple) and len(loop.target.elements) == 2 else None
        else:
            target = loop.target
        entries = {n.value for n in self.semantics.of_kind(target, cst.Name)} if target else set()
        # `for row, col, v in specs`: the entry's parts name its slot and its value, a record; `for i,
        # x in zip(order, rows)` walks slots beside the rows, `product(...)` a grid, and an entry
        # whose value is computed from other data (a bridge's order) is a slot a step
        unpacked = isinstance(target, (cst.Tuple, cst.List)) and not self._parallel(loop.iter) and value is not None and all(
            name.value in entries for name in self.semantics.variables(value)
        ) and not self.semantics.of_kind(value, cst.Call)
        index = [part.value if isinstance(part, cst.Index) else part for part in parts]
        if unpacked and any(self._is_var_plus_constant(part, name) for part in index for name in entries):
            return True  # a part of the entry is the slot (`grid.at[row, col]`)
        if any(self._is_var_plus_constant(part, name) for part in index for name in entries | {counter} - {None}):
            return False  # the entry is the slot
        moving = ({counter} | self._running_offsets(loop) | {
            n.value for o in outer if isinstance(o, cst.For) for n in self.semantics.of_kind(o.target, cst.Name)
        }) - {None}
        sources, pending, followed = list(index), list(index), set()
        while pending and len(followed) < 16:
            for name in self.semantics.variables(pending.pop()):
                if name.value in moving:
                    return False  # a counter, or an offset the loop advances (`r += m.shape[0]`): a new block a step
                if name.value not in followed:  # every value the name is given (`inds = ...` on either branch)
                    followed.add(name.value)
                    given = self.semantics.value_sources(name) or []
                    sources += given
                    pending += given
        return any(
            isinstance(self.parent(name), (cst.Attribute, cst.Index, cst.Subscript)) or self._looked_up(name)
            or self._read_by_helper(name) or self._asked_of_lister(name, loop.iter)
            for source in sources for name in self.semantics.variables(source) if name.value in entries
        )

    def _asked_of_lister(self, name: cst.Name, iterated: cst.BaseExpression) -> bool:
        """Whether ``name`` is handed to a method of the object whose method or attribute lists
        the loop's entries (``structure.select(element)`` in ``for element in
        structure.get_unique_elements()``): the object gives back the slots it holds for each
        entry it lists, a table lookup wherever its class is written."""
        arg = self.parent(name)
        call = self.parent(arg) if isinstance(arg, cst.Arg) else None
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name)):
            return False
        lister = iterated.func if isinstance(iterated, cst.Call) and not iterated.args else iterated
        return isinstance(lister, cst.Attribute) and isinstance(lister.value, cst.Name) and (
            lister.value.value == call.func.value.value
        )

    def _converts_itself(self, assign: cst.Assign, buf: str) -> bool:
        """Whether ``assign`` binds ``buf`` to a copy or conversion of itself (``R = jnp.array(R)``,
        ``R = R.copy()``): the same values, not a new array of other rows."""
        value = assign.value
        if not isinstance(value, cst.Call) or len(assign.targets) != 1:
            return False
        if isinstance(value.func, cst.Attribute) and value.func.attr.value == "copy" and not value.args:
            return self.code_of(value.func.value) == buf
        return bool(self.matches(value.func, SELF_CONVERSIONS)) and bool(value.args) and (
            value.args[0].keyword is None and not value.args[0].star and self.code_of(value.args[0].value) == buf
        )

    def _looked_up(self, name: cst.Name) -> bool:
        """Whether ``name`` is the key of a mapping's ``.get`` (``index_of.get(entry)``), which
        reads the slot from a table as ``index_of[entry]`` does, or the item a list's ``.index``
        finds (``species.index(entry)``): the entry's place in a table."""
        arg = self.parent(name)
        call = self.parent(arg) if isinstance(arg, cst.Arg) else None
        return isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value in ("get", "index") and (
            bool(call.args) and call.args[0] is arg and arg.keyword is None and not arg.star
        )

    def _positions(self, iterator: cst.Call) -> bool:
        """Whether a loop's iterable is a grid of positions: ``np.ndindex(...)``, or
        ``itertools.product`` (``combinations``...) of ``range`` s alone."""
        if self.matches(iterator.func, {"numpy.ndindex"}):
            return True
        return self.matches(iterator.func, INDEX_SEQUENCES - {"builtins.zip", "numpy.ndindex"}) is not None and bool(
            iterator.args
        ) and all(
            not a.keyword and not a.star and isinstance(a.value, cst.Call) and self.matches(a.value.func, {"builtins.range"})
            for a in iterator.args
        )

    def _parallel(self, iterator: cst.BaseExpression) -> bool:
        """Whether a loop walks sequences side by side (``zip(order, rows)``) or a grid of
        positions (``itertools.product``, ``np.ndindex``), also under ``enumerate``: its target's
        parts come from different sequences, not from one entry."""
        iterator = self._enumerated(iterator)
        return isinstance(iterator, cst.Call) and self.matches(iterator.func, INDEX_SEQUENCES) is not None

    def _enumerated(self, iterator: cst.BaseExpression) -> cst.BaseExpression:
        """What ``enumerate(...)`` around ``iterator`` (any number of them) walks."""
        while isinstance(iterator, cst.Call) and self.matches(iterator.func, {"builtins.enumerate"}) and iterator.args:
            iterator = iterator.args[0].value
        return iterator

    def _running_offsets(self, loop: cst.For | cst.While) -> set[str]:
        """The names that every step of ``loop`` advances (``r += m.shape[0]`` in its body,
        outside branches): the slots an index of them names move along, a step at a time."""
        return {
            small.target.value
            for line in loop.body.body if isinstance(line, cst.SimpleStatementLine)
            for small in line.body
            if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name)
            and isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign))
        }

    def _read_by_helper(self, name: cst.Name) -> bool:
        """Whether ``name`` is passed by position to a function of this file that reads a field
        of that parameter (``l_y, l_x = place(item, h, w)`` where ``place`` returns ``item["y"] %
        h, ...``; a method, ``self.place(item, h, w)``, the file's one of that name) or looks a
        slot up by it (``jnp.nonzero(self.types == self.type_of[element])[0]``): the slot is read
        from the entry there."""
        arg = self.parent(name)
        call = self.parent(arg) if isinstance(arg, cst.Arg) else None
        if not isinstance(call, cst.Call) or arg.keyword is not None or arg.star:
            return False
        if isinstance(call.func, cst.Name):
            helper, bound = self.semantics.binding(call.func), 0
        elif isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name):  # `self.place(item)`
            helper, bound = self.traced.only_method(call.func.attr.value), 1
        else:
            return False
        if not isinstance(helper, cst.FunctionDef):
            return False
        position = next(k for k, a in enumerate(call.args) if a is arg)
        params = [*helper.params.posonly_params, *helper.params.params][bound:]
        if position >= len(params) or any(a.star for a in call.args[:position]):
            return False
        return any(
            self._field_read(read) or self._keyed_by(read)
            for read in self.semantics.names_in(helper.body, params[position].name.value)
        )

    def _keyed_by(self, name: cst.Name) -> bool:
        """Whether ``name`` is the key of a lookup: ``table[name]`` (the whole index), or
        ``index_of.get(name)``: the slot the table holds for the entry, as the loop itself reading
        ``table[entry]`` is."""
        index = self.parent(name)
        element = self.parent(index) if isinstance(index, cst.Index) else None
        subscript = self.parent(element) if isinstance(element, cst.SubscriptElement) else None
        return isinstance(subscript, cst.Subscript) and len(subscript.slice) == 1 or self._looked_up(name)

    def _field_read(self, name: cst.Name) -> bool:
        """Whether ``name`` is read for a field: ``item["y"]`` (a string key) or ``item.y`` (not a
        method called, not a slice): what an entry names, not what a string key parses to
        (``key[len(prefix):]``, ``key.split(".")``, a checkpoint loader's layer number)."""
        parent = self.parent(name)
        if isinstance(parent, cst.Subscript) and parent.value is name:
            return len(parent.slice) == 1 and isinstance(parent.slice[0].slice, cst.Index) and isinstance(
                parent.slice[0].slice.value, cst.SimpleString
            )
        if isinstance(parent, cst.Attribute) and parent.value is name:
            called = self.parent(parent)
            return not (isinstance(called, cst.Call) and called.func is parent)
        return False

    def _copied_from(self, target: cst.Name, loop: cst.CSTNode) -> set[str]:
        """The names the array was made from before ``loop`` by an update or a plain binding
        (``new_state = state.at[0].set(v)``, ``new_state = state``) and that the loop does not
        rebind: a slot's old value read through one of them (``state[idx]``) is the slot's
        value before the loop's writes."""
        names = set()
        for value in self.semantics.value_sources(target) or []:
            if self.semantics.within(value, loop):
                continue
            while (found := scopes.at_call(value)) is not None:
                value = found[0]
            if isinstance(value, cst.Name) and value.value != target.value and not any(
                scopes.binding_role(self.semantics.parents, n)[0] is not None
                for n in self.semantics.names_in(loop, value.value)
            ):
                names.add(value.value)
        return names

    def _combines_with_old_slot(self, call: cst.Call, bufs: set[str], method: str) -> bool:
        """Whether a ``set`` writes a value computed from the slot's old value, read at the same
        index (``heat.at[k].set(jnp.maximum(row, heat[k]))``), through the array's name or one it
        was copied from before the loop (``bufs``): a combining update spelled out,
        also through the values a name is given in its scope, and the names those read (``sol =
        full[idx]``, ``problem = Thermal(..., sol)``, ``sol = solve(problem)``, ``.set(sol)``); for ``dynamic_update_slice(canvas, f(old), (y, x))``, whose starts do not spell the
        index, a value computed from any part of the array (``old = canvas[y:y + h, x:x + w]``)."""
        if method.startswith("dynamic_update") and len(call.args) > 1:
            index, pending = None, [call.args[1].value]
        elif method != "set" or not call.args:
            return False
        else:
            index, pending = self._slice_code(call.func.value.slice), [call.args[0].value]
        followed, seen = 0, {id(v) for v in pending}
        receivers = [(buf, _root(buf)) for buf in bufs]
        while pending:
            # (an attribute's name or a keyword, `.reshape`, `axis=`, reads nothing: no budget spent on it)
            for node in self.semantics.of_kind(pending.pop(), cst.Subscript, cst.Name):
                if isinstance(node, cst.Subscript):
                    if any(_spells(self, node.value, buf, root) for buf, root in receivers) and (
                        index is None or self._slice_code(node.slice) == index
                    ):
                        return True
                elif followed < 16 and not self.semantics.is_label(node):
                    # the value that reaches this read in straight-line code, else every value
                    # the name is given (`problem` bound under an `if` on an earlier step); a value
                    # reached by several reads (`moved - moved.mean()`) is followed, and counted, once
                    reaching = self.semantics.reaching_value(node)
                    values = [reaching[1]] if reaching is not None and reaching[0] == () else self.semantics.value_sources(node) or []
                    new = [v for v in values if id(v) not in seen]
                    seen.update(id(v) for v in new)
                    followed += bool(new)
                    pending += new
        return False

    def _slice_code(self, elements) -> str:
        return ", ".join(self.code_of(element.slice) for element in elements)

    def _reads_loop_targets(self, parts: list, loops: list[cst.CSTNode]) -> bool:
        """Whether the update's index reads a target of one of ``loops`` (``buf.at[i]`` in a loop
        over ``i`` outside the one that repeats the slot): rows filled one an outer step. An
        index set the data picks (``active = jnp.nonzero(layer)[0]``) repeated by the inner loop
        is state written back."""
        targets = {
            n.value for loop in loops if isinstance(loop, cst.For)
            for n in self.semantics.of_kind(loop.target, cst.Name)
        }
        return any(name.value in targets for part in parts for name in self.semantics.variables(part))

    def _update_fix_problem(self, statement, buf, call, method, loop) -> str | None:
        if method != "set":
            return f"only `.at[].set` is rewritten, not `{method}`"
        if not isinstance(loop, cst.For) or not isinstance(loop.target, cst.Name):
            return "the loop is not `for <name> in range(...)`"
        var = loop.target.value
        if not self._nonnegative_range(loop.iter):
            return "the loop does not run over `range` with a literal non-negative start and positive step"
        if self.semantics.builtin_shadowed("range"):
            return (
                "`range` may not be the builtin here (a star import, a binding of the name, or a store into `builtins`), "
                "whose distinct indices the fix relies on"
            )
        index = call.func.value.slice
        if len(index) != 1 or not isinstance(index[0].slice, cst.Index):
            return "the write is not at one index of the first axis (`buf.at[i]`): the fix collects whole rows"
        if not self._is_var_plus_constant(index[0].slice.value, var):
            return f"the index is not `{var}` plus a non-negative constant, so writes may collide"
        if scopes.enclosing_loops(self, statement)[0] is not loop:
            return "the write sits in a nested loop, so it may happen more than once a step"
        if self._rebinds_in(loop.body, var):
            return f"the loop variable `{var}` is reassigned in the body"
        rebinder = self._rebinder(loop, var)
        if rebinder:
            return f"the loop variable `{var}` {rebinder}, so code run in the loop may rebind it between the fix's two reads of the index"
        writes = [
            a for a in self.semantics.of_kind(loop, cst.Assign) if self._update(a) and self._update(a)[0] == buf
        ]
        if len(writes) != 1:
            return f"`{buf}` is written more than once in the loop"
        target = statement.targets[0].target
        receiver = call.func.value.value.value
        for name in self.semantics.names_in(loop, buf):
            if name is not target and name is not receiver and not self.semantics.within(name, loop.iter):
                return f"the loop also reads `{buf}` (line {self.start_line(name)})"  # `range(buf.shape[0])` runs once, before
        if self.semantics.stores(loop, buf):
            return f"`{buf}` is rebound in the loop"
        return self._refusal(buf, loop)

    def _read_whole(self, buf: str, statement: cst.Assign, loop: cst.CSTNode, spelling: Spelling) -> bool:
        """Whether the loop reads ``buf`` whole besides updating it (``jnp.where(alive, r, -inf)``),
        not only a slot or band of it (``buf[k]``) or its static facts (``buf.shape``). The array
        handed to the helper that updates it (``buf = put(buf, i, v)``) is the update, no read."""
        receiver = scopes.at_call(statement.value)
        handed = [arg for param, arg in spelling.arguments if param == spelling.receiver]
        for name in self.semantics.names_in(loop, buf):
            parent = self.parent(name)
            if name is statement.targets[0].target or receiver is not None and name is receiver[0] or any(
                name is arg for arg in handed
            ) or (
                isinstance(loop, cst.For) and self.semantics.within(name, loop.iter) or self.semantics.is_label(name)
            ):
                continue
            if isinstance(parent, cst.Subscript) and parent.value is name or scopes.static_read(self.semantics, name):
                continue
            if isinstance(parent, cst.Attribute) and parent.value is name and parent.attr.value == "at":
                continue  # another update of it in the step (a pixel's neighbours): a write, not a read
            if scopes.binding_role(self.semantics.parents, name)[0] is None:
                return True
        return False

    def _nonnegative_range(self, iterator: cst.BaseExpression) -> bool:
        if not (isinstance(iterator, cst.Call) and self.matches(iterator.func, {"builtins.range"})):
            return False
        args = iterator.args
        if not 1 <= len(args) <= 3 or any(a.keyword or a.star for a in args):
            return False
        if len(args) >= 2 and not _literal_int(args[0].value, minimum=0):
            return False
        return len(args) < 3 or _literal_int(args[2].value, minimum=1)

    def _is_var_plus_constant(self, expr: cst.BaseExpression, var: str) -> bool:
        if isinstance(expr, cst.Name):
            return expr.value == var
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            left, right = expr.left, expr.right
            return (isinstance(left, cst.Name) and left.value == var and _literal_int(right, 0)) or (
                isinstance(right, cst.Name) and right.value == var and _literal_int(left, 0)
            )
        return False

    def _no_update_fix_reason(self, call: cst.Call) -> str:
        if self.semantics.module_spelling(JNP) is None:
            return self.unspelled("jax.numpy")
        return "the write passes more than the value (`mode=`, `indices_are_sorted=`, ...)"

    def _update_fix(self, statement, buf, call, loop) -> Fix | None:
        """Each row made when the loop made it, by ``.at[...].set`` into a copy of the slot
        (``buf[i].at[...].set(value)``): converted, broadcast, warned about and refused exactly as
        ``buf.at[i].set(value)`` does it, dtype promotion rules and Python ints included, and a new
        array that no later donation can delete. Reading ``buf[i]`` raises where ``.at[i]`` would
        (a zero-length axis, a 0-d buffer), at the same step, and after the value, as there: the
        value is computed, and promoted with the buffer (``jnp.result_type``, which raises where
        ``.at[i].set`` raises, on an int too large or a pair that strict promotion refuses), before
        the slot is read. All rows are written in one ``.at[].set`` after the loop, which keeps
        the buffer's dtype and weak type.

        ``.at[].set`` promotes the whole buffer with the value (``jnp.result_type``) and converts
        it back: a row of a wider or, into a weakly typed buffer, a narrower dtype takes every slot
        through that dtype (an int32 buffer written with a float32 row loses what float32 cannot
        hold; ``jnp.full(n, -100)`` written with a uint8 row holds 156). Each step records that
        dtype; where one is not the buffer's own, the rows are written as the loop wrote them,
        each through its step's dtype, which gives every slot the same conversions."""
        namespace = self.semantics.module_spelling(JNP)
        if namespace is None:
            return None
        value_arg = call.args[0] if call.args else None
        if value_arg is None or value_arg.keyword is not None or value_arg.star or len(call.args) != 1:
            return None
        source = self.context.source
        rows = self.fresh_name(f"{buf}_rows", loop)
        index = self.code_of(call.func.value.slice[0].slice.value)
        value = self.code_of(value_arg.value)
        if isinstance(value_arg.value, cst.GeneratorExp) and not value_arg.value.lpar:
            value = f"({value})"  # the call's own parentheses were the generator's
        held = self.fresh_name(f"{buf}_value", loop)
        slot, written, promoted = (self.fresh_name(f"{buf}_{part}", loop) for part in ("slot", "row", "dtype"))
        promotion = f"{namespace}.result_type({buf}, {namespace}.asarray({held} := {value}))"
        row = f"{buf}[{index}].at[...].set({held})"
        indent = source.indentation(self.start_line(loop))
        unit = self.context.module.default_indent
        rebuild = [
            f"{indent}if {rows}:",
            f"{indent}{unit}if {{dtype for _, dtype, _ in {rows}}} == {{{buf}.dtype}}:",
            f"{indent}{unit}{unit}{buf} = {buf}.at[{namespace}.asarray([i for i, _, _ in {rows}])].set("
            f"{namespace}.stack([row for _, _, row in {rows}]))",
            f"{indent}{unit}else:  # a row of another dtype takes every slot through it: write the rows as the loop did",
            f"{indent}{unit}{unit}for {slot}, {promoted}, {written} in {rows}:",
            f"{indent}{unit}{unit}{unit}{buf} = {buf}.at[{slot}].set({written}.astype({promoted}))  # noqa: AT102",
        ]
        edits = (
            source.insert_lines_before(self.start_line(loop), [f"{indent}{rows} = []"]),
            self.replace(statement, f"{rows}.append(({index}, {promotion}, {row}))"),
            source.insert_lines_before(self.end_line(loop) + 1, rebuild),
        )
        return Fix("safe", f"collect `(index, dtype, row)` in `{rows}`, each row converted as `.at[].set` converts it, and write them once", edits)


def _root(code: str) -> str:
    """The name the code of an attribute or an item starts with (``state`` of ``state.log["e"]``);
    ``""`` for one read from another expression (``(a or b).x``)."""
    return re.match(r"\w*", code).group()


def _spells(rule, target: cst.BaseExpression, code: str, root: str) -> bool:
    """Whether the assignment target ``target`` is written ``code`` (``buf``, ``obj.data``,
    ``d["k"]``), whose leading name is ``root``: rendered only where its own leading name is."""
    if isinstance(target, cst.Name):
        return target.value == code
    head = scopes.leading_name(target)
    return head is not None and head.value == root and rule.code_of(target) == code


def _leaves_loop(block: cst.BaseSuite, breaking: bool = True) -> bool:
    """Whether ``block`` ends the loop it is in: one of its own statements is a ``break``,
    ``return`` or ``raise`` (``if norm < tol: ...; break``), so it runs on one step at most.
    Not ``breaking``: the loop in question is not the innermost one, which a ``break`` leaves alone."""
    lines = block.body if isinstance(block, cst.IndentedBlock) else [block]
    leaving = (cst.Break, cst.Return, cst.Raise) if breaking else (cst.Return, cst.Raise)
    return any(
        isinstance(small, leaving)
        for line in lines if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite))
        for small in line.body
    )


def _arguments(helper: cst.FunctionDef | cst.Lambda, call: cst.Call) -> dict[str, cst.BaseExpression] | None:
    """The helper's plain parameters and the values ``call`` passes them, by position or keyword;
    ``None`` for a ``*`` argument, a ``*args``/``**kwargs`` parameter or an argument left over.
    A parameter left to its default is missing, so nothing stands for it."""
    params = helper.params
    if params.star_kwarg is not None or isinstance(params.star_arg, cst.Param) or any(a.star for a in call.args):
        return None
    positional = [*params.posonly_params, *params.params]
    named = {p.name.value for p in [*params.params, *params.kwonly_params]}
    given: dict[str, cst.BaseExpression] = {}
    for k, arg in enumerate(call.args):
        if arg.keyword is None:
            if k >= len(positional):
                return None
            name = positional[k].name.value
        else:
            name = arg.keyword.value
            if name not in named:
                return None
        if name in given:
            return None
        given[name] = arg.value
    return given


def _wraps(index: cst.BaseExpression) -> bool:
    """Whether an index wraps around a window (``i % m``, ``(t + 1) % n``)."""
    return isinstance(index, cst.BinaryOperation) and isinstance(index.operator, cst.Modulo)


def _index_parts(call: cst.Call, method: str) -> list:
    """The parts of an update's index: the subscript elements of ``x.at[...]``, or the start
    indices given by position to ``dynamic_update_*``."""
    if method in UPDATE_METHODS:
        return [e.slice for e in call.func.value.slice]
    return [a.value for a in call.args[2:] if a.keyword is None]


def _literal_int(node: cst.BaseExpression, minimum: int | None) -> bool:
    """An integer literal (negated too, where ``minimum`` is ``None``) of at least ``minimum``."""
    if minimum is None and isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    if isinstance(node, cst.Integer):
        return minimum is None or int(node.evaluated_value) >= minimum
    return False
