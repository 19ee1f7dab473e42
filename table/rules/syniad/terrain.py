"""The static Syniad map: which hexes exist, what entering each costs, which hexsides are unbridged rivers.

Hexes are numbered 0..N-1 so the searches run on small ints; `hexes[i]` is the axial hex of index i.
Nothing here changes during a game, so it is computed once per scene.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from table.hexgrid import Hex, Hexside, neighbours

TERRAIN_COST: dict[str, int | None] = {
    "clear": 1, "town": 1, "mountain": 2, "forest": 2, "swamp": 3, "desert": 3, "water": None,
}
RIVER_COST = 1
RIVER_COST_ARTILLERY = 2
STACK_LIMIT = 10

Edge = tuple[int, int, int]  # (neighbour index, cost, artillery cost)


@dataclass(frozen=True, eq=False)
class SyniadMap:
    """Board hexes with their entry costs and river sides (see docs/rules/syniad.md)."""

    hexes: tuple[Hex, ...]
    index: Mapping[Hex, int]
    terrain: Mapping[Hex, str]
    roads: frozenset[Hex]
    rivers: frozenset[Hexside]
    edges: tuple[tuple[Edge, ...], ...]  # enterable neighbours of each hex with the cost of entering
    adjacent: tuple[tuple[int, ...], ...]  # every on-board neighbour
    zoc_sources: tuple[tuple[int, ...], ...]  # neighbours not behind an unbridged river

    @classmethod
    def build(cls, hexes: Iterable[Hex], terrain: Mapping[Hex, str], roads: Iterable[Hex],
              rivers: Iterable[Hexside]) -> SyniadMap:
        order = tuple(sorted(set(hexes)))
        index = {h: i for i, h in enumerate(order)}
        road_set = frozenset(roads)
        river_set = frozenset(rivers)
        edges, adjacent, sources = [], [], []
        for h in order:
            near = [n for n in neighbours(h) if n in index]
            adjacent.append(tuple(index[n] for n in near))
            sources.append(tuple(index[n] for n in near if not _unbridged(h, n, road_set, river_set)))
            out = []
            for n in near:
                base = 1 if n in road_set else TERRAIN_COST[terrain.get(n, "clear")]
                if base is None:
                    continue
                if _unbridged(h, n, road_set, river_set):
                    out.append((index[n], base + RIVER_COST, base + RIVER_COST_ARTILLERY))
                else:
                    out.append((index[n], base, base))
            edges.append(tuple(out))
        return cls(order, index, dict(terrain), road_set, river_set, tuple(edges), tuple(adjacent),
                   tuple(sources))

    def unbridged(self, a: Hex, b: Hex) -> bool:
        """True when a river runs between a and b and the two hexes do not both have a road."""
        return _unbridged(a, b, self.roads, self.rivers)

    def enterable(self, h: Hex) -> bool:
        return h in self.index and (h in self.roads or TERRAIN_COST[self.terrain.get(h, "clear")] is not None)

    def enter_cost(self, frm: Hex, to: Hex, artillery: bool = False) -> int | None:
        """Movement points to step from `frm` into its neighbour `to`, None if it cannot be entered."""
        for n, cost, cost_art in self.edges[self.index[frm]]:
            if self.hexes[n] == to:
                return cost_art if artillery else cost
        return None


def _unbridged(a: Hex, b: Hex, roads: frozenset[Hex], rivers: frozenset[Hexside]) -> bool:
    return Hexside(a, b) in rivers and not (a in roads and b in roads)
