"""Syniad movement: where a unit can go this phase, what it costs, and the cheapest path there.

A Dijkstra search over the map's hex indices. What other units do to a search is summarised per
moving player as three sets of hex indices (`Obstacles`): hexes holding enemies (never entered),
hexes in an enemy zone of control (entered, never left) and full friendly stacks (crossed, never
stopped in). The search also records every hex whose obstacle status it read (`touched`), so an
incremental analysis knows which searches a move can change.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass

from table.hexgrid import Hex
from table.rules.syniad.terrain import STACK_LIMIT, SyniadMap


@dataclass(frozen=True)
class Obstacles:
    """What the other units mean to one player's movement: hex indices, tested with `in` only.

    The incremental analysis passes live containers (a zone of control is a count per hex there).
    """

    enemy: Container[int]
    zoc: Container[int]
    full: Container[int]


def obstacles(smap: SyniadMap, stacks: Mapping[int, Iterable[str]], owner: Mapping[str, str],
              player: str) -> Obstacles:
    """The obstacles `player` moves among, given who stands where (hex index -> unit ids)."""
    enemy, full = set(), set()
    for i, units in stacks.items():
        units = list(units)
        if not units:
            continue
        if any(owner[u] != player for u in units):
            enemy.add(i)
        elif len(units) >= STACK_LIMIT:
            full.add(i)
    zoc = {j for i in enemy for j in smap.zoc_sources[i]}
    return Obstacles(frozenset(enemy), frozenset(zoc), frozenset(full))


@dataclass(frozen=True)
class Reach:
    """One unit's movement range: costs and parents by hex index, and the hexes the search read."""

    start: int
    cost: Mapping[int, int]
    parent: Mapping[int, int]
    destinations: tuple[int, ...]
    touched: frozenset[int]

    def reachable(self, smap: SyniadMap) -> list[tuple[Hex, int]]:
        """(hex, cost) for every legal destination, cheapest first, then by hex."""
        return sorted(((smap.hexes[i], self.cost[i]) for i in self.destinations), key=lambda e: (e[1], e[0]))

    def path(self, smap: SyniadMap, to: Hex) -> list[Hex] | None:
        """The cheapest path from the start to `to` (both included), None if `to` is no destination."""
        target = smap.index.get(to)
        if target is None or target not in self.destinations:
            return None
        return self._trace(smap, target)

    def routes(self, smap: SyniadMap) -> list[tuple[Hex, int, list[Hex]]]:
        """`reachable`, each destination with its cheapest path."""
        return [(h, cost, self._trace(smap, smap.index[h])) for h, cost in self.reachable(smap)]

    def _trace(self, smap: SyniadMap, target: int) -> list[Hex]:
        out = [target]
        while out[-1] != self.start:
            out.append(self.parent[out[-1]])
        return [smap.hexes[i] for i in reversed(out)]


def search(smap: SyniadMap, start: int, points: int, artillery: bool, obs: Obstacles) -> Reach:
    """Dijkstra from `start` with `points` movement points (see docs/rules/syniad.md, Movement).

    Costs are small positive integers, so the queue is a list of buckets, one per cost (Dial's
    algorithm); hexes of equal cost are settled first come, first served, which fixes the paths.
    """
    enemy, zoc = obs.enemy, obs.zoc
    edges = smap.edges
    slot = 2 if artillery else 1
    cost = {start: 0}
    parent: dict[int, int] = {}
    blocked = set()  # enemy hexes within reach: with `cost`, every hex whose status was read
    buckets: list[list[int]] = [[] for _ in range(points + 1)]
    buckets[0].append(start)
    limit = points + 1
    for d, bucket in enumerate(buckets):
        for h in bucket:
            if cost[h] != d or (h in zoc and h != start):
                continue
            for edge in edges[h]:
                nd = d + edge[slot]
                if nd > points:
                    continue
                n = edge[0]
                if n in enemy:
                    blocked.add(n)
                elif nd < cost.get(n, limit):
                    cost[n] = nd
                    parent[n] = h
                    buckets[nd].append(n)
    full = obs.full
    destinations = tuple(i for i in cost if i != start and i not in full)
    return Reach(start, cost, parent, destinations, frozenset(blocked.union(cost)))
