"""Base class for hex rule systems: the scene's grid, hex terrain, hexsides and where units stand."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from table.cached import cached_property
from table.errors import QueryError
from table.hexgrid import Hex, HexLayout, distance
from table.rules.base import Ruleset, question
from table.rules.profiles import TerrainKinds
from table.scene import HEX_TERRAIN, HEXSIDE_FEATURES, HexGridSpec, Model, Scene


class HexRuleset(Ruleset):
    """A rule system played on the scene's hex grid. Subclasses add their own questions."""

    terrain_kinds = TerrainKinds(hexes=tuple(sorted(HEX_TERRAIN)), hexsides=tuple(sorted(HEXSIDE_FEATURES)))
    default_hexgrid = HexGridSpec(1.5, "flat", (1.5, 1.5))

    def __init__(self, scene: Scene, rulings: Mapping[str, Any] | None = None):
        super().__init__(scene, rulings)
        self.layout = HexLayout.from_spec(scene.hexgrid or HexGridSpec())
        self.hex_terrain: dict[Hex, str] = {h.hex: h.terrain for h in scene.hexes}
        self.roads: frozenset[Hex] = frozenset(h.hex for h in scene.hexes if h.road)
        self.hexsides: dict[frozenset[Hex], str] = {frozenset(s.between): s.feature for s in scene.hexsides}

    def terrain(self, h: Hex) -> str:
        return self.hex_terrain.get(h, "clear")

    def hexside(self, a: Hex, b: Hex) -> str | None:
        return self.hexsides.get(frozenset((a, b)))

    def hex_of(self, model: Model) -> Hex:
        """The hex a model stands in: its scene `hex`, else the hex under its board position."""
        if model.hex is not None:
            return model.hex
        return self.layout.to_hex(*model.position)

    def hexes_of(self, ident: str) -> list[Hex]:
        """The hexes of a model, or of every model of a unit (first seen first, no repeats)."""
        return list(dict.fromkeys(self.hex_of(m) for m in self.models_for(ident)))

    def on_board(self, h: Hex) -> bool:
        """True when the hex's centre lies on the board (edges included)."""
        return tuple(h) in self.board_hexes

    @cached_property
    def board_hexes(self) -> frozenset[Hex]:
        """Every hex whose centre lies on the board."""
        return frozenset(self.layout.hexes_on_board(self.scene.board.width, self.scene.board.height))

    @question("distance")
    def distance(self, a: str, b: str) -> dict[str, Any]:
        """Hexes between two models or units (closest hexes)."""
        steps = min(distance(ha, hb) for ha in self.hexes_of(a) for hb in self.hexes_of(b))
        return {"from": a, "to": b, "distance": steps, "method": "hex"}


_HEX_TEXT = re.compile(r"^\s*\[?\s*(-?\d+)\s*[, ]\s*(-?\d+)\s*\]?\s*$")


def parse_hex(text: str) -> Hex:
    """A hex from the command line: `Q,R`, `Q R` or `[Q, R]`."""
    match = _HEX_TEXT.match(text)
    if not match:
        raise QueryError(f"expected a hex as Q,R (e.g. 3,-2), got {text!r}")
    return (int(match.group(1)), int(match.group(2)))
