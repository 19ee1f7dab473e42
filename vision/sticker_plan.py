"""Which base sticker to print, and where on the board it reads under a model of a given height
(`smarttable plan-camera --base-mm B --model-height-mm H [--model foot|cavalry]`).

The model is a few solids standing on the sticker (vision/model_shadow.py): a figure on foot, or a
rider on a horse standing along an oval. A point of the sticker is hidden where the camera's ray from
it passes through the model; the farther the base from under the camera, the more the model leans
outward over the sticker. For each distance from under the camera and each way the model may face,
the plan asks what the reader asks (vision/sticker_read.py):
- does the locator ring show: its outer edge (the ring's outermost tenth, RING_EDGE, and the white gap
  beside it) on at least FIRST_LOOK of its round (a model's feet may cover the rest of the ring);
- which code cells show (at least half of a cell, in both bands), and do they still tell the sticker's
  id from every other id in use and every turn by `sticker_read.MIN_MARGIN` cells, with the model's arms
  or weapon hiding ARM_CELLS more.
The ids in use are PLAN_IDS, the forty the print command below prints. The share of facings and ids that
read, per distance, gives how far from under the camera the sticker reads reliably (RELIABLE_SHARE) and
the share expected by board region. The reader needs the code's bands BAND_PX pixels wide.

Checked against the renders: tests/vision/test_sticker_plan.py (the verdicts against the detector) and
bench/vision/bench_outside_stickers.py (cavalry by board region).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from table.errors import ConfigError
from vision import ringcode
from vision.focus import sticker_blur_limit_px
from vision.miniature import SIZES
from vision.model_shadow import HORSE_WIDTH_MM, RIDER_HEIGHT_MM, Model, cavalry, hidden, on_foot, ring_points
from vision.planner import MM_PER_INCH, Setup, half_board, lowest_height_mm, more_pixels
from vision.sticker import BANDS, GAP, RING, SMALLEST_BASE_MM, TYPICAL_BASE_HEIGHT_MM, Sticker, cell_of
from vision.sticker_read import FIRST_LOOK, MIN_MARGIN, MIN_VISIBLE

MAX_HIDDEN = ringcode.DISTANCE - int(MIN_MARGIN)  # cells hidden under which any id reads, whatever the ids
ARM_CELLS = 2  # an arm or weapon over the code (the renders' models: one or two, 1-2 cells each)
# the code bands' width in pixels: read reliably from BAND_PX, marginal from BAND_MARGINAL_PX (the outside
# render, 25 mm bases under 30 mm models, blur 0.75 px, the camera raised: 3.6 px (1.65 m) and 2.5 px
# (2.4 m) 120 of 120, 2.3 px 118 of 120, 2.1 px 75 of 80, 1.8 px 73 of 80)
BAND_PX = 2.5
BAND_MARGINAL_PX = 2.0
RELIABLE_SHARE = 0.98  # of facings and ids, at a distance from under the camera
PLAN_IDS = tuple(range(10, 50))
ANGLES = 372  # points round each circle: 12 a code cell
FACINGS = 12  # ways the model faces, relative to the camera's foot
LEANS = 25  # distances from under the camera to the board's corner
REGIONS_IN = (8.0, 16.0, 24.0)  # the region bounds, inches from under the camera
CODE_RADII = tuple((a + b) / 2 for a, b in BANDS)
# where the locator ring must show: its outermost tenth (the reader fits the ring's outer edge; a footprint
# wider than the white middle hides the rest: models 12.5 mm wide on 25 mm bases, whose ring's outer edge is
# 13.2 mm across, all located; 13 mm, 9 of 11: tests/vision/test_sticker_plan.py) and the white gap outside
RING_EDGE = RING[1] - 0.1 * (RING[1] - RING[0])
RING_SIDES = (RING_EDGE, (RING[1] + GAP) / 2)
ROUND_BASES = (25.0, 28.5, 32.0, 40.0, 50.0, 60.0)
OVAL_BASES = ((60.0, 35.0), (75.0, 42.0), (90.0, 52.0), (105.0, 70.0))


@dataclass(frozen=True)
class Base:
    """A base: round (`length_mm` == `width_mm`), or an oval or rectangle; the ring sticker fits its
    narrower side."""

    length_mm: float
    width_mm: float

    @classmethod
    def parse(cls, text: str) -> Base:
        """'25' (round) or '60x35' (an oval or rectangle, either way round)."""
        try:
            sizes = [float(v) for v in text.lower().split("x")]
        except ValueError:
            sizes = []
        if len(sizes) not in (1, 2) or not all(math.isfinite(v) and v > 0 for v in sizes):
            raise ConfigError(f"--base-mm {text!r}: expected a round base's mm (25) or an oval's LxW (60x35)")
        return cls(max(sizes), min(sizes))

    @property
    def round(self) -> bool:
        return self.length_mm == self.width_mm

    def __str__(self) -> str:
        return f"{self.width_mm:g}" if self.round else f"{self.length_mm:g}x{self.width_mm:g}"


def typical(base_mm: float) -> tuple[float, float]:
    """(height, body width) in mm of a typical model on foot on a round base (vision.miniature.SIZES;
    under the smallest size there, in proportion to the base)."""
    sizes = np.array(SIZES)
    shrink = min(1.0, base_mm / sizes[0, 0])
    return (shrink * float(np.interp(base_mm, sizes[:, 0], sizes[:, 1])),
            shrink * 2 * float(np.interp(base_mm, sizes[:, 0], sizes[:, 2])))


@dataclass(frozen=True)
class Standing:
    """A model standing on a sticker: its kind (`foot` or `cavalry`), height and body width in mm."""

    kind: str
    height_mm: float
    width_mm: float

    @property
    def solids(self) -> Model:
        make = cavalry if self.kind == "cavalry" else on_foot
        return make(self.height_mm, self.width_mm)


def _shows(sticker: Sticker, model: Model, radii: tuple[float, ...], leans_mm: np.ndarray, camera_mm: float
           ) -> np.ndarray:
    """(leans, FACINGS, ANGLES) bool: where round the sticker every one of the circles `radii` (shares of
    its radius) shows, the base `leans_mm` from under a camera `camera_mm` above it, the model facing
    each of FACINGS ways from the camera's foot."""
    facing = np.linspace(0, 2 * math.pi, FACINGS, endpoint=False)
    lean = np.asarray(leans_mm, float)[:, None]
    cameras = np.stack([lean * np.cos(facing), lean * np.sin(facing), np.full_like(lean * facing, camera_mm)],
                       axis=-1)  # (L, F, 3), in the model's frame
    shape = (len(lean), FACINGS, ANGLES)
    rays = np.broadcast_to(cameras[:, :, None, :], (*shape, 3)).reshape(-1, 3)
    out = np.ones(shape, bool)
    for share in radii:
        points = np.broadcast_to(ring_points(share * sticker.radius_mm, ANGLES), (*shape, 2)).reshape(-1, 2)
        out &= ~hidden(model, points, rays).reshape(shape)
    return out


