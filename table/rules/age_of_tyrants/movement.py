"""Age of Tyrants movement: what a path costs a base by its locomotion, and what stops it.

The base's centre follows the path; each stretch costs its length times the rate of the terrain
under it (wheeled/tracked: difficult going x2, road x0.5, a road over difficult going is a road).
Until its centre first changes ground, a base that starts straddling going that changes movement is
on the going its front edge is in. The area its footprint sweeps (facing along each stretch: the
hull of the footprint at both ends of the stretch), and the ground it sweeps pivoting on its centre
at the start and at each waypoint, may not cross impassable terrain (hover: only impassable that is
not flat; jump: nothing, but it may not land on impassable) or enemy bases; moving, not other
vehicles either (for vehicles); it must end clear of every base.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, Point, Polygon, box
from shapely.geometry.base import BaseGeometry

from table.geometry import base_outline, footprint, footprint_vertices, heading_vector, swept
from table.rules.age_of_tyrants.los import Piece
from table.rules.age_of_tyrants.profile import EPS
from table.scene import Board, Model

Point2 = tuple[float, float]
PIVOT_STEP = 1.0  # degrees between the footprints whose union stands for a pivot's sweep


@dataclass(frozen=True)
class Other:
    """Another base on the table as movement sees it."""

    id: str
    shape: BaseGeometry
    enemy: bool
    vehicle: bool
    wreckage: bool


@dataclass(frozen=True)
class Stretch:
    terrain: str
    length: float
    cost: float


@dataclass(frozen=True)
class Pivot:
    """A turn on the spot around the base's centre: at a point, from one heading to another."""

    at: Point2
    start: float
    end: float
    turn: float  # signed degrees turned (clockwise positive), the shorter way round
    blocked_by: tuple[str, ...]  # what the turn sweeps over that it may not (empty: the turn is clear)

    def to_dict(self) -> dict[str, Any]:
        return {"at": list(self.at), "from": round(self.start, 3), "to": round(self.end, 3),
                "turn": round(self.turn, 3), "blocked_by": list(self.blocked_by)}


