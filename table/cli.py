"""The `smarttable` command: parses arguments and hands each subcommand to its module.

Every subcommand module in `table.commands` has `register(subparsers)`; a handler returns a
JSON-able answer, which is printed on stdout. A TableError (a user's mistake) exits 2 with one
line on stderr; no traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from table import __version__
from table.commands import COMMAND_MODULES
from table.errors import TableError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="smarttable", description="The smart wargame table.")
    parser.add_argument("--version", action="version", version=f"smarttable {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        answer = args.handler(args)
    except TableError as exc:
        print(f"smarttable {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    if answer is not None:
        json.dump(answer, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
