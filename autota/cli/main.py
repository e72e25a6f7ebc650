"""Entry point of the ``autota`` console script."""

from __future__ import annotations

import argparse
import importlib
import sys

from autota import __version__

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2

COMMANDS = ("lint", "rule", "verify", "bench", "explain")


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad option is one line on stderr and exit 2, as Ruff does."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_ERROR, f"autota: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="autota",
        description="Find and fix O(T^2) accumulation anti-patterns in JAX code.",
    )
    parser.add_argument("--version", action="version", version=f"autota {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(f"autota.cli.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("autota: interrupted", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
