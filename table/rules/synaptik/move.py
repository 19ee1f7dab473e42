"""Synaptik movement: what a path costs (difficult terrain doubles, climbing 2" per 1" of height,
impassable terrain stops it) and whether a charge can reach within 1" of a target.

A path is the model's centre; its base (its outline, not turning: `outline`) may not overlap
impassable terrain. Charge reach searches a visibility graph with Dijkstra: the start, points around
the targets, and the corners of every piece just outside it, where an impassable piece is grown by
the true base outline (the Minkowski sum; its corners round, drawn by a circumscribed 32-gon so the
path stays clear and is at most 0.003" per quarter turn longer than the round corner) and the
outlines of difficult and climbing pieces carry a point every `EDGE_STEP` (where a path may cross
them); each leg costs as a path does.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import LineString, Point
from shapely.geometry.base import BaseGeometry

from table.geometry import GRAZE, Point2, core, lines_of, minkowski, points_of, swept, terrain_polygon
from table.scene import Terrain

NO_CLIMB = frozenset({"difficult", "flat", "road", "impassable"})
RING = 32  # points tried around each charge target
EDGE_STEP = 0.25  # inches between the points put along difficult and climbing pieces' outlines
STEER_SIDES = 32  # sides of the circumscribed base outline that impassable corners are steered round


@dataclass(frozen=True)
class PathCost:
    """What a path costs in inches of movement, and the terrain that made it so."""

    length: float
    difficult: float  # extra inches: each inch in difficult terrain counts twice
    climb: float  # extra inches for climbing over pieces with height
    climbed: tuple[str, ...] = ()
    impassable: tuple[str, ...] = ()

    @property
    def total(self) -> float:
        return self.length + self.difficult + self.climb


@dataclass(frozen=True)
class Reach:
    cost: float
    path: tuple[Point2, ...]


class Terrain2D:
    """The scene's terrain as movement sees it."""

    def __init__(self, pieces: Sequence[Terrain], climb_cost: float, difficult_by: str = "centre",
                 difficult_climb: bool = False):
        """`difficult_by`: difficult ground counts while the centre is on it (`centre`) or while any part
        of the base is (`base`); `difficult_climb`: a difficult piece with height is climbed too."""
        self.climb_cost = climb_cost
        self.difficult_by = difficult_by
        no_climb = NO_CLIMB - {"difficult"} if difficult_climb else NO_CLIMB
        self.blocking = [(p, terrain_polygon(p)) for p in pieces if p.has("impassable")]
        self.climbing = [(p, terrain_polygon(p)) for p in pieces
                         if p.height > 0 and not (p.traits & no_climb) and climb_cost > 0]
        difficult = [terrain_polygon(p) for p in pieces if p.has("difficult")]
        self.difficult = shapely.union_all(difficult) if difficult else None
        self._grown: dict[bytes, BaseGeometry | None] = {}

    def difficult_for(self, outline: np.ndarray) -> BaseGeometry | None:
        """Where the centre of a base with this outline pays for difficult ground (see difficult_by)."""
        if self.difficult is None or self.difficult_by == "centre":
            return self.difficult
        key = outline.tobytes()
        if key not in self._grown:
            parts = getattr(self.difficult, "geoms", [self.difficult])
            self._grown[key] = shapely.union_all([minkowski(g, outline) for g in parts])
        return self._grown[key]

    def walls(self, outline: np.ndarray) -> BaseGeometry | None:
        """The area a model's centre may not enter: impassable terrain grown by its base outline
        (centred on the origin), less the grazing tolerance."""
        if not self.blocking:
            return None
        wall = core(shapely.union_all([minkowski(poly, outline) for _, poly in self.blocking]))
        shapely.prepare(wall)
        return wall

    def cost(self, points: Sequence[Point2], outline: np.ndarray) -> PathCost:
        """The cost of moving a model's centre along a polyline, its base outline (centred on the
        origin) keeping its facing."""
        if len(points) < 2:
            return PathCost(0.0, 0.0, 0.0)
        line = LineString(points)
        area = swept(outline, points)
        stopped = tuple(p.id for p, poly in self.blocking if area.intersects(core(poly)))
        ground = self.difficult_for(outline)
        difficult = line.intersection(ground).length if ground is not None else 0.0
        climb, climbed = 0.0, []
        for piece, poly in self.climbing:
            entries = _entries(line, poly)
            if entries:
                climb += entries * self.climb_cost * piece.height
                climbed.append(piece.id)
        return PathCost(line.length, difficult, climb, tuple(climbed), stopped)

    def leg_costs(self, starts: np.ndarray, ends: np.ndarray, outline: np.ndarray) -> np.ndarray:
        """Costs of many straight legs at once (inf where impassable terrain is in the way is the
        caller's business)."""
        lines = lines_of(np.stack([starts, ends], axis=1))
        total: np.ndarray = np.hypot(*(ends - starts).T)
        ground = self.difficult_for(outline)
        if ground is not None:
            total = total + shapely.length(shapely.intersection(lines, ground))
        for piece, poly in self.climbing:
            parts = shapely.intersection(lines, poly)
            count = np.array([_pieces(g) for g in parts], dtype=float)
            count -= shapely.covers(poly, shapely.points(starts)) & (count > 0)
            total = total + count * self.climb_cost * piece.height
        return total

    def reach(self, start: Point2, goals: Sequence[tuple[Point2, float]], outline: np.ndarray,
              steer: np.ndarray, limit: float) -> Reach | None:
        """The cheapest path found from `start` to within a goal's radius of its point, costing <= limit.

        `outline`: the base (centred on the origin) that must not overlap impassable terrain; `steer`:
        a circumscribed outline of it whose corners the path is steered round."""
        wall = self.walls(outline)
        nodes = [start, *_within_reach(self._corners(start, limit, steer, outline), start, goals, limit)]
        for (tx, ty), radius in goals:
            r = radius
            nodes += [(tx + r * math.cos(2 * math.pi * k / RING), ty + r * math.sin(2 * math.pi * k / RING))
                      for k in range(RING)]
        base = np.asarray(nodes, dtype=float)
        pts = np.vstack([base, _projections(base, goals)])
        goal = _near_any(pts, goals)
        if wall is not None:
            inside = shapely.intersects(points_of(pts), wall)
            inside[0] = False
            goal &= ~inside
        n, m = len(base), len(pts)
        i, j = np.triu_indices(n, k=1)
        # every base node to every other, and each base node to its own nearest point by each target
        gi = np.tile(np.arange(n), len(goals))
        gj = np.arange(n, m)
        i, j = np.concatenate([i, gi]), np.concatenate([j, gj])
        span = np.hypot(*(pts[j] - pts[i]).T)
        ok = span <= limit + 1e-9
        if wall is not None:
            legs = shapely.linestrings(np.stack([pts[i[ok]], pts[j[ok]]], axis=1))
            ok[ok] = ~shapely.intersects(legs, wall)
        i, j = i[ok], j[ok]
        there = self.leg_costs(pts[i], pts[j], outline)
        back = self.leg_costs(pts[j], pts[i], outline)
        graph: list[list[tuple[float, int]]] = [[] for _ in range(m)]
        for a, b, c_ab, c_ba in zip(i.tolist(), j.tolist(), there.tolist(), back.tolist(), strict=True):
            graph[a].append((c_ab, b))
            graph[b].append((c_ba, a))
        best, path = _dijkstra(graph, goal, limit)
        if best is None:
            return None
        return Reach(best, tuple((float(pts[k][0]), float(pts[k][1])) for k in path))

    def _corners(self, start: Point2, limit: float, steer: np.ndarray, outline: np.ndarray) -> list[Point2]:
        """Points to steer by, each a hair outside its piece, for pieces within `limit` of the start:
        the corners of impassable pieces grown by the `steer` outline, and points every EDGE_STEP
        along the outlines of difficult and climbing pieces."""
        here = Point(start)
        found: list[Point2] = []
        shapes: list[tuple[BaseGeometry, float | None]] = [
            (minkowski(poly, steer), None) for _, poly in self.blocking if poly.distance(here) <= limit]
        shapes += [(poly, EDGE_STEP) for _, poly in self.climbing]
        ground = self.difficult_for(outline)
        if ground is not None:
            shapes += [(g, EDGE_STEP) for g in getattr(ground, "geoms", [ground])]
        for poly, step in shapes:
            if poly.distance(here) > limit:
                continue
            ring = poly.buffer(4 * GRAZE, join_style="mitre", mitre_limit=10.0).boundary
            if step is not None:
                ring = shapely.segmentize(ring, step)
            found += [(x, y) for x, y in shapely.get_coordinates(ring).tolist()]
        return list(dict.fromkeys(found))


