"""Plane geometry of bases and terrain in board inches (shapely for polygons).

A base footprint is a shapely polygon: a circle or oval is approximated finely enough that edge
distances stay within 0.0005" of exact; circle-to-circle edge distance is computed exactly.
"""

from __future__ import annotations

import math
from functools import lru_cache

from shapely import affinity
from shapely.geometry import LineString, Point, Polygon

from table.scene import Base, Model, Terrain

MM_PER_INCH = 25.4
CIRCLE_SEGMENTS = 64  # per quarter circle: sagitta of a 60 mm base is under 0.0001"


def mm_to_inches(mm: float) -> float:
    return mm / MM_PER_INCH


def heading_vector(heading_deg: float) -> tuple[float, float]:
    """Unit vector of a heading (degrees clockwise from +x, y down, as on the board)."""
    rad = math.radians(heading_deg)
    return (math.cos(rad), math.sin(rad))


@lru_cache(maxsize=4096)
def _base_shape(base: Base, heading: float) -> Polygon:
    """The base's footprint centred on the origin, rotated to its heading."""
    width, depth = mm_to_inches(base.width_mm), mm_to_inches(base.depth_mm)
    if base.shape == "rect":
        shape = Polygon([(-depth / 2, -width / 2), (depth / 2, -width / 2),
                         (depth / 2, width / 2), (-depth / 2, width / 2)])
    else:
        shape = Point(0, 0).buffer(0.5, quad_segs=CIRCLE_SEGMENTS)
        shape = affinity.scale(shape, depth, width, origin=(0, 0))
    # depth runs along the facing (+x at heading 0); board y points down, so clockwise == +angle
    return affinity.rotate(shape, heading, origin=(0, 0)) if heading else shape


def footprint(model: Model) -> Polygon:
    """The board area a model's base covers."""
    x, y = model.position
    return affinity.translate(_base_shape(model.base, model.heading), x, y)


def base_radius(base: Base) -> float | None:
    """Radius in inches of a circular base, else None."""
    return mm_to_inches(base.width_mm) / 2 if base.shape == "circle" else None


def centre_distance(a: Model, b: Model) -> float:
    (ax, ay), (bx, by) = a.position, b.position
    return math.hypot(ax - bx, ay - by)


def edge_distance(a: Model, b: Model) -> float:
    """Nearest edge to nearest edge; 0 when the bases touch or overlap."""
    ra, rb = base_radius(a.base), base_radius(b.base)
    if ra is not None and rb is not None:
        return max(0.0, centre_distance(a, b) - ra - rb)
    return footprint(a).distance(footprint(b))


def terrain_polygon(piece: Terrain) -> Polygon:
    return Polygon(piece.polygon)


def segment(a: tuple[float, float], b: tuple[float, float]) -> LineString:
    return LineString([a, b])
