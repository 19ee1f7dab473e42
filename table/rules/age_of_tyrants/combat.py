"""Age of Tyrants resolution tables: attack, bombard, suppression and destruction, order costs, victory.

Pure functions of numbers (rolls are passed in), so each row of the rule text's tables is a test.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

MAX_SP = 2  # "beyond two suppression points is destroyed"
VULNERABLE_ATTACK = 2
ELEVATED_ATTACK = 1
DISMOUNT_CLOSE = 1  # attack at less than 4" after dismounting
DISMOUNT_FAR = -2  # attack at more than 4" after dismounting
VULNERABLE_BOMBARD = 1
SHELTER_SR = 1
COVER_SR = 1
CAMOUFLAGE_SR = 1
DEFENDER_SR = 1


class Dice:
    """Six-sided dice from a seeded generator, remembering every roll."""

    def __init__(self, seed: int | None):
        self.seed = seed
        self._rng = random.Random(seed)
        self.rolls: list[int] = []

    def d6(self) -> int:
        roll = self._rng.randint(1, 6)
        self.rolls.append(roll)
        return roll


@dataclass(frozen=True)
class Damage:
    """What a result does to one base."""

    result: str
    sp_before: int
    sp_added: int
    destroyed: bool
    activation: str | None = None  # bombard only: "activation" or "vulnerable"

    @property
    def sp_after(self) -> int:
        return self.sp_before + self.sp_added

    def to_dict(self) -> dict[str, Any]:
        out = {"result": self.result, "sp_before": self.sp_before, "sp_added": self.sp_added,
               "sp_after": self.sp_after, "destroyed": self.destroyed}
        if self.activation is not None:
            out["counter"] = self.activation
        return out


def attack_damage(margin: float, sp_before: int) -> Damage:
    """Attacker's total minus target's: <1 no effect, 1-3 +1 SP, 4-5 +2 SP, 6+ destroyed."""
    if margin >= 6:
        return Damage("destroyed", sp_before, 0, True)
    added = 2 if margin >= 4 else 1 if margin >= 1 else 0
    result = {0: "no_effect", 1: "add_1_sp", 2: "add_2_sp"}[added]
    return Damage(result, sp_before, added, sp_before + added > MAX_SP)


def bombard_damage(total: float, sp_before: int, activated: bool) -> Damage:
    """Bombard total: <=1 none, 2-3 activation, 4-5 vulnerable, 6+ vulnerable and 1 SP.

    A base that already has an activation counter and is told to activate gets a vulnerable one.
    """
    if total <= 1:
        return Damage("no_effect", sp_before, 0, False)
    if total <= 3:
        counter = "vulnerable" if activated else "activation"
        return Damage(f"add_{counter}_counter", sp_before, 0, False, counter)
    if total <= 5:
        return Damage("add_vulnerable_counter", sp_before, 0, False, "vulnerable")
    return Damage("add_vulnerable_counter_and_1_sp", sp_before, 1, sp_before + 1 > MAX_SP, "vulnerable")


def command_points(command: int, sp: int, spomm: bool) -> int:
    """A leader's points this turn: its Command value less its suppression (not for Syntha/SPOMM)."""
    return command if spomm else max(0, command - sp)


def order_cost(relation: str, sp: int, spomm: bool) -> int:
    """Cost of one order. relation: 'self', 'own_unit', 'aboard_transport' or 'other_unit'."""
    if relation == "self":
        return 1
    extra = 0 if spomm else sp
    return (2 if relation == "other_unit" else 1) + extra


def battle_over(started: int, remaining: int, at_half: bool) -> bool:
    """A side is beaten when fewer than 50% of its starting bases are left (or 50% with `at_half`)."""
    if started <= 0:
        return False
    return remaining * 2 <= started if at_half else remaining * 2 < started
