"""Acceptance: a fifth rule system from the tests folder alone (tests/rule_systems/toy_duel/) is
answered by `smarttable query`, played by the live table (its phases, its dice, its bands on the
LEDs) and offered by the panel's forms (its ruling options, its dice form), with no edit elsewhere.
The contract test (tests/core/test_core_rulesets_contract.py) runs it through the common questions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from table.cli import main
from table.config import load_config
from table.hw import build_hardware
from table.live import highlight as hl
from table.live.controller import TableController
from table.live.gamelog import GameLog
from table.live.leds import load_layout
from table.scene import load_scene
from web_ui import create_app

SCENE = Path(__file__).resolve().parent / "toy_duel" / "scene.json"
PIN = "4711"


@pytest.fixture
def table(tmp_path):
    config = load_config()
    layout = load_layout(config.path("hardware", "led_layout"))
    hardware = build_hardware(config.hardware, config.path("hardware", "pin_map"), len(layout), mock=True)
    controller = TableController(config, hardware=hardware, layout=layout, log_=GameLog(tmp_path / "g.sqlite3"),
                                 pipeline=None, scene=load_scene(SCENE), seed=3)
    yield controller
    controller.close()


def query(capsys, *args: str) -> dict:
    assert main(["query", str(SCENE), *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_query_answers_the_toy_rules(capsys):
    assert query(capsys, "distance", "red-1", "blue-1") == {"from": "red-1", "to": "blue-1", "distance": 8.0,
                                                            "method": "centre"}
    assert query(capsys, "band", "red-1", "blue-1")["band"] == "short"       # 8" within the 12" reach
    assert query(capsys, "band", "red-1", "blue-2")["band"] == "long"        # 30" away
    assert query(capsys, "band", "red-1", "blue-1", "--ruling", "reach=6")["band"] == "long"
    assert main(["query", str(SCENE), "band", "red-1", "blue-1", "--ruling", "reach=0"]) == 2
    assert "ruling reach: expected a number >= 1 <= 48, got 0" in capsys.readouterr().err


def test_the_live_table_plays_its_phases_dice_and_bands(table):
    assert table.snapshot().phase["phases"] == ["activations", "end of turn"]
    assert table.snapshot().phase["player"] == "A"
    table.command("advance_phase")
    assert table.snapshot().phase["phase"] == "end of turn"
    result = table.command("roll", kind="check", target=7)
    assert result["kind"] == "check" and result["outcome"] == ("hit" if result["dice"][0] >= 7 else "miss")
    assert table.state.last_roll == result
    table.command("select", id="red-1")
    table.settle()
    bands = table.snapshot().selection["bands"]
    assert bands == {"blue-1": "short", "blue-2": "long"}
    led = lambda x, y: table.hw.strip.last[table.layout.nearest((x, y))]  # noqa: E731
    assert led(40.0, 48.5) == hl.BAND_COLOURS["long"]      # the LED by blue-2, 30" away
    assert led(10.0, 48.5) == hl.SELECTED


def test_the_panel_offers_its_forms(table, tmp_path):
    client = create_app(table, pin=PIN, data_dir=tmp_path / "data").test_client()
    auth = {"X-Table-PIN": PIN}
    found = {r["name"]: r for r in client.get("/api/rulesets").get_json()["rulesets"]}
    toy = found["toy_duel"]
    assert toy["title"] == "Toy duel" and toy["rulings"] == {"reach": 12.0, "strict": False}
    assert [(o["name"], o["kind"]) for o in toy["options"]] == [("reach", "number"), ("strict", "bool")]
    assert toy["dice"][0]["kind"] == "check" and toy["dice"][0]["fields"][0]["name"] == "target"
    assert toy["rolls"] == ["check", "dice"] and toy["phases"] == ["activations", "end of turn"]
    rolled = client.post("/api/roll", json={"kind": "check", "target": 9}, headers=auth)
    assert rolled.status_code == 200 and rolled.get_json()["result"]["target"] == 9
    refused = client.post("/api/roll", json={"kind": "check", "target": 13}, headers=auth)
    assert refused.status_code == 400 and refused.get_json()["field"] == "target"
    assert client.put("/api/settings", json={"rulings": {"reach": 20}}, headers=auth).status_code == 200
    assert table.state.rulings == {"reach": 20}
    wrong = client.put("/api/settings", json={"rulings": {"strict": "yes"}}, headers=auth)
    assert wrong.status_code == 400 and "ruling strict: expected true or false" in wrong.get_json()["error"]
    document = client.get("/api/openapi.json").get_json()
    kinds = [k["properties"]["kind"]["enum"][0]
             for k in document["paths"]["/api/roll"]["post"]["requestBody"]["content"]["application/json"]
             ["schema"]["oneOf"]]
    assert "check" in kinds
