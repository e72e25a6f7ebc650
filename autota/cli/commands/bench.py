"""``autota bench``: how run time and memory grow with T, before and after.

* ``autota bench corpus/``: every case with a fix, ``before`` against ``after``;
* ``autota bench file.py::func --args module:make_args``: a user's own function against
  ``autota.transform(func)`` (or alone with ``--no-transform``), with no harness to write.

Both print a table of fitted exponents and ratios; ``--markdown`` prints it as Markdown for a
README or a PR comment, and ``--plot out.png`` draws the log-log chart next to it.
"""

from __future__ import annotations

import argparse
import sys

from autota.cli.cases import CaseError, missing_jax, run_cases
from autota.cli.commands.verify import add_case_options, describe, find_cases
from autota.cli.main import EXIT_CODES_HELP, EXIT_ERROR, EXIT_OK
from autota.cli.progress import progress

MODES = ("fwd", "grad")
"""The modes :func:`autota.proof.measure` knows; checked against it when measuring."""

EXAMPLES = """examples:
  autota bench corpus/ --markdown --plot bench.png
  autota bench corpus/loop_rnn_fori_states --sizes 64,128,256,512
  autota bench path/to/file.py::func --args path/to/inputs.py:make_args
"""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "bench",
        help="measure complexity before and after",
        description="Fit how run time and XLA memory grow with T, before and after a fix. Corpus "
        "cases run one process each, within a time and memory budget, XLA's log lines kept out "
        "of the way. Needs jax-autota[jax]; --plot needs jax-autota[plot].",
        epilog=EXAMPLES + "\n" + EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("target", help="a corpus folder, one case folder, or path/to/file.py::function")
    p.add_argument("--args", dest="factory", metavar="MODULE:FUNC",
                   help="for file.py::function: make_args(T) -> tuple of arguments")
    p.add_argument("--sizes", type=_sizes, help="values of T, e.g. 64,128,256 (default: the case's bench_sizes)")
    p.add_argument("--modes", type=_modes, default=MODES, help="fwd, grad or both (default fwd,grad)")
    p.add_argument("--static-argnums", type=_argnums, default=(), metavar="N,...",
                   help="for file.py::function: arguments kept as Python values")
    p.add_argument("--repeats", type=int, default=5, help="timing samples per size (default 5)")
    p.add_argument("--no-transform", action="store_true",
                   help="for file.py::function: measure it alone, not against autota.transform")
    p.add_argument("--plot", metavar="OUT.png", help="draw a log-log chart (needs jax-autota[plot])")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    add_case_options(p, timeout_s=600)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    why = missing_jax("bench")
    if why:
        print(f"autota: error: {why}", file=sys.stderr)
        return EXIT_ERROR
    from autota.proof.errors import ProofInputError, one_line

    try:
        if args.plot:
            from autota.proof.plot import require

            require()
        if "::" in args.target:
            results, details = _bench_function(args)
        else:
            results, details = _bench_corpus(args)
        if args.plot:
            from autota.proof.plot import plot

            plot([(name, ms) for name, ms, _ in results], args.plot)
    except ProofInputError as err:
        print(f"{err.path or args.target}: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as err:  # the user's code raised while being measured
        print(f"{args.target}: error: {one_line(err)}", file=sys.stderr)
        return EXIT_ERROR
    _print(results, details, args)
    return EXIT_OK


def _bench_corpus(args):
    """``[(case name, (before, after), rows)]`` for every case that has a fix, each measured
    in its own process."""
    from autota.proof.errors import ProofInputError

    cases, why = find_cases([args.target], lambda c: c.has_fix,
                            "no corpus case with a fix (case.toml, before.py != after.py) here")
    if cases is None:
        raise ProofInputError(why.split(": error: ", 1)[1], args.target)
    with progress(len(cases), desc="benchmarking", unit="case") as bar:
        def done(run) -> None:
            bar.update()
            if args.verbose or run.error:
                print(describe(run), file=sys.stderr)

        runs = run_cases(cases, "autota.cli.commands.bench:bench_case", (args.sizes, args.modes, args.repeats),
                         args.jobs, args.timeout, args.max_memory, done)
    failed = [run for run in runs if run.error is not None]
    if failed:
        raise ProofInputError(failed[0].error, str(failed[0].case.path))
    return [run.value for run in runs], []


def bench_case(case, sizes, modes, repeats):
    """In a case's process: ``(name, (before, after), rows)`` of one corpus case."""
    from autota.proof import compare
    from autota.proof.errors import ProofInputError, one_line
    from autota.proof.render import bench_rows

    try:
        before, after = case.entry_of(case.load_before()), case.entry_of(case.load_after())
    except Exception as err:
        raise CaseError(f"cannot load: {one_line(err)}") from err
    try:
        c = compare(
            before, after, case.make_args, sizes or case.bench_sizes, modes,
            static_argnums=case.static_argnums, grad_argnums=case.grad_argnums, repeats=repeats,
        )
    except ProofInputError as err:
        raise CaseError(str(err)) from err
    return case.name, (c.before, c.after), bench_rows(case.name, c)


def _bench_function(args):
    """One result for ``file.py::func``, against ``autota.transform(func)`` unless asked not to
    or unavailable; the detailed tables go in ``details``."""
    from autota.proof import compare, measure
    from autota.proof.errors import ProofInputError, one_line
    from autota.proof.render import bench_rows
    from autota.proof.targets import load_factory, load_function

    fn, name = load_function(args.target)
    if not args.factory:
        raise ProofInputError("needs --args module:make_args (a function of T returning the arguments)")
    make_args = load_factory(args.factory)
    sizes = args.sizes or (64, 128, 256, 512)
    transformed = None
    if not args.no_transform:
        try:
            from autota.jaxpr import transform
        except Exception as err:
            print(f"autota: note: measuring {name} alone: autota.transform unavailable ({one_line(err)})",
                  file=sys.stderr)
        else:
            transformed = transform(fn, static_argnums=args.static_argnums)
    options = dict(static_argnums=args.static_argnums, repeats=args.repeats)
    with progress(len(sizes), desc="benchmarking", unit="size") as bar:
        if transformed is None:
            m = measure(fn, make_args, sizes, args.modes, name=name, progress=bar.update, **options)
            return [(name, (m,), None)], [m]
        c = compare(fn, transformed, make_args, sizes, args.modes, names=(name, f"transform({name})"),
                    progress=bar.update, **options)
    return [(name, (c.before, c.after), bench_rows(name, c))], [c]


def _print(results, details, args) -> None:
    """Text: the detailed tables of a single function, then the bench table. Markdown: the
    bench table (or, for a function measured alone, its figures), a legend and the chart."""
    from autota.proof.render import BENCH_HEADERS, markdown_table, measurement_rows, text_table

    rows = [row for _, _, rs in results if rs is not None for row in rs]
    if not args.markdown:
        for d in details:
            print(d, end="\n\n")
        if rows:
            print(text_table(BENCH_HEADERS, rows))
        return
    if rows:
        print(markdown_table(BENCH_HEADERS, rows))
    else:
        for _, (m,), _ in results:
            print(markdown_table(*measurement_rows(m)))
    sizes = ", ".join(str(t) for t in results[0][1][0].sizes)
    print(f"\nExponents fitted over T = {sizes}; `?` marks an uncertain fit; ratios are before / after.")
    if args.plot:
        print(f"\n![run time and memory against T]({args.plot})")


def _ints(text: str, least: int) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError:
        values = ()
    if not values or any(v < least for v in values):
        raise argparse.ArgumentTypeError(f"expected comma-separated integers >= {least}, got {text!r}")
    return values


def _sizes(text: str) -> tuple[int, ...]:
    return _ints(text, 1)


def _argnums(text: str) -> tuple[int, ...]:
    return _ints(text, 0)


def _modes(text: str) -> tuple[str, ...]:
    modes = tuple(m.strip() for m in text.split(",") if m.strip())
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        raise argparse.ArgumentTypeError(f"modes are {', '.join(MODES)}; got {text!r}")
    return modes
