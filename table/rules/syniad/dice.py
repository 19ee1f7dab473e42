"""Syniad's dice on the panel: a combat between attacking and defending strengths."""

from __future__ import annotations

import random
from typing import Any

from table.rules.declarations import DiceField, DiceKind
from table.rules.syniad.combat import LOSER_LOSS, WINNER_LOSS


def combat(rng: random.Random, attackers: list[int], defenders: list[int]) -> dict[str, Any]:
    """Attackers count double, the defender wins ties; each combat point of the winners is lost on a
    20% chance, of the losers on 30%."""
    attacking, defending = 2 * sum(attackers), sum(defenders)
    attacker_wins = attacking > defending

    def losses(strengths: list[int], chance: float) -> list[int]:
        return [sum(rng.random() < chance for _ in range(s)) for s in strengths]

    return {"attacking_points": attacking, "defending_points": defending,
            "winner": "attacker" if attacker_wins else "defender",
            "attacker_losses": losses(attackers, WINNER_LOSS if attacker_wins else LOSER_LOSS),
            "defender_losses": losses(defenders, LOSER_LOSS if attacker_wins else WINNER_LOSS)}


COMBAT = DiceKind("combat", "Syniad combat", (
    DiceField("attackers", "Attacking strengths", "integers", None, "7, 5", 1, 99),
    DiceField("defenders", "Defending strengths", "integers", None, "6", 1, 99)), combat)
