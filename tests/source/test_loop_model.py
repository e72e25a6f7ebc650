"""The loop model sees programs, not spellings: the same carried buffer in many spellings gets the
same code; every rule gives the same findings with and without the prefilter's slicing."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from autota.catalogue import RULES
from autota.source import check, engine, fix
from autota.source.engine import _findings, _unsuppressed
from autota.source.rules import RULE_CLASSES

ALL = frozenset(RULES)
HEADER = (
    "import dataclasses\nimport functools\nfrom typing import NamedTuple\n\nimport jax\nimport jax.numpy as jnp\n"
    "from jax import lax\n\n\n"
)
SPELLINGS = {
    "statement": """
def f(xs, h0):
    def step(i, carry):
        h, buf = carry
        h = jnp.tanh(h + xs[i])
        buf = buf.at[i].set(h)
        return h, buf
    h, buf = lax.fori_loop(0, xs.shape[0], step, (h0, jnp.zeros_like(xs)))
    return buf
""",
    "in the return": """
def f(xs, h0):
    def step(i, carry):
        h, buf = carry
        h = jnp.tanh(h + xs[i])
        return h, buf.at[i].set(h)
    h, buf = lax.fori_loop(0, xs.shape[0], step, (h0, jnp.zeros_like(xs)))
    return buf
""",
    "another name": """
def f(xs, h0):
    def step(i, carry):
        h, buf = carry
        h = jnp.tanh(h + xs[i])
        new_buf = lax.dynamic_update_slice(buf, h[None], (i, 0))
        return h, new_buf
    return lax.fori_loop(0, xs.shape[0], step, (h0, jnp.zeros_like(xs)))[1]
""",
    "namedtuple": """
class State(NamedTuple):
    h: jax.Array
    buf: jax.Array


def f(xs, h0):
    def step(i, s):
        h = jnp.tanh(s.h + xs[i])
        return s._replace(h=h, buf=s.buf.at[i].set(h))
    return lax.fori_loop(0, xs.shape[0], step, State(h0, jnp.zeros_like(xs))).buf
""",
    "dataclass": """
@dataclasses.dataclass
class State:
    h: jax.Array
    buf: jax.Array


def f(xs, h0):
    def step(i, s):
        h = jnp.tanh(s.h + xs[i])
        return dataclasses.replace(s, h=h, buf=s.buf.at[i].set(h))
    return lax.fori_loop(0, xs.shape[0], step, State(h0, jnp.zeros_like(xs))).buf
""",
    "partial": """
def _step(xs, i, carry):
    h, buf = carry
    h = jnp.tanh(h + xs[i])
    return h, buf.at[i].set(h)


def f(xs, h0):
    return lax.fori_loop(0, xs.shape[0], functools.partial(_step, xs), (h0, jnp.zeros_like(xs)))[1]
""",
    "partial through a module alias": """
partial = functools.partial


def _step(xs, i, carry):
    h, buf = carry
    h = jnp.tanh(h + xs[i])
    return h, buf.at[i].set(h)


def f(xs, h0):
    return lax.fori_loop(0, xs.shape[0], partial(_step, xs), (h0, jnp.zeros_like(xs)))[1]
""",
    "method": """
class Model:
    def _step(self, i, carry):
        h, buf = carry
        h = jnp.tanh(h + self.xs[i])
        return h, buf.at[i].set(h)

    def f(self, h0):
        return lax.fori_loop(0, self.xs.shape[0], self._step, (h0, jnp.zeros_like(self.xs)))[1]
""",
    "helper write": """
def _write(buf, t, v):
    return buf.at[t].set(v)


def f(xs, h0):
    def step(i, carry):
        h, buf = carry
        h = jnp.tanh(h + xs[i])
        return h, _write(buf, i, h)
    return lax.fori_loop(0, xs.shape[0], step, (h0, jnp.zeros_like(xs)))[1]
""",
    "helper write bound as a lambda": """
_write = lambda buf, t, v: buf.at[t].set(v)


def f(xs, h0):
    def step(i, carry):
        h, buf = carry
        h = jnp.tanh(h + xs[i])
        return h, _write(buf, i, h)
    return lax.fori_loop(0, xs.shape[0], step, (h0, jnp.zeros_like(xs)))[1]
""",
    "imported under another name": """
from jax.lax import fori_loop as loop


def f(xs, h0):
    def step(i, carry):
        h, buf = carry
        h = jnp.tanh(h + xs[i])
        return h, buf.at[i].set(h)
    return loop(0, xs.shape[0], step, (h0, jnp.zeros_like(xs)))[1]
""",
    "indexed state": """
def f(xs, h0):
    def step(i, state):
        h = jnp.tanh(state[0] + xs[i])
        return h, state[1].at[i].set(h)
    return lax.fori_loop(0, xs.shape[0], step, (h0, jnp.zeros_like(xs)))[1]
