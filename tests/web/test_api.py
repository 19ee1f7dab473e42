"""Every endpoint through Flask's test client, with the real demo controller and bad inputs."""

from __future__ import annotations

import json

import pytest

from tests.web.server import PIN, make_app
from tests.web.tables import demo_controller
from web_ui import create_app


def error_of(response, status: int) -> str:
    assert response.status_code == status, response.data
    body = response.get_json()
    assert set(body) == {"error", "field"} and body["error"]
    return body["field"]


# ------------------------------------------------------------------ reading


@pytest.fixture(scope="module")
def reader(tmp_path_factory):
    """One demo table for the tests that only read (building a table takes a moment)."""
    folder = tmp_path_factory.mktemp("reader")
    controller = demo_controller(folder)
    yield make_app(controller, folder).test_client()
    controller.close()


def test_state_is_the_controllers_snapshot(client, table):
    body = client.get("/api/state").get_json()
    assert body["seq"] == table.snapshot().seq
    assert body["ruleset"] == "synaptik"
    assert {m["id"] for m in body["scene"]["models"]} >= {"rifles-1", "raiders-1", "sniper-1"}
    assert body["phase"]["phase"] == "initiative"
    assert len(body["leds"]) == len(table.snapshot().leds) and all(len(c) == 3 for c in body["leds"])
    assert {"camera", "calibration", "hardware"} <= set(body["status"])


def test_distance_answer_comes_from_the_rule_system(reader):
    client = reader
    # demo scene: rifles-1 at (10, 40), raiders-1 at (12, 8): centre to centre sqrt(2^2 + 32^2)
    body = client.get("/api/query/distance?arg=rifles-1&arg=raiders-1").get_json()
    assert body["answer"]["distance"] == pytest.approx((2**2 + 32**2) ** 0.5, abs=0.01)
    assert body["answer"]["method"] == "centre"


def test_band_and_sight_line(reader):
    client = reader
    band = client.get("/api/query/band?arg=rifles-1&arg=raiders-1").get_json()["answer"]
    assert band["band"] == "cold"                     # Rifle: cold 24-36", 32.06" away
    los = client.get("/api/query/los?arg=rifles-1&arg=raiders-1").get_json()["answer"]
    assert los["visible"] is False and los["blocked_by"] == ["crag"]   # crag: impassable, 4" tall


def test_cohesion_of_a_unit(reader):
    client = reader
    body = client.get("/api/query/cohesion?arg=rifles").get_json()["answer"]
    assert body["coherent"] is True and body["out_of_cohesion"] == []


def test_questions_lists_what_the_rule_system_answers(client):
    body = client.get("/api/questions").get_json()
    assert body["ruleset"] == "synaptik" and {"distance", "los", "band", "cohesion"} <= set(body["questions"])


def test_rulesets_list_rulings_and_dice(client):
    found = {r["name"]: r for r in client.get("/api/rulesets").get_json()["rulesets"]}
    assert {"synaptik", "age_of_tyrants", "syniad", "hex_skirmish"} <= set(found)
    assert found["synaptik"]["rolls"][0] == "pool" and found["syniad"]["rolls"][0] == "combat"


@pytest.mark.parametrize("url, status, field", [
    ("/api/query/distance?arg=rifles-1&arg=nobody", 400, "arg"),
    ("/api/query/distance?arg=rifles-1", 400, "arg"),
    ("/api/query/distance?arg=../../etc/passwd", 400, "arg"),
    ("/api/query/teleport?arg=rifles-1", 404, "question"),
    ("/api/query/distance?arg=a&arg=b&arg=c&arg=d&arg=e", 400, "arg"),
    ("/api/log?limit=0", 400, "limit"),
    ("/api/log?after=x", 400, "after"),
    ("/api/events?after=soon", 400, "after"),
    ("/api/scenes/..%2f..%2fetc%2fpasswd", 404, "path"),
    ("/api/scenes/..", 400, "name"),
    ("/api/scenes/nothing-here", 404, "name"),
    ("/api/markers/sheet.svg?ids=abc", 400, "ids"),
    ("/api/markers/sheet.svg?ids=5000", 400, "ids"),
    ("/api/markers/sheet.svg?ids=600", 404, "ids"),
    ("/api/markers/sheet.svg", 400, "ids"),
    ("/api/no-such-thing", 404, "path"),
])
def test_bad_reads_are_4xx_naming_the_field(reader, url, status, field):
    assert error_of(reader.get(url), status) == field


