"""Movement on the hex map: step costs (hard cover hexsides, difficult terrain), reachable hexes and
cheapest paths for a unit of any footprint, Dash and Fall Prone, and the routing move to the map edge.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from table.errors import QueryError
from table.hexgrid import DIRECTIONS, Hex
from table.rules.hex_skirmish.field import SIDES, Field
from table.rules.hex_skirmish.text import HARD_COVER_COST, STEP_COST


@dataclass(frozen=True)
class Ground:
    """How the engine reads hex terrain the text does not price (rulings; see the rulings page)."""

    difficult: frozenset[str]
    impassable: frozenset[str]
    blocking: frozenset[str]


def shift(h: Hex, d: Hex) -> Hex:
    return (h[0] + d[0], h[1] + d[1])


class Mover:
    """One unit moving its footprint over the map; positions are its model's hex (the anchor)."""

    def __init__(self, field: Field, ident: str, ground: Ground):
        self.field = field
        self.model, self.offsets = field.placed(ident)
        self.unit = field.units[self.model.unit]
        self.start: Hex = field.rules.hex_of(self.model)
        enemies = {h for u, hs in field.unit_hexes.items()
                   if field.units[u].player != self.unit.player for h in hs}
        self.other_hexes = frozenset(h for u, hs in field.unit_hexes.items() if u != self.unit.id for h in hs)
        terrain = field.rules.hex_terrain
        self.difficult = frozenset(h for h, t in terrain.items() if t in ground.difficult)
        self.blocked = enemies | {h for h, t in terrain.items() if t in ground.impassable}
        self.hard = frozenset(pair for pair, feature in field.sides.items() if feature == "hard_cover")
        self._passable: dict[Hex, bool] = {}

    @property
    def allowance(self) -> int:
        """Movement points this turn: Dash doubles them, Fall Prone halves them (rounded down)."""
        points = self.unit.needs_movement()
        if self.unit.has("dashed"):
            points *= 2
        if self.unit.has("prone"):
            points //= 2
        return points

    def cover(self, anchor: Hex) -> tuple[Hex, ...]:
        return tuple(shift(anchor, o) for o in self.offsets)

    def passable(self, anchor: Hex) -> bool:
        """The footprint fits on the map, on passable terrain, clear of enemies (friends may be passed)."""
        if anchor not in self._passable:
            board, blocked = self.field.board, self.blocked
            self._passable[anchor] = all(h in board and h not in blocked for h in self.cover(anchor))
        return self._passable[anchor]

    def can_stop(self, anchor: Hex) -> bool:
        return self.passable(anchor) and not any(h in self.other_hexes for h in self.cover(anchor))

    def step_cost(self, anchor: Hex, step: Hex) -> int | None:
        """Cost of moving the footprint one hex along `step`; None when the step is not allowed."""
        target = shift(anchor, step)
        if not self.passable(target):
            return None
        cost = STEP_COST
        for dq, dr in self.offsets:
            h = (anchor[0] + dq, anchor[1] + dr)
            into = (h[0] + step[0], h[1] + step[1])
            if (h, into) in self.hard:
                if self.unit.is_vehicle:
                    return None
                cost = HARD_COVER_COST
            elif into in self.difficult:
                cost = HARD_COVER_COST
        return cost

    def search(self, limit: int | None = None) -> tuple[dict[Hex, int], dict[Hex, Hex]]:
        """Dijkstra from the start: least cost to every position (within `limit`) and the step before."""
        best: dict[Hex, int] = {self.start: 0}
        before: dict[Hex, Hex] = {}
        queue = [(0, self.start)]
        while queue:
            cost, here = heapq.heappop(queue)
            if cost > best[here]:
                continue
            for step in DIRECTIONS:
                price = self.step_cost(here, step)
                if price is None:
                    continue
                there, total = shift(here, step), cost + price
                if (limit is None or total <= limit) and total < best.get(there, total + 1):
                    best[there] = total
                    before[there] = here
                    heapq.heappush(queue, (total, there))
        return best, before

    def reachable(self) -> list[dict[str, object]]:
        best, _ = self.search(self.allowance)
        spots = sorted((c, h) for h, c in best.items() if h != self.start and self.can_stop(h))
        return [{"hex": list(h), "cost": c} for c, h in spots]

    def route(self, goal: Hex) -> tuple[list[Hex] | None, int | None]:
        best, before = self.search()
        if goal not in best or not self.can_stop(goal):
            return None, None
        return unwind(before, self.start, goal), best[goal]

    def path_cost(self, path: list[Hex]) -> int:
        """Cost of a given path of positions (the start first); QueryError if a step is not allowed."""
        total = 0
        for here, there in zip(path, path[1:], strict=False):
            step = (there[0] - here[0], there[1] - here[1])
            if step not in DIRECTIONS:
                raise QueryError(f"path: {list(there)} is not next to {list(here)}")
            price = self.step_cost(here, step)
            if price is None:
                raise QueryError(f"path: unit {self.unit.id!r} cannot move from {list(here)} "
                                 f"to {list(there)}")
            total += price
        return total

    def rout(self) -> dict[str, object]:
        """The routing move: toward the closest map edge at full movement points."""
        depth = self.field.side_depth
        here = self.cover(self.start)
        distances = {s: min(depth[s].get(h, 10**6) for h in here) for s in SIDES}
        best, before = self.search()
        options = []
        for side in SIDES:
            goals = [(c, a) for a, c in best.items()
                     if self.can_stop(a) and any(depth[side].get(h) == 1 for h in self.cover(a))]
            if goals:
                cost, goal = min(goals)
                options.append((distances[side], cost, SIDES.index(side), side, goal))
        if not options:
            return {"edge": None, "edge_distance": None, "path": None, "cost": None, "stop": None,
                    "cost_this_turn": None, "leaves_battle": False}
        _, cost, _, side, goal = min(options)
        path = unwind(before, self.start, goal)
        stop = self.start
        for h in path:
            if best[h] > self.allowance:
                break
            if self.can_stop(h):
                stop = h
        return {"edge": side, "edge_distance": distances[side], "path": [list(h) for h in path], "cost": cost,
                "stop": list(stop), "cost_this_turn": best[stop], "leaves_battle": stop == goal}


def unwind(before: dict[Hex, Hex], start: Hex, goal: Hex) -> list[Hex]:
    path = [goal]
    while path[-1] != start:
        path.append(before[path[-1]])
    return path[::-1]
