"""The `smarttable` command: parses arguments and hands each subcommand to its module.

Every subcommand module in `table.commands` has `register(subparsers)`; a handler returns a
JSON-able answer, which is printed on stdout. A TableError (a user's mistake) exits 2 with one
line on stderr; no traceback. A handler may set `args.exit_status` (doctor: 1 when not ok). A reader
that stops early (`| head`) ends the command quietly with 141, as a shell reports a SIGPIPE.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from typing import Any

from table import __version__, registry
from table.commands import COMMAND_MODULES
from table.errors import TableError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="smarttable", description="The smart wargame table.",
                                     epilog=f"rule systems (a scene's \"ruleset\", [game] ruleset): "
                                            f"{', '.join(registry.names())}")
    parser.add_argument("--version", action="version", version=f"smarttable {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(subparsers)
    return parser


def strict_json(value: Any) -> Any:
    """The answer with every non-finite float (no JSON number) as null, as JSON.stringify writes it."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: strict_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_json(v) for v in value]
    return value


def main(argv: Sequence[str] | None = None) -> int:
    from table.live.memory import tune_malloc  # a room: imported on use

    tune_malloc()          # before any thread starts: `run` stays flat in memory under many phones
    args = build_parser().parse_args(argv)
    try:
        answer = args.handler(args)
        if answer is not None:
            json.dump(strict_json(answer), sys.stdout, indent=2, allow_nan=False)
            sys.stdout.write("\n")
        sys.stdout.flush()
    except TableError as exc:
        print(f"smarttable {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # what is still buffered goes nowhere, so the interpreter's last flush raises nothing either
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return int(getattr(args, "exit_status", 0))


if __name__ == "__main__":
    sys.exit(main())
