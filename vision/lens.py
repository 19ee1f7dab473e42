"""Lens intrinsics (camera matrix and distortion): undistort points, save and load as TOML.

Files live under `firmware_cfg/` (TOML only, like every table setting); `[camera] intrinsics` names
the file. Written by `smarttable calibrate-lens`.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from table.errors import ConfigError
from vision.cvcompat import undistort_points


@dataclass(frozen=True)
class Intrinsics:
    """Camera matrix K (3x3), distortion coefficients (OpenCV order) and the image size they hold for."""

    K: np.ndarray
    dist: np.ndarray
    size: tuple[int, int]  # (width, height)
    rms_px: float = 0.0

    def undistort(self, pixels: np.ndarray) -> np.ndarray:
        """Distorted pixels (N, 2) -> the pixels an ideal pinhole camera with the same K would see."""
        pts = np.asarray(pixels, np.float64).reshape(-1, 1, 2)
        criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-9)
        return undistort_points(pts, self.K, self.dist, self.K, criteria).reshape(-1, 2)

    def scaled(self, size: tuple[int, int]) -> Intrinsics:
        """The same lens at another resolution of the same sensor mode (binning/scaling)."""
        sx, sy = size[0] / self.size[0], size[1] / self.size[1]
        K = self.K.copy()
        K[0] *= sx
        K[1] *= sy
        return Intrinsics(K, self.dist, size, self.rms_px)


def save_intrinsics(intrinsics: Intrinsics, path: str | Path) -> Path:
    path = Path(path)
    k = intrinsics.K
    lines = [
        "# Lens intrinsics written by `smarttable calibrate-lens`.",
        f"width = {intrinsics.size[0]}",
        f"height = {intrinsics.size[1]}",
        f"rms_px = {intrinsics.rms_px:.6f}",
        "camera_matrix = [" + ", ".join(f"[{', '.join(repr(float(v)) for v in row)}]" for row in k) + "]",
        "distortion = [" + ", ".join(repr(float(v)) for v in np.ravel(intrinsics.dist)) + "]",
    ]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write the intrinsics: {exc.strerror}") from None
    return path


def load_intrinsics(path: str | Path) -> Intrinsics:
    """Read an intrinsics file; errors name the file and the key."""
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such intrinsics file") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read intrinsics: {exc}") from None
    try:
        K = np.array(doc["camera_matrix"], dtype=np.float64)
        dist = np.array(doc["distortion"], dtype=np.float64)
        size = (int(doc["width"]), int(doc["height"]))
    except KeyError as exc:
        raise ConfigError(f"{path}: {exc.args[0]}: missing") from None
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: malformed intrinsics: {exc}") from None
    if K.shape != (3, 3) or dist.ndim != 1 or dist.size not in (4, 5, 8, 12, 14):
        raise ConfigError(f"{path}: camera_matrix must be 3x3 and distortion 4, 5, 8, 12 or 14 numbers")
    return Intrinsics(K, dist, size, float(doc.get("rms_px", 0.0)))
