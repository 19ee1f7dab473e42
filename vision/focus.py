"""How sharp the camera sees: the lens's blur measured on the markers' own edges, and whether ring
stickers of a size still read at it.

A marker's black square is a straight edge from black to white on every side; a lens of Gaussian blur
sigma makes that step low + (high - low) Phi(x / sigma) across it. Profiles across the middle of each
side (away from the corners, where two edges meet), averaged along it so that noise and JPEG blocks
cancel, are fitted with that step; the median sigma over the sides of every marker big enough (a cell
of MIN_CELL_PX or more: the fit reaches half a cell either way, from the border's middle to the white
margin's) is the blur. It includes what the sensor's pixels, the demosaic and the JPEG add, as the
reader sees it: the outside render measures 0.89 px at a lens blur of 0.75, 1.57 at 1.5, 3.0 at 3.0.
On 37 real room photos, a blur of 1.5 px added to each adds in quadrature to what is measured (within
0.06 px).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.detect import MM_PER_INCH, Detection
from vision.sticker import Sticker

MIN_CELL_PX = 6.0  # a marker's cell this wide or more (a blur to a quarter of it is measured within 5%)
STEP_PX = 0.2  # sampling along each profile
ALONG = 24  # profiles along the middle of each side
MIN_STEP = 30.0  # grey levels across a side for it to be measured
MIDDLE = (0.2, 0.8)  # the part of each side the profiles cross
MIN_SIDES = 4  # sides needed for a measurement
# ring stickers read reliably (98%) while the blur (sigma, px, as measured here) is at most this share of the
# code bands' width in pixels. The outside render at 1.65 m, models standing on the stickers, located of 80
# at a lens blur of (measured here):
#   25 mm bases, bands 3.62 px: 80 at 1.5 (1.57), 79 at 1.75 (1.81), 73 at 2.0 (2.05), 21 at 2.5: limit 1.63
#   32 mm, 4.77 px: 80 at 1.5, 79 at 2.25 (2.3), 76 at 2.5 (2.54), 74 at 2.75 (2.79): limit 2.15 px
#   40 mm, 6.09 px: 80 at 2.5 (2.54), 78 at 3.0 (3.01): limit 2.74 px
STICKER_BLUR_SHARE = 0.45
_SIGMAS = np.arange(0.2, 4.01, 0.1)  # the coarse grid: blur sigma and the edge's offset, px
_X0 = np.arange(-0.3, 0.31, 0.1)  # about the half-way crossing
_U = np.linspace(-12.0, 12.0, 4801)
_PHI = 0.5 * (1.0 + np.array([math.erf(v / math.sqrt(2.0)) for v in _U]))


@dataclass(frozen=True)
class Focus:
    """The blur measured on a frame's calibration markers and, with ring stickers in use, the blur the
    smallest of them reads reliably to at this camera's scale."""

    blur_px: float
    base_mm: float | None = None
    limit_px: float | None = None

    @property
    def too_soft(self) -> bool:
        return self.limit_px is not None and self.blur_px > self.limit_px

    def warning(self) -> str | None:
        if not self.too_soft:
            return None
        return (f"the camera is out of focus for the stickers: its edges are blurred by {self.blur_px:.1f} "
                f"px (sigma, measured on the corner markers), and ring stickers on {self.base_mm:g} mm bases "
                f"read reliably up to {self.limit_px:.1f} px at this scale: focus the lens on the board "
                "(docs/vision.md, \"Focus\")")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"blur_px": round(self.blur_px, 2)}
        if self.limit_px is not None:
            out |= {"sticker_base_mm": self.base_mm, "sticker_limit_px": round(self.limit_px, 2)}
        return out


def sticker_blur_limit_px(base_mm: float, px_per_mm: float) -> float:
    """The blur (sigma, px) under which ring stickers on `base_mm` bases read reliably."""
    return STICKER_BLUR_SHARE * Sticker(base_mm).band_mm * px_per_mm


def measure(grey: np.ndarray, detections: Sequence[Detection], corner_ids: Sequence[int], cells: int,
            stickers: Mapping[int, float], px_per_inch: float) -> Focus | None:
    """The focus of a calibrated frame from its calibration markers (`corner_ids`, `cells` across their
    black squares), with the limit of the smallest of the ring stickers in use (id -> base mm)."""
    blur = edge_blur_px(grey, [d.corners for d in detections if d.id in corner_ids], cells)
    if blur is None:
        return None
    if not stickers:
        return Focus(blur)
    smallest = min(stickers.values())
    return Focus(blur, smallest, sticker_blur_limit_px(smallest, px_per_inch / MM_PER_INCH))