_CELL = cell_of(-np.linspace(0, 2 * math.pi, ANGLES, endpoint=False) % (2 * math.pi))


def hidden_cells(sticker: Sticker, model: Standing, leans_mm: np.ndarray, camera_mm: float) -> np.ndarray:
    """Code cells the model hides at each of `leans_mm` from under a camera `camera_mm` above the sticker,
    the way it faces that hides most: a cell counts where the locator ring's outer edge beside it or
    either code band is hidden, arms and weapons included (at most MAX_HIDDEN: any id reads)."""
    shown = _shows(sticker, model.solids, (RING[1], *CODE_RADII), leans_mm, camera_mm)
    most = (~shown).mean(axis=2).max(axis=1)
    return np.minimum(ringcode.CELLS, np.ceil(most * ringcode.CELLS - 1e-9).astype(int) + ARM_CELLS)


def read_shares(sticker: Sticker, model: Standing, leans_mm: np.ndarray, camera_mm: float) -> np.ndarray:
    """The share of facings and PLAN_IDS whose sticker reads at each of `leans_mm` from under a camera
    `camera_mm` above it (see the module's docstring)."""
    ring = _shows(sticker, model.solids, RING_SIDES, leans_mm, camera_mm).mean(axis=2) >= FIRST_LOOK
    code = _shows(sticker, model.solids, CODE_RADII, leans_mm, camera_mm)
    per_cell = np.stack([code[..., _CELL == c].mean(axis=2) for c in range(ringcode.CELLS)], axis=-1)
    need = int(MIN_MARGIN) + ARM_CELLS
    read = np.array([[_ids_read(tuple(bool(v) for v in cells >= 0.5), need) if ok else 0.0
                      for cells, ok in zip(row, ring_row, strict=True)]
                     for row, ring_row in zip(per_cell, ring, strict=True)])
    return read.mean(axis=1)


@lru_cache(maxsize=4096)
def _ids_read(visible: tuple[bool, ...], need: int) -> float:
    """The share of PLAN_IDS that read from the `visible` cells with `need` cells of margin."""
    v = np.array(visible)
    if v.sum() < MIN_VISIBLE:
        return 0.0
    return float(np.mean(ringcode.margins(v, PLAN_IDS) >= need))


@dataclass(frozen=True)
class Reading:
    """Where a sticker reads under a model at one camera height."""

    board_share: float  # of the board within `reach_in` of under the camera
    reach_in: float  # from under the camera, every distance up to here reads RELIABLE_SHARE or more
    by_region: dict[str, float]  # the share expected to read, by distance from under the camera
    hidden_centre: int
    hidden_corner: int