@dataclass(frozen=True)
class MovePlan:
    length: float
    cost: float
    allowed_distance: float
    stretches: tuple[Stretch, ...]
    blocked_by: tuple[str, ...]
    problems: tuple[str, ...]
    starts_on: tuple[str, ...] = ()
    pivots: tuple[Pivot, ...] = ()

    @property
    def allowed(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {"length": round(self.length, 4), "cost": round(self.cost, 4),
                "allowed_distance": self.allowed_distance, "allowed": self.allowed,
                "remaining": round(max(0.0, self.allowed_distance - self.cost), 4),
                "stretches": [{"terrain": s.terrain, "length": round(s.length, 4), "cost": round(s.cost, 4)}
                              for s in self.stretches],
                "blocked_by": list(self.blocked_by), "problems": list(self.problems),
                "starts_on": list(self.starts_on), "pivots": [p.to_dict() for p in self.pivots]}


def rate(locomotion: str, pieces: Sequence[Piece]) -> float:
    """Movement spent per inch on ground covered by `pieces` (only wheels and tracks feel the going)."""
    if locomotion in ("wheeled", "tracked"):
        if any(piece.has("road") for piece in pieces):
            return 0.5
        if any(piece.has("difficult") for piece in pieces):
            return 2.0
    return 1.0


def _bars(locomotion: str, piece: Piece) -> bool:
    if locomotion == "jump" or not piece.impassable:
        return False
    return not (locomotion == "hover" and piece.has("flat") and not piece.has("wreckage"))


def plan(model: Model, path: Sequence[Point2], locomotion: str, allowed_distance: float,
         pieces: Sequence[Piece], others: Sequence[Other], vehicle: bool, board: Board,
         straddle_facing: str = "start") -> MovePlan:
    """Cost and legality of moving `model` along `path` (its position first).

    `straddle_facing`: the front edge that decides a straddling start is the base's at its heading
    before the move (`start`) or once it has pivoted onto its first stretch (`path`).
    """
    line = LineString(path)
    headings = _headings(model.heading, path)
    facing = headings[1] if straddle_facing == "path" and len(headings) > 1 else model.heading
    front = front_edge(replace(model, heading=facing))
    starts_on = tuple(p.id for p in pieces
                      if _changes_going(p) and shapely.relate_pattern(front, p.shape, "T********"))
    centre_on = tuple(p.id for p in pieces if _changes_going(p) and p.shape.covers(Point(path[0])))
    breaks = {0.0, line.length}
    for piece in pieces:
        for c in _coords(line.intersection(piece.shape.boundary)):
            breaks.add(line.project(Point(c)))
    marks = sorted(breaks)
    stretches: list[Stretch] = []
    for lo, hi in zip(marks, marks[1:], strict=False):
        if hi - lo <= EPS:
            continue
        mid = line.interpolate((lo + hi) / 2)
        under = [p for p in pieces if p.shape.covers(mid)]
        terrain = "+".join(p.id for p in under)
        if not stretches and starts_on != centre_on:  # straddling: the front edge decides the first stretch
            under = [p for p in under if not _changes_going(p)] + [p for p in pieces if p.id in starts_on]
            terrain = "+".join(p.id for p in under) + " (front edge)"
        factor = rate(locomotion, under)
        if stretches and stretches[-1].terrain == terrain:
            last = stretches.pop()
            stretches.append(Stretch(terrain, last.length + hi - lo, last.cost + (hi - lo) * factor))
        else:
            stretches.append(Stretch(terrain, hi - lo, (hi - lo) * factor))

    swept = swept_area(model, path)
    end = _end_footprint(model, path)
    blocked: list[str] = []
    problems: list[str] = []
    for piece in pieces:
        if _bars(locomotion, piece) and swept.intersection(piece.shape).area > EPS:
            blocked.append(piece.id)
            problems.append(f"crosses impassable terrain {piece.id!r}")
    for other in others:
        if other.id == model.id:
            continue
        through = locomotion != "jump" and swept.intersection(other.shape).area > EPS
        if through and (other.enemy or other.wreckage or (vehicle and other.vehicle)):
            blocked.append(other.id)
            kind = "wreckage" if other.wreckage else "an enemy base" if other.enemy else "a vehicle"
            problems.append(f"moves through {kind} {other.id!r}")
        elif end.intersection(other.shape).area > EPS:
            blocked.append(other.id)
            problems.append(f"ends overlapping base {other.id!r}")
    turns = _pivots(model, path, headings, locomotion, pieces, others)
    for turn in turns:
        blocked += turn.blocked_by
        problems += [f"pivots through {what} at ({turn.at[0]:g}, {turn.at[1]:g})" for what in
                     _named(turn.blocked_by, pieces, others)]
    if locomotion == "jump":
        for piece in pieces:
            if piece.impassable and end.intersection(piece.shape).area > EPS:
                blocked.append(piece.id)
                problems.append(f"lands on impassable terrain {piece.id!r}")
    if not box(0, 0, board.width, board.height).covers(end):
        problems.append("ends off the board")
    length = line.length
    cost = sum(s.cost for s in stretches)
    if cost > allowed_distance + EPS:
        problems.append(f"costs {cost:.2f}\" of movement, more than the {allowed_distance:g}\" allowed")
    return MovePlan(length, cost, allowed_distance, tuple(stretches), tuple(dict.fromkeys(blocked)),
                    tuple(problems), starts_on, tuple(turns))


def swept_area(model: Model, path: Sequence[Point2]) -> BaseGeometry:
    """What the base's footprint covers moving along `path` (its position first), facing along each
    stretch: per stretch the hull of its footprint at both ends (the pivots between are `_pivots`')."""
    legs = [(a, b) for a, b in zip(path, path[1:], strict=False) if math.dist(a, b) > EPS]
    if not legs:
        return footprint(replace(model, x=path[0][0], y=path[0][1]))
    return shapely.union_all([
        swept(base_outline(model.base, math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))), [a, b])
        for a, b in legs])


def _changes_going(piece: Piece) -> bool:
    return piece.has("difficult") or piece.has("road")


