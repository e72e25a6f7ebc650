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
    """One row of panels per case (run time, temp memory), each mode a colour, the first
    measurement (before) solid and the second (after) dashed; saved to ``path``."""
    require()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = max(1, len(results))
    fig, axes = plt.subplots(rows, len(PANELS), figsize=(5 * len(PANELS), 3 * rows), squeeze=False)
    for (name, measurements), row in zip(results, axes):
        for (figure, label), ax in zip(PANELS, row):
            drawn = False
            for m, style in zip(measurements, ("-", "--")):
                for colour, mode in zip(("C0", "C1"), m.modes):
                    points = [(t, v) for t, v in zip(m.sizes, m.values(mode, figure)) if v]
                    if points:
                        ts, vs = zip(*points)
                        ax.plot(ts, vs, style, color=colour, marker="o", label=f"{mode} {m.name}")
                        drawn = True
            if drawn:
                ax.set_xscale("log", base=2)
                ax.set_yscale("log")
                ax.legend(fontsize="small")
            else:
                ax.text(0.5, 0.5, "n/a (run eagerly)", ha="center", va="center", transform=ax.transAxes)
            ax.set_title(f"{name}: {label}", fontsize="medium")
            ax.set_xlabel("T")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
