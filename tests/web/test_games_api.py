"""A game's life through the API: a new game of any rule system (an empty board, a scenario, the players,
their army lists; a saved scene), the games in the log, ending the one on the table, resuming an earlier
one where it stood; and an army and a scenario saved from one game loaded into the next."""

from __future__ import annotations

import pytest

from tests.web.server import PIN
from tests.web.test_army_api import UNITS

H = {"X-Table-PIN": PIN}
TERRAIN = {
    "synaptik": {"terrain": [{"id": "wood", "polygon": [[20, 20], [26, 20], [26, 26], [20, 26]], "height": 3,
                              "traits": ["light_cover"]}]},
    "age_of_tyrants": {"terrain": [{"id": "ridge", "polygon": [[20, 20], [30, 20], [30, 22], [20, 22]],
                                    "height": 2, "traits": ["elevated"]}],
                       "board": {"deployment": {"A": "bottom", "B": "top"}}},
    "syniad": {"hexes": [{"hex": [4, 2], "terrain": "forest"}, {"hex": [5, 2], "terrain": "town", "road": True}],
               "hexsides": [{"between": [[3, 2], [4, 2]], "feature": "river"}]},
    "hex_skirmish": {"hexes": [{"hex": [4, 3], "terrain": "forest"}],
                     "hexsides": [{"between": [[4, 3], [5, 3]], "feature": "hard_cover"}]},
}
PLACED = ("x", "y", "heading", "hex", "state")


def ok(response) -> dict:
    body = response.get_json()
    assert response.status_code == 200, body
    return body


def unplaced(scene) -> dict:
    """A game's board and armies, without where its models stand (the camera decides that)."""
    return {"ruleset": scene["ruleset"], "players": scene.get("players"), "units": scene["units"],
            "models": [{k: v for k, v in m.items() if k not in PLACED} for m in scene["models"]],
            **{k: scene.get(k) for k in ("board", "hexgrid", "terrain", "hexes", "hexsides", "deployment")}}


def test_a_new_game_of_each_system_on_an_empty_board(client, table):
    first = table.game
    for system in sorted(UNITS):
        body = ok(client.post("/api/games", json={"ruleset": system, "players": ["Ann", "Bob"]}, headers=H))
        assert body["result"] == {"game": table.game, "ruleset": system, "players": ["Ann", "Bob"], "units": []}
        snap = table.snapshot()
        assert snap.ruleset == system and snap.scene["units"] == () and snap.scene["players"] == ("Ann", "Bob")
        assert ("hexgrid" in snap.scene) == (system in ("syniad", "hex_skirmish"))
    listed = ok(client.get("/api/games"))
    assert listed["current"] == table.game == first + 4 and listed["over"] is False
    assert [g["ruleset"] for g in listed["games"]] == ["synaptik", *sorted(UNITS)]
    assert all(g["ended"] is not None for g in listed["games"][:-1]) and listed["games"][-1]["ended"] is None


@pytest.mark.parametrize("system", sorted(UNITS))
def test_an_army_and_a_scenario_saved_load_into_a_second_game_as_the_first_was(client, table, system):
    ok(client.post("/api/games", json={"ruleset": system, "players": ["A", "B"]}, headers=H))
    for unit, models in UNITS[system]:
        ok(client.post("/api/units", json={"unit": unit, "models": models}, headers=H))
    for marker, unit in ((31, "blue"), (32, "red")):
        ok(client.post("/api/roster/assign", json={"unit": unit, "marker": marker}, headers=H))
    ok(client.put("/api/terrain", json=TERRAIN[system], headers=H))
    for player in ("A", "B"):
        ok(client.put(f"/api/armies/{system}-{player}", json={"player": player}, headers=H))
    ok(client.put(f"/api/scenarios/{system}-board", json={}, headers=H))
    first, game = table.snapshot().scene, table.game
    ok(client.post("/api/games", json={"ruleset": system, "scenario": f"{system}-board",
                                       "armies": [{"name": f"{system}-A"}, {"name": f"{system}-B"}]}, headers=H))
    assert table.game == game + 1
    assert unplaced(table.snapshot().scene) == unplaced(first)


def test_a_saved_scene_starts_a_game(client, table):
    ok(client.put("/api/scenes/mine", headers=H))
    ok(client.post("/api/games", json={"ruleset": "syniad"}, headers=H))
    ok(client.post("/api/games", json={"scene": "mine"}, headers=H))
    assert table.snapshot().ruleset == "synaptik" and len(table.snapshot().scene["models"]) == 8


def test_ending_a_game_freezes_it_and_resuming_brings_it_back_where_it_stood(client, table):
    played = table.game
    ok(client.post("/api/select", json={"id": "rifles-1"}, headers=H))
    ok(client.post("/api/phase/advance", headers=H))
    phase = table.snapshot().phase["phase"]
    ok(client.post("/api/games/end", json={"reason": "time"}, headers=H))
    assert table.snapshot().status["game_over"] is True
    refused = client.post("/api/phase/advance", headers=H)
    assert refused.status_code == 409 and "is over" in refused.get_json()["error"]
    assert client.post("/api/games/end", headers=H).status_code == 409
    assert ok(client.get("/api/games"))["games"][-1]["ended"] is not None
    ok(client.post("/api/games", json={"ruleset": "hex_skirmish"}, headers=H))
    ok(client.post(f"/api/games/{played}/resume", headers=H))
    snap = table.snapshot()
    assert table.game == played and snap.ruleset == "synaptik" and snap.status["game_over"] is False
    assert snap.phase["phase"] == phase
    games = ok(client.get("/api/games"))["games"]
    assert [g["ended"] is None for g in games] == [True, False]          # the hex game ended when 1 resumed
    kinds = [e["kind"] for e in table.gamelog.events(played)]
    assert kinds[-3:] == ["phase", "game_end", "game_resume"]
    assert client.post("/api/games/99/resume", headers=H).status_code == 404
    assert client.post(f"/api/games/{played}/resume", headers=H).status_code == 409   # already on the table


@pytest.mark.parametrize("body, status, field", [
    ({"ruleset": "chess"}, 400, "ruleset"),
    ({"scenario": "nowhere"}, 404, "name"),
    ({"armies": [{"name": "nowhere"}]}, 404, "name"),
    ({"armies": [{"army": {"format": "smarttable-army/1", "ruleset": "syniad", "units": []}}],
      "ruleset": "synaptik"}, 400, "body"),
    ({"players": ["A", "A"]}, 400, "players"),
    ({"scene": "x", "ruleset": "synaptik"}, 400, "scene"),
    ({"scenario": {"format": "smarttable-scenario/1", "ruleset": "synaptik", "terain": []}}, 400,
     "scenario.terain"),
])
def test_a_new_game_the_table_cannot_start_says_why(client, table, body, status, field):
    game = table.game
    response = client.post("/api/games", json=body, headers=H)
    assert (response.status_code, response.get_json()["field"]) == (status, field), response.get_json()
    assert table.game == game
