"""Programs whose safe fix changed results, one per class, as regression cases of
``test_differential.py``: each must now keep its results.

The AT2xx ones are generated programs found on the code of 2026-12-01 (issue 12) by
``benchmarks/differential.py --rules AT201 --seed 3``, kept verbatim after the common header. The
AT102 one is review 35's (2026-12-03), in the generator's own form: a Python int beyond int32 that
a call hides, written into a uint32 buffer, which `.at[].set` converts and the fix's
`jnp.asarray` refused with OverflowError.
"""

from tests.differential.families import HEADER
from tests.differential.harness import Program

KNOWN = {
    'tuple row: a value became AttributeError': Program(
        'AT201',
        'carried-buffer',
        ('tuple-row', 'float32-buffer', 'fori-pair'),
        HEADER.rstrip("\n")
        + """


def run(xs):
    big = 3
    T = xs.shape[0]
    T8 = np.int8(xs.shape[0])
    lst = [0] * xs.shape[0]
    lst_len = len(lst)
    def body(i, carry):
        h, buf = carry
        h = h * 0.5 + xs[i]
        buf = buf.at[i].set((h[0], h[1]))
        return h, buf
    h, buf = lax.fori_loop(0, xs.shape[0], body, (jnp.zeros(2), jnp.zeros((T, 2), jnp.float32)))
    return h, buf
""",
        (('run', '(jnp.arange(0.0).reshape(0, 2) - 1.5,)'), ('run', '(jnp.arange(2.0).reshape(1, 2) - 1.5,)'), ('run', '(jnp.arange(6.0).reshape(3, 2) - 1.5,)')),
    ),
    'zero-length buffer: IndexError became a value': Program(
        'AT201',
        'carried-buffer',
        ('python-int-row', 'bool-buffer', 'buffer-size:0', 'fori-single'),
        HEADER.rstrip("\n")
        + """


def run(xs):
    big = 3
    T = xs.shape[0]
    T8 = np.int8(xs.shape[0])
    lst = [0] * xs.shape[0]
    lst_len = len(lst)
    def body(i, buf):
        buf = buf.at[i].set(big)
        return buf
    buf = lax.fori_loop(0, xs.shape[0], body, jnp.zeros((0, 2), jnp.bool))
    return buf
""",
        (('run', '(jnp.arange(4.0).reshape(2, 2) - 1.5,)'),),
    ),
    'tuple row through scan, empty input: IndexError became AttributeError': Program(
        'AT201',
        'carried-buffer',
        ('tuple-row', 'bfloat16-buffer', 'scan'),
        HEADER.rstrip("\n")
        + """


def run(xs):
    big = -1
    T = xs.shape[0]
    T8 = np.int8(xs.shape[0])
    lst = [0] * xs.shape[0]
    lst_len = len(lst)
    def step(carry, x):
        h, buf, i = carry
        h = h * 0.5 + x
        buf = buf.at[i].set((h[0], h[1]))
        return (h, buf, i + 1), h.sum()
    (h, buf, _i), sums = lax.scan(step, (jnp.zeros(2), jnp.zeros((T, 2), jnp.bfloat16), 0), xs)
    return h, buf, sums
""",
        (('run', '(jnp.arange(0.0).reshape(0, 2) - 1.5,)'), ('run', '(jnp.arange(2.0).reshape(1, 2) - 1.5,)'), ('run', '(jnp.arange(6.0).reshape(3, 2) - 1.5,)')),
    ),
    'hidden Python int beyond int32 into uint32: a value became OverflowError': Program(
        'AT102',
        'eager-at-set',
        ('hidden-huge-int', 'uint32-buffer'),
        HEADER.rstrip("\n")
        + """


def run(n, x):
    buf = jnp.zeros((n + 2,), jnp.uint32)
    for t in range(n):
        buf = buf.at[t].set(int('3000000000') + t)
    return buf
""",
        (('run', '(0, jnp.arange(4.0) - 1.5)'), ('run', '(3, jnp.arange(4.0) - 1.5)')),
    ),
}
