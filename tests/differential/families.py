"""Program families, by rule: hypothesis strategies that write small loop programs autota fixes.

Each family is a pattern one rule fixes (growth by concatenation, ``.at[].set`` in an eager loop,
a buffer carried through ``fori_loop``/``scan``, a ``while_loop`` with a counter, a masked write,
a Python loop under ``jit``) with twists drawn along the dimensions of issue 12: dtypes (int8,
uint8, bool, bfloat16, float16, complex, weak types), Python scalars against arrays against
NumPy, tuple and NamedTuple rows, exceptions and try blocks, zero- and one-trip loops, offsets,
reverse, nested loops, closures, class bodies, and names that clash with the fix's own names.
A program records its twists, so that a change is reported by class.

To point the generator at another rule, add a strategy to :data:`FAMILIES` under its code.
"""

from __future__ import annotations

from hypothesis import strategies as st

from tests.differential.harness import Program

HEADER = """\
import contextlib
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


class Pair(NamedTuple):
    a: float
    b: float
"""

JNP_DTYPES = ["float32", "int32", "int8", "uint8", "bool", "bfloat16", "float16", "complex64"]
# the names fixes introduce, or that their templates use, and ordinary ones
ACC_NAMES = ["acc", "acc", "acc", "p", "v", "i", "_", "parts", "acc_parts", "rows", "buf_rows"]
LOOP_VARS = ["t", "t", "t", "i", "v", "p", "_"]


def _chooser(draw, dimensions):
    """``pick(dimension, options)``: a draw, except that most programs vary one dimension only.

    With a focus drawn (half the programs), every other dimension takes its first (plain) option,
    so that a change in such a program belongs to one class; without one, all vary at once.
    """
    focus = draw(st.sampled_from([*[None] * len(dimensions), *dimensions]))

    def pick(dimension, options):
        if focus is not None and dimension != focus:
            return options[0]
        return draw(st.sampled_from(list(options)))

    return pick


def _indent(lines, by="    "):
    return [by + line if line else line for line in lines]


def _module(*blocks) -> str:
    return "\n\n\n".join([HEADER.rstrip("\n"), *("\n".join(b) for b in blocks)]) + "\n"


# -- AT101: growth by concatenation in a Python loop -------------------------------------------
# call template -> (initial accumulator, array piece, scalar-capable)
GROWTHS = {
    "jnp.concatenate([{a}], axis=0)": ("jnp.zeros(({n0}, 2), {d})", "jnp.full((1, 2), {v}, {d})", False),
    "jnp.concatenate(({a}), 0)": ("jnp.zeros(({n0}, 2), {d})", "jnp.full((1, 2), {v}, {d})", False),
    "jnp.append({a})": ("jnp.zeros(({n0},), {d})", "jnp.full((2,), {v}, {d})", True),
    "jnp.append({a}, axis=0)": ("jnp.zeros(({n0}, 2), {d})", "jnp.full((1, 2), {v}, {d})", False),
    "jnp.vstack([{a}])": ("jnp.zeros(({n0}, 2), {d})", "jnp.full((2,), {v}, {d})", False),
    "jnp.hstack([{a}])": ("jnp.zeros(({n0},), {d})", "jnp.full((2,), {v}, {d})", True),
    "lax.concatenate([{a}], 0)": ("jnp.zeros(({n0}, 2), {d})", "jnp.full((1, 2), {v}, {d})", False),
}


