"""The values a rule-system class declares besides its ruling options: turn phases, deployment
zones, dice kinds with the panel's form for each, and the live game a system may keep in step."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from table.scene import Scene

# A turn step: (phase, player) where player is an index into the scene's players, "alternate" (players
# take turns activating units; `confirm` passes to the other player), or None. A "deployment" step
# comes once, before the first turn's other steps.
Phase = tuple[str, int | str | None]


@dataclass(frozen=True)
class Deployment:
    """How the live table shows deployment zones, from the system's `deploy` answers: `hexes` (the
    zones' hexes, one `deploy` answer for the scene) or `edge` (a strip `depth` inches deep along the
    table edge each base is measured to, `deploy UNIT` per unit)."""

    kind: Literal["hexes", "edge"]
    depth: float = 0.0


FieldKind = Literal["count", "integer", "toggle", "integers", "per_player"]


@dataclass(frozen=True)
class DiceField:
    """One input of a dice form. Kinds: `count` (dice, 0-60, a stepper), `integer` (`minimum` to
    `maximum`), `toggle` (`values[1]` when ticked, else `values[0]`), `integers` (a list of 1-30
    numbers `minimum` to `maximum`), `per_player` (one `{"player", "modifier"}` per player)."""

    name: str
    label: str
    kind: FieldKind
    default: Any = 0            # when a request leaves the field out (None: the field is required)
    initial: Any = None         # what the form shows first (None: the default)
    minimum: int = 0
    maximum: int = 60
    values: tuple[str, str] = ("", "")

    def to_json(self) -> dict[str, Any]:
        initial = self.default if self.initial is None else self.initial
        out = {"name": self.name, "label": self.label, "kind": self.kind, "initial": initial,
               "minimum": self.minimum, "maximum": self.maximum}
        return {**out, "values": list(self.values)} if self.kind == "toggle" else out


Roller = Callable[..., dict[str, Any]]  # (rng, **params) -> the roll's result


@dataclass(frozen=True)
class DiceKind:
    """A kind of roll the panel offers: its name, the form's title and fields, and the roll itself."""

    kind: str
    title: str
    fields: tuple[DiceField, ...]
    roll: Roller

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "title": self.title, "fields": [f.to_json() for f in self.fields]}


class GameState(Protocol):
    """What a live game reads of the live table's game state."""

    @property
    def scene(self) -> Scene: ...

    @property
    def origin(self) -> Scene | None: ...

    @property
    def seed(self) -> int | None: ...

    @property
    def actions(self) -> tuple[tuple[str, tuple[Any, ...]], ...]: ...


class LiveGame(Protocol):
    """A game object the live table keeps in step with its session (Syniad's `SyniadGame`).

    The session keeps the game as its actions (events of the kind named after the rule system, plus a
    `next_phase` action at each phase change when `phase_action` is set), so the log replays it.
    `action_args` checks an action's arguments (`arguments` says each action's: "hex", "unit" or
    none), `trial` answers it on a copy, `camera_moves` turns the camera's moves into actions, and
    `view` is what the panel shows (under `phase[<rule system>]` in the snapshot).
    """

    arguments: Mapping[str, str | None]
    phase_action: str | None

    def action_args(self, action: str, args: list[Any] | tuple[Any, ...]) -> list[Any]: ...

    def trial(self, state: GameState, action: str, args: list[Any]) -> Any: ...

    def camera_moves(self, state: GameState, events: list[dict[str, Any]]) -> list[dict[str, Any]]: ...

    def view(self, state: GameState, observed: Mapping[Any, Any]) -> dict[str, Any] | None: ...


def plain_dice(rng: random.Random, count: int = 1, sides: int = 6) -> dict[str, Any]:
    """Any system: `count` dice of `sides` sides."""
    values = [rng.randint(1, sides) for _ in range(count)]
    return {"dice": values, "total": sum(values)}


PLAIN_DICE = DiceKind("dice", "Dice", (DiceField("count", "Dice", "integer", 1, 2, 1, 60),
                                       DiceField("sides", "Sides", "integer", 6, None, 2, 100)), plain_dice)
