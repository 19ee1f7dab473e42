"""Turn the rule system's answers into LED colours by board position.

A `Highlight` is an ordered list of regions; each LED takes the colour of the last region that
covers its position (later regions paint over earlier ones). A `Spot` always lights the single
LED nearest a point, so an edge strip can point at a model in the middle of the board.

Colours follow the Okabe-Ito palette, which readers with any common colour-vision deficiency can
tell apart; no meaning depends on red against green alone (docs/hardware.md, "Colours").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from table.hexgrid import HexLayout
from table.live.leds import LedLayout
from table.scene import HexGridSpec

RGB = tuple[int, int, int]

OFF: RGB = (0, 0, 0)
# Okabe & Ito (2008), "Color Universal Design"
ORANGE: RGB = (230, 159, 0)
SKY_BLUE: RGB = (86, 180, 233)
BLUISH_GREEN: RGB = (0, 158, 115)
YELLOW: RGB = (240, 228, 66)
BLUE: RGB = (0, 114, 178)
VERMILLION: RGB = (213, 94, 0)
REDDISH_PURPLE: RGB = (204, 121, 167)
WHITE: RGB = (255, 255, 255)
GREY: RGB = (40, 40, 40)

# What each colour means on the table; one table for every rule system's band names.
BAND_COLOURS: dict[str, RGB] = {
    "hot": VERMILLION, "standard": YELLOW, "cold": BLUE,                       # Synaptik
    "close_assault": VERMILLION, "short": ORANGE, "medium": YELLOW, "long": BLUE,   # Age of Tyrants
    "optimal": YELLOW, "maximum": BLUE,                                        # hex skirmish
    "out_of_range": GREY,
}
SELECTED: RGB = WHITE
SIGHT_CLEAR: RGB = BLUISH_GREEN
SIGHT_BLOCKED: RGB = REDDISH_PURPLE
COVER_LIGHT: RGB = ORANGE
COVER_HEAVY: RGB = SKY_BLUE
MOVE_RANGE: RGB = BLUISH_GREEN
PATH: RGB = YELLOW              # the cheapest path to the chosen hex, over the movement range
TEMPLATE: RGB = VERMILLION      # the bombard template and the bases it touches
PLAYER_COLOURS: tuple[RGB, ...] = (ORANGE, SKY_BLUE, YELLOW, REDDISH_PURPLE)


@dataclass(frozen=True)
class Band:
    """Points whose distance to the nearest of `centres` lies in [inner, outer): a range band."""

    centres: tuple[tuple[float, float], ...]
    inner: float
    outer: float
    colour: RGB

    def covers(self, pts: np.ndarray) -> np.ndarray:
        centres = np.asarray(self.centres, dtype=float).reshape(-1, 2)
        if not len(centres):
            return np.zeros(len(pts), dtype=bool)
        d = np.hypot(pts[:, None, 0] - centres[None, :, 0], pts[:, None, 1] - centres[None, :, 1]).min(axis=1)
        return (d >= self.inner) & (d < self.outer)


@dataclass(frozen=True)
class Line:
    """A sight line: points within `width` inches of the segment a-b."""

    a: tuple[float, float]
    b: tuple[float, float]
    colour: RGB
    width: float = 0.75

    def covers(self, pts: np.ndarray) -> np.ndarray:
        return shapely.dwithin(LineString([self.a, self.b]), shapely.points(pts), self.width)


@dataclass(frozen=True)
class Area:
    """A polygon on the board (terrain giving cover, a deployment zone, a template)."""

    polygon: tuple[tuple[float, float], ...]
    colour: RGB

    def covers(self, pts: np.ndarray) -> np.ndarray:
        return shapely.intersects_xy(Polygon(self.polygon), pts[:, 0], pts[:, 1])


@dataclass(frozen=True)
class Hexes:
    """Hexes of a grid (a movement range, a path): LEDs whose position falls in one of them."""

    grid: HexGridSpec
    cells: frozenset[tuple[int, int]]
    colour: RGB

    def covers(self, pts: np.ndarray) -> np.ndarray:
        layout = HexLayout.from_spec(self.grid)
        return np.array([layout.to_hex(float(x), float(y)) in self.cells for x, y in pts], dtype=bool)


@dataclass(frozen=True)
class Spot:
    """The one LED nearest a point (a model, a target), whatever the distance."""

    point: tuple[float, float]
    colour: RGB


Region = Band | Line | Area | Hexes | Spot


def render(layout: LedLayout, regions: list[Region] | tuple[Region, ...]) -> tuple[RGB, ...]:
    """The LED frame for the regions: one RGB per LED of the layout, later regions on top."""
    pts = layout.array()
    frame = np.zeros((len(pts), 3), dtype=np.uint8)
    for region in regions:
        if isinstance(region, Spot):
            frame[layout.nearest(region.point)] = region.colour
        else:
            frame[region.covers(pts)] = region.colour
    return tuple(map(tuple, frame.tolist()))
