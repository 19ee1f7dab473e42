"""Synaptik line of sight: is there a straight line from any point of one base to any point of another
that crosses no blocking terrain? (Cover dice are in cover.py.)

Method (docs/rules/synaptik.md): the centre line first; else a proof of invisibility when one convex
blocker on the centre line spans the corridor between the bases (it meets both outer tangents of
discs holding them and neither disc); else the batched proof of hidden.py, for all open
pairs at once; else an exact search over the extremal lines: every line
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
from shapely.geometry import MultiPoint, Polygon
from shapely.geometry.base import BaseGeometry

from table.geometry import (
    Point2,
    convex_clip,
    footprint_planes,
    footprint_vertices,
    outer_outline,
    outer_reach,
    outer_tangents,
    polygon_of,
    tangent_points_many,
)
from table.rules.synaptik.hidden import hidden_many
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
    # without repeats, and sorted: the candidate lines (so the last bits of the sight line found) do not
    # depend on where the corners came from
    points = np.unique(np.vstack([np.empty((0, 2)), *found]), axis=0)
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
        polygon = polygon_of(vertices)
        shapely.prepare(polygon)
        return cls(polygon, vertices, footprint_planes(model), coarse, outer_reach(model))


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
        cores = np.array(blockers.cores, dtype=object).reshape(-1)
        self.convex = (shapely.area(cores) >= shapely.area(shapely.convex_hull(cores)) * (1 - 1e-9)).tolist()
        self._corners: dict[int, np.ndarray] = {}
        self._outlines: dict[str, Outline] = {}
        self._reach: dict[str, float] = {}

    def outline(self, model: Model) -> Outline:
        if model.id not in self._outlines:
            self._outlines[model.id] = Outline.of(model)
        return self._outlines[model.id]

    def corners(self, k: int) -> np.ndarray:
        """The outline vertices of blocker k, repeats and all (kept by blocker; users drop repeats)."""
        if k not in self._corners:
            self._corners[k] = _points_of(self.blockers.shapes[k].boundary)
        return self._corners[k]

    def reach(self, model: Model) -> float:
        """`geometry.outer_reach` of the model (kept by model id)."""
        if model.id not in self._reach:
            self._reach[model.id] = outer_reach(model)
        return self._reach[model.id]

    def search(self, a: Model, b: Model) -> Segment | None:
        """A free sight line between two bases whose centre line is blocked, or None."""
        oa, ob = self.outline(a), self.outline(b)
        if oa.polygon.intersects(ob.polygon):
            p = oa.polygon.intersection(ob.polygon).representative_point()
            return ((p.x, p.y), (p.x, p.y))
        hull = MultiPoint(np.vstack([oa.coarse, ob.coarse])).convex_hull
        near = self.blockers.near(hull)
        points = key_points(oa.polygon, ob.polygon, [self.blockers.shapes[k] for k in near],
                            [self.corners(k) for k in near], hull)
        segments = candidate_segments(oa, ob, points)
        if not len(segments):
            return None
        return shortest_free(segments, self.blockers.blocked_many(segments))

    def between(self, shooters: Sequence[Model], targets: Sequence[Model]) -> Sight:
        """Sight from any model of one group to any of the other.

        The pair used is the closest pair (centre to centre) whose centre line is clear, else the
        closest pair that sees along another line.
        """
        return self.between_many([(shooters, targets)])[0]

    def between_many(self, groups: Sequence[tuple[Sequence[Model], Sequence[Model]]]) -> list[Sight]:
        """`between` for many (shooters, targets) groups, batched: the closest pair's centre line of
        every group in one index query, every other centre line of the groups where that one is
        blocked in another, every corridor proof in one call, every pair still open proved hidden
        together (`hidden_many`); only the pairs it cannot settle are searched, closest first."""
        plans = [_closest_first(shooters, targets) for shooters, targets in groups]
        first = self.blockers.crossing_many(np.array([segs[0] for _, segs in plans]).reshape(-1, 2, 2))
        again = [g for g, hits in enumerate(first) if hits]
        others = self.blockers.crossing_many(
            np.vstack([np.empty((0, 2, 2))] + [plans[g][1][1:] for g in again]))
        sights: list[Sight | None] = []
        start, pending = 0, []
        for (shooters, targets), (order, segs), hits0 in zip(groups, plans, first, strict=True):
            hits = [hits0]
            if hits0:
                hits += others[start:start + len(segs) - 1]
                start += len(segs) - 1
            clear = next((k for k, h in enumerate(hits) if not h), None)
            if clear is not None:
                a, b = shooters[order[clear][0]], targets[order[clear][1]]
                sights.append(Sight(True, (a.position, b.position), (a.id, b.id)))
            else:
                sights.append(None)
                pending.append((len(sights) - 1, [(shooters[i], targets[j]) for i, j in order], hits))
        walled = self._walled([m for _, models, _ in pending for m in models],
                              [h for _, _, hits in pending for h in hits])
        everyone = [m for _, models, _ in pending for m in models]
        unsettled = np.flatnonzero(~walled)
        hidden = np.ones(len(everyone), dtype=bool)
        hidden[unsettled] = hidden_many(self, [everyone[k] for k in unsettled])
        start = 0
        for g, models, hits in pending:
            maybe = np.flatnonzero(~hidden[start:start + len(models)])
            start += len(models)
            sights[g] = self._searched(models, maybe) or Sight(
                False, None, (models[0][0].id, models[0][1].id), tuple(self.blockers.ids[k] for k in hits[0]))
        return [s for s in sights if s is not None]

    def _searched(self, models: Sequence[tuple[Model, Model]], maybe: np.ndarray) -> Sight | None:
        """The first of the pairs `maybe` (indices into `models`) that sees, by the exact search."""
        for k in maybe:
            a, b = models[k]
            line = self.search(a, b)
            if line is not None:
                return Sight(True, line, (a.id, b.id))
        return None

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
        ra = np.array([self.reach(pairs[k][0]) for k in k_idx])
        rb = np.array([self.reach(pairs[k][1]) for k in k_idx])
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


def _closest_first(shooters: Sequence[Model], targets: Sequence[Model]
                   ) -> tuple[list[tuple[int, int]], np.ndarray]:
    """Every (shooter, target) pair as indices, by centre distance then scene order; their centre lines."""
    pa = np.array([m.position for m in shooters], dtype=float).reshape(-1, 2)
    pb = np.array([m.position for m in targets], dtype=float).reshape(-1, 2)
    dist = np.hypot(pa[:, None, 0] - pb[None, :, 0], pa[:, None, 1] - pb[None, :, 1]).ravel()
    i, j = np.divmod(np.lexsort((np.arange(len(dist)), dist)), len(targets))
    return list(zip(i.tolist(), j.tolist(), strict=True)), np.stack([pa[i], pb[j]], axis=1)
