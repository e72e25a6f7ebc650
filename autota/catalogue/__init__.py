"""The one catalogue of findings shared by both front ends.

The source codemod (``autota check``) and the jaxpr transform (``autota.analyze``) report the
same codes, so a user who meets AT201 in a lint report and in ``autota.explain`` reads the same
doc. Each rule's full doc lives in ``docs/<CODE>.md`` in Ruff's shape: what it does, why it is
bad (with its cost in T), an example, what to use instead, and how safe its fix is.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Iterable

from autota.catalogue.finding import Edit, Finding, Fix, Location

__all__ = [
    "Edit",
    "Finding",
    "Fix",
    "Location",
    "Rule",
    "RULES",
    "UnknownCodeError",
    "get",
    "resolve_selection",
]


@dataclass(frozen=True)
class Rule:
    """One catalogue entry: a stable code, a kebab-case name and a one-line summary."""

    code: str
    name: str
    summary: str
    fix: str
    """How the source front end fixes it: ``safe``, ``sometimes`` (safe where proven),
    ``unsafe`` (only with ``--unsafe-fixes``) or ``none``."""

    @property
    def doc(self) -> str:
        """The full Markdown doc, read from the package's ``docs`` folder."""
        return resources.files("autota.catalogue").joinpath("docs", f"{self.code}.md").read_text(
            encoding="utf-8"
        )


RULES: dict[str, Rule] = {
    rule.code: rule
    for rule in (
        Rule(
            "AT001",
            "unsupported-jax-construct",
            "A JAX construct `autota.transform` could not read was passed through untouched",
            "none",
        ),
        Rule(
            "AT101",
            "concat-growth",
            "Array grown every iteration by concatenation: O(T^2) copies",
            "sometimes",
        ),
        Rule(
            "AT102",
            "eager-update-in-loop",
            "`.at[].set` or `dynamic_update_slice` in an eager Python loop copies the whole array each step",
            "sometimes",
        ),
        Rule(
            "AT201",
            "carried-buffer",
            "Preallocated buffer carried through a loop and written once per step: use stacked outputs",
            "sometimes",
        ),
        Rule(
            "AT202",
            "while-buffer",
            "Buffer written in a `while_loop`: no reverse-mode gradient, and a static bound makes it a scan",
            "sometimes",
        ),
        Rule(
            "AT203",
            "read-back-buffer",
            "Loop body reads the buffer it writes: under grad an array of its size is saved every step",
            "none",
        ),
        Rule(
            "AT204",
            "batched-select-update",
            "Select around a buffer update copies the whole buffer every step",
            "sometimes",
        ),
        Rule(
            "AT301",
            "undonated-buffer",
            "Jitted step returns an updated buffer without donating it: a full copy per call",
            "unsafe",
        ),
        Rule(
            "AT401",
            "unrolled-loop-under-jit",
            "Python loop inside a jitted function is unrolled: compile time grows with T",
            "unsafe",
        ),
    )
}


class UnknownCodeError(ValueError):
    """A code or prefix given by the user that names no rule."""


def get(code: str) -> Rule:
    """The rule for ``code`` (case-insensitive); raises :class:`UnknownCodeError`."""
    try:
        return RULES[code.upper()]
    except KeyError:
        raise UnknownCodeError(f"unknown rule code {code!r}") from None


def _expand(prefixes: Iterable[str]) -> set[str]:
    codes: set[str] = set()
    for prefix in prefixes:
        prefix = prefix.strip().upper()
        if prefix == "ALL":
            codes |= set(RULES)
            continue
        matched = {code for code in RULES if code.startswith(prefix)}
        if not prefix or not matched:
            raise UnknownCodeError(f"unknown rule code or prefix {prefix!r}")
        codes |= matched
    return codes


def resolve_selection(select: Iterable[str] | None, ignore: Iterable[str] | None) -> frozenset[str]:
    """The codes enabled by Ruff-style ``--select``/``--ignore`` prefixes (``AT1``, ``AT20``).

    ``select`` defaults to every rule; ``ignore`` wins over ``select``.
    """
    chosen = _expand(select) if select else set(RULES)
    return frozenset(chosen - _expand(ignore or ()))