def edge_blur_px(grey: np.ndarray, quads: Sequence[np.ndarray], cells: int) -> float | None:
    """The blur (Gaussian sigma, pixels) across the edges of markers' black squares `quads` ((4, 2)
    each, in `grey`'s pixels, OpenCV's convention), `cells` cells across each square; None when fewer
    than MIN_SIDES sides are big and clean enough to measure."""
    sigmas = []
    for quad in quads:
        q = np.asarray(quad, np.float64).reshape(4, 2)
        side = float(np.mean(np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)))
        cell = side / cells
        if cell < MIN_CELL_PX:
            continue
        centre = q.mean(axis=0)
        for a, b in zip(q, np.roll(q, -1, axis=0), strict=True):
            sigma = _edge_sigma(grey, a, b, centre, 0.5 * cell)
            if sigma is not None:
                sigmas.append(sigma)
    if len(sigmas) < MIN_SIDES:
        return None
    return float(np.median(sigmas))


def _edge_sigma(grey: np.ndarray, a: np.ndarray, b: np.ndarray, centre: np.ndarray, reach: float
                ) -> float | None:
    """The blur sigma (px) of the edge from `a` to `b` of a square round `centre` (dark inside or, for
    AprilTag 3's layouts, light): a blurred step fitted to the profile averaged along the edge's middle,
    `reach` px either way (half a cell: the middles of the cells either side, where the next edges weigh
    least); None where the profile is not one clean step."""
    along = (b - a) / np.linalg.norm(b - a)
    normal = np.array([along[1], -along[0]])
    if np.dot(normal, (a + b) / 2 - centre) < 0:
        normal = -normal  # outward
    offsets = np.arange(-reach, reach + 1e-9, STEP_PX)
    starts = a + np.outer(np.linspace(*MIDDLE, ALONG), b - a)
    xy = (starts[:, None, :] + offsets[None, :, None] * normal).astype(np.float32)
    samples = cv2.remap(grey, xy[..., 0], xy[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    profile = samples.astype(np.float64).mean(axis=0)
    if abs(profile[-1] - profile[0]) < MIN_STEP:
        return None
    return _fit_step(offsets, profile if profile[-1] > profile[0] else -profile)


def _fit_step(x: np.ndarray, profile: np.ndarray) -> float | None:
    """Sigma of the blurred step low + (high - low) Phi((x - x0) / sigma) that fits `profile` best (least
    squares: low and high solved for each sigma and x0 on a grid, x0 near where the profile crosses half-way,
    then on a finer grid round the best); None at the coarse grid's ends."""
    k = max(1, x.size // 10)
    half = (np.median(profile[:k]) + np.median(profile[-k:])) / 2
    above = np.flatnonzero(profile >= half)
    if not len(above) or above[0] == 0:
        return None
    i = above[0]
    middle = x[i - 1] + (half - profile[i - 1]) / (profile[i] - profile[i - 1]) * (x[i] - x[i - 1])
    sigma, x0 = _best(x, profile, _SIGMAS, middle + _X0)
    if sigma in (_SIGMAS[0], _SIGMAS[-1]):
        return None
    sigma, _ = _best(x, profile, sigma + np.arange(-0.1, 0.101, 0.01), x0 + np.arange(-0.1, 0.101, 0.05))
    return sigma


def _best(x: np.ndarray, profile: np.ndarray, sigmas: np.ndarray, x0s: np.ndarray) -> tuple[float, float]:
    """The (sigma, x0) of the grid whose step fits `profile` with the least squared error."""
    u = (x[None, None, :] - x0s[None, :, None]) / sigmas[:, None, None]
    phi = np.interp(u, _U, _PHI)  # (sigmas, x0s, samples)
    n = x.size
    s1, s2, sy, s1y = phi.sum(-1), (phi * phi).sum(-1), profile.sum(), (phi * profile).sum(-1)
    step = (n * s1y - s1 * sy) / (n * s2 - s1 * s1)
    low = (sy - step * s1) / n
    residual = ((low[..., None] + step[..., None] * phi - profile) ** 2).sum(-1)
    i, j = np.unravel_index(np.argmin(residual), residual.shape)
    return float(sigmas[i]), float(x0s[j])
