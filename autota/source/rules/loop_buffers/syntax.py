"""What the loop rules recognise by qualified name, and small syntactic helpers on libcst nodes."""

from __future__ import annotations

import libcst as cst

from autota.source import scopes
from autota.source.scopes import all_params, int_value  # noqa: F401  (the rules import them from here)


from autota.source.vocabulary import ARRAY_METHODS, PART_READERS, ROW_READERS
from autota.source.vocabulary import (  # noqa: F401  (the rules import them from here)
    LAX,
    JNP,
    FORI,
    SCAN,
    WHILE,
    LOOPS,
    LIFTED_LOOPS,
    BODY_ARG,
    INIT_ARG,
    DUS,
    DUS_IN_DIM,
    DUI_IN_DIM,
    DYNAMIC_WRITES,
    CONSTRUCTORS,
    WHERE,
    COND,
    CHOICE_PARAMS,
    LOOP_PARAMS as PARAMS,
)


def ordered_arguments(call: cst.Call, params: tuple[str, ...], extra: str | None = None) -> list | None:
    """``call``'s argument values in the order of ``params``, then its further positional ones,
    wherever each was passed by keyword: ``lax.select(pred=p, on_true=a, on_false=b)`` reads as
    ``lax.select(p, a, b)``. ``extra`` is a keyword that stands for one further positional
    argument (``lax.cond``'s ``operand=``). ``None`` for unpacking (``*``, ``**``), a keyword not
    known, or a parameter left out or passed twice."""
    ordered, keywords = [], {}
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None:
            ordered.append(arg.value)
        else:
            keywords[arg.keyword.value] = arg.value
    for name in params[len(ordered):]:
        if name not in keywords:
            return None
        ordered.append(keywords.pop(name))
    if extra in keywords and len(ordered) == len(params):
        ordered.append(keywords.pop(extra))
    return None if keywords else ordered


def is_full_slice(node) -> bool:
    return isinstance(node, cst.Slice) and node.lower is None and node.upper is None and node.step is None


def is_none(node) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def selects_part(subscript: cst.Subscript) -> bool:
    """Whether ``subscript`` takes a slot or a band of its value (``buf[i]``, ``buf[:, :3]``), not
    the whole of it (``buf[:]``, ``buf[None]``, ``buf[...]``)."""
    return any(
        isinstance(e.slice, cst.Index) and e.slice.star is None
        and not (is_none(e.slice.value) or isinstance(e.slice.value, cst.Ellipsis))
        or isinstance(e.slice, cst.Slice) and (e.slice.lower is not None or e.slice.upper is not None)
        for e in subscript.slice
    )


def reads_part(rule, read: cst.CSTNode) -> bool:
    """Whether a read of a buffer (the subscript or call that reads it) takes a slot or a band:
    ``buf[i]``, ``buf[:, :3]``, ``lax.dynamic_slice(buf, ...)``."""
    if isinstance(read, cst.Subscript):
        return selects_part(read)
    return isinstance(read, cst.Call) and rule.matches(read.func, PART_READERS) is not None


def reads_fixed_rows(rule, read: cst.CSTNode, axis: int) -> bool:
    """Whether a read takes one slot along ``axis`` and the whole or a band of the other axes
    (``buf[i]``, ``buf[i, :]`` for ``axis`` 0, ``buf[:, i]`` or ``buf[1:n - 1, i]`` for 1, ``lax.dynamic_index_in_dim(buf, i,
    axis)``), or a band of a literal number of slots there (``lax.dynamic_slice_in_dim(buf,
    t - 2, 2)``, ``lax.dynamic_slice(buf, (t, 0), (3, n))``): what ``grad`` may save of it does
    not grow with the loop. Not a list of slots, nor a part across all the slots."""
    if isinstance(read, cst.Subscript):
        elements = index_elements(read.slice)
        if len(elements) <= axis or not all(isinstance(e.slice, cst.Slice) for k, e in enumerate(elements) if k != axis):
            return False
        index = elements[axis].slice
        return isinstance(index, cst.Index) and index.star is None and not (
            is_none(index.value) or isinstance(index.value, (cst.Ellipsis, cst.List, cst.Tuple))
        )
    if not isinstance(read, cst.Call):
        return False
    function = rule.matches(read.func, {f"{LAX}.dynamic_index_in_dim", f"{LAX}.dynamic_slice_in_dim"})
    if function is not None:
        given = _by_parameter(read, (*ROW_READERS[function], "keepdims"))
        if given is None or (0 if given.get("axis") is None else int_value(given["axis"])) != axis:
            return False
        return function.endswith("index_in_dim") or int_value(given.get("slice_size")) is not None
    if rule.matches(read.func, {f"{LAX}.dynamic_slice"}) is not None:
        given = _by_parameter(read, ("operand", "start_indices", "slice_sizes"))
        sizes = given.get("slice_sizes") if given is not None else None
        return isinstance(sizes, (cst.Tuple, cst.List)) and axis < len(sizes.elements) and not any(
            isinstance(e, cst.StarredElement) for e in sizes.elements
        ) and int_value(sizes.elements[axis].value) is not None
    return False


