"""``autota check`` and ``autota fix``: run the source rules over files, report, rewrite.

Python files go to :mod:`autota.source`, notebooks to :mod:`autota.cli.notebooks`; both give
findings and fixed bytes, written by :func:`autota.cli.files.write_atomic`. A file that cannot
be read, decoded, parsed or written is an error for that file alone: the rest are still
processed, and the run exits 2. Nothing here imports JAX.

Many files are shared among worker processes in small batches. An interrupt (Ctrl-C, SIGINT)
stops the run at the next file boundary: workers ignore SIGINT and finish the file in hand, so
no file is left half-written, and the run exits 130. A second interrupt kills the workers.
"""

from __future__ import annotations

import argparse
import importlib
import multiprocessing
import os
import signal
import sys
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, CancelledError, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from autota.catalogue import RULES, UnknownCodeError, resolve_selection
from autota.cli import config as config_module
from autota.cli.files import Excludes, discover
from autota.cli.formats import NAMES, Report, render
from autota.cli.main import EXIT_CODES_HELP, EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, Interrupted
from autota.cli.progress import progress

if TYPE_CHECKING:
    from autota.source.project import ProjectFunctions

FILES_PER_WORKER = 8
"""A worker pays for itself from about this many files: fewer run in this process."""

SPREAD = 8
"""The files are dealt into this many interleaved runs before they are cut into batches: the
files that cost most sit together in a tree (a folder of scripts), and one batch of only those
would leave the other workers idle at the end."""

MAX_BATCH = 32
"""No batch holds more files, so an interrupt or a dead worker costs at most this many."""

EXAMPLES = {
    "check": """examples:
  autota check src/                          report findings
  autota check --diff src/ | patch -p0       preview, then apply, every safe fix
  autota check --select AT1,AT201 --statistics .
  autota check --output-format github .      annotations in a GitHub Actions job
  cat f.py | autota check - --stdin-filename f.py
""",
    "fix": """examples:
  autota fix src/                            apply safe fixes in place
  autota fix --unsafe-fixes --show-fixes src/
  autota fix --diff src/                     show the fixes, write nothing
  autota fix - --stdin-filename f.py < f.py  the fixed source on stdout
""",
}


def register(subparsers) -> None:
    for name, help_text in (
        ("check", "report anti-patterns (and, with --diff, show the fixes)"),
        ("fix", "apply safe fixes in place"),
    ):
        p = subparsers.add_parser(
            name, help=help_text, description=help_text, epilog=EXAMPLES[name] + "\n" + EXIT_CODES_HELP,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.add_argument("paths", nargs="*", default=["."], metavar="PATH",
                       help="files or folders (default: .); - reads source from stdin")
        p.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; write nothing")
        p.add_argument("--unsafe-fixes", action="store_true", default=None, help="also apply/offer unsafe fixes")
        p.add_argument("--select", type=_codes, help="codes or prefixes to enable (AT1,AT201)")
        p.add_argument("--ignore", type=_codes, help="codes or prefixes to disable")
        p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                       help="skip paths matching GLOB (relative to the working directory)")
        p.add_argument("--force-exclude", action="store_true", default=None,
                       help="apply excludes to files named on the command line too (as pre-commit passes them)")
        p.add_argument("--config", action="append", default=[], metavar="FILE|KEY=VALUE",
                       help="a pyproject.toml or autota.toml to use instead of the nearest one, "
                       "or a TOML setting overriding it (select = ['AT1'])")
        p.add_argument("--stdin-filename", metavar="PATH",
                       help="the name of the source read from stdin, for messages, settings and excludes")
        p.add_argument("--output-format", choices=NAMES, default="text", help="default: text")
        p.add_argument("-o", "--output-file", metavar="FILE", help="write the report to FILE, not stdout")
        p.add_argument("--statistics", action="store_true", help="count the findings per rule instead of listing them")
        p.add_argument("--show-fixes", action="store_true", help="list the fixes applied, per file and rule")
        p.add_argument("--exit-zero", action="store_true", help="exit 0 even if findings are left")
        p.add_argument("-q", "--quiet", action="count", default=0,
                       help="print findings and nothing else; -qq: print nothing, only the exit code says")
        p.add_argument("-v", "--verbose", action="store_true", help="say which settings and how many workers")
        p.add_argument("--no-progress", action="store_true", help="never show a progress bar")
        p.add_argument("-j", "--jobs", type=_jobs, default=0, metavar="N",
                       help="worker processes; 0 (default): one per core, when there are enough files")
        p.set_defaults(func=run, command=name)


