"""The table's dice: results come from the rule system's own tables (Age of Tyrants: its combat module)."""

from __future__ import annotations

import random

import pytest

from table.live import rolls
from table.rules import get_ruleset


class Loaded(random.Random):
    """A generator whose d6 rolls are given in order (the attacker's die, then the defender's)."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)


@pytest.mark.parametrize(("attacker", "defender", "sp", "outcome", "destroyed"), [
    (3, 4, 0, "no_effect", False),        # margin 0 (attack 2 + 3 against SR 1 + 4)
    (4, 4, 0, "add_1_sp", False),         # margin 1
    (6, 4, 0, "add_1_sp", False),         # margin 3
    (6, 3, 0, "add_2_sp", False),         # margin 4
    (6, 3, 1, "add_2_sp", True),          # 1 SP + 2 SP: beyond two suppression points
    (6, 1, 0, "destroyed", True),         # margin 6
])
def test_attack_uses_the_age_of_tyrants_results_table(attacker, defender, sp, outcome, destroyed):
    attack = rolls.kinds(get_ruleset("age_of_tyrants"))["attack"].roll       # `sp` is no field of the form
    result = attack(Loaded(attacker, defender), attack=2, defence=1, sp=sp)
    assert result["margin"] == (attacker + 2) - (defender + 1)
    assert result["outcome"] == outcome
    assert result["damage"]["destroyed"] is destroyed and result["damage"]["sp_before"] == sp
