"""Attack and bombard resolution through the rule system: modifiers from the Combat Modifiers Table,
seeded dice, and the results tables applied to the totals."""

from __future__ import annotations

import random

import pytest

from table.errors import QueryError
from tests.age_of_tyrants.aot_helpers import base, box, build, golden, unit


def expected_attack(margin: int) -> tuple[int, bool]:
    """(SP added, destroyed) straight from the rule text's list."""
    if margin < 1:
        return 0, False
    if margin <= 3:
        return 1, False
    if margin <= 5:
        return 2, False
    return 0, True


@pytest.mark.parametrize("seed", range(12))
def test_seeded_attack_with_support_on_a_vulnerable_falx(seed):
    rules = golden("priority.json")
    answer = rules.ask("attack", ["bravo-1", "falx-2", "alpha-1", "alpha-2"], seed=seed)
    rng = random.Random(seed)
    a_roll, d_roll = rng.randint(1, 6), rng.randint(1, 6)
    assert (answer["attack"]["roll"], answer["defence"]["roll"]) == (a_roll, d_roll)
    # AM 3 at medium; +2 target vulnerable; +1 support (Alpha Team S 1 at medium); SR 3
    assert answer["attack"]["value"] == 3 and answer["attack"]["against"] == "am"
    assert sorted(m["value"] for m in answer["attack"]["modifiers"]) == [1, 2]
    assert answer["attack"]["total"] == a_roll + 6
    assert answer["defence"]["total"] == d_roll + 3
    margin = a_roll + 6 - (d_roll + 3)
    added, destroyed = expected_attack(margin)
    assert answer["margin"] == margin
    assert (answer["outcome"]["sp_added"], answer["outcome"]["destroyed"]) == (added, destroyed)
    assert answer["outcome"]["fate"] == ("wreckage" if destroyed else None)  # a vehicle stays as wreckage
    # the second supporter faces away: "supporting bases must also be able to hit the target"
    assert answer["support_refused"] == [{"model": "alpha-2", "reason": "outside the 180-degree front arc"}]
    assert answer["warnings"] == []


def test_some_seed_destroys_and_some_leaves_no_effect():
    rules = golden("priority.json")
    results = {rules.ask("attack", ["bravo-1", "falx-2"], seed=s)["outcome"]["result"] for s in range(40)}
    assert {"destroyed", "add_1_sp", "add_2_sp"} <= results


def test_attack_warns_when_it_ignores_target_priority():
    answer = golden("priority.json").ask("attack", ["bravo-1", "prin-1"], seed=1)
    assert answer["allowed"] is True
    assert answer["attack"]["value"] == 2  # AP 2 at medium against personnel
    assert "falx-2" in answer["warnings"][0]


@pytest.mark.parametrize(("target", "reason"), [
    ("falx-rear", "outside the 180-degree front arc"),
    ("falx-hidden", "no line of sight"),
    ("falx-far", "AM is 0 at long range"),
    ("sniper-1", "camouflaged in concealing terrain"),
])
def test_attack_refused(target, reason):
    answer = golden("priority.json").ask("attack", ["bravo-1", target], seed=1)
    assert answer == {**answer, "allowed": False, "reason": reason}
    assert "attack" not in answer


def test_attack_on_a_friend_is_a_query_error():
    with pytest.raises(QueryError, match="not an enemy"):
        golden("priority.json").ask("attack", ["bravo-1", "alpha-1"])


def test_elevated_dismounted_attack_against_a_defender():
    units = [unit("att", "A", ap=[3, 3, 3, 3], am=[1, 1, 1, 1]),
             unit("def", "B", sr=2, special=["Defender"])]
    models = [base("a", "att", 5, 10, dismounted=True), base("d", "def", 15, 10)]
    terrain = [box("hill", 2, 8, 8, 12, "elevated"), box("bunker", 13, 8, 17, 12, "defensible", "flat")]
    answer = build(units, models, terrain).ask("attack", ["a", "d"], seed=3)
    mods = {m["rule"]: m["value"] for m in answer["attack"]["modifiers"]}
    assert mods == {"elevated position": 1, "after dismounting": -2}  # 9" away: "more than 4\"" is -2
    assert answer["defence"]["modifiers"] == [{"rule": "defender in defensible terrain", "value": 1}]
    rng = random.Random(3)
    a_roll, d_roll = rng.randint(1, 6), rng.randint(1, 6)
    assert answer["margin"] == (a_roll + 3 + 1 - 2) - (d_roll + 2 + 1)