def reading(s: Setup, sticker: Sticker, model: Standing, camera_mm: float) -> Reading:
    """Where the sticker reads under `model` with the camera `camera_mm` above the board."""
    up = camera_mm - TYPICAL_BASE_HEIGHT_MM
    w, h = (v * MM_PER_INCH for v in s.board_in)
    corner = math.hypot(w, h) / 2
    leans = np.linspace(0, corner, LEANS)
    shares = read_shares(sticker, model, leans, up)
    bad = np.flatnonzero(shares < RELIABLE_SHARE)
    reach = corner if not len(bad) else float(leans[bad[0] - 1]) if bad[0] > 0 else -1.0
    xs, ys = np.meshgrid(np.linspace(-w / 2, w / 2, 97), np.linspace(-h / 2, h / 2, 97))
    r = np.hypot(xs, ys).ravel()
    expected = np.interp(r, leans, shares)
    lows, highs = (0.0, *REGIONS_IN), (*REGIONS_IN, math.inf)
    by_region = {}
    for lo, hi in zip(lows, highs, strict=True):
        there = (r >= lo * MM_PER_INCH) & (r < hi * MM_PER_INCH)
        if there.any():
            name = f"{lo:g}-{hi:g}in" if hi < math.inf else f"{lo:g}in+"
            by_region[name] = round(float(expected[there].mean()), 3)
    by_region["board"] = round(float(expected.mean()), 3)
    centre, far = hidden_cells(sticker, model, np.array([0.0, corner]), up)
    return Reading(float(np.mean(r <= reach + 1e-6)), max(reach, 0.0) / MM_PER_INCH, by_region,
                   int(centre), int(far))


def band_px(sticker: Sticker, px_per_mm: float) -> float:
    return sticker.band_mm * px_per_mm


def verdict(share: float, px: float) -> str:
    if share >= 1.0 and px >= BAND_PX:
        return "reliable"
    return "marginal" if share > 0 and px >= BAND_MARGINAL_PX else "unreliable"


def standing(base: Base, kind: str | None, height_mm: float | None, width_mm: float | None) -> Standing:
    """The model on `base`: `kind` (default: cavalry on an oval or rectangle, on foot on a round base),
    its height and width given or typical."""
    kind = kind or ("foot" if base.round else "cavalry")
    if kind == "cavalry":
        tall, wide = RIDER_HEIGHT_MM, HORSE_WIDTH_MM
    else:
        tall, wide = typical(base.width_mm)
    return Standing(kind, tall if height_mm is None else height_mm, wide if width_mm is None else width_mm)


def sticker_plan(s: Setup, base: Base, model: Standing) -> dict[str, Any]:
    """The sticker to print for `base` and where on the board it reads under `model` (JSON-able)."""
    if not base.width_mm >= SMALLEST_BASE_MM:
        raise ConfigError(f"--base-mm {base}: ring stickers need a base (or a hull's roof) at least "
                          f"{SMALLEST_BASE_MM:g} mm across; a smaller base takes a printed square marker "
                          "beside the model (--marker-mm)")
    sticker = Sticker(base.width_mm)
    f = s.camera.focal_px(s.resolution)
    px_per_mm = f / (s.height_mm - TYPICAL_BASE_HEIGHT_MM)
    px = band_px(sticker, px_per_mm)
    here = reading(s, sticker, model, s.height_mm)
    judged = verdict(here.board_share, px)
    return {
        "sticker": {"kind": "ring", "base_mm": base.width_mm, "diameter_mm": sticker.diameter_mm,
                    "base": str(base), "print": f"smarttable markers stickers.pdf --ids 10-49 --base-mm "
                                                f"{base.width_mm:g}"},
        "model": model.kind, "model_height_mm": model.height_mm, "model_width_mm": model.width_mm,
        "sticker_band_px": round(px, 2),
        "sticker_blur_limit_px": round(sticker_blur_limit_px(sticker.base_mm, px_per_mm), 2),
        "hidden_cells": {"under_camera": here.hidden_centre, "at_corner": here.hidden_corner,
                         "most": MAX_HIDDEN},
        "sticker_board_share": round(here.board_share, 3), "sticker_reads_within_in": round(here.reach_in, 1),
        "sticker_read_share": here.by_region,
        "sticker_reading": judged,
        "sticker_advice": [] if judged == "reliable" else sticker_advice(s, base, model, here, px),
    }


def _bigger(base: Base) -> list[Base]:
    """Bases of the same shape bigger than `base`, smallest first."""
    if base.round:
        return [Base(b, b) for b in ROUND_BASES if b > base.width_mm]
    return [Base(a, b) for a, b in OVAL_BASES if b > base.width_mm]


