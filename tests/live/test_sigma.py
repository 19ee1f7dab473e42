"""How sure the live table is: rendered frames through the real pipeline give each model a sigma that
shrinks as it stays still, the panel's state carries it, and its distance answer has an interval that holds
the true distance."""

from __future__ import annotations

import math

import pytest

from vision.pipeline import VisionPipeline
from vision.sources import SyntheticSource
from vision.synthetic_scene import from_scene
from web_ui import create_app


@pytest.fixture
def camera(config, scene):
    return SyntheticSource(config, from_scene(scene, config), realtime=False)


def sigmas(controller):
    return {m["id"]: (m.get("sigma"), m.get("heading_sigma")) for m in controller.snapshot().scene["models"]}


def test_models_carry_sigma_and_the_panel_an_interval(make_controller, config, camera, tmp_path):
    c = make_controller(pipeline=VisionPipeline(config))
    for _ in range(4):
        c.process(camera.read())
    early = sigmas(c)
    assert all(s is not None and 0 < s < 0.1 and h is not None and h > 0 for s, h in early.values()), early
    for _ in range(8):
        c.process(camera.read())
    late = sigmas(c)
    assert all(late[m][0] <= early[m][0] and late[m][1] <= early[m][1] for m in late)
    assert any(late[m][1] < early[m][1] for m in late)  # the heading's sd is nearly all per frame
    client = create_app(c, pin="1234", data_dir=tmp_path / "data").test_client()
    answer = client.get("/api/query/distance?arg=rifles-1&arg=sniper-1").get_json()["answer"]
    by_marker = {m.id: m for m in camera.scene.markers}
    markers = {m.id: m.marker for m in c.state.scene.models}
    a, b = by_marker[markers["rifles-1"]], by_marker[markers["sniper-1"]]
    true = math.dist((a.x, a.y), (b.x, b.y))
    lo, hi = answer["interval"]
    assert lo <= answer["distance"] <= hi and lo <= true <= hi and hi - lo < 0.2
    assert answer["too_close_to_call"] is False


def test_the_log_records_the_interval_with_the_answer(make_controller, config, camera):
    c = make_controller(pipeline=VisionPipeline(config))
    for _ in range(4):
        c.process(camera.read())
    shown = c.command("measure", question="band", args=["rifles-1", "raiders-1"])["answer"]
    logged = [e for e in c.gamelog.events(c.game) if e["kind"] == "measure"]
    assert len(logged) == 1 and logged[0]["answer"] == shown
    lo, hi = shown["interval"]
    assert lo < shown["distance"] < hi and shown["too_close_to_call"] is False and shown["band"] == "cold"
