"""Plane geometry of bases and terrain in board inches (shapely for polygons, numpy for batches).

A base footprint is a shapely polygon: a circle or oval is an inscribed 256-gon, within 0.0001" of the
true outline for bases up to 60 mm (0.0005" up to 330 mm); circle-to-circle edge distance is exact.
A segment *crosses* a polygon when it comes more than `GRAZE` inside it: a line that grazes a corner
or runs along an edge does not cross (see `core`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import TypeVar, cast

import numpy as np
import numpy.typing as npt
import shapely
from shapely import affinity
from shapely.geometry import LineString, MultiPoint, MultiPolygon, Point, Polygon
from shapely.geometry.base import BaseGeometry

from table.scene import Base, Model, Terrain

MM_PER_INCH = 25.4
CIRCLE_SEGMENTS = 64  # per quarter circle: sagitta of a 60 mm base is under 0.0001"
GRAZE = 1e-4  # inches a segment may enter a polygon and still not cross it

Point2 = tuple[float, float]
Coords = npt.NDArray[np.float64]  # board points, (N, 2) unless said otherwise
Shape = TypeVar("Shape", bound=BaseGeometry)


def _at(position: Point2) -> Coords:
    return np.asarray(position, dtype=np.float64)


def polygon_of(vertices: Coords) -> Polygon:
    """One polygon from (N, 2) vertices (shapely.polygons: its stubs cannot tell one result from many)."""
    return cast(Polygon, shapely.polygons(vertices))


def polygons_of(vertices: Coords) -> npt.NDArray[np.object_]:
    """Polygons from (M, N, 2) vertices, one per row (shapely.polygons)."""
    return cast(npt.NDArray[np.object_], shapely.polygons(vertices))


def points_of(coords: Coords) -> npt.NDArray[np.object_]:
    """Points from (M, 2) coordinates (shapely.points)."""
    return cast(npt.NDArray[np.object_], shapely.points(coords))


def lines_of(segments: Coords) -> npt.NDArray[np.object_]:
    """Line strings from (M, N, 2) points, one per row (shapely.linestrings)."""
    return cast(npt.NDArray[np.object_], shapely.linestrings(segments))


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


@lru_cache(maxsize=4096)
def _base_vertices(base: Base, heading: float) -> Coords:
    coords = np.asarray(_base_shape(base, heading).exterior.coords)[:-1]
    coords.setflags(write=False)
    return coords


@lru_cache(maxsize=4096)
def _outer_vertices(base: Base, heading: float, sides: int) -> Coords:
    if base.shape == "rect":
        coords = np.asarray(_base_shape(base, heading).exterior.coords)[:-1]
    else:  # the circumscribed polygon of the circle, stretched to the oval: it holds the whole base
        t = np.arange(sides) * 2 * math.pi / sides
        grow = 1 / math.cos(math.pi / sides) + 1e-9
        depth, width = mm_to_inches(base.depth_mm) / 2 * grow, mm_to_inches(base.width_mm) / 2 * grow
        hx, hy = heading_vector(heading)
        x, y = depth * np.cos(t), width * np.sin(t)
        coords = np.stack([x * hx - y * hy, x * hy + y * hx], axis=1)
    coords.setflags(write=False)
    return coords


def outer_outline(model: Model, sides: int = 16) -> Coords:
    """A coarse convex outline (N, 2) that holds the whole base: for quick, safe-side tests."""
    return _outer_vertices(model.base, model.heading, sides) + _at(model.position)


@lru_cache(maxsize=4096)
def _outer_planes(base: Base, heading: float, sides: int) -> tuple[Coords, Coords, float]:
    vertices = _outer_vertices(base, heading, sides)
    normals, offsets = clip_planes(vertices)
    normals.setflags(write=False)
    offsets.setflags(write=False)
    return normals, offsets, float(np.hypot(vertices[:, 0], vertices[:, 1]).max())


def outer_planes(model: Model, sides: int = 16) -> tuple[Coords, Coords]:
    """`clip_planes` of `outer_outline` (worked out once per base and heading)."""
    normals, offsets, _ = _outer_planes(model.base, model.heading, sides)
    return normals, offsets + normals @ _at(model.position)


def outer_reach(model: Model, sides: int = 16) -> float:
    """Radius of a disc round the model's centre that holds `outer_outline` (so the whole base)."""
    return _outer_planes(model.base, model.heading, sides)[2]


@lru_cache(maxsize=4096)
def _base_planes(base: Base, heading: float) -> tuple[Coords, Coords]:
    normals, offsets = clip_planes(_base_vertices(base, heading))
    normals.setflags(write=False)
    offsets.setflags(write=False)
    return normals, offsets


def footprint_planes(model: Model) -> tuple[Coords, Coords]:
    """`clip_planes` of the model's footprint (worked out once per base and heading)."""
    normals, offsets = _base_planes(model.base, model.heading)
    return normals, offsets + normals @ _at(model.position)


def footprint(model: Model) -> Polygon:
    """The board area a model's base covers."""
    return polygon_of(footprint_vertices(model))


