"""The AprilTag C library reading whole frames, or pieces of them, for the families it knows.

The library finds its own quads: it needs no outline from OpenCV, so it keeps markers OpenCV never
outlines (a thin white margin, blur, a tag on a busy background) as well as the ones it outlines but
cannot read. Through apriltag-python, the AprilTag project's own binding (wheels for x86-64 and
aarch64, so a Pi installs it from PyPI). Which families it reads: vision/families.py.

Two things keep its cost near OpenCV's detector:
- A contrast floor. The library segments only where a 4x4-pixel tile's neighbourhood of 3x3 tiles
  spans MIN_CONTRAST grey levels (its default is 5: sensor noise and JPEG texture on a plain surface
  become a field of blobs to cluster and fit, four to five times the cost on the real photos). No
  marker the library accepts lies below it: a decision margin of MIN_MARGIN needs a black-to-white
  contrast of about twice that. The wrapper does not expose the setting: vision/apriltag_c.py.
- A scale. When the smallest marker is big in the frame, the library reads a copy shrunk by `scale`
  (a cell still LIBRARY_CELL_PX pixels or more); the corners are refined on the full frame afterwards
  (vision/refine.py).
"""

from __future__ import annotations

from collections.abc import Callable
from math import comb

import cv2
import numpy as np

from vision.apriltag_c import Detector, code_space

MIN_MARGIN = 30.0  # the library's decision margin; real markers on the photos score 38-150
MAX_HAMMING = 1  # bits the library may correct (its default), in families where it is safe:
# correcting stops where more than MAX_CHANCE_READ of arbitrary patterns (clutter, the inside of another
# family's tag) would read as some code. That leaves tag16h5 (30 codes of 16 bits: 3.1% with a bit
# corrected, 0.18% without; on the real photos, 17 of their 36h11 tags read as 16h5 tags with a bit
# corrected and none without) and tagCircle21h7 (0.16%) uncorrected; tag36h11 corrects one (1.3e-6).
MAX_CHANCE_READ = 1e-3
MIN_CONTRAST = 30  # grey levels: see the module's docstring
# a shrunk copy keeps this many pixels a cell of the smallest marker as the detector's settings
# underestimate it (85% of its size after calibration): about 2.6 px a cell, where the library reads
# markers clean or spoiled (under about 2.5 it starts to lose markers to damage, shrunk or not)
LIBRARY_CELL_PX = 2.2
# the library lists corners left-bottom, right-bottom, right-top, left-top in the tag's frame and puts
# pixel centres at +0.5; OpenCV's order (top-left, top-right, bottom-right, bottom-left) is this one
TO_OPENCV_ORDER = [1, 0, 3, 2]

_detectors: dict[str, Detector] = {}  # one per family and process


def chance_read(family: str, hamming: int) -> float:
    """The chance that an arbitrary pattern of the family's bits reads as one of its codes, in any of
    four turns, with up to `hamming` bits corrected."""
    codes, bits = code_space(family)
    return 4 * codes * sum(comb(bits, k) for k in range(hamming + 1)) / 2 ** bits


def max_hamming(family: str) -> int:
    """Bits the library corrects in a family: MAX_HAMMING, or fewer where that reads clutter."""
    return max([h for h in range(MAX_HAMMING + 1) if chance_read(family, h) <= MAX_CHANCE_READ], default=0)


def library(family: str) -> Detector:
    """The library's detector for a family (its name: `tag36h11`, ...), made on first use."""
    if family not in _detectors:
        _detectors[family] = Detector(family, max_hamming(family), MIN_CONTRAST)
    return _detectors[family]


def scale_for(side_px: float, cells: int) -> float:
    """How far a frame may be shrunk (1, 1.5, 2, 2.5, ...) with a marker of `side_px` (its square of
    `cells` cells) still LIBRARY_CELL_PX pixels a cell."""
    return max(1.0, np.floor(2.0 * side_px / cells / LIBRARY_CELL_PX) / 2.0)


def read(grey: np.ndarray, family: str, scale: float = 1.0,
         enhance: Callable[[np.ndarray, float], np.ndarray] | None = None) -> list[tuple[int, np.ndarray]]:
    """(id, corners (4, 2) in OpenCV's order and pixel convention) of every marker of `family` the
    library reads in `grey` (any 2-D uint8 view) shrunk by `scale` (then passed through
    `enhance(image, scale)` if given), with a decision margin of at least MIN_MARGIN; corners in
    `grey`'s pixels, as the library fitted them."""
    h, w = grey.shape[:2]
    if h < 8 or w < 8:
        return []
    small = grey
    if scale > 1.0:
        size = (max(8, round(w / scale)), max(8, round(h / scale)))
        small = cv2.resize(grey, size, interpolation=cv2.INTER_AREA)
    if enhance is not None:
        small = enhance(small, scale)
    ratio = np.array([w / small.shape[1], h / small.shape[0]])
    out = []
    for d in library(family).detect(small):
        if d.margin >= MIN_MARGIN:
            corners = d.corners[TO_OPENCV_ORDER]  # pixel centres at +0.5
            out.append((d.id, corners * ratio - 0.5))
    return out