@st.composite
def concat_growth(draw) -> Program:
    twists = []
    call = draw(st.sampled_from(sorted(GROWTHS)))
    init_t, piece_t, scalar_ok = GROWTHS[call]
    pick = _chooser(draw, ["name", "init", "piece", "axis", "context"])
    acc_d = pick("piece", JNP_DTYPES)
    piece_d = pick("piece", [acc_d, *JNP_DTYPES])
    acc = pick("name", ACC_NAMES)
    var = pick("name", [v for v in LOOP_VARS if v != acc])
    if acc != "acc" or var != "t":
        twists.append("name-clash")
    n0 = draw(st.sampled_from([0, 1]))
    init = init_t.format(n0=n0, d=f"jnp.{acc_d}")
    init_kind = pick("init", ["jnp", "numpy", "weak"])
    if init_kind == "numpy":
        init = init.replace("jnp.zeros", "np.zeros").replace("jnp.", "np.") if acc_d not in ("bfloat16",) else init
        twists.append("numpy-accumulator")
    elif init_kind == "weak" and acc_d in ("float32", "int32", "bool", "complex64"):
        init = f"jnp.full({init.split('(', 1)[1].split('), ')[0]}), {'0.0' if acc_d == 'float32' else '0' if acc_d == 'int32' else 'False' if acc_d == 'bool' else '0j'})"
        twists.append("weak-accumulator")
    value = pick("piece", [var, f"{var} * 1.5", f"{var} * 37 - 100", f"{var} + 0.001"])
    piece_kind = pick("piece", ["jnp", "numpy", "scalar", "mixed", "arg", "scratch"])
    if piece_kind in ("scalar", "mixed") and not scalar_ok:
        piece_kind = "jnp"
    piece = piece_t.format(v=value, d=f"jnp.{piece_d}")
    if piece_d in ("bfloat16", "float16"):
        twists.append(f"{piece_d}-pieces")
    if acc_d != piece_d:
        twists.append("mixed-dtypes")
    if piece_kind == "numpy" and piece_d != "bfloat16":
        piece = piece.replace("jnp.full", "np.full").replace("jnp.", "np.")
        twists.append("numpy-piece")
    elif piece_kind == "scratch":
        scratch_shape = "(1, 2)" if "(1, 2)" in piece_t else "(2,)"
        piece = "scratch"
        twists.append("numpy-scratch-piece")
    elif piece_kind == "scalar":
        piece = value
        twists.append("python-scalar-piece")
    elif piece_kind == "mixed":
        piece = f"({value} if {var} % 2 else {piece})"
        twists.append("python-scalar-and-array-pieces")
    elif piece_kind == "arg":
        piece = piece_t.split("jnp.full")[0] + f"(x[:2] * {value}).reshape({piece_t.split('((', 1)[1].split(')')[0]})"
        piece = piece.replace("reshape(1, 2", "reshape((1, 2)").replace("reshape(2,", "reshape((2,)")
        piece = f"(x[:2] * {value}).reshape({'(1, 2)' if '(1, 2)' in piece_t else '(2,)'})"
        twists.append("argument-piece")
    prepend = draw(st.booleans()) and "append" not in call
    if prepend:
        twists.append("prepend")
    args = f"{piece}, {acc}" if prepend else f"{acc}, {piece}"
    extra = draw(st.booleans()) and not prepend and "append" not in call
    if extra:
        args = f"{args}, {piece}"
        twists.append("two-pieces")
    axis_rebound = "axis=0" in call and pick("axis", [False, True])
    grow_call = call.format(a=args)
    if axis_rebound:
        grow_call = grow_call.replace("axis=0", "axis=ax")
        twists.append("axis-rebound")
    grow = [f"{acc} = {grow_call}"]
    if draw(st.booleans()):
        grow = [f"if {var} % 2 == 0:", *_indent(grow)]
        twists.append("conditional")
    # a literal count above the few steps AT101 leaves alone (`range(4)` or fewer costs a fixed
    # amount); the zero- and one-step loops come from the calls' `n`
    trips = draw(st.sampled_from(["n", "n", "6"]))
    iterator = draw(st.sampled_from([f"range({trips})", f"range(1, {trips})", f"reversed(range({trips}))", f"range(0, {trips}, 2)"]))
    if "reversed" in iterator:
        twists.append("reverse")
    if iterator.startswith("range(1"):
        twists.append("offset")
    body = []
    before, after = [], []
    returns = acc
    twist = pick("context", ["none", "raise-caught", "stop-iteration", "suppress", "closure", "locals", "nested", "class-body", "finally-reads"])
    if axis_rebound:
        before.append("ax = 0")
        body.append(draw(st.sampled_from(["ax = 0", "ax = -1", f"ax = {var} % 2" if "(1, 2)" in piece_t else "ax = 0"])))
    loop_body = [*grow]
    if piece_kind == "scratch":
        before.append(f"scratch = np.zeros({scratch_shape}, np.float32)")
        loop_body.insert(0, f"scratch[...] = {value}")
    if twist == "raise-caught":
        loop_body.insert(0, f"if {var} == {draw(st.sampled_from([0, 1, 2]))}:")
        loop_body.insert(1, "    raise ValueError('stop')")
        if draw(st.booleans()):
            loop_body = [*grow, f"if {var} == 1:", "    raise ValueError('stop')"]
    if twist == "stop-iteration":
        before.append("it = iter(range(2))")
        loop_body.insert(0, "next(it)")
    if twist == "closure":
        before += ["seen = []", "", "def peek():", f"    return {acc}.shape[0]", ""]
        loop_body.insert(draw(st.sampled_from([0, len(loop_body)])), "seen.append(peek())")
        returns = f"{acc}, seen"
    if twist == "locals":
        before.append("seen = []")
        loop_body.append(f"seen.append(locals()['{acc}'].shape[0])")
        returns = f"{acc}, seen"
    loop = [f"for {var} in {iterator}:", *_indent(body + loop_body)]
    if twist == "nested":
        outer = draw(st.sampled_from(["outer", "inner"]))
        if outer == "outer":
            loop = ["for k in range(2):", *_indent(loop)]
        else:
            loop = [f"for {var} in {iterator}:", *_indent([*body, "for k in range(2):", *_indent(loop_body)])]
    if twist in ("raise-caught", "stop-iteration"):
        caught = "ValueError" if twist == "raise-caught" else "StopIteration"
        loop = ["try:", *_indent(loop), f"except {caught}:", "    pass"]
    if twist == "suppress":
        loop_body.insert(0, f"if {var} == 1:")
        loop_body.insert(1, "    raise ValueError('stop')")
        loop = ["with contextlib.suppress(ValueError):", *_indent([f"for {var} in {iterator}:", *_indent(body + loop_body)])]
    if twist == "finally-reads":
        loop_body.insert(0, f"if {var} == 1:")
        loop_body.insert(1, "    raise ValueError('stop')")
        before.append("sizes = []")
        inner = [f"for {var} in {iterator}:", *_indent(body + loop_body)]
        loop = ["try:", *_indent(["try:", *_indent(inner), "finally:", f"    sizes.append({acc}.shape)"]), "except ValueError:", "    pass"]
        returns = f"{acc}, sizes"
    if twist != "none":
        twists.append(twist)
    if twist == "class-body":
        fixed_trips = trips if trips != "n" else "6"
        cls_loop = [line.replace(f"range({trips})", f"range({fixed_trips})") for line in loop]
        cls = ["class Holder:", *_indent(["x = jnp.arange(4.0)", *before, f"{acc} = {init}", *cls_loop])]
        run = ["def run(n, x):", f"    return Holder.{acc}" if acc != "_" else "    return Holder._"]
        if acc.startswith("__"):
            run = ["def run(n, x):", "    return None"]
        source = _module(cls, run)
    else:
        func = ["def run(n, x):", *_indent([f"{acc} = {init}", *before, *loop])]
        func.append(f"    return {returns}")
        source = _module(func)
    calls = tuple(("run", f"({n}, jnp.arange(4.0) - 1.5)") for n in draw(st.sampled_from([(0, 1, 3), (3,), (2, 5)])))
    return Program("AT101", "concat-growth", tuple(twists), source, calls)


