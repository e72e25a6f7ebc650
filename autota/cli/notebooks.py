"""Jupyter notebooks: check and fix the code cells of an ``.ipynb`` file.

Cells share one namespace (an import in cell 1 serves cell 5), so the code cells are checked
as one program: each cell after a marker line, with IPython magics and shell escapes turned
into one-line placeholders so that line numbers stay right. Findings are mapped back to their
cell (``Finding.details["cell"]``, 1-based over all cells; lines count from the cell's first).
A cell that starts with a ``%%`` cell magic is not Python and is skipped whole, also where
comment lines come first (Colab's ``#@title`` form line).

Fixes are written back by replacing only the fixed cells' ``source`` values in the file's own
text, so outputs, metadata, other cells and the file's JSON formatting stay byte for byte. A
notebook without fixes is never rewritten.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from json.decoder import scanstring

from autota.catalogue import Edit, Finding, Location
from autota.cli.formats import CELL
from autota.source import FileResult, ParseError
from autota.source import check as check_source
from autota.source import fix as fix_source
from autota.source.text import SourceText

SUFFIX = ".ipynb"
HEADER = "# autota: notebook, coding: utf-8\n"
"""First line of the program: its coding cookie keeps a cell's own cookie from applying."""
MARKER = re.compile(r"^# <autota-cell (\d+)>\n", re.MULTILINE)
PLACEHOLDER = re.compile(r"^([ \t]*)pass  # <autota-magic (\d+)>$", re.MULTILINE)
MAGIC = re.compile(r"[ \t]*(?:[%!?]|[\w.]+\?\??[ \t]*$|[\w, \t]+=[ \t]*[%!])")
"""A line IPython rewrites: ``%line_magic``, ``!shell``, ``x = !cmd``, ``obj?``, ``?obj``."""
QUIET_LINE_MAGICS = frozenset({
    "matplotlib", "autoreload", "aimport", "pip", "conda", "cd",
    "pwd", "ls", "who", "whos", "who_ls", "precision", "autosave", "mkdir", "clear",
    "colors", "page", "pinfo", "pinfo2", "psource", "pdoc", "pdef", "history", "lsmagic", "magic", "quickref",
})
"""Line magics that run no Python of the notebook, bind no name in its namespace and set nothing
JAX reads, as long as their line expands nothing (IPython evaluates ``{expr}`` and ``$name`` in a
magic's or a shell command's line). Others (``%time x = f()``, ``%run script.py``, ``%store -r``,
``%pylab``, ``%env JAX_DISABLE_JIT=1``, ``%config``, which runs its assignment's value, one not
known) may; so does ``%load_ext`` of an extension not in :data:`QUIET_EXTENSIONS` (its
``load_ipython_extension`` is handed the shell, and can bind any name in the notebook's
namespace), and ``%xmode Verbose``, whose tracebacks print each frame's locals."""
EXTENSION_MAGICS = frozenset({"load_ext", "reload_ext", "unload_ext"})
QUIET_EXTENSIONS = frozenset({
    "autoreload", "tensorboard", "line_profiler", "memory_profiler", "snakeviz", "watermark", "lab_black",
    "nb_black", "jupyter_black", "blackcellmagic",
})
"""IPython extensions that add magics or reload modules, and bind no name of the notebook's."""
QUIET_CELL_MAGICS = frozenset({
    "bash", "sh", "script", "html", "HTML", "markdown", "latex", "javascript", "js", "svg", "writefile", "perl",
    "ruby", "system", "sx",
})
"""Cell magics whose body is not Python run in the notebook's namespace (``%%time`` and
``%%capture`` run theirs; autota skips every ``%%`` cell)."""


