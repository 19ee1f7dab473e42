"""LED layouts: where each LED of a strip or grid sits on the board, in inches.

A layout file (`firmware_cfg/leds/*.toml`) lists runs in wiring order: a `[[segment]]` is `count`
LEDs evenly spaced from `start` to `end` (both ends included); a `[[grid]]` is `columns` x `rows`
LEDs at `pitch` from `origin`, wired row by row, every other row reversed when `serpentine`.
LED index i is the i-th position over all runs in file order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from table.config import read_toml
from table.errors import ConfigError


@dataclass(frozen=True)
class LedLayout:
    """Board positions (inches) of every LED, in wiring order; `name` says which layout."""

    name: str
    positions: tuple[tuple[float, float], ...]

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

    def nearest(self, point: tuple[float, float]) -> int:
        """Index of the LED closest to a board point."""
        pts = self.array()
        return int(np.argmin(np.hypot(pts[:, 0] - point[0], pts[:, 1] - point[1])))


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
    points = []
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
    for i, run in enumerate(document.get("segment", [])):
        where = f"segment[{i}]"
        positions += segment(check.point(run, "start", where), check.point(run, "end", where),
                             check.count(run, "count", where))
    for i, run in enumerate(document.get("grid", [])):
        where = f"grid[{i}]"
        pitch = run.get("pitch")
        if isinstance(pitch, bool) or not isinstance(pitch, (int, float)) or pitch <= 0:
            raise check.fail(f"{where}.pitch", f"expected a number of inches above 0, got {pitch!r}")
        serpentine = run.get("serpentine", True)
        if not isinstance(serpentine, bool):
            raise check.fail(f"{where}.serpentine", f"expected true or false, got {serpentine!r}")
        positions += grid(check.point(run, "origin", where), float(pitch), check.count(run, "columns", where),
                          check.count(run, "rows", where), serpentine)
    if not positions:
        raise check.fail("segment", "a layout needs at least one [[segment]] or [[grid]]")
    return LedLayout(str(document.get("name", Path(source).stem)), tuple(positions))


def load_layout(path: str | Path) -> LedLayout:
    """Read a layout file (`firmware_cfg/leds/NAME.toml`)."""
    path = Path(path)
    document = read_toml(path, "LED layout file")
    return parse_layout(document, str(path))
