"""Loop-buffer rules (AT201-AT204, AT301, AT401): messages name the failed precondition,
aliases resolve by qualified name, and unsafe fixes stay out of plain `fix`."""

from __future__ import annotations

from autota.catalogue import RULES
from autota.source import check, fix

ALL = frozenset(RULES)


def _findings(text: str, enabled=ALL):
    return check(text.encode(), "t.py", enabled).findings


def test_dynamic_bound_is_unsafe_and_says_why():
    text = (
        "import jax.numpy as jnp\nfrom jax import lax\n\n\n"
        "def f(xs, n):\n"
        "    def body(i, buf):\n"
        "        buf = buf.at[i].set(xs[i])\n"
        "        return buf\n\n"
        "    buf = lax.fori_loop(0, n, body, jnp.zeros_like(xs))\n"
        "    return buf\n"
    )
    (finding,) = _findings(text)
    assert finding.code == "AT201"
    assert finding.fix is not None and finding.fix.applicability == "unsafe"
    assert "not provably static" in finding.reason
    assert fix(text.encode(), "t.py", ALL).fixed_text is None


def test_aliased_lax_module_and_jax_lax_spelling():
    for imports, name in (("import jax.lax as L\n", "L"), ("import jax\n", "jax.lax")):
        text = (
            f"import jax.numpy as jnp\n{imports}\n\n"
            "def f(xs):\n"
            "    def body(i, buf):\n"
            "        buf = buf.at[i].set(xs[i])\n"
            "        return buf\n\n"
            f"    buf = {name}.fori_loop(0, xs.shape[0], body, jnp.zeros_like(xs))\n"
            "    return buf\n"
        )
        (finding,) = _findings(text)
        assert finding.code == "AT201" and finding.fix.applicability == "safe"
        fixed = fix(text.encode(), "t.py", ALL).fixed_text.decode()
        assert f"{name}.scan(" in fixed


def test_no_jnp_import_means_no_fix():
    text = (
        "import jax\nfrom jax import lax\n\n\n"
        "def f(xs):\n"
        "    def body(i, buf):\n"
        "        buf = buf.at[i].set(xs[i])\n"
        "        return buf\n\n"
        "    buf = lax.fori_loop(0, xs.shape[0], body, xs)\n"
        "    return buf\n"
    )
    (finding,) = _findings(text.replace("import jax\n", ""))
    assert finding.fix is None and "`jax.numpy` is not imported" in finding.reason


def test_stacked_outputs_are_not_reported():
    text = (
        "import jax.numpy as jnp\nfrom jax import lax\n\n\n"
        "def f(xs, h0):\n"
        "    def cell(h, x):\n"
        "        h = jnp.tanh(h + x)\n"
        "        return h, h\n\n"
        "    return lax.scan(cell, h0, xs)\n"
    )
    assert _findings(text) == []


def test_reading_the_slot_being_overwritten_withholds_the_fix():
    text = (
        "import jax.numpy as jnp\nfrom jax import lax\n\n\n"
        "def f(xs):\n"
        "    def body(i, buf):\n"
        "        buf = buf.at[i].set(buf[i] + xs[i])\n"
        "        return buf\n\n"
        "    buf = lax.fori_loop(0, xs.shape[0], body, jnp.ones_like(xs))\n"
        "    return buf\n"
    )
    (finding,) = _findings(text)
    assert finding.code == "AT201" and finding.fix is None
    assert "reads the slot it overwrites" in finding.reason
