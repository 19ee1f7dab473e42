"""Building a game through the API: each rule system's unit fields, units added, changed and removed
(checked by the system, its messages naming the field), army lists and scenarios saved, exported,
imported and loaded, markers given to a unit's models, the board's terrain with "did you mean"."""

from __future__ import annotations

import copy

import pytest

from table.rules import get_ruleset
from table.rules.setups import parse_scenario
from table.scene import parse_scene
from tests.web.server import PIN

H = {"X-Table-PIN": PIN}

# The same two units per rule system, written by hand as a scene file would give them: the API must build
# exactly this game (the answers are the rule system's on this document).
UNITS = {
    "synaptik": [
        ({"id": "blue", "player": "A", "name": "Rifles", "stats": {"movement": 6, "toughness": 1},
          "weapons": [{"name": "Rifle", "bands": {"hot": [0, 12], "standard": [12, 24], "cold": [24, 36]}}]},
         [{"id": "blue-1", "x": 10, "y": 40, "base": {"shape": "circle", "diameter_mm": 25}},
          {"id": "blue-2", "x": 10.9, "y": 40, "base": {"shape": "circle", "diameter_mm": 25}}]),
        ({"id": "red", "player": "B", "name": "Raiders", "stats": {"movement": 7},
          "weapons": [{"name": "Carbine", "bands": {"hot": [0, 8], "standard": [8, 16]}}]},
         [{"id": "red-1", "x": 12, "y": 20, "base": {"shape": "circle", "diameter_mm": 25}, "wounds": 1}]),
    ],
    "age_of_tyrants": [
        ({"id": "blue", "player": "A", "name": "Walker", "stats": {"size": 2, "sr": 5, "move": 6,
                                                                    "locomotion": "tracked", "role": "materiel"},
          "weapons": [{"name": "Cannon", "ap": [2, 2, 1, 0], "am": [3, 3, 2, 1]}]},
         [{"id": "blue-1", "x": 10, "y": 40, "heading": -90, "base": {"shape": "rect", "width_mm": 40,
                                                                        "depth_mm": 40}}]),
        ({"id": "red", "player": "B", "name": "Troopers", "stats": {"size": 1, "sr": 4, "move": 5},
          "weapons": [{"name": "Rifles", "ap": [1, 1, 1, 0]}]},
         [{"id": "red-1", "x": 14, "y": 28, "heading": 90, "sp": 1}]),
    ],
    "syniad": [
        ({"id": "blue", "player": "A", "name": "1st Infantry",
          "stats": {"movement": 4, "combat_strength": 6, "type": "infantry"}},
         [{"id": "blue-1", "hex": [2, 2]}]),
        ({"id": "red", "player": "B", "name": "2nd Artillery",
          "stats": {"movement": 3, "combat_strength": 4, "type": "artillery"}},
         [{"id": "red-1", "hex": [6, 3]}]),
    ],
    "hex_skirmish": [
        ({"id": "blue", "player": "A", "name": "Rifleman", "stats": {"movement": 6, "dex": 1, "group": "alpha"},
          "weapons": [{"name": "Rifle", "range": [6, 12]}]},
         [{"id": "blue-1", "hex": [2, 3]}]),
        ({"id": "red", "player": "B", "name": "Brute", "stats": {"movement": 5, "size": "large"},
          "status": ["prone"], "weapons": [{"name": "Maul", "traits": ["melee"]}]},
         [{"id": "red-1", "hex": [7, 4]}]),
    ],
}


def empty_game(client, system: str) -> None:
    """A new game of `system` on its empty board, players A and B."""
    scene = {**get_ruleset(system).empty_scene(), "players": ["A", "B"]}
    assert client.application.extensions["smarttable"].controller.command("new_game", scene=scene)


def by_hand(system: str) -> dict:
    """The game as a scene file written by hand."""
    doc = {**get_ruleset(system).empty_scene(), "players": ["A", "B"], "units": [], "models": []}
    for unit, models in UNITS[system]:
        doc["units"].append(copy.deepcopy(unit))
        doc["models"].extend({**copy.deepcopy(m), "unit": unit["id"]} for m in models)
    return doc


