"""The web panel (web_ui.create_app) on the real controller: reads, PIN-guarded commands, the log
and the camera view."""

from __future__ import annotations

import pytest

from vision.pipeline import VisionPipeline
from vision.sources import SyntheticSource
from vision.synthetic_scene import from_scene

web_ui = pytest.importorskip("web_ui.app")

PIN = {"X-Table-PIN": "2468"}


@pytest.fixture
def client(make_controller, tmp_path):
    controller = make_controller()
    app = web_ui.create_app(controller, pin="2468", data_dir=tmp_path / "panel")
    return app.test_client(), controller


def test_state_and_commands_through_the_panel(client):
    http, controller = client
    state = http.get("/api/state").get_json()
    assert state["ruleset"] == "synaptik" and len(state["leds"]) == 292
    assert http.post("/api/select", json={"id": "rifles-1"}).status_code in (401, 403)   # no PIN
    assert http.post("/api/select", json={"id": "rifles-1"}, headers=PIN).status_code == 200
    assert http.post("/api/target", json={"id": "raiders"}, headers=PIN).status_code == 200
    state = http.get("/api/state").get_json()
    los = state["selection"]["los"]                                  # the crag stands in the way
    assert state["selection"]["band"]["band"] == "cold" and los["visible"] is False
    assert los["blocked_by"] == ["crag"]
    reply = http.post("/api/roll", json={"kind": "pool", "d6": 2, "d8": 1}, headers=PIN).get_json()
    assert len(reply["result"]["dice"]) == 3
    assert http.post("/api/phase/advance", headers=PIN, json={}).status_code == 200
    entries = http.get("/api/log?after=0").get_json()["entries"]
    assert [e["kind"] for e in entries] == ["game_start", "select", "target", "roll", "phase"]
    assert [e["kind"] for e in http.get(f"/api/log?after={entries[2]['seq']}").get_json()["entries"]] == \
        ["roll", "phase"]


def test_camera_view_draws_on_the_newest_frame(make_controller, config, scene, tmp_path):
    import cv2
    import numpy as np

    controller = make_controller(pipeline=VisionPipeline(config))
    app = web_ui.create_app(controller, pin="2468", data_dir=tmp_path / "panel")
    http = app.test_client()
    assert http.get("/api/camera.jpg").status_code == 404             # no frame yet
    camera = SyntheticSource(config, from_scene(scene, config), realtime=False)
    for _ in range(4):
        controller.process(camera.read())
    reply = http.get("/api/camera.jpg")
    assert reply.status_code == 200 and reply.mimetype == "image/jpeg"
    view = cv2.imdecode(np.frombuffer(reply.data, np.uint8), cv2.IMREAD_COLOR)
    assert view.shape[1] == 1014 and (view[:, :, 1] > view[:, :, 2] + 60).any()   # the green outline


def test_each_frame_is_encoded_once_however_many_phones_ask(make_controller, config, scene, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    controller = make_controller(pipeline=VisionPipeline(config))
    app = web_ui.create_app(controller, pin="246813", data_dir=tmp_path / "panel")
    camera = SyntheticSource(config, from_scene(scene, config), realtime=False)
    controller.process(camera.read())
    encoded = controller._camera_view.encoded

    def phone(_: int) -> bytes:
        reply = app.test_client().get("/api/camera.jpg")
        assert reply.status_code == 200
        return reply.data

    with ThreadPoolExecutor(8) as phones:
        views = list(phones.map(phone, range(40)))
    assert len(set(views)) == 1 and controller._camera_view.encoded == encoded + 1
    controller.process(camera.read())                  # a new frame: encoded once more, the old one let go
    assert phone(0) and controller._camera_view.encoded == encoded + 2


def test_the_panel_asks_the_controller_about_its_newest_snapshot(client, pipeline):
    """Read-only questions are answered by the controller (PanelController.questions) about the scene
    of the snapshot the answer names: after the camera moves the sniper, the distance follows it."""
    import math

    from tests.live.live_fakes import frame, move

    http, controller = client
    assert http.get("/api/questions").get_json()["ruleset"] == "synaptik"
    before = http.get("/api/query/distance?arg=rifles-1&arg=sniper-1").get_json()
    pipeline.see({23: (38.0, 15.0)}, (move(23, (38.0, 6.0), (38.0, 15.0)),))
    controller.process(frame(1))
    after = http.get("/api/query/distance?arg=rifles-1&arg=sniper-1").get_json()
    models = {m["id"]: m for m in controller.snapshot().scene["models"]}
    assert models["sniper-1"]["y"] == 15.0 and after["seq"] > before["seq"]
    rifles, sniper = models["rifles-1"], models["sniper-1"]
    expected = math.hypot(rifles["x"] - sniper["x"], rifles["y"] - sniper["y"])       # centre to centre
    assert after["answer"]["distance"] == pytest.approx(expected, abs=0.01)
    assert after["answer"]["distance"] != pytest.approx(before["answer"]["distance"], abs=0.5)