def _by_parameter(call: cst.Call, params: tuple[str, ...]) -> dict[str, cst.BaseExpression] | None:
    """``call``'s arguments by the name of the parameter each fills (positional ones in the order
    of ``params``); ``None`` for a ``*``/``**`` argument, one beyond ``params``, or one given twice."""
    if any(a.star for a in call.args):
        return None
    given = {}
    for k, arg in enumerate(call.args):
        name = arg.keyword.value if arg.keyword is not None else (params[k] if k < len(params) else None)
        if name is None or name in given:
            return None
        given[name] = arg.value
    return given


def row_read_index(rule, read: cst.CSTNode) -> cst.BaseExpression | None:
    """The index of a call in :data:`ROW_READERS` that reads one row along axis 0 (the axis
    given as ``0``, or left to its default where that is 0; a slice of size 1); else ``None``."""
    function = rule.matches(read.func, ROW_READERS) if isinstance(read, cst.Call) else None
    params = ROW_READERS[function] if function is not None else ()
    given = _by_parameter(read, params) if function is not None else None
    if given is None:
        return None
    axis = given.get("axis")
    if axis is None and function.endswith(".take") or axis is not None and int_value(axis) != 0:
        return None  # `jnp.take` flattens the array where no axis is given
    if function.endswith("_slice_in_dim") and int_value(given.get("slice_size")) != 1:
        return None
    index = given.get(params[1])
    return None if index is None or isinstance(index, (cst.List, cst.Tuple)) else index


def reads_slot(rule, read: cst.CSTNode, index: cst.BaseExpression) -> bool:
    """Whether a read of a buffer takes the slot written at ``index`` (``buf[i]``, or
    ``lax.dynamic_slice_in_dim(buf, i * B, B)`` for a write at ``i * B``): what the step is about
    to overwrite, or has just written, and no other row."""
    code = rule.code_of(index)
    if isinstance(read, cst.Subscript):
        return any(isinstance(e.slice, cst.Index) and rule.code_of(e.slice.value) == code for e in read.slice)
    if not (isinstance(read, cst.Call) and len(read.args) >= 2 and reads_part(rule, read)):
        return False
    start = read.args[1].value
    starts = [e.value for e in start.elements] if isinstance(start, (cst.Tuple, cst.List)) else [start]
    return code in {rule.code_of(e) for e in starts}


def invariant(rule, expr: cst.BaseExpression, body: cst.CSTNode, pure_calls: bool = False) -> bool:
    """Whether ``expr`` (a written index or row) is the same every step: it calls nothing (with
    ``pure_calls``, nothing but JAX's and NumPy's array functions, which give the same array for
    the same arguments: ``c * jnp.ones((k,))``), and no function around it up to the loop's body
    binds a name it reads (``i * B`` or ``big`` of the function that runs the loop)."""
    calls = rule.semantics.of_kind(expr, cst.Call)
    if calls and not (pure_calls and all(_pure(rule, call) for call in calls)):
        return False
    names = {n.value for n in rule.semantics.of_kind(expr, cst.Name)}
    for scope in rule.ancestors(expr):
        if isinstance(scope, (cst.FunctionDef, cst.Lambda)):
            stars = [p for p in (scope.params.star_arg, scope.params.star_kwarg) if isinstance(p, cst.Param)]
            if any(p.name.value in names for p in (*all_params(scope), *stars)) or isinstance(scope, cst.FunctionDef) and any(
                rule.semantics.binds_here(scope, n) for n in names
            ):
                return False
            if scope is body:
                return True
    return True


