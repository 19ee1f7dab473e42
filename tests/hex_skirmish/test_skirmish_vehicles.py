"""Dig In facing, reinforcements' ranged Attacks of Opportunity, Ramming, Retreat, and the dice the
table prepares (Morale, Heal/Fix, Stealth checks) on tests/data/hex_skirmish/vehicles.json."""

from __future__ import annotations

import pytest

from table.errors import QueryError
from table.rules.hex_skirmish import HexSkirmish
from table.scene import parse_scene
from tests.hex_skirmish.skirmish_helpers import rules_for, scene_doc

SCENE = "vehicles.json"


# ------------------------------------------------------------ Dig In: "a Hard Cover in front of them"


@pytest.mark.parametrize("shooter,arc,ac", [
    ("s_front", "front", 2),   # the line enters the sapper's hex across the hexside it faces: Hard Cover +2
    ("s_side", "front", 0),    # from the side: the hexside in front is not crossed
    ("s_back", "front", 0),    # from behind
    ("s_side", "wide", 2),     # ruling dig_in_arc=wide: the front three hexsides
    ("s_back", "wide", 0),
])
def test_dig_in_gives_hard_cover_only_in_front(shooter, arc, ac):
    rules = rules_for(SCENE, rulings={"dig_in_arc": arc})
    band = rules.band(shooter, "digger")
    assert band["distance"] == 5 and band["band"] == "optimal"
    assert band["ac_parts"]["cover"] == ac
    assert rules.los(shooter, "digger")["cover"]["heavy"] == (1 if ac else 0)


def test_dig_in_hexside_is_named_and_follows_the_heading():
    seen = rules_for(SCENE).los("s_front", "digger")
    assert {"kind": "dug_in", "between": [[9, 3], [9, 2]], "cover": "heavy"} in seen["cover_from"]
    # turned to face the shooter behind it, the sapper is covered from there and no longer from the front
    facing_up = rules_for(SCENE).with_model("digger", (9, 2), -90)
    assert facing_up.band("s_back", "digger")["ac_parts"]["cover"] == 2
    assert facing_up.band("s_front", "digger")["ac_parts"]["cover"] == 0


def test_without_dig_in_no_cover():
    rules = rules_for(SCENE, {"status": {"digger": []}})
    assert rules.band("s_front", "digger")["ac_parts"]["cover"] == 0


# ------------------------------------------------------------ Reinforcement


def test_a_reinforcement_triggers_ranged_attacks_from_enemies_in_range():
    answer = rules_for(SCENE).reinforce("rein", "0,5")
    assert answer["ok"] is True and answer["hexes"] == [[0, 5]]
    by = {a["by"]: a for a in answer["attacks"]}
    # rifle [6, 12] 6 hexes away: optimal; pistol [3, 6] 5 hexes away: maximum, -2; the melee-only
    # victim and sapper have no ranged weapon
    assert set(by) == {"rifle", "pistol"}
    assert by["rifle"]["distance"] == 6
    assert by["rifle"]["weapons"] == [{"weapon": "Rifle", "band": "optimal", "modifier": 0,
                                       "can_attack": True, "reasons": []}]
    assert by["pistol"]["distance"] == 5
    assert by["pistol"]["weapons"][0]["band"] == "maximum" and by["pistol"]["weapons"][0]["modifier"] == -2


def test_the_maximum_range_still_counts_and_a_reinforcement_must_enter_at_the_edge():
    rules = rules_for(SCENE)
    far = rules.reinforce("rein", "18,-3")      # the right edge: 12 hexes from the rifle, 13 from the pistol
    assert far["ok"] is True
    got = [(a["by"], a["distance"], a["weapons"][0]["band"]) for a in far["attacks"]]
    assert got == [("rifle", 12, "maximum")]
    inside = rules.reinforce("rein", "3,5")
    assert inside["ok"] is False
    assert inside["problems"] == ["it must enter at the map edge (a footprint hex on the edge)"]


@pytest.mark.parametrize("args,message", [
    (("sneak", "0,5"), "is not a vehicle"),
    (("tank", "0,5"), "already on the table"),
    (("rein", "0,5", "north"), "expected a number of degrees"),
])
def test_reinforcement_errors(args, message):
    with pytest.raises(QueryError, match=message):
        rules_for(SCENE).reinforce(*args)


# ------------------------------------------------------------ Ramming


def test_ramming_damage_is_size_plus_half_the_hexes_traveled():
    answer = rules_for(SCENE).ram("tank", "victim", "3,8", "4,8", "5,8", "6,8", "7,8")
    assert answer["can_ram"] is True
    assert (answer["traveled"], answer["size"], answer["dc"], answer["check"]) == (4, 2, 7, "Evasion")
    assert answer["damage_on_fail"] == 2 + 4 // 2
    assert answer["cost"] == 5 and answer["allowance"] == 8


