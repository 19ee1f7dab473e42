"""A hex line of sight for the table's displays (Syniad itself has no ranged combat; see the rulings page).

The line is Red Blob Games' nudged hex line; it is blocked when a hex strictly between the two ends
has blocking terrain. `visible_many` draws many lines at once with numpy and gives exactly the
answers of `sight` (same arithmetic, same rounding).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypedDict

import numpy as np
import numpy.typing as npt

from table.hexgrid import Hex, line

DEFAULT_BLOCKING = frozenset({"mountain", "forest", "town"})
_NUDGE = 1e-6


class BlockingGrid:
    """Blocking hexes as a boolean array over the hexes' (q, r) bounding box (outside: not blocking)."""

    def __init__(self, hexes: Iterable[Hex], blocking: Iterable[Hex]):
        hexes = list(hexes)
        qs = [h[0] for h in hexes] or [0]
        rs = [h[1] for h in hexes] or [0]
        self.q0, self.r0 = min(qs) - 1, min(rs) - 1
        self.grid = np.zeros((max(qs) - self.q0 + 2, max(rs) - self.r0 + 2), dtype=bool)
        self.blocking = frozenset(blocking).intersection(hexes)  # only hexes of the map block
        for q, r in self.blocking:
            self.grid[q - self.q0, r - self.r0] = True

    def lookup(self, q: np.ndarray, r: np.ndarray) -> npt.NDArray[np.bool_]:
        """Blocking flags for hexes; those outside the box fall on its blocking-free border."""
        qi = np.clip(q - self.q0, 0, self.grid.shape[0] - 1)
        ri = np.clip(r - self.r0, 0, self.grid.shape[1] - 1)
        flags: npt.NDArray[np.bool_] = self.grid[qi, ri]
        return flags


class Sight(TypedDict):
    visible: bool
    hexes: list[Hex]       # the line, both ends included
    blocked_by: list[Hex]  # the blocking hexes strictly between the ends


def sight(a: Hex, b: Hex, blocking: Iterable[Hex] | BlockingGrid) -> Sight:
    """The line from a to b, the blocking hexes strictly between, and whether b is visible."""
    blocked_set = blocking.blocking if isinstance(blocking, BlockingGrid) else frozenset(blocking)
    hexes = line(a, b)
    blockers = [h for h in hexes[1:-1] if h in blocked_set]
    return {"visible": not blockers, "hexes": hexes, "blocked_by": blockers}


def visible_many(pairs: Sequence[tuple[Hex, Hex]], grid: BlockingGrid) -> np.ndarray:
    """Visibility for many (a, b) pairs at once, identical to `sight(a, b)["visible"]`."""
    ends = np.array(pairs, dtype=np.int64).reshape(len(pairs), 4)
    return visible_arrays(ends[:, :2], ends[:, 2:], grid)


def visible_arrays(a: np.ndarray, b: np.ndarray, grid: BlockingGrid) -> np.ndarray:
    """`visible_many` on (N, 2) integer arrays of line starts and ends.

    Only the hexes strictly between the ends are drawn (k = 1 .. n-1 of n steps), all lines at once.
    """
    dq, dr = a[:, 0] - b[:, 0], a[:, 1] - b[:, 1]
    n = (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2
    inner = np.maximum(n - 1, 0)
    total = int(inner.sum())
    if total == 0:
        return np.ones(len(a), dtype=bool)
    which = np.repeat(np.arange(len(a)), inner)
    starts = np.cumsum(inner) - inner
    k = (np.arange(total) - starts[which] + 1).astype(np.float64)
    nn = n[which].astype(np.float64)
    aq, ar = a[which, 0] + _NUDGE, a[which, 1] + _NUDGE
    q = aq + ((b[which, 0] + _NUDGE) - aq) * k / nn
    r = ar + ((b[which, 1] + _NUDGE) - ar) * k / nn
    s = -q - r
    rq, rr, rs = np.rint(q), np.rint(r), np.rint(s)
    eq, er, es = np.abs(rq - q), np.abs(rr - r), np.abs(rs - s)
    fix_q = (eq > er) & (eq > es)
    fix_r = ~fix_q & (er > es)
    rq = np.where(fix_q, -rr - rs, rq)
    rr = np.where(fix_r, -rq - rs, rr)
    flags = grid.lookup(rq.astype(np.int64), rr.astype(np.int64))
    blocked = np.zeros(len(a), dtype=bool)
    blocked[which[flags]] = True
    return ~blocked