def _pure(rule, call: cst.Call) -> bool:
    """Whether ``call`` is a ``jax.numpy``, ``jax.lax`` or NumPy function (not ``numpy.random``,
    which draws anew each call) or an array method that gives an array."""
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in ARRAY_METHODS and not rule.qualified_names(call.func):
        return True
    names = rule.qualified_names(call.func)
    return bool(names) and all(
        q.startswith(("jax.numpy.", "jax.lax.", "numpy.")) and not q.startswith("numpy.random") for q in names
    )


def is_bool_literal(node) -> bool:
    return isinstance(node, cst.Name) and node.value in ("True", "False")


def literal_bool(node) -> bool | None:
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return None


PLAIN_VALUES = (cst.Name, cst.Integer, cst.Float, cst.Imaginary)
"""Values whose evaluation cannot raise an error of its own, so a fix may read them in any order."""


def alone_on_its_line(rule, statement: cst.BaseSmallStatement) -> bool:
    """Whether ``statement`` is the one statement of its line, in an indented block: statements
    a fix puts before it can go on lines of their own at its indentation."""
    line = rule.parent(statement)
    return isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(
        rule.parent(line), cst.IndentedBlock
    )


def int_value_text(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return None


def index_offset(expr: cst.BaseExpression, var: str | None) -> int | None:
    """``c`` when ``expr`` is ``var``, ``var + c``, ``c + var`` or ``var - c`` (``c`` an int literal)."""
    if var is None:
        return None
    if isinstance(expr, cst.Name):
        return 0 if expr.value == var else None
    if isinstance(expr, cst.BinaryOperation):
        left, right = expr.left, expr.right
        if isinstance(expr.operator, cst.Add):
            if isinstance(left, cst.Name) and left.value == var and int_value(right) is not None:
                return int_value(right)
            if isinstance(right, cst.Name) and right.value == var and int_value(left) is not None:
                return int_value(left)
        if isinstance(expr.operator, cst.Subtract):
            if isinstance(left, cst.Name) and left.value == var and int_value(right) is not None:
                return -int_value(right)
    return None


def assigns(semantics: scopes.Semantics, tree: cst.CSTNode, name: str) -> list[cst.Assign]:
    """The assignments in ``tree``'s own scope with ``name`` anywhere in a target."""
    return semantics.own_nodes(
        tree, lambda n: isinstance(n, cst.Assign) and any(semantics.names_in(t.target, name) for t in n.targets)
    )


def rebinds(semantics: scopes.Semantics, function: cst.FunctionDef, name: str) -> bool:
    """Whether the body of ``function`` binds ``name`` again (a parameter no longer what it was)."""
    return bool(semantics.stores(function.body, name) or assigns(semantics, function, name))


def identifier(text: str) -> str:
    """``text`` as a piece of a Python name: ``energy`` for ``"energy"``, ``x_1`` for ``"x-1"``."""
    cleaned = "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in text).strip("_")
    return cleaned or "entry"


INDEX_ARRAYS = frozenset({f"{JNP}.array", f"{JNP}.asarray", "numpy.array", "numpy.asarray"})


RANGES = frozenset({f"{JNP}.arange", "numpy.arange", f"{JNP}.linspace", "numpy.linspace"})
"""Calls that make a vector of positions."""


def identity_test(node: cst.CSTNode | None) -> bool:
    """Whether ``node`` is a comparison by identity alone (``buf is not None``): it asks of the
    objects, and reads none of their arrays' values."""
    return isinstance(node, cst.Comparison) and all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in node.comparisons)


