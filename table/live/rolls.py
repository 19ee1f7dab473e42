"""Dice the table rolls for the players (the `roll` command), one function per kind.

Every roll takes the controller's `random.Random`, and the result goes into the game log, so a
replayed game shows the same dice. Kinds and their parameters are those the panel validates
(web_ui/rolls.py): pool (Synaptik), attack (Age of Tyrants), combat (Syniad), initiative (hex
skirmish), dice (any system).
"""

from __future__ import annotations

import random
from typing import Any

from table import dice
from table.errors import QueryError
from table.rules.age_of_tyrants import combat as aot_combat

SUCCESS = 5   # Synaptik: a 5+ on any die is a success


def pool(rng: random.Random, d6: int = 0, d8: int = 0, d10: int = 0, reroll: str = "none") -> dict[str, Any]:
    """Synaptik: a pool of d6/d8/d10; each 5+ succeeds; `failures` rerolls each failed die once."""
    terms = tuple((count, sides) for sides, count in ((6, d6), (8, d8), (10, d10)) if count)
    rolled = dice.roll(dice.Pool(terms), rng)
    if reroll == "failures":
        rolled = dice.reroll(rolled, lambda d: d.value < SUCCESS, rng)
    return {"dice": [{"sides": d.sides, "value": d.value, "rerolled": d.rerolled} for d in rolled],
            "successes": dice.successes(rolled, SUCCESS)}


def attack(rng: random.Random, attack: int, defence: int, modifiers: int = 0,
           defence_modifiers: int = 0, sp: int = 0) -> dict[str, Any]:
    """Age of Tyrants: 1d6 + AM/AP + modifiers against 1d6 + SR + modifiers; the margin's effect on
    a base carrying `sp` suppression points comes from the rule system's table (aot_combat)."""
    a, d = rng.randint(1, 6), rng.randint(1, 6)
    margin = (a + attack + modifiers) - (d + defence + defence_modifiers)
    damage = aot_combat.attack_damage(margin, sp)
    return {"attacker_die": a, "defender_die": d, "attacker_total": a + attack + modifiers,
            "defender_total": d + defence + defence_modifiers, "margin": margin,
            "outcome": damage.result, "damage": damage.to_dict()}


def combat(rng: random.Random, attackers: list[int], defenders: list[int]) -> dict[str, Any]:
    """Syniad: attackers count double, the defender wins ties; each combat point of the winners is
    lost on a 20% chance, of the losers on 30%."""
    attacking, defending = 2 * sum(attackers), sum(defenders)
    attacker_wins = attacking > defending

    def losses(strengths: list[int], chance: float) -> list[int]:
        return [sum(rng.random() < chance for _ in range(s)) for s in strengths]

    return {"attacking_points": attacking, "defending_points": defending,
            "winner": "attacker" if attacker_wins else "defender",
            "attacker_losses": losses(attackers, 0.2 if attacker_wins else 0.3),
            "defender_losses": losses(defenders, 0.3 if attacker_wins else 0.2)}


def initiative(rng: random.Random, armies: list[dict[str, Any]]) -> dict[str, Any]:
    """Hex skirmish: 1d8 plus the army's modifier each; highest first (ties keep the listed order)."""
    rolls = []
    for army in armies:
        die = rng.randint(1, 8)
        rolls.append({"player": army["player"], "die": die, "total": die + army.get("modifier", 0)})
    return {"rolls": rolls, "order": [r["player"] for r in sorted(rolls, key=lambda r: -r["total"])]}


def plain(rng: random.Random, count: int = 1, sides: int = 6) -> dict[str, Any]:
    values = [rng.randint(1, sides) for _ in range(count)]
    return {"dice": values, "total": sum(values)}


KINDS = {"pool": pool, "attack": attack, "combat": combat, "initiative": initiative, "dice": plain}


def roll(rng: random.Random, kind: str, params: dict[str, Any]) -> dict[str, Any]:
    """Roll `kind` with its parameters."""
    if kind not in KINDS:
        raise QueryError(f"roll: unknown kind {kind!r} (known: {', '.join(KINDS)})")
    try:
        return {"kind": kind, **KINDS[kind](rng, **params)}
    except TypeError as exc:
        raise QueryError(f"roll {kind}: {exc}") from None
