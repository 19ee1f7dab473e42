"""Turn the rule system's answers into LED colours by board position.

A `Highlight` is an ordered list of regions; each LED takes the colour of the last region that
covers its position (later regions paint over earlier ones). A `Spot` always lights the single
LED nearest a point, so an edge strip can point at a model in the middle of the board; a `Line`
lights a chain of LEDs, one per row or column of a grid, so it never vanishes between LEDs.

Colours follow the Okabe-Ito palette, which readers with any common colour-vision deficiency can
tell apart; no meaning depends on red against green alone (docs/hardware.md, "Colours").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon

from table.hexgrid import HexLayout
from table.live.leds import LedLayout
from table.scene import HexGridSpec

RGB = tuple[int, int, int]
EPS = 1e-9          # inches: a distance this close to a boundary is on it

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
    "hot": VERMILLION, "standard": YELLOW, "cold": BLUE,
    "close_assault": VERMILLION, "short": ORANGE, "medium": YELLOW, "long": BLUE,
    "optimal": YELLOW, "maximum": BLUE,
    "out_of_range": GREY,
}
SELECTED: RGB = WHITE
SIGHT_CLEAR: RGB = BLUISH_GREEN
SIGHT_BLOCKED: RGB = REDDISH_PURPLE
COVER_LIGHT: RGB = ORANGE
COVER_HEAVY: RGB = SKY_BLUE
MOVE_RANGE: RGB = BLUISH_GREEN
PATH: RGB = YELLOW              # the cheapest path to the chosen hex, over the movement range
TEMPLATE: RGB = VERMILLION      # an attack template and the bases it touches
RULER: RGB = BLUE               # the shared ruler (a solid chain, like a clear sight line)
PLAYER_COLOURS: tuple[RGB, ...] = (ORANGE, SKY_BLUE, YELLOW, REDDISH_PURPLE)


@dataclass(frozen=True)
class Disc:
    """Points within `radius` of `centre` (the bombard template)."""

    centre: tuple[float, float]
    radius: float
    colour: RGB

    def covers(self, pts: np.ndarray) -> np.ndarray:
        return np.hypot(pts[:, 0] - self.centre[0], pts[:, 1] - self.centre[1]) <= self.radius + EPS


Shape = tuple[tuple[tuple[float, float], ...], float]   # (a point or a polygon's corners, radius)


@dataclass(frozen=True)
class Bands:
    """A unit's range bands: each point takes the band of its distance to the nearest of `shapes`
    (a model's centre, a round base as its centre and radius, or another base's outline, as the
    rule system measures), with the rule system's boundary rule: on a boundary the nearer band
    (`nearer`), else the farther one; distances rounded to `step` inches first when the rule
    system rounds them."""

    shapes: tuple[Shape, ...]
    bands: tuple[tuple[float, float, RGB], ...]       # (from, to, colour), nearest first
    nearer: bool = True
    step: float = 0.0

    def colours(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(covered mask, colour per point)."""
        d = np.full(len(pts), np.inf)
        for corners, radius in self.shapes:
            if len(corners) == 1:
                far = np.hypot(pts[:, 0] - corners[0][0], pts[:, 1] - corners[0][1]) - radius
            else:
                far = np.asarray(shapely.distance(Polygon(corners), shapely.points(pts)), dtype=float)
            d = np.minimum(d, np.maximum(far, 0.0))
        if self.step:
            d = np.round(d / self.step) * self.step
        covered = np.zeros(len(pts), dtype=bool)
        colour = np.zeros((len(pts), 3), dtype=np.uint8)
        for lo, hi, rgb in self.bands:
            inside = (d >= lo - EPS) & ((d <= hi + EPS) if self.nearer else (d < hi - EPS)) & ~covered
            colour[inside] = rgb
            covered |= inside
        return covered, colour


@dataclass(frozen=True)
class Line:
    """A sight line: the chain of LEDs that draws the segment a-b on the layout (`LedLayout.chain`).
    A `dashed` line lights every other LED of the chain and turns the ones between off, so a
    blocked line differs from a clear one by more than its colour."""

    a: tuple[float, float]
    b: tuple[float, float]
    colour: RGB
    dashed: bool = False

    def paint(self, layout: LedLayout, frame: np.ndarray) -> None:
        chain = layout.chain(self.a, self.b)
        frame[chain[1::2] if self.dashed else []] = OFF
        frame[chain[::2] if self.dashed else chain] = self.colour

    def gaps(self, layout: LedLayout) -> list[int]:
        """The LEDs a dashed line leaves off."""
        return layout.chain(self.a, self.b)[1::2] if self.dashed else []


@dataclass(frozen=True)
class Area:
    """A polygon on the board (terrain giving cover, a deployment zone, a template)."""

    polygon: tuple[tuple[float, float], ...]
    colour: RGB

    def covers(self, pts: np.ndarray) -> np.ndarray:
        return shapely.intersects_xy(Polygon(self.polygon), pts[:, 0], pts[:, 1])


@dataclass(frozen=True)
class Blocker:
    """Terrain blocking a sight line: the LEDs inside it but the gaps of the dashed `line`; when it
    holds none, the LED nearest `point` (where the line meets it) that neither marks a model
    (`avoid`) nor is a gap, so the blocker shows without hiding a model or the line's dashes."""

    polygon: tuple[tuple[float, float], ...]
    point: tuple[float, float]
    colour: RGB
    avoid: tuple[tuple[float, float], ...] = ()
    line: Line | None = None

    def paint(self, layout: LedLayout, frame: np.ndarray) -> None:
        gaps = self.line.gaps(layout) if self.line else []
        inside = Area(self.polygon, self.colour).covers(layout.array())
        inside[gaps] = False
        if inside.any():
            frame[inside] = self.colour
            return
        frame[layout.nearest(self.point, {layout.nearest(p) for p in self.avoid} | set(gaps))] = self.colour


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


Region = Disc | Bands | Line | Blocker | Area | Hexes | Spot


def render(layout: LedLayout, regions: list[Region] | tuple[Region, ...]) -> tuple[RGB, ...]:
    """The LED frame for the regions: one RGB per LED of the layout, later regions on top."""
    pts = layout.array()
    frame = np.zeros((len(pts), 3), dtype=np.uint8)
    for region in regions:
        if isinstance(region, Spot):
            frame[layout.nearest(region.point)] = region.colour
        elif isinstance(region, (Line, Blocker)):
            region.paint(layout, frame)
        elif isinstance(region, Bands):
            covered, colours = region.colours(pts)
            frame[covered] = colours[covered]
        else:
            frame[region.covers(pts)] = region.colour
    return tuple((r, g, b) for r, g, b in frame.tolist())