def test_wrong_method_is_a_json_405(client):
    assert error_of(client.get("/api/phase/advance"), 405) == "method"


def test_openapi_document_lists_every_api_route(app, client):
    doc = client.get("/api/openapi.json").get_json()
    assert doc["openapi"].startswith("3.")
    documented = {(path, method.upper()) for path, ops in doc["paths"].items() for method in ops}
    routed = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/"):
            path = rule.rule.replace("<", "{").replace(">", "}")
            routed |= {(path, m) for m in rule.methods - {"HEAD", "OPTIONS"}}
    assert routed == documented


def test_log_and_export_follow_the_game(client, auth):
    client.post("/api/phase/advance", headers=auth)
    entries = client.get("/api/log").get_json()["entries"]
    assert [e["kind"] for e in entries][:1] == ["game_start"] and entries[-1]["kind"] == "phase"
    after = client.get(f"/api/log?after={entries[-2]['seq']}").get_json()["entries"]
    assert [e["seq"] for e in after] == [entries[-1]["seq"]]
    lines = client.get("/api/log/export").get_data(as_text=True).splitlines()
    assert [json.loads(line)["seq"] for line in lines] == [e["seq"] for e in entries]


def test_marker_sheet_draws_each_marker(client):
    svg = client.get("/api/markers/sheet.svg?ids=10-13").get_data(as_text=True)
    assert svg.startswith("<svg") and svg.count("<g ") == 4 and ">13</text>" in svg


def test_page_loads_with_strict_security_headers(client):
    response = client.get("/")
    assert response.status_code == 200 and b'id="board"' in response.data
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert client.get("/static/js/app.js").status_code == 200


def test_static_files_cannot_leave_the_static_folder(client):
    assert client.get("/static/../app.py").status_code == 404
    assert client.get("/static/%2e%2e/app.py").status_code == 404


# ------------------------------------------------------------------ changing


def test_every_change_needs_the_pin(client):
    for method, url in [("post", "/api/phase/advance"), ("post", "/api/select"), ("post", "/api/roll"),
                        ("put", "/api/terrain"), ("put", "/api/settings"), ("post", "/api/roster/assign"),
                        ("post", "/api/target"), ("put", "/api/scenes/x"),
                        ("post", "/api/warnings/w/acknowledge")]:
        assert error_of(getattr(client, method)(url, json={}), 401) == "X-Table-PIN"
        response = getattr(client, method)(url, json={}, headers={"X-Table-PIN": "0000"})
        assert error_of(response, 403) == "X-Table-PIN"


def test_guessing_the_pin_is_slowed(table, tmp_path):
    client = create_app(table, pin="123456", data_dir=tmp_path).test_client()
    for guess in range(10):
        client.post("/api/phase/advance", headers={"X-Table-PIN": f"{guess:06d}"})
    response = client.post("/api/phase/advance", headers={"X-Table-PIN": "123456"})
    assert error_of(response, 429) == "X-Table-PIN"


def test_advance_phase_changes_the_table(client, auth, table):
    before = table.snapshot().seq
    body = client.post("/api/phase/advance", headers=auth).get_json()
    assert body["ok"] and body["result"]["phase"] == "activations" and body["seq"] > before
    assert client.get("/api/state").get_json()["phase"]["phase"] == "activations"


def test_select_and_target_light_the_answers(client, auth, table):
    client.post("/api/select", json={"id": "rifles-1"}, headers=auth)
    body = client.post("/api/target", json={"id": "raiders"}, headers=auth).get_json()
    assert body["result"] == {"selected": "rifles-1", "target": "raiders"}
    selection = client.get("/api/state").get_json()["selection"]
    assert selection["band"]["band"] == "cold" and selection["los"]["blocked_by"] == ["crag"]


