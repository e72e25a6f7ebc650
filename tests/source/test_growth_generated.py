"""Generated growth loops: the fixed program computes what the original computes.

Hypothesis writes loops that grow an array with every growth function, appending or
prepending, conditionally or not, for 0 to 3 steps, with pieces whose dtype differs from the
accumulator's. ``autota fix`` must offer a fix, and running both programs under real JAX must
give the same value, shape and dtype (the empty loop included: it leaves the array untouched).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from autota.catalogue import RULES
from autota.source import fix

F = 3
# function call template -> (initial accumulator, piece expression)
SHAPES = {
    "jnp.concatenate([{a}], axis=0)": ("jnp.zeros((0, F), {acc})", "jnp.full((1, F), t, {piece})"),
    "jnp.concatenate(({a}), 1)": ("jnp.zeros((F, 0), {acc})", "jnp.full((F, 2), t, {piece})"),
    "jnp.append({a})": ("jnp.zeros((0,), {acc})", "jnp.full((F,), t, {piece})"),
    "jnp.append({a}, axis=0)": ("jnp.zeros((0, F), {acc})", "jnp.full((1, F), t, {piece})"),
    "jnp.vstack([{a}])": ("jnp.zeros((F,), {acc})", "jnp.full((F,), t, {piece})"),
    "jnp.hstack([{a}])": ("jnp.zeros((0,), {acc})", "jnp.full((2,), t, {piece})"),
    "jnp.dstack([{a}])": ("jnp.zeros((F,), {acc})", "jnp.full((F,), t, {piece})"),
    "jnp.column_stack([{a}])": ("jnp.zeros((F, 0), {acc})", "jnp.full((F,), t, {piece})"),
}
DTYPES = ["jnp.float32", "jnp.int32", "jnp.bfloat16", "jnp.int8"]


@st.composite
def programs(draw):
    call = draw(st.sampled_from(sorted(SHAPES)))
    acc_dtype, piece_dtype = draw(st.sampled_from(DTYPES)), draw(st.sampled_from(DTYPES))
    init, piece = (s.format(acc=acc_dtype, piece=piece_dtype) for s in SHAPES[call])
    prepend = draw(st.booleans()) and "append" not in call
    args = f"{piece}, acc" if prepend else f"acc, {piece}"
    grow = [f"acc = {call.format(a=args)}"]
    if draw(st.booleans()):
        grow = ["if t % 2 == 0:", f"    {grow[0]}"]
    loop = draw(st.sampled_from(["for t in range(n):", "for t in [i * 1.5 for i in range(n)]:"]))
    lines = [
        "import jax.numpy as jnp",
        "",
        f"F = {F}",
        "",
        "",
        "def run(n):",
        f"    acc = {init}",
        f"    {loop}",
        *(f"        {line}" for line in grow),
        "    return acc",
    ]
    return "\n".join(lines) + "\n", draw(st.integers(0, 3))


def _run(source: str, n: int):
    namespace: dict = {}
    exec(compile(source, "<generated>", "exec"), namespace)
    return np.asarray(namespace["run"](n))


@settings(max_examples=40, deadline=None)
@given(programs())
def test_fix_preserves_value_shape_and_dtype(program):
    source, n = program
    result = fix(source.encode(), "generated.py", frozenset(RULES))
    assert result.fixed_text is not None, f"no fix offered for:\n{source}"
    fixed = result.fixed_text.decode()
    before, after = _run(source, n), _run(fixed, n)
    assert (before.shape, before.dtype) == (after.shape, after.dtype), fixed
    np.testing.assert_array_equal(before, after, err_msg=fixed)
    assert jnp.result_type(before) == jnp.result_type(after)
