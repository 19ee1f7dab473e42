"""The resolution tables, command point costs and the victory check, row by row from the rule text."""

from __future__ import annotations

import random

import pytest

from table.rules.age_of_tyrants import combat


@pytest.mark.parametrize(("margin", "result", "added", "destroyed"), [
    (-3, "no_effect", 0, False),   # "Less than 1: No effect"
    (0, "no_effect", 0, False),
    (1, "add_1_sp", 1, False),     # "1-3: Add 1 SP"
    (3, "add_1_sp", 1, False),
    (4, "add_2_sp", 2, False),     # "4-5: Add 2 SP"
    (5, "add_2_sp", 2, False),
    (6, "destroyed", 0, True),     # "6+: Destroyed"
    (11, "destroyed", 0, True),
])
def test_attack_table(margin, result, added, destroyed):
    damage = combat.attack_damage(margin, 0)
    assert (damage.result, damage.sp_added, damage.destroyed) == (result, added, destroyed)


@pytest.mark.parametrize(("sp_before", "margin", "destroyed"), [
    (1, 1, False),   # 2 SP: not beyond two
    (2, 1, True),    # "takes enough to exceed 2 SP, it is also destroyed"
    (1, 4, True),    # 1 + 2 = 3
    (0, 5, False),   # 0 + 2 = 2
    (2, 0, False),   # no effect leaves it at 2
])
def test_suppression_beyond_two_destroys(sp_before, margin, destroyed):
    assert combat.attack_damage(margin, sp_before).destroyed is destroyed


@pytest.mark.parametrize(("total", "counter", "added"), [
    (-2, None, 0), (1, None, 0),                 # "1 or less: No Effect"
    (2, "activation", 0), (3, "activation", 0),  # "2, 3: Add Activation counter"
    (4, "vulnerable", 0), (5, "vulnerable", 0),  # "4, 5: Add Vulnerable counter"
    (6, "vulnerable", 1), (9, "vulnerable", 1),  # "6 or more: Add Vulnerable counter + 1 SP"
])
def test_bombard_table(total, counter, added):
    damage = combat.bombard_damage(total, 0, activated=False)
    assert (damage.activation, damage.sp_added) == (counter, added)


def test_bombard_activation_on_an_activated_base_is_vulnerable():
    # "If a base already has an activation counter on it and it's instructed to be activated by a
    # bombardment, place a vulnerable counter on it instead"
    assert combat.bombard_damage(2, 0, activated=True).activation == "vulnerable"
    assert combat.bombard_damage(6, 2, activated=False).destroyed


@pytest.mark.parametrize(("relation", "sp", "spomm", "cost"), [
    ("own_unit", 0, False, 1), ("own_unit", 2, False, 3),          # one + suppression points
    ("aboard_transport", 1, False, 2),                              # one + SP, from any unit
    ("other_unit", 0, False, 2), ("other_unit", 1, False, 3),       # 2 + SP
    ("self", 2, False, 1),                                          # the leader: do not add SP
    ("other_unit", 2, True, 2), ("own_unit", 2, True, 1),           # SPOMM counts as a single base
])
def test_order_costs(relation, sp, spomm, cost):
    assert combat.order_cost(relation, sp, spomm) == cost


def test_command_points_fall_with_suppression_unless_syntha():
    assert combat.command_points(4, 1, spomm=False) == 3
    assert combat.command_points(4, 5, spomm=False) == 0
    assert combat.command_points(3, 2, spomm=True) == 3


@pytest.mark.parametrize(("started", "remaining", "at_half", "over"), [
    (8, 5, False, False), (8, 4, False, False), (8, 3, False, True),  # fewer than 50% left
    (7, 4, False, False), (7, 3, False, True),
    (8, 4, True, True), (8, 5, True, False),                          # destroying 50%
])
def test_battle_over(started, remaining, at_half, over):
    assert combat.battle_over(started, remaining, at_half) is over


def test_dice_are_seeded_six_sided():
    dice = combat.Dice(7)
    rolls = [dice.d6() for _ in range(200)]
    rng = random.Random(7)
    assert rolls == [rng.randint(1, 6) for _ in range(200)]
    assert set(rolls) == {1, 2, 3, 4, 5, 6}
    assert dice.rolls == rolls
