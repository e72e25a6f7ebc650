"""Safe fixes of the fixture pairs, run under real JAX.

A fixture ``<name>.in.py`` that defines ``examples()`` (function name -> argument tuples) is run
before and after its safe fix (``<name>.out.py``; the unsafe one of a rule of :data:`FORWARD_ONLY`): every function gives the same outputs
(structure, shapes, dtypes, values) and the same gradients with respect to its inexact array
arguments (unless the fixture lists the function in ``NO_GRAD``: a ``while_loop`` cannot be
reverse-differentiated). Where the original raises, the fixed code must raise the same
exception type (an error that becomes a value is a change). Functions the fix leaves alone are compared too, which costs little and catches a
fix that reaches into the wrong function.
"""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from tests.equivalence import assert_same_tree, load_module, outcome, scalar_loss

FORWARD_ONLY = ("AT202",)
"""Rules whose unsafe fix computes the same forward and differs only where the original raised
under reverse-mode autodiff (AT202: the `while_loop` raised, the `fori_loop` differentiates):
their ``.unsafe.py`` is run as a safe fix's is, the fixture's ``NO_GRAD`` functions undifferentiated."""


def _fixed(path: Path) -> Path | None:
    stem = path.name[: -len(".in.py")]
    for suffix in (".out.py", *((".unsafe.py",) if path.parent.name in FORWARD_ONLY else ())):
        if path.with_name(stem + suffix).exists():
            return path.with_name(stem + suffix)
    return None


FIXTURES = sorted(
    p for p in Path(__file__).parent.joinpath("fixtures").glob("*/*.in.py") if "def examples(" in p.read_text() and _fixed(p)
)


@pytest.mark.parametrize("path", FIXTURES, ids=[f"{p.parent.name}/{p.name[:-6]}" for p in FIXTURES])
def test_safe_fix_computes_the_same(path: Path):
    stem = f"autota_fixture_{path.parent.name}_{path.name[:-6]}"
    before = load_module(path, f"{stem}_in")
    after = load_module(_fixed(path), f"{stem}_out")
    no_grad = getattr(before, "NO_GRAD", ())
    for name, calls in before.examples().items():
        for args in calls:
            where = f"{path.parent.name}/{path.name} {name}{tuple(getattr(a, 'shape', a) for a in args)}"
            f, g = getattr(before, name), getattr(after, name)
            outcomes = [outcome(h, args) for h in (f, g)]
            if any(isinstance(o, BaseException) for o in outcomes):  # an error must stay that error
                assert [type(o) for o in outcomes] == [type(outcomes[0])] * 2, f"{where}: {outcomes}"
                continue
            assert_same_tree(*outcomes, f"{where} output")
            argnums = tuple(
                k for k, a in enumerate(args) if isinstance(a, jax.Array) and jnp.issubdtype(a.dtype, jnp.inexact)
            )
            if argnums and name not in no_grad:
                diff = [args[k] for k in argnums]
                grads = [jax.grad(scalar_loss(h, argnums, args), tuple(range(len(diff))))(*diff) for h in (f, g)]
                assert_same_tree(*grads, f"{where} grad")


X64_SUBNORMALS = '''\
import jax
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp
from jax import lax


def floats():
    def step(i, carry):
        h, buf = carry
        buf = buf.at[i].set(h)
        return h, buf

    h, buf = lax.fori_loop(0, 2, step, (jnp.float64(1.0), jnp.full(3, 1e-40, jnp.float32)))
    return buf


def _scaled(i, carry):  # a body of the module: the fix's row is the written value itself
    h, buf = carry
    h = h * 2.0
    buf = buf.at[i].set(h.astype(jnp.float64))
    return h, buf


def outer_body():
    init = jnp.array([0.0, 0.0, 1e-45], jnp.float32)
    h, buf = lax.fori_loop(0, 2, _scaled, (jnp.float32(1.0), init))
    return buf


def added():  # whether an `add`'s round trip in the loop flushes them depends on XLA: the fix keeps them
    init = jnp.array([1e-40, 0.0, 0.0], jnp.bfloat16)

    def step(i, carry):
        h, buf = carry
        h = h * 2.0
        buf = buf.at[i + 1].add(h.astype(jnp.float64))
        return h, buf

    return lax.fori_loop(0, 2, step, (jnp.float32(1.0), init))[1]


print(floats().tolist(), outer_body().tolist())
print(added().astype(jnp.float32).tolist())
'''


def test_rows_of_a_wider_float_keep_the_buffers_subnormals(tmp_path):
    """Review 67: float64 rows into a float32 buffer under x64. The loop takes the buffer through
    float64 and back each step, which changes no value; the fix's one write after the loop did it
    once, outside the loop, where XLA flushed the subnormals never written; so did rows of a
    body of the module, the written values themselves (review 68). Whether an `add`'s round trip
    in the loop flushes them depends on XLA (jax 0.10 does, 0.12 does not): the fix keeps them,
    as IEEE arithmetic does. (x64 is set for the whole process: the programs run in their own.)"""
    import subprocess
    import sys

    from autota.catalogue import RULES
    from autota.source import fix

    fixed = fix(X64_SUBNORMALS.encode(), "x64.py", frozenset(RULES)).fixed_text
    assert fixed is not None and fixed.count(b"lax.scan(") == 3
    outputs = []
    for name, text in (("before.py", X64_SUBNORMALS.encode()), ("after.py", fixed)):
        (tmp_path / name).write_bytes(text)
        run = subprocess.run([sys.executable, "-W", "ignore", str(tmp_path / name)], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        outputs.append(run.stdout)
    (same, loop_add), (fixed_same, fixed_add) = (o.splitlines() for o in outputs)
    assert same == fixed_same
    assert fixed_add == "[9.183549615799121e-41, 2.0, 4.0]" and loop_add in (fixed_add, "[0.0, 2.0, 4.0]")
    assert "1e-40" in outputs[0] or "9.99994610111476e-41" in outputs[0]
