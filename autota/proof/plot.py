"""Log-log charts of run time and temp memory against T, before and after.

matplotlib is an optional extra (``jax-autota[plot]``); :func:`require` checks for it before any
measuring starts, so a missing extra fails fast with the command to install it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from autota.proof.errors import ProofInputError
from autota.proof.measure import Measurement

PANELS = (("run_s", "run time (s)"), ("temp_bytes", "XLA temp memory (bytes)"))


def require() -> None:
    """Raise :class:`ProofInputError` unless matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ProofInputError("--plot needs matplotlib: pip install 'jax-autota[plot]'") from None


def plot(results: Sequence[tuple[str, Sequence[Measurement]]], path: str | Path) -> Path:
    """:func:`draw` the chart and save it to ``path``."""
    import matplotlib.pyplot as plt

    fig = draw(results)
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _has(measurements: Sequence[Measurement], figure: str) -> bool:
    return any(v for m in measurements for mode in m.modes for v in m.values(mode, figure))


def draw(results: Sequence[tuple[str, Sequence[Measurement]]]):
    """One row of panels per case (run time, temp memory), each mode a colour, the first
    measurement (before) solid and the second (after) dashed. A case run eagerly has no XLA
    memory: its run-time panel takes the whole row rather than leaving an empty panel."""
    require()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = max(1, len(results))
    fig = plt.figure(figsize=(5 * len(PANELS), 3 * rows))
    grid = fig.add_gridspec(rows, len(PANELS))
    for r, (name, measurements) in enumerate(results):
        panels = [(f, label) for f, label in PANELS if _has(measurements, f)] or [PANELS[0]]
        for c, (figure, label) in enumerate(panels):
            ax = fig.add_subplot(grid[r, c] if len(panels) == len(PANELS) else grid[r, :])
            for m, style in zip(measurements, ("-", "--")):
                for colour, mode in zip(("C0", "C1"), m.modes):
                    points = [(t, v) for t, v in zip(m.sizes, m.values(mode, figure)) if v]
                    if points:
                        ts, vs = zip(*points)
                        ax.plot(ts, vs, style, color=colour, marker="o", label=f"{mode} {m.name}")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.legend(fontsize="small")
            eager = "" if len(panels) == len(PANELS) else " (run eagerly: no XLA memory)"
            ax.set_title(f"{name}: {label}{eager}", fontsize="medium")
            ax.set_xlabel("T")
    fig.tight_layout()
    return fig
