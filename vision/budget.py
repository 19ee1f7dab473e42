"""A frame's detection work, bounded: a deadline, boxes cut to a bounded size, a rolling sweep.

The live loop must finish each frame in about the same time, whatever happens on the board. So the
pipeline spends at most a fixed share of the frame interval on detection: the work (changed
regions, then the recovery search, then a slice of the whole-frame sweep) is cut into pieces of
bounded size, done in order until the deadline passes, and what is left is carried to the next frame.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from vision.changes import Box


class Deadline:
    """Seconds of this process's CPU time from now (other processes on a shared machine do not
    count; on the Pi the table has the machine to itself, and CPU time is wall time); `left()`
    tells whether there is time for more (always for the first piece)."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.process_time):
        self.clock = clock
        self.until = clock() + seconds
        self.pieces = 0

    def left(self) -> bool:
        """True for the first piece, then while time remains; counts the pieces granted."""
        ok = self.pieces == 0 or self.clock() < self.until
        self.pieces += ok
        return ok

    def passed(self) -> bool:
        """Whether the time is up (grants nothing)."""
        return self.clock() >= self.until


def split_box(box: Box, most: int, overlap: int) -> list[Box]:
    """`box` cut into pieces of at most `most` pixels a side that overlap by `overlap` pixels (so a
    marker narrower than the overlap lies whole in one of them)."""
    x, y, w, h = box
    step = max(1, most - overlap)
    nx = max(1, math.ceil((w - overlap) / step))
    ny = max(1, math.ceil((h - overlap) / step))
    pw, ph = min(w, math.ceil((w - overlap) / nx) + overlap), min(h, math.ceil((h - overlap) / ny) + overlap)
    out = []
    for j in range(ny):
        for i in range(nx):
            px = x + min(i * (pw - overlap), w - pw)
            py = y + min(j * (ph - overlap), h - ph)
            out.append((px, py, pw, ph))
    return out


def inside(point: tuple[float, float], boxes: list[Box], inset: float) -> bool:
    """Whether `point` lies in one of `boxes` at least `inset` pixels from its edges."""
    px, py = point
    return any(x + inset <= px < x + w - inset and y + inset <= py < y + h - inset for x, y, w, h in boxes)


class Sweep:
    """The whole frame as a ring of overlapping tiles, visited one after another across frames; a
    marker's place is searched again at least once per turn, even if nothing changed there."""

    def __init__(self, shape: tuple[int, ...], tiles: int, overlap: int):
        h, w = shape[:2]
        cols = max(1, round(math.sqrt(tiles * w / h)))
        rows = max(1, math.ceil(tiles / cols))
        self.tiles = split_box((0, 0, w, h), max(math.ceil(w / cols), math.ceil(h / rows)) + overlap, overlap)
        self.next = 0

    def take(self) -> tuple[Box, bool]:
        """The next tile, and whether it starts a new turn of the sweep."""
        tile, first = self.tiles[self.next], self.next == 0
        self.next = (self.next + 1) % len(self.tiles)
        return tile, first
