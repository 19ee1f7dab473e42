"""Synaptik's dice on the panel: a pool of d6/d8/d10, each 5+ a success, failures rerolled once."""

from __future__ import annotations

import random
from typing import Any

from table import dice
from table.rules.declarations import DiceField, DiceKind
from table.rules.synaptik.orders import SUCCESS


def pool(rng: random.Random, d6: int = 0, d8: int = 0, d10: int = 0, reroll: str = "none") -> dict[str, Any]:
    """A pool of d6/d8/d10; each 5+ succeeds; `failures` rerolls each failed die once."""
    terms = tuple((count, sides) for sides, count in ((6, d6), (8, d8), (10, d10)) if count)
    rolled = dice.roll(dice.Pool(terms), rng)
    if reroll == "failures":
        rolled = dice.reroll(rolled, lambda d: d.value < SUCCESS, rng)
    return {"dice": [{"sides": d.sides, "value": d.value, "rerolled": d.rerolled} for d in rolled],
            "successes": dice.successes(rolled, SUCCESS)}


POOL = DiceKind("pool", "Synaptik pool", (
    DiceField("d6", "d6", "count", 0, 3), DiceField("d8", "d8", "count"), DiceField("d10", "d10", "count"),
    DiceField("reroll", "reroll failures once", "toggle", "none", values=("none", "failures"))), pool)
