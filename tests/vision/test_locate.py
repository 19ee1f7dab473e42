"""Calibration and locate on rendered boards with known ground truth."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from table.config import from_document
from tests.vision.synthetic import BOARD, DISTORTION, SIZE, camera, heading_error, models, render, scene
from vision.calibrate import focal_from_homography
from vision.camera import PinholeCamera
from vision.cameras import camera_model
from vision.detect import Detection, get_dictionary
from vision.lens import Intrinsics
from vision.locate import VisionSetup, calibrate_frame, locate
from vision.synthetic_scene import SceneMarker
from vision.uncertainty import lens_share, marker_sigmas


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


def pixel_bend(intrinsics, radius_px):
    """How far (pixels) a lens moves a point radius_px from its principal point: the distortion as the
    image shows it, whatever the focal length it is expressed at."""
    K, d = intrinsics.K, np.ravel(intrinsics.dist)
    r = radius_px / K[0, 0]
    return radius_px * (d[0] * r**2 + d[1] * r**4)


def test_the_board_shows_its_lens_without_intrinsics(config):
    straight = camera(dist=(0, 0, 0, 0, 0))
    result = locate(render(straight, scene(config)), VisionSetup.from_config(config))
    pos, _ = errors(result, models())
    assert pos.max() < 0.015 and result.calibration.lens == "estimated"
    bent = camera()
    image = render(bent, scene(config))
    setup = VisionSetup.from_config(config)
    result = locate(image, setup)
    pos, _ = errors(result, models())
    assert pos.max() < 0.01 and result.calibration.lens == "estimated"
    assert not any("lens not calibrated" in w for w in result.warnings)
    # the homography on the corner markers alone (the table before it learnt the lens) is 0.03" off or worse
    homography = calibrate_frame(list(result.detections), setup, image.shape)
    models_seen = [m.detection for m in result.markers]
    by_id = {m.id: m for m in models()}
    plain = [math.dist(p[:2], (by_id[d.id].x, by_id[d.id].y))
             for d, p in zip(models_seen, homography.markers_on_board(models_seen, [0.0] * 16), strict=True)]
    assert max(plain) > 0.03
    # the fitted lens bends the image as the rendered one does (OpenCV's model: k1 -0.08, k2 0.02)
    edge = math.hypot(*bent.size) / 2
    fitted = result.calibration.lens_fit
    true = Intrinsics(bent.K, bent.dist, bent.size)
    assert pixel_bend(fitted.intrinsics, edge) == pytest.approx(pixel_bend(true, edge), rel=0.1)
    assert fitted.markers == 16 and fitted.corners == 16 and fitted.rms_px < 0.2


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
    assert any("parallax corrected from a guessed camera height" in w for w in warnings)


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


def test_a_stray_copy_of_a_corner_marker_does_not_spoil_the_lens_the_board_shows(config):
    # found by bench/bench_lens.py: the lens fit took both copies of the id as corner-marker corners, and
    # fitted a lens hundreds of pixels off (3" errors)
    cam = camera()
    stray = SceneMarker(2, 8.0, 15.0, 0.0, 30.0)  # corner marker 2's id, smaller, elsewhere: 2 is kept
    result = locate(render(cam, scene(config, models() + (stray,))), VisionSetup.from_config(config))
    fit = result.calibration.lens_fit
    assert result.calibration.lens == "estimated" and fit.rms_px < 0.2
    assert 2 in result.calibration.used and fit.corners == 16  # one copy of each corner marker
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


@pytest.mark.parametrize("lens", [True, False], ids=["lens-calibrated", "lens-estimated"])
def test_sigma_is_the_size_of_the_error(config, lens):
    # markers flat on the board: what is left is the pixels' noise, the calibration's error and, without the
    # lens's intrinsics, the estimated lens's own uncertainty (the distortion it corrects was up to 0.12")
    cam = camera()
    setup = VisionSetup.from_config(config)
    result = locate(render(cam, scene(config)), with_lens(setup, cam) if lens else setup)
    assert result.calibration.lens == ("calibrated" if lens else "estimated")
    by_id = {m.id: m for m in models()}
    z = sorted(math.dist((m.x, m.y), (by_id[m.id].x, by_id[m.id].y)) / m.sigma for m in result.markers)
    assert len(z) == 16 and z[-1] < 2.45            # within the 2-D 95% radius, every one of 16
    assert z[len(z) // 2] > 0.3                     # and not merely wide: the median error is a fair share
    assert all(0 < m.heading_sigma < 2 for m in result.markers)
    assert max(m.sigma for m in result.markers) < 0.005  # flat on the board (height 0): no share for height
    out = result.to_dict()["markers"][0]
    assert out["sigma"] > 0 and out["heading_sigma"] > 0


def test_an_estimated_lens_face_on_error_bars_hold_every_marker(config):
    # face on (the focal length cannot be seen, so the wide guess), a strong barrel, no intrinsics: the
    # estimate's own spread keeps every marker inside the 2-D 95% radius, where the pixels' noise alone
    # does not
    cam = camera(tilt=(0.0, 0.0), dist=(-0.08, 0.0, 0.0, 0.0, 0.0))
    setup = replace(VisionSetup.from_config(config), height_sigma_mm=0.0)
    result = locate(render(cam, scene(config)), setup)
    by_id = {m.id: m for m in models()}
    z = [math.dist((m.x, m.y), (by_id[m.id].x, by_id[m.id].y)) / m.sigma for m in result.markers]
    assert len(z) == 16 and max(z) < 2.45
    assert result.to_dict()["lens"] == "estimated" and result.to_dict()["lens_estimate"]["markers"] == 16
    located = [m.detection for m in result.markers]
    bare = marker_sigmas(replace(result.calibration, spread=()), located, [0.0] * 16, 0.0)
    bare_z = [math.dist((m.x, m.y), (by_id[m.id].x, by_id[m.id].y)) / s.sigma
              for m, s in zip(result.markers, bare, strict=True)]
    assert max(bare_z) > 2.45  # without the lens's share the error bars were too narrow


def squares_at(calibration, points, side_in=0.8):
    """Detections of squares centred on board points, as the calibration maps them into the image."""
    out = []
    for i, (x, y) in enumerate(points):
        h = side_in / 2
        corners = calibration.to_image(np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]]))
        centre = (float(corners[:, 0].mean()), float(corners[:, 1].mean()))
        out.append(Detection(100 + i, corners.astype(np.float32), centre))
    return out


def test_too_few_models_to_see_the_lens_assume_it_wide_between_the_corner_markers(config):
    # two model markers: not enough to fit the lens, so the prior lens (|k1| <= 0.1 for 95% of lenses)
    # is assumed; its spread is small at the corner markers and largest between them, and it says so
    cam = camera(tilt=(0.0, 0.0))
    setup = VisionSetup.from_config(config)
    result = locate(render(cam, scene(config, models()[:2])), setup)
    cal = result.calibration
    assert cal.lens == "assumed" and cal.lens_fit.markers == 0 and len(cal.spread) == 10
    assert any("too few model markers in view to estimate it" in w for w in result.warnings)
    corners = lens_share(cal, squares_at(cal, [setup.calibration_points[i] for i in cal.used]), [0.0] * 4)
    between = lens_share(cal, squares_at(cal, [(12.0, 2.0), (22.0, 12.0), (12.0, 22.0), (2.0, 12.0)]), [0.0] * 4)
    assert corners.max() < 0.25 * between.min() and between.min() > 0.05
    assert result.markers[0].sigma > 0.05


def test_a_calibrated_lens_has_no_spread(config):
    cam = camera()
    setup = replace(VisionSetup.from_config(config), height_sigma_mm=0.0)
    result = locate(render(cam, scene(config)), with_lens(setup, cam))
    assert result.calibration.lens == "calibrated" and result.calibration.spread == ()
    assert result.to_dict()["lens"] == "calibrated"
    assert result.to_dict()["lens_estimate"]["markers"] == 16  # the board's own estimate, checked against it
    located = [m.detection for m in result.markers]
    bare = marker_sigmas(result.calibration, located, [0.0] * 16, 0.0)
    assert [m.sigma for m in result.markers] == pytest.approx([s.sigma for s in bare])


def test_a_calibrated_lens_is_checked_against_the_lens_the_board_shows(config):
    cam = camera()
    image = render(cam, scene(config))
    setup = VisionSetup.from_config(config)
    result = locate(image, with_lens(setup, cam))
    assert result.calibration.lens_check == "" and result.calibration.lens_fit.markers == 16
    assert not any("does not match" in w for w in result.warnings)
    # intrinsics of another lens (no distortion: a calibration from another camera, or before a zoom)
    other = replace(setup, intrinsics=Intrinsics(cam.K, np.zeros(5), cam.size))
    result = locate(image, other)
    assert result.calibration.lens == "calibrated"
    assert result.calibration.lens_check.startswith("the calibrated lens ([camera] intrinsics) does not match "
                                                    "what the board shows: up to ")
    assert result.calibration.lens_check in result.warnings


def test_a_named_camera_gives_the_focal_length_a_square_on_view_cannot(config):
    # square on, nothing in the frame shows the focal length: without [camera] model the camera's height, and
    # so the parallax correction of markers 4 mm up, is a guess and sigma allows for it; the HQ camera named
    # (its lens 3% off its published focal length here) pins it: the places are right and sigma narrow
    cam = PinholeCamera.from_model(camera_model("hq-6mm"), SIZE, BOARD, height_mm=800.0)
    K = cam.K.copy()
    K[0, 0] = K[1, 1] = K[0, 0] * 1.03
    cam = replace(cam, K=K, dist=np.array(DISTORTION))
    raised = models(height_in=4 / 25.4)
    image = render(cam, scene(config, raised))
    setup = replace(VisionSetup.from_config(config), model_height_mm=4.0)
    truth = {m.id: m for m in raised}
    guessed, named = locate(image, setup), locate(image, replace(setup, camera_model="hq-6mm"))

    def errors(result):
        return [math.dist((m.x, m.y), (truth[m.id].x, truth[m.id].y)) for m in result.markers]

    assert guessed.calibration.lens == named.calibration.lens == "estimated"
    assert len(errors(guessed)) == len(errors(named)) == 16
    assert any(w.startswith("parallax corrected from a guessed camera height") for w in guessed.warnings)
    assert not any("guessed camera height" in w for w in named.warnings)
    wide, narrow = (np.mean([m.sigma for m in r.markers]) for r in (guessed, named))
    assert narrow < 0.5 * wide, (narrow, wide)
    assert max(errors(named)) < 0.5 * float(np.median(errors(guessed)))
    assert all(e < 2.45 * m.sigma for r in (guessed, named) for e, m in zip(errors(r), r.markers, strict=True))


def test_the_lens_fit_starts_from_the_configured_camera_models_focal_length(config):
    cam = camera(tilt=(0.0, 0.0))
    setup = replace(VisionSetup.from_config(config), camera_model="cm3-wide")
    image = render(cam, scene(config))
    size = (image.shape[1], image.shape[0])
    result = locate(image, setup)
    assert setup.focal_guess(result.calibration, size) == pytest.approx(camera_model("cm3-wide").focal_px(size))
    plain = calibrate_frame(list(result.detections), setup, image.shape)
    guessed = replace(setup, camera_model="").focal_guess(plain, size)
    assert guessed == pytest.approx(size[0] / 2)  # face on: the wide guess (90 degrees)
