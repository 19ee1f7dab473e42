"""Age of Tyrants line of sight on the centre-to-centre line.

Blocking, in the order the rulings page gives it: intervening terrain that is not `flat` (a piece
holding either end's centre is not intervening); bases whose size is at least both ends' (wreckage
always); concealing terrain (and smoke) holding an end whose sight line runs through more of it than
the end's size; and, for a viewer on `elevated` terrain, only blockers within 4" of the target's back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely import STRtree
from shapely.geometry import LineString, Point
from shapely.geometry.base import BaseGeometry

from table.geometry import GRAZE, base_radius, core, core_many, footprint, terrain_polygon
from table.rules.age_of_tyrants.profile import EPS, on_table
from table.rules.age_of_tyrants.segments import Cores, clip_ends, segment_point_distances
from table.scene import Model, Scene, Terrain
from table.spatial import corner_joint, seams

ELEVATED_SHADOW = 4.0
SMOKE_RADIUS = 3.0


@dataclass(frozen=True)
class Piece:
    """A terrain piece (or a smoke cloud) as LOS and movement see it."""

    id: str
    shape: BaseGeometry
    traits: frozenset[str]

    def has(self, trait: str) -> bool:
        return trait in self.traits

    @property
    def impassable(self) -> bool:
        return self.has("impassable") or self.has("wreckage")


@dataclass(frozen=True)
class Concealment:
    """How deep one end of a sight line stands in a concealing piece."""

    model: str
    terrain: str
    depth: float
    size: float

    @property
    def hidden(self) -> bool:
        return self.depth > self.size + EPS

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "terrain": self.terrain, "depth": round(self.depth, 4),
                "size": self.size, "hidden": self.hidden}


@dataclass(frozen=True)
class Sight:
    """The answer to 'can `viewer` see `target`'."""

    viewer: str
    target: str
    visible: bool
    blocked_by: tuple[str, ...]
    line: tuple[tuple[float, float], tuple[float, float]]
    elevated: bool
    concealment: tuple[Concealment, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"visible": self.visible, "cover": {"light": 0, "heavy": 0},
                "blocked_by": list(self.blocked_by), "line": [list(self.line[0]), list(self.line[1])],
                "concealed": any(c.hidden for c in self.concealment), "elevated": self.elevated,
                "concealment": [c.to_dict() for c in self.concealment]}


def terrain_pieces(terrain: Iterable[Terrain]) -> list[Piece]:
    return [Piece(t.id, terrain_polygon(t), t.traits) for t in terrain]


def smoke_pieces(counters: Iterable[tuple[str, tuple[float, float]]]) -> list[Piece]:
    """Each smoke counter is concealing terrain: the 3" radius template centred on it."""
    return [Piece(f"smoke:{cid}", Point(at).buffer(SMOKE_RADIUS, quad_segs=64), frozenset({"concealment"}))
            for cid, at in counters]


@dataclass(frozen=True)
class _Blocker:
    id: str
    shape: BaseGeometry
    kind: str  # "terrain" or "base"


