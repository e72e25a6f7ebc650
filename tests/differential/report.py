"""Reading verdicts: changes counted by twist, and which unsafe-fix changes its doc names."""

from __future__ import annotations

from collections import Counter

from tests.differential.harness import Verdict

# What the AT401 doc says may differ: where the original raised IndexError, the scan clamps the
# index and gives a value; Python numbers carried through the loop come back as arrays (so their
# kind, dtype and weak type differ).
AT401_DOCUMENTED = ("IndexError", "kind int became jax", "kind float became jax", "kind complex became jax", "kind bool became jax")


def undocumented(verdict: Verdict) -> list[str]:
    """The changes of an unsafe fix that its documentation does not name."""
    out = []
    carried_python = any("kind" in c and "became jax" in c for c in verdict.changes)
    for change in verdict.changes:
        if any(key in change for key in AT401_DOCUMENTED):
            continue
        if carried_python and ("dtype" in change or "weak type" in change):
            continue
        out.append(change)
    return out


def census(verdicts: list[Verdict]) -> list[str]:
    """One line per twist: how many changed programs carry it, against how many programs changed."""
    by_twist = Counter(t for v in verdicts for t in v.program.twists)
    by_change = Counter(_kind(c) for v in verdicts for c in set(map(_kind, v.changes)))
    lines = [f"{n:4d} x {t}" for t, n in by_twist.most_common()]
    lines += [f"{n:4d} x change: {c}" for c, n in by_change.most_common()]
    return lines


def _kind(change: str) -> str:
    what, _, how = change.partition(": ")
    for word in ("values differ", "shape", "dtype", "weak type", "kind", "structure", "became", "only"):
        if word in how:
            return ("grad " if what.startswith("grad") else "") + (how if "became" in how and word == "became" else word)
    return how
