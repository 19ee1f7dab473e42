"""Many segments at once against the bases and terrain of an Age of Tyrants table: the ends inside
the bases clipped off (`clip_ends`), the bases they pass (`segment_point_distances`), the terrain cores
they cross (`Cores`). `los.LineOfSight.check` and the report's batch (`screen`) share them, so the two
agree on what is in the way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from table.geometry import GRAZE, core


def clip_ends(a: np.ndarray, b: np.ndarray, ra: np.ndarray, rb: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Segments a->b (P, 2) less their first `ra` and last `rb` inches: (p0, p1, non-empty)."""
    d = b - a
    length = np.hypot(d[:, 0], d[:, 1])
    kept = length > ra + rb
    safe = np.where(kept, length, 1.0)
    t0, t1 = ra / safe, 1 - rb / safe
    p0 = np.stack([a[:, 0] + d[:, 0] * t0, a[:, 1] + d[:, 1] * t0], axis=1)
    p1 = np.stack([a[:, 0] + d[:, 0] * t1, a[:, 1] + d[:, 1] * t1], axis=1)
    return p0, p1, kept


def segment_point_distances(p0: np.ndarray, p1: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(P, N): the squared distance from each of N points to each of P segments p0-p1."""
    dx, dy = (p1[:, 0] - p0[:, 0])[:, None], (p1[:, 1] - p0[:, 1])[:, None]
    span = dx * dx + dy * dy
    rx, ry = points[None, :, 0] - p0[:, 0, None], points[None, :, 1] - p0[:, 1, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(span > 0, np.clip((rx * dx + ry * dy) / span, 0.0, 1.0), 0.0)
    ex, ey = rx - t * dx, ry - t * dy
    return ex * ex + ey * ey


class Cores:
    """The terrain pieces' cores (each shrunk by GRAZE: a line must come that far inside to cross it),
    for crossing tests of many segments at once.

    A convex piece is its edges' half-planes moved GRAZE inwards (its mitred core exactly), tested in
    numpy (Cyrus-Beck, as `geometry.convex_clip`, pieces grouped by number of sides); any other shape
    is `geometry.core` tested by shapely. Only segments whose bounding box meets a piece's are tested.
    """

    def __init__(self, shapes: list[BaseGeometry], joined: Mapping[int, BaseGeometry] | None = None):
        """`joined`: cores to use instead of a piece's own (pieces that block as one, see spatial)."""
        joined = joined or {}
        self.count = len(shapes)
        self.shapes = shapes
        self.bounds = shapely.bounds(np.array(shapes, dtype=object)).reshape(-1, 4)
        by_sides: dict[int, list[tuple[int, list[tuple[float, float, float]]]]] = {}
        self.other: list[tuple[int, BaseGeometry]] = []
        self.planes: dict[int, list[tuple[float, float, float]]] = {}  # convex pieces, not shrunk
        for i, shape in enumerate(shapes):
            planes = _convex_planes(shape)
            if i in joined:
                shapely.prepare(joined[i])
                self.other.append((i, joined[i]))
                if planes is not None:
                    self.planes[i] = planes
            elif planes is None:
                inner = core(shape)
                shapely.prepare(inner)
                self.other.append((i, inner))
            else:
                by_sides.setdefault(len(planes), []).append((i, planes))
                self.planes[i] = planes
        self.groups = []
        for group in by_sides.values():
            planes = np.array([g[1] for g in group], dtype=float)  # (pieces, sides, 3): nx, ny, offset
            self.groups.append((np.array([g[0] for g in group]), planes[:, :, :2], planes[:, :, 2] - GRAZE))

    def crossed(self, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
        """(P, pieces): whether segment p0-p1 touches each core."""
        hit = np.zeros((len(p0), self.count), dtype=bool)
        if not len(p0):
            return hit
        near = _boxes_meet(np.minimum(p0, p1), np.maximum(p0, p1), self.bounds)
        for pieces, normals, offsets in self.groups:
            seg, g = np.nonzero(near[:, pieces])
            if not len(seg):
                continue
            nx, ny = normals[g, :, 0], normals[g, :, 1]
            ox, oy = p0[seg, 0, None], p0[seg, 1, None]
            dx, dy = p1[seg, 0, None] - ox, p1[seg, 1, None] - oy
            num = offsets[g] - (ox * nx + oy * ny)  # inside where t * den <= num
            den = dx * nx + dy * ny
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = num / den
            enter = np.where(den < 0, ratio, -np.inf).max(axis=1)
            leave = np.where(den > 0, ratio, np.inf).min(axis=1)
            apart = ((den == 0) & (num < 0)).any(axis=1)
            hit[seg, pieces[g]] = (np.maximum(enter, 0.0) <= np.minimum(leave, 1.0)) & ~apart
        if self.other:
            seg_lines = shapely.linestrings(np.stack([p0, p1], axis=1))
            for i, shape in self.other:
                rows = np.flatnonzero(near[:, i])
                hit[rows, i] = shapely.intersects(shape, seg_lines[rows])
        return hit

    def run_inside(self, p0: np.ndarray, p1: np.ndarray, pieces: np.ndarray) -> np.ndarray:
        """How long each segment p0-p1 runs inside piece `pieces[k]` (the piece itself, not its core)."""
        out = np.zeros(len(p0))
        for i in np.unique(pieces).tolist():
            rows = np.flatnonzero(pieces == i)
            if i not in self.planes:
                lines = shapely.linestrings(np.stack([p0[rows], p1[rows]], axis=1))
                out[rows] = shapely.length(shapely.intersection(lines, self.shapes[i]))
                continue
            planes = np.array(self.planes[i])
            nx, ny, c = planes[None, :, 0], planes[None, :, 1], planes[None, :, 2]
            ox, oy = p0[rows, 0, None], p0[rows, 1, None]
            dx, dy = p1[rows, 0, None] - ox, p1[rows, 1, None] - oy
            num, den = c - (ox * nx + oy * ny), dx * nx + dy * ny
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = num / den
            enter = np.maximum(np.where(den < 0, ratio, -np.inf).max(axis=1), 0.0)
            leave = np.minimum(np.where(den > 0, ratio, np.inf).min(axis=1), 1.0)
            apart = ((den == 0) & (num < 0)).any(axis=1)
            out[rows] = np.where(apart, 0.0, np.maximum(leave - enter, 0.0)) * np.hypot(dx[:, 0], dy[:, 0])
        return out


def _boxes_meet(lo: np.ndarray, hi: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """(P, B): whether box lo-hi (P, 2 each) meets box bounds (B, 4: minx, miny, maxx, maxy)."""
    return ((lo[:, 0, None] <= bounds[None, :, 2]) & (hi[:, 0, None] >= bounds[None, :, 0])
            & (lo[:, 1, None] <= bounds[None, :, 3]) & (hi[:, 1, None] >= bounds[None, :, 1]))


def _convex_planes(shape: BaseGeometry) -> list[tuple[float, float, float]] | None:
    """A convex polygon as its edges' half-planes nx*x + ny*y <= c (outward unit normals), else None."""
    if shape.geom_type != "Polygon" or shape.interiors:
        return None
    ring = list(shape.exterior.coords)[:-1]
    ring = [p for p, q in zip(ring, ring[1:] + ring[:1], strict=True) if p != q]
    if len(ring) < 3:
        return None
    edges = [(q[0] - p[0], q[1] - p[1]) for p, q in zip(ring, ring[1:] + ring[:1], strict=True)]
    turns = [e[0] * f[1] - e[1] * f[0] for e, f in zip(edges, edges[1:] + edges[:1], strict=True)]
    if not (all(t >= 0 for t in turns) or all(t <= 0 for t in turns)) or not any(turns):
        return None
    side = 1.0 if sum(turns) > 0 else -1.0  # counter-clockwise (in x-right, y-up terms): normal (ey, -ex)
    planes = []
    for (px, py), (ex, ey) in zip(ring, edges, strict=True):
        length = math.hypot(ex, ey)
        nx, ny = side * ey / length, -side * ex / length
        planes.append((nx, ny, nx * px + ny * py))
    return planes