def several_slots(rule, index, depth: int = 0) -> bool:
    """Whether ``index`` visibly names several slots (``[i, j]``, ``jnp.array([i, j])``): a write
    there (a swap, a permutation step) is not one slot a step; or is a tuple built as the program
    runs (``x.at[tuple(loc)]``), a position along several axes, as ``x.at[i, j]`` is; or is
    arithmetic on a vector of positions (``offsets + ell`` with ``offsets = jnp.arange(n) * k``, or
    a ``jax.vmap`` of a function over one), through names bound once, a few levels."""
    if isinstance(index, cst.Call) and rule.matches(index.func, {"builtins.tuple"}):
        return True
    if isinstance(index, cst.Call) and rule.matches(index.func, RANGES) and index.args:
        return True
    if isinstance(index, cst.Call) and isinstance(index.func, cst.Call) and rule.matches(index.func.func, {"jax.vmap"}) and any(
        not a.keyword and several_slots(rule, a.value, depth + 1) for a in index.args
    ):  # `jax.vmap(lambda m: m * (2 * L - m) // 2)(jnp.arange(L))`: one position for each mapped one
        return True
    if isinstance(index, cst.BinaryOperation) and depth < 4:
        return several_slots(rule, index.left, depth + 1) or several_slots(rule, index.right, depth + 1)
    if isinstance(index, cst.Name) and depth < 4:
        value = rule.semantics.assigned_value(index)
        return value is not None and several_slots(rule, value, depth + 1)
    if isinstance(index, cst.Call) and rule.matches(index.func, INDEX_ARRAYS) and index.args:
        index = index.args[0].value
    return isinstance(index, (cst.List, cst.Tuple)) and len(index.elements) > 1


def index_elements(elements) -> list:
    """The elements of an index as Python reads them: ``x[(i, j)]`` is ``x[i, j]``, and a last
    ``...`` after others is left out (the full slices it stands for)."""
    elements = list(elements)
    if len(elements) == 1 and isinstance(elements[0].slice, cst.Index) and not isinstance(elements[0].comma, cst.Comma):
        packed = elements[0].slice.value
        if isinstance(packed, cst.Tuple) and packed.elements and not any(
            isinstance(e, cst.StarredElement) for e in packed.elements
        ):
            elements = [cst.SubscriptElement(cst.Index(e.value)) for e in packed.elements]
    last = elements[-1].slice if elements else None
    if len(elements) > 1 and isinstance(last, cst.Index) and isinstance(last.value, cst.Ellipsis):
        return elements[:-1]
    return elements


SHAPE_KEEPING = frozenset({f"{JNP}.flip", f"{JNP}.roll", f"{JNP}.flipud", f"{JNP}.negative", f"{JNP}.conj"})
"""Calls whose result has their first argument's shape: a block of rows stays a block."""


def block_of_rows(rule, update: cst.BaseExpression, axis: int | None) -> bool:
    """Whether a ``dynamic_update_slice`` writes a block thicker than one slot along ``axis``:
    its update is (a name bound just before to, a flip of) a ``lax.dynamic_slice_in_dim`` of a
    literal size above 1 there (``jnp.flip(lax.dynamic_slice_in_dim(x, i, 2))``, a swap of two
    neighbours): several slots a step, not a row."""
    if isinstance(update, cst.Name):
        reaching = rule.semantics.reaching_value(update)
        update = reaching[1] if reaching is not None and reaching[0] == () else update
    while isinstance(update, cst.Call) and update.args and rule.matches(update.func, SHAPE_KEEPING):
        update = update.args[0].value
    if not (isinstance(update, cst.Call) and rule.matches(update.func, {f"{LAX}.dynamic_slice_in_dim"})):
        return False
    given = _by_parameter(update, ROW_READERS[f"{LAX}.dynamic_slice_in_dim"])
    if given is None or "slice_size" not in given:
        return False
    along = 0 if given.get("axis") is None else int_value(given["axis"])
    return along == axis and (int_value(given["slice_size"]) or 0) > 1


def declared_fields(cls: cst.ClassDef) -> list[str]:
    """The fields a record class declares, in order: its annotated names (``seq: jax.Array``)."""
    return [
        small.target.value for line in cls.body.body if isinstance(line, cst.SimpleStatementLine)
        for small in line.body if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)
    ]
