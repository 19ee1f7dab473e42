"""A dispute bookmark's pictures: the camera frame cropped around each model involved, and the whole frame
at low resolution, each as a JPEG with what to draw over it (the bases and the measured line) in that
picture's own pixels, so the exported page draws the overlay without knowing the camera. Controller-side
(it uses vision's OpenCV), imported only when a bookmark is taken."""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

FULL_WIDTH = 640           # the whole frame at low resolution
CROP_MIN_IN = 4.0          # a crop shows at least this much board around a model's centre
CROP_BASES = 3.0           # ... and at least this many base diameters
LINE_POINTS = 16           # the measured line as points: straight on the board, maybe bent by the lens
QUALITY = 85


@dataclass(frozen=True)
class Mark:
    """A model to draw: its id, centre and base outline (board inches)."""

    id: str
    x: float
    y: float
    outline: tuple[tuple[float, float], ...]

    @property
    def reach(self) -> float:
        """How far the base reaches from the centre, inches."""
        return max(math.dist((self.x, self.y), p) for p in self.outline)


def to_pixels(calibration: Any, board: np.ndarray) -> np.ndarray:
    """Camera image pixels (as captured, lens distortion included) of board points (N, 2)."""
    import cv2

    pts = calibration.to_image(np.asarray(board, float).reshape(-1, 2))
    intrinsics = getattr(calibration, "intrinsics", None)
    if intrinsics is None:
        return pts
    k = np.asarray(intrinsics.K, float)
    rays = np.linalg.solve(k, np.vstack([pts.T, np.ones(len(pts))])).T      # normalised camera rays
    projected, _ = cv2.projectPoints(rays.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), k,
                                     np.asarray(intrinsics.dist, float))
    return projected.reshape(-1, 2)


def _jpeg(image: np.ndarray) -> str:
    import cv2

    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
    if not ok:
        raise ValueError("the camera frame could not be encoded as JPEG")
    return base64.b64encode(data.tobytes()).decode("ascii")


def _picture(image: np.ndarray, box: tuple[int, int, int, int], scale: float, kind: str, model: str | None,
             calibration: Any, marks: Sequence[Mark], line: np.ndarray | None) -> dict[str, Any]:
    """One picture: the part `box` (x0, y0, x1, y1 in frame pixels) of the frame scaled by `scale`, and
    the overlay in its pixels."""
    import cv2

    x0, y0, x1, y1 = box
    part = image[y0:y1, x0:x1]
    if scale != 1.0:
        part = cv2.resize(part, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)

    def here(board: np.ndarray) -> list[list[float]]:
        px = (to_pixels(calibration, board) - [x0, y0]) * scale
        return [[round(float(x), 1), round(float(y), 1)] for x, y in px]

    return {"kind": kind, "model": model, "width": int(part.shape[1]), "height": int(part.shape[0]),
            "box": [x0, y0, x1, y1], "scale": round(scale, 5), "jpeg": _jpeg(part),
            "overlay": {"bases": [{"id": m.id, "centre": here(np.array([[m.x, m.y]]))[0],
                                   "outline": here(np.array(m.outline))} for m in marks],
                        "line": None if line is None else here(line)}}


def pictures(image: np.ndarray, calibration: Any, marks: Sequence[Mark],
             ends: tuple[tuple[float, float], tuple[float, float]] | None) -> list[dict[str, Any]]:
    """A crop around each mark (native resolution) and the whole frame at FULL_WIDTH pixels wide, each with
    the marks and the measured line (`ends`, board inches) drawn in its own pixels."""
    height, width = image.shape[:2]
    line = None if ends is None else np.linspace(ends[0], ends[1], LINE_POINTS)
    shown = []
    for mark in marks:
        half = max(CROP_MIN_IN, CROP_BASES * 2 * mark.reach) / 2
        corners = np.array([[mark.x - half, mark.y - half], [mark.x + half, mark.y - half],
                            [mark.x + half, mark.y + half], [mark.x - half, mark.y + half]])
        px = to_pixels(calibration, corners)
        x0, y0 = (max(0, int(math.floor(v))) for v in px.min(axis=0))
        x1, y1 = min(width, int(math.ceil(px[:, 0].max()))), min(height, int(math.ceil(px[:, 1].max())))
        if x1 - x0 < 8 or y1 - y0 < 8:           # off the frame: nothing of it to show
            continue
        shown.append(_picture(image, (x0, y0, x1, y1), 1.0, "crop", mark.id, calibration, marks, line))
    scale = min(1.0, FULL_WIDTH / width)
    shown.append(_picture(image, (0, 0, width, height), scale, "frame", None, calibration, marks, line))
    return shown
