"""Hex skirmish's dice on the panel: initiative, 1d8 per army plus its movement modifier."""

from __future__ import annotations

import random
from typing import Any

from table.rules.declarations import DiceField, DiceKind


def initiative(rng: random.Random, armies: list[dict[str, Any]]) -> dict[str, Any]:
    """1d8 plus the army's modifier each; highest first (ties keep the listed order)."""
    rolls = []
    for army in armies:
        die = rng.randint(1, 8)
        rolls.append({"player": army["player"], "die": die, "total": die + army.get("modifier", 0)})
    return {"rolls": rolls, "order": [r["player"] for r in sorted(rolls, key=lambda r: -r["total"])]}


INITIATIVE = DiceKind("initiative", "Initiative (d8)", (
    DiceField("armies", "Army {player} modifier", "per_player", None, 0, -10, 20),), initiative)