def check(data: bytes, path: str, enabled: frozenset[str]) -> FileResult:
    """The findings in a notebook's code cells; raises :class:`ParseError` if it is unreadable.
    Where some cells do not parse (pasted output, another kernel's syntax), the error names the
    first and carries the findings of the other cells, checked as one program without them."""
    notebook = Notebook.read(data)
    program = Program.build(notebook)
    try:
        result = _run(check_source, program, path, enabled)
    except ParseError as error:
        bad = _unparsable(program, path)
        if not bad or len(bad) == len(program.cells):
            raise
        rest = Program.build(replace(notebook, sources={i: s for i, s in notebook.sources.items() if i not in bad}))
        try:
            found = check_source(rest.text.encode("utf-8"), path, enabled, unread=rest.unread).findings
        except ParseError:
            raise error from None
        raise ParseError(str(error), rest.localise(found, rest.text)) from None
    return FileResult(path, program.localise(result.findings, program.text))


def fix(data: bytes, path: str, enabled: frozenset[str], unsafe: bool = False) -> FileResult:
    """Apply fixes to the code cells; ``fixed_text`` is the whole notebook with them applied.

    Where a fix would move a cell boundary or lose a magic, nothing is applied and the
    findings are reported as they are. A notebook with a cell that does not parse is not
    fixed: its error carries the other cells' findings, as ``check`` gives them.
    """
    notebook = Notebook.read(data)
    program = Program.build(notebook)
    try:
        result = _run(fix_source, program, path, enabled, unsafe=unsafe)
    except ParseError:
        check(data, path, enabled)
        raise
    if result.fixed_text is None:
        return FileResult(path, program.localise(result.findings, program.text))
    fixed = result.fixed_text.decode("utf-8")
    sources = program.split(fixed)
    if not sources:
        return check(data, path, enabled)
    out = FileResult(path, program.localise(result.findings, fixed), fixes_applied=result.fixes_applied)
    out.fixed_text = notebook.with_sources(sources)
    return out


def _run(engine, program: Program, path: str, enabled: frozenset[str], **options) -> FileResult:
    try:
        return engine(program.text.encode("utf-8"), path, enabled, unread=program.unread, **options)
    except ParseError as exc:
        bad = _unparsable(program, path)
        if bad:
            index, error = next(iter(bad.items()))
            more = f" (and {len(bad) - 1} more cell{'s' * (len(bad) > 2)})" if len(bad) > 1 else ""
            raise ParseError(f"cell {index}: syntax error at {error.lineno}:{error.offset}: {error.msg}{more}") from None
        raise exc