def test_every_rule_system_declares_its_unit_fields_and_terrain(client):
    systems = {r["name"]: r for r in client.get("/api/rulesets").get_json()["rulesets"]}
    fields = {name: {(f["place"], f["name"]) for f in r["units"]["fields"]} for name, r in systems.items()}
    assert {("stats", "movement"), ("weapon", "bands"), ("model", "wounds")} <= fields["synaptik"]
    assert {("stats", "size"), ("stats", "locomotion"), ("weapon", "ap"), ("model", "sp")} <= fields["age_of_tyrants"]
    assert {("stats", "movement"), ("stats", "combat_strength")} <= fields["syniad"]
    assert {("stats", "type"), ("weapon", "range"), ("unit", "status"), ("stats", "group")} <= fields["hex_skirmish"]
    assert systems["syniad"]["units"]["weapons"] is False and systems["syniad"]["units"]["models"] == \
        {"min": 1, "max": 1}
    locomotion = next(f for f in systems["age_of_tyrants"]["units"]["fields"] if f["name"] == "locomotion")
    assert locomotion["choices"] == ["foot", "jump", "wheeled", "tracked", "hover"]
    assert "light_cover" in systems["synaptik"]["terrain"]["traits"]
    assert systems["syniad"]["terrain"] == {"traits": [], "hexes": ["clear", "desert", "forest", "mountain",
                                                                    "swamp", "town", "water"], "hexsides": ["river"]}
    assert systems["hex_skirmish"]["hexgrid"] and systems["synaptik"]["hexgrid"] is None


@pytest.mark.parametrize("system", sorted(UNITS))
def test_units_built_through_the_api_are_the_game_a_scene_file_describes(client, table, system):
    empty_game(client, system)
    for unit, models in UNITS[system]:
        body = client.post("/api/units", json={"unit": unit, "models": models}, headers=H).get_json()
        assert body["ok"], body
    reference = get_ruleset(system)(parse_scene(by_hand(system)))
    for question in ("distance", "los"):
        answer = client.get(f"/api/query/{question}?arg=blue&arg=red").get_json()["answer"]
        assert answer == reference.ask(question, ["blue", "red"])
    scene = table.snapshot().scene
    assert [u["id"] for u in scene["units"]] == ["blue", "red"]
    assert {m["id"]: m["unit"] for m in scene["models"]} == {m["id"]: u["id"] for u, ms in UNITS[system] for m in ms}


@pytest.mark.parametrize("system, unit, models, field, says", [
    ("synaptik", {"id": "u", "player": "A", "stats": {}}, None, "unit.stats.movement", "missing"),
    ("synaptik", {"id": "u", "player": "A", "stats": {"movement": 5},
                  "weapons": [{"name": "g", "bands": {"hott": [0, 6]}}]}, None, "unit.weapons[0].bands",
     'did you mean "hot"'),
    ("age_of_tyrants", {"id": "u", "player": "A", "stats": {"move": 5, "locomotion": "wheel"}}, None, "unit",
     "unknown locomotion 'wheel'"),
    ("age_of_tyrants", {"id": "u", "player": "A", "stats": {"move": 5}},
     [{"id": "u-1", "sp": -2}], "models[0].sp", "at least 0"),
    ("syniad", {"id": "u", "player": "A", "stats": {"movement": 4, "combat_strength": 3}},
     [{"id": "u-1"}, {"id": "u-2"}], "unit", "exactly 1 model"),
    ("syniad", {"id": "u", "player": "A", "stats": {"movement": 4}}, None, "unit.stats.combat_strength",
     "missing"),
    ("hex_skirmish", {"id": "u", "player": "A", "stats": {"movement": 4, "size": "hugee"}}, None, "unit",
     "size 'hugee' is not one of normal"),
    ("hex_skirmish", {"id": "u", "player": "A", "stats": {"movement": 4}, "status": ["prne"]}, None,
     "unit.status", 'did you mean "prone"'),
    ("synaptik", {"id": "u", "player": "C", "stats": {"movement": 5}}, None, "unit.player",
     "'C' is not one of the players"),
])
def test_a_unit_the_rule_system_refuses_is_a_400_in_its_words(client, table, system, unit, models, field, says):
    empty_game(client, system)
    before = table.snapshot().scene
    response = client.post("/api/units", json={"unit": unit, **({"models": models} if models else {})}, headers=H)
    body = response.get_json()
    assert response.status_code == 400 and body["field"] == field and says in body["error"], body
    assert table.snapshot().scene == before


