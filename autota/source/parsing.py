"""Reading Python source: Python's own parser, and libcst's for what it cannot read.

Python's parser is far cheaper than libcst's, so every file has its syntax checked by it, and
it judges that a fix keeps the file valid. Where this Python is older than the file's grammar
(a 3.12 ``type`` alias under 3.11) but libcst reads the file, libcst's parser takes both roles.
"""

from __future__ import annotations

import ast
import warnings

import libcst as cst


class ParseError(ValueError):
    """The file is not Python that autota can read; it is left untouched. ``findings`` are those
    of the parts that could be read (a notebook's other cells), reported beside the error."""

    def __init__(self, message: str, findings: list | None = None) -> None:
        super().__init__(message)
        self.findings = findings or []


def python_ast(text: str, path: str) -> ast.Module:
    """Python's own parse of ``text``."""
    try:
        return compile(text, path, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:
        raise ParseError(f"syntax error at {exc.lineno}:{exc.offset}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ParseError(f"cannot parse: {exc}") from None


def check_syntax(text: str, path: str) -> None:
    """Raise :class:`ParseError` as :func:`syntax_tree` would, for a file no rule reads. CPython's
    compiler checks the syntax without building the AST's Python objects, twice as fast on a large
    file (a generated table of 2 MB); compiling also refuses what parses (`return` outside a
    function), so any error it raises is judged again by :func:`syntax_tree`."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the compiler's own (`assert (x, "why")`): not ours to report
            compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        syntax_tree(text, path)


def libcst_module(text: str) -> cst.Module:
    """libcst's parse of ``text``."""
    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        where = f"{exc.raw_line}:{exc.raw_column + 1}"
        if _python_parses(text):  # `(n): int = 3`: Python's grammar, not libcst's
            raise ParseError(f"libcst cannot read this valid Python at {where}; the file is not checked") from None
        raise ParseError(f"syntax error at {where}: {exc.message}") from None
    except (RecursionError, ValueError) as exc:
        raise ParseError(f"cannot parse: {exc}") from None


def _python_parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def syntax_tree(text: str, path: str) -> ast.Module | None:
    """Python's AST of ``text``, or ``None`` where this Python is older than the file's grammar
    but libcst reads it; else the Python error stands."""
    try:
        return python_ast(text, path)
    except ParseError as error:
        python_error = error
    try:
        libcst_module(text)
    except ParseError:
        raise python_error from None
    return None


def fix_parse_error(fixed: str, original: str, path: str) -> ParseError | None:
    """Why ``fixed`` (``original`` with a fix applied) does not parse as ``original`` was read, by
    Python's parser, or by libcst's where Python cannot read ``original`` either; ``None`` where
    it parses."""
    try:
        python_ast(fixed, path)
        return None
    except ParseError as error:
        python_error = error
    try:
        python_ast(original, path)
        return python_error
    except ParseError:
        pass
    try:
        libcst_module(fixed)
        return None
    except ParseError as error:
        return error
