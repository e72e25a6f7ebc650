"""``autota rule CODE`` prints a rule's doc; ``autota rule --all`` lists the catalogue."""

from __future__ import annotations

import argparse
import sys

from autota.catalogue import RULES, UnknownCodeError, get
from autota.cli.main import EXIT_ERROR, EXIT_OK


def register(subparsers) -> None:
    p = subparsers.add_parser("rule", help="explain a rule", description="Print a rule's documentation.")
    p.add_argument("code", nargs="?", help="a rule code, e.g. AT101")
    p.add_argument("--all", action="store_true", help="list every rule")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.all or not args.code:
        width = max(len(r.name) for r in RULES.values())
        for rule in RULES.values():
            print(f"{rule.code}  {rule.name:<{width}}  {rule.summary}")
        return EXIT_OK
    try:
        rule = get(args.code)
    except UnknownCodeError as exc:
        print(f"autota: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    print(f"# {rule.code} {rule.name}\n")
    print(rule.doc.rstrip())
    return EXIT_OK
