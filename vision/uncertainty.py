"""How sure a located marker is: one standard deviation of its position (inches) and heading (degrees).

The error model (docs/uncertainty.md) adds, in quadrature, what the frame itself says about its error:
- corner noise: each model marker's four board corners are fitted by a square (similarity: position,
  turn, scale); the residuals, pooled over the frame and weighted towards the marker's own, give the
  corner noise in pixels; the centre (the diagonals' crossing) carries a share of it, turned into
  inches at the marker's own pixels per inch (a small or far marker is less sure);
- calibration: the homography's reprojection error over the corner markers, in inches;
- an uncalibrated lens (no intrinsics): the error a prior lens (`LensPrior`: radial |k1| <= PRIOR_K1 about
  the image centre) leaves after the homography on the corner markers absorbed what it could; small at the
  corner markers (and the image centre), largest between them;
- parallax of an unknown model height: `markers.model_height_sigma_mm` (how sure the configured height
  is) times the marker's distance from the point below the camera over the camera's height; with no
  camera pose, the whole configured height is uncorrected and counts at the frame's edge.
The factors were fitted on rendered boards with known truth (bench/bench_uncertainty.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibrate import Calibration, focal_from_homography
from vision.detect import Detection
from vision.lens import Intrinsics

CENTRE_SHARE = 0.5  # sd of the centre over the corner noise (the mean of four corners: 1/2)
HEADING_SHARE = 0.7  # sd of the heading (radians) over corner noise / side in pixels
CALIBRATION_SHARE = 0.5  # sd at a model marker over the corner markers' RMS reprojection error
# an uncalibrated lens's radial distortion is taken as at most this |k1| (normalised by the focal length):
# the bench's and the tests' lenses have -0.06 and -0.08; stronger barrels are fisheye-like and need
# `smarttable calibrate-lens` anyway (docs/uncertainty.md)
PRIOR_K1 = 0.1
WIDE_HFOV_DEG = 90.0  # the focal length assumed when neither the config nor the view gives one
PRIOR_WEIGHT = 12.0  # the frame's pooled corner noise counts as this many residual degrees of freedom
MIN_CORNER_PX = 0.02  # corner noise is never taken as less than this (quantisation, refinement limits)
EDGE_SLOPE = 0.6  # radial distance over camera height at a frame's edge, when the pose is unknown
# a parallax error runs along the radius from the camera's foot: along a measured line it counts fully,
# across it not at all; as one isotropic sd it counts this share (between 1/sqrt(2) and 1; fitted)
PARALLAX_SHARE = 0.85
DOF_PER_MARKER = 4  # 8 coordinates less a similarity's 4 parameters


@dataclass(frozen=True)
class MarkerSigma:
    """One located marker's uncertainty: position (inches, 1 sd on each axis, isotropic) and heading
    (degrees)."""

    sigma: float
    heading_sigma: float
    sigma_frame: float = 0.0  # the share new in each frame (corner noise): averaging frames shrinks it


@dataclass(frozen=True)
class LensPrior:
    """What an uncalibrated lens may do: radial k1 up to PRIOR_K1 about the image centre, at a focal
    length (pixels) from the camera model, the view's tilt, or a wide guess."""

    focal_px: float
    image_size: tuple[int, int]  # (width, height)
    corner_points: np.ndarray  # (N, 2) board inches: the corners of the markers the homography was fitted to
    k1: float = PRIOR_K1

    def undistort(self, pixels: np.ndarray) -> np.ndarray:
        w, h = self.image_size
        K = np.array([[self.focal_px, 0, (w - 1) / 2], [0, self.focal_px, (h - 1) / 2], [0, 0, 1]])
        return Intrinsics(K, np.array([-self.k1, 0.0, 0.0, 0.0, 0.0]), self.image_size).undistort(pixels)

    def error_in(self, calibration: Calibration, pixels: np.ndarray) -> np.ndarray:
        """Inches by which the prior lens would move each pixel's board position, after a homography
        refitted on the corner markers (their pixels as `calibration` maps them) absorbs what it can."""
        seen = calibration.to_image(self.corner_points)
        H_true, _ = cv2.findHomography(self.undistort(seen), self.corner_points, 0)
        if H_true is None:
            return np.zeros(len(pixels))
        pts = np.asarray(pixels, np.float64).reshape(-1, 2)
        true = cv2.perspectiveTransform(self.undistort(pts).reshape(-1, 1, 2), H_true).reshape(-1, 2)
        return np.linalg.norm(calibration.to_board(pts) - true, axis=1)


