"""Many hex lines of sight at once with numpy, giving exactly `sight.sight`'s visible and cover counts.

Every candidate line of every pair (each hex of the shooter's footprint to each hex of the target's,
in `sight.sight`'s order) is read in one go from the board's table of lines by offset (`HexLines`),
its few float-noise ties redrawn with `hexgrid.line`'s arithmetic on the line's own ends; then,
per line, blocking terrain and vehicles between the two, and the cover hexsides and Dig In hexsides
crossed, as `sight._one_line` counts them; per pair the best line (visible first, then the least heavy
cover, the least light cover, the shortest, the first drawn).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from table.rules.hex_skirmish.board import NUDGE, Board, round_many


@dataclass
class Units:
    """What lines of sight read about the units, by unit index (kept up to date by the analysis)."""

    cells: list[np.ndarray]        # each unit's footprint cells, sorted (hex order)
    member: np.ndarray             # bool [units, cells]: cell in the unit's footprint
    vehicle_at: np.ndarray         # int [cells]: the vehicle `Field.occupant` names there, else -1
    gaps: np.ndarray | None        # int [units, units]: footprint distances (only for vehicle_cover=adjacent)
    dug: np.ndarray                # bool [units, cells * 6]: Dig In hexside (cell, direction) of that unit
    special: np.ndarray            # bool [cells]: blocking terrain, a vehicle, a cover or Dig In hexside


@dataclass(frozen=True)
class Lines:
    """Per pair: visible, heavy and light cover; and (pair, cell) for every hex strictly between."""

    visible: np.ndarray
    heavy: np.ndarray
    light: np.ndarray
    between_pair: np.ndarray
    between_cell: np.ndarray


def sight_pairs(board: Board, units: Units, pairs: np.ndarray, cover_rule: str, vehicle_rule: str) -> Lines:
    """Lines of sight for `pairs` ((P, 2) unit indices: shooter, target; both with footprint cells)."""
    cells = units.cells
    lens = np.array([len(c) for c in cells], dtype=np.int64)
    first = np.cumsum(lens) - lens
    flat = np.concatenate(cells)
    pa, pb = pairs[:, 0], pairs[:, 1]
    per = lens[pa] * lens[pb]           # each hex of the shooter's footprint to each of the target's
    owner = np.repeat(np.arange(len(pairs)), per)
    j = np.arange(int(per.sum())) - np.repeat(np.cumsum(per) - per, per)
    across = lens[pb][owner]
    start = flat[first[pa][owner] + j // across]
    end = flat[first[pb][owner] + j % across]
    count = len(owner)
    h, table = board.height, board.lines
    dq, dr = end // h - start // h, end % h - start % h
    off = table.offset(dq, dr)
    n = table.length[off]
    which = np.repeat(np.arange(count), n + 1)
    first = np.cumsum(n + 1) - (n + 1)
    point = np.arange(len(which)) + np.repeat(table.first[off] - first, n + 1)
    k = point - table.first[off][which]
    cell = start[which] + table.step[point]    # a line between two cells of the map stays in its margin
    tie = np.nonzero(table.tie[point])[0]
    if len(tie):
        line = which[tie]
        cell[tie] = _drawn(board, start[line], end[line], k[tie], n[line])
    la, lb = pairs[owner, 0], pairs[owner, 1]
    last = n[which]
    inner = (k > 0) & (k < last)
    # only points on a cell with something to look at: blocking terrain, a vehicle, a cover hexside
    pts = np.nonzero(units.special[cell])[0]
    pc, pl = cell[pts], which[pts]
    member, size = units.member.reshape(-1), board.size
    own, tgt = member[la[pl] * size + pc], member[lb[pl] * size + pc]
    free = inner[pts] & ~own & ~tgt
    blocked = np.zeros(count, dtype=bool)
    blocked[pl[free & board.blocking[pc]]] = True
    heavy = _vehicles(units, pl, pc, free, la[pl], lb[pl], count, vehicle_rule)
    # hexsides crossed: from such a point to the next point of its line
    at = k[pts] < last[pts]
    step, here, line_of = pts[at], pc[at], pl[at]
    own_here, tgt_here = own[at], tgt[at]
    nxt = cell[step + 1]
    direction = board.direction_of[np.minimum(np.maximum(nxt - here + h + 1, 0), 2 * h + 2)]
    valid = direction >= 0
    here, line_of, nxt, direction = here[valid], line_of[valid], nxt[valid], direction[valid]
    own_here, tgt_here = own_here[valid], tgt_here[valid]
    kind = board.side_kind[here, direction]
    own_next, tgt_next = member[la[line_of] * size + nxt], member[lb[line_of] * size + nxt]
    at_target = tgt_here | tgt_next
    counts = at_target if cover_rule == "target" else at_target | ~(own_here | own_next)
    counts &= ~((own_here & own_next) | (tgt_here & tgt_next))
    light = np.bincount(line_of[counts & (kind == 1)], minlength=count)
    heavy += np.bincount(line_of[counts & (kind == 2)], minlength=count)
    heavy += np.bincount(line_of[units.dug.reshape(-1)[lb[line_of] * (size * 6) + here * 6 + direction]],
                         minlength=count)
    # per pair the least (blocked, heavy, light, length, line drawn first)
    rank = ((((blocked.astype(np.int64) * 256 + heavy) * 256 + light) * 1024 + n) * count) + np.arange(count)
    starts = np.r_[0, np.nonzero(owner[1:] != owner[:-1])[0] + 1]
    best = np.minimum.reduceat(rank, starts) % count
    return Lines(~blocked[best], heavy[best], light[best], owner[which[inner]], cell[inner])


def _drawn(board: Board, start: np.ndarray, end: np.ndarray, k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The cells of points k of lines from `start` to `end` (of lengths n), with `hexgrid.line`'s float
    arithmetic on the lines' own ends."""
    h = board.height
    aq, ar = start // h + board.q0, start % h + board.r0
    bq, br = end // h + board.q0, end % h + board.r0
    kf, nf = k.astype(np.float64), np.maximum(n, 1).astype(np.float64)
    fq, fr = aq + NUDGE, ar + NUDGE
    q = fq + ((bq + NUDGE) - fq) * kf / nf
    r = fr + ((br + NUDGE) - fr) * kf / nf
    rq, rr, _ = round_many(q, r)
    cells: np.ndarray = (rq - board.q0) * h + (rr - board.r0)
    return cells


def _vehicles(units: Units, which: np.ndarray, cell: np.ndarray, free: np.ndarray, pa: np.ndarray,
              pb: np.ndarray, count: int, rule: str) -> np.ndarray:
    """Distinct vehicles (other than the two) standing on each line, as heavy cover counts."""
    v = units.vehicle_at[cell]
    hit = free & (v >= 0) & (v != pa) & (v != pb)
    if rule != "in_the_way":
        assert units.gaps is not None
        hit &= units.gaps[np.maximum(v, 0), pb] <= 1
    total = len(units.cells)
    keys = np.unique(which[hit] * total + v[hit])
    return np.bincount(keys // total, minlength=count).astype(np.int64)
