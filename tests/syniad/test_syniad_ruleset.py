"""The `syniad` rule system's questions, through the Python API and the `smarttable query` command."""

import json

import pytest

from table.errors import QueryError
from table.rules import get_ruleset
from table.scene import load_scene, parse_scene
from tests.inprocess import smarttable
from tests.syniad.syniad_helpers import DATA, make_scene, scene_doc


@pytest.fixture(scope="module")
def movement():
    return get_ruleset("syniad")(load_scene(DATA / "movement.json"))


@pytest.fixture(scope="module")
def battle():
    return get_ruleset("syniad")(load_scene(DATA / "combat.json"))


def test_moves_follows_the_contract(movement):
    answer = movement.ask("moves", ["a-inf"])
    assert answer["unit"] == "a-inf"
    entries = {tuple(e["hex"]): e for e in answer["reachable"]}
    assert (1, 2) not in entries  # own hex excluded
    assert entries[(3, 3)]["cost"] == 4 and entries[(3, 3)]["path"] == [[1, 2], [2, 2], [2, 3], [3, 3]]
    assert all(isinstance(e["cost"], int) and len(e["hex"]) == 2 for e in answer["reachable"])
    assert movement.moves("a-inf") == answer


def test_path_and_unreachable(movement):
    assert movement.ask("path", ["a-inf", "4,0"]) == {
        "unit": "a-inf", "from": [1, 2], "to": [4, 0], "cost": 3, "path": [[1, 2], [2, 1], [3, 1], [4, 0]]}
    with pytest.raises(QueryError, match=r"cannot reach hex \[5, 0\]"):
        movement.ask("path", ["a-inf", "[5, 0]"])
    with pytest.raises(QueryError, match="expected a hex as Q,R"):
        movement.ask("path", ["a-inf", "five"])
    with pytest.raises(QueryError, match="not on the board"):
        movement.ask("path", ["a-inf", "40,40"])


def test_attackers_are_the_other_players_adjacent_units_not_across_an_unbridged_river(battle):
    answer = battle.ask("attackers", ["3,3"])
    assert answer["attackers"] == ["a1", "a2"]  # a3 is across the river
    assert (answer["attacking_points"], answer["defending_points"]) == (24, 8)
    assert answer["defender"] == "B" and answer["defenders"] == ["d1", "d2"]
    with pytest.raises(QueryError, match="holds no units"):
        battle.ask("attackers", ["6,0"])


def test_combat_replays_with_its_seed_and_leaves_the_scene_alone(battle):
    one = battle.ask("combat", ["3,3"], seed=4)
    assert one == battle.ask("combat", ["3,3"], seed=4)
    assert one["seed"] == 4 and one["attackers"] == ["a1", "a2"]
    assert battle.ask("attackers", ["3,3"])["defenders"] == ["d1", "d2"]  # the question changed nothing
    assert any(i["action"] == "move" and i["to"] == [3, 3] for i in one["instructions"])
    seeds = {battle.ask("combat", ["3,3"])["seed"] for _ in range(3)}
    assert len(seeds) > 1  # without --seed a fresh seed is drawn and reported


def test_deploy_lists_stacks_and_problems(battle):
    assert battle.ask("deploy", [])["valid"] is True
    crowd = [(f"u{i}", "A", (2, 2), 3, 1) for i in range(11)]
    bad = get_ruleset("syniad")(make_scene([*crowd, ("w", "B", (5, 0), 3, 1)],
                                           hexes=[((5, 0), "water", False)]))
    answer = bad.ask("deploy", [])
    assert not answer["valid"]
    assert answer["problems"] == ["hex [2, 2] holds 11 units (at most 10)",
                                  "hex [5, 0] is water: no unit may stand there"]


def test_los_is_the_documented_hex_line_and_band_is_refused(movement):
    seen = movement.ask("los", ["a-inf", "b-inf"])
    assert seen["visible"] is False and seen["blocked_by"] == ["hex[2,2]"]
    assert seen["hexes"] == [[1, 2], [2, 2], [3, 1], [4, 1]]
    clear = get_ruleset("syniad")(load_scene(DATA / "movement.json"), {"los_blocking": ["mountain"]})
    assert clear.ask("los", ["a-inf", "b-inf"])["visible"] is True
    with pytest.raises(QueryError, match="no ranged combat"):
        movement.ask("band", ["a-inf", "b-inf"])
    assert movement.ask("distance", ["a-inf", "b-inf"]) == {"from": "a-inf", "to": "b-inf", "distance": 3,
                                                           "method": "hex"}


@pytest.mark.parametrize("change, message", [
    (lambda d: d["units"][0]["stats"].pop("movement"), "unit 'x': stats.movement must be an integer"),
    (lambda d: d["units"][0]["stats"].update(combat_strength=0), "stats.combat_strength must be an integer"),
    (lambda d: d["models"].append({"id": "m2", "unit": "x", "hex": [2, 2]}), "one counter, got 2 models"),
    (lambda d: d["units"].append({"id": "z", "player": "C", "stats": {"movement": 1, "combat_strength": 1}}),
     "two-player game"),
    (lambda d: d["models"][0].update(hex=[30, 30]), r"off the board"),
])
def test_bad_scenes_get_clear_messages(change, message):
    doc = scene_doc([("x", "A", (2, 2), 3, 2), ("y", "B", (4, 2), 3, 2)])
    change(doc)
    with pytest.raises(QueryError, match=message):
        get_ruleset("syniad")(parse_scene(doc)).ask("moves", ["y"])


def test_report_summarises_the_position(battle):
    report = battle.ask("report", [])
    assert {a["target"][0] for a in report["attackers"]} >= {3}
    assert len(report["sight"]) == 3 * 2 and report["players"] == ["A", "B"]


def test_cli_moves_and_combat():
    result = smarttable("query", str(DATA / "movement.json"), "moves", "a-art")
    assert result.returncode == 0, result.stderr
    entry = {"hex": [1, 1], "cost": 2, "path": [[1, 2], [2, 1], [1, 1]]}
    assert entry in json.loads(result.stdout)["reachable"]
    runs = [smarttable("query", str(DATA / "combat.json"), "combat", "3,3", "--seed", "4") for _ in range(2)]
    assert runs[0].returncode == 0 and runs[0].stdout == runs[1].stdout
    assert json.loads(runs[0].stdout)["seed"] == 4


@pytest.mark.parametrize("args, message", [
    (["band", "a-inf", "b-inf"], "Syniad has no ranged combat"),
    (["path", "a-inf", "[9,-9]"], "hex [9, -9] is not on the board"),
    (["moves", "nobody"], "no Syniad unit 'nobody'"),
])
def test_cli_mistakes_exit_2_with_one_line(args, message):
    result = smarttable("query", str(DATA / "movement.json"), *args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and message in result.stderr


def test_the_rule_system_starts_a_game_and_an_analysis_for_the_live_table(battle):
    game = battle.new_game(seed=3)
    assert (game.turn, game.active, game.phase) == (1, "A", "movement")
    game.next_phase()
    game.select_target((3, 3))
    assert game.details()["eligible"] == ["a1", "a2"]
    analysis = battle.analysis()
    assert analysis.attackers[(3, 3)] == ["a1", "a2"]
    assert battle.ask("attackers", ["3,3"])["attackers"] == ["a1", "a2"]  # the scene's own state is untouched
