"""Calibration and locate on rendered boards with known ground truth."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from table.config import from_document
from tests.vision.synthetic import camera, heading_error, models, render, scene
from vision.calibrate import focal_from_homography
from vision.cameras import camera_model
from vision.detect import get_dictionary
from vision.lens import Intrinsics
from vision.locate import VisionSetup, locate
from vision.synthetic_scene import SceneMarker
from vision.uncertainty import marker_sigmas


def errors(result, truth):
    by_id = {m.id: m for m in truth}
    assert sorted(m.id for m in result.markers) == sorted(by_id)
    pos = [math.dist((m.x, m.y), (by_id[m.id].x, by_id[m.id].y)) for m in result.markers]
    head = [heading_error(m.heading, by_id[m.id].heading) for m in result.markers]
    return np.array(pos), np.array(head)


def with_lens(setup, cam):
    return replace(setup, intrinsics=Intrinsics(cam.K, cam.dist, cam.size))


def test_tilted_distorted_board_with_lens_intrinsics(config):
    cam = camera()
    result = locate(render(cam, scene(config)), with_lens(VisionSetup.from_config(config), cam))
    assert result.calibrated and result.calibration.reprojection_error_px < 0.1
    pos, head = errors(result, models())
    assert pos.mean() < 0.005 and pos.max() < 0.015
    assert head.max() < 1.0


def test_without_intrinsics_distortion_is_what_limits_accuracy(config):
    straight = camera(dist=(0, 0, 0, 0, 0))
    result = locate(render(straight, scene(config)), VisionSetup.from_config(config))
    pos, _ = errors(result, models())
    assert pos.max() < 0.015
    bent = camera()
    result = locate(render(bent, scene(config)), VisionSetup.from_config(config))
    pos, _ = errors(result, models())
    assert pos.max() > 0.03  # why `calibrate-lens` exists
    assert any(w.startswith("lens not calibrated: sigma allows for") for w in result.warnings)


def test_no_lens_warning_with_the_lens_calibrated(config):
    cam = camera()
    result = locate(render(cam, scene(config)), with_lens(VisionSetup.from_config(config), cam))
    assert not any("lens not calibrated" in w for w in result.warnings)


def test_board_frame_follows_the_corner_markers_not_the_image(config):
    # camera rolled 90 degrees: the image's x is the board's y, positions and headings still agree
    cam = camera(tilt=(0.0, 0.0), dist=(0, 0, 0, 0, 0))
    rolled = type(cam).overhead(cam.size, (24.0, 24.0), height_in=30.0, roll_deg=90.0)
    result = locate(render(rolled, scene(config)), VisionSetup.from_config(config))
    pos, head = errors(result, models())
    assert pos.max() < 0.02 and head.max() < 1.0


def test_parallax_corrected_from_the_camera_pose(config):
    cam = camera()
    raised = models(height_in=6 / 25.4)
    image = render(cam, scene(config, raised))
    setup = with_lens(VisionSetup.from_config(config), cam)
    flat, _ = errors(locate(image, setup), raised)
    corrected, _ = errors(locate(image, replace(setup, model_height_mm=6.0)), raised)
    assert flat.max() > 0.04  # 6 mm of height, uncorrected
    assert corrected.max() < 0.015
    # a per-marker height (roster) overrides the default
    per_id = replace(setup, heights_mm={m.id: 6.0 for m in raised})
    assert errors(locate(image, per_id), raised)[0].max() < 0.015


def test_focal_length_from_one_tilted_view_and_none_face_on(config):
    tilted = camera(tilt=(8.0, -6.0), dist=(0, 0, 0, 0, 0))
    result = locate(render(tilted, scene(config)), VisionSetup.from_config(config))
    H = np.linalg.inv(result.calibration.H)
    assert focal_from_homography(H, tilted.size) == pytest.approx(tilted.K[0, 0], rel=0.05)
    face_on = camera(tilt=(0.0, 0.0), dist=(0, 0, 0, 0, 0))
    result = locate(render(face_on, scene(config)), VisionSetup.from_config(config))
    assert focal_from_homography(np.linalg.inv(result.calibration.H), face_on.size) is None
    raised = replace(VisionSetup.from_config(config), model_height_mm=6.0)
    warnings = locate(render(face_on, scene(config)), raised).warnings
    assert any("parallax not corrected" in w for w in warnings)


def test_too_few_corner_markers_names_the_missing_ones(config):
    cam = camera()
    result = locate(render(cam, scene(config, drop=(2, 3))), VisionSetup.from_config(config))
    assert not result.calibrated and result.markers == ()
    assert any("2, 3 not found" in w for w in result.warnings)
    assert result.to_dict()["calibrated"] is False


def test_three_corner_markers_still_calibrate_with_a_warning(config):
    cam = camera()
    setup = with_lens(VisionSetup.from_config(config), cam)
    result = locate(render(cam, scene(config, drop=(2,))), setup)
    assert result.calibrated
    assert any("corner marker 2 not found" in w for w in result.warnings)
    pos, _ = errors(result, models())
    assert pos.max() < 0.03


def test_duplicates_off_board_and_wrong_size_markers_are_warnings(config):
    cam = camera()
    extra = (SceneMarker(10, 12.0, 12.0, 0.0, 20.0),  # a second marker 10
             SceneMarker(78, 6.0, 12.0, 0.0, 35.0))  # a real id printed at the wrong size
    setup = with_lens(VisionSetup.from_config(config), cam)
    result = locate(render(cam, scene(config, models() + extra)), setup)
    text = "\n".join(result.warnings)
    assert "marker 10 seen 2 times" in text
    assert "ignored marker 78" in text
    assert 78 not in {m.id for m in result.markers}
    assert sum(m.id == 10 for m in result.markers) == 2


def test_marker_off_the_board_is_reported_not_placed(config):
    cam = camera(tilt=(0.0, 0.0), dist=(0, 0, 0, 0, 0), height=34.0)
    outside = SceneMarker(90, 25.0, 12.0, 0.0, 20.0)
    result = locate(render(cam, scene(config, models() + (outside,))), VisionSetup.from_config(config))
    assert any("marker 90 is off the board" in w for w in result.warnings)
    assert 90 not in {m.id for m in result.markers}


def test_markers_lost_to_blur_noise_and_jpeg_by_plain_opencv_are_all_located(config):
    cam = camera()
    image = render(cam, scene(config), blur_sigma=1.3, noise_sigma=5.0, jpeg_quality=70)
    setup = with_lens(VisionSetup.from_config(config), cam)
    _, ids, _ = cv2.aruco.ArucoDetector(get_dictionary(setup.dictionary)).detectMarkers(image)
    assert len(set(np.asarray(ids).reshape(-1).tolist()) & {m.id for m in models()}) < 16  # OpenCV loses some
    pos, head = errors(locate(image, setup), models())  # all 16, still accurate
    assert pos.max() < 0.03 and head.max() < 2.0


def test_a_stray_copy_of_a_corner_marker_does_not_spoil_calibration(config):
    cam = camera()
    stray = SceneMarker(2, 8.0, 15.0, 0.0, 40.0)  # corner marker 2's id, right size, wrong place
    setup = with_lens(VisionSetup.from_config(config), cam)
    result = locate(render(cam, scene(config, models() + (stray,))), setup)
    assert result.calibrated and result.calibration.reprojection_error_px < 0.2
    pos, _ = errors(result, models())
    assert pos.max() < 0.015


def test_edge_markers_join_the_calibration(config):
    doc = {"board": {"width": 24.0, "height": 24.0},
           "markers": {"corner_size_mm": 40, "model_size_mm": 20,
                       "corners": {k: list(v) for k, v in config.markers.corners.items()},
                       "edges": {"4": [12.0, 1.2], "5": [12.0, 22.8]}}}
    with_edges = from_document(doc, "<test>")
    cam = camera()
    result = locate(render(cam, scene(with_edges)), with_lens(VisionSetup.from_config(with_edges), cam))
    assert result.calibration.used == (0, 1, 2, 3, 4, 5)
    assert {m.id for m in result.markers} == {m.id for m in models()}  # edge markers are not models


@pytest.mark.parametrize("lens", [True, False], ids=["lens-calibrated", "lens-not-calibrated"])
def test_sigma_is_the_size_of_the_error(config, lens):
    # markers flat on the board and the config sure of it (no height uncertainty): what is left is the
    # pixels' noise and the calibration's error; without the lens's intrinsics its distortion (up to 0.12")
    cam = camera()
    setup = replace(VisionSetup.from_config(config), height_sigma_mm=0.0)
    result = locate(render(cam, scene(config)), with_lens(setup, cam) if lens else setup)
    by_id = {m.id: m for m in models()}
    z = sorted(math.dist((m.x, m.y), (by_id[m.id].x, by_id[m.id].y)) / m.sigma for m in result.markers)
    assert len(z) == 16 and z[-1] < 2.45            # within the 2-D 95% radius, every one of 16
    assert z[len(z) // 2] > 0.3                     # and not merely wide: the median error is a fair share
    assert all(0 < m.heading_sigma < 2 for m in result.markers)
    assert (max(m.sigma for m in result.markers) < 0.01) is lens
    out = result.to_dict()["markers"][0]
    assert out["sigma"] > 0 and out["heading_sigma"] > 0


def test_uncalibrated_face_on_wide_lens_error_bars_hold_every_marker(config):
    # face on (no focal length from the view, so the wide guess), a strong barrel, no intrinsics: the
    # prior lens's error between the corner markers keeps every marker inside the 2-D 95% radius,
    # where the corner residual alone does not
    cam = camera(tilt=(0.0, 0.0), dist=(-0.08, 0.0, 0.0, 0.0, 0.0))
    setup = replace(VisionSetup.from_config(config), height_sigma_mm=0.0)
    image = render(cam, scene(config))
    result = locate(image, setup)
    by_id = {m.id: m for m in models()}
    z = [math.dist((m.x, m.y), (by_id[m.id].x, by_id[m.id].y)) / m.sigma for m in result.markers]
    assert len(z) == 16 and max(z) < 2.45
    assert any("lens not calibrated: sigma allows for" in w for w in result.warnings)
    located = [m.detection for m in result.markers]
    bare = marker_sigmas(result.calibration, located, [0.0] * 16, 0.0)
    bare_z = [math.dist((m.x, m.y), (by_id[m.id].x, by_id[m.id].y)) / s.sigma
              for m, s in zip(result.markers, bare, strict=True)]
    assert max(bare_z) > 2.45  # without the prior the error bars were too narrow


def test_lens_prior_error_is_small_at_the_corner_markers_and_large_between(config):
    # radial about the image centre: nil there too; largest halfway along the edges, between two corners
    cam = camera(tilt=(0.0, 0.0))
    setup = VisionSetup.from_config(config)
    image = render(cam, scene(config))
    result = locate(image, setup)
    prior = setup.lens_prior(result.calibration, image.shape)
    cal = result.calibration
    corners = cal.to_image(np.array([setup.calibration_points[i] for i in cal.used]))
    edges = cal.to_image(np.array([[12.0, 2.0], [22.0, 12.0], [12.0, 22.0], [2.0, 12.0]]))
    at_corners, between = prior.error_in(cal, corners), prior.error_in(cal, edges)
    assert at_corners.max() < 0.15 * between.min() and between.min() > 0.1
    assert prior.error_in(cal, cal.to_image(np.array([[12.0, 12.0]])))[0] < 0.01


def test_no_lens_prior_with_intrinsics(config):
    cam = camera()
    setup = replace(VisionSetup.from_config(config), height_sigma_mm=0.0)
    image = render(cam, scene(config))
    result = locate(image, with_lens(setup, cam))
    assert setup.lens_prior(result.calibration, image.shape) is None
    located = [m.detection for m in result.markers]
    bare = marker_sigmas(result.calibration, located, [0.0] * 16, 0.0)
    assert [m.sigma for m in result.markers] == pytest.approx([s.sigma for s in bare])


def test_lens_prior_focal_length_from_the_configured_camera_model(config):
    cam = camera(tilt=(0.0, 0.0))
    setup = replace(VisionSetup.from_config(config), camera_model="cm3-wide")
    image = render(cam, scene(config))
    result = locate(image, setup)
    prior = setup.lens_prior(result.calibration, image.shape)
    assert prior.focal_px == pytest.approx(camera_model("cm3-wide").focal_px((image.shape[1], image.shape[0])))
    guessed = replace(setup, camera_model="").lens_prior(result.calibration, image.shape)
    assert guessed.focal_px == pytest.approx(image.shape[1] / 2)  # face on: the wide guess (90 degrees)