def test_a_unit_changed_keeps_where_its_models_stand_and_removed_takes_them_away(client, table):
    empty_game(client, "synaptik")
    unit, models = UNITS["synaptik"][0]
    client.post("/api/units", json={"unit": unit, "models": models}, headers=H)
    client.post("/api/select", json={"id": "blue-1"}, headers=H)
    body = client.put("/api/units/blue", json={"unit": {**unit, "name": "Veterans", "stats": {"movement": 7}}},
                      headers=H).get_json()
    assert body["ok"], body
    scene = table.snapshot().scene
    assert scene["units"][0]["name"] == "Veterans" and scene["units"][0]["stats"] == {"movement": 7}
    assert [(m["x"], m["y"]) for m in scene["models"]] == [(10, 40), (10.9, 40)]
    client.put("/api/units/blue", json={"count": 3}, headers=H)         # three models: a third joins at the edge
    assert [(m["id"], m["x"], m["y"]) for m in table.snapshot().scene["models"]] == \
        [("blue-1", 10, 40), ("blue-2", 10.9, 40), ("blue-3", 1.5, 46.5)]
    assert client.delete("/api/units/blue", headers=H).get_json()["ok"]
    snap = table.snapshot()
    assert snap.scene["units"] == () and snap.scene["models"] == () and snap.selection.get("selected") is None
    client.post("/api/undo", headers=H)                                           # undo brings it back
    assert [m["id"] for m in table.snapshot().scene["models"]] == ["blue-1", "blue-2", "blue-3"]
    assert client.delete("/api/units/ghost", headers=H).status_code == 404


def test_new_models_wait_at_their_players_edge(client, table):
    empty_game(client, "synaptik")
    client.post("/api/units", json={"unit": {"id": "a", "player": "A", "stats": {"movement": 6}}, "count": 2},
                headers=H)
    client.post("/api/units", json={"unit": {"id": "b", "player": "B", "stats": {"movement": 6}}, "count": 1},
                headers=H)
    client.post("/api/units", json={"unit": {"id": "c", "player": "A", "stats": {"movement": 6}}, "count": 1},
                headers=H)
    where = {m["id"]: (m["x"], m["y"], m["base"]) for m in table.snapshot().scene["models"]}
    base = {"shape": "circle", "diameter_mm": 25}
    assert where == {"a-1": (1.5, 46.5, base), "a-2": (3.0, 46.5, base), "b-1": (1.5, 1.5, base),
                     "c-1": (4.5, 46.5, base)}


