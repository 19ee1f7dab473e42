"""Printing ring stickers (vision/sticker.py): sheets per base size with cut circles, and one PNG tile a
sticker for outside checks (`smarttable markers DIR --tiles`, the contract).

A sheet's sticker is its true size with a grey cut circle just outside it, the facing tick on it, and
its id and base size under it; the page's header carries the 100 mm scale bar (vision/sheets.py).
A tile is square, its centre the base's centre, its top edge the way the model faces, transparent
outside the sticker; a corner marker's tile is the printed marker and its white margin.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from table.errors import ConfigError
from vision.detect import MM_PER_INCH, get_dictionary
from vision.sheets import CUT_GREY, QUIET_CELLS, SheetSpec, check_cells, mm_px, paged
from vision.sticker import Sticker, sticker_image

CUT_GAP_MM = 0.3  # the cut circle runs this far outside the sticker


def sticker_tile(marker_id: int, sticker: Sticker, dpi: int, font: Any) -> Image.Image:
    """A sticker on white paper at its true size, its cut circle and a label (id, base) under it."""
    side = mm_px(sticker.diameter_mm, dpi)
    gap = mm_px(CUT_GAP_MM, dpi) + 1
    label_h = max(12, mm_px(3.5, dpi))
    disc = sticker_image(marker_id, sticker, side)
    alpha = disc[..., 3:4].astype(np.float32) / 255
    grey = (disc[..., 0:1] * alpha + 255 * (1 - alpha)).astype(np.uint8)[..., 0]
    tile = Image.new("L", (side + 2 * gap, side + 2 * gap + label_h), 255)
    tile.paste(Image.fromarray(grey), (gap, gap))
    draw = ImageDraw.Draw(tile)
    draw.ellipse([1, 1, side + 2 * gap - 2, side + 2 * gap - 2], outline=CUT_GREY, width=1)
    draw.text((gap, side + 2 * gap), f"{marker_id} ({sticker.base_mm:g} mm base)", fill=0, font=font)
    return tile


def sticker_pages(stickers: Mapping[int, float], spec: SheetSpec) -> list[Image.Image]:
    """Pages of ring stickers, one run of pages per base size."""
    font = ImageFont.load_default(size=max(10, mm_px(2.8, spec.dpi)))
    pages: list[Image.Image] = []
    for base in sorted(set(stickers.values())):
        sticker = Sticker(base)
        ids = sorted(i for i, b in stickers.items() if b == base)
        title = (f"Ring stickers for {base:g} mm bases: {sticker.diameter_mm:g} mm across; cut on the grey "
                 "circle, the tick points where the model faces")
        pages += paged([sticker_tile(i, sticker, spec.dpi, font) for i in ids], spec, title, boxes=False)
    return pages


def square_tile(marker_id: int, dictionary_name: str, size_mm: float, dpi: int) -> tuple[np.ndarray, float]:
    """(BGRA image, side in mm) of a square marker as printed (a corner marker, a model's printed
    marker): the black square and its white margin."""
    dictionary = get_dictionary(dictionary_name)
    check_cells(dictionary, size_mm, dpi)
    cells = dictionary.markerSize + 2
    quiet = mm_px(size_mm / cells * QUIET_CELLS, dpi)
    side = mm_px(size_mm, dpi)
    img = cv2.aruco.generateImageMarker(dictionary, marker_id, side, borderBits=1)
    img = cv2.copyMakeBorder(img, quiet, quiet, quiet, quiet, cv2.BORDER_CONSTANT, value=255)
    bgra = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    return bgra, img.shape[0] / dpi * MM_PER_INCH


def write_tiles(folder: str | Path, stickers: Mapping[int, float], squares: tuple[int, ...],
                corner_ids: tuple[int, ...], dictionary: str, corner_size_mm: float, size_mm: float,
                dpi: int) -> dict[str, Any]:
    """Write one PNG a ring sticker, printed model marker (`squares`, `size_mm`) and corner marker, and
    `tiles.json`: {"tiles": {id: {"file", "side_mm"}}, "markers_toml": the [markers] keys that read them
    (no [markers.corners])}; returns that document."""
    out = Path(folder)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{out}: --tiles writes a folder of images, and this is a file")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"{out}: cannot make the folder: {exc.strerror}") from None
    tiles: dict[str, dict[str, Any]] = {}
    for i, side, kind in [(i, corner_size_mm, "corner") for i in corner_ids] + [(i, size_mm, "marker")
                                                                                for i in squares]:
        image, side_mm = square_tile(i, dictionary, side, dpi)
        name = f"{kind}-{i}.png"
        _write_png(out / name, image)
        tiles[str(i)] = {"file": name, "side_mm": round(side_mm, 4)}
    for i, base in sorted(stickers.items()):
        sticker = Sticker(base)
        side_px = mm_px(sticker.diameter_mm, dpi)
        name = f"sticker-{i}.png"
        _write_png(out / name, sticker_image(i, sticker, side_px))
        tiles[str(i)] = {"file": name, "side_mm": round(side_px / dpi * MM_PER_INCH, 4)}
    keys = markers_toml(stickers, dictionary, corner_size_mm, size_mm if squares else None)
    document = {"tiles": tiles, "markers_toml": keys}
    (out / "tiles.json").write_text(json.dumps(document, indent=1) + "\n")
    return document


def _write_png(path: Path, image: np.ndarray) -> None:
    if not cv2.imwrite(str(path), image):
        raise ConfigError(f"{path}: cannot write the image")


def markers_toml(stickers: Mapping[int, float], dictionary: str, corner_size_mm: float,
                 model_size_mm: float | None = None) -> str:
    """The `[markers]` keys a table needs to read these stickers and markers (their places on a board,
    `[markers.corners]`, and how high the bases are, are the table's own)."""
    lines = [f'dictionary = "{dictionary}"', f"corner_size_mm = {corner_size_mm:g}"]
    if model_size_mm is not None:
        lines.append(f"model_size_mm = {model_size_mm:g}")
    by_base: dict[float, list[int]] = {}
    for i, base in sorted(stickers.items()):
        by_base.setdefault(base, []).append(i)
    if by_base:
        ranges = ", ".join(f'"{base:g}" = "{_ranges(ids)}"' for base, ids in sorted(by_base.items()))
        lines.append(f"stickers = {{ {ranges} }}")
    return "\n".join(lines) + "\n"


def _ranges(ids: list[int]) -> str:
    """[10, 11, 12, 20] -> "10-12,20"."""
    runs: list[list[int]] = []
    for i in ids:
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ",".join(f"{a}-{b}" if b > a else f"{a}" for a, b in runs)
