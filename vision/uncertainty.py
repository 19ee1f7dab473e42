"""How sure a located marker is: one standard deviation of its position (inches) and heading (degrees).

The error model (docs/uncertainty.md) adds, in quadrature, what the frame itself says about its error:
- corner noise: each model marker's four board corners are fitted by a square (similarity: position,
  turn, scale); the residuals, pooled over the frame and weighted towards the marker's own, give the
  corner noise in pixels; the centre (the diagonals' crossing) carries a share of it, turned into
  inches at the marker's own pixels per inch (a small or far marker is less sure);
- calibration: the homography's reprojection error over the corner markers, in inches;
- the lens, when estimated from the board (or assumed): how far each marker moves under the lenses one sd
  away from the estimate (`Calibration.spread`, from the fit's covariance: vision/lensfit.py); small where
  the board showed the lens well, large where it did not (few markers, a region never seen);
- parallax of an unknown model height: `markers.model_height_sigma_mm` (how sure the configured height
  is) times the marker's distance from the point below the camera over the camera's height; with no
  camera pose, the whole configured height is uncorrected and counts at the frame's edge; none for a
  marker configured at height 0 (flat on the board).
The factors were fitted on rendered boards with known truth (bench/bench_uncertainty.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.calibrate import Calibration
from vision.detect import Detection

CENTRE_SHARE = 0.5  # sd of the centre over the corner noise (the mean of four corners: 1/2)
HEADING_SHARE = 0.7  # sd of the heading (radians) over corner noise / side in pixels
CALIBRATION_SHARE = 0.5  # sd at a model marker over the corner markers' RMS reprojection error
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
                  height_sigma_in: float) -> list[MarkerSigma]:
    """The uncertainty of each detected model marker placed with `calibration` at its height; a lens
    estimated from the board (or assumed) adds its spread's share (`lens_share`)."""
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
    lens_in = lens_share(calibration, detections, heights_in)
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


def lens_share(calibration: Calibration, detections: Sequence[Detection], heights_in: Sequence[float]
               ) -> np.ndarray:
    """Inches (1 sd on each axis) by which the lens's own uncertainty moves each marker: half the
    distance between its places under each pair of lenses of the calibration's spread (one sd either
    way along a principal direction of the estimate's covariance), added in quadrature over the pairs
    and shared between the two axes. Nil for a calibrated lens (no spread)."""
    if not calibration.spread or not detections:
        return np.zeros(len(detections))
    total = np.zeros(len(detections))
    spread = calibration.spread
    for plus, minus in zip(spread[0::2], spread[1::2], strict=True):
        a = np.array([p[:2] for p in plus.markers_on_board(detections, heights_in)])
        b = np.array([p[:2] for p in minus.markers_on_board(detections, heights_in)])
        total += np.sum(((a - b) / 2) ** 2, axis=1)
    return np.sqrt(total / 2)


def parallax_sigma(calibration: Calibration, detection: Detection, height_in: float,
                   height_sigma_in: float) -> float:
    """Inches of position error from not knowing the marker's height exactly (and, without a camera
    pose, from not correcting its configured height at all). A marker configured at height 0 lies flat
    on the board (a sticker): its height is known, and it has none."""
    if height_in <= 0:
        return 0.0
    if calibration.camera_position is None:
        return (height_in + height_sigma_in) * EDGE_SLOPE
    fx, fy, hc = calibration.camera_position
    centre = calibration.undistort(np.asarray(detection.centre).reshape(1, 2))
    x, y = calibration.to_board(centre, height_in)[0]
    return PARALLAX_SHARE * height_sigma_in * math.hypot(x - fx, y - fy) / hc
