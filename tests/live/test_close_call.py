"""The LEDs say "too close to call" when the camera's error could put the target in either of two bands:
from the target towards the selected model, two lit (the nearer band's colour, the farther band's) and one
dark, where a sure answer lights the target in its one band's colour."""

from __future__ import annotations

import json
import math

from table.live import highlight as hl
from table.scene import parse_scene
from tests.live.live_fakes import DEMO_SCENE, frame
from vision.types import MarkerPose, Observation

# raiders-1 24.01" from rifles-2 (10.9, 40), the rifles' nearest model to it (rifles-1 at (10, 40) is 24.07"
# away): the rifles' cold band starts at 24"
ON_THE_BOUNDARY = (12.0, 40.0 - math.sqrt(24.01 ** 2 - 1.1 ** 2))


def demo(raiders_at):
    doc = json.loads(DEMO_SCENE.read_text())
    for m in doc["models"]:
        if m["id"] == "raiders-1":
            m["x"], m["y"] = raiders_at
    return parse_scene(doc)


def seen_with(pipeline, scene, sigma):
    poses = {m.marker: MarkerPose(m.marker, m.x, m.y, m.heading, sigma=sigma, heading_sigma=0.1)
             for m in scene.models if m.marker is not None}
    pipeline.observation = Observation(0.0, True, poses)


def leds_near_target(c, layout, target, count=4):
    pts = layout.array()
    order = sorted(range(len(pts)), key=lambda i: math.dist(pts[i], target))[:count]
    return [c.hw.strip.last[i] for i in order]


def aim(make_controller, pipeline, scene, sigma):
    c = make_controller(scene=scene)
    seen_with(pipeline, scene, sigma)
    c.process(frame(1))
    c.command("select", id="rifles-1")
    c.command("target", id="raiders")
    return c


def test_a_band_too_close_to_call_has_its_own_pattern(make_controller, pipeline, layout):
    scene = demo(ON_THE_BOUNDARY)
    c = aim(make_controller, pipeline, scene, 0.01)   # 24.01" +- 0.028": standard or cold
    near = leds_near_target(c, layout, ON_THE_BOUNDARY)
    assert near[0] == hl.BAND_COLOURS["standard"]     # the nearer band where the target stands
    assert hl.BAND_COLOURS["cold"] in near and hl.OFF in near
    assert c.snapshot().selection["band"]["band"] == "cold"   # the answer on the measured position stays


def test_a_sure_band_lights_the_target_in_its_colour(make_controller, pipeline, layout):
    scene = demo(ON_THE_BOUNDARY)
    c = aim(make_controller, pipeline, scene, 0.001)  # 24.01" +- 0.003": cold
    assert leds_near_target(c, layout, ON_THE_BOUNDARY, 1) == [hl.BAND_COLOURS["cold"]]


def test_on_the_under_board_grid_the_line_to_the_shooter_runs_two_lit_one_dark(make_controller, pipeline, config):
    from table.live.leds import load_layout

    grid = load_layout(config.path("hardware", "led_layout").parent / "under-board-grid.toml")
    c = make_controller(scene=demo(ON_THE_BOUNDARY), layout=grid)
    scene = c.state.scene
    seen_with(pipeline, scene, 0.01)
    c.process(frame(1))
    c.command("select", id="rifles-2")
    c.command("target", id="raiders")
    pts = grid.array()
    line = sorted(grid.chain(ON_THE_BOUNDARY, scene.model("rifles-2").position),
                  key=lambda i: math.dist(pts[i], ON_THE_BOUNDARY))
    standard, cold = hl.BAND_COLOURS["standard"], hl.BAND_COLOURS["cold"]
    assert [c.hw.strip.last[i] for i in line[:3]] == [standard, cold, hl.OFF]
    assert c.hw.strip.last[line[-1]] == hl.SELECTED      # the shooter, at the line's other end