# -- AT102: ``.at[].set`` in an eager Python loop ----------------------------------------------
ROWS = {
    "python-int": "{v}",
    "python-int-large": "{v} * 100 + 200",
    "python-int-negative": "{v} - 24",
    "python-int-huge": "2 ** 31 + {v}",
    "python-float": "{v} * 1.5",
    "python-complex": "(1 + 2j) * {v}",
    "python-bool": "{v} % 2 == 0",
    "numpy-row": "np.full(({F},), {v}, np.int64)",
    "numpy-scalar": "np.float64({v}) / 3",
    "jnp-row": "jnp.full(({F},), {v}, jnp.{d})",
    "jnp-scalar": "jnp.asarray({v}, jnp.{d})",
    "argument-row": "x[:{F}] * {v}",
    "tuple-row": "({v}, {v} + 1)",
    "namedtuple-row": "Pair({v}, {v} * 0.5)",
    "weak-array-row": "jnp.asarray({v}) * 1000",
    "hidden-huge-int": "int('3000000000') + {v}",
}


@st.composite
def eager_update(draw) -> Program:
    twists = []
    pick = _chooser(draw, ["name", "row", "init", "context"])
    buf = pick("name", ["buf", *ACC_NAMES])
    var = pick("name", [v for v in LOOP_VARS if v != buf])
    if buf not in ("acc", "buf") or var != "t":
        twists.append("name-clash")
    d = pick("row", JNP_DTYPES)
    F = draw(st.sampled_from([1, 2, 3]))
    row_kind = pick("row", ["argument-row", *sorted(set(ROWS) - {"argument-row"})])
    if row_kind in ("tuple-row", "namedtuple-row"):
        F = 2
    row = ROWS[row_kind].format(v=var, F=F, d=pick("row", JNP_DTYPES))
    twists.append(row_kind)
    # sizes of no, one or four rows spelled through `n`: a visibly constant few rows is no finding
    size = draw(st.sampled_from(["n + 2", "n", "n + 2", "0 * n", "1 + 0 * n", "4 + 0 * n"]))
    rank = draw(st.sampled_from(["vector", "matrix"]))
    shape = f"({size},)" if rank == "vector" else f"({size}, {F})"
    if rank == "vector" and row_kind in ("numpy-row", "jnp-row", "argument-row", "tuple-row", "namedtuple-row"):
        shape = f"({size}, {F})"
    init = pick("init", [
        f"jnp.zeros({shape}, jnp.{d})", f"jnp.full({shape}, 0)", f"jnp.full({shape}, 0.0)", f"jnp.zeros({shape}, jnp.uint32)"
    ])
    if "full" in init:
        twists.append("weak-buffer")
    elif "uint32" in init:
        twists.append("uint32-buffer")
    else:
        twists.append(f"{d}-buffer")
    start, stop, step = draw(st.sampled_from(["", "1, "])), draw(st.sampled_from(["n", "n", "6"])), draw(st.sampled_from(["", ", 2"]))
    iterator = f"range({start}{stop}{step})"
    offset = draw(st.sampled_from(["", "", " + 1", " + 2"]))
    if offset or start:
        twists.append("offset")
    write = [f"{buf} = {buf}.at[{var}{offset}].set({row})"]
    if draw(st.integers(0, 3)) == 0:
        write = [f"if {var} % 2 == 1:", *_indent(write)]
        twists.append("conditional")
    before, returns = [], buf
    twist = pick("context", ["none", "try-index-error", "raise-caught", "closure", "nested", "class-body", "suppress"])
    body = list(write)
    if twist == "raise-caught":
        body = [*write, f"if {var} == 1:", "    raise ValueError('stop')"]
    if twist == "closure":
        before = ["seen = []", "", "def peek():", f"    return {buf}.sum()", ""]
        body.append("seen.append(peek())")
        returns = f"{buf}, seen"
    loop = [f"for {var} in {iterator}:", *_indent(body)]
    if twist == "nested":
        loop = [f"for {var} in {iterator}:", *_indent(["for k in range(2):", "    pass", *body])]
    if twist == "try-index-error":
        loop = ["try:", *_indent(loop), "except IndexError:", f"    {buf} = {buf} + 1" if draw(st.booleans()) else "    pass"]
    if twist == "raise-caught":
        loop = ["try:", *_indent(loop), "except ValueError:", "    pass"]
    if twist == "suppress":
        loop = ["with contextlib.suppress(IndexError, ValueError):", *_indent(loop)]
    if twist != "none":
        twists.append(twist)
    if twist == "class-body":
        fixed = [line.replace("range(n", "range(6").replace("(n + 2", "(8").replace("(n,", "(6,").replace(", n)", ", 6)") for line in loop]
        init_c = init.replace("n + 2", "8").replace("0 * n", "0 * 6").replace("(n,", "(6,").replace("(n)", "(6)")
        cls = ["class Holder:", *_indent(["x = jnp.arange(4.0)", f"{buf} = {init_c}", *fixed])]
        source = _module(cls, ["def run(n, x):", f"    return Holder.{buf}"])
    else:
        source = _module(["def run(n, x):", *_indent([f"{buf} = {init}", *before, *loop, f"return {returns}"])])
    calls = tuple(("run", f"({n}, jnp.arange(4.0) - 1.5)") for n in draw(st.sampled_from([(0, 1, 3), (3,), (2, 5)])))
    return Program("AT102", "eager-at-set", tuple(twists), source, calls)


