"""How ``autota check`` scales with the size of one file: the time must grow linearly.

    python benchmarks/large_file.py [N ...]      (default: 2000 6000 20000 functions)

Generates one module of N functions, a mix of the loop shapes the rules judge (a ``fori_loop``
carrying a buffer, a ``scan`` writing in its return, a ``while_loop``, a helper called from a
body, plain numeric code) and reports the seconds per thousand functions for each size. Any
rule that walks the whole module once per candidate shows up as a per-thousand time that grows
with N.
"""

from __future__ import annotations

import sys
import time

from autota.catalogue import RULES
from autota.source import check

HEADER = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n"

SHAPES = (
    '''
def fori_{k}(xs):
    def body(i, buf):
        buf = buf.at[i].set(xs[i] * {k})
        return buf

    buf = lax.fori_loop(0, xs.shape[0], body, jnp.zeros_like(xs))
    return buf
''',
    '''
def _step_{k}(carry, x):
    h, buf, t = carry
    h = jnp.tanh(h + x)
    return (h, buf.at[t].set(h), t + 1), None


def scan_{k}(xs, h0):
    (h, hs, _), _ = lax.scan(_step_{k}, (h0, jnp.zeros((xs.shape[0],) + h0.shape), 0), xs)
    return hs
''',
    '''
def while_{k}(xs):
    def cond(state):
        return state[0] < xs.shape[0]

    def body(state):
        i, buf = state
        return i + 1, buf.at[i].set(xs[i])

    return lax.while_loop(cond, body, (0, jnp.zeros_like(xs)))[1]
''',
    '''
def plain_{k}(x, y):
    z = jnp.dot(x, y) + {k}
    for j in range(3):
        z = z * 2
    return jnp.sum(z)
''',
)


def module(n: int) -> str:
    return HEADER + "".join(SHAPES[k % len(SHAPES)].format(k=k) for k in range(n))


def main(sizes: list[int]) -> None:
    for n in sizes:
        text = module(n).encode()
        start = time.perf_counter()
        result = check(text, "generated.py", frozenset(RULES))
        seconds = time.perf_counter() - start
        print(
            f"{n:>6} functions  {len(text) / 1e6:5.1f} MB  {seconds:7.2f} s  "
            f"{1000 * seconds / n:5.3f} s per 1000 functions  {len(result.findings)} findings"
        )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [2000, 6000, 20000])