def test_terrain_is_checked_then_replaced(client, auth, table):
    piece = {"id": "wall", "polygon": [[20, 30], [28, 30], [28, 31]], "height": 2, "traits": ["heavy_cover"]}
    body = client.put("/api/terrain", json={"terrain": [piece]}, headers=auth).get_json()
    assert body["ok"] and [t["id"] for t in table.snapshot().scene["terrain"]] == ["wall"]


@pytest.mark.parametrize("terrain, field", [
    ("nope", "terrain"),
    ([{"id": "x", "polygon": [[1, 1], [2, 2]]}], "terrain[0].polygon"),
    ([{"id": "x", "polygon": [[1, 1], [2, 2], [3, 1]], "traits": ["lava"]}], "terrain[0].traits[0]"),
    ([{"id": "x", "polygon": [[1, 1], [2, 2], [3, 1]], "height": -1}], "terrain[0].height"),
    ([{"polygon": [[1, 1], [2, 2], [3, 1]]}], "terrain[0].id"),
])
def test_bad_terrain_names_the_json_path(client, auth, table, terrain, field):
    before = table.snapshot().scene["terrain"]
    assert error_of(client.put("/api/terrain", json={"terrain": terrain}, headers=auth), 400) == field
    assert table.snapshot().scene["terrain"] == before


def test_settings_change_brightness_and_rulings_are_checked(client, auth, table):
    body = client.put("/api/settings", json={"brightness": 0.25}, headers=auth).get_json()
    assert body["result"]["brightness"] == 0.25
    response = client.put("/api/settings", json={"rulings": {"no_such_option": True}}, headers=auth)
    assert error_of(response, 400) == "rulings"
    assert error_of(client.put("/api/settings", json={"brightness": 3}, headers=auth), 400) == "brightness"
    assert error_of(client.put("/api/settings", json={"ruleset": "chess"}, headers=auth), 400) == "ruleset"


def test_assign_a_marker_to_a_model(client, auth, table):
    body = client.post("/api/roster/assign", json={"model": "sniper-1", "marker": 30},
                       headers=auth).get_json()
    assert body["ok"] and body["result"]["roster"]["30"] == "sniper-1"
    response = client.post("/api/roster/assign", json={"model": "ghost", "marker": 31}, headers=auth)
    assert error_of(response, 404) == "model"


def test_assign_the_marker_just_placed(fake, tmp_path):
    client = make_app(fake, tmp_path).test_client()
    headers = {"X-Table-PIN": PIN}
    response = client.post("/api/roster/assign", json={"model": "e2"}, headers=headers)
    assert error_of(response, 409) == "marker"                           # nothing placed yet
    fake.warn("unknown_marker:33", "unknown_marker", "marker 33 is not in the roster", [])
    body = client.post("/api/roster/assign", json={"model": "e2"}, headers=headers).get_json()
    assert body["result"] == {"model": "e2", "marker": 33}
    fake.warn("unknown_marker:34", "unknown_marker", "marker 34 is not in the roster", [])
    fake.warn("unknown_marker:35", "unknown_marker", "marker 35 is not in the roster", [])
    response = client.post("/api/roster/assign", json={"model": "m1"}, headers=headers)
    assert error_of(response, 409) == "marker" and "34, 35" in response.get_json()["error"]


@pytest.mark.parametrize("url, body, field", [
    ("/api/select", {"id": 5}, "id"),
    ("/api/select", {"id": "nobody"}, "id"),
    ("/api/target", {"id": "ghost"}, "id"),
    ("/api/select", {"ident": "rifles-1"}, "ident"),
    ("/api/select", ["rifles-1"], "body"),
    ("/api/roll", {"kind": "combat", "attackers": [7], "defenders": [5]}, "kind"),
    ("/api/roll", {"kind": "pool", "d6": "3"}, "d6"),
    ("/api/roll", {"kind": "combat", "attackers": [7], "defenders": []}, "defenders"),
    ("/api/roll", {"kind": "pool", "d6": -1}, "d6"),
    ("/api/roll", {"kind": "pool", "d6": 2, "reroll": "all"}, "reroll"),
    ("/api/roll", {"kind": "dice", "count": 2, "sides": 1}, "sides"),
    ("/api/roster/assign", {"model": "rifles-1", "marker": -3}, "marker"),
    ("/api/warnings/nope/acknowledge", {}, "warning_id"),
    ("/api/phase/advance", {"extra": 1}, "extra"),
])
def test_bad_changes_are_4xx_naming_the_field(client, auth, url, body, field):
    response = client.post(url, json=body, headers=auth)
    assert 400 <= response.status_code < 500
    assert error_of(response, response.status_code) == field


