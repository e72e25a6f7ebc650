"""Entry point of the ``autota`` console script.

Registering a command imports its module, so a command module imports at top level only
what ``check`` needs too (nothing of JAX): ``verify`` and ``bench`` import the proof inside
their ``run``.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from autota import __version__

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130
"""128 + SIGINT, as a shell reports a command stopped by Ctrl-C."""

EXIT_CODES_HELP = """exit codes:
  0    nothing left to report (or --exit-zero)
  1    findings left (verify: a mismatch)
  2    an error: bad option or settings, a file that cannot be read, parsed or written
       (every other file is still processed)
  130  interrupted (Ctrl-C); files already fixed stay fixed, none is left half-written
"""

COMMANDS = ("lint", "rule", "verify", "bench", "explain")


class Interrupted(Exception):
    """A run stopped by an interrupt; the message says how far it got."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad option is one line on stderr and exit 2, as Ruff does."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="autota",
        description="Find and fix O(T^2) accumulation anti-patterns in JAX code.",
        epilog="examples:\n  autota check src/\n  autota fix --diff src/\n  autota rule AT101\n"
        "  autota COMMAND --help\n\n" + EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"autota {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(f"autota.cli.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except KeyboardInterrupt:
        print("autota: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Interrupted as exc:
        print(f"autota: interrupted: {exc}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_ERROR
    except Exception as exc:  # a bug: one line and exit 2, never a traceback read as "findings"
        print(f"autota: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
