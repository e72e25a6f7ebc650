"""What the CLI tests share: a file with one fixable AT101 finding, and running ``main``."""

from __future__ import annotations

from autota.cli.main import main

GROWTH = """import jax.numpy as jnp


def f(xs):
    out = jnp.zeros((0,))
    for x in xs:
        out = jnp.append(out, x)
    return out
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err
