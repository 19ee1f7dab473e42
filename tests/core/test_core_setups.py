"""Army lists and scenarios (table/rules/setups.py): read and checked with the place in the file named,
written from a scene, and composed into a game's first scene."""

from __future__ import annotations

import pytest

from table.config import PACKAGE_ROOT
from table.errors import SceneError
from table.rules.setups import (
    ARMY,
    SCENARIO,
    army_document,
    compose,
    parse_army,
    parse_scenario,
    scenario_document,
)
from table.scene import load_scene, scene_to_dict

DEMO_SCENE = PACKAGE_ROOT / "table" / "data" / "demo.json"


def test_the_demo_game_as_two_armies_and_a_scenario_composes_back_to_itself():
    demo = load_scene(DEMO_SCENE)
    armies = [(parse_army(army_document(demo, player), f"{player}.json"), None) for player in ("A", "B")]
    scenario = parse_scenario(scenario_document(demo, "demo"), "demo.json")
    again = compose("synaptik", scenario=scenario, armies=armies)
    place = {m.id: (m.x, m.y, m.heading) for m in demo.models}
    again = again.with_models(tuple(m.__class__(**{**m.__dict__, "x": place[m.id][0], "y": place[m.id][1],
                                                   "heading": place[m.id][2]}) for m in again.models))
    assert scene_to_dict(again) == {**scene_to_dict(demo), "players": ["A", "B"]}


def test_an_army_list_holds_no_positions_and_its_units_no_player():
    army = army_document(load_scene(DEMO_SCENE), "B", "raiders")
    assert army["format"] == ARMY and army["player"] == "B" and [u["id"] for u in army["units"]] == \
        ["raiders", "sniper"]
    assert all("player" not in u for u in army["units"])
    assert all(not {"x", "y", "heading", "unit"} & set(m) for u in army["units"] for m in u["models"])


@pytest.mark.parametrize("change, message", [
    (lambda a: a.update(format="army/1"), "army.json: format: expected 'smarttable-army/1'"),
    (lambda a: a.update(ruleset="chess"), "army.json: ruleset: unknown rule system 'chess'"),
    (lambda a: a.update(players=["A"]), 'army.json: players: unknown key; did you mean "player"?'),
    (lambda a: a["units"][0].update(player="A"), "army.json: units[0].player: an army list's units are one"),
    (lambda a: a["units"][1]["models"][0]["base"].update(shape="disc"),
     "army.json: units[1].models[0].base.shape: unknown shape 'disc'"),
    (lambda a: a["units"][0]["stats"].pop("movement"),
     "army.json: units[0].stats.movement: missing (this rule system needs it)"),
    (lambda a: a["units"][1]["models"][0].update(marker=10),
     "army.json: units[1].models[0].marker: marker 10 is already on model 'rifles-1'"),
])
def test_a_bad_army_list_names_the_file_and_the_place(change, message):
    army = army_document(load_scene(DEMO_SCENE), "A")
    change(army)
    with pytest.raises(SceneError) as error:
        parse_army(army, "army.json")
    assert str(error.value).startswith(message)


def test_a_scenario_keeps_the_board_and_the_systems_board_keys_only():
    scene = load_scene("tests/data/hex_skirmish/deploy.json")
    scenario = scenario_document(scene, "deploy")
    assert scenario["format"] == SCENARIO and "units" not in scenario and "models" not in scenario
    assert scenario["deployment"] == scene.extra["deployment"] and scenario["hexgrid"]
    with pytest.raises(SceneError, match='scenario.json: smoke: unknown key'):
        parse_scenario({**scenario, "smoke": []}, "scenario.json")


def test_armies_without_a_player_take_the_players_in_turn():
    demo = load_scene(DEMO_SCENE)
    def unowned(player):
        return parse_army({k: v for k, v in army_document(demo, player).items() if k != "player"})
    scene = compose("synaptik", armies=[(unowned("A"), None), (unowned("B"), None)], players=["Ann", "Bob"])
    assert scene.players == ("Ann", "Bob") and {u.id: u.player for u in scene.units} == \
        {"rifles": "Ann", "gunner": "Ann", "raiders": "Bob", "sniper": "Bob"}
    assert [(m.x, m.y) for m in scene.models if m.unit == "rifles"] == [(1.5, 46.5), (3.0, 46.5), (4.5, 46.5)]
    assert [(m.x, m.y) for m in scene.models if m.unit == "raiders"] == [(1.5, 1.5), (3.0, 1.5), (4.5, 1.5)]
