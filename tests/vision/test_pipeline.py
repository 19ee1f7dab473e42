"""The live pipeline on synthetic frames: moves with hands over the board, incremental detection,
a bumped camera, and no corner markers."""

from __future__ import annotations

import math

import pytest

from tests.vision.synthetic import camera, models, scene
from vision.pipeline import VisionPipeline
from vision.sources import SyntheticSource
from vision.synthetic import RenderOptions
from vision.synthetic_scene import move_script
from vision.types import Frame

OPTIONS = RenderOptions(clutter=30, decoys=1, texture_ppi=30.0, supersample=2)
STRAIGHT = dict(dist=(0, 0, 0, 0, 0))


def source(config, scn, cam=None):
    return SyntheticSource(config, scn, camera=cam or camera(**STRAIGHT), options=OPTIONS, realtime=False)


def run(pipeline, frames):
    observations = []
    for frame in frames:
        observations.append(pipeline.process(frame))
    return observations


def frames_of(src, count, start_index=0, start_time=0.0):
    out = []
    for i in range(count):
        f = src.read()
        out.append(Frame(f.image, start_time + (i + 1) * 0.1, start_index + i))
    return out


@pytest.fixture(scope="module")
def played(config):
    scn = scene(config)
    src = source(config, scn)
    mover = models()[2]
    target = (mover.x + 3.0, mover.y - 2.0)
    script = list(move_script(scn, {mover.id: target}, hand_frames=4, still_frames=6))
    src.play(script)
    pipeline = VisionPipeline(config)
    return pipeline, run(pipeline, frames_of(src, len(script))), mover, target


def test_a_move_under_a_hand_is_one_event_with_the_true_distance(played):
    _, observations, mover, target = played
    moves = [m for o in observations for m in o.moves]
    assert [m.id for m in moves] == [mover.id]
    assert moves[0].distance == pytest.approx(math.dist((mover.x, mover.y), target), abs=0.03)
    final = observations[-1].markers[mover.id]
    assert math.dist((final.x, final.y), target) < 0.02
    # under the hand it was occluded, never gone, and kept its old place until it settled
    poses = [o.markers[mover.id] for o in observations if mover.id in o.markers]
    carried = [p for p in poses if p.occluded]
    assert carried and all((p.x, p.y) == (carried[0].x, carried[0].y) for p in carried)
    assert math.dist((carried[0].x, carried[0].y), (mover.x, mover.y)) < 0.02


def test_still_models_stay_put_and_are_never_lost_under_the_hand(played):
    _, observations, mover, _ = played
    first_full = next(i for i, o in enumerate(observations) if len(o.markers) == 16)
    for obs in observations[first_full:]:
        assert set(obs.markers) == {m.id for m in models()}
    for m in models():
        if m.id == mover.id:
            continue
        xs = [o.markers[m.id].x for o in observations[first_full:]]
        assert max(xs) - min(xs) < 0.01
        last = observations[-1].markers[m.id]
        assert math.dist((last.x, last.y), (m.x, m.y)) < 0.02


def test_steady_state_searches_regions_not_whole_frames(played):
    pipeline, observations, _, _ = played
    assert pipeline.stats.region_passes > 2 * pipeline.stats.full_passes
    assert all(o.calibrated for o in observations)


def test_a_bumped_camera_is_recalibrated_without_moving_any_model(config):
    scn = scene(config)
    pipeline = VisionPipeline(config)
    before = run(pipeline, frames_of(source(config, scn), 5))
    bumped = source(config, scn, camera(tilt=(6.5, -3.0), **STRAIGHT))  # the camera knocked by a degree
    after = run(pipeline, frames_of(bumped, 14, start_index=5, start_time=0.5))
    assert any("recalibrated" in w for o in after for w in o.warnings)
    assert pipeline.stats.recalibrations == 1
    assert not [m for o in after for m in o.moves]
    for marker_id, pose in before[-1].markers.items():
        now = after[-1].markers[marker_id]
        assert math.dist((pose.x, pose.y), (now.x, now.y)) < 0.03


def test_without_corner_markers_observations_are_uncalibrated_with_a_warning(config):
    pipeline = VisionPipeline(config)
    obs = run(pipeline, frames_of(source(config, scene(config, drop=(0, 1, 2))), 2))
    assert not obs[-1].calibrated and obs[-1].markers == {}
    assert "0, 1, 2 not found" in obs[0].warnings[0]
