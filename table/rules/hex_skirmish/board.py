"""The map as integer cells for the live table: static terrain arrays, step tables per footprint shape,
and a movement search over them that gives exactly `Mover.search`'s costs and paths.

A cell is `(q - q0) * height + (r - r0)` in a box padded around the map, so cell order is hex order
(the tie-break of `Mover.search`'s heap). What never changes during a game (which anchors a footprint
fits, what each step costs) is tabled once per shape; what units do (enemies block, others cannot be
stopped on) is passed to each search as sets of cells.
"""

from __future__ import annotations

import numpy as np

from table.hexgrid import DIRECTIONS, Hex
from table.rules.hex_skirmish.field import Field
from table.rules.hex_skirmish.movement import Ground
from table.rules.hex_skirmish.text import HARD_COVER_COST, STEP_COST

NUDGE = 1e-6      # `hexgrid.line`'s nudge of both ends


def round_many(q: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]:
    """`hexgrid.hex_round` over arrays: rounded q and r, and the rounding errors of q, r and s."""
    s = -q - r
    rq, rr, rs = np.rint(q), np.rint(r), np.rint(s)
    eq, er, es = np.abs(rq - q), np.abs(rr - r), np.abs(rs - s)
    fix_q = (eq > er) & (eq > es)
    fix_r = ~fix_q & (er > es)
    rq = np.where(fix_q, -rr - rs, rq).astype(np.int64)
    rr = np.where(fix_r, -rq - rs, rr).astype(np.int64)
    return rq, rr, (eq, er, es)
PAD = 4           # cells of margin around the map: footprint offsets up to this stay in the box
SIDE_KIND = {"soft_cover": 1, "hard_cover": 2}


class Board:
    """Static per-cell arrays for one scene's map (terrain, blocking, cover hexsides)."""

    def __init__(self, field: Field, ground: Ground):
        self.field = field
        board = field.board
        qs, rs = [h[0] for h in board] or [0], [h[1] for h in board] or [0]
        self.q0, self.r0 = min(qs) - PAD, min(rs) - PAD
        self.width, self.height = max(qs) - self.q0 + PAD + 1, max(rs) - self.r0 + PAD + 1
        self.size = self.width * self.height
        self.steps = tuple(dq * self.height + dr for dq, dr in DIRECTIONS)
        self.direction_of = np.full(2 * self.height + 3, -1, dtype=np.int64)   # cell step + height + 1
        self.direction_of[np.array(self.steps) + self.height + 1] = np.arange(6)
        terrain = field.rules.hex_terrain
        self.blocking = np.zeros(self.size, dtype=bool)
        for h, kind in terrain.items():
            if kind in ground.blocking and self.inside(h):
                self.blocking[self.cell(h)] = True
        self.side_kind = np.zeros((self.size, 6), dtype=np.int8)
        for (a, b), feature in field.sides.items():
            step = (b[0] - a[0], b[1] - a[1])
            if feature in SIDE_KIND and step in DIRECTIONS and self.inside(a):
                self.side_kind[self.cell(a), DIRECTIONS.index(step)] = SIDE_KIND[feature]
        self.special = self.blocking | self.side_kind.any(axis=1)   # cells a line of sight must look at
        self.lines = HexLines(max(qs) - min(qs), max(rs) - min(rs), self.height)
        self.ground = ground
        self._shapes: dict[tuple[tuple[Hex, ...], bool], Shape] = {}
        self._stacked: tuple[np.ndarray, np.ndarray] | None = None

    def inside(self, h: Hex) -> bool:
        return 0 <= h[0] - self.q0 < self.width and 0 <= h[1] - self.r0 < self.height

    def cell(self, h: Hex) -> int:
        return (h[0] - self.q0) * self.height + (h[1] - self.r0)

    def hex(self, cell: int) -> Hex:
        q, r = divmod(cell, self.height)
        return (q + self.q0, r + self.r0)

    def fits(self, offsets: tuple[Hex, ...]) -> bool:
        """Whether a footprint's offsets stay within the box's margin (else use `Mover`)."""
        return all(max(abs(q), abs(r), abs(q + r)) < PAD for q, r in offsets)

    def shape(self, offsets: tuple[Hex, ...], vehicle: bool) -> Shape:
        """The step table of one footprint shape (built once, kept)."""
        key = (offsets, vehicle)
        if key not in self._shapes:
            self._shapes[key] = Shape(self, offsets, vehicle, len(self._shapes))
            self._stacked = None
        return self._shapes[key]

    def stacked(self) -> tuple[np.ndarray, np.ndarray]:
        """Every shape's step table as one array: row `shape.id * size + cell` -> 6 targets and costs."""
        if self._stacked is None:
            shapes = sorted(self._shapes.values(), key=lambda shape: shape.id)
            self._stacked = (np.concatenate([shape.target for shape in shapes]),
                             np.concatenate([shape.cost for shape in shapes]))
        return self._stacked

    def edges_from(self, shape: Shape, cell: int) -> None:
        """Make sure the table has the steps from `cell` (a start the shape does not fit on)."""
        if not shape.known[cell]:
            shape.fill(cell)
            self._stacked = None