def _codes(value: str) -> list[str]:
    return [v for v in (part.strip() for part in value.split(",")) if v]


def _jobs(value: str) -> int:
    try:
        jobs = int(value)
    except ValueError:
        jobs = -1
    if jobs < 0:
        raise argparse.ArgumentTypeError(f"expected a number of workers >= 1, or 0 for one per core; got {value!r}")
    return jobs


def cores() -> int:
    """The cores this process may run on (its affinity mask, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover (macOS, Windows)
        return os.cpu_count() or 1


def workers_for(requested: int, files: int) -> int:
    """Worker processes for ``files`` files: never more than the files or the cores; with
    ``requested == 0``, only as many as have :data:`FILES_PER_WORKER` files each."""
    limit = min(cores(), files)
    if requested == 0:
        return max(1, min(limit, files // FILES_PER_WORKER))
    return max(1, min(requested, limit))


@dataclass(frozen=True)
class Task:
    """One file to process and the settings it is processed with."""

    path: str
    enabled: frozenset[str]
    unsafe: bool
    traced_elsewhere: frozenset[str] = frozenset()
    """Its functions that other files of the run call from traced code (:mod:`autota.source.project`)."""
    imported: ProjectFunctions | None = None
    """The loop wrappers and growers the files of the run define (:class:`autota.source.project.ProjectFunctions`)."""


@dataclass
class Outcome:
    """One file's result, small enough to send back from a worker process."""

    path: str
    findings: list
    error: str | None = None
    diff: bytes = b""
    fixed: int = 0
    fixed_codes: dict[str, int] = field(default_factory=dict)
    text: str | None = None
    """The text the findings' positions refer to, for formats that quote it (suggestions)."""
    output: bytes | None = None
    """For stdin: the source to print back (fixed, or as read)."""


@dataclass(frozen=True)
class Mode:
    command: str
    diff: bool
    show_fixes: bool
    stdin: bool = False


def _process(task: Task, mode: Mode, data: bytes | None = None) -> Outcome:
    """One file's outcome (see :mod:`.one_file`), imported on first use: the parent process of a
    run on many files only hands them to workers, and starts sooner without libcst."""
    from autota.cli.commands import one_file

    return one_file.process(task, mode, data)


# -- workers ---------------------------------------------------------------------------------

_stop = None
"""In a worker: the event the parent sets to stop at the next file."""


def _worker_init(stop) -> None:
    """Leave interrupts to the parent, which stops the workers between files."""
    global _stop
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _stop = stop


def _process_batch(tasks: list[Task], mode: Mode) -> list[Outcome]:
    outcomes = []
    for task in tasks:
        if _stop is not None and _stop.is_set():
            break
        outcomes.append(_process(task, mode))
    return outcomes


