"""Everything the live table shows for a hex skirmish position, kept up to date move by move.

For every unit that can move (one model, a movement stat): its reachable hexes with their costs and
the cheapest path to each (as the `moves` and `path` questions give them). For every ordered pair of
enemy units: the hex line of sight, visible and the cover crossed (as the `los` question counts it).

After one unit moves only what the move can change is recomputed: the mover's search; every search
that read a hex the mover left or entered (enemies block, no one stops on another unit); the lines
of sight from and to the mover; and the lines of other pairs that pass a hex where a vehicle (heavy
cover) came or went. The answers equal a full recomputation (bench/bench_skirmish.py asserts it).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any

import numpy as np

from table.errors import QueryError
from table.hexgrid import DIRECTIONS, Hex, distance
from table.rules.hex_skirmish import footprint
from table.rules.hex_skirmish.board import Board, Shape
from table.rules.hex_skirmish.reach import INF, Job, Reach, search_many
from table.rules.hex_skirmish.rules import Rules
from table.rules.hex_skirmish.sight import DIG_IN_ARC
from table.rules.hex_skirmish.sightlines import Units, sight_pairs
from table.rules.hex_skirmish.units import size_class


@dataclass
class Piece:
    """A unit as the analysis tracks it: anchor hex, footprint offsets, facing, the cells it covers."""

    id: str
    player: str
    vehicle: bool
    anchor: Hex
    offsets: tuple[Hex, ...]
    facing: int
    cells: frozenset[int]
    allowance: int | None      # None: no search (several models, no movement stat, too wide)
    sized: int | None          # the model's size class (None: a listed footprint, whose shape is kept)
    single: bool               # one model (only such a unit can be moved)


class SkirmishAnalysis:
    """Incremental movement ranges and enemy lines of sight for one hex skirmish rule-system object."""

    def __init__(self, rules: Rules):
        self.rules = rules
        field = rules.field
        self.board = Board(field, rules.ground)
        self.arc = DIG_IN_ARC[rules.rulings["dig_in_arc"]]
        self.cover_rule, self.vehicle_rule = rules.rulings["cover_hexsides"], rules.rulings["vehicle_cover"]
        self.pieces: list[Piece] = []
        for unit_id in field.unit_hexes:
            self.pieces.append(self._piece(unit_id))
        self.index = {p.id: i for i, p in enumerate(self.pieces)}
        for p in self.pieces:   # the static step tables are part of the map, built before any timing
            if p.allowance is not None:
                self._shape(p)
        self.last_redone = 0
        self._players = np.array([p.player for p in self.pieces])
        self._steps = np.array(self.board.steps, dtype=np.int64)
        self._footprints: tuple[np.ndarray, np.ndarray] | None = None
        self.refresh()

    def _piece(self, unit_id: str) -> Piece:
        field, board = self.rules.field, self.board
        unit = field.units[unit_id]
        models = self.rules.scene.models_of(unit_id)
        anchor = self.rules.hex_of(models[0])
        allowance, sized, facing = None, None, 0
        offsets: tuple[Hex, ...] = ()
        if len(models) == 1:
            model = models[0]
            offsets = tuple((h[0] - anchor[0], h[1] - anchor[1]) for h in field.model_hexes[model.id])
            facing = footprint.facing_direction(field.layout, model.heading)
            if "footprint" not in model.extra:
                sized = unit.size if model.size is None else size_class(model.size, f"model {model.id!r}")
            if unit.movement is not None and board.fits(offsets) and board.inside(anchor):
                allowance = self.rules.mover(unit_id).allowance
        cells = frozenset(board.cell(h) for h in field.unit_hexes[unit_id] if board.inside(h))
        return Piece(unit_id, unit.player, unit.is_vehicle, anchor, offsets, facing, cells, allowance, sized,
                     len(models) == 1)

    def _shape(self, p: Piece) -> Shape:
        return self.board.shape(p.offsets, p.vehicle)

    # ------------------------------------------------------------ full computation

    def refresh(self) -> None:
        """Recompute every answer from the tracked positions."""
        n = len(self.pieces)
        self._units = Units([np.array(sorted(p.cells), dtype=np.int64) for p in self.pieces],
                            np.zeros((n, self.board.size), dtype=bool), self._vehicle_at(), None,
                            np.zeros((n, self.board.size * 6), dtype=bool), self.board.special)
        self._dug_cells: dict[int, list[int]] = {}
        for i in range(n):
            self._unit_rows(i, fresh=True)
        self._special()
        self._occupancy()
        self.reaches: dict[str, Reach] = {}
        self.reached = np.zeros((n, self.board.size), dtype=bool)    # cells each search settled
        self.relaxed = np.zeros((n, self.board.size), dtype=bool)    # ... with points left to step on
        self._search([i for i, p in enumerate(self.pieces) if p.allowance is not None])
        self._gaps()
        on = np.array([bool(p.cells) for p in self.pieces])
        enemy = self._players[:, None] != self._players[None, :]
        pairs = np.argwhere(enemy & on[:, None] & on[None, :])
        self.visible = np.zeros((n, n), dtype=bool)
        self.heavy = np.zeros((n, n), dtype=np.int64)
        self.light = np.zeros((n, n), dtype=np.int64)
        self._row = np.full(n * n, -1, dtype=np.int64)       # slot a * n + b -> row of `between`
        self._row[np.nonzero(enemy.ravel())[0]] = np.arange(int(enemy.sum()))
        self.between = np.zeros((int(enemy.sum()), self.board.size), dtype=bool)   # cells strictly between
        self._sight(pairs, fresh=True)

    def _occupancy(self, cells: np.ndarray | None = None) -> None:
        """How many units cover each cell, and the cells each player's enemies cover (only at `cells`
        when given: the cells a move changed)."""
        member, players = self._units.member, self._players
        if cells is None:
            self.count = member.sum(axis=0)
            self.enemy_cells = {p: member[players != p].any(axis=0) for p in set(players.tolist())}
            return
        column = member[:, cells]
        self.count[cells] = column.sum(axis=0)
        for p, mask in self.enemy_cells.items():
            mask[cells] = column[players != p].any(axis=0)

    def _search(self, which: list[int]) -> None:
        """Redo the movement searches of these pieces (by index)."""
        if not which:
            return
        no_stop = self.count[None, :] > self._units.member[which]    # a cell another unit covers
        rows: dict[tuple[str, int], int] = {}
        walls: list[np.ndarray] = []
        wall_of: list[int] = []
        jobs: list[Job] = []
        for row, i in enumerate(which):
            p = self.pieces[i]
            shape = self._shape(p)
            key = (p.player, shape.id)
            if key not in rows:
                rows[key] = len(walls)
                walls.append(shape.anchors_over(self.enemy_cells[p.player]))
            wall_of.append(rows[key])
            no_stop[row] = shape.anchors_over(no_stop[row])
            assert p.allowance is not None
            jobs.append(Job(shape, self.board.cell(p.anchor), p.allowance))
        found = search_many(self.board, jobs, np.stack(walls), np.array(wall_of, dtype=np.int64), no_stop)
        for i, reach in zip(which, found, strict=True):
            self.reaches[self.pieces[i].id] = reach
        cost = np.stack([reach.cost for reach in found])
        limit = np.array([reach.limit for reach in found])[:, None]
        self.reached[which] = cost <= limit
        self.relaxed[which] = cost < limit

    def _special(self) -> None:
        special = self.board.special | (self._units.vehicle_at >= 0)
        for cells in self._dug_cells.values():
            special[cells] = True
        self._units.special = special

    def _vehicle_at(self, cells: np.ndarray | None = None) -> np.ndarray:
        """Per cell, the vehicle `Field.occupant` names there (the first unit by scene order), else -1
        (only at `cells` when given: the rest stands)."""
        vehicle = np.array([p.vehicle for p in self.pieces] + [False], dtype=bool)
        if cells is not None:
            column = self._units.member[:, cells]
            first = np.where(column.any(axis=0), column.argmax(axis=0), -1)
            out = self._units.vehicle_at.copy()
            out[cells] = np.where(vehicle[first], first, -1)
            return out
        occupant = np.full(self.board.size, -1, dtype=np.int64)
        for i in range(len(self.pieces) - 1, -1, -1):
            occupant[list(self.pieces[i].cells)] = i
        return np.where(vehicle[occupant], occupant, -1)

    def _unit_rows(self, i: int, fresh: bool = False) -> None:
        """Piece i's rows in what the lines of sight read; `fresh`: the rows are still clear."""
        units, p = self._units, self.pieces[i]
        units.cells[i] = np.array(sorted(p.cells), dtype=np.int64)
        if not fresh:
            units.member[i] = False
            units.dug[i] = False
        units.member[i, list(p.cells)] = True
        board = self.board
        sides = self._dug_sides(p) if p.single else self.rules.field.dug_sides(p.id, self.arc)
        cells = []
        for a, b in sides:
            if board.inside(a) and board.inside(b):
                cells.append(board.cell(a))
                units.dug[i, cells[-1] * 6 + _direction(a, b)] = True
        if cells:
            self._dug_cells[i] = cells
        else:
            self._dug_cells.pop(i, None)

    def _dug_sides(self, p: Piece) -> set[tuple[Hex, Hex]]:
        """Dig In hexsides of a one-model unit where it stands now (as `Field.dug_sides` reads them)."""
        if not self.rules.field.units[p.id].has("dug_in"):
            return set()
        own = {(p.anchor[0] + q, p.anchor[1] + r) for q, r in p.offsets}
        out = set()
        for h in own:
            for turn in range(-(self.arc // 2), self.arc // 2 + 1):
                dq, dr = DIRECTIONS[(p.facing + turn) % 6]
                n = (h[0] + dq, h[1] + dr)
                if n not in own:
                    out.update({(h, n), (n, h)})
        return out

    def _gaps(self) -> None:
        if self.vehicle_rule == "in_the_way":
            return
        hexes = [[self.board.hex(c) for c in p.cells] for p in self.pieces]
        self._units.gaps = np.array([[min(distance(x, y) for x in a for y in b) if a and b else 10**6
                                      for b in hexes] for a in hexes], dtype=np.int64)

    def _sight(self, pairs: np.ndarray, fresh: bool = False) -> None:
        """Lines of sight of these pairs; `fresh`: their `between` rows are already clear."""
        if not len(pairs):
            return
        lines = sight_pairs(self.board, self._units, pairs, self.cover_rule, self.vehicle_rule)
        a, b = pairs[:, 0], pairs[:, 1]
        self.visible[a, b], self.heavy[a, b], self.light[a, b] = lines.visible, lines.heavy, lines.light
        slots = self._row[a * len(self.pieces) + b]
        if not fresh:
            self.between[slots] = False
        self.between.reshape(-1)[slots[lines.between_pair] * self.board.size + lines.between_cell] = True

    # ------------------------------------------------------------ incremental updates

    def move(self, unit: str, to: Hex | None, heading: float | None = None) -> int:
        """Put a unit's model on hex `to` (None: taken off the table), optionally turned to `heading`
        (a listed footprint keeps its shape), and bring every answer up to date. Returns how many
        movement searches were redone."""
        i = self._find(unit)
        p = self.pieces[i]
        if not p.single:
            raise QueryError(f"unit {unit!r} has several models; name one model to move it")
        if to is not None and tuple(to) not in self.rules.field.board:
            raise QueryError(f"hex {list(to)} is not on the board")
        if heading is not None and p.sized is not None:
            p.facing = footprint.facing_direction(self.rules.field.layout, heading)
            p.offsets = footprint.offsets(p.sized, p.facing)
        old = p.cells
        board = self.board
        if heading is not None or to is None:
            self._footprints = None
        if to is None:
            p.cells, p.allowance = frozenset(), None
        else:
            p.anchor = (int(to[0]), int(to[1]))
            p.cells = frozenset(board.cell((p.anchor[0] + q, p.anchor[1] + r)) for q, r in p.offsets
                                if board.inside((p.anchor[0] + q, p.anchor[1] + r)))
        changed = np.zeros(board.size, dtype=bool)
        changed[list(old | p.cells)] = True
        if to is None:
            self.reaches.pop(p.id, None)
            self.reached[i] = self.relaxed[i] = False
        before = self._units.vehicle_at
        self._unit_rows(i)
        self._occupancy(np.nonzero(changed)[0])
        redo, refilter = self._readers(i, changed)
        if p.allowance is not None:
            redo.append(i)
        self._search(redo)
        self._refilter(refilter, changed)
        cells = np.nonzero(changed)[0]
        self._units.vehicle_at = self._vehicle_at(cells)
        self._special()
        self._gaps()
        n = len(self.pieces)
        moved_vehicle = before[cells] != self._units.vehicle_at[cells]
        watch = cells if p.vehicle else cells[moved_vehicle]
        by_row = np.zeros(n * n, dtype=bool)
        if len(watch):
            rows = np.any(self.between[:, watch], axis=1)
            by_row[self._row >= 0] = rows[self._row[self._row >= 0]]
        crossed = by_row.reshape(n, n)
        crossed[i, :] = crossed[:, i] = True
        crossed &= self._players[:, None] != self._players[None, :]
        present = np.array([bool(q.cells) for q in self.pieces])
        crossed &= present[:, None] & present[None, :]
        self._sight(np.argwhere(crossed))
        self.last_redone = len(redo)
        return self.last_redone

    def _readers(self, i: int, changed: np.ndarray) -> tuple[list[int], list[int]]:
        """Searches (other than piece i's) that read a changed cell: (to redo, to re-filter only).

        A search that reached a footprint there must re-filter its destinations (stopping there is now
        allowed or not); one of the mover's enemies that stepped, or could have stepped, onto it must
        be redone (an enemy there now blocks it, or no longer does). Friends never block."""
        rows, offsets = self._footprint_cells()
        anchors = np.nonzero(changed)[0][None, :] - offsets[:, None]      # (row, offset) x changed cell
        hit = np.zeros(len(self.pieces), dtype=bool)
        hit[rows[self.reached[rows[:, None], anchors].any(axis=1)]] = True
        near = (anchors[:, :, None] - self._steps).reshape(len(rows), -1)
        close = np.zeros(len(self.pieces), dtype=bool)
        close[rows[self.relaxed[rows[:, None], near].any(axis=1)]] = True
        hit[i] = close[i] = False
        enemy = self._players != self.pieces[i].player
        return np.nonzero(enemy & (hit | close))[0].tolist(), np.nonzero(hit & ~enemy)[0].tolist()

    def _footprint_cells(self) -> tuple[np.ndarray, np.ndarray]:
        """Every searching piece's footprint cell offsets, flat: (piece index, cell offset) pairs (kept
        until a piece turns or leaves the table)."""
        if self._footprints is None:
            pairs = [(j, o) for j, other in enumerate(self.pieces) if other.allowance is not None
                     for o in self._shape(other).cell_offsets]
            self._footprints = (np.array([j for j, _ in pairs], dtype=np.int64),
                             np.array([o for _, o in pairs], dtype=np.int64))
        return self._footprints

    def _refilter(self, which: list[int], changed: np.ndarray) -> None:
        """New destinations for searches whose costs stand (a friend came or went): only anchors whose
        footprint covers a changed cell can change, the rest of the old destinations stand."""
        if not which:
            return
        count, size = self.count.tolist(), self.board.size
        hit = np.nonzero(changed)[0].tolist()
        for i in which:
            p = self.pieces[i]
            offsets, old, own = self._shape(p).cell_offsets, self.reaches[p.id], p.cells
            listed, cost = old.stops.tolist(), old.cost
            stops, gone, come = set(listed), set(), []
            for a in {h - o for h in hit for o in offsets}:
                if not 0 <= a < size or a == old.start or cost[a] >= INF:
                    continue
                stop = not any(count[a + o] > ((a + o) in own) for o in offsets)
                if stop and a not in stops:
                    come.append(a)
                elif not stop and a in stops:
                    gone.add(a)
            if gone or come:
                new = [c for c in listed if c not in gone] if gone else listed
                for a in come:      # the old list is cheapest first then by cell: keep that order
                    bisect.insort(new, a, key=lambda c, cost=cost: (int(cost[c]), c))
                self.reaches[p.id] = Reach(old.start, old.limit, cost, old.before,
                                           np.array(new, dtype=np.int64))

    def _find(self, unit: str) -> int:
        if unit not in self.index:
            raise QueryError(f"unit {unit!r} is not on the table")
        return self.index[unit]

    # ------------------------------------------------------------ answers

    def reachable(self, unit: str) -> list[dict[str, Any]]:
        """As the `moves` question's `reachable`: [{"hex", "cost"}], cheapest first then by hex."""
        reach = self._reach(unit)
        return [{"hex": list(self.board.hex(c)), "cost": int(reach.cost[c])} for c in reach.stops.tolist()]

    def path(self, unit: str, to: Hex) -> list[Hex] | None:
        """The cheapest path to a destination within this turn's movement (None: not one)."""
        reach, cell = self._reach(unit), self.board.cell(to) if self.board.inside(to) else -1
        return [self.board.hex(c) for c in reach.path(cell)] if cell in reach.stops.tolist() else None

    def _reach(self, unit: str) -> Reach:
        if unit not in self.reaches:
            self._find(unit)
            raise QueryError(f"unit {unit!r}: its moves are not tracked (several models, no movement stat, "
                             "off the map or a footprint wider than the table's margin)")
        return self.reaches[unit]

    def sight(self, a: str, b: str) -> dict[str, Any]:
        """As the `los` question's `visible` and `cover` for two enemy units."""
        i, j = self._find(a), self._find(b)
        if self.pieces[i].player == self.pieces[j].player:
            raise QueryError(f"units {a!r} and {b!r} are on the same side")
        return {"visible": bool(self.visible[i, j]),
                "cover": {"light": int(self.light[i, j]), "heavy": int(self.heavy[i, j])}}

    def answers(self) -> dict[str, Any]:
        """Every answer as plain values (destinations with cost and path; sight per enemy pair)."""
        hexes = self.board.hex
        moves = {uid: [(hexes(c), int(r.cost[c]), tuple(map(hexes, r.path(c)))) for c in r.stops.tolist()]
                 for uid, r in sorted(self.reaches.items())}
        sight = {}
        for i, p in enumerate(self.pieces):
            for j, o in enumerate(self.pieces):
                if p.player != o.player and p.cells and o.cells:
                    sight[(p.id, o.id)] = (bool(self.visible[i, j]), int(self.heavy[i, j]),
                                           int(self.light[i, j]))
        return {"moves": moves, "sight": sight}


def _direction(a: Hex, b: Hex) -> int:
    return DIRECTIONS.index((b[0] - a[0], b[1] - a[1]))
