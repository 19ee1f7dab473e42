"""A pinhole camera with lens distortion looking down on the board (for the synthetic renderer).

World frame = board frame in inches: x along the board, y "down" the board (as in an image), z into
the board, so a point h inches above the board has z = -h. The camera looks along its own +z.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.cameras import CameraModel
from vision.cvcompat import undistort_points

MM_PER_INCH = 25.4


def _rotation(tilt_x_deg: float, tilt_y_deg: float, roll_deg: float) -> np.ndarray:
    """World->camera rotation for a camera looking straight down, tilted about x, y and rolled."""
    rx, _ = cv2.Rodrigues(np.array([math.radians(tilt_x_deg), 0.0, 0.0]))
    ry, _ = cv2.Rodrigues(np.array([0.0, math.radians(tilt_y_deg), 0.0]))
    rz, _ = cv2.Rodrigues(np.array([0.0, 0.0, math.radians(roll_deg)]))
    return rz @ ry @ rx


def _pose(board: tuple[float, float], height_in: float, tilt_deg: tuple[float, float], roll_deg: float
          ) -> tuple[np.ndarray, np.ndarray]:
    """World->camera (R, t) of a camera height_in above the board centre's line of sight, aimed at it."""
    R = _rotation(tilt_deg[0], tilt_deg[1], roll_deg)
    centre = np.array([board[0] / 2, board[1] / 2, 0.0])
    axis = R.T @ np.array([0.0, 0.0, 1.0])  # optical axis in the world
    position = centre - axis * (height_in / axis[2])
    return R, -R @ position


def _matrix(f: float, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    return np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]], dtype=np.float64)


@dataclass(frozen=True)
class PinholeCamera:
    """Intrinsics K (3x3), distortion (OpenCV's k1, k2, p1, p2, k3) and pose (world->camera R, t)."""

    size: tuple[int, int]  # (width, height) pixels
    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray
    t: np.ndarray
    extra: dict = field(default_factory=dict)

    @classmethod
    def overhead(cls, size: tuple[int, int], board: tuple[float, float], *, height_in: float = 40.0,
                 tilt_deg: tuple[float, float] = (0.0, 0.0), roll_deg: float = 0.0,
                 dist: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0), margin: float = 1.04) -> PinholeCamera:
        """A camera height_in above the board centre's line of sight, aimed at the centre, with the focal
        length chosen so the whole board (times margin) fits in the frame."""
        w, h = size
        R, t = _pose(board, height_in, tilt_deg, roll_deg)
        # focal length: fit the projected board corners (with f = 1) into the frame
        corners = np.array([[0, 0, 0], [board[0], 0, 0], [board[0], board[1], 0], [0, board[1], 0]], float)
        cam = (R @ corners.T).T + t
        norm = cam[:, :2] / cam[:, 2:3]
        half = np.abs(norm).max(axis=0) * margin
        f = min((w / 2) / half[0], (h / 2) / half[1])
        return cls(size, _matrix(f, size), np.asarray(dist, dtype=np.float64), R, t)

    @classmethod
    def from_model(cls, model: CameraModel, size: tuple[int, int], board: tuple[float, float], *,
                   height_mm: float, tilt_deg: tuple[float, float] = (0.0, 0.0), roll_deg: float = 0.0
                   ) -> PinholeCamera:
        """A real camera (vision.cameras) capturing `size`, height_mm above the board centre's line of
        sight, aimed at the centre; its long side along the board's x."""
        R, t = _pose(board, height_mm / MM_PER_INCH, tilt_deg, roll_deg)
        return cls(size, _matrix(model.focal_px(size), size), np.asarray(model.dist, np.float64), R, t,
                   {"model": model.name, "height_mm": height_mm})

    @property
    def rvec(self) -> np.ndarray:
        return cv2.Rodrigues(self.R)[0]

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (N, 3) -> distorted pixels (N, 2)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 3)
        out, _ = cv2.projectPoints(pts, self.rvec, self.t.reshape(3, 1), self.K, self.dist)
        return out.reshape(-1, 2)

    def pixels_to_plane(self, pixels: np.ndarray, z: float) -> np.ndarray:
        """Distorted pixels (N, 2) -> world (x, y) where their rays meet the plane at height z (world z)."""
        pts = np.asarray(pixels, dtype=np.float64).reshape(-1, 2)
        if np.any(self.dist):
            norm = undistort_points(pts.reshape(-1, 1, 2), self.K, self.dist, None,
                                    (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10))
            norm = norm.reshape(-1, 2)
        else:
            norm = (pts - self.K[:2, 2]) / np.array([self.K[0, 0], self.K[1, 1]])
        rays = np.column_stack([norm, np.ones(len(norm))]) @ self.R  # R.T @ ray, row-wise
        origin = -self.R.T @ self.t
        s = (z - origin[2]) / rays[:, 2]
        return origin[:2] + rays[:, :2] * s[:, None]