""",
    "lambda": """
def f(xs, h0):
    return lax.fori_loop(0, xs.shape[0], lambda i, buf: buf.at[i].set(xs[i] * 2), jnp.zeros_like(xs))
""",
    "defined twice": """
def step(i, carry):
    return carry


def step(i, carry):
    h, buf = carry
    h = jnp.tanh(h + xs_global[i])
    return h, buf.at[i].set(h)


def f(xs, h0):
    return lax.fori_loop(0, xs.shape[0], step, (h0, jnp.zeros_like(xs)))[1]


xs_global = jnp.ones((3, 2))
""",
    "dict entry": """
def f(xs, h0):
    def step(i, carry):
        h, log = carry
        h = jnp.tanh(h + xs[i])
        log["h"] = log["h"].at[i].set(h)
        return h, log
    h, log = lax.fori_loop(0, xs.shape[0], step, (h0, {"h": jnp.zeros_like(xs)}))
    return log
""",
    "dict entry by a helper": """
def record(log, i, h):
    log["h"] = log["h"].at[i].set(h)
    return log


def f(xs, h0):
    def step(i, carry):
        h, log = carry
        h = jnp.tanh(h + xs[i])
        return h, record(log, i, h)
    h, log = lax.fori_loop(0, xs.shape[0], step, (h0, {"h": jnp.zeros_like(xs)}))
    return log
""",
    "dict entry by a helper given the key": """
def record(log, key, i, h):
    log[key] = log[key].at[i].set(h)
    return log


def f(xs, h0):
    def step(i, carry):
        h, log = carry
        h = jnp.tanh(h + xs[i])
        return h, record(log, "h", i, h)
    h, log = lax.fori_loop(0, xs.shape[0], step, (h0, {"h": jnp.zeros_like(xs)}))
    return log
""",
}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_spelling_is_the_same_finding(spelling):
    findings = check((HEADER + SPELLINGS[spelling]).encode(), "t.py", ALL).findings
    assert [f.code for f in findings] == ["AT201"], [f.text for f in findings]
    assert findings[0].fix is not None or findings[0].reason


EAGER_SPELLINGS = {
    "AT101": {
        "statement": """
def f(xs):
    out = jnp.zeros((0, 3))
    for x in xs:
        out = jnp.concatenate([out, x[None]])
    return out
""",
        "another name": """
def f(xs):
    out = jnp.zeros((0, 3))
    for x in xs:
        grown = jnp.concatenate([out, x[None]])
        out = grown
    return out
""",
        "a helper": """
def extend(acc, piece):
    return jnp.concatenate([acc, piece[None]])


def f(xs):
    out = jnp.zeros((0, 3))
    for x in xs:
        out = extend(out, x)
    return out
""",
        "a lambda helper": """
extend = lambda acc, piece: jnp.append(acc, piece[None], axis=0)


def f(xs):
    out = jnp.zeros((0, 3))
    for x in xs:
        out = extend(out, x)
    return out
""",
    },
    "AT102": {
        "statement": """
def f(xs, n):
    buf = jnp.zeros((n, 3))
    for i in range(n):
        buf = buf.at[i].set(xs[i])
    return buf
""",
        "another name": """
def f(xs, n):
    buf = jnp.zeros((n, 3))
    for i in range(n):
        new_buf = buf.at[i].set(xs[i])
        buf = new_buf
    return buf
""",
        "a helper": """
def put(b, i, v):
    \"\"\"One row.\"\"\"
    return b.at[i].set(v)


def f(xs, n):
    buf = jnp.zeros((n, 3))
    for i in range(n):
        buf = put(buf, i, xs[i])
    return buf
""",
        "a helper by keywords": """
def put(b, i, v):
    return lax.dynamic_update_slice(b, v[None], (i, 0))


def f(xs, n):
    buf = jnp.zeros((n, 3))
    for i in range(n):
        buf = put(v=xs[i], i=i, b=buf)
    return buf
