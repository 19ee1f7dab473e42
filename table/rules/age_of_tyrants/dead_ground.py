"""Age of Tyrants dead ground for many sight lines at once: the elevated viewer's 4" rule in numbers.

From a hill, a blocker hides only what lies within 4" behind it: `LineOfSight._shadows` walks the
blockers from the viewer outwards (a base in an earlier blocker's dead ground casts none) and keeps
those within 4" of the target's back. This does the same walk on the exact circles of round bases and
the half-planes of convex terrain; where any distance or order comes within `UNSURE` of a tie, the
pair is left to the exact check.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import shapely

from table.rules.age_of_tyrants.profile import EPS

if TYPE_CHECKING:
    from table.rules.age_of_tyrants.los import LineOfSight

SHADOW = 4.0
UNSURE = 1e-3  # inches: nearer a tie than this, the exact check decides

Point2 = tuple[float, float]
Blocker = tuple[float, str, int, Point2 | None]  # (entry, kind, index, a base's back point; None: terrain)


def dead_ground(sight: LineOfSight, pairs: np.ndarray, a: np.ndarray, b: np.ndarray, rb: np.ndarray,
                terrain: np.ndarray, crossing: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows `pairs` of a (viewers on hills, something in the way): (still blocked, unsure), per row."""
    shadowed, unsure = np.zeros(len(a), dtype=bool), np.zeros(len(a), dtype=bool)
    centres: list[list[float]] = sight.centres.tolist()
    radii: list[float] = sight.radii.tolist()
    in_way: dict[int, tuple[list[int], list[int]]] = {}  # pair -> (terrain pieces, bases) in the way
    for what, matrix in enumerate((terrain[pairs], crossing[pairs])):
        for row, col in zip(*np.nonzero(matrix), strict=True):
            in_way.setdefault(int(pairs[row]), ([], []))[what].append(int(col))
    walks: list[tuple[int, list[Blocker], Point2]] = []  # (pair, blockers, target's back)
    jobs: list[tuple[int, Point2]] = []  # (piece, point): terrain distances to look up together
    for k, (ax, ay), (bx, by), rbk in zip(pairs.tolist(), a[pairs].tolist(), b[pairs].tolist(),
                                          rb[pairs].tolist(), strict=True):
        length = math.hypot(bx - ax, by - ay)
        ux, uy = (bx - ax) / length, (by - ay) / length
        blockers: list[Blocker] = []
        pieces, bases = in_way.get(k, ([], []))
        for i in pieces:
            planes = sight.cores.planes.get(i)
            if planes is None:
                unsure[k] = True
                break
            blockers.append((_entry(planes, ax, ay, ux, uy, length), "terrain", i, None))
        if unsure[k]:
            continue
        for j in bases:
            (cx, cy), r = centres[j], radii[j]
            s, h = (cx - ax) * ux + (cy - ay) * uy, (cx - ax) * uy - (cy - ay) * ux
            w = math.sqrt(max(r * r - h * h, 0.0))
            blockers.append((min(max(s - w, 0.0), length), "base", j, (ax + ux * (s + w), ay + uy * (s + w))))
        blockers.sort()
        if any(q[0] - p[0] < UNSURE for p, q in zip(blockers, blockers[1:], strict=False)):
            unsure[k] = True
            continue
        back = (ax + ux * (length + rbk), ay + uy * (length + rbk))
        points: list[Point2] = [p[3] for p in blockers if p[3] is not None] + [back]
        jobs += [(p[2], pt) for p in blockers if p[1] == "terrain" for pt in points]
        walks.append((k, blockers, back))
    far: dict[tuple[int, Point2], float] = {}
    if jobs:
        shapes = [sight.pieces[i].shape for i, _ in jobs]
        found = shapely.distance(shapes, shapely.points([pt for _, pt in jobs])).tolist()
        far = {job: d for job, d in zip(jobs, found, strict=True)}

    def distance(blocker: Blocker, point: Point2) -> float:
        if blocker[1] == "terrain":
            return far[blocker[2], point]
        (cx, cy), r = centres[blocker[2]], radii[blocker[2]]
        return max(0.0, math.hypot(cx - point[0], cy - point[1]) - r)

    for k, blockers, back in walks:
        casting: list[Blocker] = []
        close: list[float] = []
        for blocker in blockers:
            if blocker[3] is not None:  # a base
                gaps = [distance(c, blocker[3]) - SHADOW - EPS for c in casting]
                close += gaps
                if any(g <= 0 for g in gaps):
                    continue
            casting.append(blocker)
        gaps = [distance(c, back) - SHADOW - EPS for c in casting]
        unsure[k] = any(abs(g) < UNSURE for g in gaps + close)
        shadowed[k] = any(g <= 0 for g in gaps)
    return shadowed, unsure


def _entry(planes: list[tuple[float, float, float]], ax: float, ay: float, ux: float, uy: float,
           length: float) -> float:
    """How far along the sight line it first enters a convex piece (Cyrus-Beck on the piece's edges)."""
    enter = 0.0
    for nx, ny, c in planes:
        den = ux * nx + uy * ny
        if den < 0:
            enter = max(enter, (c - (ax * nx + ay * ny)) / den)
    return min(enter, length)