def focal_guess(image_size: tuple[int, int], model_focal_px: float | None,
                calibration: Calibration) -> float:
    """The focal length (pixels) for the lens prior: the configured camera model's, else the tilted
    view's own (`focal_from_homography`), else a wide lens's (a shorter focal length: more distortion)."""
    if model_focal_px:
        return model_focal_px
    f = focal_from_homography(np.linalg.inv(calibration.H), image_size)
    if f is not None:
        return f
    return image_size[0] / 2 / math.tan(math.radians(WIDE_HFOV_DEG) / 2)


def square_fit_rss(corners: np.ndarray) -> float:
    """Sum of squared residuals of the best square (any position, turn and size) through four points
    in the marker's own order."""
    pts = np.asarray(corners, np.float64).reshape(4, 2)
    template = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    p = pts - pts.mean(axis=0)
    z = p[:, 0] + 1j * p[:, 1]
    t = template[:, 0] + 1j * template[:, 1]
    a = np.vdot(t, z) / np.vdot(t, t)  # complex scale and turn, least squares
    return float(np.sum(np.abs(z - a * t) ** 2))


def marker_sigmas(calibration: Calibration, detections: Sequence[Detection], heights_in: Sequence[float],
                  height_sigma_in: float, lens_prior: LensPrior | None = None) -> list[MarkerSigma]:
    """The uncertainty of each detected model marker placed with `calibration` at its height; with
    `lens_prior` (no intrinsics) the prior lens's error, taken as a 95% bound, is added."""
    if not detections:
        return []
    rss_px, px_per_inch, side_px = [], [], []
    for d, h in zip(detections, heights_in, strict=True):
        board = calibration.to_board(calibration.undistort(d.corners), h)
        side_in = float(np.mean(np.linalg.norm(board - np.roll(board, -1, axis=0), axis=1)))
        ppi = d.side_px / side_in if side_in > 0 else calibration.px_per_inch
        rss_px.append(square_fit_rss(board) * ppi * ppi)
        px_per_inch.append(ppi)
        side_px.append(d.side_px)
    pooled = max(MIN_CORNER_PX ** 2, sum(rss_px) / (DOF_PER_MARKER * len(rss_px)))
    cal_in = CALIBRATION_SHARE * calibration.reprojection_error_px / calibration.px_per_inch
    lens_in = np.zeros(len(detections))
    if lens_prior is not None and calibration.intrinsics is None:
        lens_in = lens_prior.error_in(calibration, np.array([d.centre for d in detections])) / 1.96
    out = []
    for d, h, rss, ppi, side, lens in zip(detections, heights_in, rss_px, px_per_inch, side_px, lens_in,
                                          strict=True):
        corner_px = math.sqrt((rss + PRIOR_WEIGHT * pooled) / (DOF_PER_MARKER + PRIOR_WEIGHT))
        centre_in = CENTRE_SHARE * corner_px / ppi
        parallax = parallax_sigma(calibration, d, h, height_sigma_in)
        sigma = math.sqrt(centre_in ** 2 + cal_in ** 2 + float(lens) ** 2 + parallax ** 2)
        heading = math.degrees(HEADING_SHARE * corner_px / side)
        out.append(MarkerSigma(sigma, heading, centre_in))
    return out


def parallax_sigma(calibration: Calibration, detection: Detection, height_in: float,
                   height_sigma_in: float) -> float:
    """Inches of position error from not knowing the marker's height exactly (and, without a camera
    pose, from not correcting its configured height at all)."""
    if calibration.camera_position is None:
        return (height_in + height_sigma_in) * EDGE_SLOPE
    fx, fy, hc = calibration.camera_position
    centre = calibration.undistort(np.asarray(detection.centre).reshape(1, 2))
    x, y = calibration.to_board(centre, height_in)[0]
    return PARALLAX_SHARE * height_sigma_in * math.hypot(x - fx, y - fy) / hc