def test_dismounted_close_attack_gains_one():
    units = [unit("att", "A", ap=[3, 3, 3, 3]), unit("def", "B")]
    models = [base("a", "att", 5, 10, dismounted=True), base("d", "def", 8, 10)]
    answer = build(units, models).ask("attack", ["a", "d"], seed=3)
    assert answer["attack"]["modifiers"] == [{"rule": "after dismounting", "value": 1}]


@pytest.mark.parametrize("seed", range(6))
def test_seeded_bombard(seed):
    answer = golden("bombard.json").ask("bombard", ["tgt", "arty-1"], seed=seed)
    assert answer["allowed"] and answer["bombard"] == 2
    rng = random.Random(seed)
    by_id = {r["model"]: r for r in answer["results"]}
    assert list(by_id) == ["tgt", "near", "friend"]  # every base the template touches, friends too
    for model, extra_sr in (("tgt", 0), ("near", 2), ("friend", 0)):
        row = by_id[model]
        a_roll, d_roll = rng.randint(1, 6), rng.randint(1, 6)
        assert (row["attack_roll"], row["defence_roll"]) == (a_roll, d_roll)
        total = a_roll + 2 - (d_roll + 1 + extra_sr)  # SR 1; shelter +1 and cover +1 for 'near'
        assert row["total"] == total
        if total <= 1:
            assert row["result"] == "no_effect"
        elif total <= 3:
            # 'near' took cover, so it already has an activation counter: vulnerable instead
            assert row["counter"] == ("vulnerable" if model == "near" else "activation")
        else:
            assert row["counter"] == "vulnerable"
            assert row["sp_added"] == (1 if total >= 6 else 0)
    assert by_id["near"]["took_cover"] is True


def test_bombard_without_cover_ruling():
    answer = golden("bombard.json", take_cover=False).ask("bombard", ["tgt", "arty-1"], seed=0)
    near = next(r for r in answer["results"] if r["model"] == "near")
    assert near["modifiers"] == [{"rule": "shelter", "value": 1}] and near["took_cover"] is False


def test_bombard_vulnerable_target_adds_one():
    units = [unit("arty", "A", bombard=1), unit("inf", "B")]
    models = [base("g", "arty", 4, 10), base("v", "inf", 20, 10, vulnerable=True)]
    answer = build(units, models).ask("bombard", ["v", "g"], seed=5)
    row = answer["results"][0]
    assert row["vulnerable"] is True
    assert row["total"] == row["attack_roll"] + 1 - (row["defence_roll"] + 1) + 1


def test_bombard_needs_a_bombard_value():
    answer = golden("bombard.json").ask("bombard", ["tgt", "friend"], seed=0)
    assert answer["allowed"] is False and "no base in the order has a Bombard value" in answer["problems"]


def test_bombard_camouflage_in_concealing_terrain_adds_one_sr():
    units = [unit("arty", "A", bombard=2), unit("cam", "B", special=["Camouflage"])]
    models = [base("g", "arty", 4, 10), base("c", "cam", 20, 10)]
    scrub = [box("scrub", 19, 9, 21, 11, "concealment")]  # the camouflaged base 0.5" from its edge
    row = build(units, models, scrub).ask("bombard", ["c", "g"], seed=2)["results"][0]
    assert row["modifiers"] == [{"rule": "camouflage in concealing terrain", "value": 1}]
    assert row["total"] == row["attack_roll"] + 2 - (row["defence_roll"] + 1 + 1)


def test_bombard_cannot_pick_a_camouflaged_base_while_others_are_in_range_and_sight():
    units = [unit("arty", "A", bombard=2, ap=[0, 0, 2, 2]), unit("cam", "B", special=["Camouflage"]),
             unit("b", "B")]
    models = [base("g", "arty", 4, 10), base("c", "cam", 20, 10)]
    assert build(units, models).ask("bombard", ["c", "g"], seed=1)["allowed"] is True  # alone: fair game
    models.append(base("p", "b", 20, 30))
    answer = build(units, models).ask("bombard", ["c", "g"], seed=1)
    assert answer["allowed"] is False and "other targets in range and LOS (p)" in answer["problems"][0]
