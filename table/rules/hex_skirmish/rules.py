"""What the engine modules need of the rule-system class (`ruleset.HexSkirmish`), as a protocol: the
modules depend on this, not on the class, so the class can import them without a circle."""

from __future__ import annotations

from typing import Any, Protocol

from table.hexgrid import Hex
from table.rules.hex_skirmish.field import Field
from table.rules.hex_skirmish.movement import Ground, Mover
from table.scene import Model, Scene


class Rules(Protocol):
    """A scene read under the hex skirmish rulings."""

    scene: Scene
    rulings: dict[str, Any]
    ground: Ground

    @property
    def field(self) -> Field: ...

    def hex_of(self, model: Model) -> Hex: ...

    def mover(self, unit: str) -> Mover: ...

    def with_model(self, unit: str, at: Hex, heading: float | None) -> Rules: ...

    def los(self, a: str, b: str) -> dict[str, Any]: ...

    def band(self, a: str, b: str, weapon: str | None = None) -> dict[str, Any]: ...
