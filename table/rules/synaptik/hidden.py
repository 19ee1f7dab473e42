"""A batched proof that model pairs have no line of sight, for many pairs in one vectorised pass.

`SightLines.search` looks for a sight line one pair at a time; most pairs it is asked about have none,
and for those only the answer "none" matters. `hidden_many` settles them together: it runs the same
extremal-line search (docs/rules/synaptik.md) on the bases' coarse outlines (16-gons that hold the
bases, `geometry.outer_outline`), for every pair at once, with one shared set of key points (the
corners of every blocker near any of the bases, and where a coarse outline meets a blocker's outline).

Why the answer is exact: a segment between two bases also runs between their coarse outlines, so if
no segment between the coarse outlines is free, none between the bases is. Extra key points only add
candidate lines, each still a segment from one outline to the other tested against the blockers, so
they never make a pair look hidden. A pair this does not prove hidden goes to the exact search.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import shapely

from table.geometry import (
    convex_clip,
    lines_of,
    outer_outline,
    outer_planes,
    outer_reach,
    outer_tangents,
    points_of,
    segment_near,
)
from table.scene import Model
from table.spatial import ShapeIndex


class SightLines(Protocol):
    """What the proof needs of the sight lines (`los.SightLines`): the blockers and their corners."""

    @property
    def blockers(self) -> ShapeIndex: ...

    def corners(self, k: int) -> np.ndarray: ...


def hidden_many(lines: SightLines, pairs: Sequence[tuple[Model, Model]]) -> np.ndarray:
    """For each (a, b) pair, True when provably no sight line runs from base a to base b."""
    hidden = np.zeros(len(pairs), dtype=bool)
    if not pairs:
        return hidden
    models = list({m.id: m for pair in pairs for m in pair}.values())
    slot = {m.id: k for k, m in enumerate(models)}
    ia = np.array([slot[a.id] for a, _ in pairs])
    ib = np.array([slot[b.id] for _, b in pairs])
    shapes = Outlines.of(models)
    ca, cb = shapes.centres[ia], shapes.centres[ib]
    # a capsule round each pair's centre line holds both outlines, hence their hull
    spread = np.maximum(shapes.reach[ia], shapes.reach[ib]) + 1e-9
    cores = np.array(lines.blockers.cores, dtype=object)
    spines = lines_of(np.stack([ca, cb], axis=1))
    close = shapely.dwithin(cores[None, :], spines[:, None], spread[:, None])  # (pairs, blockers)
    near = np.flatnonzero(close.any(axis=0)).tolist()
    if not near:
        return hidden
    points = _key_points(lines, shapes, near)
    rows, cols = np.divmod(np.arange(len(pairs) * len(points)), len(points))
    inside = segment_near(np.stack([ca[rows], cb[rows]], axis=1),
                          np.column_stack([points[cols], spread[rows]])).reshape(len(pairs), len(points))
    o, d, pair_of = _candidate_lines(shapes, points, inside, ia, ib)
    segments, pair_of = _clip(shapes, ia[pair_of], ib[pair_of], o, d, pair_of)
    free = ~lines.blockers.blocked_many(segments)  # only blockers near a pair can meet its segments
    seen = np.hypot(*(cb - ca).T) <= shapes.reach[ia] + shapes.reach[ib]  # the bases may overlap: not proved
    seen[pair_of[free]] = True
    proved: np.ndarray = ~seen
    return proved


@dataclass(frozen=True)
class Outlines:
    """Many models' coarse outlines as arrays, padded to one vertex count by repeating the first
    vertex (and its edge's plane), which changes no extreme vertex (ties go to the first) and no clip."""

    vertices: np.ndarray  # (K, S, 2)
    normals: np.ndarray  # (K, S, 2) clip planes, as geometry.clip_planes
    offsets: np.ndarray  # (K, S)
    centres: np.ndarray  # (K, 2)
    reach: np.ndarray  # (K,) radius round the centre holding the outline

    @classmethod
    def of(cls, models: Sequence[Model]) -> Outlines:
        vertices = [outer_outline(m) for m in models]
        planes = [outer_planes(m) for m in models]
        size = max(len(v) for v in vertices)

        def pad(a: np.ndarray) -> np.ndarray:
            return a if len(a) == size else np.concatenate([a, np.repeat(a[:1], size - len(a), axis=0)])

        return cls(np.stack([pad(v) for v in vertices]), np.stack([pad(n) for n, _ in planes]),
                   np.stack([pad(c) for _, c in planes]), np.array([m.position for m in models], dtype=float),
                   np.array([outer_reach(m) for m in models]))


def _key_points(lines: SightLines, shapes: Outlines, near: list[int]) -> np.ndarray:
    """Corners of the blockers near the bases, and where a coarse outline meets a blocker's outline."""
    found = [lines.corners(k) for k in near]
    pieces = np.array([lines.blockers.shapes[k] for k in near], dtype=object)
    # the stubs take one distance; shapely broadcasts an array of them like any ufunc argument
    touch = shapely.dwithin(pieces[None, :], points_of(shapes.centres)[:, None], shapes.reach[:, None])  # type: ignore[call-overload]
    mi, si = np.nonzero(touch)
    if len(mi):
        outlines = shapely.polygons(shapes.vertices[mi])
        crossings = shapely.intersection(shapely.boundary(outlines), shapely.boundary(pieces[si]))
        found.append(shapely.get_coordinates(crossings))
    return np.unique(np.vstack(found), axis=0)


def _candidate_lines(shapes: Outlines, points: np.ndarray, inside: np.ndarray, ia: np.ndarray, ib: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair's extremal lines as (origins, directions, pair index): lines through two key points
    in the pair's hull, lines from a key point tangent to either base, and the outer tangents."""
    i, j = np.triu_indices(len(points), k=1)
    r, line = np.nonzero(inside[:, i] & inside[:, j])
    origins, directions, owners = [points[i[line]]], [points[j[line]] - points[i[line]]], [r]
    to, td, model, point = _tangents(shapes.vertices, shapes.centres, points)
    r, line = np.nonzero(((model[None, :] == ia[:, None]) | (model[None, :] == ib[:, None]))
                         & inside[:, point])
    origins.append(to[line])
    directions.append(td[line])
    owners.append(r)
    start, end, r = _outer_tangents(shapes.vertices, shapes.centres, ia, ib)
    origins.append(start)
    directions.append(end - start)
    owners.append(r)
    return np.vstack(origins), np.vstack(directions), np.concatenate(owners)


def _tangents(vertices: np.ndarray, centres: np.ndarray, points: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Lines from each key point outside an outline through the outline's two extreme vertices seen
    from it (as `geometry.tangent_points_many`, for every outline at once): origins, directions, and
    the outline and key point each belongs to."""
    dx = vertices[:, None, :, 0] - points[None, :, None, 0]  # (outlines, points, vertices)
    dy = vertices[:, None, :, 1] - points[None, :, None, 1]
    cx = (centres[:, None, 0] - points[None, :, 0])[..., None]
    cy = (centres[:, None, 1] - points[None, :, 1])[..., None]
    angles = np.arctan2(cx * dy - cy * dx, cx * dx + cy * dy)
    lo, hi = angles.argmin(axis=2), angles.argmax(axis=2)
    spread = np.take_along_axis(angles, hi[..., None], 2) - np.take_along_axis(angles, lo[..., None], 2)
    k, p = np.nonzero((spread[..., 0] < math.pi - 1e-12) & (np.hypot(cx, cy)[..., 0] > 0))
    origins = np.vstack([points[p], points[p]])
    directions = np.vstack([vertices[k, lo[k, p]], vertices[k, hi[k, p]]]) - origins
    return origins, directions, np.concatenate([k, k]), np.concatenate([p, p])


def _outer_tangents(vertices: np.ndarray, centres: np.ndarray, ia: np.ndarray, ib: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Both outer common tangents of every pair's outlines (as `geometry.outer_tangents`, all pairs
    turning together): touching points on a and on b, and the pair index."""
    va, vb = vertices[ia], vertices[ib]
    rows = np.arange(len(ia))
    axis = centres[ib] - centres[ia]
    starts, ends, owners = [], [], []
    for side in (1.0, -1.0):
        normal = side * np.stack([-axis[:, 1], axis[:, 0]], axis=1)
        i = np.einsum("rvk,rk->rv", va, normal).argmax(axis=1)
        j = np.einsum("rvk,rk->rv", vb, normal).argmax(axis=1)
        done = np.zeros(len(ia), dtype=bool)
        for _ in range(64):
            step = vb[rows, j] - va[rows, i]
            normal = side * np.stack([-step[:, 1], step[:, 0]], axis=1)
            level = np.einsum("rk,rk->r", va[rows, i], normal) + 1e-12
            i2 = np.einsum("rvk,rk->rv", va, normal).argmax(axis=1)
            j2 = np.einsum("rvk,rk->rv", vb, normal).argmax(axis=1)
            settled = ~done & (np.einsum("rk,rk->r", va[rows, i2], normal) <= level) \
                & (np.einsum("rk,rk->r", vb[rows, j2], normal) <= level)
            starts.append(va[rows[settled], i[settled]])
            ends.append(vb[rows[settled], j[settled]])
            owners.append(rows[settled])
            done |= settled
            if done.all():
                break
            i, j = np.where(done, i, i2), np.where(done, j, j2)
        for r in np.flatnonzero(~done):  # not settled: the hull of both outlines decides
            for start, end in outer_tangents(va[r], vb[r]):
                starts.append(start[None, :])
                ends.append(end[None, :])
                owners.append(np.array([r]))
    return np.vstack(starts), np.vstack(ends), np.concatenate(owners)


def _clip(shapes: Outlines, la: np.ndarray, lb: np.ndarray, o: np.ndarray, d: np.ndarray,
          pair_of: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each line's stretch from its pair's base a to base b (as `candidate_segments`), with its pair."""
    centres, reach = shapes.centres, shapes.reach + 1e-9
    length = np.hypot(d[:, 0], d[:, 1])
    keep = length > 1e-12
    safe = np.where(keep, length, 1.0)
    for m in (la, lb):  # drop lines that pass wide of either base
        rel = centres[m] - o
        keep &= np.abs(d[:, 0] * rel[:, 1] - d[:, 1] * rel[:, 0]) <= reach[m] * safe
    o, d, la, lb, pair_of = o[keep], d[keep], la[keep], lb[keep], pair_of[keep]
    spans = [convex_clip((shapes.normals[m], shapes.offsets[m]), o, d) for m in (la, lb)]
    (a_in, a_out), (b_in, b_out) = spans
    chosen = (a_in <= a_out) & (b_in <= b_out) & ((a_out < b_in) | (b_out < a_in))
    forward = (a_out < b_in)[chosen]
    t_start = np.where(forward, a_out[chosen], a_in[chosen])
    t_end = np.where(forward, b_in[chosen], b_out[chosen])
    o, d = o[chosen], d[chosen]
    return np.stack([o + t_start[:, None] * d, o + t_end[:, None] * d], axis=1), pair_of[chosen]