def _worker_context():
    """Workers forked from this process where no other thread runs in it, so that a fork
    cannot deadlock: they start at once, with the linter this process imported just before.
    Otherwise (a caller with JAX's threads running, or no ``/proc`` to tell) fresh processes
    from a fork server that imports the linter once."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and _single_threaded():
        importlib.import_module("autota.cli.commands.one_file")  # once, for every worker
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["autota.cli.commands.lint", "autota.cli.commands.one_file"])
        return context
    return multiprocessing.get_context("spawn")  # pragma: no cover


def _single_threaded() -> bool:
    """Whether this process runs one thread, native ones (XLA's pools) included, as Linux lists them."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:  # pragma: no cover (not Linux)
        return False


def _block_sigint():
    """Keep SIGINT from the processes about to start: a Ctrl-C reaches the whole process
    group, and would interrupt a fork server or worker while it imports (a traceback on the
    terminal). Ignored signals stay ignored across fork and exec, so they start ignoring it;
    blocked meanwhile, an interrupt for this process stays pending (Linux keeps a blocked
    signal pending even while ignored) until :func:`_unblock_sigint` lets it through."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover (Windows)
        return None
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    return signal.signal(signal.SIGINT, signal.SIG_IGN)


def _unblock_sigint(handler) -> None:
    if handler is not None:
        signal.signal(signal.SIGINT, handler)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _batches(tasks: list[Task], workers: int) -> list[list[Task]]:
    """Batches of shrinking size, as OpenMP's guided schedule cuts them: each holds a share of
    the files left (at most ``MAX_BATCH``), so the first batches cost little to send and the
    last hold one file each, and no worker is left with a long batch while the others idle.
    The files are interleaved first (see :data:`SPREAD`)."""
    spread = [task for k in range(SPREAD) for task in tasks[k::SPREAD]]
    batches = []
    while spread:
        size = max(1, min(MAX_BATCH, -(-len(spread) // (2 * workers))))
        batches.append(spread[:size])
        spread = spread[size:]
    return batches


def _run_pool(tasks: list[Task], mode: Mode, workers: int, bar, outcomes: list[Outcome]) -> None:
    """Process ``tasks`` in ``workers`` processes, appending to ``outcomes`` as they come.

    On ``KeyboardInterrupt``: no new file is started, the files in hand are finished (or, on
    a second interrupt, their workers killed), and the interrupt is raised again."""
    context = _worker_context()
    stop = context.Event()  # first: starting the resource tracker unblocks SIGINT
    blocked = _block_sigint()  # the fork server and workers start ignoring SIGINT
    try:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_init,
                                   initargs=(stop,))
        pending = {pool.submit(_process_batch, batch, mode): batch for batch in _batches(tasks, workers)}
    except BaseException:
        _unblock_sigint(blocked)
        raise
    try:
        _unblock_sigint(blocked)  # an interrupt that came meanwhile is raised here
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                batch = pending.pop(future)
                try:
                    outcomes.extend(future.result())
                except BrokenProcessPool:  # a worker died (out of memory, killed)
                    outcomes.extend(Outcome(t.path, [], "the worker checking this file died") for t in batch)
                bar.update(len(batch))
    except KeyboardInterrupt:
        stop.set()
        for future in pending:  # the batches not yet sent; the pool stays whole until shut down
            future.cancel()
        try:
            for future in pending:  # not wait(): a cancelled future is never "done" to it
                try:
                    outcomes.extend(future.result())
                except (CancelledError, BrokenProcessPool):
                    pass
        except KeyboardInterrupt:
            for child in multiprocessing.active_children():
                child.terminate()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# -- the command -----------------------------------------------------------------------------


class _Setup(Exception):
    """A one-line error found before any file is processed."""


def _resolver(args) -> config_module.Resolver:
    files = [c for c in args.config if os.path.isfile(c) or c.endswith(".toml")]
    inline: dict = {}
    for text in args.config:
        if text not in files:
            inline.update(config_module.load_inline(text))
    if len(files) > 1:
        raise config_module.ConfigError("--config: give at most one file")
    return config_module.Resolver(config_module.load_file(Path(files[0])) if files else None, inline)


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    stdin = "-" in args.paths
    try:
        if stdin and len(args.paths) > 1:
            raise _Setup("- (stdin) cannot be mixed with other paths")
        if args.stdin_filename and not stdin:
            raise _Setup("--stdin-filename needs - among the paths")
        resolver = _resolver(args)
        cli_excludes = Excludes(tuple(args.exclude), os.getcwd())
        plans: dict[config_module.Settings, tuple[frozenset[str], bool]] = {}

        def plan(path: str) -> tuple[frozenset[str], bool]:
            settings = resolver.for_path(path)
            if settings not in plans:
                try:
                    enabled = resolve_selection(args.select or settings.select, (args.ignore or []) + list(settings.ignore))
                except UnknownCodeError as exc:
                    raise _Setup(f"{settings.source}: {exc}" if settings.source and not args.select else str(exc))
                unsafe = settings.unsafe_fixes if args.unsafe_fixes is None else args.unsafe_fixes
                plans[settings] = (enabled, unsafe)
            return plans[settings]

        def excludes_of(path: str) -> list[Excludes]:
            settings = resolver.for_path(path)
            return [Excludes(settings.exclude, str(settings.root)), cli_excludes]

        def force_exclude(path: str) -> bool:
            return args.force_exclude or resolver.for_path(path).force_exclude

        mode = Mode(args.command, args.diff, args.show_fixes, stdin)
        if stdin:
            return _run_stdin(args, mode, plan, excludes_of, force_exclude)
        files, errors = discover(args.paths, excludes_of, force_exclude)
        tasks = [Task(str(path), *plan(str(path))) for path in files]
        workers = workers_for(args.jobs, len(tasks))
        after_check = mode.command == "check" and not mode.diff
        if len(tasks) > 1:
            tasks = _with_project_functions(tasks, workers)
        if len(tasks) > 1 and not after_check:
            tasks = _with_project(tasks)
    except (_Setup, UnknownCodeError, config_module.ConfigError) as exc:
        print(f"autota: error: {exc}", file=sys.stderr)
        return EXIT_ERROR

    if args.verbose:
        _describe(args, resolver, tasks, workers)
    outcomes: list[Outcome] = []
    bar = progress(len(tasks), disable=args.no_progress or args.quiet > 0)
    try:
        if workers > 1:
            _run_pool(tasks, mode, workers, bar, outcomes)
        else:
            for task in tasks:
                outcomes.append(_process(task, mode))
                bar.update(1)
    except KeyboardInterrupt:
        bar.close()
        fixed = sum(1 for o in outcomes if o.fixed)
        done = f"{len(outcomes)} of {len(tasks)} files processed"
        raise Interrupted(f"{done}, {fixed} rewritten" if mode.command == "fix" and not mode.diff else done) from None
    bar.close()
    outcomes.sort(key=lambda o: o.path)
    if len(tasks) > 1 and after_check:
        outcomes = _without_traced_elsewhere(outcomes, [t.path for t in tasks])
    if args.verbose:
        print(f"autota: {len(tasks)} files in {time.monotonic() - started:.2f} s", file=sys.stderr)
    unsafe = args.unsafe_fixes if args.unsafe_fixes is not None else any(t.unsafe for t in tasks)
    try:
        return _report(args, mode, outcomes, errors, unsafe)
    except _Setup as exc:
        print(f"autota: error: {exc}", file=sys.stderr)
        return EXIT_ERROR


def _run_stdin(args, mode: Mode, plan, excludes_of, force_exclude) -> int:
    """``-``: the source from stdin, the findings as for a file; ``fix`` prints the fixed source."""
    name = args.stdin_filename or "-"
    data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
    if args.stdin_filename and force_exclude(name) and any(e.match(name) for e in excludes_of(name)):
        if mode.command == "fix" and not mode.diff:
            _write(sys.stdout, data)
        return EXIT_OK
    task = Task(name, *plan(name))
    outcome = _process(task, mode, data)
    to_stderr = mode.command == "fix" and not mode.diff
    if to_stderr:  # stdout carries the source, as ``ruff check --fix -`` does
        _write(sys.stdout, outcome.output if outcome.output is not None else data)
        sys.stdout.flush()
    return _report(args, mode, [outcome], [], task.unsafe, to_stderr)


def _with_project(tasks: list[Task]) -> list[Task]:
    """Before ``fix``: the tasks, each told which of its functions the other files call from
    traced code (see :mod:`autota.source.project`), for the files that may hold an eager update."""
    from autota.source import project

    targets = [t.path for t in tasks if "AT102" in t.enabled and _may_update(t.path)]
    traced = project.traced_elsewhere([t.path for t in tasks], targets) if targets else {}
    return [replace(t, traced_elsewhere=traced[t.path]) if t.path in traced else t for t in tasks]


def _with_project_functions(tasks: list[Task], workers: int) -> list[Task]:
    """The tasks, each told of the loop wrappers and growers the files of the run define (see
    :func:`autota.source.project.project_functions`): a module's call of another's is a loop or a growth.
    With several workers, each file's own facts are read in parallel: done in this process
    alone, the pass held the other cores idle for a seventh of a run over jax-md."""
    from autota.source import project

    paths = [t.path for t in tasks]
    found = project.project_functions(paths, each=_in_parallel(workers) if workers > 1 else map)
    return [replace(t, imported=found) for t in tasks] if found else tasks


def _in_parallel(workers: int):
    """``map`` over ``workers`` processes, in chunks, the results in order; an interrupt stops the
    chunks not started and is raised again, and a pool that breaks (a worker killed) leaves the
    rest to this process."""

    def each(function, items: list) -> list:
        size = max(1, -(-len(items) // (4 * workers)))
        chunks = [items[k : k + size] for k in range(0, len(items), size)]
        context = _worker_context()
        blocked = _block_sigint()  # the workers start ignoring SIGINT
        try:
            pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
            futures = [pool.submit(_map_chunk, function, chunk) for chunk in chunks]
        finally:
            _unblock_sigint(blocked)
        try:
            results = []
            for future, chunk in zip(futures, chunks, strict=True):
                try:
                    results.extend(future.result())
                except BrokenProcessPool:
                    results.extend(map(function, chunk))
            return results
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    return each


def _map_chunk(function, items: list) -> list:
    return [function(item) for item in items]


def _may_update(path: str) -> bool:
    try:
        return ".at[" in Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def _without_traced_elsewhere(outcomes: list[Outcome], paths: list[str]) -> list[Outcome]:
    """After ``check``: the AT102 findings of functions that another file of the run calls from
    traced code dropped (see :mod:`autota.source.project`). Only the files with such a finding,
    and the files that may import them, are read again: most runs read none."""
    from autota.source import project

    functions = {
        o.path: project.top_functions(o.text)
        for o in outcomes
        if o.text is not None and any(f.code == "AT102" for f in o.findings)
    }
    asked = {functions[o.path].get(f.location.line) for o in outcomes if o.path in functions for f in o.findings}
    asked.discard(None)
    if not asked:
        return outcomes  # only methods, module-level code or nothing: no other file can call them
    traced = project.traced_elsewhere(paths, list(functions), asked, _notebook_programs(paths, asked))
    kept = []
    for outcome in outcomes:
        names = traced.get(outcome.path)
        if names:
            outcome = replace(outcome, findings=[
                f for f in outcome.findings if f.code != "AT102" or functions[outcome.path].get(f.location.line) not in names
            ])
        kept.append(outcome)
    return kept


def _notebook_programs(paths: list[str], asked: set[str]) -> dict[str, str]:
    """The code cells of the run's notebooks that name one of ``asked``, each as one program:
    their top-level code calls functions eagerly, as a script's does."""
    from autota.cli.notebooks import SUFFIX, Notebook, Program, ParseError

    found = {}
    for path in paths:
        if not path.endswith(SUFFIX):
            continue
        try:
            data = Path(path).read_bytes()
            if not any(name.rpartition(".")[2].encode() in data for name in asked):
                continue
            found[path] = Program.build(Notebook.read(data)).text
        except (OSError, ParseError, ValueError):
            continue
    return found


def _describe(args, resolver, tasks: list[Task], workers: int) -> None:
    sources = Counter(str(resolver.for_path(t.path).source or "defaults") for t in tasks)
    for where, count in sorted(sources.items()):
        print(f"autota: settings from {where} for {count} file{'s' * (count != 1)}", file=sys.stderr)
    print(f"autota: {len(tasks)} files, {workers} worker{'s' * (workers != 1)} ({cores()} cores)", file=sys.stderr)


def _report(args, mode: Mode, outcomes: list[Outcome], errors: list[tuple[str, str]], unsafe: bool,
            to_stderr: bool = False) -> int:
    findings = [f for o in outcomes for f in o.findings]
    errors = sorted(errors + [(o.path, o.error) for o in outcomes if o.error])
    for path, why in errors:
        print(f"{path}: error: {why}", file=sys.stderr)
    if args.diff:
        payload = b"".join(o.diff for o in outcomes)
        left = bool(payload)
    else:
        sources = {o.path: o.text for o in outcomes if o.text is not None}
        report = Report(findings, errors, args.command, unsafe, sum(o.fixed for o in outcomes), sources)
        report.color = _color(args, sys.stderr if to_stderr else sys.stdout)
        report.summary = args.quiet == 0
        if args.statistics:
            text = statistics(report, args.output_format)
        else:
            text = render(args.output_format, report)
        if args.show_fixes and mode.command == "fix":
            text += show_fixes(outcomes, mode.stdin)
        payload = text.encode() if args.quiet < 2 else b""
        left = bool(findings)
    _emit(args, payload, to_stderr)
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if left and not args.exit_zero else EXIT_OK


def _emit(args, payload: bytes, to_stderr: bool) -> None:
    if args.output_file:
        try:
            Path(args.output_file).write_bytes(payload)
        except OSError as exc:
            raise _Setup(f"--output-file {args.output_file}: {exc.strerror or exc}") from None
        return
    stream = sys.stderr if to_stderr else sys.stdout
    stream.flush()
    _write(stream, payload)
    stream.flush()


def _write(stream, payload: bytes) -> None:
    """Bytes to a standard stream; to a text stream with no bytes under it (``io.StringIO`` where
    a program calls :func:`autota.cli.main.main` itself) as text."""
    binary = getattr(stream, "buffer", None)
    if binary is not None:
        binary.write(payload)
    else:
        stream.write(payload.decode("utf-8", errors="surrogateescape"))


def _color(args, stream) -> bool:
    """Colour for a terminal: never into a file or a pipe, never with NO_COLOR; FORCE_COLOR
    forces it (https://no-color.org, https://force-color.org)."""
    if args.output_file or args.output_format != "text" or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stream.isatty() and os.environ.get("TERM") != "dumb"


def statistics(report: Report, output_format: str) -> str:
    """Findings counted per rule, most first: ``count  code  [*] name`` (``[*]``: all of
    them fixable), or a JSON list with ``--output-format json``."""
    counts = Counter(f.code for f in report.findings)
    fixable = Counter(f.code for f in report.findings if report.offers_fix(f))
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if output_format == "json":
        import json

        return json.dumps([{"code": code, "name": RULES[code].name if code in RULES else code, "count": n,
                            "fixable": fixable[code] == n} for code, n in rows], indent=2) + "\n"
    width = max((len(str(n)) for n in counts.values()), default=1)
    lines = [f"{n:>{width}}\t{code}\t{'[*] ' if fixable[code] == n else '    '}{RULES[code].name if code in RULES else ''}"
             for code, n in rows]
    if report.summary:
        total, fixes = len(report.findings), sum(fixable.values())
        lines.append(f"Found {total} finding{'s' * (total != 1)}." + (f"\n[*] {fixes} fixable with autota fix." if fixes else ""))
    return "\n".join(lines) + "\n" if lines else ""


def show_fixes(outcomes: list[Outcome], stdin: bool) -> str:
    """``Fixed N findings:`` and, per file, each rule's count, as Ruff's ``--show-fixes``."""
    fixed = [o for o in outcomes if o.fixed_codes]
    if not fixed:
        return "No fixes applied.\n"
    total = sum(sum(o.fixed_codes.values()) for o in fixed)
    lines = [f"Fixed {total} finding{'s' * (total != 1)}:"]
    for o in fixed:
        lines.append(f"- {o.path}:")
        for code, n in sorted(o.fixed_codes.items()):
            name = RULES[code].name if code in RULES else code
            lines.append(f"    {n} \u00d7 {code} ({name})")
    return "\n".join(lines) + "\n"