def _far_point(shape: BaseGeometry, a: tuple[float, float], b: tuple[float, float]) -> Point:
    """Where the ray from a through b last leaves `shape` (the back of a base or piece as seen from a)."""
    (ax, ay), (bx, by) = a, b
    length = max(((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5, EPS)
    minx, miny, maxx, maxy = shape.bounds
    reach = length + abs(maxx - minx) + abs(maxy - miny) + abs(bx - ax) + abs(by - ay) + 1.0
    far = (ax + (bx - ax) / length * reach, ay + (by - ay) / length * reach)
    hit = LineString([a, far]).intersection(shape)
    points = [Point(c) for c in _coords(hit)] or [Point(b)]
    return max(points, key=lambda p: p.distance(Point(a)))


def _coords(geom: BaseGeometry) -> list[tuple[float, ...]]:
    if geom.is_empty:
        return []
    if hasattr(geom, "geoms"):
        return [c for g in geom.geoms for c in _coords(g)]
    return list(geom.coords)


class LineOfSight:
    """LOS checks over one scene: terrain (with smoke) and every base on the table."""

    def __init__(self, scene: Scene, pieces: list[Piece], sizes: Mapping[str, float],
                 rulings: Mapping[str, Any]):
        self.scene = scene
        self.pieces = pieces
        self.sizes = sizes
        self.conceal_viewer = rulings.get("concealment_hides_viewer", True)
        self.depth_from = rulings.get("concealment_depth_from", "base_edge")
        standing = [m for m in scene.models if on_table(m)]
        self.standing = standing
        self._shapes: dict[str, BaseGeometry] = {}
        self.base_ids = [m.id for m in standing]
        self.wreckage = {m.id for m in standing if m.extra.get("wreckage")}
        self.index = {mid: i for i, mid in enumerate(self.base_ids)}
        # a sight line blocks only where it comes inside a shape: grazing a corner or an edge does not
        self._areas = STRtree([p.shape for p in pieces])
        walls = [i for i, p in enumerate(pieces) if not p.has("flat")]  # touching walls block as one
        shapes = [pieces[i].shape for i in walls]
        joints = corner_joint(rulings.get("corner_joint", "closed"))
        joined = seams(shapes, core_many(shapes), close_corners=joints)
        self.cores = Cores([p.shape for p in pieces], {walls[k]: seam for k, seam in joined.items()})
        self._piece_index = {id(p): i for i, p in enumerate(pieces)}
        self.flat_mask = np.array([p.has("flat") for p in pieces], dtype=bool)
        self.elevated_mask = np.array([p.has("elevated") for p in pieces], dtype=bool)
        self.concealing_mask = np.array([p.has("concealment") for p in pieces], dtype=bool)
        # round bases are tested in one numpy pass (distance from the centre to the segment)
        radii = [base_radius(m.base) for m in standing]
        self.round = np.array([r is not None for r in radii], dtype=bool)
        self.centres = np.array([m.position for m in standing], dtype=float).reshape(-1, 2)
        self.radii = np.array([r or 0.0 for r in radii], dtype=float)
        # a line crosses a round base when it passes nearer its centre than this (squared)
        self.reach2 = np.where(self.round, np.maximum(self.radii - GRAZE, 0.0) ** 2, -1.0)
        self.size_array = np.array([sizes[m.id] for m in standing], dtype=float)
        self.wreck_array = np.array([m.id in self.wreckage for m in standing], dtype=bool)
        self.other_cores = {int(i): core(self.shape(standing[i])) for i in np.nonzero(~self.round)[0]}
        self._held: dict[tuple[float, float], list[Piece]] = {}
        self._held_matrix: np.ndarray | None = None

    def shape(self, model: Model) -> BaseGeometry:
        """A base's footprint, made when first asked for."""
        if model.id not in self._shapes:
            self._shapes[model.id] = footprint(model)
        return self._shapes[model.id]

    def held_matrix(self) -> np.ndarray:
        """(bases, pieces) bool: the piece holds the standing base's centre (all looked up at once)."""
        if self._held_matrix is not None:
            return self._held_matrix
        held = np.zeros((len(self.base_ids), len(self.pieces)), dtype=bool)
        if self.pieces and len(self.base_ids):
            found_base, found_piece = self._areas.query(shapely.points(self.centres), predicate="covered_by")
            held[found_base, found_piece] = True
        for row, point in zip(held, map(tuple, self.centres.tolist()), strict=True):
            self._held.setdefault(point, [self.pieces[i] for i in np.flatnonzero(row).tolist()])
        self._held_matrix = held
        return held

    def holding(self, point: tuple[float, float], trait: str | None = None) -> list[Piece]:
        """The pieces whose area holds a point (optionally only those with a trait), in scene order."""
        if point not in self._held:
            found = self._areas.query(Point(point), predicate="covered_by")
            self._held[point] = [self.pieces[i] for i in sorted(found)]
        return [piece for piece in self._held[point] if trait is None or piece.has(trait)]

    def check(self, viewer: Model, target: Model) -> Sight:
        a, b = viewer.position, target.position
        line = LineString([a, b])
        fa, fb = self.shape(viewer), self.shape(target)
        between = self._between(viewer, target, line, fa, fb)
        held = {p.id for p in self.holding(a)} | {p.id for p in self.holding(b)}
        elevated = bool(self.holding(a, "elevated"))
        tallest = max(self.sizes[viewer.id], self.sizes[target.id])

        blockers: list[_Blocker] = []
        ends = np.array(_segments(between), dtype=float).reshape(-1, 2, 2)
        for i in np.flatnonzero(self.cores.crossed(ends[:, 0], ends[:, 1]).any(axis=0)).tolist():
            piece = self.pieces[i]
            if not (piece.has("flat") or piece.id in held):
                blockers.append(_Blocker(piece.id, piece.shape, "terrain"))
        for i in self._bases_crossed(between):
            mid = self.base_ids[i]
            if mid in (viewer.id, target.id):
                continue
            if mid not in self.wreckage and self.sizes[mid] < tallest - EPS:
                continue
            blockers.append(_Blocker(mid, self.shape(self.standing[i]), "base"))
        blocked = self._shadows(blockers, line, fb) if elevated else [blk.id for blk in blockers]

        concealment = self.concealment_many([viewer], [target])[0]
        blocked += [c.terrain for c in concealment if c.hidden and c.terrain not in blocked]
        return Sight(viewer.id, target.id, not blocked, tuple(blocked), (a, b), elevated, tuple(concealment))

    def _between(self, viewer: Model, target: Model, line: LineString, fa: BaseGeometry,
                 fb: BaseGeometry) -> BaseGeometry:
        """The sight line outside both end bases (exact for round bases, by shapely otherwise).

        Round bases: cut from the base first on the table to the other, as `screen` cuts it.
        """
        ra, rb = base_radius(viewer.base), base_radius(target.base)
        if ra is None or rb is None:
            return line.difference(fa).difference(fb) if line.length > EPS else line
        if self.index.get(target.id, -1) < self.index.get(viewer.id, -1):
            viewer, target, ra, rb = target, viewer, rb, ra
        ends = np.array([viewer.position, target.position], dtype=float)
        p0, p1, kept = clip_ends(ends[:1], ends[1:], np.array([ra]), np.array([rb]))
        return LineString([p0[0], p1[0]]) if kept[0] else LineString()

    def _bases_crossed(self, between: BaseGeometry) -> list[int]:
        """Indices of the bases the sight line comes more than GRAZE inside, in scene order."""
        if between.is_empty or not len(self.base_ids):
            return []
        hit = np.zeros(len(self.base_ids), dtype=bool)
        for p0, p1 in _segments(between):
            d = segment_point_distances(np.array([p0]), np.array([p1]), self.centres)[0]
            hit |= self.round & (d < self.reach2)
        for i, shape in self.other_cores.items():
            hit[i] = between.intersects(shape)
        return [int(i) for i in np.nonzero(hit)[0]]

    def concealment_many(self, viewers: list[Model], targets: list[Model]) -> list[tuple[Concealment, ...]]:
        """How deep each end of each sight line stands in the concealing pieces holding it."""
        rows = []  # (pair, viewer, target, end, piece)
        for k, (viewer, target) in enumerate(zip(viewers, targets, strict=True)):
            ends = (viewer, target) if self.conceal_viewer else (target,)
            rows += [(k, viewer, target, end, self._piece_index[id(piece)]) for end in ends
                     for piece in self.holding(end.position, "concealment")]
        found: list[list[Concealment]] = [[] for _ in viewers]
        for (k, _, _, end, i), depth in zip(rows, self.depths([r[1:] for r in rows]), strict=True):
            found[k].append(Concealment(end.id, self.pieces[i].id, depth, self.sizes[end.id]))
        return [tuple(c) for c in found]

    def depths(self, rows: list[tuple[Model, Model, Model, int]]) -> list[float]:
        """Concealment depth for rows (viewer, target, end, piece): how far the centre-to-centre line runs
        through the piece outside both bases (ruling `centre`: from the end's own centre, outside the
        other base). Round bases are cut at their circles and convex pieces clipped in numpy, all rows
        at once; anything else by shapely."""
        out = [0.0] * len(rows)
        quick = [r for r, (v, t, _, i) in enumerate(rows)
                 if v.base.shape == t.base.shape == "circle" and i in self.cores.planes]
        if quick:
            picked = [rows[r] for r in quick]
            ends = np.array([[v.position, t.position] for v, t, _, _ in picked], dtype=float)
            ra = np.array([base_radius(v.base) for v, _, _, _ in picked])
            rb = np.array([base_radius(t.base) for _, t, _, _ in picked])
            if self.depth_from == "centre":  # keep the end's own half of the line up to its centre
                at_viewer = np.array([e.id == v.id for v, _, e, _ in picked])
                ra, rb = np.where(at_viewer, 0.0, ra), np.where(at_viewer, rb, 0.0)
            p0, p1, kept = clip_ends(ends[:, 0], ends[:, 1], ra, rb)
            runs = self.cores.run_inside(p0, p1, np.array([i for *_, i in picked], dtype=int))
            for r, run, keep in zip(quick, runs.tolist(), kept.tolist(), strict=True):
                out[r] = run if keep else 0.0
        slow = sorted(set(range(len(rows))) - set(quick))
        for r in slow:
            v, t, end, i = rows[r]
            fa, fb = self.shape(v), self.shape(t)
            inside = LineString([v.position, t.position]).intersection(self.pieces[i].shape)
            if self.depth_from == "centre":
                out[r] = inside.difference(fb if end.id == v.id else fa).length
            else:
                out[r] = inside.difference(fa).difference(fb).length
        return out

    def _shadows(self, blockers: list[_Blocker], line: LineString, target_shape: BaseGeometry) -> list[str]:
        """Elevated viewer: blockers whose 4" dead ground reaches the back of the target.

        Walked from the viewer outwards; a base whose own back lies in an earlier blocker's dead
        ground is obscured and casts none.
        """
        (ax, ay), (bx, by) = line.coords[0], line.coords[-1]
        a, b = (ax, ay), (bx, by)
        casting: list[_Blocker] = []
        for blk in sorted(blockers, key=lambda blk: _along(line, blk.shape)):
            if blk.kind == "base":
                back = _far_point(blk.shape, a, b)
                if any(c.shape.distance(back) <= ELEVATED_SHADOW + EPS for c in casting):
                    continue  # an obscured base casts no shadow of its own
            casting.append(blk)
        back = _far_point(target_shape, a, b)
        return [c.id for c in casting if c.shape.distance(back) <= ELEVATED_SHADOW + EPS]


def _segments(geom: BaseGeometry) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    parts = geom.geoms if hasattr(geom, "geoms") else [geom]
    out = []
    for part in parts:
        coords = list(part.coords)
        out += list(zip(coords, coords[1:], strict=False))
    return out


def _along(line: LineString, shape: BaseGeometry) -> float:
    coords = _coords(line.intersection(shape))
    return min((line.project(Point(c)) for c in coords), default=line.length)
