"""`smarttable query SCENE QUESTION [ARGS...]`: ask the scene's rule system a question."""

from __future__ import annotations

import argparse
import json
from typing import Any

from table.errors import QueryError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "query", help="answer a rule question about a scene file",
        description="Answer a rule question about a scene: distance, los, cohesion, band, report, ...")
    parser.add_argument("scene", help="scene file (smarttable-scene/1 JSON)")
    parser.add_argument("question", help="distance, los, cohesion, band, moves, report, ...")
    parser.add_argument("args", nargs="*", help="the question's arguments (model, unit or hex ids)")
    parser.add_argument("--seed", type=int, default=None, help="seed for questions that roll dice")
    parser.add_argument("--ruling", action="append", default=[], metavar="KEY=VALUE",
                        help="switch a ruling option (JSON value), e.g. --ruling measure=edge")
    parser.set_defaults(handler=run)


def _not_a_number(name: str) -> Any:
    raise ValueError(name)


def parse_rulings(pairs: list[str]) -> dict[str, Any]:
    rulings: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise QueryError(f"--ruling {pair!r}: expected KEY=VALUE")
        try:
            rulings[key] = json.loads(raw, parse_constant=_not_a_number)
        except json.JSONDecodeError:
            rulings[key] = raw
        except ValueError:
            raise QueryError(f"--ruling {pair!r}: {raw} is not a finite number") from None
    return rulings


def run(args: argparse.Namespace) -> Any:
    from table.rules import get_ruleset  # here: `--help` loads no rule system
    from table.scene import load_scene

    scene = load_scene(args.scene)
    ruleset = get_ruleset(scene.ruleset)(scene, parse_rulings(args.ruling))
    return ruleset.ask(args.question, list(args.args), seed=args.seed)