@lru_cache(maxsize=4096)
def _core_vertices(base: Base, heading: float) -> Coords:
    coords = np.asarray(core(_base_shape(base, heading)).exterior.coords)[:-1]
    coords.setflags(write=False)
    return coords


def footprint_core(model: Model) -> Polygon:
    """The footprint shrunk by GRAZE (see `core`), worked out once per base and heading."""
    return polygon_of(_core_vertices(model.base, model.heading) + _at(model.position))


def footprint_vertices(model: Model) -> Coords:
    """The footprint's outline as an (N, 2) array (convex, no repeated closing point)."""
    return _base_vertices(model.base, model.heading) + _at(model.position)


def base_radius(base: Base) -> float | None:
    """Radius in inches of a circular base, else None."""
    return mm_to_inches(base.width_mm) / 2 if base.shape == "circle" else None


def inner_radius(base: Base) -> float:
    """Half the base's narrower side: the widest disc that always fits inside it."""
    return mm_to_inches(min(base.width_mm, base.depth_mm)) / 2


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
    """A terrain piece's outline (a self-crossing ring is repaired, possibly into a MultiPolygon)."""
    polygon = Polygon(piece.polygon)
    return polygon if polygon.is_valid else shapely.make_valid(polygon).buffer(0)


def terrain_polygons(pieces: Sequence[Terrain]) -> list[Polygon]:
    """`terrain_polygon` of each piece, made in one shapely call per vertex count."""
    found: dict[int, Polygon] = {}
    by_count: dict[int, list[int]] = {}
    for k, piece in enumerate(pieces):
        by_count.setdefault(len(piece.polygon), []).append(k)
    for slots in by_count.values():
        made = polygons_of(np.array([pieces[k].polygon for k in slots], dtype=np.float64))
        for k, polygon, valid in zip(slots, made, shapely.is_valid(made), strict=True):
            found[k] = polygon if valid else shapely.make_valid(polygon).buffer(0)
    return [found[k] for k in range(len(pieces))]


def segment(a: tuple[float, float], b: tuple[float, float]) -> LineString:
    return LineString([a, b])


def core(polygon: Shape, graze: float = GRAZE) -> Shape | Polygon:
    """The polygon shrunk by `graze` (mitred corners): what a segment must touch to cross it."""
    shrunk = polygon.buffer(-graze, join_style="mitre")
    return shrunk if not shrunk.is_empty else polygon


def core_many(polygons: Sequence[BaseGeometry], graze: float = GRAZE) -> list[BaseGeometry]:
    """`core` of each polygon, in one shapely call."""
    if not len(polygons):
        return []
    shapes = np.asarray(polygons, dtype=object)
    shrunk = shapely.buffer(shapes, -graze, join_style="mitre")
    return list(np.where(shapely.is_empty(shrunk), shapes, shrunk))


def segment_near(segments: np.ndarray, discs: np.ndarray) -> np.ndarray:
    """Whether each (2, 2) segment comes within its disc (x, y, radius), with a margin of 1e-9."""
    start, step = segments[:, 0], segments[:, 1] - segments[:, 0]
    rel = discs[:, :2] - start
    length2 = np.einsum("nk,nk->n", step, step)
    t = np.clip(np.einsum("nk,nk->n", rel, step) / np.where(length2 > 0, length2, 1.0), 0.0, 1.0)
    gap = rel - t[:, None] * step
    near: npt.NDArray[np.bool_] = np.einsum("nk,nk->n", gap, gap) <= (discs[:, 2] + 1e-9) ** 2
    return near


def clip_planes(vertices: Coords) -> tuple[Coords, Coords]:
    """A convex outline as half-planes n . x <= c (outward unit normals n, offsets c) for `convex_clip`."""
    nxt = np.roll(vertices, -1, axis=0)
    edges = nxt - vertices
    area2 = np.sum(vertices[:, 0] * nxt[:, 1] - nxt[:, 0] * vertices[:, 1])
    normals = np.stack([edges[:, 1], -edges[:, 0]], axis=1) * (1.0 if area2 > 0 else -1.0)
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    return normals, np.sum(normals * vertices, axis=1)


def convex_clip(vertices: np.ndarray | tuple[np.ndarray, np.ndarray], origins: np.ndarray,
                directions: np.ndarray, tol: float = 1e-9) -> tuple[np.ndarray, np.ndarray]:
    """Where lines `origins + t * directions` run inside a convex polygon (Cyrus-Beck).

    The polygon is its vertices, or its `clip_planes`; or one polygon per line, as planes stacked
    (M, N, 2) and (M, N). Returns (t_in, t_out) per line; a line misses the polygon when t_in > t_out.
    The polygon is taken `tol` larger so that a tangent line still meets it at its touching point.
    """
    normals, offsets = clip_planes(vertices) if isinstance(vertices, np.ndarray) else vertices
    # inside: n . (o + t d) <= c + tol for every edge
    if normals.ndim == 3:
        num = tol + offsets - np.einsum("mk,mnk->mn", origins, normals)
        den = np.einsum("mk,mnk->mn", directions, normals)
    else:
        num = tol + offsets - origins @ normals.T  # (M, N)
        den = directions @ normals.T
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = num / den
    t_in = np.where(den < 0, ratio, -np.inf).max(axis=1)
    t_out = np.where(den > 0, ratio, np.inf).min(axis=1)
    parallel_out = ((den == 0) & (num < 0)).any(axis=1)
    t_in = np.where(parallel_out, np.inf, t_in)
    return t_in, t_out


