"""A 72"x48" board through two overlapping synthetic cameras: each camera calibrates on the corner
and edge markers it sees, the rig merges them: every model once, within 0.02" of the truth across
the seam, and a model carried across the seam keeps its identity (one move, from where it stood to
where it stands)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from table.config import from_document
from vision.camera import PinholeCamera
from vision.merge import CameraView, ObservationMerger, merge_marker
from vision.rig import CameraRig, RigFrame, camera_over
from vision.synthetic import Renderer, RenderOptions
from vision.synthetic_scene import SceneMarker, SyntheticScene, corner_markers
from vision.types import Frame, MarkerPose, Observation

BOARD = (72.0, 48.0)
SIZE = (2028, 1520)
CONFIG = from_document({
    "board": {"width": BOARD[0], "height": BOARD[1]},
    "markers": {"corners": {"0": [1.5, 1.5], "1": [70.5, 1.5], "2": [70.5, 46.5], "3": [1.5, 46.5]},
                "edges": {"4": [36.0, 1.5], "5": [36.0, 46.5], "6": [36.0, 24.0]}}}, "two-cameras")
CALIBRATION_IDS = frozenset(range(7))
# camera 0 looks at x 0..42, camera 1 at x 30..72: the overlap is 30..42 (the seam at 36)
VIEWS = ((0.0, (2.0, -1.0)), (30.0, (-1.5, 2.0)))
MODELS = {10: (10.0, 10.0, 0.0), 11: (33.0, 20.0, 45.0), 12: (37.0, 30.0, -90.0), 13: (40.5, 12.0, 30.0),
          14: (60.0, 40.0, 170.0), 15: (36.0, 40.0, 0.0), 16: (20.0, 36.0, 90.0)}


def camera(offset: float, tilt: tuple[float, float]) -> PinholeCamera:
    """A camera 40" over a 42"x48" part of the board starting at x = offset."""
    return camera_over(SIZE, (offset, 0.0, offset + 42.0, 48.0), tilt)


def scene(models: dict[int, tuple[float, float, float]]) -> SyntheticScene:
    markers = tuple(SceneMarker(m, x, y, h, 15.0, 0.0, 25.0) for m, (x, y, h) in models.items())
    return SyntheticScene(BOARD, corner_markers(CONFIG) + markers)


@pytest.fixture(scope="module")
def renderers():
    options = RenderOptions(supersample=2, noise_sigma=1.0, blur_sigma=0.5, decoys=0)
    return [Renderer(camera(offset, tilt), BOARD, options) for offset, tilt in VIEWS]


def frames(renderers, shown: SyntheticScene, count: int, start: int = 0):
    images = [r.render(shown, CALIBRATION_IDS) for r in renderers]
    for k in range(start, start + count):
        parts = tuple(Frame(image, k * 0.1, k) for image in images)
        yield RigFrame(images[0], k * 0.1, k, None, parts)


def in_view(camera_index: int, x: float) -> bool:
    offset = VIEWS[camera_index][0]
    return offset + 1.0 < x < offset + 41.0


def test_every_model_once_within_two_hundredths_across_the_seam(renderers):
    rig = CameraRig([CONFIG, CONFIG])
    for frame in frames(renderers, scene(MODELS), 4):
        observation = rig.process(frame)
    assert observation.calibrated
    seen_by = [set(p.tracker.poses(0.3)) for p in rig.pipelines]
    overlap = {m for m, (x, _, _) in MODELS.items() if in_view(0, x) and in_view(1, x)}
    assert overlap == {11, 12, 13, 15} and all(overlap <= ids for ids in seen_by)   # both cameras saw them
    assert set(observation.markers) == set(MODELS)                                   # each model once
    for marker_id, (x, y, heading) in MODELS.items():
        pose = observation.markers[marker_id]
        assert math.dist((pose.x, pose.y), (x, y)) < 0.02, (marker_id, pose)
        assert abs((pose.heading - heading + 180) % 360 - 180) < 1.0
    assert observation.moves == ()


def test_a_model_carried_across_the_seam_keeps_its_identity(renderers):
    rig = CameraRig([CONFIG, CONFIG])
    for frame in frames(renderers, scene(MODELS), 4):
        rig.process(frame)
    moved = {**MODELS, 16: (58.0, 30.0, 90.0), 11: (39.0, 22.0, 45.0)}    # 16: camera 0 only -> camera 1 only
    moves = []
    for frame in frames(renderers, scene(moved), 5, start=4):
        observation = rig.process(frame)
        moves += observation.moves
    assert sorted(m.id for m in moves) == [11, 16]                             # one move each, no new model
    across = next(m for m in moves if m.id == 16)
    assert math.dist(across.start, (20.0, 36.0)) < 0.02 and math.dist(across.end, (58.0, 30.0)) < 0.02
    assert abs(across.distance - math.dist((20.0, 36.0), (58.0, 30.0))) < 0.03
    assert set(observation.markers) == set(MODELS)
    assert not observation.markers[16].occluded and math.dist(
        (observation.markers[16].x, observation.markers[16].y), (58.0, 30.0)) < 0.02


