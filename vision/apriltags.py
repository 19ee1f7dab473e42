"""The AprilTag C library as a second detector, on the regions OpenCV found a quad but no marker.

On real photos the library keeps markers that OpenCV's reading loses (motion blur, small tags, a
thin white margin); run on the whole frame it costs 1.5-2.5x OpenCV's detector, on small crops around
the quads OpenCV rejected about a tenth of it. Through apriltag-python, the AprilTag project's own
Python binding (wheels for x86-64 and aarch64, so a Pi installs it from PyPI). tag36h11 only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

DICTIONARY = "DICT_APRILTAG_36h11"
MIN_MARGIN = 30.0  # the library's decision margin; real markers on the photos score 45-150
# the library lists corners left-bottom, right-bottom, right-top, left-top in the tag's frame and puts
# pixel centres at +0.5; OpenCV's order (top-left, top-right, bottom-right, bottom-left) is this one
TO_OPENCV_ORDER = [1, 0, 3, 2]

_detector: Any = None  # the library has no type hints


def library() -> Any:
    """The library's tag36h11 detector, made on first use (one per process)."""
    global _detector
    if _detector is None:
        import apriltag

        _detector = apriltag.apriltag("tag36h11", maxhamming=1, decimate=1.0)
    return _detector


def side_px(quad: np.ndarray) -> float:
    return float(np.mean(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)))


def read_regions(grey: np.ndarray, quads: Sequence[np.ndarray], known: Sequence[tuple[float, float]]
                 ) -> list[tuple[int, np.ndarray]]:
    """(id, corners in OpenCV's order) of the markers the library finds in a crop around each quad
    (twice its side), skipping quads at a known marker; full-image pixels."""
    centres = np.asarray(known, dtype=np.float64).reshape(-1, 2)
    out: list[tuple[int, np.ndarray]] = []
    h, w = grey.shape[:2]
    for quad in quads:
        side, centre = side_px(quad), quad.mean(axis=0)
        if len(centres) and np.min(np.linalg.norm(centres - centre, axis=1)) < side:
            continue
        half = int(side) + 4
        x0, y0 = max(0, int(centre[0]) - half), max(0, int(centre[1]) - half)
        x1, y1 = min(w, int(centre[0]) + half), min(h, int(centre[1]) + half)
        if x1 - x0 < 8 or y1 - y0 < 8:
            continue
        for d in library().detect(np.ascontiguousarray(grey[y0:y1, x0:x1])):
            if d["margin"] < MIN_MARGIN:
                continue
            corners = np.asarray(d["lb-rb-rt-lt"], np.float64)[TO_OPENCV_ORDER] - 0.5 + (x0, y0)
            found_centre = corners.mean(axis=0)
            if len(centres) and np.min(np.linalg.norm(centres - found_centre, axis=1)) < side_px(corners) / 2:
                continue
            out.append((int(d["id"]), corners.astype(np.float32)))
            centres = np.vstack([centres, found_centre])
    return out
