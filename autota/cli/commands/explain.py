"""``autota explain file.py::func --args inputs.py:make_args``: what grad saves, loop by loop.

Prints, for the largest size, each loop's findings and the residuals ``jax.grad`` keeps per
step (shape, dtype, bytes, producing primitive, source line) before and after
``autota.transform``, with the rule that removes each, and XLA's temp bytes of ``jit(grad)``;
then, over ``--sizes``, how each loop's residual bytes grow with T. ``--grad`` also times
``jit(grad)`` before and after; ``--markdown`` prints Markdown for a PR comment; ``--plot``
draws saved bytes against T. Exit 0, or 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys

from autota.cli.cases import missing_jax
from autota.cli.main import EXIT_ERROR, EXIT_OK

DEFAULT_SIZES = (64, 128, 256, 512)
"""As ``autota bench``: large enough that an O(T^2) term outweighs the O(T) ones in a fit."""


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "explain",
        help="show what grad saves per loop, before and after autota.transform",
        description="Report the residuals reverse mode saves in each loop of a function, before and "
        "after autota.transform, and fit how they grow with T.",
    )
    p.add_argument("target", help="path/to/file.py::function")
    p.add_argument("--args", dest="factory", metavar="MODULE:FUNC", required=True,
                   help="make_args(T) -> tuple of arguments (module:func or path/to/inputs.py:func)")
    p.add_argument("--sizes", type=_sizes, default=DEFAULT_SIZES,
                   help="values of T, e.g. 64,128,256 (default 64,128,256,512); one value skips the growth fit")
    p.add_argument("--select", type=_codes, metavar="CODES",
                   help="rules the transform applies, e.g. AT201,AT203 (default: all it supports)")
    p.add_argument("--grad", action="store_true", help="also time jit(grad) before and after at each size")
    p.add_argument("--markdown", action="store_true", help="print Markdown tables")
    p.add_argument("--plot", metavar="OUT.png", help="draw residual bytes against T (needs autota[plot])")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    why = missing_jax("explain")
    if why is not None:
        print(f"autota: error: {why}", file=sys.stderr)
        return EXIT_ERROR
    # JAX only now: the parser imports every command, and `check`/`fix` must load none of it.
    from autota.proof.errors import ProofInputError, one_line
    from autota.proof.residuals import plot_growth, residual_growth, residuals
    from autota.proof.targets import is_function_target, load_factory, load_function

    try:
        if args.plot:
            from autota.proof.plot import require

            require()
        if not is_function_target(args.target):
            raise ProofInputError("expected path/to/file.py::function", args.target)
        fn, _ = load_function(args.target)
        make_args = load_factory(args.factory)
        if args.select is not None:
            from autota.jaxpr import transform

            try:
                fn = transform(fn, rules=args.select)
            except ValueError as err:
                raise ProofInputError(str(err), args.target) from None
        if len(args.sizes) > 1:
            growth = residual_growth(fn, make_args, args.sizes, time=args.grad)
            report = growth.reports[-1]
        else:
            from autota.proof.measure import make_args_at

            growth, report = None, residuals(fn, *make_args_at(make_args, args.sizes[0]))
        if args.plot and growth is not None:
            plot_growth(growth, args.plot)
    except ProofInputError as err:
        print(f"{err.path or args.target}: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as err:  # the user's code raised while being traced or compiled
        print(f"{args.target}: error: {one_line(err)}", file=sys.stderr)
        return EXIT_ERROR
    size = args.sizes[-1]
    print(f"T={size}")
    print(report.markdown() if args.markdown else report)
    if growth is not None:
        print()
        print(growth.markdown() if args.markdown else growth)
    if args.plot and growth is None:
        print("autota: note: --plot needs at least 2 sizes; nothing drawn", file=sys.stderr)
    return EXIT_OK


def _sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(sorted({int(s) for s in text.split(",") if s.strip()}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"expected positive sizes, got {text!r}")
    return sizes


def _codes(text: str) -> tuple[str, ...]:
    return tuple(c.strip() for c in text.split(",") if c.strip())
