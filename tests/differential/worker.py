"""Run generated programs in this process and write one record per program, as soon as it is done.

Usage: ``python -m tests.differential.worker JOBS RESULTS``. ``JOBS`` is a pickled list of
``(key, source, calls)``; each ``call`` is ``(function, argument expression)``, the expression
evaluated after the module ran, with ``jax``, ``jnp``, ``np`` and the module's own names in
scope. Each program runs as its own module (registered in ``sys.modules``, so that class bodies,
dataclasses and NamedTuples behave as in a file). Every record is appended to ``RESULTS`` and
flushed before the next program starts, so a crash (a segfault, an abort) loses only the program
that caused it: the parent restarts the worker after it.
"""

from __future__ import annotations

import pickle
import signal
import sys
import types

import jax
import jax.numpy as jnp
import numpy as np

PER_PROGRAM_S = 60


def _leaf(x):
    """What a comparison needs of one leaf: its kind (array, NumPy, Python), shape, dtype, weak type, value."""
    if isinstance(x, jax.Array):
        kind, weak = "jax", bool(getattr(x, "weak_type", False))
    elif isinstance(x, (np.ndarray, np.generic)):
        kind, weak = "numpy", False
    elif isinstance(x, (bool, int, float, complex)):
        kind, weak = type(x).__name__, True
    else:
        return ("other", type(x).__name__, None, None, repr(x)[:200])
    value = np.asarray(x)
    return (kind, value.shape, str(value.dtype), weak, value.tobytes())


def _outcome(thunk):
    """``("value", treedef, leaves)`` or ``("raise", exception type, message)``."""
    try:
        result = thunk()
        leaves, tree = jax.tree_util.tree_flatten(result)
        return ("value", str(tree), [_leaf(x) for x in leaves])
    except Exception as exc:  # the program's own behaviour: compared, not judged
        return ("raise", type(exc).__name__, str(exc).splitlines()[0][:300] if str(exc) else "")


def _inexact_array(a) -> bool:
    return isinstance(a, jax.Array) and jnp.issubdtype(a.dtype, jnp.inexact)


def _loss(fn, args, argnums):
    def loss(*diff):
        full = list(args)
        for n, value in zip(argnums, diff):
            full[n] = value
        leaves = jax.tree_util.tree_leaves(fn(*full))
        total = jnp.zeros((), jnp.float32)
        for leaf in leaves:
            if jnp.issubdtype(jnp.result_type(leaf), jnp.inexact):
                total = total + jnp.sum(jnp.real(jnp.asarray(leaf))).astype(jnp.float32)
        return total

    return loss


def run_program(key: str, source: str, calls) -> list:
    name = f"autota_generated_{key}"
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    sys.modules[name] = module
    records = []
    try:
        load = _outcome(lambda: exec(compile(source, module.__file__, "exec"), module.__dict__))
        records.append(("import", load))
        if load[0] == "raise":
            return records
        for function, arguments in calls:
            scope = {"jax": jax, "jnp": jnp, "np": np, **module.__dict__}
            args = eval(arguments, scope)
            fn = getattr(module, function) if "." not in function else eval(function, scope)
            records.append((f"{function}{arguments}", _outcome(lambda: fn(*args))))
            argnums = tuple(k for k, a in enumerate(args) if _inexact_array(a))
            if argnums and records[-1][1][0] == "value":
                diff = [args[k] for k in argnums]
                grad = jax.grad(_loss(fn, args, argnums), tuple(range(len(diff))))
                records.append((f"grad {function}{arguments}", _outcome(lambda: grad(*diff))))
    finally:
        del sys.modules[name]
    return records


def _timeout(signum, frame):
    raise TimeoutError(f"program ran over {PER_PROGRAM_S} s")


def main(jobs_path: str, results_path: str) -> None:
    with open(jobs_path, "rb") as f:
        jobs = pickle.load(f)
    signal.signal(signal.SIGALRM, _timeout)
    with open(results_path, "ab") as out:
        for key, source, calls in jobs:
            signal.alarm(PER_PROGRAM_S)
            try:
                records = run_program(key, source, calls)
            except BaseException as exc:  # noqa: BLE001 - a program's failure is its record
                records = [("harness", ("raise", type(exc).__name__, str(exc)[:300]))]
            finally:
                signal.alarm(0)
            pickle.dump((key, records), out)
            out.flush()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
