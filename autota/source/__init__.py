"""The source front end: a libcst codemod that finds the anti-patterns and rewrites safe ones.

:func:`check` turns source text into findings; :func:`fix` applies their fixes. Rules live in
:mod:`autota.source.rules`, one module a rule family.
"""

from autota.source.engine import FileResult, ParseError, check, fix

__all__ = ["FileResult", "ParseError", "check", "fix"]
