"""The events of play: a game starts, models move, phases pass, units are selected, targeted and
activated, a path's destination, a weapon or the shared ruler chosen, an activation confirmed or
undone, and the actions of a rule system's live game."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from table.errors import QueryError
from table.frozen import FrozenJson, freeze_mapping, thaw
from table.hexgrid import Hex, HexLayout
from table.live.event_base import Event, Fields, Point, freeze_fields, model_in, optional, register
from table.live.state import Activation, GameState
from table.scene import Model, Scene, parse_scene, scene_to_dict

EDGE_SLACK = 0.5    # inches: a ruler end may sit this far past the board's edge (a finger on the rim)


def _unit_of(state: GameState, ident: str) -> str | None:
    if any(u.id == ident for u in state.scene.units):
        return ident
    try:
        return state.scene.model(ident).unit
    except KeyError:
        return None


def _end_activation(state: GameState) -> GameState:
    """The current activation joins this phase's finished ones, with where its models ended."""
    act = state.activation
    if act is None:
        return state
    ends = tuple((m.id, *m.position) for m in state.scene.models_of(act.unit))
    return replace(state, activation=None, finished=(*state.finished, replace(act, ends=ends)))


def _start_activation(state: GameState, unit: str, factor: float, moving: Model | None = None,
                      start: Point | None = None) -> GameState:
    state = _end_activation(state)
    starts = []
    for model in state.scene.models_of(unit):
        x, y = start if moving is not None and model.id == moving.id and start else model.position
        starts.append((model.id, x, y))
    number = state.activations + 1
    return replace(state, activation=Activation(unit, number, tuple(starts), factor), activations=number)

@register
@dataclass(frozen=True)
class GameStart(Event):
    """A game starts with a scene (and the seed of the rule system's own dice)."""

    kind: ClassVar[str] = "game_start"
    scene: Scene
    seed: int | None = None

    def apply(self, state: GameState | None) -> GameState:
        return GameState(self.scene, origin=self.scene, seed=self.seed)

    def to_json(self) -> dict[str, Any]:
        return optional({"kind": self.kind, "scene": scene_to_dict(self.scene)}, seed=self.seed)

    @classmethod
    def from_json(cls, read: Fields) -> GameStart:
        return cls(parse_scene(read.data.get("scene"), "game_start.scene"), read.opt_integer("seed"))


@register
@dataclass(frozen=True)
class GameEnd(Event):
    """The game is over (the players ended it): the table changes nothing more in it until it is resumed."""

    kind: ClassVar[str] = "game_end"
    reason: str | None = None

    def apply(self, state: GameState) -> GameState:
        return replace(state, over=True, selected=None, target=None, destination=None)

    def to_json(self) -> dict[str, Any]:
        return optional({"kind": self.kind}, reason=self.reason)

    @classmethod
    def from_json(cls, read: Fields) -> GameEnd:
        return cls(read.opt_text("reason"))


@register
@dataclass(frozen=True)
class GameResume(Event):
    """An ended game goes on (resumed from the game log, where it stood)."""

    kind: ClassVar[str] = "game_resume"

    def apply(self, state: GameState) -> GameState:
        return replace(state, over=False)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind}

    @classmethod
    def from_json(cls, read: Fields) -> GameResume:
        return cls()


@register
@dataclass(frozen=True)
class Move(Event):
    """The camera saw a model move (`placement`: its first sighting, which starts no activation)."""

    kind: ClassVar[str] = "move"
    model: str
    start: Point
    to: Point
    distance: float | None = None
    heading: float | None = None
    placement: bool = False
    hex: Hex | None = None        # the table's snapped hex (hysteresis) on a hex grid

    def apply(self, state: GameState) -> GameState:
        model = model_in(state, self.model)
        if not self.placement and (state.activation is None or state.activation.unit != model.unit):
            state = _start_activation(state, model.unit, 1.0, model, self.start)
        x, y = self.to
        heading = model.heading if self.heading is None else self.heading
        hex_ = None
        if state.scene.hexgrid is not None:   # the table's snapped hex, else the nearest
            hex_ = self.hex if self.hex is not None else HexLayout.from_spec(state.scene.hexgrid).to_hex(x, y)
        moved = replace(model, x=x, y=y, heading=heading, hex=hex_)
        models = tuple(moved if m.id == model.id else m for m in state.scene.models)
        return replace(state, scene=state.scene.with_models(models))

    def to_json(self) -> dict[str, Any]:
        out = {"kind": self.kind, "model": self.model, "from": list(self.start), "to": list(self.to)}
        return optional(out, distance=self.distance, heading=self.heading, placement=self.placement or None,
                        hex=None if self.hex is None else list(self.hex))

    @classmethod
    def from_json(cls, read: Fields) -> Move:
        return cls(read.text("model"), read.point("from"), read.point("to"), read.opt_number("distance"),
                   read.opt_number("heading"), bool(read.data.get("placement")), read.opt_hex("hex"))


