"""Age of Tyrants sight lines for many base pairs at once (the `report`'s batch).

`screen` runs the blocking tests of `LineOfSight.check` over every pair in a few numpy calls, with
the helpers in `segments`: the sight lines outside both end bases (`clip_ends`, once per two bases),
the terrain they cross (`Cores.crossed`), the bases they cross (`segments_near_points`, only the
bases near each line). `check` uses the same tests, so the two agree on what is in the way. Then, for pairs
where more than that decides: concealment depth (`LineOfSight.depths`, as `check` measures it) and
an elevated viewer's dead ground (`dead_ground`, on the exact circles of the bases; a pair within its
`UNSURE` of the 4" limit, or with a non-round base at an end, is left undecided for `check`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import shapely

from table.geometry import lines_of
from table.rules.age_of_tyrants.dead_ground import dead_ground
from table.rules.age_of_tyrants.profile import EPS
from table.rules.age_of_tyrants.segments import clip_ends, segments_near_points

if TYPE_CHECKING:
    from table.rules.age_of_tyrants.los import LineOfSight


@dataclass(frozen=True)
class Screened:
    """What the batch found for one pair: terrain and bases in the way (indices, in scene order)."""

    terrain: tuple[int, ...]
    bases: tuple[int, ...]
    elevated: bool
    concealed: bool  # a concealing piece (or smoke) holds an end whose concealment counts
    visible: bool
    decided: bool  # False: only `LineOfSight.check` can answer


@dataclass(frozen=True)
class Screen:
    """The batch's findings for every pair, as arrays (row k: the k-th pair)."""

    terrain: np.ndarray  # (P, pieces) bool: the piece is in the way
    bases: np.ndarray  # (P, bases) bool: the base is in the way
    elevated: list[bool]
    concealed: list[bool]
    visible: list[bool]
    decided: list[bool]
    walked: list[bool]  # blocked from a hill: which blockers count (and in what order) is the exact check's


    def rows(self, ks: list[int]) -> list[Screened]:
        """`self[k]` for each of `ks`, the blockers of all read in two array calls."""
        found = []
        for matrix in (self.terrain, self.bases):
            r, c = np.nonzero(matrix[ks])
            cuts = np.searchsorted(r, np.arange(1, len(ks)))
            found.append([tuple(part.tolist()) for part in np.split(c, cuts)] if len(ks) else [])
        return [Screened(terrain, bases, self.elevated[k], self.concealed[k], self.visible[k],
                         self.decided[k]) for k, terrain, bases in zip(ks, found[0], found[1], strict=True)]

    def __getitem__(self, k: int) -> Screened:
        return Screened(tuple(np.flatnonzero(self.terrain[k]).tolist()),
                        tuple(np.flatnonzero(self.bases[k]).tolist()),
                        self.elevated[k], self.concealed[k], self.visible[k], self.decided[k])


NEAR_ENDS = 3.0  # inches of each line next to its ends looked at first (complete=False)


