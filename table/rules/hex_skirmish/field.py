"""The battlefield of one scene: which hexes are on the map, how deep each lies from its edges, and
which hexes every unit's footprint covers. Built once per rule-system object; read by every question.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from table.cached import cached_property
from table.errors import QueryError
from table.hexgrid import DIRECTIONS, Hex, distance, neighbours
from table.rules.hex_skirmish import footprint
from table.rules.hex_skirmish.units import Combatant, combatants, size_class
from table.scene import Model

if TYPE_CHECKING:
    from table.rules.hexbase import HexRuleset

SIDES = ("left", "right", "top", "bottom")


def gap(a: tuple[Hex, ...], b: tuple[Hex, ...]) -> int:
    """Hexes between two footprints: the least distance over their hexes."""
    return min(distance(x, y) for x in a for y in b)


class Field:
    """Map hexes, edge depths, units and their footprints for one scene."""

    def __init__(self, rules: HexRuleset):
        self.rules = rules
        self.layout = rules.layout
        self.units: dict[str, Combatant] = combatants(rules.scene)
        self.model_hexes: dict[str, tuple[Hex, ...]] = {m.id: self._model_footprint(i, m)
                                                        for i, m in enumerate(rules.scene.models)}
        by_unit: dict[str, list[Hex]] = {}
        for m in rules.scene.models:
            by_unit.setdefault(m.unit, []).extend(self.model_hexes[m.id])
        self.unit_hexes: dict[str, tuple[Hex, ...]] = {u: tuple(dict.fromkeys(h)) for u, h in by_unit.items()}
        self.occupant: dict[Hex, str] = {}
        for unit_id, hexes in self.unit_hexes.items():
            for h in hexes:
                self.occupant.setdefault(h, unit_id)
        self.sides: dict[tuple[Hex, Hex], str] = {}
        for pair, feature in rules.hexsides.items():
            a, b = tuple(pair)
            self.sides[(a, b)] = self.sides[(b, a)] = feature
        self._hexes: dict[str, tuple[Hex, ...]] = {}

    # ------------------------------------------------------------ units

    def _model_footprint(self, index: int, model: Model) -> tuple[Hex, ...]:
        where = f"models[{index}] ({model.id})"
        if "footprint" in model.extra:
            return footprint.listed(model.extra["footprint"], where)
        unit = self.units[model.unit]
        size = unit.size
        if model.size is not None:
            size = size_class(model.size, f"{where}.size")
        q, r = self.rules.hex_of(model)
        direction = footprint.facing_direction(self.layout, model.heading)
        return tuple((q + dq, r + dr) for dq, dr in footprint.offsets(size, direction))

    def owner(self, ident: str) -> Combatant:
        """The combatant a model id or unit id names."""
        models = self.rules.models_for(ident)
        return self.units[models[0].unit]

    def hexes(self, ident: str) -> tuple[Hex, ...]:
        """Footprint hexes of a model, or of every model of a unit."""
        if ident not in self._hexes:
            models = self.rules.models_for(ident)
            self._hexes[ident] = tuple(dict.fromkeys(h for m in models for h in self.model_hexes[m.id]))
        return self._hexes[ident]

    def placed(self, ident: str) -> tuple[Model, tuple[Hex, ...]]:
        """The one model a moving unit (or model id) stands for, with its footprint offsets from its hex."""
        models = self.rules.models_for(ident)
        if len(models) > 1:
            raise QueryError(f"unit {ident!r} has {len(models)} models; name one model to move it")
        model = models[0]
        q, r = self.rules.hex_of(model)
        return model, tuple((h[0] - q, h[1] - r) for h in self.model_hexes[model.id])

    def dug_sides(self, unit_id: str, arc: int) -> frozenset[tuple[Hex, Hex]]:
        """Dig In: the hexsides in front of a `dug_in` unit's footprint, both ways round (empty otherwise).

        In front: the hexside of each footprint hex toward its model's facing (`arc` 1), or toward the
        facing and the two directions either side of it (`arc` 3), where the hex beyond is not the unit's.
        """
        unit = self.units[unit_id]
        if not unit.has("dug_in") or unit_id not in self.unit_hexes:
            return frozenset()
        own = set(self.unit_hexes[unit_id])
        out: set[tuple[Hex, Hex]] = set()
        for m in self.rules.models_for(unit_id):
            facing = footprint.facing_direction(self.layout, m.heading)
            for h in self.model_hexes[m.id]:
                for turn in range(-(arc // 2), arc // 2 + 1):
                    dq, dr = DIRECTIONS[(facing + turn) % 6]
                    n = (h[0] + dq, h[1] + dr)
                    if n not in own:
                        out.update({(h, n), (n, h)})
        return frozenset(out)

    def on_table(self) -> list[Combatant]:
        """Combatants with at least one model on the table, in scene order."""
        return [c for c in self.units.values() if c.id in self.unit_hexes]

    # ------------------------------------------------------------ the map

    @property
    def board(self) -> frozenset[Hex]:
        """Every hex whose centre lies on the board."""
        return self.rules.board_hexes

    @cached_property
    def outside(self) -> dict[Hex, frozenset[str]]:
        """Off-map hexes touching the map, each with the board sides its centre lies beyond."""
        w, h = self.rules.scene.board.width, self.rules.scene.board.height
        out: dict[Hex, frozenset[str]] = {}
        for hx in self.board:
            for n in neighbours(hx):
                if n in self.board or n in out:
                    continue
                x, y = self.layout.to_board(n)
                out[n] = frozenset(s for s, beyond in zip(SIDES, (x < 0, x > w, y < 0, y > h), strict=True)
                                   if beyond)
        return out

    def _depths(self, sources: list[Hex]) -> dict[Hex, int]:
        depth = dict.fromkeys(sources, 0)
        queue = deque(sources)
        while queue:
            hx = queue.popleft()
            for n in neighbours(hx):
                if n in self.board and n not in depth:
                    depth[n] = depth[hx] + 1
                    queue.append(n)
        return {k: v for k, v in depth.items() if k in self.board}

    @cached_property
    def edge_depth(self) -> dict[Hex, int]:
        """Hex steps from each map hex to leave the map (1: a hex on the edge)."""
        return self._depths(list(self.outside))

    @cached_property
    def side_depth(self) -> dict[str, dict[Hex, int]]:
        """As edge_depth, counting only steps off one side of the board."""
        return {side: self._depths([h for h, s in self.outside.items() if side in s]) for side in SIDES}
