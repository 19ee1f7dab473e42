"""Toy duel: a fifth rule system from the tests folder alone. It declares itself on its class and
registers itself on import, and the CLI, the live table and the panel take it from there."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from table.rules import question, register
from table.rules.declarations import DiceField, DiceKind
from table.rules.inch import InchRuleset, inches
from table.rules.options import Option

HERE = Path(__file__).resolve().parent


def check(rng: random.Random, target: int) -> dict[str, Any]:
    """One d12 against a target number."""
    die = rng.randint(1, 12)
    return {"dice": [die], "target": target, "outcome": "hit" if die >= target else "miss"}


@register
class ToyDuel(InchRuleset):
    name = "toy_duel"
    title = "Toy duel"
    rulings_page = str((HERE / "rulings.md").relative_to(HERE.parents[2]))
    rule_text = str(HERE / "rules.txt")
    options = (Option("reach", "number", 12.0, minimum=1, maximum=48, help="inches of short range"),
               Option("strict", "bool", False, help="a unit that has acted may not act again in the same turn"))
    phases = (("activations", "alternate"), ("end of turn", None))
    dice = (DiceKind("check", "Toy check (d12)", (DiceField("target", "Target number", "integer", None, 7, 2, 12),),
                     check),)

    @question("band")
    def band(self, a: str, b: str) -> dict[str, Any]:
        """`short` within the reach (centre to centre), else `long`."""
        d, _, _ = self.closest(self.models_for(a), self.models_for(b))
        return {"band": "short" if d <= self.rulings["reach"] else "long", "distance": inches(d)}