def _within_reach(points: list[Point2], start: Point2, goals: Sequence[tuple[Point2, float]],
                  limit: float) -> list[Point2]:
    """The points a path of at most `limit` from `start` to a goal could pass (an ellipse test)."""
    if not points:
        return points
    p = np.asarray(points, dtype=float)
    to_goal = np.min([np.hypot(*(p - g).T) - r for g, r in goals], axis=0) if goals else 0.0
    keep = np.hypot(*(p - start).T) + np.maximum(to_goal, 0.0) <= limit + 1e-9
    return [points[k] for k in np.flatnonzero(keep).tolist()]


def _pieces(geometry: BaseGeometry) -> int:
    """Separate stretches (longer than GRAZE) of a line's intersection with a polygon."""
    if geometry.is_empty:
        return 0
    return sum(1 for g in getattr(geometry, "geoms", [geometry]) if g.length > GRAZE)


def _entries(line: LineString, poly: BaseGeometry) -> int:
    """How many times a path goes onto a piece (starting on it is not going onto it)."""
    count = _pieces(line.intersection(poly))
    if count and poly.covers(Point(line.coords[0])):
        count -= 1
    return count


def _projections(points: np.ndarray, goals: Sequence[tuple[Point2, float]]) -> np.ndarray:
    """For each goal (outer) and point (inner), the nearest point within the goal's radius."""
    found = []
    for (tx, ty), radius in goals:
        r = radius
        rel = points - (tx, ty)
        norm = np.hypot(rel[:, 0], rel[:, 1])
        scale = np.where(norm > r, r / np.where(norm > 0, norm, 1.0), 1.0)
        found.append((tx, ty) + rel * scale[:, None])
    return np.vstack(found) if found else np.empty((0, 2))


def _near_any(points: np.ndarray, goals: Sequence[tuple[Point2, float]]) -> np.ndarray:
    t = np.asarray([g[0] for g in goals], dtype=float)
    radii = np.asarray([g[1] for g in goals], dtype=float)
    d = np.hypot(points[:, None, 0] - t[None, :, 0], points[:, None, 1] - t[None, :, 1])
    near: np.ndarray = (d <= radii[None, :] + 1e-9).any(axis=1)
    return near


def _dijkstra(graph: list[list[tuple[float, int]]], goal: np.ndarray,
              limit: float) -> tuple[float | None, list[int]]:
    dist = {0: 0.0}
    prev: dict[int, int] = {}
    heap = [(0.0, 0)]
    while heap:
        d, node = heapq.heappop(heap)
        if d > dist.get(node, math.inf):
            continue
        if goal[node]:
            path = [node]
            while path[-1] in prev:
                path.append(prev[path[-1]])
            return d, path[::-1]
        for cost, nxt in graph[node]:
            nd = d + cost
            if nd <= limit + 1e-9 and nd < dist.get(nxt, math.inf):
                dist[nxt] = nd
                prev[nxt] = node
                heapq.heappush(heap, (nd, nxt))
    return None, []
