"""The panel's hex-game commands on the real controller: a unit's path's destination (the LEDs draw
the path) and a Syniad combat (target hex, attackers, resolve/cancel) with bad inputs naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.config import load_config
from table.hw import build_hardware
from table.live.controller import TableController
from table.live.gamelog import GameLog
from table.live.leds import LedLayout, grid
from table.scene import load_scene
from tests.web.server import make_app
from tests.web.tables import demo_controller

SCENES = Path(__file__).resolve().parents[1] / "data"
HEX = SCENES / "web" / "demo_hex.json"           # inf-1 (A) at [1, 1], inf-2 (B) at [5, 2]
COMBAT = SCENES / "live" / "syniad-combat.json"  # inf-1 (A, 7) at [1, 1], inf-2 (B, 5) at [3, 0]


@pytest.fixture
def hexes(tmp_path):
    """The hex demo on an under-board LED grid that covers its 24" board."""
    config = load_config()
    layout = LedLayout("grid-24", tuple(grid((0.75, 0.75), 1.5, 16, 16, serpentine=True)))
    hardware = build_hardware(config.hardware, config.path("hardware", "pin_map"), len(layout), mock=True)
    controller = TableController(config, hardware=hardware, layout=layout, pipeline=None,
                                 log_=GameLog(tmp_path / "game.sqlite3"), scene=load_scene(HEX), seed=7)
    yield controller
    controller.close()


@pytest.fixture
def combat(tmp_path):
    controller = demo_controller(tmp_path, scene=COMBAT)
    yield controller
    controller.close()


def post(client, url, auth, **body):
    return client.post(url, json=body, headers=auth)


def test_destination_lights_the_path(hexes, tmp_path, auth):
    client = make_app(hexes, tmp_path).test_client()
    assert post(client, "/api/select", auth, id="inf-1").status_code == 200
    before = hexes.snapshot().leds
    far = max(hexes.ruleset().ask("moves", ["inf-1"])["reachable"], key=lambda r: r["cost"])
    reply = post(client, "/api/destination", auth, hex=far["hex"])
    assert reply.status_code == 200, reply.get_json()
    assert reply.get_json()["result"] == {"selected": "a1", "destination": far["hex"]}   # the unit's model
    assert [list(h) for h in hexes.snapshot().selection["path"]["path"]] == [list(h) for h in far["path"]]
    assert hexes.snapshot().leds != before          # the path is drawn on the LEDs
    assert post(client, "/api/destination", auth, hex=None).get_json()["result"]["destination"] is None


@pytest.mark.parametrize("body, field", [
    ({"hex": [1]}, "hex"), ({"hex": "3,1"}, "hex"), ({"hex": [1, 2.5]}, "hex"), ({"hex": [0, 5000]}, "hex"),
    ({"where": [1, 1]}, "where"),
])
def test_destination_bad_input_names_the_field(hexes, tmp_path, auth, body, field):
    reply = make_app(hexes, tmp_path).test_client().post("/api/destination", json=body, headers=auth)
    assert reply.status_code == 400 and reply.get_json()["field"] == field


def test_a_syniad_combat_through_the_api(combat, tmp_path, auth):
    client = make_app(combat, tmp_path).test_client()
    for body in ({"action": "select_unit", "unit": "inf-1"}, {"action": "move", "hex": [2, 0]}):
        assert post(client, "/api/syniad", auth, **body).status_code == 200
    post(client, "/api/phase/advance", auth)
    assert post(client, "/api/syniad", auth, action="select_target", hex=[3, 0]).status_code == 200
    details = combat.snapshot().phase["syniad"]["details"]
    assert details["eligible"] == ["inf-1"] and details["defending_points"] == 5
    post(client, "/api/syniad", auth, action="add_attacker", unit="inf-1")
    assert combat.snapshot().phase["syniad"]["details"]["attacking_points"] == 14   # attackers count double
    post(client, "/api/syniad", auth, action="select_target", hex=[3, 0])
    result = post(client, "/api/syniad", auth, action="resolve").get_json()["result"]
    view = combat.snapshot().phase["syniad"]
    assert view["last_result"] == result and view["instructions"] == result["instructions"]
    assert {m["unit"] for m in view["mismatches"]} == {"inf-1", "inf-2"}     # the counters still stand


@pytest.mark.parametrize("body, status, field", [
    ({"action": "fly"}, 400, "action"), ({"action": ["resolve"]}, 400, "action"), ({}, 400, "action"),
    ({"action": "add_attacker"}, 400, "unit"), ({"action": "add_attacker", "unit": "nobody"}, 404, "unit"),
    ({"action": "select_target", "hex": "3,0"}, 400, "hex"), ({"action": "resolve", "unit": "inf-1"}, 400, "unit"),
    ({"action": "add_attacker", "unit": "inf-1"}, 409, "action"),          # not in the combat phase yet
])
def test_syniad_bad_input_names_the_field(combat, tmp_path, auth, body, status, field):
    reply = make_app(combat, tmp_path).test_client().post("/api/syniad", json=body, headers=auth)
    assert reply.status_code == status and reply.get_json()["field"] == field, reply.get_json()


def test_syniad_needs_the_pin(combat, tmp_path):
    reply = make_app(combat, tmp_path).test_client().post("/api/syniad", json={"action": "cancel"})
    assert reply.status_code == 401


def test_a_syniad_combat_cancelled(combat, tmp_path, auth):
    client = make_app(combat, tmp_path).test_client()
    post(client, "/api/syniad", auth, action="select_unit", unit="inf-1")
    post(client, "/api/syniad", auth, action="move", hex=[2, 0])
    post(client, "/api/phase/advance", auth)
    post(client, "/api/syniad", auth, action="select_target", hex=[3, 0])
    post(client, "/api/syniad", auth, action="add_attacker", unit="inf-1")
    assert post(client, "/api/syniad", auth, action="cancel").status_code == 200
    view = combat.snapshot().phase["syniad"]
    assert view["details"]["target"] is None and view["last_result"] is None and view["instructions"] == []
