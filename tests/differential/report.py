"""Reading verdicts: changes counted by twist, and which unsafe-fix changes its doc names."""

from __future__ import annotations

import re
from collections import Counter

from tests.differential.harness import Verdict

# What the AT401 doc says may differ: where the original raised IndexError, the scan clamps the
# index and gives a value; Python numbers carried through the loop come back as arrays (so their
# kind, dtype and weak type differ); a carry whose type changes between steps makes the scan raise.
AT401_DOCUMENTED = ("TypeError(scan body function carry input and carry output must have equal types", "IndexError", "kind int became jax", "kind float became jax", "kind complex became jax", "kind bool became jax")


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


def census(changed: list[Verdict], fixed: list[Verdict] | None = None) -> list[str]:
    """One line per twist: how many changed programs carry it (of how many fixed programs did),
    most telling first, then the kinds of change."""
    fixed = fixed or changed
    carried = Counter(t for v in fixed for t in v.program.twists)
    by_twist = Counter(t for v in changed for t in v.program.twists)
    rate = sorted(by_twist, key=lambda t: (-by_twist[t] / carried[t], -by_twist[t]))
    lines = [f"{by_twist[t]:4d} / {carried[t]:4d} x {t}" for t in rate]
    lines.append("changed programs with a single twist beyond the ordinary ones (the clearest classes):")
    single = Counter(next(iter(_exotic(v))) for v in changed if len(_exotic(v)) == 1)
    single_fixed = Counter(next(iter(_exotic(v))) for v in fixed if len(_exotic(v)) == 1)
    lines += [f"{n:4d} / {single_fixed[t]:4d} x only {t}" for t, n in single.most_common()]
    lines.append(f"{sum(1 for v in changed if not _exotic(v)):4d} changed with ordinary twists only")
    by_change = Counter(k for v in changed for k in {_kind(c) for c in v.changes})
    lines += [f"{n:4d} x change: {c}" for c, n in by_change.most_common()]
    return lines


ORDINARY = re.compile(r"^(conditional|offset|reverse|prepend|two-pieces|\w+-buffer|\w+-carry|fori-\w+|scan|none|trips:.*|mixed-dtypes)$")


def _exotic(verdict: Verdict) -> frozenset[str]:
    return frozenset(t for t in verdict.program.twists if not ORDINARY.match(t))


def _kind(change: str) -> str:
    what, _, how = change.partition(": ")
    prefix = "grad " if what.startswith("grad") else ""
    if "became" in how and not any(w in how for w in ("kind", "shape", "dtype", "weak type", "structure")):
        return prefix + re.sub(r"\(.*?\)", "", how)
    for word in ("values differ", "shape", "dtype", "weak type", "kind", "structure", "only"):
        if word in how:
            return prefix + word
    return prefix + how