@register
@dataclass(frozen=True)
class PhaseChange(Event):
    """The next phase; `led_to` names where it led (phase, turn, player) for the log a player reads."""

    kind: ClassVar[str] = "phase"
    undoable: ClassVar[bool] = True
    led_to: Mapping[str, FrozenJson] = field(default_factory=lambda: freeze_mapping({}))

    def __post_init__(self) -> None:
        freeze_fields(self, "led_to")

    def apply(self, state: GameState) -> GameState:
        step, turn = state.step + 1, state.turn
        if step >= len(state.steps):
            step, turn = (1 if state.steps[0][0] == "deployment" else 0), turn + 1
        game = state.rules.live_game
        actions = state.actions
        if game is not None and game.phase_action:
            actions = (*actions, (game.phase_action, ()))
        return replace(state, step=step, turn=turn, activation=None, finished=(), selected=None, target=None,
                       player_index=0, destination=None, actions=actions)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **thaw(self.led_to)}

    @classmethod
    def from_json(cls, read: Fields) -> PhaseChange:
        return cls(freeze_mapping({k: read.data[k] for k in ("phase", "turn", "player") if read.has(k)}))


@register
@dataclass(frozen=True)
class Select(Event):
    """Select a model (None: nothing), with the order its unit acts under; `by` the pointer or a phone."""

    kind: ClassVar[str] = "select"
    undoable: ClassVar[bool] = True
    model: str | None
    order: str | None = None
    by: str | None = None

    def apply(self, state: GameState) -> GameState:
        if self.model is None:
            return replace(state, selected=None, target=None, destination=None)
        model = model_in(state, self.model)
        factors = state.rules.order_factors
        if self.order and self.order not in factors:
            raise QueryError(f"unknown order {self.order!r} (known: {', '.join(factors) or 'none'})")
        factor = factors[self.order] if self.order else 1.0
        target = state.target if state.target and _unit_of(state, state.target) != model.unit else None
        destination = state.destination if state.selected == model.id else None
        state = replace(state, selected=model.id, target=target, destination=destination)
        own_turn = state.player is None or state.scene.unit(model.unit).player == state.player
        if own_turn and (state.activation is None or state.activation.unit != model.unit):
            state = _start_activation(state, model.unit, factor)  # looking at an enemy unit activates nothing
        elif self.order and state.activation is not None and state.activation.unit == model.unit:
            state = replace(state, activation=replace(state.activation, factor=factor))
        return state

    def to_json(self) -> dict[str, Any]:
        return optional({"kind": self.kind, "model": self.model}, order=self.order or None, by=self.by)

    @classmethod
    def from_json(cls, read: Fields) -> Select:
        return cls(read.opt_text("model"), read.opt_text("order"), read.opt_text("by"))


@register
@dataclass(frozen=True)
class Target(Event):
    """Target a model or a unit (None: no target)."""

    kind: ClassVar[str] = "target"
    undoable: ClassVar[bool] = True
    target: str | None

    def apply(self, state: GameState) -> GameState:
        if self.target is not None and _unit_of(state, self.target) is None:
            raise QueryError(f"no model or unit {self.target!r} in the scene")
        return replace(state, target=self.target)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "target": self.target}

    @classmethod
    def from_json(cls, read: Fields) -> Target:
        return cls(read.opt_text("target"))


@register
@dataclass(frozen=True)
class Destination(Event):
    """The hex the selected unit's path leads to (None clears it); `by` the pointer or a phone."""

    kind: ClassVar[str] = "destination"
    undoable: ClassVar[bool] = True
    hex: Hex | None
    by: str | None = None

    def apply(self, state: GameState) -> GameState:
        if self.hex is None:
            return replace(state, destination=None)
        if state.scene.hexgrid is None:
            raise QueryError("destination: this scene has no hex grid")
        if state.selected is None:
            raise QueryError("destination: select a unit first")
        return replace(state, destination=self.hex)

    def to_json(self) -> dict[str, Any]:
        return optional({"kind": self.kind, "hex": None if self.hex is None else list(self.hex)}, by=self.by)

    @classmethod
    def from_json(cls, read: Fields) -> Destination:
        return cls(read.opt_hex("hex"), read.opt_text("by"))


