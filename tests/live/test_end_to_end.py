"""From synthetic camera frames (rendered markers, the real detector, calibration and tracker) to
LED frames on the mock strip and entries in the game log."""

from __future__ import annotations

from dataclasses import replace

import pytest

from table.live import highlight as hl
from vision.pipeline import VisionPipeline
from vision.sources import SyntheticSource
from vision.synthetic_scene import SceneMarker, from_scene


@pytest.fixture
def camera(config, scene):
    """The synthetic camera at 2028 x 1520 on the demo scene, unpaced."""
    return SyntheticSource(config, from_scene(scene, config), realtime=False)


def run(controller, camera, frames):
    for _ in range(frames):
        controller.process(camera.read())


def led(controller, point):
    return controller.hw.strip.last[controller.layout.nearest(point)]


def test_frames_to_leds_and_log(make_controller, config, camera):
    c = make_controller(pipeline=VisionPipeline(config))
    run(c, camera, 4)
    status = c.snapshot().status
    assert status["calibration"] == "ok" and status["markers_seen"] == 8 and not c.snapshot().warnings
    # the pointer token goes down beside rifles-1: it is selected, and the LEDs show its bands
    pointer = SceneMarker(config.markers.pointer_id, 9.0, 38.8, 0.0, 15.0)
    camera.set_scene(replace(camera.scene, markers=camera.scene.markers + (pointer,)))
    run(c, camera, 4)
    assert c.state.selected == "rifles-1"
    assert led(c, (12.0, 8.0)) == hl.BAND_COLOURS["cold"]         # raiders-1, 32" away
    assert led(c, (10.0, 40.0)) == hl.SELECTED
    # the sniper is carried 9" down the board: a move, and a warning (its movement is 6")
    camera.set_scene(camera.scene.with_marker(23, y=15.0))
    run(c, camera, 5)
    sniper = c.state.scene.model("sniper-1")
    assert sniper.position == pytest.approx((38.0, 15.0), abs=0.1)
    events = c.gamelog.events(c.game)
    moves = [e for e in events if e["kind"] == "move" and not e.get("placement")]
    assert [m["model"] for m in moves] == ["sniper-1"] and moves[0]["distance"] == pytest.approx(9.0, abs=0.1)
    assert any(e["kind"] == "select" and e["by"] == "pointer" for e in events)
    assert [w["kind"] for w in c.snapshot().warnings] == ["overmove"]
    # what the strip showed is what the snapshot says; only changed frames went out (13 frames in)
    frames = c.hw.strip.frames
    assert c.snapshot().leds == c.hw.strip.last
    assert 3 <= len(frames) < 13 and all(a != b for a, b in zip(frames, frames[1:], strict=False))