def _in_the_way(sight: LineOfSight, end0: np.ndarray, end1: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Whether each base (on the line between end0 and end1) blocks it: neither end, and at least as big
    as both ends (wreckage: always)."""
    big = sight.wreck_array[base] | (sight.size_array[base] >= np.maximum(
        sight.size_array[end0], sight.size_array[end1]) - EPS)
    blocks: np.ndarray = big & (base != end0) & (base != end1)
    return blocks


def screen(sight: LineOfSight, viewers: np.ndarray, targets: np.ndarray, complete: bool = True) -> Screen:
    """Screen the sight lines from base `viewers[k]` to base `targets[k]` (indices into `sight.base_ids`).

    `complete=False`: a line a base already blocks (seen from no hill) is not tested against terrain,
    so its row names only the bases: for callers that need only whether such a pair sees."""
    held = sight.held_matrix()  # (bases, pieces)
    n = len(viewers)
    rb = sight.radii[targets]
    round_ends = sight.round[viewers] & sight.round[targets]
    a, b = sight.centres[viewers], sight.centres[targets]
    # what lies between two bases does not depend on who looks: each line once, from the first base
    first, second = np.minimum(viewers, targets), np.maximum(viewers, targets)
    count = max(len(sight.base_ids), 1)
    lines, back = np.unique(first * count + second, return_inverse=True)
    back = back.reshape(-1)
    u0, u1 = lines // count, lines % count
    p0, p1, kept = clip_ends(sight.centres[u0], sight.centres[u1], sight.radii[u0], sight.radii[u1])
    live = np.flatnonzero(kept & sight.round[u0] & sight.round[u1])

    terrain = np.zeros((len(lines), len(sight.pieces)), dtype=bool)
    # the bases each line passes, as (line, base) index pairs; reach2 is negative for a base not round
    line_of, base_of = np.empty(0, dtype=int), np.empty(0, dtype=int)
    rest = live
    if not complete and len(live):
        # most lines are blocked next to an end (the front ranks): look there first, and along the
        # whole line only where no base blocks those stretches or an end is on a hill
        hills = ((held[u0] | held[u1]) & sight.elevated_mask[None, :]).any(axis=1)
        step = p1[live] - p0[live]
        length = np.hypot(step[:, 0], step[:, 1])
        part = np.minimum(NEAR_ENDS / np.where(length > 0, length, 1.0), 0.5)[:, None]
        stubs0 = np.concatenate([p0[live], p1[live] - step * part])
        stubs1 = np.concatenate([p0[live] + step * part, p1[live]])
        seg, base = segments_near_points(stubs0, stubs1, sight.centres, sight.reach2)
        near_line = live[seg % len(live)]
        ok = _in_the_way(sight, u0[near_line], u1[near_line], base)
        walled = np.zeros(len(lines), dtype=bool)
        walled[near_line[ok]] = True
        line_of, base_of = near_line[ok], base[ok]
        rest = live[~walled[live] | hills[live]]  # (each line's bases are found once: by its stubs or
        line_of, base_of = line_of[~hills[line_of]], base_of[~hills[line_of]]  # in full below)
    if len(rest):
        seg, found = segments_near_points(p0[rest], p1[rest], sight.centres, sight.reach2)
        line_of, base_of = np.concatenate([line_of, rest[seg]]), np.concatenate([base_of, found])
    if sight.other_cores and len(live):
        cols = np.fromiter(sight.other_cores, dtype=int)
        cores = np.array([sight.other_cores[i] for i in cols.tolist()], dtype=object)
        segs = lines_of(np.stack([p0[live], p1[live]], axis=1))
        r, c = np.nonzero(shapely.intersects(segs[:, None], cores[None, :]))
        line_of, base_of = np.concatenate([line_of, live[r]]), np.concatenate([base_of, cols[c]])
    keep = _in_the_way(sight, u0[line_of], u1[line_of], base_of)
    line_of, base_of = line_of[keep], base_of[keep]
    if len(live) and sight.pieces:
        test = live
        if not complete:  # lines a base blocks whatever the terrain, and no end on a hill
            walled = np.bincount(line_of, minlength=len(lines)) > 0
            hills = ((held[u0] | held[u1]) & sight.elevated_mask[None, :]).any(axis=1)
            test = live[~walled[live] | hills[live]]
        terrain[test] = sight.cores.crossed(p0[test], p1[test])
    terrain = terrain[back] & ~sight.flat_mask[None, :] & ~held[viewers] & ~held[targets]
    # each line's bases to the (one or two) pairs that look along it
    by_line = np.argsort(back, kind="stable")
    lo = np.searchsorted(back[by_line], line_of, side="left")
    many = np.searchsorted(back[by_line], line_of, side="right") - lo
    offsets = np.arange(int(many.sum())) - np.repeat(np.cumsum(many) - many, many)
    pair_of = by_line[np.repeat(lo, many) + offsets]
    crossing = np.zeros((n, len(sight.base_ids)), dtype=bool)
    crossing[pair_of, np.repeat(base_of, many)] = True

    blocked = terrain.any(axis=1) | (np.bincount(pair_of, minlength=n) > 0)
    elevated = (held[viewers] & sight.elevated_mask[None, :]).any(axis=1)
    hiding_t = held[targets] & sight.concealing_mask[None, :]
    hiding_v = held[viewers] & sight.concealing_mask[None, :] if sight.conceal_viewer else hiding_t & False
    concealed = hiding_t.any(axis=1) | hiding_v.any(axis=1)
    hill = round_ends & blocked & elevated
    shadowed, unsure_hill = dead_ground(sight, np.flatnonzero(hill), a, b, rb, terrain, crossing)
    cleared = hill & ~shadowed  # from the hill, nothing in the way hides the target
    terrain[cleared] = crossing[cleared] = False
    blocked &= ~cleared
    # (pair, end base, concealing piece) where only the depth of concealment decides
    ask = round_ends & concealed & ~blocked
    ends = [(k, int(viewers[k]), i) for k, i in zip(*np.nonzero(hiding_v & ask[:, None]), strict=True)]
    ends += [(k, int(targets[k]), i) for k, i in zip(*np.nonzero(hiding_t & ask[:, None]), strict=True)]
    hidden = np.zeros(n, dtype=bool)
    standing = sight.standing
    depths = sight.depths([(standing[viewers[k]], standing[targets[k]], standing[end], i)
                           for k, end, i in ends])
    for (k, end, _), depth in zip(ends, depths, strict=True):
        hidden[k] |= depth > sight.size_array[end] + EPS
    decided = round_ends & ~unsure_hill
    return Screen(terrain, crossing, elevated.tolist(), concealed.tolist(), (~blocked & ~hidden).tolist(),
                  decided.tolist(), (hill & shadowed).tolist())