def test_an_army_saved_and_a_scenario_saved_load_into_a_new_game_as_they_were(client, table):
    empty_game(client, "age_of_tyrants")
    for unit, models in UNITS["age_of_tyrants"]:
        client.post("/api/units", json={"unit": unit, "models": models}, headers=H)
    client.post("/api/roster/assign", json={"unit": "blue", "marker": 41}, headers=H)
    client.post("/api/roster/assign", json={"model": "red-1", "marker": 42}, headers=H)
    wall = {"id": "wall", "polygon": [[20, 20], [30, 20], [30, 21], [20, 21]], "height": 2, "traits": ["flat"]}
    client.put("/api/terrain", json={"terrain": [wall], "board": {"deployment": {"A": "bottom", "B": "top"}}},
               headers=H)
    for player in ("A", "B"):
        assert client.put(f"/api/armies/army-{player}", json={"player": player}, headers=H).get_json()["ok"]
    assert client.put("/api/scenarios/ridge", json={}, headers=H).get_json()["ok"]
    first = table.snapshot().scene
    exported = client.get("/api/army?player=A&download=1")
    assert "attachment" in exported.headers["Content-Disposition"]
    assert exported.get_json()["units"][0]["models"][0] == {"id": "blue-1", "base": {"shape": "rect",
                                                            "width_mm": 40.0, "depth_mm": 40.0},
                                                            "height": 0.0, "marker": 41}
    scenario = client.get("/api/scenarios/ridge").get_json()
    table.command("new_game", scene=parse_scenario(scenario))
    for player in ("A", "B"):
        assert client.post("/api/army", json={"name": f"army-{player}"}, headers=H).get_json()["ok"]
    second = table.snapshot().scene
    placed = ("x", "y", "heading", "state")
    assert second["terrain"] == first["terrain"] and second["deployment"] == first["deployment"]
    assert second["units"] == first["units"]
    assert [{k: v for k, v in m.items() if k not in placed} for m in second["models"]] == \
        [{k: v for k, v in m.items() if k not in placed} for m in first["models"]]


def test_army_lists_are_checked_on_import_and_named_in_the_error(client):
    army = {"format": "smarttable-army/1", "ruleset": "syniad", "player": "A",
            "units": [{"id": "i", "stats": {"movement": 4, "combat_strength": 0}, "models": [{"id": "i-1"}]}]}
    response = client.put("/api/armies/bad", json={"army": army}, headers=H)
    assert response.status_code == 400 and response.get_json()["field"] == "army"
    assert "units[0].stats.combat_strength: must be at least 1" in response.get_json()["error"]
    assert client.get("/api/armies").get_json() == {"armies": []}
    army["units"][0]["stats"]["combat_strength"] = 3
    assert client.put("/api/armies/good", json={"army": army}, headers=H).get_json()["ok"]
    assert client.get("/api/armies").get_json()["armies"] == [
        {"name": "good", "title": "good", "ruleset": "syniad", "player": "A", "units": 1}]
    loaded = client.post("/api/army", json={"name": "good"}, headers=H)       # the demo game is Synaptik
    assert loaded.status_code == 400 and "this game is synaptik" in loaded.get_json()["error"]


def test_a_marker_goes_to_the_first_model_of_the_unit_without_one(client, table):
    empty_game(client, "synaptik")
    client.post("/api/units", json={"unit": {"id": "a", "player": "A", "stats": {"movement": 6}}, "count": 2},
                headers=H)
    for marker in (51, 52):
        client.post("/api/roster/assign", json={"unit": "a", "marker": marker}, headers=H)
    assert {m["id"]: m.get("marker") for m in table.snapshot().scene["models"]} == {"a-1": 51, "a-2": 52}
    response = client.post("/api/roster/assign", json={"unit": "a", "marker": 53}, headers=H)
    assert response.status_code == 409 and response.get_json()["field"] == "unit"
    client.post("/api/roster/assign", json={"model": "a-2", "marker": 51}, headers=H)    # a marker moves over
    assert {m["id"]: m.get("marker") for m in table.snapshot().scene["models"]} == {"a-1": None, "a-2": 51}


def test_hex_terrain_and_a_misspelt_trait(client, table):
    empty_game(client, "syniad")
    body = client.put("/api/terrain", json={"hexes": [{"hex": [2, 2], "terrain": "forest"}],
                                            "hexsides": [{"between": [[2, 2], [3, 2]], "feature": "river"}]},
                      headers=H).get_json()
    assert body["ok"] and table.snapshot().scene["hexes"] == ({"hex": (2, 2), "terrain": "forest", "road": False},)
    response = client.put("/api/terrain", json={"hexes": [{"hex": [1, 1], "terrain": "forrest"}]}, headers=H)
    assert response.status_code == 400 and response.get_json() == {
        "field": "hexes[0].terrain", "error": "unknown hex terrain 'forrest'; did you mean \"forest\"?"}