def _unparsable(program: Program, path: str) -> dict[int, SyntaxError]:
    """The cells that do not parse on their own, by number, with their errors."""
    bad = {}
    for index, text in program.cells.items():
        try:
            compile(text, path, "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        except SyntaxError as error:
            bad[index] = error
        except (ValueError, RecursionError):
            continue
    return bad


@dataclass
class Notebook:
    """A notebook's raw text and its code cells' sources, by 1-based cell number."""

    text: str
    sources: dict[int, str]
    bom: bool = False

    @classmethod
    def read(cls, data: bytes) -> Notebook:
        bom = data.startswith(b"\xef\xbb\xbf")
        try:
            text = data[3 if bom else 0 :].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError(f"notebook is not UTF-8: {exc.reason} at byte {exc.start}") from None
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ParseError(f"notebook is not valid JSON: {exc.msg} at {exc.lineno}:{exc.colno}") from None
        except RecursionError:
            raise ParseError("notebook is not valid JSON: nested too deeply") from None
        return cls(text, _code_sources(document), bom)

    def with_sources(self, sources: dict[int, str]) -> bytes:
        """The notebook's bytes with these cells' sources replaced and nothing else changed."""
        spans = _source_spans(self.text)
        ascii_only = self.text.isascii()
        out, cursor = [], 0
        for index in sorted(sources):
            start, end = spans[index]
            out += [self.text[cursor:start], _render(self.text[start:end], sources[index], ascii_only)]
            cursor = end
        out.append(self.text[cursor:])
        return (b"\xef\xbb\xbf" if self.bom else b"") + "".join(out).encode("utf-8")


def _code_sources(document) -> dict[int, str]:
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        if isinstance(document, dict) and isinstance(document.get("nbformat"), int) and document["nbformat"] < 4:
            raise ParseError(f"nbformat {document['nbformat']} notebooks are not supported; convert to nbformat 4")
        raise ParseError("not a Jupyter notebook: no list of cells")
    metadata = document.get("metadata") if isinstance(document.get("metadata"), dict) else {}
    language = (metadata.get("language_info") or {}).get("name") or (metadata.get("kernelspec") or {}).get("language")
    if isinstance(language, str) and language.lower() != "python":
        return {}
    sources = {}
    for index, cell in enumerate(document["cells"], start=1):
        if not isinstance(cell, dict):
            raise ParseError(f"not a Jupyter notebook: cell {index} is not an object")
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(s, str) for s in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise ParseError(f"not a Jupyter notebook: cell {index} has a source that is not text")
        sources[index] = source
    return sources


@dataclass
class Program:
    """The code cells as one Python program, and what it takes to split it back into cells."""

    text: str
    cells: dict[int, str]
    """Each analysed cell's text as it is in the program (magics replaced)."""
    magics: list[str] = field(default_factory=list)
    """The original lines behind each placeholder, by placeholder number."""
    dedented: dict[int, tuple[int, frozenset[int]]] = field(default_factory=dict)
    """Cells whose first line is indented, as IPython runs them: the indent's width and the
    (1-based) lines it was taken from. Such cells are checked, never fixed."""
    unread: str | None = None
    """The first magic that may run Python autota does not read, or bind a name (``%time x =
    f()``, a ``%%time`` cell, ``x = !ls``): no fix is then proven safe (see
    :attr:`autota.source.rule.RuleContext.unread`)."""

    @classmethod
    def build(cls, notebook: Notebook) -> Program:
        program, chunks = cls("", {}), [HEADER]
        for index, source in notebook.sources.items():
            line = _cell_magic_line(source)
            if line is not None:
                words = line[2:].split(maxsplit=1)
                magic = words[0] if words else ""
                if (magic not in QUIET_CELL_MAGICS or "{" in line or "$" in line) and program.unread is None:
                    program.unread = f"the `%%{magic}` cell (cell {index})"
                continue
            source, program.dedented[index] = _leading_indent(source)
            if not program.dedented[index][0]:
                del program.dedented[index]
            text = program._neutralise(source, index)
            if program.unread is None and "get_ipython" in text:  # `.push({...})`, `.user_ns[...] =`, `.run_cell(...)`
                program.unread = f"the code that reaches IPython's shell through `get_ipython` (cell {index})"
            program.cells[index] = text
            newline = "" if text.endswith("\n") else "\n"
            chunks.append(f"# <autota-cell {index}>\n{text}{newline}")
        program.text = "".join(chunks)
        return program

    def _neutralise(self, source: str, index: int) -> str:
        """``source`` (cell ``index``) with each IPython-only line replaced by a numbered ``pass``
        placeholder; the first that may run Python or bind a name is :attr:`unread`."""
        lines = source.splitlines(keepends=True)
        continued, indent = False, ""
        for i, line in enumerate(lines):
            automagic = not continued and _automagic(line)
            if continued or ((MAGIC.match(line) or automagic) and _starts_statement("".join(lines[:i]))):
                body = line.rstrip("\r\n")
                if not continued:  # a `\` continuation line keeps the indent of the magic it continues
                    indent = body[: len(body) - len(body.lstrip(" \t"))]
                    if self.unread is None and _may_run_python("%" + body.strip() if automagic else body):
                        self.unread = f"the magic `{body.strip()[:40]}` (cell {index})"
                lines[i] = f"{indent}pass  # <autota-magic {len(self.magics)}>{line[len(body):]}"
                self.magics.append(body)
                continued = body.endswith("\\")
        return "".join(lines)

    def _restore(self, text: str) -> tuple[str, list[int]]:
        """``text`` with its placeholders turned back into their magics, and their numbers."""
        seen: list[int] = []

        def original(match: re.Match) -> str:
            seen.append(int(match.group(2)))
            indent, magic = match.group(1), self.magics[int(match.group(2))]
            # as it was where the placeholder kept its indent (a continuation line keeps its own)
            return magic if magic.startswith(indent) else indent + magic.lstrip(" \t")

        return PLACEHOLDER.sub(original, text), seen

    def split(self, fixed: str) -> dict[int, str] | None:
        """The cells of ``fixed`` whose source changed, magics restored; ``None`` when a fix
        moved a cell boundary or a magic, so that the cells cannot be told apart."""
        marks = list(MARKER.finditer(fixed))
        if [int(m.group(1)) for m in marks] != list(self.cells):
            return None
        if sorted(self._restore(fixed)[1]) != list(range(len(self.magics))):
            return None
        changed = {}
        for mark, following in zip(marks, marks[1:] + [None]):
            index = int(mark.group(1))
            text = fixed[mark.end() : following.start() if following else len(fixed)]
            if not self.cells[index].endswith("\n"):
                text = text.removesuffix("\n")
            if text != self.cells[index]:
                if index in self.dedented:  # its indent cannot be told back onto new lines
                    return None
                if 0 < self.cells[index].count("\r\n") == self.cells[index].count("\n"):
                    text = re.sub(r"(?<!\r)\n", "\r\n", text)  # a CRLF cell's lines the fix added end as its own do
                changed[index] = self._restore(text)[0]
        return changed

    def localise(self, findings: list[Finding], text: str) -> list[Finding]:
        """``findings`` in ``text`` (this program, or it fixed) moved into their cells."""
        source = SourceText(text)
        starts = [(source.position(m.end())[0], int(m.group(1))) for m in MARKER.finditer(text)]
        firsts = [line for line, _ in starts]

        def place(line: int) -> tuple[int, int]:
            first, cell = starts[max(bisect_right(firsts, line) - 1, 0)]
            return cell, max(line - first + 1, 1)

        def column(cell: int, line: int, column: int) -> int:
            width, lines = self.dedented.get(cell, (0, ()))
            return column + width if line in lines else column

        moved = []
        for f in findings:
            loc = f.location
            cell, line = place(loc.line)
            end_line = loc.end_line - (loc.line - line)
            fix = None if cell in self.dedented else f.fix and replace(
                f.fix,
                edits=tuple(
                    Edit(e.line - (loc.line - line), e.column, e.end_line - (loc.line - line), e.end_column, e.content)
                    for e in f.fix.edits
                ),
            )
            location = Location(loc.path, line, column(cell, line, loc.column), end_line,
                                column(cell, end_line, loc.end_column))

            def in_cell(match: re.Match, cell: int = cell) -> str:  # a line the message names
                other, at = place(int(match.group(1)))
                return f"line {at}" if other == cell else f"line {at} of cell {other}"

            message = re.sub(r"\bline (\d+)\b", in_cell, f.message)
            reason = f.reason and re.sub(r"\bline (\d+)\b", in_cell, f.reason)
            moved.append(replace(f, message=message, reason=reason, location=location, fix=fix,
                                 details={**f.details, CELL: cell}))
        return moved


def _starts_statement(prefix: str) -> bool:
    """Whether a line after ``prefix`` starts a statement (is not inside brackets or a string)."""
    try:
        for _ in tokenize.generate_tokens(io.StringIO(prefix).readline):
            pass
    except tokenize.TokenError:
        return False
    except SyntaxError:  # bad indentation: the cell will not parse either way
        return True
    return True


def _render(old: str, source: str, ascii_only: bool) -> str:
    """``source`` as a JSON value in the shape of ``old``: a string, or a list of lines laid
    out as the old list is (Jupyter writes one line an item, indented)."""
    if old.startswith('"'):
        return json.dumps(source, ensure_ascii=ascii_only)
    opening = re.match(r"\[(\s*)", old).group(1)
    closing = re.search(r"(\s*)\]$", old).group(1)
    items = [json.dumps(line, ensure_ascii=ascii_only) for line in source.splitlines(keepends=True)]
    if not items:
        return "[]"
    return "[" + opening + ("," + opening).join(items) + closing + "]"


_SPACE = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|NaN|-?Infinity")


def _source_spans(text: str) -> dict[int, tuple[int, int]]:
    """The offsets of each ``cells[i].source`` value in a notebook's (valid) JSON text."""
    spans: dict[int, tuple[int, int]] = {}

    def value(i: int, path: tuple) -> int:
        i = _SPACE.match(text, i).end()
        if text[i] == '"':
            return scanstring(text, i + 1)[1]
        if text[i] not in "[{":
            return _SCALAR.match(text, i).end()
        is_object, i = text[i] == "{", _SPACE.match(text, i + 1).end()
        position = 0
        while text[i] not in "]}":
            if is_object:
                key, i = scanstring(text, i + 1)
                start = _SPACE.match(text, _SPACE.match(text, i).end() + 1).end()
                i = value(start, path + (key,))
                if key == "source" and len(path) == 2 and path[0] == "cells":
                    spans[path[1] + 1] = (start, i)
            else:
                i = value(i, path + (position,))
                position += 1
            i = _SPACE.match(text, i).end()
            if text[i] == ",":
                i = _SPACE.match(text, i + 1).end()
        return i + 1

    value(0, ())
    return spans


def _leading_indent(source: str) -> tuple[str, tuple[int, frozenset[int]]]:
    """``source`` as IPython runs it (its ``leading_indent`` transform): where the first line
    that is not blank is indented, that indent comes off every line that starts with it. Python alone would
    refuse such a cell."""
    lines = source.splitlines(keepends=True)
    first = next((line for line in lines if line.strip()), "")  # IPython drops blank lines first
    indent = re.match(r"[ \t]*", first).group(0)
    if not indent:
        return source, (0, frozenset())
    taken = frozenset(i for i, line in enumerate(lines, start=1) if line.startswith(indent))
    text = "".join(line[len(indent):] if i in taken else line for i, line in enumerate(lines, start=1))
    return text, (len(indent), taken)


def _cell_magic_line(source: str) -> str | None:
    """The ``%%`` line a cell magic's cell starts with (its first line that is not blank or a
    comment, stripped), if it does."""
    for line in source.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return stripped if stripped.startswith("%%") else None
    return None


AUTOMAGIC = re.compile(r"[ \t]*(?:%s)(?:[ \t]+[^\n]*)?$" % "|".join(sorted(QUIET_LINE_MAGICS)))
"""A line that starts with the name of a :data:`QUIET_LINE_MAGICS` magic, without its ``%``."""


def _automagic(line: str) -> bool:
    """Whether IPython's automagic (on by default) runs ``line`` as a magic though it has no
    ``%`` (``ls data/``, ``cd ..``): its first word names a quiet line magic and it is not Python.
    A word followed by ``=`` or ``,`` is Python's (``history = {`` opening a display on the next
    lines, ``ls, n = f()``): IPython's assignment check runs it as written, before automagic."""
    body = line.rstrip("\r\n")
    words = body.split(maxsplit=1)
    if not AUTOMAGIC.match(body) or len(words) > 1 and words[1].startswith(("=", ",")):
        return False
    try:
        ast.parse(body.strip())
    except (SyntaxError, ValueError):
        return True
    return False


def _may_run_python(line: str) -> bool:
    """Whether a magic line may run Python in the notebook's namespace or bind a name there:
    ``x = !ls`` binds ``x``, ``%time x = f()`` runs its statement; ``!ls``, ``obj?`` and the
    :data:`QUIET_LINE_MAGICS` do neither."""
    stripped = line.strip()
    if not stripped.startswith(("%", "!", "?")) and not stripped.endswith("?"):
        return True  # `x = %time f()`, `x = !ls`: an assignment
    if "{" in stripped or "$" in stripped:
        return True  # `!echo {jax.config.update(...)}`: IPython evaluates what it expands
    if not stripped.startswith("%"):
        return False
    name = stripped.lstrip("%").split(maxsplit=1)
    if name and name[0] in EXTENSION_MAGICS:
        return len(name) < 2 or not set(name[1].split()) <= QUIET_EXTENSIONS
    if name and name[0] == "xmode":
        return len(name) < 2 or name[1].strip().lower().startswith("verbose")  # (alone, it cycles to Verbose)
    return not name or name[0] not in QUIET_LINE_MAGICS