def front_edge(model: Model) -> BaseGeometry:
    """The base's front edge: a rectangle's front side, a round or oval base's front half."""
    outline = footprint_vertices(model)
    (hx, hy), (cx, cy) = heading_vector(model.heading), model.position
    ahead = (outline[:, 0] - cx) * hx + (outline[:, 1] - cy) * hy
    if model.base.shape == "rect":
        return LineString(outline[ahead >= ahead.max() - 1e-9])
    reach = 2 * float(np.abs(outline - np.asarray(model.position)).max()) + 1.0
    sx, sy = -hy * reach, hx * reach  # sideways
    ax, ay = hx * reach, hy * reach  # ahead
    front = Polygon([(cx + sx, cy + sy), (cx + sx + ax, cy + sy + ay), (cx - sx + ax, cy - sy + ay),
                     (cx - sx, cy - sy)])  # the half-plane ahead of the centre, as far as the base reaches
    return footprint(model).exterior.intersection(front)


def _headings(start: float, path: Sequence[Point2]) -> list[float]:
    """The base's heading before the move, then along each stretch of the path (that has length)."""
    out = [start]
    for (x0, y0), (x1, y1) in zip(path, path[1:], strict=False):
        if math.hypot(x1 - x0, y1 - y0) > EPS:
            out.append(math.degrees(math.atan2(y1 - y0, x1 - x0)))
    return out


def _pivots(model: Model, path: Sequence[Point2], headings: list[float], locomotion: str,
            pieces: Sequence[Piece], others: Sequence[Other]) -> list[Pivot]:
    """Every turn on the spot the path needs: onto the first stretch, and at each waypoint."""
    points = [path[0]] + [b for a, b in zip(path, path[1:], strict=False) if math.dist(a, b) > EPS][:-1]
    found = []
    for at, start, end in zip(points, headings, headings[1:], strict=False):
        short = (end - start + 180.0) % 360.0 - 180.0
        if abs(short) <= 1e-9:
            continue
        # bases are symmetric about their centre: turning the long way round sweeps everything the short
        # way does, so only the short way is looked at
        hit: tuple[str, ...] = ()
        if locomotion != "jump" and model.base.shape != "circle":  # a round base sweeps nothing new
            hit = _swept_by_turn(model, at, start, short, locomotion, pieces, others)
        pivot = Pivot(at, start, end, short, hit)
        found.append(pivot)
    return found


def _swept_by_turn(model: Model, at: Point2, start: float, turn: float, locomotion: str,
                   pieces: Sequence[Piece], others: Sequence[Other]) -> tuple[str, ...]:
    """What the base's footprint passes over turning `turn` degrees on its centre at `at`."""
    steps = max(1, math.ceil(abs(turn) / PIVOT_STEP))
    swept = shapely.union_all([footprint(replace(model, x=at[0], y=at[1], heading=start + turn * i / steps))
                               for i in range(steps + 1)])
    hit = [p.id for p in pieces if _bars(locomotion, p) and swept.intersection(p.shape).area > EPS]
    hit += [o.id for o in others if o.id != model.id and (o.enemy or o.wreckage)
            and swept.intersection(o.shape).area > EPS]
    return tuple(hit)


def _named(ids: Sequence[str], pieces: Sequence[Piece], others: Sequence[Other]) -> list[str]:
    terrain = {p.id for p in pieces}
    return [f"impassable terrain {i!r}" if i in terrain else f"base {i!r}" for i in ids]


def _end_footprint(model: Model, path: Sequence[Point2]) -> BaseGeometry:
    """The base where the path ends, facing along its last stretch (bases move facing forwards)."""
    heading = model.heading
    for (x0, y0), (x1, y1) in zip(path[-2::-1], path[:0:-1], strict=False):
        if math.hypot(x1 - x0, y1 - y0) > EPS:
            heading = math.degrees(math.atan2(y1 - y0, x1 - x0))
            break
    return footprint(replace(model, x=path[-1][0], y=path[-1][1], heading=heading))


def _coords(geom: BaseGeometry) -> list[tuple[float, ...]]:
    if geom.is_empty:
        return []
    if hasattr(geom, "geoms"):
        return [c for g in geom.geoms for c in _coords(g)]
    return list(geom.coords)