def tangent_points_many(vertices: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two outline vertices a convex polygon shows as its extreme edges, seen from each point.

    Returns (the points outside the polygon, their (K, 2, 2) touching vertices): lines from a point
    through its two vertices touch the polygon without entering it.
    """
    dx = vertices[None, :, 0] - points[:, None, 0]  # (P, N)
    dy = vertices[None, :, 1] - points[:, None, 1]
    cx, cy = dx.mean(axis=1, keepdims=True), dy.mean(axis=1, keepdims=True)
    angles = np.arctan2(cx * dy - cy * dx, cx * dx + cy * dy)
    lo, hi = angles.argmin(axis=1), angles.argmax(axis=1)
    rows = np.arange(len(points))
    outside = (angles[rows, hi] - angles[rows, lo] < math.pi - 1e-12) & (np.hypot(cx, cy)[:, 0] > 0)
    touching = np.stack([vertices[lo], vertices[hi]], axis=1)
    return points[outside], touching[outside]


def outer_tangents(va: np.ndarray, vb: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The outer common tangents of two disjoint convex outlines, as (touch on A, touch on B) pairs.

    Each is found by turning a line through one vertex of each until it supports both outlines (the
    line's outward normal picks the extreme vertex of each; a few steps); the hull of both outlines
    is the fallback should that not settle.
    """
    axis = vb.mean(axis=0) - va.mean(axis=0)
    found = []
    for side in (1.0, -1.0):
        normal = side * np.array([-axis[1], axis[0]])
        i, j = int(np.argmax(va @ normal)), int(np.argmax(vb @ normal))
        for _ in range(64):
            step = vb[j] - va[i]
            normal = side * np.array([-step[1], step[0]])
            level = va[i] @ normal
            i2, j2 = int(np.argmax(va @ normal)), int(np.argmax(vb @ normal))
            if va[i2] @ normal <= level + 1e-12 and vb[j2] @ normal <= level + 1e-12:
                found.append((va[i], vb[j]))
                break
            i, j = i2, j2
        else:
            return _hull_bridges(va, vb)
    return found


def _hull_bridges(va: np.ndarray, vb: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    hull = MultiPoint(np.vstack([va, vb])).convex_hull
    if not isinstance(hull, Polygon):
        return []
    ring = np.asarray(hull.exterior.coords)
    in_a = np.isin(ring[:, 0] + 1j * ring[:, 1], va[:, 0] + 1j * va[:, 1])  # hull vertices are exact copies
    return [(ring[i], ring[i + 1]) if in_a[i] else (ring[i + 1], ring[i])
            for i in np.flatnonzero(in_a[:-1] != in_a[1:])]


def base_outline(base: Base, heading: float, sides: int | None = None) -> Coords:
    """The base's outline centred on the origin at its heading: the footprint's (inscribed, within
    0.0001") when `sides` is None, else a circumscribed `sides`-gon that holds the whole base."""
    if sides is None:
        return _base_vertices(base, heading)
    return _outer_vertices(base, heading, sides)


def minkowski(polygon: Polygon | MultiPolygon, outline: np.ndarray) -> BaseGeometry:
    """polygon (+) a convex outline centred on the origin: where the outline's centre may not go
    without the outline overlapping the polygon (the polygon, and each edge swept by the outline)."""
    parts = [polygon] if isinstance(polygon, Polygon) else polygon.geoms
    rings = [ring for part in parts for ring in (part.exterior, *part.interiors)]
    edges = np.vstack([np.stack([c[:-1], c[1:]], axis=1)
                       for c in (np.asarray(r.coords) for r in rings)])  # (E, 2, 2)
    ends = edges[:, :, None, :] + outline[None, None, :, :]  # (E, 2, N, 2): the outline at both ends
    hulls = shapely.convex_hull(shapely.multipoints(ends.reshape(len(edges), -1, 2)))
    return shapely.union_all([polygon, *hulls.tolist()])


def swept(outline: np.ndarray, points: Sequence[Point2]) -> BaseGeometry:
    """The area a convex outline (centred on the origin, not turning) covers as its centre moves
    along the polyline `points`: per straight leg, the hull of the outline at both ends."""
    p = np.asarray(points, dtype=float).reshape(-1, 2)
    if len(p) == 1:
        return polygon_of(outline + p[0])
    ends = np.stack([p[:-1], p[1:]], axis=1)[:, :, None, :] + outline[None, None, :, :]
    return shapely.union_all(shapely.convex_hull(shapely.multipoints(ends.reshape(len(p) - 1, -1, 2))))
