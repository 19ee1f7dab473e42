"""Printable marker sheets (SVG in millimetres); the marker cells come from the controller."""

from __future__ import annotations

import re

from table.errors import ConfigError
from table.panel_api import PanelController
from web_ui.errors import ApiError

PAGE_W, PAGE_H, MARGIN, GAP = 210.0, 297.0, 10.0, 8.0   # A4, mm
MAX_IDS = 1000
IDS_PATTERN = r"^[0-9]{1,3}(-[0-9]{1,3})?(,[0-9]{1,3}(-[0-9]{1,3})?){0,49}$"


def parse_ids(text: str) -> list[int]:
    """`"1,2,5-8"` -> [1, 2, 5, 6, 7, 8] (ids 0-999, each once, in order)."""
    if not re.match(IDS_PATTERN, text):
        raise ApiError(400, "ids", f"expected ids 0-999 like 1,2,5-8, got {text[:40]!r}")
    ids: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        first, last = sorted((int(lo), int(hi or lo)))
        ids.update(range(first, last + 1))
    return sorted(ids)


def sheet_svg(controller: PanelController, ids: list[int], dictionary_name: str, size_mm: float) -> str:
    """One A4 page (more rows overflow onto a taller page) of markers `size_mm` wide, labelled."""
    try:
        count = controller.marker_count(dictionary_name)
    except ConfigError as exc:
        raise ApiError(409, "dictionary", str(exc)) from exc
    bad = [i for i in ids if i >= count]
    if bad:
        raise ApiError(404, "ids", f"{dictionary_name} has ids 0-{count - 1}; {bad[0]} is not one")
    pitch = size_mm + GAP
    per_row = max(1, int((PAGE_W - 2 * MARGIN + GAP) // pitch))
    rows = -(-len(ids) // per_row)
    height = max(PAGE_H, 2 * MARGIN + rows * (pitch + 4))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{PAGE_W}mm" height="{height}mm" '
             f'viewBox="0 0 {PAGE_W} {height}"><rect width="100%" height="100%" fill="#fff"/>']
    for index, marker_id in enumerate(ids):
        x0 = MARGIN + (index % per_row) * pitch
        y0 = MARGIN + (index // per_row) * (pitch + 4)
        cells = controller.marker_cells(dictionary_name, marker_id)
        cell = size_mm / len(cells)
        parts.append(f'<g transform="translate({x0:.2f} {y0:.2f})">')
        for r, row in enumerate(cells):
            for c, black in enumerate(row):
                if black:
                    parts.append(f'<rect x="{c * cell:.3f}" y="{r * cell:.3f}" width="{cell + 0.01:.3f}" '
                                 f'height="{cell + 0.01:.3f}"/>')
        parts.append(f'<text x="{size_mm / 2:.2f}" y="{size_mm + 4:.2f}" font-size="3" '
                     f'text-anchor="middle" font-family="sans-serif">{marker_id}</text></g>')
    parts.append("</svg>")
    return "".join(parts)
