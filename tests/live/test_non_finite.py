"""Non-finite numbers (issue 11): refused at every input (HTTP, CLI, config, log replay, the log
itself) and never emitted: `Infinity` in one value would blank every phone's board for good."""

from __future__ import annotations

import json
import sqlite3

import pytest

from table import strictjson
from table.cli import main as cli_main
from table.errors import QueryError
from table.live.events import Roll
from tests.live.live_fakes import DEMO_SCENE
from web_ui import create_app

PIN = "246813"
WALL = {"id": "wall", "polygon": [[20, 30], [28, 30], [28, 31]], "traits": ["heavy_cover"]}


@pytest.mark.parametrize("height", ["Infinity", "-Infinity", "NaN", "1e999"])
def test_the_panel_refuses_non_finite_numbers_and_stays_strict(make_controller, tmp_path, height):
    c = make_controller()
    client = create_app(c, pin=PIN, data_dir=tmp_path / "data").test_client()
    text = json.dumps({"terrain": [WALL]})[:-3] + f', "height": {height}}}]}}'
    response = client.put("/api/terrain", data=text, content_type="application/json",
                          headers={"X-Table-PIN": PIN})
    assert response.status_code == 400 and response.get_json()["field"] == "body"
    assert "number" in response.get_json()["error"]
    state = client.get("/api/state").get_data(as_text=True)
    strictjson.loads(state)                                  # what a phone's JSON.parse accepts
    assert "wall" not in state
    assert not any(e["kind"] == "set_terrain" for e in c.gamelog.events(c.game))


def test_a_deep_body_is_a_400_not_a_traceback(make_controller, tmp_path):
    c = make_controller()
    client = create_app(c, pin=PIN, data_dir=tmp_path / "data").test_client()
    deep = "[" * 50000 + "]" * 50000
    response = client.post("/api/select", data=deep, content_type="application/json",
                           headers={"X-Table-PIN": PIN})
    assert response.status_code == 400 and "nested" in response.get_json()["error"]


@pytest.mark.parametrize("route, body, field", [
    ("/api/roll", '{"kind": "dice", "count": ' + "9" * 5000 + "}", "count"),    # the number's own field
    ("/api/select", "[" * 65 + '"' + '\\"' * 60_000, "body"),          # read in quadratic time once: minutes
])
def test_a_body_python_cannot_read_quickly_or_at_all_is_a_400(make_controller, tmp_path, route, body, field):
    c = make_controller()
    client = create_app(c, pin=PIN, data_dir=tmp_path / "data").test_client()
    response = client.post(route, data=body, content_type="application/json", headers={"X-Table-PIN": PIN})
    assert response.status_code == 400 and response.get_json()["field"] == field


def test_an_event_with_a_non_finite_number_is_never_applied_or_stored(make_controller):
    c = make_controller()
    with pytest.raises(QueryError, match="Out of range float values are not JSON compliant"):
        c.emit(Roll("dice", {}, None, {"dice": [1], "total": float("inf")}))
    assert c.state.last_roll is None
    assert [e["kind"] for e in c.gamelog.events(c.game)][-1] != "roll"


def test_a_log_written_with_infinity_by_an_older_version_resumes_without_it(make_controller, tmp_path):
    c = make_controller()
    c.command("roll", kind="dice", count=2, sides=6)
    game = c.game
    c.close()
    db = sqlite3.connect(tmp_path / "game.sqlite3")
    db.execute("INSERT INTO events (game, ts, kind, data) VALUES (?, 0, 'set_terrain', ?)",
               (game, json.dumps({"terrain": [{**WALL, "height": float("inf")}]})))
    db.commit()
    db.close()
    again = make_controller(log_path=tmp_path / "game.sqlite3")
    assert again.game == game and again.state.scene.terrain != () and again.state.last_roll is not None
    assert all(t.id != "wall" for t in again.state.scene.terrain)
    strictjson.dumps(again.snapshot().to_dict())


def test_the_command_line_refuses_non_finite_numbers(tmp_path, capsys):
    scene = json.loads(DEMO_SCENE.read_text())
    text = json.dumps(scene).replace('"height": 48', '"height": Infinity', 1)
    assert "Infinity" in text
    bad_scene = tmp_path / "scene.json"
    bad_scene.write_text(text)
    assert cli_main(["query", str(bad_scene), "report"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(bad_scene) in err[0] and "Infinity" in err[0]
    config = tmp_path / "table.toml"
    config.write_text("[board]\nwidth = inf\n")
    for command in (["run", "--demo", "--duration", "1"], ["doctor"], ["locate", str(bad_scene)]):
        assert cli_main([*command, "--config", str(config)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"smarttable {command[0]}: {config}: board.width: must be a finite number"]
    replay = tmp_path / "game.jsonl"
    replay.write_text('{"kind": "game_start", "scene": {}}\n{"kind": "roll", "result": {"total": NaN}}\n')
    assert cli_main(["log", "replay", str(replay)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "game.jsonl: line 2: invalid JSON: NaN" in err[0]
