"""What ``autota check``/``fix`` does to one file: check or fix it, write it back, and build its
:class:`~autota.cli.commands.lint.Outcome`. It runs in the workers (and in the parent process
for a few files or stdin); only this side imports the front ends.
"""

from __future__ import annotations

import difflib
import gc
from collections import Counter
from pathlib import Path

from autota import source
from autota.cli import notebooks
from autota.cli.commands.lint import Mode, Outcome, Task
from autota.cli.files import write_atomic
from autota.source import ParseError
from autota.source.engine import decode

# libcst rebuilds every node it visits, so one file's analysis allocates millions of objects and
# keeps few; at the default threshold (700) the collector runs thousands of times a file and
# takes about a seventh of the time. Raised, as mypy does for the same reason, for the processes
# that analyse files (this module is imported only there).
gc.set_threshold(200_000, 30, 30)


def process(task: Task, mode: Mode, data: bytes | None = None) -> Outcome:
    """One file's outcome; an error is reported as the file's, never raised, so that one bad
    file cannot stop the run or lose the other files' results."""
    try:
        return _analyse(task, mode, data)
    except ParseError as exc:
        return Outcome(task.path, exc.findings, str(exc), output=data)
    except RecursionError:
        return Outcome(task.path, [], "too deeply nested to analyse", output=data)
    except Exception as exc:  # a bug must not cost the other files their results
        if _interrupted(exc):
            raise KeyboardInterrupt from None
        return Outcome(task.path, [], f"internal error: {type(exc).__name__}: {exc}", output=data)


def _interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while a ``KeyboardInterrupt`` unwound: a ``finally`` clause in
    libcst's position provider looks up a node the interrupt kept it from recording, and its
    ``KeyError`` replaces the interrupt (a Ctrl-C in the middle of a file was reported as that
    file's internal error)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__context__
    return False


def _analyse(task: Task, mode: Mode, data: bytes | None) -> Outcome:
    path, enabled = task.path, task.enabled
    engine = notebooks if path.endswith(notebooks.SUFFIX) else source
    if data is None:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            return Outcome(path, [], f"cannot read: {exc.strerror or exc}")
    options = {"traced_elsewhere": task.traced_elsewhere} if task.traced_elsewhere else {}
    if task.imported and engine is source:
        options["imported"] = task.imported
    if mode.command == "check" and not mode.diff:
        return _with_text(Outcome(path, engine.check(data, path, enabled, **options).findings, output=data), data, engine)
    result = engine.fix(data, path, enabled, unsafe=task.unsafe, **options)
    if result.fixed_text is None:
        return _with_text(Outcome(path, result.findings, output=data), data, engine)
    if mode.diff:
        findings = engine.check(data, path, enabled, **options).findings if mode.command == "check" else result.findings
        text = data if mode.command == "check" else result.fixed_text
        diff = unified_diff(data, result.fixed_text, path, engine is source)
        return _with_text(Outcome(path, findings, diff=diff, output=data), text, engine)
    fixed_codes = {}
    if mode.show_fixes:
        before = Counter(f.code for f in engine.check(data, path, enabled, **options).findings)
        fixed_codes = dict(before - Counter(f.code for f in result.findings))
    outcome = Outcome(path, result.findings, fixed=result.fixes_applied, fixed_codes=fixed_codes,
                      output=result.fixed_text)
    if not mode.stdin:
        try:
            write_atomic(Path(path), result.fixed_text)
        except OSError as exc:
            why = f"cannot write: {exc.strerror or exc}"
            return _with_text(Outcome(path, engine.check(data, path, enabled, **options).findings, why), data, engine)
    return _with_text(outcome, result.fixed_text, engine)


def _with_text(outcome: Outcome, data: bytes, engine) -> Outcome:
    """Attach the decoded source where a format may quote it: Python files with findings."""
    if outcome.findings and engine is source:
        outcome.text = decode(data)[0]
    return outcome


def unified_diff(before: bytes, after: bytes, path: str, python: bool = True) -> bytes:
    """A unified diff that ``patch -p0`` applies, in the file's own encoding (a latin-1 file's
    diff is latin-1), "no newline at end of file" marks included."""
    encoding = decode(before)[1] if python else "utf-8"
    old, new = before.decode(encoding), after.decode(encoding)
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), path, path)
    text = "".join(line if line.endswith(("\n", "\r")) else f"{line}\n\\ No newline at end of file\n" for line in lines)
    return text.encode(encoding, errors="surrogateescape")