def _everywhere_from(s: Setup, sticker: Sticker, model: Standing) -> int | None:
    """The lowest camera height (mm, in steps of 50, up to three times the set-up's) where the sticker
    reads all over the board, or None. The higher the camera, the less a model leans: a bisection."""
    heights = list(range(int(s.height_mm) + 50, int(s.height_mm) * 3, 50))
    lo, hi = 0, len(heights)
    while lo < hi:
        mid = (lo + hi) // 2
        if reading(s, sticker, model, heights[mid]).board_share >= 1.0:
            hi = mid
        else:
            lo = mid + 1
    return heights[lo] if lo < len(heights) else None


def _band_advice(s: Setup, base: Base, sticker: Sticker, px: float) -> str:
    """The code's bands too thin at this height: the heights that read them and still see the whole board,
    or, where there are none, what does (more pixels, a camera over each half, bigger bases)."""
    f = s.camera.focal_px(s.resolution)
    lowest = math.ceil(lowest_height_mm(s))
    top = math.floor(f * band_px(sticker, 1.0) / BAND_PX + TYPICAL_BASE_HEIGHT_MM)
    more = more_pixels(s)
    shown = math.floor(px * 10) / 10  # 2.49 px is not shown as the 2.5 it falls short of
    said = (f"the code's bands are {shown:.1f} px wide at {s.height_mm:g} mm "
            f"(read reliably from {BAND_PX:g} px)")

    def bigger_at(height_mm: float) -> Base | None:
        px_per_mm = f / (height_mm - TYPICAL_BASE_HEIGHT_MM)
        return next((b for b in _bigger(base) if band_px(Sticker(b.width_mm), px_per_mm) >= BAND_PX), None)

    if lowest <= top:
        bigger = bigger_at(max(s.height_mm, lowest))  # at a height that sees the board
        return (f"{said}: hang the camera at {lowest}-{top} mm (it sees the whole board from {lowest} mm), "
                f"{more}" + (f", or use {bigger} mm bases" if bigger else ""))
    w, h = s.resolution
    options = [more]
    half_lowest = math.ceil(lowest_height_mm(half_board(s)))
    if half_lowest <= top:
        options.append(f"hang two cameras at {half_lowest}-{top} mm over the board's two halves")
    bigger = bigger_at(lowest)
    if bigger:
        options.append(f"use {bigger} mm bases")
    there = band_px(sticker, f / (lowest - TYPICAL_BASE_HEIGHT_MM))
    return (f"{said}, and no height reads them with the whole board in view at {w}x{h}: the board needs the "
            f"camera at least {lowest} mm up, where they are {there:.1f} px; "
            + ", ".join(options[:-1]) + (", or " if len(options) > 1 else "") + options[-1])


def sticker_advice(s: Setup, base: Base, model: Standing, here: Reading, px: float) -> list[str]:
    """What to change, each sentence naming a set-up the same geometry says works."""
    f = s.camera.focal_px(s.resolution)
    sticker = Sticker(base.width_mm)
    out = [_band_advice(s, base, sticker, px)] if px < BAND_PX else []
    edge = 2 * RING_EDGE * sticker.radius_mm
    if model.kind == "foot" and model.width_mm >= edge:
        out.append(f"a model {model.width_mm:g} mm wide covers the locator ring's outer edge round its feet "
                   f"(the table finds the base's centre from it; it shows round a model up to {edge:.1f} mm "
                   "wide)")
    if here.board_share < 1.0:
        up = _everywhere_from(s, sticker, model)
        if up is not None:
            px_there = band_px(sticker, f / (up - TYPICAL_BASE_HEIGHT_MM))
            thin = "" if px_there >= BAND_PX else f" (bands {px_there:.1f} px there: more pixels too)"
            out.append(f"hang the camera at {up} mm: the model leans less over its sticker and it reads "
                       f"everywhere{thin}")
        half = half_board(s)
        if reading(half, sticker, model, s.height_mm).board_share >= 1.0:
            out.append("a second camera: each over one half of the board, the lean at the corners is less")
        what = "model" if model.kind == "foot" else "horse"
        for bigger in _bigger(base):
            ring = Sticker(bigger.width_mm)
            if reading(s, ring, model, s.height_mm).board_share >= 1.0:
                out.append(f"{bigger} mm bases: their ring is wide enough round a {model.width_mm:g} mm "
                           f"{what}")
                break
            up = _everywhere_from(s, ring, model)
            if up is not None and band_px(ring, f / (up - TYPICAL_BASE_HEIGHT_MM)) >= BAND_PX:
                out.append(f"{bigger} mm bases with the camera at {up} mm: their ring reads round a "
                           f"{model.width_mm:g} mm {what} all over the board from there")
                break
    return out
