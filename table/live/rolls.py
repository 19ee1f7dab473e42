"""Dice the table rolls for the players (the `roll` command): the kinds the rule system declares
(`Ruleset.dice`) and plain dice.

Every roll takes the controller's `random.Random`, and the result goes into the game log, so a
replayed game shows the same dice. The panel validates each kind's parameters from the same
declaration (web_ui/rolls.py).
"""

from __future__ import annotations

import random
from typing import Any

from table.errors import QueryError
from table.rules.base import Ruleset
from table.rules.declarations import PLAIN_DICE, DiceKind


def kinds(rules: type[Ruleset]) -> dict[str, DiceKind]:
    """The kinds of roll a rule system offers, plain dice included."""
    return {d.kind: d for d in (*rules.dice, PLAIN_DICE)}


def roll(rng: random.Random, rules: type[Ruleset], kind: str, params: dict[str, Any]) -> dict[str, Any]:
    """Roll `kind` with its parameters."""
    offered = kinds(rules)
    if kind not in offered:
        raise QueryError(f"roll: unknown kind {kind!r} (known: {', '.join(offered)})")
    try:
        return {"kind": kind, **offered[kind].roll(rng, **params)}
    except TypeError as exc:
        raise QueryError(f"roll {kind}: {exc}") from None