# -- AT201: a buffer carried through fori_loop / scan, written once a step ----------------------
AT2_ROWS = {
    "array-row": "h",
    "scaled-row": "h * 2",
    "tuple-row": "(h[0], h[1])",
    "python-int-row": "big",
    "python-float-row": "1.5",
    "numpy-row": "np.arange(2)",
    "input-row": "xs[i]",
}


@st.composite
def carried_buffer(draw) -> Program:
    twists = []
    d = draw(st.sampled_from(JNP_DTYPES))
    row = draw(st.sampled_from(sorted(AT2_ROWS)))
    twists.append(row)
    twists.append(f"{d}-buffer")
    bound = draw(st.sampled_from(["xs.shape[0]", "xs.shape[0]", "len(xs)", "T8", "lst_len", "xs.size // 2"]))
    if bound != "xs.shape[0]":
        twists.append(f"bound:{bound}")
    size = draw(st.sampled_from(["T", "T", "T + 1", "0"]))
    if size != "T":
        twists.append(f"buffer-size:{size}")
    big = draw(st.sampled_from(["3", "2 ** 31 + 7", "-1", "300"]))
    style = draw(st.sampled_from(["fori-pair", "fori-single", "scan"]))
    twists.append(style)
    body_name = draw(st.sampled_from(["body", "body", "_", "step"]))
    if body_name == "_":
        twists.append("callee-named-_")
    write = draw(st.sampled_from(["at", "at", "dus"]))
    if write == "dus":
        twists.append("dynamic-update-slice")
    method = draw(st.sampled_from(["set", "set", "add"])) if write == "at" else "set"
    if method != "set":
        twists.append(f"at-{method}")
    fill = draw(st.sampled_from(["zeros", "zeros", "full", "weak", "numpy"]))
    if fill != "zeros":
        twists.append(f"{fill}-buffer")
    initial = {
        "zeros": f"jnp.zeros(({size}, 2), jnp.{d})",
        "full": f"jnp.full(({size}, 2), 3, jnp.{d})",
        "weak": f"jnp.full(({size}, 2), 0.1)",
        "numpy": "start",  # bound before the loop: the fix reads it again
    }[fill]
    row_code = AT2_ROWS[row]
    if write == "at":
        store = f"buf = buf.at[i].{method}({row_code})"
    else:
        store = f"buf = lax.dynamic_update_slice(buf, jnp.reshape(jnp.asarray({row_code}, buf.dtype), (1, 2)), (i, 0))"
    pre = [f"big = {big}", "T = xs.shape[0]", "T8 = np.int8(xs.shape[0])", "lst = [0] * xs.shape[0]", "lst_len = len(lst)"]
    if fill == "numpy":
        pre.append(f"start = np.full(({size}, 2), 0.5, np.{d if d != 'bfloat16' else 'float32'})")
    if style == "fori-pair":
        body = [f"def {body_name}(i, carry):", "    h, buf = carry", "    h = h * 0.5 + xs[i]", f"    {store}", "    return h, buf"]
        call = [f"h, buf = lax.fori_loop(0, {bound}, {body_name}, (jnp.zeros(2), {initial}))", "return h, buf"]
    elif style == "fori-single":
        store = store.replace("(h[0], h[1])", "(xs[i][0], xs[i][1])").replace("h * 2", "xs[i] * 2")
        store = store.replace(f"{method}(h)", f"{method}(xs[i])")
        body = [f"def {body_name}(i, buf):", f"    {store}", "    return buf"]
        call = [f"buf = lax.fori_loop(0, {bound}, {body_name}, {initial})", "return buf"]
    else:
        body = [f"def {body_name}(carry, x):", "    h, buf, i = carry", "    h = h * 0.5 + x", f"    {store}", "    return (h, buf, i + 1), h.sum()"]
        call = [f"(h, buf, _i), sums = lax.scan({body_name}, (jnp.zeros(2), {initial}, 0), xs)", "return h, buf, sums"]
    source = _module(["def run(xs):", *_indent([*pre, *body, *call])])
    calls = tuple(("run", f"(jnp.arange({2 * n}.0).reshape({n}, 2) - 1.5,)") for n in draw(st.sampled_from([(0, 1, 3), (3,), (2,)])))
    return Program("AT201", "carried-buffer", tuple(twists), source, calls)


