"""Draw programs from the families, reproducibly: a fixed seed gives the same programs every run."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from tests.differential.families import FAMILIES
from tests.differential.harness import Program


def draw_programs(rule: str, count: int, seed_value: int = 0, keep=lambda program: True) -> list[Program]:
    """``count`` distinct programs of ``rule``'s families that ``keep`` accepts.

    Hypothesis does the drawing (its strategies, with its bias toward small and boundary choices),
    one example a program, with the seed fixed; the programs are then judged in batches, since a
    fresh process a program would cost a JAX start-up each.
    """
    programs: dict[str, Program] = {}
    strategy = st.one_of(*FAMILIES[rule])

    @seed(seed_value)
    @settings(
        max_examples=count * 4,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(program: Program) -> None:
        if len(programs) < count and keep(program):
            programs.setdefault(program.source + repr(program.calls), program)

    collect()
    ordered = list(programs.values())
    random.Random(seed_value).shuffle(ordered)
    return ordered[:count]
