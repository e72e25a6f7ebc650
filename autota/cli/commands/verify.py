"""``autota verify corpus/``: every case computes the same before and after its fix, and under
``autota.transform``.

For each case and each of its sizes, ``before`` is compared with ``after`` (the expected fix),
with ``unsafe`` (the expected unsafe fix, where the case has ``unsafe.py``) and with
``autota.transform(before)``: outputs and, where the case names ``grad_argnums``, gradients.
Exit 1 on any mismatch, 2 when a case cannot even be run.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from autota.cli.main import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
from autota.proof.errors import one_line
from autota.proof.render import text_table

HEADERS = ("case", "sizes", "before = after", "before = unsafe", "before = transform", "worst difference")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "verify",
        help="check corpus cases compute the same before and after",
        description="Run every corpus case before and after its fix (its unsafe fix too, where the "
        "case has unsafe.py, and under autota.transform) and compare outputs and gradients.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="a corpus folder or one case folder")
    p.add_argument("--rtol", type=float, default=1e-5, help="relative tolerance (default 1e-5)")
    p.add_argument("--atol", type=float, default=1e-6, help="absolute tolerance (default 1e-6)")
    p.set_defaults(func=run)


def progress_bar(total: int, desc: str):
    """A tqdm bar on a terminal; silent when stderr is not a tty or under CI."""
    from tqdm import tqdm

    quiet = not sys.stderr.isatty() or bool(os.environ.get("CI"))
    return tqdm(total=total, desc=desc, disable=quiet, leave=False, file=sys.stderr)


class CaseError(Exception):
    """A case that cannot be run: its ``before``, its inputs or its files are broken."""


def run(args: argparse.Namespace) -> int:
    from autota.corpus import discover

    cases = []
    for path in args.paths:
        if not Path(path).exists():
            print(f"{path}: error: no such file or directory", file=sys.stderr)
            return EXIT_ERROR
        try:
            found = discover(path)
        except Exception as err:
            print(f"{path}: error: cannot read cases: {one_line(err)}", file=sys.stderr)
            return EXIT_ERROR
        if not found:
            print(f"{path}: error: no corpus cases (no case.toml) here", file=sys.stderr)
            return EXIT_ERROR
        cases += found

    transform, why_not = _transform()
    if transform is None:
        print(f"autota: note: before = transform not checked: {why_not}", file=sys.stderr)

    rows, failures, notes, errors = [], [], [], 0
    with progress_bar(sum(len(c.sizes) for c in cases), "verifying") as bar:
        for case in cases:
            try:
                cells, failed, noted = _verify_case(case, transform, args.rtol, args.atol, bar)
            except CaseError as err:
                print(f"{case.path}: error: {err}", file=sys.stderr)
                rows.append([case.name, _sizes(case), "error", "error", "error", str(err)])
                errors += 1
                continue
            rows.append([case.name, _sizes(case), *cells])
            failures += failed
            notes += noted

    print(text_table(HEADERS, rows))
    for line in failures + notes:
        print(line)
    bad = len({line.split(" ", 1)[0] for line in failures})
    print(f"\n{len(cases)} cases: {len(cases) - bad - errors} ok, {bad} mismatched, {errors} errors")
    return EXIT_ERROR if errors else EXIT_FINDINGS if failures else EXIT_OK


def _verify_case(case, transform, rtol, atol, bar) -> tuple[list[str], list[str], list[str]]:
    """The table cells of one case, a line per failed comparison, and notes.

    A case with ``transform = false`` that ``autota.transform`` refuses to trace (it raises
    ``TransformError``) is "declined", not a mismatch: nothing wrong was computed."""
    from autota.proof import verify

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
        bar.update()
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
    try:
        from autota.jaxpr import transform
    except Exception as err:
        return None, f"autota.transform is not importable ({one_line(err)})"
    return transform, ""


def _sizes(case) -> str:
    return ",".join(str(t) for t in case.sizes)
