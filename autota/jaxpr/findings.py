"""What :func:`autota.analyze` reports: one record per loop or chain the transform looked at."""

from __future__ import annotations

from dataclasses import dataclass

from autota.catalogue import get as _rule
from autota.jaxpr.jaxcompat import JAX_VERSION


class TransformError(ValueError):
    """``fn`` cannot be traced or transformed; the message says why in one line."""


@dataclass(frozen=True)
class LoopFinding:
    """A pattern found in the traced program, rewritten (``applied``) or left alone (``reason``).

    ``cost_before``/``cost_after`` are cost classes in the loop length T (run time of
    ``jit(grad(f))`` for buffers, of the forward pass for concatenation chains).
    """

    code: str
    message: str
    applied: bool
    reason: str | None
    source: str | None
    buffer_shape: tuple | None
    cost_before: str
    cost_after: str

    @property
    def name(self) -> str:
        return _rule(self.code).name

    def __str__(self) -> str:
        where = self.source or "<unknown location>"
        status = "rewritten" if self.applied else f"left alone: {self.reason}"
        shape = f" buffer {self.buffer_shape}" if self.buffer_shape is not None else ""
        return (
            f"{where}: {self.code} {self.name}: {self.message}{shape}; "
            f"{status} ({self.cost_before} -> {self.cost_after})"
        )


UNKNOWN_LAYOUT = "AT001"


def unknown_layout(primitive: str, detail: str, source: str | None) -> LoopFinding:
    """The finding for an equation ``transform`` bound untouched because it could not read it.

    It names the primitive and the JAX version, so that a JAX release that moved a parameter
    shows up as a report (and, under ``strict=True``, an error) instead of as "nothing found".
    """
    return LoopFinding(
        UNKNOWN_LAYOUT, f"{primitive} on jax {JAX_VERSION}: {detail}", False,
        "passed through untouched", source, None, "unknown", "unknown",
    )
