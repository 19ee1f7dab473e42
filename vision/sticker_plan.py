"""Which base sticker to print, and where on the board it reads under a model of a given height
(`smarttable plan-camera --model-height-mm H --base-mm B`).

Geometry, checked against the renders (tests/vision/test_sticker_plan.py, bench/vision/bench_stickers.py):
the model is an upright cylinder as wide as its body (the renderer's typical body for the base unless
given) from the base's top to its height. A point of the sticker is hidden when the camera's ray from
it passes through the cylinder; the farther the base from under the camera, the more the model leans
outward over the sticker, up to the arc the body's width hides across the ring whatever its height.
A cell of the code counts as hidden where the locator ring's outer edge beside it, or either code
band, is hidden; arms and weapons hide ARM_CELLS more. The code decodes with a margin with up to
`ringcode.DISTANCE - sticker_read.MIN_MARGIN` cells hidden (any other id or turn then still differs
in MIN_MARGIN of the cells that show); the reader needs the code's bands BAND_PX pixels wide.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from table.errors import ConfigError
from vision import ringcode
from vision.miniature import SIZES
from vision.planner import MM_PER_INCH, Setup
from vision.sticker import BANDS, RING, SMALLEST_BASE_MM, TYPICAL_BASE_HEIGHT_MM, Sticker
from vision.sticker_read import MIN_MARGIN

MAX_HIDDEN = ringcode.DISTANCE - int(MIN_MARGIN)  # cells
ARM_CELLS = 2  # an arm or weapon over the ring (the renderer's models: one or two, 1-2 cells each)
# the code bands' width in pixels: read reliably from BAND_PX, marginal from BAND_MARGINAL_PX (the outside
# render, 25 mm bases under 30 mm models, blur 0.75 px, the camera raised: 3.6 px (1.65 m) and 2.5 px
# (2.4 m) 120 of 120, 2.3 px 118 of 120, 2.1 px 75 of 80, 1.8 px 73 of 80)
BAND_PX = 2.5
BAND_MARGINAL_PX = 2.0
ANGLES = 1024
RADII = (RING[1], (BANDS[0][0] + BANDS[0][1]) / 2, (BANDS[1][0] + BANDS[1][1]) / 2)
ROUND_BASES = (25.0, 28.5, 32.0, 40.0, 50.0, 60.0)


def typical(base_mm: float) -> tuple[float, float]:
    """(height, body width) in mm of a typical model on a round base (vision.miniature.SIZES; under
    the smallest size there, in proportion to the base)."""
    sizes = np.array(SIZES)
    shrink = min(1.0, base_mm / sizes[0, 0])
    return (shrink * float(np.interp(base_mm, sizes[:, 0], sizes[:, 1])),
            shrink * 2 * float(np.interp(base_mm, sizes[:, 0], sizes[:, 2])))


def hidden_cells(sticker: Sticker, height_mm: float, width_mm: float, lean_mm: float, camera_mm: float
                 ) -> int:
    """Code cells hidden by a model `height_mm` tall and `width_mm` wide standing on the sticker, its base
    `lean_mm` from under a camera `camera_mm` above the sticker; arms and weapons included."""
    r = width_mm / 2
    phi = np.linspace(0, 2 * math.pi, ANGLES, endpoint=False)
    cam = np.array([-lean_mm, 0.0])  # the camera's foot, seen from the base
    hidden = np.zeros(ANGLES, bool)
    for share in RADII:
        rho = share * sticker.radius_mm
        p = np.column_stack([rho * np.cos(phi), rho * np.sin(phi)])
        q = p + (height_mm / camera_mm) * (cam - p)  # where the ray is at the model's top
        seg = q - p
        t = np.clip(-(p * seg).sum(axis=1) / np.maximum((seg * seg).sum(axis=1), 1e-12), 0, 1)
        nearest = p + t[:, None] * seg
        hidden |= np.hypot(nearest[:, 0], nearest[:, 1]) <= r
    return min(ringcode.CELLS, math.ceil(hidden.mean() * ringcode.CELLS - 1e-9) + ARM_CELLS)


def band_px(sticker: Sticker, px_per_mm: float) -> float:
    return (BANDS[0][1] - BANDS[0][0]) * sticker.radius_mm * px_per_mm


def _reading(s: Setup, sticker: Sticker, height_mm: float, width_mm: float, camera_mm: float
             ) -> tuple[float, float, int, int]:
    """(share of the board where the code shows, the distance from under the camera it reads to
    (inches), hidden cells under the camera, at the board's corner) with the camera `camera_mm` up."""
    up = camera_mm - TYPICAL_BASE_HEIGHT_MM
    w, h = (v * MM_PER_INCH for v in s.board_in)
    corner = math.hypot(w, h) / 2
    steps = np.linspace(0, corner, 49)
    ok = np.array([hidden_cells(sticker, height_mm, width_mm, d, up) <= MAX_HIDDEN for d in steps])
    reach = corner if ok.all() else float(steps[np.argmin(ok)] - steps[1]) if ok[0] else 0.0
    xs, ys = np.meshgrid(np.linspace(-w / 2, w / 2, 97), np.linspace(-h / 2, h / 2, 97))
    share = float(np.mean(np.hypot(xs, ys) <= reach + 1e-6)) if ok[0] else 0.0
    return (share, reach / MM_PER_INCH, hidden_cells(sticker, height_mm, width_mm, 0.0, up),
            hidden_cells(sticker, height_mm, width_mm, corner, up))


def verdict(share: float, px: float) -> str:
    if share >= 1.0 and px >= BAND_PX:
        return "reliable"
    return "marginal" if share > 0 and px >= BAND_MARGINAL_PX else "unreliable"


def sticker_plan(s: Setup, base_mm: float, height_mm: float | None, width_mm: float | None) -> dict[str, Any]:
    """The sticker to print for `base_mm` bases and how much of the board reads it under models of
    `height_mm` (JSON-able; None: the typical model for the base)."""
    if not base_mm >= SMALLEST_BASE_MM:
        raise ConfigError(f"--base-mm {base_mm:g}: ring stickers need a base (or a hull's roof) at least "
                          f"{SMALLEST_BASE_MM:g} mm across; a smaller base takes a printed square marker "
                          "beside the model (--marker-mm)")
    sticker = Sticker(base_mm)
    tall, wide = typical(base_mm)
    height_mm = tall if height_mm is None else height_mm
    width_mm = wide if width_mm is None else width_mm
    f = s.camera.focal_px(s.resolution)
    px_per_mm = f / (s.height_mm - TYPICAL_BASE_HEIGHT_MM)
    px = band_px(sticker, px_per_mm)
    share, reach, centre, corner = _reading(s, sticker, height_mm, width_mm, s.height_mm)
    reading = verdict(share, px)
    return {
        "sticker": {"kind": "ring", "base_mm": base_mm, "diameter_mm": sticker.diameter_mm,
                    "print": f"smarttable markers stickers.pdf --ids 10-49 --base-mm {base_mm:g}"},
        "model_height_mm": height_mm, "model_width_mm": width_mm,
        "sticker_band_px": round(px, 2),
        "hidden_cells": {"under_camera": centre, "at_corner": corner, "most": MAX_HIDDEN},
        "sticker_board_share": round(share, 3), "sticker_reads_within_in": round(reach, 1),
        "sticker_reading": reading,
        "sticker_advice": [] if reading == "reliable" else
        sticker_advice(s, sticker, height_mm, width_mm, share, px),
    }


def sticker_advice(s: Setup, sticker: Sticker, height_mm: float, width_mm: float, share: float, px: float
                   ) -> list[str]:
    """What to change, each sentence naming a set-up the same geometry says works."""
    f = s.camera.focal_px(s.resolution)
    out = []
    if px < BAND_PX:
        px_per_mm = f / (s.height_mm - TYPICAL_BASE_HEIGHT_MM)
        bigger = next((b for b in ROUND_BASES if b > sticker.base_mm and
                       band_px(Sticker(b), px_per_mm) >= BAND_PX), None)
        top = math.floor(f * band_px(sticker, 1.0) / BAND_PX + TYPICAL_BASE_HEIGHT_MM)
        out.append(f"the code's bands are {px:.1f} px wide at {s.height_mm:g} mm (read reliably from "
                   f"{BAND_PX:g} px): lower the camera to {top} mm or less if it still sees the board, "
                   "capture at a higher resolution" + (f", or use {bigger:g} mm bases" if bigger else ""))
    middle = 2 * RING[0] * sticker.radius_mm
    if width_mm >= middle:
        out.append(f"a model {width_mm:g} mm wide covers the locator ring round its feet (they stand in the "
                   f"sticker's white middle, {middle:.1f} mm across)")
    if share < 1.0:
        for up in range(int(s.height_mm) + 50, int(s.height_mm) * 3, 50):
            if _reading(s, sticker, height_mm, width_mm, up)[0] >= 1.0:
                px_there = band_px(sticker, f / (up - TYPICAL_BASE_HEIGHT_MM))
                thin = "" if px_there >= BAND_PX else f" (bands {px_there:.1f} px there: more pixels too)"
                out.append(f"hang the camera at {up} mm: the model leans less over its sticker and it reads "
                           f"everywhere{thin}")
                break
        half = Setup(s.camera, s.height_mm, (s.board_in[0] / 2, s.board_in[1]), s.marker_mm, s.resolution)
        if _reading(half, sticker, height_mm, width_mm, s.height_mm)[0] >= 1.0:
            out.append("a second camera: each over one half of the board, the lean at the corners is less")
        bigger = next((b for b in ROUND_BASES if b > sticker.base_mm and
                       _reading(s, Sticker(b), height_mm, width_mm, s.height_mm)[0] >= 1.0), None)
        if bigger:
            out.append(f"{bigger:g} mm bases: their ring is wide enough round a {width_mm:g} mm model")
    return out