class HexLines:
    """Every hex line from (0, 0) to an offset within the map's span, as `hexgrid.line` draws it (with its
    nudge, the line from a to b is the line from (0, 0) to b - a moved by a). Per offset
    `(dq + span_q) * (2 * span_r + 1) + (dr + span_r)`: its length (hex distance) and first point; per
    point: the cell step from the line's start, and whether `hex_round` met a tie there that only the
    line's true ends decide (`sightlines` redraws those few points as `hexgrid.line` does)."""

    def __init__(self, span_q: int, span_r: int, height: int):
        self.span_q, self.span_r = span_q, span_r
        grid_q, grid_r = np.meshgrid(np.arange(-span_q, span_q + 1), np.arange(-span_r, span_r + 1),
                                     indexing="ij")
        dq, dr = grid_q.ravel(), grid_r.ravel()
        self.length = (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2
        self.first = np.cumsum(self.length + 1) - (self.length + 1)
        which = np.repeat(np.arange(len(dq)), self.length + 1)
        k = (np.arange(len(which)) - self.first[which]).astype(np.float64)
        nf = np.maximum(self.length, 1)[which].astype(np.float64)
        fq = fr = 0.0 + NUDGE
        q = fq + ((dq[which] + NUDGE) - fq) * k / nf
        r = fr + ((dr[which] + NUDGE) - fr) * k / nf
        rq, rr, (eq, er, es) = round_many(q, r)
        self.step = rq * height + rr
        # q or r to fix with equal errors: float noise decides, so those points are redrawn from the true ends
        self.tie = (np.abs(eq - er) < 1e-9) & (np.maximum(eq, er) > es)

    def offset(self, dq: np.ndarray, dr: np.ndarray) -> np.ndarray:
        index: np.ndarray = (dq + self.span_q) * (2 * self.span_r + 1) + (dr + self.span_r)
        return index


class Shape:
    """For one footprint shape: the anchors it fits on, and each anchor's steps with their static cost."""

    def __init__(self, board: Board, offsets: tuple[Hex, ...], vehicle: bool, ident: int):
        self.board, self.offsets, self.vehicle, self.id = board, offsets, vehicle, ident
        self.cell_offsets = tuple(board.cell(o) - board.cell((0, 0)) for o in offsets)
        field, ground = board.field, board.ground
        on, terrain = field.board, field.rules.hex_terrain
        self.open = [False] * board.size
        for a in self._candidates():
            if all((h := (a[0] + q, a[1] + r)) in on and terrain.get(h, "clear") not in ground.impassable
                   for q, r in offsets):
                self.open[board.cell(a)] = True
        self.hard = frozenset(pair for pair, feature in field.sides.items() if feature == "hard_cover")
        self.difficult = frozenset(h for h, t in terrain.items() if t in ground.difficult)
        self.target = np.full((board.size, 6), -1, dtype=np.int64)
        self.cost = np.zeros((board.size, 6), dtype=np.int64)
        self.known = np.zeros(board.size, dtype=bool)
        self._steps: list[tuple[tuple[int, int], ...]] | None = None
        for i, fits in enumerate(self.open):
            if fits:
                self.fill(i)
        self.steps()

    def _candidates(self) -> set[Hex]:
        return {(h[0] - q, h[1] - r) for h in self.board.field.board for q, r in self.offsets}

    def fill(self, i: int) -> None:
        """Table the allowed steps from anchor cell i: target cell and cost per direction (-1: none)."""
        a = self.board.hex(i)
        self.known[i] = True
        for d, (step, delta) in enumerate(zip(DIRECTIONS, self.board.steps, strict=True)):
            j = i + delta
            if not self.open[j]:
                continue
            cost, allowed = STEP_COST, True
            for q, r in self.offsets:
                h = (a[0] + q, a[1] + r)
                into = (h[0] + step[0], h[1] + step[1])
                if (h, into) in self.hard:
                    if self.vehicle:
                        allowed = False
                        break
                    cost = HARD_COVER_COST
                elif into in self.difficult:
                    cost = HARD_COVER_COST
            if allowed:
                self.target[i, d], self.cost[i, d] = j, cost
        if self._steps is not None:
            self._steps[i] = self._row(i)

    def _row(self, i: int) -> tuple[tuple[int, int], ...]:
        return tuple((int(t), int(c)) for t, c in zip(self.target[i], self.cost[i], strict=True) if t >= 0)

    def steps(self) -> list[tuple[tuple[int, int], ...]]:
        """The step table as Python lists: per cell, (target cell, cost) for each allowed step."""
        if self._steps is None:
            targets, costs = self.target.tolist(), self.cost.tolist()
            self._steps = [tuple((t, c) for t, c in zip(tr, cr, strict=True) if t >= 0)
                           for tr, cr in zip(targets, costs, strict=True)]
        return self._steps

    def anchors_over(self, cells: np.ndarray) -> np.ndarray:
        """Anchor cells whose footprint covers any of `cells` (a boolean mask over cells of the map;
        the box's margin keeps every such anchor inside it)."""
        if self.cell_offsets == (0,):
            return cells
        out = np.zeros_like(cells)
        hit = np.nonzero(cells)[0]
        for o in self.cell_offsets:
            out[hit - o] = True
        return out
