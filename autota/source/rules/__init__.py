"""The source rules, one module a rule family. ``RULE_CLASSES`` is what the engine runs."""

from autota.source.rules.growth import GrowthRule
from autota.source.rules.donation import DonationRule
from autota.source.rules.loop_buffers import LoopBufferRule
from autota.source.rules.unrolled import UnrolledLoopRule

RULE_CLASSES = (GrowthRule, LoopBufferRule, DonationRule, UnrolledLoopRule)

IMPLEMENTED_CODES = frozenset(code for cls in RULE_CLASSES for code in cls.codes)
"""Codes the source front end can report (the catalogue reserves more)."""
