"""Bad input that used to get through (issue 25): an integer of more than 4,300 digits in a JSON body (a 500),
`/dev/zero` or a FIFO as the scene, the config, the LED layout or `[game] scene` (a hang, 6 GB of memory),
and `--port 0` (silently the config's port). Each is one clear refusal now."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from table.config import CONFIG_DIR
from tests.live.live_fakes import ROOT
from tests.web.server import PIN, make_app

HUGE = "1" + "0" * 5000          # past Python's 4,300-digit limit for reading a whole number


@pytest.mark.parametrize("method, path, body, field", [
    ("post", "/api/roll", f'{{"kind": "dice", "count": {HUGE}, "sides": 6}}', "count"),
    ("put", "/api/settings", f'{{"rulings": {{"climb_cost": {HUGE}}}}}', "rulings.climb_cost"),
    ("put", "/api/terrain", f'{{"terrain": [{{"id": "w", "polygon": [[1, 1], [2, {HUGE}], [1, 2]]}}]}}',
     "terrain[0].polygon[1][1]"),
])
def test_a_whole_number_of_5000_digits_is_a_400_naming_the_field(make_controller, tmp_path, method, path, body,
                                                                 field):
    client = make_app(make_controller(), tmp_path).test_client()
    answer = getattr(client, method)(path, data=body, headers={"X-Table-PIN": PIN,
                                                                "Content-Type": "application/json"})
    assert answer.status_code == 400, answer.get_data(as_text=True)
    assert answer.get_json()["field"] == field and "5,001 digits" in answer.get_json()["error"]


def smarttable(*args: str) -> subprocess.CompletedProcess:
    """The real command; a read that hangs (a FIFO) or eats memory (/dev/zero) is cut at 30 s."""
    return subprocess.run([sys.executable, "-m", "table.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=30)


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "scene.fifo"
    os.mkfifo(path)
    return path


def config_with(tmp_path: Path, extra: str) -> Path:
    config = tmp_path / "table.toml"
    config.write_text(f'[hardware]\npin_map = "{CONFIG_DIR}/pins-pi4.toml"\n'
                      f'led_layout = "{CONFIG_DIR}/leds/edge-strip.toml"\n' + extra)
    return config


@pytest.mark.parametrize("where", ["--scene", "--config", "led_layout", "[game] scene"])
@pytest.mark.parametrize("what", ["/dev/zero", "fifo"])
def test_a_device_or_fifo_as_a_file_is_one_line_and_exit_2(tmp_path, fifo, where, what):
    bad = str(fifo) if what == "fifo" else what
    log = ["--log", str(tmp_path / "game.sqlite3")]
    if where == "--scene":
        args = ["--config", str(config_with(tmp_path, "")), "--scene", bad]
    elif where == "--config":
        args = ["--config", bad]
    elif where == "led_layout":
        config = tmp_path / "table.toml"
        config.write_text(f'[hardware]\npin_map = "{CONFIG_DIR}/pins-pi4.toml"\nled_layout = "{bad}"\n')
        args = ["--config", str(config)]
    else:
        args = ["--config", str(config_with(tmp_path, f'[game]\nscene = "{bad}"\n'))]
    done = smarttable("run", "--demo", "--no-web", "--duration", "3", *log, *args)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[-1] == f"smarttable run: {bad}: is not a regular file but a device, FIFO or socket", done.stderr
    assert "Traceback" not in done.stderr


def test_a_scene_past_the_size_cap_is_refused_without_reading_it_all(tmp_path):
    big = tmp_path / "big.json"
    with big.open("wb") as out:
        out.truncate(64 * 1024 * 1024)                 # 64 MB (sparse: no disk)
    done = smarttable("run", "--demo", "--no-web", "--duration", "3", "--log", str(tmp_path / "game.sqlite3"),
                      "--config", str(config_with(tmp_path, "")), "--scene", str(big))
    assert done.returncode == 2 and done.stderr.strip().endswith("larger than 4 MB, too large for a file")


@pytest.mark.parametrize("port", ["0", "65536", "-1"])
def test_a_port_the_panel_cannot_be_found_on_is_refused(port):
    done = smarttable("run", "--demo", "--port", port)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == f"smarttable run: web.port: must be between 1 and 65535, got {port}"


def test_the_configs_game_rulings_are_the_new_games_and_a_misspelled_one_is_named(make_controller, tmp_path):
    from table.config import load_config
    from table.errors import ConfigError

    config = load_config(config_with(tmp_path, "[game.rulings]\nclimb_cost = 3.0\nband_edge = \"farther\"\n"))
    c = make_controller(config=config)
    assert c.state.rulings["climb_cost"] == 3.0 and c.state.rulings["band_edge"] == "farther"
    assert c.snapshot().status["rulings"]["climb_cost"] == 3.0
    assert [e for e in c.gamelog.events(c.game) if e["kind"] == "settings"][0]["rulings"] == {
        "climb_cost": 3.0, "band_edge": "farther"}
    c.close()
    wrong = load_config(config_with(tmp_path, "[game.rulings]\nclimb_cots = 3.0\n"))
    with pytest.raises(ConfigError, match=r"^game.rulings: unknown ruling option\(s\) for synaptik: climb_cots "
                                          r"\(did you mean climb_cost\?\)"):
        make_controller(config=wrong, log_path=tmp_path / "other.sqlite3")


def test_every_ruling_number_declares_the_range_its_rule_allows():
    from table import registry

    open_ended = [f"{cls.__name__}.{o.name}" for cls in registry.every() for o in cls.options
                  if o.kind in ("number", "integer") and (o.minimum is None or o.maximum is None)]
    assert not open_ended, f"a ruling number with no range: {open_ended}"
    for cls in registry.every():
        for option in cls.options:
            if option.kind in ("number", "integer"):
                assert option.minimum <= option.default <= option.maximum if option.default is not None else True
                assert option.to_json()["maximum"] == option.maximum     # the settings form's max


def test_climb_cost_1e308_is_refused_naming_it_from_the_api_the_config_and_the_command_line(make_controller,
                                                                                            tmp_path):
    from table.config import load_config
    from table.errors import ConfigError

    c = make_controller()
    client = make_app(c, tmp_path).test_client()
    before = dict(c.state.rulings)
    answer = client.put("/api/settings", data='{"rulings": {"climb_cost": 1e308}}',      # what the panel sends
                        headers={"X-Table-PIN": PIN, "Content-Type": "application/json"})
    assert answer.status_code == 400 and "climb_cost" in answer.get_json()["error"]
    assert "<= 20" in answer.get_json()["error"] and dict(c.state.rulings) == before
    c.close()
    wrong = load_config(config_with(tmp_path, "[game.rulings]\nclimb_cost = 1e308\n"))
    with pytest.raises(ConfigError, match=r"^game.rulings: .*climb_cost.*<= 20"):
        make_controller(config=wrong, log_path=tmp_path / "other.sqlite3")
    scene = ROOT / "table" / "data" / "demo.json"
    done = smarttable("query", str(scene), "report", "--ruling", "climb_cost=1e308")
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "climb_cost" in done.stderr and "<= 20" in done.stderr


def test_a_board_past_the_terrain_bound_is_refused_and_one_at_it_answers_the_line_of_sight(make_controller,
                                                                                           tmp_path):
    """The panel's bound on terrain (200 pieces, 100 corners each; command_limits): past it a 400 naming the
    field and nothing changed; at it (200 pieces of 30 corners on the sight line, the board that once took
    4.6 s a question) the question is answered. Its time: bench/bench_los_terrain.py."""
    import math

    from bench.bench_los_terrain import crowded
    from table.live.command_limits import MAX_POINTS, MAX_TERRAIN

    c = make_controller()
    client = make_app(c, tmp_path).test_client()
    auth = {"X-Table-PIN": PIN}
    before = c.state.scene.terrain
    doc, ends = crowded(MAX_TERRAIN)
    square = [[1, 1], [2, 1], [2, 2], [1, 2]]
    too_many = [{"id": f"t{i}", "polygon": square} for i in range(MAX_TERRAIN + 1)]
    answer = client.put("/api/terrain", json={"terrain": too_many}, headers=auth)
    assert answer.status_code == 400 and answer.get_json()["field"] == "terrain"
    corners = [[5 + math.cos(2 * math.pi * k / 101), 5 + math.sin(2 * math.pi * k / 101)] for k in range(101)]
    answer = client.put("/api/terrain", json={"terrain": [{"id": "round", "polygon": corners}]}, headers=auth)
    assert answer.status_code == 400 and answer.get_json()["field"] == "terrain[0].polygon"
    assert f"at most {MAX_POINTS} points" in answer.get_json()["error"] and c.state.scene.terrain == before
    assert client.put("/api/terrain", json={"terrain": doc["terrain"]}, headers=auth).status_code == 200
    assert len(c.state.scene.terrain) == MAX_TERRAIN
    answer = client.get(f"/api/query/los?arg={ends[0]}&arg={ends[1]}", headers=auth)
    assert answer.status_code == 200, answer.get_data(as_text=True)
