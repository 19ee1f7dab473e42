"""The ring sticker: a base sticker the camera reads round a miniature's feet (docs/vision.md).

A disc a little smaller than the base's top (`diameter_mm`: the base less 3 mm, so it sits inside a
bevelled rim). From the middle out, as shares of its radius:

- 0-0.50 white: the model's feet stand here (a thin tick points where the model faces);
- 0.50-0.60 a solid black locator ring, and 0.60-0.72 white: the reader fits the ring's two edges,
  circles of known radius, from whatever arcs the model leaves visible, for the base's centre;
- 0.72-0.86 and 0.86-1.00 the code: 31 cells round the ring, each black or white in each of the two
  bands, a cyclic code with distance 15 (vision/ringcode.py) read from the visible cells; its turn
  is the model's facing, measured to a fraction of a cell from the cells' edges.

Cell 0 is centred on the facing (the tile's top edge). Everything scales with the base: one code
for every size, the base size told by the locator ring's radius.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from table.errors import ConfigError
from vision import ringcode

RIM_MM = 3.0  # the sticker is the base less this across (it sits inside a bevelled rim)
TYPICAL_BASE_HEIGHT_MM = 3.0  # where a sticker lies when the config does not say: a moulded base's top
RING = (0.50, 0.60)  # the locator ring's inner and outer edges, shares of the sticker's radius
GAP = 0.72  # the white gap outside the ring ends here; the code's inner band starts
BANDS = ((0.72, 0.86), (0.86, 1.00))  # the code's inner and outer bands
TICK = (0.28, 0.44)  # the facing tick, in the white middle
SMALLEST_BASE_MM = 20.0
WHITE = 255
BLACK = 0


@dataclass(frozen=True)
class Sticker:
    """A ring sticker for a round base of `base_mm`: its sizes in millimetres."""

    base_mm: float

    def __post_init__(self) -> None:
        if not self.base_mm >= SMALLEST_BASE_MM:
            raise ConfigError(f"a ring sticker needs a base of at least {SMALLEST_BASE_MM:g} mm "
                              f"({self.base_mm:g} mm given)")

    @property
    def diameter_mm(self) -> float:
        return self.base_mm - RIM_MM

    @property
    def radius_mm(self) -> float:
        return self.diameter_mm / 2

    @property
    def band_mm(self) -> float:
        """The width of each code band."""
        return (BANDS[0][1] - BANDS[0][0]) * self.radius_mm

    def radii_mm(self) -> dict[str, float]:
        r = self.radius_mm
        return {"ring_in": RING[0] * r, "ring_out": RING[1] * r, "gap": GAP * r,
                "band": BANDS[0][1] * r, "edge": r}


def cell_of(angle: np.ndarray) -> np.ndarray:
    """The code cell at `angle` radians clockwise from the facing (cell 0 centred on it)."""
    return np.floor(angle / (2 * math.pi) * ringcode.CELLS + 0.5).astype(int) % ringcode.CELLS


def bits_of(word: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(inner band, outer band) of a codeword's symbols: 1 prints black."""
    w = np.asarray(word, np.uint8)
    return w >> 1, w & 1


@lru_cache(maxsize=4)
def _layout(n: int) -> tuple[np.ndarray, ...]:
    """Per pixel of an n x n sticker: radius (a share of the sticker's), code cell, what is black on
    every sticker (the locator ring, the facing tick), and which band it lies in."""
    c = (np.arange(n) + 0.5) / n * 2 - 1  # -1..1: shares of the radius
    x, y = np.meshgrid(c, c)
    r = np.hypot(x, y)
    cells = cell_of(np.arctan2(x, -y) % (2 * math.pi))  # clockwise from up (the facing)
    fixed = ((r >= RING[0]) & (r < RING[1])) | ((np.abs(x) < 0.025) & (-y >= TICK[0]) & (-y <= TICK[1]))
    return (r, cells, fixed, (r >= BANDS[0][0]) & (r < BANDS[0][1]), (r >= BANDS[1][0]) & (r < BANDS[1][1]))


def sticker_image(marker_id: int, sticker: Sticker, px: int, supersample: int = 4) -> np.ndarray:
    """The sticker of `marker_id` as a square BGRA image `px` across (the sticker's diameter), its
    top edge the facing, transparent outside the disc."""
    book = ringcode.codebook()
    if not 0 <= marker_id < len(book):
        raise ConfigError(f"sticker id {marker_id}: ring stickers have ids 0-{len(book) - 1}")
    inner, outer = bits_of(book[marker_id])
    r, cells, fixed, in_band, out_band = _layout(px * supersample)
    black = fixed | (in_band & (inner[cells] == 1)) | (out_band & (outer[cells] == 1))
    grey = np.where(black, BLACK, WHITE).astype(np.float32)
    alpha = np.where(r < 1.0, 255, 0).astype(np.float32)
    small = cv2.resize(np.dstack([grey * alpha / 255, alpha]), (px, px), interpolation=cv2.INTER_AREA)
    a = small[..., 1]
    value = np.where(a > 0, small[..., 0] * 255 / np.maximum(a, 1e-6), 0)
    out = np.dstack([value, value, value, a])
    return np.clip(np.round(out), 0, 255).astype(np.uint8)
