"""Before the battle and its rounds: initiative and the five phases, deployment zones; the CLI."""

from __future__ import annotations

import collections
import json
import subprocess

import pytest

from table.errors import QueryError
from table.rules.hex_skirmish.text import PHASES
from tests.hex_skirmish.skirmish_helpers import DATA, rules_for
from tests.inprocess import smarttable

# Worked out from the text for tests/data/hex_skirmish/initiative.json: Movement / 5 (rounded down),
# a group moves at its slowest member's pace, heroes add their Dex modifier.
MODIFIERS = {
    "ha": (7 // 5, 3),        # hero, Movement 7, Dex +3
    "tank": (12 // 5, 0),     # vehicle, carries p1
    "alpha": (4 // 5, 0),     # Movement 6 and 4
    "hb": (5 // 5, 1),        # hero, Movement 5, Dex +1
    "bravo": (5 // 5, 0),     # Movement 5 and 9
    "b3": (10 // 5, 0),       # a lone Biker
}


@pytest.mark.parametrize("seed", range(40))
def test_initiative_is_the_army_roll_plus_modifiers_in_descending_order(seed):
    answer = rules_for("initiative.json").initiative(seed)
    assert answer["seed"] == seed
    assert all(1 <= roll <= 8 for roll in answer["rolls"].values())
    rows = answer["order"]
    assert sorted(r["entry"] for r in rows) == sorted(MODIFIERS)
    for row in rows:
        move, dex = MODIFIERS[row["entry"]]
        assert (row["movement_modifier"], row["dex_modifier"]) == (move, dex)
        assert row["initiative"] == answer["rolls"][row["player"]] + move + dex
    rank = {p: i for i, p in enumerate(answer["precedence"])}
    for first, second in zip(rows, rows[1:], strict=False):
        assert first["initiative"] >= second["initiative"]
        if first["initiative"] == second["initiative"]:
            assert rank[first["player"]] <= rank[second["player"]]
    a, b = answer["rolls"]["A"], answer["rolls"]["B"]
    if a != b:   # the army with the higher raw roll wins ties
        assert answer["precedence"] == (["A", "B"] if a > b else ["B", "A"])
        assert answer["rolloffs"] == []
    else:
        assert len(answer["rolloffs"]) >= 1
    phases = {p["phase"]: p["order"] for p in answer["phases"]}
    assert list(phases) == list(PHASES)
    assert phases["hero"] == [r["entry"] for r in rows if r["entry"] in ("ha", "hb")]
    for phase in PHASES[1:]:
        assert phases[phase] == [r["entry"] for r in rows if r["entry"] not in ("ha", "hb")]
    tank = next(r for r in rows if r["entry"] == "tank")
    assert tank["passengers"] == ["p1"]
    assert answer["absent"] == ["reserve"]


def test_a_cross_army_tie_goes_to_the_higher_raw_roll():
    # alpha (+0) and bravo (+1) tie when A rolled one more than B
    for seed in range(500):
        answer = rules_for("initiative.json").initiative(seed)
        if answer["rolls"]["A"] == answer["rolls"]["B"] + 1:
            entries = [r["entry"] for r in answer["order"]]
            assert entries.index("alpha") < entries.index("bravo")
            return
    pytest.fail("no seed gave a tie")


def test_the_same_seed_replays_the_same_initiative_and_rolls_are_fair():
    rules = rules_for("initiative.json")
    assert rules.initiative(7) == rules.initiative(7)
    counts = collections.Counter(rules.initiative(seed)["rolls"]["A"] for seed in range(1600))
    assert sorted(counts) == list(range(1, 9))
    assert all(130 <= n <= 270 for n in counts.values())   # 200 expected each, about 5 sigma either way
    assert isinstance(rules.initiative(None)["seed"], int)


def test_rounding_ruling_rounds_movement_over_5_to_nearest():
    answer = rules_for("initiative.json", rulings={"movement_rounding": "nearest"}).initiative(3)
    mods = {r["entry"]: r["movement_modifier"] for r in answer["order"]}
    assert mods == {"ha": 1, "tank": 2, "alpha": 1, "hb": 1, "bravo": 1, "b3": 2}


def test_the_left_edge_zone_is_the_five_outermost_columns():
    zone = rules_for("deploy.json").deploy()["zones"]["A"]
    assert zone["edge"] == "left"
    # columns q = 0..4 with 13 hexes each on a 28" x 22" board of 1" flat hexes from (1, 1)
    assert sorted({q for q, _ in zone["hexes"]}) == [0, 1, 2, 3, 4]
    assert len(zone["hexes"]) == 65


def test_a_point_zone_is_every_map_hex_within_5_of_the_point():
    from table.hexgrid import distance

    rules = rules_for("deploy.json")
    zone = {tuple(h) for h in rules.deploy()["zones"]["B"]["hexes"]}
    assert zone == {h for h in rules.field.board if distance(h, (14, -3)) <= 5}
    assert (14, -8) not in zone  # within 5 but off the map


# ------------------------------------------------------------ the command line


def run(*args: str) -> subprocess.CompletedProcess:
    return smarttable("query", *args)


def test_cli_answers_distance_los_and_moves():
    scene = str(DATA / "battle.json")
    done = run(scene, "distance", "a1", "b4")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"from": "a1", "to": "b4", "distance": 3, "method": "hex"}
    seen = json.loads(run(scene, "los", "a1", "b1").stdout)
    assert seen["cover"] == {"light": 1, "heavy": 1} and seen["visible"] is True
    moves = json.loads(run(str(DATA / "wall.json"), "moves", "w").stdout)
    assert {"hex": [3, 6], "cost": 2} in moves["reachable"]


def test_cli_initiative_with_a_seed_replays_and_rulings_switch():
    scene = str(DATA / "initiative.json")
    first, again = run(scene, "initiative", "--seed", "11"), run(scene, "initiative", "--seed", "11")
    assert first.returncode == 0 and first.stdout == again.stdout
    assert json.loads(first.stdout)["seed"] == 11
    done = run(str(DATA / "battle.json"), "los", "a2", "b2", "--ruling", "blocking_terrain=[]")
    blocked = json.loads(done.stdout)
    assert blocked["visible"] is True


@pytest.mark.parametrize("args,message", [
    (["moves", "nobody"], "no model or unit 'nobody'"),
    (["path", "a1", "x"], "expected a hex as Q,R"),
    (["band", "a1", "b1", "Sword"], "has no weapon 'Sword'"),
])
def test_cli_bad_input_exits_2_with_one_line(args, message):
    done = run(str(DATA / "battle.json"), *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_unknown_ruling_is_a_query_error():
    with pytest.raises(QueryError, match="unknown ruling"):
        rules_for("battle.json", rulings={"no_such": 1})


def test_report_covers_every_ordered_pair_of_enemy_units():
    report = rules_for("battle.json").ask("report", [])
    assert len(report["pairs"]) == 2 * 5 * 8   # A has 5 units on the table, B 8
    row = next(p for p in report["pairs"] if (p["from"], p["to"]) == ("a1", "b1"))
    assert row == {"from": "a1", "to": "b1", "distance": 6, "visible": True,
                   "cover": {"light": 1, "heavy": 1}, "band": "optimal"}
    assert not any("band" in p for p in report["pairs"] if p["from"] in ("b4", "b6"))  # no ranged weapons
    assert report["groups"]["ok"] is False and len(report["melee"]["pairs"]) == 2
