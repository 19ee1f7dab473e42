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
from shapely.geometry import Polygon
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
    squared: np.ndarray = ex * ex + ey * ey
    return squared


BAND = 4.0  # inches: the strips `segments_near_points` sorts points into


def segments_near_points(p0: np.ndarray, p1: np.ndarray, points: np.ndarray, reach2: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
    """(segment, point) index pairs where point k lies nearer segment p0-p1 than sqrt(reach2[k]).

    The same numbers as `segment_point_distances`, worked out only for points that may be near: the
    points are sorted into strips `BAND` wide across the axis a segment runs most along, and by
    position along each strip; a segment looks, in each strip it crosses, only at the points within
    the largest reach of where it runs in that strip. So the cost grows with the points near each
    line, not with every point on the table.
    """
    if not len(p0) or not len(points):
        return np.empty(0, dtype=int), np.empty(0, dtype=int)
    reach = float(np.sqrt(max(float(reach2.max()), 0.0)))
    steep = np.abs(p1[:, 1] - p0[:, 1]) >= np.abs(p1[:, 0] - p0[:, 0])
    seg_found, pt_found = [], []
    for main, rows in ((1, np.flatnonzero(steep)), (0, np.flatnonzero(~steep))):
        if len(rows):
            seg, pt = _strip_candidates(p0[rows], p1[rows], points, reach, main)
            seg = rows[seg]
            near = segment_point_distances_paired(p0[seg], p1[seg], points[pt]) < reach2[pt]
            seg_found.append(seg[near])
            pt_found.append(pt[near])
    return np.concatenate(seg_found), np.concatenate(pt_found)


def _strip_candidates(p0: np.ndarray, p1: np.ndarray, points: np.ndarray, reach: float, main: int
                      ) -> tuple[np.ndarray, np.ndarray]:
    """(segment, point) pairs to test: `main` is the axis the segments run most along (strips across
    it), the other axis is where each strip's points are sorted."""
    cross = 1 - main
    lo_all = float(points[:, cross].min()) - 1.0
    width = float(points[:, cross].max()) - lo_all + 1.0  # every point's offset in its strip < width
    strip = np.floor(points[:, main] / BAND).astype(np.int64)
    keys = strip * width + (points[:, cross] - lo_all)
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    a_m, b_m = p0[:, main], p1[:, main]
    first = np.floor((np.minimum(a_m, b_m) - reach) / BAND).astype(np.int64)
    last = np.floor((np.maximum(a_m, b_m) + reach) / BAND).astype(np.int64)
    counts = last - first + 1
    seg = np.repeat(np.arange(len(p0)), counts)
    band = first[seg] + np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    # where the segment runs (cross axis) while its main coordinate is within reach of the strip
    span = b_m[seg] - a_m[seg]
    with np.errstate(divide="ignore", invalid="ignore"):
        t0 = np.where(span != 0, (band * BAND - reach - a_m[seg]) / span, 0.0)
        t1 = np.where(span != 0, ((band + 1) * BAND + reach - a_m[seg]) / span, 1.0)
    t_lo, t_hi = np.clip(np.minimum(t0, t1), 0.0, 1.0), np.clip(np.maximum(t0, t1), 0.0, 1.0)
    c0, c1 = p0[seg, cross], p1[seg, cross]
    x_a, x_b = c0 + (c1 - c0) * t_lo, c0 + (c1 - c0) * t_hi
    x_lo = np.clip(np.minimum(x_a, x_b) - reach - lo_all, 0.0, width - 1e-9)
    x_hi = np.clip(np.maximum(x_a, x_b) + reach - lo_all, 0.0, width - 1e-9)
    lo = np.searchsorted(keys, band * width + x_lo, side="left")
    hi = np.searchsorted(keys, band * width + x_hi, side="right")
    found = np.maximum(hi - lo, 0)
    out_seg = np.repeat(seg, found)
    offsets = np.arange(int(found.sum())) - np.repeat(np.cumsum(found) - found, found)
    out_pt = order[np.repeat(lo, found) + offsets]
    return out_seg, out_pt


def segment_point_distances_paired(p0: np.ndarray, p1: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(K,): the squared distance from points[k] to segment p0[k]-p1[k]."""
    d = p1 - p0
    span = d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]
    rel = points - p0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(span > 0, np.clip((rel[:, 0] * d[:, 0] + rel[:, 1] * d[:, 1]) / span, 0.0, 1.0), 0.0)
    ex, ey = rel[:, 0] - t * d[:, 0], rel[:, 1] - t * d[:, 1]
    squared: np.ndarray = ex * ex + ey * ey
    return squared


class Cores:
    """The terrain pieces' cores (each shrunk by GRAZE: a line must come that far inside to cross it),
    for crossing tests of many segments at once.

    A convex piece is its edges' half-planes moved GRAZE inwards (its mitred core exactly), tested in
    numpy (Cyrus-Beck, as `geometry.convex_clip`, pieces grouped by number of sides); any other shape
    is `geometry.core` tested by shapely. Only segments whose bounding box meets a piece's are tested.
    """

    def __init__(self, shapes: list[BaseGeometry], seams: Mapping[int, BaseGeometry] | None = None):
        """`seams`: what a piece's core gains where it touches another (`spatial.seams`): its small
        parts are tested by shapely, each with its own box."""
        self.seams = [(i, part) for i, seam in (seams or {}).items()
                      for part in shapely.get_parts(seam).tolist() if not part.is_empty]
        self.seam_parts = np.array([p for _, p in self.seams], dtype=object)
        self.seam_piece = np.array([i for i, _ in self.seams], dtype=int)
        self.seam_bounds = shapely.bounds(self.seam_parts).reshape(-1, 4)
        shapely.prepare(self.seam_parts)
        self.count = len(shapes)
        self.shapes = shapes
        self.bounds = shapely.bounds(np.array(shapes, dtype=object)).reshape(-1, 4)
        by_sides: dict[int, list[tuple[int, list[tuple[float, float, float]]]]] = {}
        self.other: list[tuple[int, BaseGeometry]] = []
        self.planes: dict[int, list[tuple[float, float, float]]] = {}  # convex pieces, not shrunk
        for i, shape in enumerate(shapes):
            planes = _convex_planes(shape)
            if planes is None:
                inner = core(shape)
                shapely.prepare(inner)
                self.other.append((i, inner))
            else:
                by_sides.setdefault(len(planes), []).append((i, planes))
                self.planes[i] = planes
        self.groups: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for group in by_sides.values():
            stacked = np.array([g[1] for g in group], dtype=float)  # (pieces, sides, 3): nx, ny, offset
            self.groups.append((np.array([g[0] for g in group]), stacked[:, :, :2], stacked[:, :, 2] - GRAZE))

    def crossed(self, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
        """(P, pieces): whether segment p0-p1 touches each core."""
        hit = np.zeros((len(p0), self.count), dtype=bool)
        if not len(p0):
            return hit
        near = _boxes_meet(np.minimum(p0, p1), np.maximum(p0, p1), self.bounds)
        seg, piece = np.nonzero(near)  # then only those that pass within the circle round the piece's box
        b = self.bounds[piece]
        centres = np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], axis=1)
        radii2 = ((b[:, 2] - b[:, 0]) ** 2 + (b[:, 3] - b[:, 1]) ** 2) / 4 + 1e-9
        near[seg, piece] = segment_point_distances_paired(p0[seg], p1[seg], centres) <= radii2
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
        for i, shape in self.other:
            rows = np.flatnonzero(near[:, i])
            lines = shapely.linestrings(np.stack([p0[rows], p1[rows]], axis=1))
            hit[rows, i] = shapely.intersects(shape, lines)
        if self.seams:  # tiny parts: only segments that pass within the circle round a part's box
            seg, j = np.nonzero(_boxes_meet(np.minimum(p0, p1), np.maximum(p0, p1), self.seam_bounds))
            b = self.seam_bounds[j]
            centres = np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], axis=1)
            radii2 = ((b[:, 2] - b[:, 0]) ** 2 + (b[:, 3] - b[:, 1]) ** 2) / 4 + 1e-12
            piece = self.seam_piece[j]
            keep = (segment_point_distances_paired(p0[seg], p1[seg], centres) <= radii2) & ~hit[seg, piece]
            seg, j, piece = seg[keep], j[keep], piece[keep]
            if len(seg):
                lines = shapely.linestrings(np.stack([p0[seg], p1[seg]], axis=1))
                met = shapely.intersects(self.seam_parts[j], lines)
                hit[seg[met], piece[met]] = True
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
    if not isinstance(shape, Polygon) or shape.interiors:
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