def pose(x, y, heading=0.0, occluded=False, moving=False, last_seen=1.0):
    return MarkerPose(7, x, y, heading, occluded, last_seen, moving)


def test_merge_weights_each_camera_by_its_uncertainty():
    # sigma 0.01 and 0.02: weights 1/0.0001 and 1/0.0004, i.e. 4 : 1
    merged = merge_marker(7, [(pose(10.0, 20.0, 10.0), 0.01), (pose(10.05, 20.10, 20.0), 0.02)])
    assert merged.x == pytest.approx((4 * 10.0 + 10.05) / 5) and merged.y == pytest.approx((4 * 20.0 + 20.1) / 5)
    assert merged.heading == pytest.approx(12.0, abs=0.01)
    across = merge_marker(7, [(pose(1, 0, 179.0), 0.01), (pose(1, 0, -179.0), 0.01)]).heading
    assert across == pytest.approx(180.0)           # the circular mean, not 0


def test_merge_prefers_settled_then_seen_then_the_newest_occluded():
    settled, moving = pose(1.0, 1.0), pose(5.0, 5.0, moving=True)
    assert merge_marker(7, [(moving, 0.01), (settled, 0.05)]) == replace(settled, moving=False)
    hidden_old, hidden_new = pose(2, 2, occluded=True, last_seen=1.0), pose(3, 3, occluded=True, last_seen=2.0)
    assert merge_marker(7, [(hidden_old, 0.01), (moving, 0.5)]).moving is True
    assert merge_marker(7, [(hidden_old, 0.01), (hidden_new, 0.5)]) == hidden_new


def test_merged_moves_from_settled_positions_only():
    merger = ObservationMerger(move_threshold_in=0.05)

    def view(*poses, calibrated=True):
        return CameraView(Observation(0.0, calibrated, {p.id: p for p in poses}), 0.01)

    assert merger.merge([view(pose(10, 10)), view()], 0.0).moves == ()
    assert merger.merge([view(pose(10, 10, occluded=True)), view(pose(30, 10, moving=True))], 0.1).moves == ()
    assert merger.merge([view(pose(10, 10, occluded=True)), view(pose(10.02, 10))], 0.2).moves == ()  # jitter
    moves = merger.merge([view(), view(pose(30, 10))], 0.3).moves
    assert [(m.id, m.start, m.end) for m in moves] == [(7, (10, 10), (30, 10))]
    ignored = merger.merge([view(pose(50, 10), calibrated=False), view(pose(30, 10))], 0.4)
    assert ignored.moves == () and ignored.markers[7].x == 30          # an uncalibrated camera is not used


def test_the_two_camera_demo_table_sees_every_model_where_the_scene_has_it(tmp_path):
    from table.config import CONFIG_DIR, load_config
    from table.live.run import build_table

    config = load_config(CONFIG_DIR / "demo-two-cameras.toml")
    table = build_table(config, demo=True, log_path=tmp_path / "game.sqlite3")
    try:
        controller = table.controller
        assert isinstance(controller.pipeline, CameraRig) and len(controller.pipeline.pipelines) == 2
        source = controller.open_source()
        for _ in range(4):
            controller.process(source.read())
        snapshot = controller.snapshot()
        assert snapshot.status["calibration"] == "ok" and snapshot.scene["board"]["width"] == 72
        assert {m["id"]: m["state"] for m in snapshot.scene["models"]} == {
            m["id"]: "tracked" for m in snapshot.scene["models"]}
        # each model seen where the scene puts it: no camera-placed moves logged
        assert all(e["kind"] != "move" for e in controller.gamelog.since(0))
    finally:
        table.close()


def test_the_two_camera_table_logs_one_move_for_a_model_carried_across_the_seam(tmp_path):
    from table.config import CONFIG_DIR, load_config
    from table.live.run import build_table

    table = build_table(load_config(CONFIG_DIR / "demo-two-cameras.toml"), demo=True,
                        log_path=tmp_path / "game.sqlite3")
    try:
        controller, director = table.controller, table.director
        source = controller.open_source()
        for _ in range(4):
            controller.process(source.read())
        start = next(m for m in director.scene.markers if m.id == 20)          # raiders-1, camera 0's side
        assert (start.x, start.y) == (12.0, 8.0)
        director.show_scene(director.scene.with_marker(20, x=58.0, y=10.0))     # now on camera 1's side only
        for _ in range(6):
            controller.process(source.read())
        moves = [e for e in controller.gamelog.since(0) if e["kind"] == "move"]
        assert [m["model"] for m in moves] == ["raiders-1"] and "placement" not in moves[0]
        assert math.dist(moves[0]["from"], (12.0, 8.0)) < 0.02 and math.dist(moves[0]["to"], (58.0, 10.0)) < 0.02
        model = next(m for m in controller.snapshot().scene["models"] if m["id"] == "raiders-1")
        assert math.dist((model["x"], model["y"]), (58.0, 10.0)) < 0.02 and model["state"] == "tracked"
    finally:
        table.close()
