"""Footprints: the hexes a unit covers, from its size (long x wide) and the way its model faces.

The long axis runs along the hex direction nearest the model's heading; the wide axis along the next
direction (60 degrees on). The footprint is that parallelogram, centred on the model's hex (the extra
hex of an even length or width lies ahead / to the second axis' side). A model may instead list its
hexes outright with `"footprint": [[q, r], ...]` (a base that does not fit the text's shapes).
"""

from __future__ import annotations

import math
from typing import Any

from table.errors import QueryError
from table.hexgrid import DIRECTIONS, Hex, HexLayout
from table.rules.hex_skirmish.text import SIZES


def facing_direction(layout: HexLayout, heading: float) -> int:
    """Index into DIRECTIONS of the hex direction nearest a heading (ties to the lower index)."""
    ox, oy = layout.to_board((0, 0))
    best, best_gap = 0, math.inf
    for index, step in enumerate(DIRECTIONS):
        x, y = layout.to_board(step)
        angle = math.degrees(math.atan2(y - oy, x - ox))
        gap = round(abs((angle - heading + 180.0) % 360.0 - 180.0), 6)
        if gap < best_gap:
            best, best_gap = index, gap
    return best


def offsets(size: int, direction: int) -> tuple[Hex, ...]:
    """Footprint hexes relative to the model's hex for a size 1..10 facing DIRECTIONS[direction]."""
    length, width = SIZES[size]
    long_q, long_r = DIRECTIONS[direction % 6]
    wide_q, wide_r = DIRECTIONS[(direction + 1) % 6]
    out = []
    for i in range(-((length - 1) // 2), length - (length - 1) // 2):
        for j in range(-((width - 1) // 2), width - (width - 1) // 2):
            out.append((i * long_q + j * wide_q, i * long_r + j * wide_r))
    return tuple(out)


def listed(value: Any, where: str) -> tuple[Hex, ...]:
    """A model's explicit `footprint` list, validated."""
    if not isinstance(value, list) or not value:
        raise QueryError(f"{where}.footprint: expected a non-empty list of [q, r], got {value!r}")
    out = []
    for i, item in enumerate(value):
        if (not isinstance(item, list) or len(item) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in item)):
            raise QueryError(f"{where}.footprint[{i}]: expected [q, r] integers, got {item!r}")
        out.append((item[0], item[1]))
    return tuple(dict.fromkeys(out))
