"""Harsher frames through the real detector: the dense recovery pass, lifted markers, and recall on
renders spoiled the way real photos are (vision/degrade.py)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from table.config import from_document
from tests.vision.synthetic import camera, render, scene
from vision.camera import PinholeCamera
from vision.degrade import LEVELS, MODERATE, Degradation, degrade
from vision.detect import MarkerDetector
from vision.locate import VisionSetup, locate
from vision.pipeline import VisionPipeline
from vision.sources import SyntheticSource
from vision.synthetic import Renderer, RenderOptions
from vision.synthetic_scene import Hand, SyntheticScene, corner_markers, grid_layout
from vision.types import Frame

STRAIGHT = camera(dist=(0, 0, 0, 0, 0))
SHAKEN = Degradation(motion_px=5.0)  # a camera shaken by a knock on the table


@pytest.fixture(scope="module")
def clean(config):
    scn = scene(config)
    return scn, render(STRAIGHT, scn, supersample=2)


def frames(images, start=0):
    return [Frame(image, (start + i + 1) * 0.1, start + i) for i, image in enumerate(images)]


def test_dense_recovery_finds_a_tracked_marker_the_normal_pass_misses(config, clean):
    scn, image = clean
    shaken = degrade(image, SHAKEN, seed=1)
    models = {m.id for m in scn.markers if m.id >= 10}
    pipeline = VisionPipeline(config)
    pipeline.full_pass_every = 1  # the sweep covers the whole frame every frame
    before = [pipeline.process(f) for f in frames([image] * 4)]
    assert set(before[-1].markers) == models
    # the normal passes (first and second) miss a marker on the shaken frame ...
    normal = MarkerDetector(pipeline.setup.detector_settings(shaken.shape, pipeline.calibration.px_per_inch))
    found, rejects = normal.detect(shaken)
    found += normal.second_pass(shaken, rejects, found)
    assert models - {d.id for d in found}
    # ... the pipeline's recovery search finds it within a few frames (a few regions a frame, nearest
    # its last place first); meanwhile it keeps its place: nothing moved, nothing lost
    after = [pipeline.process(f) for f in frames([shaken] * 4, start=4)]
    assert not [m for o in after for m in o.moves] and all(set(o.markers) == models for o in after)
    assert {i for o in after for i, p in o.markers.items() if not p.occluded} == models
    assert pipeline.stats.recovery_looks <= 4 * 75


def test_dense_and_sharpened_passes_never_invent_a_marker_on_clutter(config):
    scn = scene(config)
    used = {m.id for m in scn.markers}
    image = render(STRAIGHT, scn, clutter=140, decoys=0, noise_sigma=4.0, seed=13, supersample=2)
    detector = MarkerDetector(VisionSetup.from_config(config).detector_settings(image.shape))
    for d in (Degradation(), SHAKEN, LEVELS["all moderate"], LEVELS["gain noise 12"]):
        spoiled = degrade(image, d, seed=2)
        for sharpen, flatten in ((False, False), (True, False), (True, True)):
            found, _ = detector.detect(spoiled, dense=True, sharpen=sharpen, flatten=flatten)
            assert {x.id for x in found} <= used, d


def source(config, script):
    src = SyntheticSource(config, script[0], camera=STRAIGHT, realtime=False,
                          options=RenderOptions(clutter=30, decoys=1, texture_ppi=30.0, supersample=2))
    src.play(script)
    return [src.read().image for _ in script]


def test_a_lifted_marker_is_occluded_under_the_hand_then_gone_within_a_few_frames(config):
    scn = scene(config)
    token = scn.markers[-1]
    without = replace(scn, markers=tuple(m for m in scn.markers if m.id != token.id))
    hand = Hand(token.x, token.y - 2.0, height_in=0.5)  # low, so it covers the token in the image
    reach = [replace(scn, hands=(replace(hand, y=hand.y + 0.1 * i),)) for i in range(2)]
    lift = [replace(without, hands=(replace(hand, x=hand.x + 0.3 * i),)) for i in range(2)]
    script = [scn] * 5 + reach + lift + [without] * 6
    pipeline = VisionPipeline(config)
    obs = [pipeline.process(f) for f in frames(source(config, script))]
    assert token.id in obs[4].markers and not obs[4].markers[token.id].occluded
    for o in obs[5:9]:  # under the hand: kept where it stood, flagged occluded
        pose = o.markers[token.id]
        assert pose.occluded and math.dist((pose.x, pose.y), (token.x, token.y)) < 0.02
    gone = [i for i, o in enumerate(obs) if i >= 9 and token.id not in o.markers]
    assert gone and gone[0] <= 9 + 4, "a lifted marker must stop being reported within a few frames"
    assert all(token.id not in o.markers for o in obs[gone[0]:])
    others = {m.id for m in without.markers if m.id >= 10}
    assert set(obs[-1].markers) == others and not [m for o in obs for m in o.moves]


def test_a_hand_resting_over_a_marker_keeps_it_until_the_time_out(config):
    scn = scene(config)
    token = scn.markers[-1]
    resting = replace(scn, hands=(Hand(token.x, token.y - 2.0, height_in=0.5),))
    pipeline = VisionPipeline(config)
    obs = [pipeline.process(f) for f in frames(source(config, [scn] * 5 + [resting] * 10))]
    for o in obs[5:]:
        pose = o.markers[token.id]
        assert pose.occluded and math.dist((pose.x, pose.y), (token.x, token.y)) < 0.02


@pytest.fixture(scope="module")
def full_board():
    """The issue's case: a 4' board at 2028x1520 with 20 mm markers (about 3 px a cell)."""
    config = from_document({"markers": {"model_size_mm": 20.0}}, "<test>")
    board = (48.0, 48.0)
    cam = PinholeCamera.overhead((2028, 1520), board, height_in=40.0, tilt_deg=(8.0, -5.0))
    truth = grid_layout(30, board, size_mm=20.0, seed=9)
    options = RenderOptions(clutter=80, decoys=2, noise_sigma=2.5, light=0.3, supersample=2, seed=5)
    image = Renderer(cam, board, options).render(SyntheticScene(board, corner_markers(config) + truth),
                                                 {0, 1, 2, 3})
    return VisionSetup.from_config(config), truth, image


@pytest.mark.parametrize("name", MODERATE)
def test_moderate_real_camera_damage_keeps_every_marker_at_2028x1520(full_board, name):
    setup, truth, image = full_board
    result = locate(degrade(image, LEVELS[name], seed=3), setup)
    by_id = {m.id: m for m in truth}
    got = {m.id: m for m in result.markers}
    assert set(got) == set(by_id)  # every marker, and no false one
    limit = 0.06 if "wobble" in name or name == "all moderate" else 0.03  # a wobble moves the image itself
    assert max(math.dist((m.x, m.y), (by_id[i].x, by_id[i].y)) for i, m in got.items()) < limit


def test_blur_past_a_cell_loses_markers_but_never_invents_one(full_board):
    setup, truth, image = full_board
    result = locate(degrade(image, LEVELS["motion 6 px"], seed=3), setup)
    assert {m.id for m in result.markers} < {m.id for m in truth}  # a limit the docs state