def test_malformed_json_body_names_the_body(client, auth):
    headers = {**auth, "Content-Type": "application/json"}
    response = client.post("/api/select", data="{not json", headers=headers)
    assert error_of(response, 400) == "body"


def test_roll_is_sent_to_the_controller_and_logged(fake, tmp_path):
    client = make_app(fake, tmp_path).test_client()
    body = client.post("/api/roll", json={"kind": "pool", "d6": 3, "d8": 2, "d10": 1, "reroll": "failures"},
                       headers={"X-Table-PIN": PIN}).get_json()
    dice = body["result"]["dice"]
    assert [d["sides"] for d in dice] == [6, 6, 6, 8, 8, 10]
    assert body["result"]["successes"] == sum(d["value"] >= 5 for d in dice)
    assert all(d["rerolled_from"] is None or d["rerolled_from"] < 5 for d in dice)
    assert client.get("/api/log").get_json()["entries"][-1]["kind"] == "roll"


def test_acknowledge_a_warning(fake, tmp_path):
    client = make_app(fake, tmp_path).test_client()
    fake.warn("w1", "cohesion", "Raiders out of cohesion", ["u2"])
    body = client.post("/api/warnings/w1/acknowledge", headers={"X-Table-PIN": PIN}).get_json()
    assert body["ok"] and client.get("/api/state").get_json()["warnings"][0]["acknowledged"] is True


def test_camera_snapshot_and_missing_camera(fake, client, tmp_path):
    fake_client = make_app(fake, tmp_path).test_client()
    response = fake_client.get("/api/camera.jpg")
    assert response.status_code == 200 and response.data[:2] == b"\xff\xd8"
    assert error_of(client.get("/api/camera.jpg"), 404) == "camera"      # the real table: no frame yet
    assert error_of(client.get("/api/camera.mjpeg"), 404) == "camera"


def test_mjpeg_stream_sends_jpeg_parts(fake, tmp_path):
    client = make_app(fake, tmp_path).test_client()
    response = client.get("/api/camera.mjpeg", buffered=False)
    assert response.mimetype == "multipart/x-mixed-replace"
    first = next(response.response)
    assert first.startswith(b"--frame\r\nContent-Type: image/jpeg") and b"\xff\xd8" in first
    response.close()


# ------------------------------------------------------------------ the data folder


def test_save_and_read_a_scene_in_the_data_folder(client, auth, tmp_path):
    assert client.put("/api/scenes/opening", headers=auth).get_json()["ok"]
    assert (tmp_path / "data" / "scenes" / "opening.json").is_file()
    assert client.get("/api/scenes").get_json()["scenes"] == ["opening"]
    assert client.get("/api/scenes/opening").get_json()["ruleset"] == "synaptik"


@pytest.mark.parametrize("name", ["..", ".hidden", "a.b", "x" * 65, "con%00", "..%5c..%5cwin"])
def test_scene_names_never_leave_the_data_folder(client, auth, tmp_path, name):
    response = client.put(f"/api/scenes/{name}", headers=auth)
    assert response.status_code in (400, 404)
    files = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix == ".json"]
    assert files == []


def test_generated_pin_is_kept_in_the_data_folder(table, tmp_path, capsys):
    first = create_app(table, data_dir=tmp_path / "d").extensions["smarttable"].options.pin
    assert len(first) == 6 and first.isdigit() and first in capsys.readouterr().err
    again = create_app(table, data_dir=tmp_path / "d").extensions["smarttable"].options.pin
    assert again == first and (tmp_path / "d" / "pin.txt").stat().st_mode & 0o077 == 0