def test_ruling_ram_damage_half_total():
    answer = rules_for(SCENE, rulings={"ram_damage": "half_total"}).ram("tank", "victim", "3,8", "4,8", "5,8",
                                                                         "6,8", "7,8")
    assert answer["damage_on_fail"] == (2 + 4) // 2


def test_no_ram_behind_heavy_cover():
    rules = rules_for(SCENE)
    front = rules.ram("buggy", "digger", "10,5", "9,5", "9,4", "9,3", "9,2")
    assert front["can_ram"] is False and front["reasons"] == ["digger is behind heavy cover"]
    side = rules.ram("buggy", "digger", "11,4", "11,3", "11,2", "10,2", "9,2")
    assert side["can_ram"] is True and side["damage_on_fail"] == 1 + 4 // 2


def test_a_ram_past_its_movement_points_is_refused():
    answer = rules_for(SCENE, {"stats": {"tank": {"movement": 4}}}).ram("tank", "victim", "3,8", "4,8", "5,8",
                                                                         "6,8", "7,8")
    assert answer["can_ram"] is False
    assert answer["reasons"] == ["the path costs 5, more than its 4 movement points"]


@pytest.mark.parametrize("args,message", [
    (("sneak", "victim", "9,6"), "is not a vehicle"),
    (("tank", "apc", "3,8"), "is a vehicle"),
    (("tank", "s_front", "3,8"), "own side"),
    (("tank", "victim", "3,8", "4,8"), "does not reach"),
    (("tank", "victim", "3,8", "5,8", "6,8", "7,8"), "not next to"),
])
def test_ram_errors(args, message):
    with pytest.raises(QueryError, match=message):
        rules_for(SCENE).ram(*args)


# ------------------------------------------------------------ Retreat


def test_retreat_needs_the_border_and_infantry_aboard():
    rules = rules_for(SCENE)
    assert rules.retreat("apc") == {"vehicle": "apc", "at_edge": True, "passengers": ["p1"], "can_try": True,
                                    "check": "Evasion", "dc": 7}
    tank = rules.retreat("tank")
    assert (tank["at_edge"], tank["can_try"]) == (False, False)


# ------------------------------------------------------------ dice the table prepares


def test_morale_when_half_the_group_died_or_routs():
    rules = rules_for(SCENE)
    squad = {g["group"]: g for g in rules.morale()["groups"]}["squad"]
    assert squad == {"group": "squad", "units": 4, "lost": ["dead1"], "must_check": []}   # 1 of 4
    routed = rules_for(SCENE, {"status": {"pistol": ["routed"]}})
    squad = {g["group"]: g for g in routed.morale()["groups"]}["squad"]
    assert squad["lost"] == ["pistol", "dead1"] and squad["must_check"] == ["rifle", "victim"]   # 2 of 4


def test_morale_at_half_hit_points():
    assert rules_for(SCENE).morale()["wounded"] == []                      # 4 of 10 lost
    raw = scene_doc(SCENE)
    next(u for u in raw["units"] if u["id"] == "victim")["hp_lost"] = 5   # 5 of 10: half
    wounded = HexSkirmish(parse_scene(raw)).morale()["wounded"]
    assert wounded == [{"unit": "victim", "hp": 10, "hp_lost": 5}]
    raw["units"][0]["hp_lost"] = -1
    with pytest.raises(QueryError, match=r"units\[0\] \(s_front\)\.hp_lost"):
        HexSkirmish(parse_scene(raw)).morale()


def test_heal_and_fix_dc_10_with_synthmed_and_spare_parts():
    units = {u["unit"]: u for u in rules_for(SCENE).heal()["units"]}
    assert set(units) == {"hurt", "wreck"}
    hurt, wreck = units["hurt"], units["wreck"]
    assert (hurt["check"], hurt["dc"], wreck["check"], wreck["dc"]) == ("Heal", 10, "Fix", 10)
    heals = {h["unit"]: h["heals"] for h in hurt["healers"]}
    fixes = {h["unit"]: h["heals"] for h in wreck["healers"]}
    assert heals["medic"] == "several" and heals["apc"] == 1
    assert fixes["apc"] == "several" and fixes["medic"] == 1
    assert "wreck" not in heals and "hurt" not in fixes and "rifle" not in heals


def test_stealth_owes_a_sneak_check_for_each_enemy_melee_range_entered():
    answer = rules_for(SCENE).opportunity("sneak", "9,6", "8,7", "7,7")
    assert answer["stealth_checks"] == [{"against": "victim", "step": 2, "to": [8, 7],
                                         "check": "Sneak versus Notice"}]
    assert [a["by"] for a in answer["attacks"]] == ["victim"]       # leaving its melee range still provokes
    plain = rules_for(SCENE, {"status": {"sneak": []}}).opportunity("sneak", "9,6", "8,7", "7,7")
    assert plain["stealth_checks"] == []
