"""Board calibration: image pixels -> board inches from the corner markers' corners.

Detected points are undistorted first when lens intrinsics are known. The homography is fitted to
every corner of every corner (and edge) marker found; its reprojection error is reported. The camera
pose (solvePnP with the intrinsics, or a focal length estimated from the homography itself) gives the
camera's position above the board, which corrects markers that sit above the board (parallax).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.detect import MM_PER_INCH, Detection, diagonal_centre
from vision.lens import Intrinsics
from vision.lensfit import LensFit

MIN_CORNER_MARKERS = 3


@dataclass(frozen=True)
class BoardMarkers:
    """Where the calibration markers are: id -> centre in inches, and their printed size in mm."""

    points: Mapping[int, tuple[float, float]]
    size_mm: float
    board: tuple[float, float]


def board_corners_of(centre: tuple[float, float], size_in: float, quarter_turns: int = 0) -> np.ndarray:
    """Board positions of a calibration marker's corners 0..3, its top edge along +x turned by
    quarter_turns * 90 degrees clockwise."""
    h = size_in / 2
    local = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    a = math.radians(90 * quarter_turns)
    c, s = math.cos(a), math.sin(a)
    rot = np.array([[c, -s], [s, c]])
    return local @ rot.T + np.asarray(centre)


def facing_heading(corners: np.ndarray) -> float:
    """The contract's heading of a marker from its four board corners: the model faces across the
    top edge (corner 0 to corner 1), away from the centre, the way the printed tick points."""
    c0, c1, c2, c3 = corners
    up = (c0 + c1) - (c3 + c2)              # bottom edge's middle to the top edge's
    right = (c1 - c0) + (c2 - c3)           # left edge to right edge, a quarter turn anticlockwise
    facing = up + np.array([right[1], -right[0]])
    return normalise_heading(math.degrees(math.atan2(facing[1], facing[0])))


def normalise_heading(degrees: float) -> float:
    """Into (-180, 180]."""
    h = math.fmod(degrees, 360.0)
    if h <= -180:
        h += 360
    elif h > 180:
        h -= 360
    return h


def _apply(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), H).reshape(-1, 2)


@dataclass(frozen=True)
class Calibration:
    """Undistorted image pixels <-> board inches, plus the camera's position when it can be known."""

    H: np.ndarray  # undistorted pixels -> board inches
    intrinsics: Intrinsics | None
    reprojection_error_px: float
    used: tuple[int, ...]
    camera_position: tuple[float, float, float] | None  # board inches; z = height above the board
    px_per_inch: float
    # where the intrinsics came from: "calibrated" (calibrate-lens), "estimated" (from the board), "assumed"
    lens: str = "calibrated"
    lens_fit: LensFit | None = None  # the estimate, when estimated (or the prior, when assumed)
    spread: tuple[Calibration, ...] = ()  # the same under lenses 1 sd away (pairs): the lens's share of sigma
    lens_check: str = ""  # with a calibrated lens: how it disagrees with the lens the board shows ("" agrees)

    def undistort(self, pixels: np.ndarray) -> np.ndarray:
        pts = np.asarray(pixels, np.float64).reshape(-1, 2)
        return self.intrinsics.undistort(pts) if self.intrinsics else pts

    def to_board(self, pixels: np.ndarray, height_in: float = 0.0) -> np.ndarray:
        """Board inches of undistorted pixels, for points height_in above the board (parallax)."""
        board = _apply(self.H, pixels)
        if height_in and self.camera_position is not None:
            fx, fy, hc = self.camera_position
            scale = (hc - height_in) / hc
            board = np.array([fx, fy]) + (board - np.array([fx, fy])) * scale
        return board

    def to_image(self, board_points: np.ndarray) -> np.ndarray:
        """Undistorted pixels of board points on the board plane."""
        return _apply(np.linalg.inv(self.H), board_points)

    def marker_on_board(self, detection: Detection, height_in: float = 0.0
                        ) -> tuple[float, float, float, float]:
        """(x, y, heading, side in inches) of a detected marker."""
        return self.markers_on_board([detection], [height_in])[0]

    def markers_on_board(self, detections: Sequence[Detection], heights_in: Sequence[float]
                         ) -> list[tuple[float, float, float, float]]:
        """(x, y, heading, side in inches) of each detected marker, all in one go."""
        if not detections:
            return []
        pts = self.undistort(np.concatenate([d.corners for d in detections])).reshape(-1, 4, 2)
        centres = np.array([diagonal_centre(q) for q in pts])[:, None, :]
        board = _apply(self.H, np.concatenate([centres, pts], axis=1).reshape(-1, 2)).reshape(-1, 5, 2)
        if self.camera_position is not None and any(heights_in):
            fx, fy, hc = self.camera_position
            foot = np.array([fx, fy])
            scale = (hc - np.asarray(heights_in, np.float64)) / hc
            board = foot + (board - foot) * scale[:, None, None]
        out = []
        for b in board:
            c, corners = b[0], b[1:]
            heading = facing_heading(corners)
            side = float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)))
            out.append((float(c[0]), float(c[1]), heading, side))
        return out

    def can_correct_parallax(self) -> bool:
        return self.camera_position is not None


