"""The source rules, one module a rule family. ``RULE_CLASSES`` is what the engine runs."""

from autota.source.rules.growth import GrowthRule

RULE_CLASSES = (GrowthRule,)

IMPLEMENTED_CODES = frozenset(code for cls in RULE_CLASSES for code in cls.codes)
"""Codes the source front end can report (the catalogue reserves more)."""
