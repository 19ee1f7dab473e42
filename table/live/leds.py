"""LED layouts: where each LED of a strip or grid sits on the board, in inches.

A layout file (`firmware_cfg/leds/*.toml`) lists runs in wiring order: a `[[segment]]` is `count`
LEDs evenly spaced from `start` to `end` (both ends included); a `[[grid]]` is `columns` x `rows`
LEDs at `pitch` from `origin`, wired row by row, every other row reversed when `serpentine`.
LED index i is the i-th position over all runs in file order.

A layout keeps its runs so that a line can be drawn as a chain of LEDs (`LedLayout.chain`): on a
grid, the LED nearest the segment in each column (or row) it crosses, as Bresenham draws a line; on
a strip, the LEDs within half a step of the segment, where it crosses or runs along the strip.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString

from table.cached import cached_property
from table.config import read_toml
from table.errors import ConfigError

Point = tuple[float, float]


@dataclass(frozen=True)
class SegmentRun:
    """`count` LEDs evenly spaced from `start` to `end`, the first of them LED `first`."""

    first: int
    start: Point
    end: Point
    count: int

    def chain(self, a: Point, b: Point) -> list[int]:
        """LEDs of the strip within half a step of the segment a-b, in strip order."""
        pts = np.asarray(segment(self.start, self.end, self.count), dtype=float)
        step = math.dist(self.start, self.end) / max(self.count - 1, 1) or 1.0
        near = shapely.dwithin(LineString([a, b]), shapely.points(pts), step / 2 + 1e-9)
        return [self.first + int(i) for i in np.flatnonzero(near)]


@dataclass(frozen=True)
class GridRun:
    """`columns` x `rows` LEDs at `pitch` from `origin`, wired row by row (serpentine or not)."""

    first: int
    origin: Point
    pitch: float
    columns: int
    rows: int
    serpentine: bool

    def index(self, column: int, row: int) -> int:
        reverse = self.serpentine and row % 2
        return self.first + row * self.columns + (self.columns - 1 - column if reverse else column)

    def chain(self, a: Point, b: Point) -> list[int]:
        """The LED nearest the segment a-b in each column it crosses (each row, for a steep line),
        from the LED nearest a to the LED nearest b; points off the grid fall to its nearest edge,
        so the chain stays connected."""
        (u0, v0), (u1, v1) = (((p[0] - self.origin[0]) / self.pitch, (p[1] - self.origin[1]) / self.pitch)
                              for p in (a, b))
        steep = abs(v1 - v0) > abs(u1 - u0)
        if steep:      # walk the rows instead of the columns
            u0, v0, u1, v1 = v0, u0, v1, u1
        start, stop = round(u0), round(u1)
        step = 1 if stop >= start else -1
        cells: list[int] = []
        ends = {start: round(v0), stop: round(v1)}      # the LEDs nearest a and b
        for major in range(start, stop + step, step):
            t = 0.0 if u1 == u0 else min(max((major - u0) / (u1 - u0), 0.0), 1.0)   # not past the ends
            minor = v0 + (v1 - v0) * t
            minors = [round(minor)]
            if major in ends and ends[major] != minors[0]:       # one step across, to the end LED
                minors = [ends[major], minors[0]] if major == start else [minors[0], ends[major]]
            for m in minors:
                column, row = (m, major) if steep else (major, m)
                led = self.index(min(max(column, 0), self.columns - 1), min(max(row, 0), self.rows - 1))
                if not cells or cells[-1] != led:
                    cells.append(led)
        return cells


Run = SegmentRun | GridRun


@dataclass(frozen=True)
class LedLayout:
    """Board positions (inches) of every LED, in wiring order; `name` says which layout. `runs`
    says how the LEDs are strung (a layout given only as positions draws lines as points)."""

    name: str
    positions: tuple[tuple[float, float], ...]
    runs: tuple[Run, ...] = ()

    def __len__(self) -> int:
        return len(self.positions)

    @cached_property
    def _array(self) -> np.ndarray:
        array = np.asarray(self.positions, dtype=float).reshape(-1, 2)
        array.flags.writeable = False
        return array

    def array(self) -> np.ndarray:
        """Positions as a read-only (N, 2) float array."""
        return self._array

    def nearest(self, point: tuple[float, float], skip: Collection[int] = ()) -> int:
        """Index of the LED closest to a board point (leaving out the LEDs in `skip`, unless that
        leaves none)."""
        pts = self.array()
        d = np.hypot(pts[:, 0] - point[0], pts[:, 1] - point[1])
        if skip and len(set(skip)) < len(d):
            d[list(skip)] = np.inf
        return int(np.argmin(d))

    def chain(self, a: Point, b: Point) -> list[int]:
        """The LEDs that draw the segment a-b, run by run; without runs, the LEDs nearest its ends."""
        if not self.runs:
            return list(dict.fromkeys((self.nearest(a), self.nearest(b))))
        return [led for run in self.runs for led in run.chain(a, b)]


def segment(start: tuple[float, float], end: tuple[float, float], count: int) -> list[tuple[float, float]]:
    """`count` points evenly spaced from start to end, both included."""
    if count == 1:
        return [start]
    xs = np.linspace(start[0], end[0], count)
    ys = np.linspace(start[1], end[1], count)
    return [(round(float(x), 4), round(float(y), 4)) for x, y in zip(xs, ys, strict=True)]


def grid(origin: tuple[float, float], pitch: float, columns: int, rows: int,
         serpentine: bool) -> list[tuple[float, float]]:
    """A grid of LEDs wired row by row (every other row reversed when serpentine)."""
    points: list[tuple[float, float]] = []
    for row in range(rows):
        cols = range(columns - 1, -1, -1) if serpentine and row % 2 else range(columns)
        points.extend((origin[0] + c * pitch, origin[1] + row * pitch) for c in cols)
    return points


class _Checker:
    def __init__(self, source: str):
        self.source = source

    def fail(self, key: str, message: str) -> ConfigError:
        return ConfigError(f"{self.source}: {key}: {message}")

    def point(self, table: dict[str, Any], key: str, where: str) -> tuple[float, float]:
        value = table.get(key)
        if not (isinstance(value, list) and len(value) == 2
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
            raise self.fail(f"{where}.{key}", f"expected [x, y] in inches, got {value!r}")
        return (float(value[0]), float(value[1]))

    def count(self, table: dict[str, Any], key: str, where: str) -> int:
        value = table.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.fail(f"{where}.{key}", f"expected a whole number of at least 1, got {value!r}")
        return value


def parse_layout(document: dict[str, Any], source: str) -> LedLayout:
    """Build a layout from a parsed TOML document; errors name the file and the key."""
    check = _Checker(source)
    unknown = set(document) - {"name", "segment", "grid"}
    if unknown:
        raise check.fail(sorted(unknown)[0], "unknown key (known: name, segment, grid)")
    positions: list[tuple[float, float]] = []
    runs: list[Run] = []
    for i, run in enumerate(document.get("segment", [])):
        where = f"segment[{i}]"
        strip = SegmentRun(len(positions), check.point(run, "start", where), check.point(run, "end", where),
                           check.count(run, "count", where))
        positions += segment(strip.start, strip.end, strip.count)
        runs.append(strip)
    for i, run in enumerate(document.get("grid", [])):
        where = f"grid[{i}]"
        pitch = run.get("pitch")
        if isinstance(pitch, bool) or not isinstance(pitch, (int, float)) or pitch <= 0:
            raise check.fail(f"{where}.pitch", f"expected a number of inches above 0, got {pitch!r}")
        serpentine = run.get("serpentine", True)
        if not isinstance(serpentine, bool):
            raise check.fail(f"{where}.serpentine", f"expected true or false, got {serpentine!r}")
        cells = GridRun(len(positions), check.point(run, "origin", where), float(pitch),
                        check.count(run, "columns", where), check.count(run, "rows", where), serpentine)
        positions += grid(cells.origin, cells.pitch, cells.columns, cells.rows, cells.serpentine)
        runs.append(cells)
    if not positions:
        raise check.fail("segment", "a layout needs at least one [[segment]] or [[grid]]")
    return LedLayout(str(document.get("name", Path(source).stem)), tuple(positions), tuple(runs))


def load_layout(path: str | Path) -> LedLayout:
    """Read a layout file (`firmware_cfg/leds/NAME.toml`)."""
    path = Path(path)
    document = read_toml(path, "LED layout file")
    return parse_layout(document, str(path))
