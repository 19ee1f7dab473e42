"""The few OpenCV calls whose Python spelling differs between OpenCV 4 and 5. A Raspberry Pi OS
Bookworm install gets OpenCV 4.11: the venv keeps the system's numpy 1.24, which apt's picamera2 is
built against, and OpenCV 4.12 and later need numpy 2 (see docs/running.md)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import cv2
import numpy as np

Criteria = tuple[int, int, float]
LOG_LEVEL_SILENT = 0  # cv::utils::logging::LOG_LEVEL_SILENT in both


def undistort_points(points: np.ndarray, K: np.ndarray, dist: np.ndarray, P: np.ndarray | None,
                     criteria: Criteria) -> np.ndarray:
    """cv2.undistortPoints iterated to `criteria` (OpenCV 4 names that variant undistortPointsIter)."""
    if hasattr(cv2, "undistortPointsIter"):
        return cv2.undistortPointsIter(points, K, dist, None, P, criteria)
    return cv2.undistortPoints(points, K, dist, None, None, P, criteria)


@contextlib.contextmanager
def quiet_opencv() -> Iterator[None]:
    """Silence OpenCV's own log for the duration: its backends print a warning or an error per failed probe
    (OpenCV 4.11's obsensor backend: "[ERROR:0@0.909] ... Camera index out of range"); the caller says
    what failed, in our words."""
    logging = getattr(cv2.utils, "logging", None)
    # OpenCV 4 has no cv2.utils.logging but cv2.getLogLevel; the installed stubs are OpenCV 5's
    get_level, set_level = ((logging.getLogLevel, logging.setLogLevel) if logging is not None
                            else (cv2.getLogLevel, cv2.setLogLevel))  # type: ignore[attr-defined]
    level = get_level()
    set_level(LOG_LEVEL_SILENT)  # errors too: 4.11 logs a missing camera index as an [ERROR] line
    try:
        yield
    finally:
        set_level(level)
