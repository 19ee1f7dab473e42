"""Synaptik line of sight: is there a straight line from any point of one base to any point of another
that crosses no blocking terrain? And the cover dice on the centre-to-centre line.

Method (docs/rules/synaptik.md): the centre line first; else a proof of invisibility when one convex
blocker on the centre line spans the corridor between the bases (it meets both outer tangents of
discs holding them and neither disc); else an exact search over the extremal lines: every line
through two blocker vertices, through a blocker vertex and tangent to a base, and the bases' outer
common tangents, each clipped to the stretch between the two bases. Blocker vertices include where a
base's outline meets a blocker's outline. Exact for the polygonal footprints, up to the geometry
module's GRAZE (a line may enter a blocker by 0.0001").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from table.geometry import (
    Point2,
    convex_clip,
    footprint_planes,
    footprint_vertices,
    outer_outline,
    outer_tangents,
    tangent_points_many,
)
from table.scene import Model
from table.spatial import ShapeIndex

Segment = tuple[Point2, Point2]


@dataclass(frozen=True)
class Sight:
    """A line-of-sight answer between two groups of models."""

    visible: bool
    line: Segment | None  # the sight line used, from the shooter's base to the target's
    pair: tuple[str, str]  # the models it runs between (the closest pair when nothing is visible)
    blocked_by: tuple[str, ...] = ()  # blockers on the pair's centre line when nothing is visible


def _points_of(geometry: BaseGeometry) -> np.ndarray:
    return shapely.get_coordinates(geometry) if not geometry.is_empty else np.empty((0, 2))


def key_points(fa: Polygon, fb: Polygon, blockers: Sequence[BaseGeometry],
               corners: Sequence[np.ndarray] | None = None, within: BaseGeometry | None = None) -> np.ndarray:
    """Blocker vertices (`corners`, if known), and where a base's outline meets a blocker's outline.

    Only points in `within` (a region holding both bases' convex hull) are kept: a sight line touches
    a vertex on its stretch between the bases, and that stretch lies in the hull.
    """
    found = list(corners) if corners is not None else [_points_of(poly.boundary) for poly in blockers]
    for poly in blockers:
        for base in (fa, fb):
            if base.intersects(poly):
                found.append(_points_of(base.boundary.intersection(poly.boundary)))
    points = np.vstack([np.empty((0, 2)), *found])
    if corners is None or len(found) > len(blockers):  # drop repeats (known corners come without)
        points = np.unique(points, axis=0)
    if within is not None and len(points):
        points = points[shapely.dwithin(shapely.points(points), within, 1e-9)]
    return points


@dataclass(frozen=True)
class Outline:
    """A base as the search needs it: footprint, outline vertices, clip planes, coarse outline."""

    polygon: Polygon
    vertices: np.ndarray
    planes: tuple[np.ndarray, np.ndarray]
    coarse: np.ndarray
    reach: float  # radius of a disc round the centre that holds the base

    @classmethod
    def of(cls, model: Model) -> Outline:
        vertices, coarse = footprint_vertices(model), outer_outline(model)
        reach = float(np.hypot(*(coarse - np.asarray(model.position)).T).max())
        polygon = shapely.polygons(vertices)
        shapely.prepare(polygon)
        return cls(polygon, vertices, footprint_planes(model), coarse, reach)


def candidate_segments(a: Outline | np.ndarray, b: Outline | np.ndarray, points: np.ndarray) -> np.ndarray:
    """The extremal sight lines between outlines `a` and `b`, as (M, 2, 2) segments from A to B."""
    va = a.vertices if isinstance(a, Outline) else a
    vb = b.vertices if isinstance(b, Outline) else b
    origins: list[np.ndarray] = []
    directions: list[np.ndarray] = []
    n = len(points)
    if n > 1:
        i, j = np.triu_indices(n, k=1)
        origins.append(points[i])
        directions.append(points[j] - points[i])
    for outline in (va, vb):
        p, touching = tangent_points_many(outline, points)
        origins += [p, p]
        directions += [touching[:, 0] - p, touching[:, 1] - p]
    for start, end in outer_tangents(va, vb):
        origins.append(start[None, :])
        directions.append((end - start)[None, :])
    if not origins:
        return np.empty((0, 2, 2))
    o, d = np.vstack(origins), np.vstack(directions)
    length = np.hypot(d[:, 0], d[:, 1])
    keep = length > 1e-12
    for outline in (va, vb):  # drop lines that pass wide of either base before clipping them
        centre = outline.mean(axis=0)
        reach = np.hypot(*(outline - centre).T).max() + 1e-9
        rel = centre - o
        keep &= np.abs(d[:, 0] * rel[:, 1] - d[:, 1] * rel[:, 0]) <= reach * np.where(keep, length, 1.0)
    o, d = o[keep], d[keep]
    a_in, a_out = convex_clip(a.planes if isinstance(a, Outline) else va, o, d)
    b_in, b_out = convex_clip(b.planes if isinstance(b, Outline) else vb, o, d)
    meets = (a_in <= a_out) & (b_in <= b_out)
    chosen = meets & ((a_out < b_in) | (b_out < a_in))
    o, d, forward = o[chosen], d[chosen], (a_out < b_in)[chosen]
    t_start = np.where(forward, a_out[chosen], a_in[chosen])
    t_end = np.where(forward, b_in[chosen], b_out[chosen])
    return np.stack([o + t_start[:, None] * d, o + t_end[:, None] * d], axis=1)


def shortest_free(segments: np.ndarray, blocked: np.ndarray) -> Segment | None:
    """The shortest unblocked segment (first of equals), or None."""
    free = np.flatnonzero(~blocked)
    if not len(free):
        return None
    lengths = np.hypot(*(segments[free, 1] - segments[free, 0]).T)
    s = segments[free[int(np.argmin(lengths))]]
    return ((float(s[0, 0]), float(s[0, 1])), (float(s[1, 0]), float(s[1, 1])))


class SightLines:
    """Line of sight over one scene's blocking terrain, model to model or unit to unit."""

    def __init__(self, blockers: ShapeIndex):
        self.blockers = blockers
        self.corners = [np.unique(_points_of(shape.boundary), axis=0) for shape in blockers.shapes]
        self.convex = [c.area >= shapely.convex_hull(c).area * (1 - 1e-9) for c in blockers.cores]
        self._outlines: dict[str, Outline] = {}
        self._walls: dict[tuple[int, ...], BaseGeometry] = {}

    def outline(self, model: Model) -> Outline:
        if model.id not in self._outlines:
            self._outlines[model.id] = Outline.of(model)
        return self._outlines[model.id]

    def wall(self, near: Sequence[int]) -> BaseGeometry:
        """The union of some blockers' cores, prepared (worked out once per set)."""
        key = tuple(near)
        if key not in self._walls:
            wall = shapely.union_all([self.blockers.cores[k] for k in key])
            shapely.prepare(wall)
            self._walls[key] = wall
        return self._walls[key]

    def search(self, a: Model, b: Model) -> Segment | None:
        """A free sight line between two bases whose centre line is blocked, or None."""
        oa, ob = self.outline(a), self.outline(b)
        if oa.polygon.intersects(ob.polygon):
            p = oa.polygon.intersection(ob.polygon).representative_point()
            return ((p.x, p.y), (p.x, p.y))
        hull = shapely.convex_hull(shapely.multipoints(np.vstack([oa.coarse, ob.coarse])))
        near = self.blockers.near(hull)
        points = key_points(oa.polygon, ob.polygon, [self.blockers.shapes[k] for k in near],
                            [self.corners[k] for k in near], hull)
        segments = candidate_segments(oa, ob, points)
        if not len(segments):
            return None
        return shortest_free(segments, shapely.intersects(shapely.linestrings(segments), self.wall(near)))

    def between(self, shooters: Sequence[Model], targets: Sequence[Model]) -> Sight:
        """Sight from any model of one group to any of the other.

        The pair used is the closest pair (centre to centre) whose centre line is clear, else the
        closest pair that sees along another line.
        """
        pa = np.array([m.position for m in shooters], dtype=float)
        pb = np.array([m.position for m in targets], dtype=float)
        dist = np.hypot(pa[:, None, 0] - pb[None, :, 0], pa[:, None, 1] - pb[None, :, 1]).ravel()
        order = np.lexsort((np.arange(len(dist)), dist))  # by distance, then scene order
        pairs = [(float(dist[k]), int(k) // len(targets), int(k) % len(targets)) for k in order]
        segments = np.stack([pa[[i for _, i, _ in pairs]], pb[[j for *_, j in pairs]]], axis=1)
        crossing = self.blockers.crossing_many(segments)
        for (_, i, j), hits in zip(pairs, crossing, strict=True):
            if not hits:
                a, b = shooters[i], targets[j]
                return Sight(True, (a.position, b.position), (a.id, b.id))
        _, i0, j0 = pairs[0]
        blocked = Sight(False, None, (shooters[i0].id, targets[j0].id),
                        tuple(self.blockers.ids[k] for k in crossing[0]))
        models = [(shooters[i], targets[j]) for _, i, j in pairs]
        maybe = ~self._walled(models, crossing)
        for (a, b), worth in zip(models, maybe, strict=True):
            line = self.search(a, b) if worth else None
            if line is not None:
                return Sight(True, line, (a.id, b.id))
        return blocked

    def _walled(self, pairs: Sequence[tuple[Model, Model]], crossing: Sequence[Sequence[int]]) -> np.ndarray:
        """For each pair, whether one convex blocker on its centre line spans the corridor between the
        bases: it meets both outer tangents of discs holding the bases and neither disc, so every
        segment from one base to the other crosses it. Predicates on arrays only: cheap."""
        rows = [(k, h) for k, hits in enumerate(crossing) for h in hits if self.convex[h]]
        walled = np.zeros(len(pairs), dtype=bool)
        if not rows:
            return walled
        k_idx = np.array([k for k, _ in rows])
        cores = np.array([self.blockers.cores[h] for _, h in rows], dtype=object)
        ca = np.array([pairs[k][0].position for k in k_idx], dtype=float)
        cb = np.array([pairs[k][1].position for k in k_idx], dtype=float)
        ra = np.array([self.outline(pairs[k][0]).reach for k in k_idx])
        rb = np.array([self.outline(pairs[k][1]).reach for k in k_idx])
        gap = cb - ca
        d = np.hypot(gap[:, 0], gap[:, 1])
        ok = d > ra + rb  # discs apart: two outer tangents
        u = gap / np.where(d > 0, d, 1.0)[:, None]
        perp = np.stack([-u[:, 1], u[:, 0]], axis=1)
        along = np.clip((ra - rb) / np.where(d > 0, d, 1.0), -1.0, 1.0)
        across = np.sqrt(1 - along**2)
        spans = ok.copy()
        for sign in (1.0, -1.0):
            n = along[:, None] * u + sign * across[:, None] * perp
            bridge = shapely.linestrings(np.stack([ca + ra[:, None] * n, cb + rb[:, None] * n], axis=1))
            spans &= shapely.intersects(cores, bridge)
        spans &= shapely.distance(cores, shapely.points(ca)) > ra
        spans &= shapely.distance(cores, shapely.points(cb)) > rb
        walled[k_idx[spans]] = True
        return walled

@dataclass(frozen=True)
class Cover:
    """Cover on a centre-to-centre line: terrain pieces by kind, and units standing in the way."""

    light_pieces: tuple[str, ...] = ()
    heavy_pieces: tuple[str, ...] = ()
    units: tuple[str, ...] = ()

    @property
    def light(self) -> int:
        return len(self.light_pieces) + len(self.units)

    @property
    def heavy(self) -> int:
        return len(self.heavy_pieces)

    @property
    def dice(self) -> int:
        return self.light + 2 * self.heavy

    def to_dict(self) -> dict[str, int]:
        return {"light": self.light, "heavy": self.heavy}


def covers_on_lines(pairs: Sequence[tuple[Model, Model]], terrain: ShapeIndex, heavy: frozenset[str],
                    models: ShapeIndex, unit_of: dict[str, str]) -> list[Cover]:
    """Cover each target gets against its shooter, on their centre-to-centre line (contract ruling).

    `terrain` holds the cover pieces (`heavy` names those that are heavy cover), `models` every
    footprint (ids are model ids). A piece holding the shooter's centre does not count.
    """
    segments = np.array([[a.position, b.position] for a, b in pairs], dtype=float).reshape(-1, 2, 2)
    pieces_hit = terrain.crossing_many(segments)
    models_hit = models.crossing_many(segments)
    found = []
    for (shooter, target), piece_ks, model_ks in zip(pairs, pieces_hit, models_hit, strict=True):
        own = set(terrain.containing(shooter.position)) if piece_ks else set()
        pieces = [terrain.ids[k] for k in piece_ks if k not in own]
        skip = {shooter.unit, target.unit}
        units = [u for u in dict.fromkeys(unit_of[models.ids[k]] for k in model_ks) if u not in skip]
        found.append(Cover(tuple(p for p in pieces if p not in heavy), tuple(p for p in pieces if p in heavy),
                           tuple(units)))
    return found