def calibration_points(detections: Sequence[Detection], markers: BoardMarkers,
                       intrinsics: Intrinsics | None = None
                       ) -> tuple[tuple[int, ...], np.ndarray, np.ndarray, np.ndarray] | None:
    """(ids, image pixels as detected, the same undistorted, board inches) of every corner of the
    calibration markers among the detections, each marker's quarter turn on the board found from a
    first fit through the centres; None with too few markers."""
    found = {d.id: d for d in detections if d.id in markers.points}
    if len(found) < MIN_CORNER_MARKERS:
        return None
    size_in = markers.size_mm / MM_PER_INCH
    ids = tuple(sorted(found))
    img = {i: (intrinsics.undistort(found[i].corners) if intrinsics else found[i].corners.astype(np.float64))
           for i in ids}
    # each marker's quarter turn on the board, from a first fit through the centres (0 if fewer than 4)
    turns = {i: 0 for i in ids}
    if len(ids) >= 4:
        centres_img = np.array([diagonal_centre(img[i]) for i in ids])
        centres_board = np.array([markers.points[i] for i in ids], np.float64)
        H0, _ = cv2.findHomography(centres_img, centres_board, 0)
        if H0 is not None:
            for i in ids:
                top = _apply(H0, img[i][:2])
                angle = math.degrees(math.atan2(*(top[1] - top[0])[::-1]))
                turns[i] = round(angle / 90) % 4
    raw = np.vstack([found[i].corners for i in ids]).astype(np.float64)
    src = np.vstack([img[i] for i in ids])
    dst = np.vstack([board_corners_of(markers.points[i], size_in, turns[i]) for i in ids])
    return ids, raw, src, dst


def calibrate(detections: Sequence[Detection], markers: BoardMarkers, image_size: tuple[int, int],
              intrinsics: Intrinsics | None = None, lens: str = "calibrated") -> Calibration | None:
    """A calibration from the calibration markers among the detections, or None with too few; `lens`
    says where the intrinsics came from (none: "assumed")."""
    points = calibration_points(detections, markers, intrinsics)
    if points is None:
        return None
    ids, _, src, dst = points
    H, _ = cv2.findHomography(src, dst, 0)
    if H is None:
        return None
    back = _apply(np.linalg.inv(H), dst)
    error = float(np.sqrt(np.mean(np.sum((back - src) ** 2, axis=1))))
    centre_board = np.array([[markers.board[0] / 2, markers.board[1] / 2],
                             [markers.board[0] / 2 + 1, markers.board[1] / 2]])
    ends = _apply(np.linalg.inv(H), centre_board)
    px_per_inch = float(np.linalg.norm(ends[1] - ends[0]))
    position = _camera_position(src, dst, H, image_size, intrinsics)
    return Calibration(H, intrinsics, error, ids, position, px_per_inch,
                       lens if intrinsics is not None else "assumed")


def _camera_position(img: np.ndarray, board: np.ndarray, H: np.ndarray, image_size: tuple[int, int],
                     intrinsics: Intrinsics | None) -> tuple[float, float, float] | None:
    """The camera centre in board inches (z = height above the board), from solvePnP."""
    if intrinsics is not None:
        K = intrinsics.K
    else:
        f = focal_from_homography(np.linalg.inv(H), image_size)
        if f is None:
            return None
        w, h = image_size
        K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]])
    obj = np.column_stack([board, np.zeros(len(board))]).astype(np.float64)
    ok, rvec, tvec = cv2.solvePnP(obj, img.reshape(-1, 1, 2).astype(np.float64), K, None,
                                  flags=cv2.SOLVEPNP_ITERATIVE)
    if not ok:
        return None
    R, _ = cv2.Rodrigues(rvec)
    centre = (-R.T @ tvec).reshape(3)
    if centre[2] >= 0:  # behind the board: a degenerate fit
        return None
    return (float(centre[0]), float(centre[1]), float(-centre[2]))


def focal_from_homography(H_board_to_image: np.ndarray, image_size: tuple[int, int]) -> float | None:
    """Focal length in pixels from one view of a plane (square pixels, principal point at the centre);
    None when the view is too close to face-on for the estimate to mean anything."""
    w, h = image_size
    T = np.array([[1, 0, -(w - 1) / 2], [0, 1, -(h - 1) / 2], [0, 0, 1]])
    M = T @ H_board_to_image
    M = M / np.linalg.norm(M[:, 0])
    (a11, a12, _), (a21, a22, _), (a31, a32, _) = M
    # orthogonality and equal norm of K^-1 h1, K^-1 h2; solve for 1/f^2 by least squares
    a = np.array([a11 * a12 + a21 * a22, a11**2 + a21**2 - a12**2 - a22**2])
    b = np.array([a31 * a32, a31**2 - a32**2])
    denom = float(a @ a)
    if denom == 0:
        return None
    inv_f2 = -float(a @ b) / denom
    if inv_f2 <= 0:
        return None
    f = 1 / math.sqrt(inv_f2)
    # with too little tilt b is noise: require the perspective terms to matter at the image's scale
    if np.linalg.norm(b) * max(w, h) ** 2 < 0.02 * np.linalg.norm(a) or not 0.2 * w < f < 10 * w:
        return None
    return f
