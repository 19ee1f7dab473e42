"""How sure the live table is: rendered frames through the real pipeline give each model a sigma that
shrinks as it stays still, the panel's state carries it, and its distance answer has an interval that holds
the true distance."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from vision.lens import Intrinsics
from vision.pipeline import VisionPipeline
from vision.sources import SyntheticSource
from vision.synthetic_scene import from_scene
from vision.track import Sighting, Tracker
from web_ui import create_app


@pytest.fixture
def camera(config, scene):
    return SyntheticSource(config, from_scene(scene, config), realtime=False)


def sigmas(controller):
    return {m["id"]: (m.get("sigma"), m.get("heading_sigma")) for m in controller.snapshot().scene["models"]}


def lens_calibrated(pipeline, camera):
    """The pipeline with the simulated lens's intrinsics, as after `smarttable calibrate-lens`."""
    cam = camera.camera
    pipeline.setup = replace(pipeline.setup, intrinsics=Intrinsics(cam.K, cam.dist, cam.size))
    return pipeline


def tracked(pipeline: VisionPipeline) -> dict[int, tuple[float, float]]:
    """Marker id -> (sigma, heading_sigma) as the tracker has them (the panel rounds them to 0.001" and 0.1
    degree, finer than 8 more frames shrink a rendered frame's small per-frame share)."""
    return {i: (p.sigma, p.heading_sigma) for i, p in pipeline.tracker.poses(math.inf).items()}


def test_models_carry_sigma_and_the_panel_an_interval(make_controller, config, camera, tmp_path):
    pipeline = lens_calibrated(VisionPipeline(config), camera)
    c = make_controller(pipeline=pipeline)
    for _ in range(4):
        c.process(camera.read())
    early, early_tracked = sigmas(c), tracked(pipeline)
    assert all(s is not None and 0 < s < 0.1 and h is not None and h > 0 for s, h in early.values()), early
    for _ in range(8):
        c.process(camera.read())
    late = tracked(pipeline)
    assert late.keys() == early_tracked.keys()
    assert all(late[m][0] < early_tracked[m][0] and late[m][1] < early_tracked[m][1] for m in late), late
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


# docs/uncertainty.md, "On the live table": a still model's sigma is the share every frame has in common, plus
# the per-frame share over the square root of the frames averaged (at most 50); heading_sigma shrinks the same.
# A sighting with sigma 0.05" of which 0.04" is new in each frame has 0.03" in common (0.05^2 = 0.03^2 + 0.04^2):
# after n frames sqrt(0.03^2 + 0.04^2 / n); heading 2 degrees / sqrt(n).
@pytest.mark.parametrize("frames, sigma, heading_sigma", [
    (4, math.sqrt(0.0009 + 0.0016 / 4), 1.0),       # 0.0361"
    (16, math.sqrt(0.0009 + 0.0016 / 16), 0.5),     # 0.0316"
    (50, math.sqrt(0.0009 + 0.0016 / 50), 2.0 / math.sqrt(50)),
    (80, math.sqrt(0.0009 + 0.0016 / 50), 2.0 / math.sqrt(50)),  # 50 frames averaged at most
])
def test_the_per_frame_share_shrinks_by_the_root_of_the_frames_averaged(frames, sigma, heading_sigma):
    tracker = Tracker()
    still = Sighting(10.0, 20.0, 90.0, sigma=0.05, heading_sigma=2.0, sigma_frame=0.04)
    for n in range(frames):
        tracker.update({7: still}, float(n))
    pose = tracker.poses(float(frames - 1))[7]
    assert pose.sigma == pytest.approx(sigma, rel=1e-9) and pose.heading_sigma == pytest.approx(heading_sigma)
    assert pose.sigma > 0.03                         # the common share stays


def test_the_sightings_scatter_counts_when_larger_than_the_per_frame_share():
    """Jitter of +-0.02" along x (sd 0.02" on one axis: 0.0002 per axis, more than 0.005^2) replaces the
    per-frame share: after 20 frames sqrt(0.03^2 + 0.0002 * 20/19 / 20)."""
    tracker = Tracker()
    for n in range(20):
        x = 10.0 + (0.02 if n % 2 else -0.02)
        tracker.update({7: Sighting(x, 20.0, 90.0, sigma=0.03005, sigma_frame=0.005)}, float(n))
    common = 0.03005 ** 2 - 0.005 ** 2
    assert tracker.poses(19.0)[7].sigma == pytest.approx(math.sqrt(common + 0.0002 * 20 / 19 / 20), rel=1e-9)


def test_the_live_table_learns_its_lens_and_the_interval_holds(make_controller, config, camera, tmp_path):
    # no intrinsics: the first frame's calibration estimates the lens from the board (vision/lensfit.py), so
    # the error bars are about a calibrated table's, not the wide ones of a lens assumed (0.15" and more)
    calibrated = lens_calibrated(VisionPipeline(config), camera)
    bare = make_controller(pipeline=VisionPipeline(config))
    for _ in range(4):
        frame = camera.read()
        seen = calibrated.process(frame)
        bare.process(frame)
    assert bare.pipeline.calibration.lens == "estimated" and calibrated.calibration.lens == "calibrated"
    known = {m.id: seen.markers[m.marker].sigma for m in bare.state.scene.models}
    unknown = {model: s for model, (s, _) in sigmas(bare).items()}
    assert known and all(unknown[i] < max(2 * known[i], 0.02) for i in known), (known, unknown)
    client = create_app(bare, pin="1234", data_dir=tmp_path / "data").test_client()
    answer = client.get("/api/query/distance?arg=rifles-1&arg=sniper-1").get_json()["answer"]
    by_marker = {m.id: m for m in camera.scene.markers}
    markers = {m.id: m.marker for m in bare.state.scene.models}
    a, b = by_marker[markers["rifles-1"]], by_marker[markers["sniper-1"]]
    lo, hi = answer["interval"]
    assert lo <= math.dist((a.x, a.y), (b.x, b.y)) <= hi and hi - lo < 0.2


def test_the_demo_table_estimates_its_simulated_lens(tmp_path):
    # the demo's camera is simulated and its config names no lens: it learns the lens from its own board,
    # and its error bars are a calibrated table's (sigma under 0.05"), not an assumed lens's (0.15" here)
    from table.config import load_config
    from table.live.run import build_table

    table = build_table(load_config(), demo=True, log_path=tmp_path / "game.sqlite3")
    try:
        controller = table.controller
        assert controller.pipeline.setup.intrinsics is None
        source = controller.open_source()
        for _ in range(4):
            controller.process(source.read())
        assert controller.pipeline.calibration.lens == "estimated"
        sigmas = controller.model_sigmas()
        assert len(sigmas) == 8 and max(s for s, _ in sigmas.values()) < 0.05
    finally:
        table.close()