""",
    },
}
EAGER_CASES = [(code, name) for code, group in EAGER_SPELLINGS.items() for name in group]


@pytest.mark.parametrize(("code", "spelling"), EAGER_CASES, ids=[f"{c}-{n}" for c, n in EAGER_CASES])
def test_every_spelling_of_an_eager_loop_is_the_same_finding(code, spelling):
    text = HEADER + EAGER_SPELLINGS[code][spelling]
    findings = check(text.encode(), "t.py", ALL).findings
    assert [f.code for f in findings] == [code], [f.text for f in findings]
    assert findings[0].fix is not None or findings[0].reason
    assert [f.code for f in _unsliced(text, "t.py")] == [code]


def test_eager_spellings_that_are_not_growth_are_not_reported():
    """A name made once before the loop and bound in it, and a helper writing one fixed slot
    (state, not rows), are no growth in any spelling."""
    text = HEADER + (
        "def put(b, i, v):\n"
        "    return b.at[i].set(v)\n\n\n"
        "def f(xs, n):\n"
        "    out = jnp.zeros((0, 3))\n"
        "    grown = jnp.concatenate([out, xs[:1]])\n"
        "    buf = jnp.zeros((4, 3))\n"
        "    for i in range(n):\n"
        "        out = grown\n"
        "        buf = put(buf, 0, xs[i])\n"
        "    return out, buf\n"
    )
    assert check(text.encode(), "t.py", ALL).findings == []


def test_a_body_defined_once_more_after_the_loop_is_not_the_one_it_runs():
    text = HEADER + (
        "def f(xs):\n"
        "    def step(i, buf):\n"
        "        return buf.at[i].set(xs[i])\n"
        "    out = lax.fori_loop(0, xs.shape[0], step, jnp.zeros_like(xs))\n"
        "    def step(i, buf):\n"
        "        return buf\n"
        "    return out, step\n"
    )
    assert [f.code for f in check(text.encode(), "t.py", ALL).findings] == ["AT201"]


def _unsliced(text: str, path: str) -> list:
    """Every rule over the whole module: no substring test, no prefilter, no slicing."""
    context = engine.run_rules(RULE_CLASSES, cst.parse_module(text), path, text, ALL)
    return sorted(context.findings, key=lambda f: (f.location.line, f.location.column, f.code))


ROOT = Path(__file__).parents[2]
SOURCES = sorted(
    [*ROOT.joinpath("tests", "source", "fixtures").glob("*/*.in.py"), *ROOT.joinpath("corpus").glob("**/*.py")]
)


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(ROOT)) for p in SOURCES])
def test_the_prefilter_loses_no_finding(path):
    text = path.read_text()
    if "autota: skip-file" in text:
        pytest.skip("skipped by its own comment")
    filtered = _findings(text, str(path), ALL)
    whole = _unsuppressed(_unsliced(text, str(path)), text)
    describe = lambda fs: [(f.location, f.code, f.message, f.reason) for f in fs]
    assert describe(filtered) == describe(whole)


def test_code_that_runs_traced_gets_no_eager_loop_finding():
    """A function called from a loop body, a `partial` body and a `vmap`ped function run traced;
    only the eager function is AT102."""
    text = Path(__file__).parent.joinpath("programs", "traced.py").read_bytes()
    findings = check(text, "t.py", frozenset({"AT102"})).findings
    assert [(f.code, f.location.line) for f in findings] == [("AT102", 45)]


def _outcome(function, args):
    import jax
    import numpy as np

    from tests.equivalence import outcome

    result = outcome(function, args)
    if isinstance(result, Exception):
        return "raise", type(result).__name__
    return "ok", [np.asarray(leaf) for leaf in jax.tree.leaves(result)]


def test_safe_fixes_keep_values_dtypes_exceptions_and_gradients(tmp_path):
    """Each program is fixed (safe fixes only) and run before and after under JAX: same values,
    shapes and dtypes, or the same exception; and the same gradients where it differentiates."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    source = Path(__file__).parent.joinpath("programs", "at2_safety.py")
    fixed = fix(source.read_bytes(), str(source), frozenset(c for c in RULES if c.startswith("AT2")))
    assert fixed.fixed_text is not None and fixed.fixes_applied == 2  # write_in_return, ret_fori
    target = tmp_path / "fixed.py"
    target.write_bytes(fixed.fixed_text)
    from tests.equivalence import load_module

    before, after = load_module(source, "at2_safety_before"), load_module(target, "at2_safety_after")
    xs = jnp.arange(1.0, 13.0).reshape(4, 3) / 7.0
    differentiable = {"write_in_return": (xs, xs[0]), "ret_fori": (xs, xs[0])}
    names = [n for n, f in vars(before).items() if callable(f) and getattr(f, "__module__", "") == before.__name__]
    names = [n for n in names if not n[0].isupper()]
    assert len(names) == 8
    for name in names:
        args = differentiable.get(name, (xs,))
        a, b = _outcome(getattr(before, name), args), _outcome(getattr(after, name), args)
        assert a[0] == b[0], name
        if a[0] == "raise":
            assert a[1] == b[1], name
            continue
        for u, v in zip(a[1], b[1], strict=True):
            assert u.dtype == v.dtype and u.shape == v.shape and np.array_equal(u, v), name
        if name in differentiable:
            loss = lambda f: lambda *z: sum(jnp.sum(leaf) for leaf in jax.tree.leaves(f(*z)))
            grads = [jax.grad(loss(getattr(m, name)), (0, 1))(*args) for m in (before, after)]
            for u, v in zip(jax.tree.leaves(grads[0]), jax.tree.leaves(grads[1]), strict=True):
                assert np.allclose(u, v), name
