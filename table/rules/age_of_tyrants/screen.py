"""Age of Tyrants sight lines for many base pairs at once (the `report`'s batch).

`screen` runs the blocking tests of `LineOfSight.check` over every pair in a few numpy calls, with
the helpers in `segments`: the sight lines outside both end bases (`clip_ends`, once per two bases),
the terrain they cross (`Cores.crossed`), the bases they cross (`segment_point_distances`, one
matrix). `check` uses the same functions, so the two agree on what is in the way. Then, for the pairs
where more than that decides: concealment depth (`LineOfSight.depths`, as `check` measures it) and
an elevated viewer's dead ground (`dead_ground`, on the exact circles of the bases; a pair within its
`UNSURE` of the 4" limit, or with a non-round base at an end, is left undecided for `check`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import shapely

from table.rules.age_of_tyrants.dead_ground import dead_ground
from table.rules.age_of_tyrants.profile import EPS
from table.rules.age_of_tyrants.segments import clip_ends, segment_point_distances

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


    def __getitem__(self, k: int) -> Screened:
        return Screened(tuple(np.flatnonzero(self.terrain[k]).tolist()),
                        tuple(np.flatnonzero(self.bases[k]).tolist()),
                        self.elevated[k], self.concealed[k], self.visible[k], self.decided[k])


def screen(sight: LineOfSight, viewers: np.ndarray, targets: np.ndarray) -> Screen:
    """Screen the sight lines from base `viewers[k]` to base `targets[k]` (indices into `sight.base_ids`)."""
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
    crossing = np.zeros((len(lines), len(sight.base_ids)), dtype=bool)
    if len(live):
        if sight.pieces:
            terrain[live] = sight.cores.crossed(p0[live], p1[live])
        dist = segment_point_distances(p0[live], p1[live], sight.centres)
        crossing[live] = sight.round[None, :] & (dist < sight.reach2[None, :])
        if sight.other_cores:
            cols = np.fromiter(sight.other_cores, dtype=int)
            cores = np.array([sight.other_cores[i] for i in cols.tolist()], dtype=object)
            segs = shapely.linestrings(np.stack([p0[live], p1[live]], axis=1))
            crossing[np.ix_(live, cols)] = shapely.intersects(segs[:, None], cores[None, :])
    terrain = terrain[back] & ~sight.flat_mask[None, :] & ~held[viewers] & ~held[targets]
    crossing = crossing[back]
    rows = np.arange(n)
    crossing[rows, viewers] = crossing[rows, targets] = False
    tallest = np.maximum(sight.size_array[viewers], sight.size_array[targets])
    crossing &= sight.wreck_array[None, :] | (sight.size_array[None, :] >= tallest[:, None] - EPS)

    blocked = terrain.any(axis=1) | crossing.any(axis=1)
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
    found = sight.depths([(standing[viewers[k]], standing[targets[k]], standing[end], i)
                          for k, end, i in ends])
    for (k, end, _), depth in zip(ends, found, strict=True):
        hidden[k] |= depth > sight.size_array[end] + EPS
    decided = round_ends & ~unsure_hill
    return Screen(terrain, crossing, elevated.tolist(), concealed.tolist(), (~blocked & ~hidden).tolist(),
                  decided.tolist(), (hill & shadowed).tolist())
