"""Age of Tyrants' dice on the panel: an attack roll, 1d6 + AM/AP against 1d6 + SR."""

from __future__ import annotations

import random
from typing import Any

from table.rules.age_of_tyrants.combat import attack_damage
from table.rules.declarations import DiceField, DiceKind


def attack(rng: random.Random, attack: int, defence: int, modifiers: int = 0,
           defence_modifiers: int = 0, sp: int = 0) -> dict[str, Any]:
    """1d6 + AM/AP + modifiers against 1d6 + SR + modifiers; the margin's effect on a base carrying
    `sp` suppression points comes from the attack table (`combat.attack_damage`)."""
    a, d = rng.randint(1, 6), rng.randint(1, 6)
    margin = (a + attack + modifiers) - (d + defence + defence_modifiers)
    damage = attack_damage(margin, sp)
    return {"attacker_die": a, "defender_die": d, "attacker_total": a + attack + modifiers,
            "defender_total": d + defence + defence_modifiers, "margin": margin,
            "outcome": damage.result, "damage": damage.to_dict()}


ATTACK = DiceKind("attack", "Age of Tyrants attack", (
    DiceField("attack", "Attacker AM/AP", "integer", None, 2, 0, 30),
    DiceField("modifiers", "Attack modifiers", "integer", 0, None, -20, 20),
    DiceField("defence", "Target SR", "integer", None, 2, 0, 30),
    DiceField("defence_modifiers", "Defence modifiers", "integer", 0, None, -20, 20)), attack)