# -- AT202: a while_loop with a counter, rewritten to fori_loop ---------------------------------
@st.composite
def counted_while(draw) -> Program:
    twists = []
    d = draw(st.sampled_from(JNP_DTYPES))
    twists.append(f"{d}-buffer")
    bound = draw(st.sampled_from(["T", "T", "x.size", "x.shape[0] * 1.0", "T8"]))
    if bound != "T":
        twists.append(f"bound:{bound}")
    start = draw(st.sampled_from(["0", "0", "1", "jnp.int8(0)", "np.int8(0)"]))
    if start != "0":
        twists.append(f"start:{start}")
    cond_name, body_name = draw(st.sampled_from([("cond", "body"), ("_", "body"), ("cond", "_"), ("c", "b")]))
    if "_" in (cond_name, body_name):
        twists.append("callee-named-_")
    method = draw(st.sampled_from(["set", "set", "add"]))
    if method != "set":
        twists.append(f"at-{method}")
    fill = draw(st.sampled_from(["jnp.zeros(x.shape, jnp.{d})", "jnp.zeros(x.shape, jnp.{d})", "jnp.full(x.shape, 0.3)"]))
    if fill.startswith("jnp.full"):
        twists.append("weak-buffer")
    cond = [f"def {cond_name}(c):", "    i, h, buf = c", f"    return i < {bound}"]
    body = [f"def {body_name}(c):", "    i, h, buf = c", "    h = 0.5 * h + jnp.sin(x[i])", f"    buf = buf.at[i].{method}(h)", "    return i + 1, h, buf"]
    if cond_name == body_name:
        body[0] = body[0].replace(f"def {body_name}", "def bb")
        body_name = "bb"
    call = [f"_i, h, buf = lax.while_loop({cond_name}, {body_name}, ({start}, jnp.zeros(x.shape[1:]), {fill.format(d=d)}))", "return h, buf"]
    source = _module(["def run(x):", *_indent(["T = x.shape[0]", "T8 = np.int8(x.shape[0])", *cond, *body, *call])])
    calls = tuple(("run", f"(jnp.arange({2 * n}.0).reshape({n}, 2) - 1.5,)") for n in draw(st.sampled_from([(0, 1, 3), (3,), (2,)])))
    return Program("AT202", "counted-while", tuple(twists), source, calls, unsafe=True)  # (its one assumption: no `grad`)


