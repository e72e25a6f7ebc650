"""``autota verify corpus/``: every case computes the same before and after its fix, and under
``autota.transform``.

For each case and each of its sizes, ``before`` is compared with ``after`` (the expected fix),
with ``unsafe`` (the expected unsafe fix, where the case has ``unsafe.py``) and with
``autota.transform(before)``: outputs and, where the case names ``grad_argnums``, gradients.
Exit 1 on any mismatch, 2 when a case cannot even be run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autota.cli.cases import CaseError, missing_jax, run_cases
from autota.cli.main import EXIT_CODES_HELP, EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
from autota.cli.progress import progress

HEADERS = ("case", "sizes", "before = after", "before = unsafe", "before = transform", "worst difference")

EXAMPLES = """examples:
  autota verify corpus/                       every case, one at a time
  autota verify corpus/ --jobs 2 --timeout 120 --max-memory 2048
  autota verify corpus/loop_rnn_fori_states   one case
"""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "verify",
        help="check corpus cases compute the same before and after",
        description="Run every corpus case before and after its fix (its unsafe fix too, where the "
        "case has unsafe.py, and under autota.transform) and compare outputs and gradients. "
        "Each case runs in its own process, within a time and memory budget; XLA's log lines "
        "are kept out of the way (shown for a failed case, or with --verbose). Needs jax-autota[jax].",
        epilog=EXAMPLES + "\n" + EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="a corpus folder or one case folder")
    p.add_argument("--rtol", type=float, default=1e-5, help="relative tolerance (default 1e-5)")
    p.add_argument("--atol", type=float, default=1e-6, help="absolute tolerance (default 1e-6)")
    add_case_options(p, timeout_s=300)
    p.set_defaults(func=run)


def add_case_options(p, timeout_s: float) -> None:
    """``--jobs``, ``--timeout``, ``--max-memory`` and ``--verbose`` for commands over corpus cases."""
    p.add_argument("-j", "--jobs", type=_positive_int, default=1, metavar="N",
                   help="cases run in parallel processes (default 1)")
    p.add_argument("--timeout", type=_positive_float, default=timeout_s, metavar="SECONDS",
                   help=f"time budget of one case (default {timeout_s:g})")
    p.add_argument("--max-memory", type=_positive_float, default=4096, metavar="MIB",
                   help="memory budget (resident) of one case's process (default 4096)")
    p.add_argument("-v", "--verbose", action="store_true", help="print each case's time, peak memory and stderr")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}")
    return value


def find_cases(paths: list[str], want=lambda case: True, none_here="no corpus cases (no case.toml) here"):
    """The cases below ``paths``, or ``(None, message)`` naming the path that has none."""
    from autota.corpus import discover
    from autota.proof.errors import one_line

    cases = []
    for path in paths:
        if not Path(path).exists():
            return None, f"{path}: error: no such file or directory"
        try:
            found = [c for c in discover(path) if want(c)]
        except Exception as err:
            return None, f"{path}: error: cannot read cases: {one_line(err)}"
        if not found:
            return None, f"{path}: error: {none_here}"
        cases += found
    return cases, ""


def describe(run) -> str:
    """One case's time, peak memory and stderr, for ``--verbose`` and for a failed case."""
    peak = f", peak {run.peak_mib:.0f} MiB" if run.peak_mib else ""
    line = f"{run.case.name}: {run.seconds:.1f} s{peak}"
    tail = run.stderr_tail()
    return f"{line}\n{tail}" if tail else line


def run(args: argparse.Namespace) -> int:
    why = missing_jax("verify")
    if why:
        print(f"autota: error: {why}", file=sys.stderr)
        return EXIT_ERROR
    cases, why = find_cases(args.paths)
    if cases is None:
        print(why, file=sys.stderr)
        return EXIT_ERROR

    rows, failures, notes, errors, why_not = [], [], [], 0, set()
    with progress(len(cases), desc="verifying", unit="case") as bar:
        def done(run) -> None:
            bar.update()
            if args.verbose or run.error:
                print(describe(run), file=sys.stderr)

        runs = run_cases(cases, "autota.cli.commands.verify:verify_case", (args.rtol, args.atol),
                         args.jobs, args.timeout, args.max_memory, done)
    for run in runs:
        case = run.case
        if run.error is not None:
            print(f"{case.path}: error: {run.error}", file=sys.stderr)
            rows.append([case.name, _sizes(case), "error", "error", "error", run.error])
            errors += 1
            continue
        cells, failed, noted, transform_missing = run.value
        rows.append([case.name, _sizes(case), *cells])
        failures += failed
        notes += noted
        if transform_missing:
            why_not.add(transform_missing)
    for why in sorted(why_not):
        print(f"autota: note: before = transform not checked: {why}", file=sys.stderr)

    from autota.proof.render import text_table

    print(text_table(HEADERS, rows))
    for line in failures + notes:
        print(line)
    bad = len({line.split(" ", 1)[0] for line in failures})
    print(f"\n{len(cases)} cases: {len(cases) - bad - errors} ok, {bad} mismatched, {errors} errors")
    return EXIT_ERROR if errors else EXIT_FINDINGS if failures else EXIT_OK


