"""Movement searches for many units at once with numpy, giving exactly `Mover.search`'s costs and paths.

Costs are 1 or 2, so the search settles one cost level at a time (Dial's buckets), every unit's
frontier together. The step kept before each hex is the one `Mover.search`'s heap would keep: the
earliest popped among equally cheap predecessors, that is the least (cost, hex); cell order is hex
order, so it is the least (cost, cell). A handful of searches (an incremental update) run in plain
Python instead, with the same rule; the bench and the tests compare the two after every move.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from table.rules.hex_skirmish.board import Board, Shape

INF = 1 << 30
FEW = 6           # up to this many searches at once, plain Python is faster than the arrays


@dataclass(frozen=True)
class Job:
    """One unit's search: its shape, start cell and movement points."""

    shape: Shape
    start: int
    limit: int


@dataclass(frozen=True)
class Reach:
    """One unit's search: least cost and the step before, by cell, and its destinations."""

    start: int
    limit: int
    cost: np.ndarray       # per cell, INF where not reached
    before: np.ndarray     # per cell, -1 where none
    stops: np.ndarray      # destinations, cheapest first then by hex (as `Mover.reachable`)

    def path(self, cell: int) -> list[int]:
        out = [cell]
        while out[-1] != self.start:
            out.append(int(self.before[out[-1]]))
        return out[::-1]


def search_many(board: Board, jobs: list[Job], walls: np.ndarray, wall_of: np.ndarray,
                no_stop: np.ndarray) -> list[Reach]:
    """Every job's search (see the module docstring). `walls` are boolean (rows, cells): anchors a unit
    may not enter (an enemy under its footprint), row `wall_of[job]` for each job; `no_stop` is boolean
    (jobs, cells): anchors it may not stop on (another unit under its footprint).

    Work is on flat keys `job * cells + cell`, so every lookup is a one-dimensional gather. Costs are
    1 or 2, so a key's cost is final in the level that first reaches it; the step before is the least
    source cell among that level's steps giving that cost: those sources are the cheapest, as
    `Mover.search` would pop first (later levels only offer dearer sources)."""
    if not jobs:
        return []
    size, k = board.size, len(jobs)
    for job in jobs:
        board.edges_from(job.shape, job.start)
    if k <= FEW:
        return [_search_one(job, walls[wall_of[i]], no_stop[i], size) for i, job in enumerate(jobs)]
    _, price = board.stacked()               # 0 where no step; a step goes to cell + board.steps[d]
    steps = np.array(board.steps, dtype=np.int64)
    shape_base = np.array([job.shape.id * size for job in jobs], dtype=np.int64)
    start = np.array([job.start for job in jobs], dtype=np.int64)
    limit = np.array([job.limit for job in jobs], dtype=np.int64)
    blocked = walls[wall_of].reshape(-1)     # by key: anchors each search may not enter
    cost = np.full(k * size, INF, dtype=np.int64)
    before = np.full(k * size, INF, dtype=np.int64)   # the source's key
    firsts = np.arange(k) * size + start
    cost[firsts] = 0
    top, low = int(limit.max()), int(limit.min())
    levels: list[list[np.ndarray]] = [[] for _ in range(top + 3)]
    levels[0].append(firsts)
    mark = np.zeros(k * size, dtype=np.int64)
    for c in range(top + 1):
        if not levels[c]:
            continue
        key = levels[c][0] if len(levels[c]) == 1 else np.concatenate(levels[c])
        if c > low:                          # a step past a search's points lands here: it stops
            key = key[limit[key // size] >= c]
        u = key // size
        w = price[shape_base[u] + key - u * size].ravel()
        t = (key[:, None] + steps).ravel()
        ok = w > 0
        ok &= ~np.take(blocked, t, mode="clip")   # out of range only where there is no step
        t, s, nd = t[ok], np.repeat(key, 6)[ok], w[ok] + c
        fresh = cost[t] > nd
        t, s, nd = t[fresh], s[fresh], nd[fresh]
        if not len(t):
            continue
        np.minimum.at(cost, t, nd)
        cheapest = cost[t] == nd
        np.minimum.at(before, t[cheapest], s[cheapest])
        order = np.arange(len(t))
        mark[t] = order                         # keep one entry per key: the last one written
        t = t[mark[t] == order]
        one = cost[t] == c + 1
        levels[c + 1].append(t[one])
        levels[c + 2].append(t[~one])
    costs = cost.reshape(k, size)
    over = costs > limit[:, None]
    costs[over] = INF
    sources = before.reshape(k, size)
    sources = np.where(over | (sources == INF), -1, sources - (np.arange(k) * size)[:, None])
    stops = destinations(costs, start, no_stop)
    return [Reach(int(start[i]), int(limit[i]), costs[i], sources[i], stops[i]) for i in range(k)]


def _search_one(job: Job, wall: np.ndarray, no_stop: np.ndarray, size: int) -> Reach:
    """One search in plain Python (faster than the arrays for a handful of units), same answers:
    Dial's buckets; among equally cheap predecessors the one of least (cost, cell)."""
    steps, blocked, limit, start = job.shape.steps(), wall.tolist(), job.limit, job.start
    best = {start: 0}
    get = best.get
    before: dict[int, int] = {}
    buckets: list[list[int]] = [[] for _ in range(limit + 1)]
    buckets[0].append(start)
    for c in range(limit):               # every step from the last level costs more than the points
        for i in buckets[c]:
            if best[i] != c:
                continue
            for j, w in steps[i]:
                if blocked[j]:
                    continue
                t = c + w
                if t > limit:
                    continue
                old = get(j, INF)
                if t < old:
                    best[j] = t
                    before[j] = i
                    buckets[t].append(j)
                elif t == old and i < before[j] and best[before[j]] == c:
                    before[j] = i
    cells = np.fromiter(best, dtype=np.int64, count=len(best))
    costs = np.fromiter(best.values(), dtype=np.int64, count=len(best))
    cost = np.full(size, INF, dtype=np.int64)
    cost[cells] = costs
    back = np.full(size, -1, dtype=np.int64)
    if before:
        back[np.fromiter(before, dtype=np.int64, count=len(before))] = list(before.values())
    keep = ~no_stop[cells] & (cells != start)
    stops = cells[keep][np.lexsort((cells[keep], costs[keep]))]
    return Reach(start, limit, cost, back, stops)


def destinations(cost: np.ndarray, start: np.ndarray, no_stop: np.ndarray) -> list[np.ndarray]:
    """Per search (row): the reached cells it may stop on, cheapest first then by hex (start excluded)."""
    k, size = cost.shape
    ru, rv = np.nonzero((cost < INF) & ~no_stop)
    keep = rv != start[ru]
    ru, rv = ru[keep], rv[keep]
    order = np.argsort((ru * INF + cost[ru, rv]) * size + rv, kind="stable")
    ru, rv = ru[order], rv[order]
    return np.split(rv, np.searchsorted(ru, np.arange(1, k)))