# -- AT204: a masked write, rewritten to a write of the selected row ----------------------------
@st.composite
def masked_write(draw) -> Program:
    twists = []
    d = draw(st.sampled_from(JNP_DTYPES + ["uint32"]))
    twists.append(f"{d}-buffer")
    pred = draw(st.sampled_from(["i % 2 == 0", "i % 2 == 0", "xs[i] > 0", "xs[i, 0] > 0", "sizes[i] > 1"]))
    if pred != "i % 2 == 0":
        twists.append(f"predicate:{pred}")
    index = draw(st.sampled_from(["i", "i", "(j := i)"]))
    if index != "i":
        twists.append("walrus-index")
    row = draw(st.sampled_from(["xs[i]", "xs[i] * 3", "7", "-1", "2 ** 32 - 1", "1.5", "buf[i - 1]", "0"]))
    twists.append(f"row:{row}")
    body = ["def step(i, buf):", f"    buf = jnp.where({pred}, buf.at[{index}].set({row}), buf)", "    return buf"]
    call = [f"return lax.fori_loop(0, xs.shape[0], step, jnp.zeros(xs.shape, jnp.{d}))"]
    source = _module(["def run(xs):", *_indent(["sizes = jnp.arange(xs.shape[0], dtype=jnp.int8) * 60", *body, *call])])
    calls = tuple(("run", f"(jnp.arange({2 * n}.0).reshape({n}, 2) - 1.5,)") for n in draw(st.sampled_from([(0, 1, 3), (3,), (2,)])))
    return Program("AT204", "masked-write", tuple(twists), source, calls)


