"""The lens fit on squares projected by OpenCV's own camera model (cv2.projectPoints): the truth is
OpenCV's distortion, not our renderer's."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.calibrate import board_corners_of
from vision.lensfit import fit_lens, prior_lens

SIZE = (4056, 3040)
BOARD = 48.0
CORNERS = [(1.5, 1.5), (46.5, 1.5), (46.5, 46.5), (1.5, 46.5)]
SIDE = 15 / 25.4


def true_camera(k1=-0.09, k2=0.03, centre=(12.0, -8.0), tilt=(2.0, -1.0), f=3900.0):
    K = np.array([[f, 0, (SIZE[0] - 1) / 2 + centre[0]], [0, f, (SIZE[1] - 1) / 2 + centre[1]], [0, 0, 1]])
    rvec = np.radians([tilt[0], tilt[1], 0.0])
    R, _ = cv2.Rodrigues(rvec)
    tvec = -R @ np.array([24.0, 24.0, -65.0])  # the camera 65" over the board's centre
    return K, np.array([k1, k2, 0.0, 0.0, 0.0]), rvec, tvec


def project(camera, points):
    K, dist, rvec, tvec = camera
    out, _ = cv2.projectPoints(np.asarray(points, np.float64).reshape(-1, 1, 3), rvec, tvec, K, dist)
    return out.reshape(-1, 2)


def observed(camera, count=40, seed=1, noise_px=0.05):
    """(calibration corners in pixels, their board inches, model squares' pixels) with noise."""
    rng = np.random.default_rng(seed)
    known = np.vstack([board_corners_of(c, 50 / 25.4) for c in CORNERS])
    squares = []
    for _ in range(count):
        x, y, turn = rng.uniform(4, 44), rng.uniform(4, 44), rng.uniform(0, 2 * math.pi)
        c, s = math.cos(turn), math.sin(turn)
        local = board_corners_of((0.0, 0.0), SIDE) @ np.array([[c, s], [-s, c]])
        squares.append(project(camera, np.column_stack([local + (x, y), np.zeros(4)])))
    known_px = project(camera, np.column_stack([known, np.zeros(len(known))]))
    known_px += rng.normal(0, noise_px, known_px.shape)
    squares = [q + rng.normal(0, noise_px, q.shape) for q in squares]
    return known_px, known, squares


def bend(intrinsics, radius_px=2000.0):
    """Pixels a point radius_px from the principal point is moved by the lens."""
    K, d = intrinsics.K, np.ravel(intrinsics.dist)
    r = radius_px / K[0, 0]
    return radius_px * (d[0] * r**2 + d[1] * r**4)


def true_bend(camera, radius_px=2000.0):
    K, dist, _, _ = camera
    r = radius_px / K[0, 0]
    return radius_px * (dist[0] * r**2 + dist[1] * r**4)


def fit(camera, **kw):
    known_px, known, squares = observed(camera, **kw)
    return fit_lens(known_px, known, squares, [0.0] * len(squares), SIDE, SIZE, SIZE[0] / 2)


def test_one_frame_shows_the_lens():
    camera = true_camera()
    lens = fit(camera)
    assert lens is not None and lens.markers == 40 and lens.corners == 16
    assert abs(true_bend(camera)) > 40  # a strong lens: 40 px at 2000 px from the centre
    assert bend(lens.intrinsics) == pytest.approx(true_bend(camera), abs=0.5)
    K = lens.intrinsics.K
    assert K[0, 0] == pytest.approx(3900, rel=0.05)  # the tilt shows the focal length, from a 2028 px guess
    assert (K[0, 2], K[1, 2]) == pytest.approx((camera[0][0, 2], camera[0][1, 2]), abs=5)
    assert 0.04 < lens.rms_px < 0.1  # the corners' noise, 0.05 px on each axis


def test_the_estimates_uncertainty_is_its_error():
    # over noise draws, the lens's bend at 2000 px is off by about one sd of the spread the fit reports
    camera = true_camera(k1=-0.04, k2=0.0)
    z = []
    for seed in range(12):
        lens = fit(camera, seed=seed, noise_px=0.1)
        spread = [bend(i) for i in lens.spread()]
        sd = math.sqrt(sum(((a - b) / 2) ** 2 for a, b in zip(spread[0::2], spread[1::2], strict=True)))
        z.append((bend(lens.intrinsics) - true_bend(camera)) / sd)
    rms = math.sqrt(np.mean(np.square(z)))
    assert 0.4 < rms < 1.6, z


def test_a_misread_marker_is_left_out():
    camera = true_camera()
    known_px, known, squares = observed(camera)
    squares[7] = squares[7].copy()
    squares[7][2] += (3.0, -2.0)  # one corner read 3.6 px off
    lens = fit_lens(known_px, known, squares, [0.0] * 40, SIDE, SIZE, SIZE[0] / 2)
    assert lens.markers == 39 and bend(lens.intrinsics) == pytest.approx(true_bend(camera), abs=0.5)


def test_no_model_markers_leave_the_lens_to_the_priors():
    camera = true_camera(tilt=(0.0, 0.0))
    known_px, known, _ = observed(camera, count=0)
    lens = fit_lens(known_px, known, [], [], SIDE, SIZE, 2028.0)
    prior = prior_lens(SIZE, 2028.0)
    assert lens.markers == 0
    # face on, the focal length is left at its guess, as sure as the prior made it
    assert math.exp(lens.vector[0]) == pytest.approx(2028.0, rel=0.01)
    assert lens.covariance[0, 0] == pytest.approx(prior.covariance[0, 0], rel=0.05)
    assert fit_lens(known_px[:6], known[:6], [], [], SIDE, SIZE, 2028.0) is None  # under 2 markers' corners