@dataclass(frozen=True)
class GameAction(Event):
    """An action of the rule system's live game; its kind is the rule system's name (`system`)."""

    kind: ClassVar[str] = "game_action"     # stored under `system` instead
    undoable: ClassVar[bool] = True
    system: str
    action: str
    args: tuple[FrozenJson, ...] = ()
    by: str | None = None

    def __post_init__(self) -> None:
        freeze_fields(self, "args")

    def apply(self, state: GameState) -> GameState:
        if self.system != state.scene.ruleset or state.rules.live_game is None:
            raise QueryError(f"unknown event kind {self.system!r} (the scene's rule system, "
                             f"{state.scene.ruleset}, keeps no live game of that name)")
        return replace(state, actions=(*state.actions, (self.action, self.args)))

    def to_json(self) -> dict[str, Any]:
        return optional({"kind": self.system, "action": self.action, "args": thaw(self.args)}, by=self.by)

    @classmethod
    def from_json(cls, read: Fields) -> GameAction:
        return cls(read.kind, read.text("action"), read.array("args"), read.opt_text("by"))


@register
@dataclass(frozen=True)
class Weapon(Event):
    """Choose the weapon whose bands a unit shows (None: the rule system's default)."""

    kind: ClassVar[str] = "weapon"
    undoable: ClassVar[bool] = True
    unit: str
    weapon: str | None = None

    def apply(self, state: GameState) -> GameState:
        if not any(u.id == self.unit for u in state.scene.units):
            raise QueryError(f"no unit {self.unit!r} in the scene")
        chosen = tuple((u, w) for u, w in state.weapons if u != self.unit)
        if self.weapon is not None:
            chosen += ((self.unit, self.weapon),)
        return replace(state, weapons=chosen)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "unit": self.unit, "weapon": self.weapon}

    @classmethod
    def from_json(cls, read: Fields) -> Weapon:
        return cls(read.text("unit"), read.opt_text("weapon"))


@register
@dataclass(frozen=True)
class Ruler(Event):
    """The shared ruler from one board point to another (every phone and the LEDs show it); none clears it."""

    kind: ClassVar[str] = "ruler"
    ends: tuple[Point, Point] | None

    def apply(self, state: GameState) -> GameState:
        if self.ends is None:
            return replace(state, ruler=None)
        board = state.scene.board
        for name, (x, y) in zip(("from", "to"), self.ends, strict=True):
            if not (math.isfinite(x) and math.isfinite(y) and -EDGE_SLACK <= x <= board.width + EDGE_SLACK
                    and -EDGE_SLACK <= y <= board.height + EDGE_SLACK):
                raise QueryError(f"ruler.{name}: {[x, y]!r} is not on the "
                                 f"{board.width:g}x{board.height:g} board")
        return replace(state, ruler=self.ends)

    def to_json(self) -> dict[str, Any]:
        if self.ends is None:
            return {"kind": self.kind, "from": None}
        return {"kind": self.kind, "from": list(self.ends[0]), "to": list(self.ends[1])}

    @classmethod
    def from_json(cls, read: Fields) -> Ruler:
        if read.data.get("from") is None:
            return cls(None)
        return cls((read.point("from"), read.point("to")))


@register
@dataclass(frozen=True)
class Confirm(Event):
    """The activation is over (alternate turns: the other player's turn)."""

    kind: ClassVar[str] = "confirm"
    undoable: ClassVar[bool] = True

    def apply(self, state: GameState) -> GameState:
        alternate = state.steps[state.step][1] == "alternate"
        return replace(_end_activation(state), selected=None, target=None, destination=None,
                       player_index=state.player_index + 1 if alternate else state.player_index)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind}

    @classmethod
    def from_json(cls, read: Fields) -> Confirm:
        return cls()


@register
@dataclass(frozen=True)
class Undo(Event):
    """Undo the last undoable event (the session keeps the stack; models stay where they stand)."""

    kind: ClassVar[str] = "undo"

    def apply(self, state: GameState) -> GameState:
        raise QueryError("undo: only a session (with its undo stack) can undo")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind}

    @classmethod
    def from_json(cls, read: Fields) -> Undo:
        return cls()


