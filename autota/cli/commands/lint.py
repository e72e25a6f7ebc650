"""``autota check`` and ``autota fix``: run the source rules over files, report, rewrite.

Python files go to :mod:`autota.source`, notebooks to :mod:`autota.cli.notebooks`; both give
findings and fixed bytes, written atomically. A file that cannot be read, decoded, parsed or
written is an error for that file alone: the rest are still processed, and the run exits 2.
"""

from __future__ import annotations

import argparse
import difflib
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from autota import source
from autota.catalogue import UnknownCodeError, resolve_selection
from autota.cli import config as config_module
from autota.cli import notebooks
from autota.cli.files import discover, write_atomic
from autota.cli.formats import NAMES, Report, render
from autota.cli.main import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
from autota.cli.progress import progress
from autota.source import ParseError
from autota.source.engine import decode

PARALLEL_THRESHOLD = 8
"""Fewer files than this run in-process: a worker pool costs more than it saves."""


def _worker_context():
    """Fresh worker processes, not forks: a caller may have JAX's threads running (forking
    those can deadlock), and the workers need nothing of the parent's state."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def register(subparsers) -> None:
    for name, help_text in (
        ("check", "report anti-patterns (and, with --diff, show the fixes)"),
        ("fix", "apply safe fixes in place"),
    ):
        p = subparsers.add_parser(name, help=help_text, description=help_text)
        p.add_argument("paths", nargs="*", default=["."], metavar="PATH")
        p.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; write nothing")
        p.add_argument("--unsafe-fixes", action="store_true", default=None, help="also apply/offer unsafe fixes")
        p.add_argument("--select", type=_codes, help="codes or prefixes to enable (AT1,AT201)")
        p.add_argument("--ignore", type=_codes, help="codes or prefixes to disable")
        p.add_argument("--exclude", action="append", default=[], metavar="GLOB", help="skip paths matching GLOB")
        p.add_argument("--output-format", choices=NAMES, default="text")
        p.add_argument("--exit-zero", action="store_true", help="exit 0 even if findings are left")
        p.add_argument("--no-progress", action="store_true", help="never show a progress bar")
        p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="parallel workers")
        p.set_defaults(func=run, command=name)


def _codes(value: str) -> list[str]:
    return [v for v in (part.strip() for part in value.split(",")) if v]


@dataclass
class Outcome:
    """One file's result, small enough to send back from a worker process."""

    path: str
    findings: list
    error: str | None = None
    diff: str = ""
    fixed: int = 0
    text: str | None = None
    """The text the findings' positions refer to, for formats that quote it (suggestions)."""


def _process(path: str, enabled: frozenset[str], mode: str, unsafe: bool, diff: bool) -> Outcome:
    """One file's outcome; an error is reported as the file's, never raised, so that one bad
    file cannot stop the run or lose the other files' results."""
    try:
        return _analyse(path, enabled, mode, unsafe, diff)
    except ParseError as exc:
        return Outcome(path, [], str(exc))
    except RecursionError:
        return Outcome(path, [], "too deeply nested to analyse")
    except Exception as exc:  # a bug must not cost the other files their results
        return Outcome(path, [], f"internal error: {type(exc).__name__}: {exc}")


def _analyse(path: str, enabled: frozenset[str], mode: str, unsafe: bool, diff: bool) -> Outcome:
    engine = notebooks if path.endswith(notebooks.SUFFIX) else source
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return Outcome(path, [], f"cannot read: {exc.strerror or exc}")
    if mode == "check" and not diff:
        return _with_text(Outcome(path, engine.check(data, path, enabled).findings), data, engine)
    result = engine.fix(data, path, enabled, unsafe=unsafe)
    if result.fixed_text is None:
        return _with_text(Outcome(path, result.findings), data, engine)
    if diff:
        findings = engine.check(data, path, enabled).findings if mode == "check" else result.findings
        text = data if mode == "check" else result.fixed_text
        return _with_text(Outcome(path, findings, diff=unified_diff(data, result.fixed_text, path)), text, engine)
    try:
        write_atomic(Path(path), result.fixed_text)
    except OSError as exc:
        why = f"cannot write: {exc.strerror or exc}"
        return _with_text(Outcome(path, engine.check(data, path, enabled).findings, why), data, engine)
    return _with_text(Outcome(path, result.findings, fixed=result.fixes_applied), result.fixed_text, engine)


def _with_text(outcome: Outcome, data: bytes, engine) -> Outcome:
    """Attach the decoded source where a format may quote it: Python files with findings."""
    if outcome.findings and engine is source:
        outcome.text = decode(data)[0]
    return outcome


def unified_diff(before: bytes, after: bytes, path: str) -> str:
    """A unified diff that ``patch -p0`` applies, "no newline at end of file" marks included."""
    lines = difflib.unified_diff(
        before.decode(errors="replace").splitlines(keepends=True),
        after.decode(errors="replace").splitlines(keepends=True),
        path,
        path,
    )
    return "".join(line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n" for line in lines)


def run(args: argparse.Namespace) -> int:
    try:
        start = Path(args.paths[0]) if args.paths else Path(".")
        settings = config_module.load(start if start.exists() else Path("."))
        enabled = resolve_selection(args.select or settings.select, (args.ignore or []) + settings.ignore)
    except (UnknownCodeError, config_module.ConfigError) as exc:
        print(f"autota: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    unsafe = settings.unsafe_fixes if args.unsafe_fixes is None else args.unsafe_fixes
    files, errors = discover(args.paths, args.exclude + settings.exclude)
    jobs = max(1, args.jobs)
    work = [str(p) for p in files]
    call = (enabled, args.command, unsafe, args.diff)
    bar = progress(len(work), disable=args.no_progress)
    outcomes: list[Outcome] = []
    if jobs > 1 and len(work) >= PARALLEL_THRESHOLD:
        with ProcessPoolExecutor(max_workers=min(jobs, len(work)), mp_context=_worker_context()) as pool:
            futures = [pool.submit(_process, path, *call) for path in work]
            for path, future in zip(work, futures):
                try:
                    outcomes.append(future.result())
                except BrokenProcessPool:  # a worker died (out of memory, killed)
                    outcomes.append(Outcome(path, [], "the worker checking this file died"))
                bar.update(1)
    else:
        for path in work:
            outcomes.append(_process(path, *call))
            bar.update(1)
    bar.close()

    findings = [f for o in outcomes for f in o.findings]
    errors += [(o.path, o.error) for o in outcomes if o.error]
    for path, why in errors:
        print(f"{path}: error: {why}", file=sys.stderr)
    sources = {o.path: o.text for o in outcomes if o.text is not None}
    report = Report(findings, errors, args.command, unsafe, sum(o.fixed for o in outcomes), sources)
    if args.diff:
        diff = "".join(o.diff for o in outcomes)
        sys.stdout.write(diff)
        if errors:
            return EXIT_ERROR
        return EXIT_FINDINGS if diff and not args.exit_zero else EXIT_OK
    sys.stdout.write(render(args.output_format, report))
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if findings and not args.exit_zero else EXIT_OK