# -- AT401 (unsafe): a Python loop under jit, rewritten to lax.scan -----------------------------
@st.composite
def unrolled_loop(draw) -> Program:
    twists = []
    d = draw(st.sampled_from(["float32", "float16", "bfloat16", "int8", "int32", "complex64"]))
    twists.append(f"{d}-carry")
    # a literal count above the few steps AT401 leaves unrolled; zero and one steps come from
    # `x.shape[0] - 3` with three and four rows
    trips = draw(st.sampled_from(["6", "x.shape[0] - 3", "x.shape[0]", "x.shape[0] + 2"]))
    twists.append(f"trips:{trips}")
    index_use = draw(st.sampled_from(["none", "index-row", "weak-index", "index-offset"]))
    twists.append(index_use)
    step = {
        "none": "h = h * 2 + 1",
        "index-row": "h = h + x[t].astype(h.dtype)",
        "weak-index": "h = h + t",
        "index-offset": "h = h + x[t + 2].astype(h.dtype)",
    }[index_use]
    twist = draw(st.sampled_from(["none", "none", "closure", "python-number", "start-step"]))
    twists.append(twist)
    before, body, extra_ret = [], [step], ""
    iterator = f"range({trips})"
    if twist == "closure":
        before = ["def peek():", "    return h", ""]
        body.append("acc = acc + peek()")
    else:
        body.append("acc = acc + h")
    if twist == "python-number":
        before.append("k = 0")
        body.append("k = k + 1")
        extra_ret = ", k"
    if twist == "start-step":
        iterator = f"range(1, {trips}, 2)"
    func = [
        "@jax.jit",
        "def run(x, h):",
        *_indent([f"h = h.astype(jnp.{d})", "acc = jnp.zeros_like(h)", *before, f"for t in {iterator}:", *_indent(body), f"return h, acc{extra_ret}"]),
    ]
    source = _module(func)
    calls = tuple(("run", f"(jnp.arange({n}.0) * 0.5, jnp.ones(2))") for n in draw(st.sampled_from([(0, 3), (3,), (4,)])))
    return Program("AT401", "unrolled-loop", tuple(twists), source, calls, unsafe=True)


FAMILIES = {
    "AT101": [concat_growth()],
    "AT102": [eager_update()],
    "AT201": [carried_buffer()],
    "AT202": [counted_while()],
    "AT204": [masked_write()],
    "AT401": [unrolled_loop()],
}