def verify_case(case, rtol: float, atol: float):
    """In a case's process: its table cells, failure lines, notes, and why ``autota.transform``
    was not checked (``""`` when it was)."""
    transform, why_not = _transform()
    return (*_verify_case(case, transform, rtol, atol), why_not)


def _verify_case(case, transform, rtol, atol) -> tuple[list[str], list[str], list[str]]:
    """The table cells of one case, a line per failed comparison, and notes.

    A case with ``transform = false`` that ``autota.transform`` refuses to trace (it raises
    ``TransformError``) is "declined", not a mismatch: nothing wrong was computed."""
    from autota.proof import verify
    from autota.proof.errors import one_line

    try:
        before = case.entry_of(case.load_before())
        after = case.entry_of(case.load_after())
        unsafe = case.entry_of(case.load_unsafe()) if case.has_unsafe_fix else None
    except Exception as err:
        raise CaseError(f"cannot load: {one_line(err)}") from err
    targets = {}
    if case.has_fix:
        targets["after"] = after
    if unsafe is not None:
        targets["unsafe"] = _on_copies(unsafe)
    declined: list[str] = []
    if transform is not None:
        try:
            targets["transform"] = _declining(transform(before, static_argnums=case.static_argnums), declined)
        except Exception as err:
            raise CaseError(f"autota.transform(before) raised {one_line(err)}") from err

    status = {label: "ok" for label in targets}
    worst, failures = None, []
    for size in case.sizes:
        try:
            args = case.make_args(size)
        except Exception as err:
            raise CaseError(f"make_args({size}) raised {one_line(err)}") from err
        for label, g in targets.items():
            try:
                report = verify(
                    before, g, *args, rtol=rtol, atol=atol, grad=bool(case.grad_argnums),
                    grad_argnums=case.grad_argnums, static_argnums=case.static_argnums,
                )
            except Exception as err:
                raise CaseError(f"before raised at T={size}: {one_line(err)}") from err
            if label == "transform" and declined and not case.transform:
                status[label] = "declined"
                continue
            if not report.passed:
                status[label] = "MISMATCH"
                failures.append(f"{case.name} T={size} before vs {label}: {report}")
            leaf = report.worst
            if leaf is not None and (worst is None or (not leaf.ok, leaf.score) >= (not worst[1].ok, worst[1].score)):
                worst = (size, leaf)
    if status.get("transform") == "ok" and case.transform:
        unrewritten = _not_rewritten(targets["transform"].__wrapped__, case)
        if unrewritten:
            status["transform"] = "NOT REWRITTEN"
            failures.append(f"{case.name} before vs transform: {unrewritten}")
    cells = [
        status.get("after", "no fix"),
        status.get("unsafe", "no fix"),
        status.get("transform", "n/a"),
        f"T={worst[0]} {worst[1]}" if worst else "-",
    ]
    notes = [f"note: {case.name}: autota.transform declined it: {declined[0]}"] if status.get("transform") == "declined" else []
    return cells, failures, notes


def _not_rewritten(transformed, case) -> str | None:
    """Why ``transformed`` did not rewrite a case marked ``transform = true``, or ``None``.

    Equal values alone prove nothing here: a program passed through untouched equals the
    original too. So the case must have a rewrite ``autota.analyze`` reports as applied.
    """
    from autota.jaxpr import analyze

    findings = analyze(transformed, *case.make_args(case.sizes[-1]))
    if any(f.applied for f in findings):
        return None
    return "marked transform = true, but nothing was rewritten" + "".join(
        f"; {f}" for f in findings if f.code == "AT001"
    )


def _on_copies(fn):
    """``fn`` called on copies of its JAX array arguments.

    ``verify`` passes the same arguments to every call, and an unsafe fix may donate them
    (delete them once used). The copies make each call see its own, so the check proves what
    the case claims: equivalence for a caller that does not reuse what it passed.
    """
    import jax
    import jax.numpy as jnp

    def call(*args):
        return fn(*jax.tree_util.tree_map(lambda x: jnp.copy(x) if isinstance(x, jax.Array) else x, args))

    return call


def _declining(transformed, declined: list[str]):
    """``transformed``, noting in ``declined`` when it refuses a function it cannot trace
    (a ``TransformError``): no wrong answer, so not a mismatch where the case expects no
    rewrite."""
    from autota.jaxpr import TransformError
    from autota.proof.errors import one_line

    def call(*args):
        try:
            return transformed(*args)
        except TransformError as err:
            declined.append(one_line(err))
            raise

    call.__wrapped__ = transformed
    return call


def _transform():
    """``autota.jaxpr.transform`` or ``None`` and why it cannot be imported."""
    from autota.proof.errors import one_line

    try:
        from autota.jaxpr import transform
    except Exception as err:
        return None, f"autota.transform is not importable ({one_line(err)})"
    return transform, ""


def _sizes(case) -> str:
    return ",".join(str(t) for t in case.sizes)
