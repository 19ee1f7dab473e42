"""The game session: one immutable `GameState` and the events that change it.

Every change to a game is an event (a JSON-able dict with a `kind`), and `apply(state, event)` is
the only way to a new state; the game log stores the events, so replaying them rebuilds the game
exactly (after a restart, or from an exported log). `Session` adds undo on top.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from table.errors import QueryError
from table.hexgrid import HexLayout
from table.rules import get_ruleset
from table.rules.base import Ruleset
from table.rules.declarations import Phase
from table.scene import Model, Scene, parse_scene, scene_to_dict

EDGE_SLACK = 0.5    # inches: a ruler end may sit this far past the board's edge (a finger on the rim)
UNDOABLE = frozenset({"phase", "select", "target", "confirm", "acknowledge", "terrain", "marker", "settings",
                      "destination", "weapon"})
# Besides these, a rule system with a live game (`Ruleset.live_game`) logs its game's actions as events
# of the kind named after the rule system (undoable too).
KINDS = UNDOABLE | {"game_start", "move", "measure", "roll", "warning", "warning_cleared", "camera", "undo",
                    "ruler", "bookmark"}


@dataclass(frozen=True)
class Activation:
    """A unit's activation: where its models stood when it began (and, once it is over, where they
    stood at its end), and the order's allowance factor."""

    unit: str
    number: int
    starts: tuple[tuple[str, float, float], ...]
    factor: float = 1.0
    ends: tuple[tuple[str, float, float], ...] = ()


@dataclass(frozen=True)
class GameState:
    scene: Scene
    turn: int = 1
    step: int = 0
    player_index: int = 0
    selected: str | None = None
    target: str | None = None
    activation: Activation | None = None
    finished: tuple[Activation, ...] = ()     # activations over in this phase
    activations: int = 0
    acknowledged: frozenset[str] = frozenset()
    roster: tuple[tuple[int, str], ...] = ()
    brightness: float | None = None
    rulings: dict[str, Any] = field(default_factory=dict)
    last_roll: dict[str, Any] | None = None
    destination: tuple[int, int] | None = None    # the hex the selected unit's path leads to
    origin: Scene | None = None                   # the scene the game started with
    seed: int | None = None                       # the game's dice seed (from game_start)
    weapons: tuple[tuple[str, str], ...] = ()     # unit id -> the weapon chosen to show (`weapon` events)
    actions: tuple[tuple[str, tuple[Any, ...]], ...] = ()  # the rule system's live game (Ruleset.live_game)
    ruler: tuple[tuple[float, float], tuple[float, float]] | None = None  # a shared ruler, board inches

    def ruler_dict(self) -> dict[str, Any] | None:
        """The shared ruler as the snapshot shows it: its ends and the distance between them, inches."""
        if self.ruler is None:
            return None
        (x0, y0), (x1, y1) = self.ruler
        return {"from": [x0, y0], "to": [x1, y1], "distance": round(math.hypot(x1 - x0, y1 - y0), 2)}

    @property
    def rules(self) -> type[Ruleset]:
        """The scene's rule system (its class: what it declares)."""
        return get_ruleset(self.scene.ruleset)

    @property
    def players(self) -> list[str]:
        return sorted({u.player for u in self.scene.units})

    @property
    def steps(self) -> tuple[Phase, ...]:
        return self.rules.phases

    @property
    def phase(self) -> str:
        return self.steps[self.step][0]

    @property
    def player(self) -> str | None:
        who = self.steps[self.step][1]
        players = self.players
        if who is None or not players:
            return None
        index = self.player_index if who == "alternate" else int(who)
        return players[index % len(players)]

    def markers(self) -> dict[int, str]:
        """Marker id -> model id: the scene's `marker` fields, overridden by assignments."""
        bound = {m.marker: m.id for m in self.scene.models if m.marker is not None}
        for marker, model in self.roster:
            bound = {k: v for k, v in bound.items() if v != model}
            bound[marker] = model
        return bound

    def phase_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "phase": self.phase, "player": self.player, "step": self.step,
                "phases": [name for name, _ in self.steps],
                "activation": None if self.activation is None else
                {"unit": self.activation.unit, "number": self.activation.number}}


def new_game(scene: Scene, seed: int | None = None) -> dict[str, Any]:
    """The event that starts a game with a scene (and the seed of the rule system's own dice)."""
    event: dict[str, Any] = {"kind": "game_start", "scene": scene_to_dict(scene)}
    if seed is not None:
        event["seed"] = seed
    return event


def _model(state: GameState, model_id: Any) -> Model:
    try:
        return state.scene.model(str(model_id))
    except KeyError:
        raise QueryError(f"no model {model_id!r} in the scene") from None


def _end_activation(state: GameState) -> GameState:
    """The current activation joins this phase's finished ones, with where its models ended."""
    act = state.activation
    if act is None:
        return state
    ends = tuple((m.id, *m.position) for m in state.scene.models_of(act.unit))
    return replace(state, activation=None, finished=(*state.finished, replace(act, ends=ends)))


def _start_activation(state: GameState, unit: str, factor: float, moving: Model | None = None,
                      start: tuple[float, float] | None = None) -> GameState:
    state = _end_activation(state)
    starts = []
    for model in state.scene.models_of(unit):
        x, y = start if moving is not None and model.id == moving.id and start else model.position
        starts.append((model.id, x, y))
    number = state.activations + 1
    return replace(state, activation=Activation(unit, number, tuple(starts), factor), activations=number)


def _move(state: GameState, event: dict[str, Any]) -> GameState:
    model = _model(state, event["model"])
    start = (float(event["from"][0]), float(event["from"][1]))
    if not event.get("placement") and (state.activation is None or state.activation.unit != model.unit):
        state = _start_activation(state, model.unit, 1.0, model, start)
    x, y = float(event["to"][0]), float(event["to"][1])
    heading = float(event.get("heading", model.heading))
    hex_ = None
    if state.scene.hexgrid is not None:   # the table's snapped hex (hysteresis), else the nearest
        hex_ = (tuple(int(v) for v in event["hex"]) if event.get("hex")
                else HexLayout.from_spec(state.scene.hexgrid).to_hex(x, y))
    moved = replace(model, x=x, y=y, heading=heading, hex=hex_)
    models = tuple(moved if m.id == model.id else m for m in state.scene.models)
    return replace(state, scene=state.scene.with_models(models))


def _phase(state: GameState) -> GameState:
    step, turn = state.step + 1, state.turn
    if step >= len(state.steps):
        step, turn = (1 if state.steps[0][0] == "deployment" else 0), turn + 1
    game = state.rules.live_game
    actions = state.actions
    if game is not None and game.phase_action:
        actions = (*actions, (game.phase_action, ()))
    return replace(state, step=step, turn=turn, activation=None, finished=(), selected=None, target=None,
                   player_index=0, destination=None, actions=actions)


def _select(state: GameState, event: dict[str, Any]) -> GameState:
    if event.get("model") is None:
        return replace(state, selected=None, target=None, destination=None)
    model = _model(state, event["model"])
    order = event.get("order")
    factors = state.rules.order_factors
    if order and order not in factors:
        raise QueryError(f"unknown order {order!r} (known: {', '.join(factors) or 'none'})")
    factor = factors[order] if order else 1.0
    target = state.target if state.target and _unit_of(state, state.target) != model.unit else None
    destination = state.destination if state.selected == model.id else None
    state = replace(state, selected=model.id, target=target, destination=destination)
    own_turn = state.player is None or state.scene.unit(model.unit).player == state.player
    if own_turn and (state.activation is None or state.activation.unit != model.unit):
        state = _start_activation(state, model.unit, factor)   # looking at an enemy unit activates nothing
    elif event.get("order") and state.activation is not None and state.activation.unit == model.unit:
        state = replace(state, activation=replace(state.activation, factor=factor))
    return state


def _unit_of(state: GameState, ident: str) -> str | None:
    if any(u.id == ident for u in state.scene.units):
        return ident
    try:
        return state.scene.model(ident).unit
    except KeyError:
        return None


def _target(state: GameState, event: dict[str, Any]) -> GameState:
    ident = event.get("target")
    if ident is not None and _unit_of(state, str(ident)) is None:
        raise QueryError(f"no model or unit {ident!r} in the scene")
    return replace(state, target=None if ident is None else str(ident))


def _destination(state: GameState, event: dict[str, Any]) -> GameState:
    where = event.get("hex")
    if where is None:
        return replace(state, destination=None)
    if state.scene.hexgrid is None:
        raise QueryError("destination: this scene has no hex grid")
    if state.selected is None:
        raise QueryError("destination: select a unit first")
    return replace(state, destination=(int(where[0]), int(where[1])))


def _ruler(state: GameState, event: dict[str, Any]) -> GameState:
    """The shared ruler from one board point to another (every phone and the LEDs show it); none clears it."""
    if event.get("from") is None:
        return replace(state, ruler=None)
    board = state.scene.board
    ends = []
    for name in ("from", "to"):
        point = event.get(name)
        try:
            x, y = (float(v) for v in point)
        except (TypeError, ValueError):
            raise QueryError(f"ruler.{name}: expected a board point [x, y], got {point!r}") from None
        if not (math.isfinite(x) and math.isfinite(y) and -EDGE_SLACK <= x <= board.width + EDGE_SLACK
                and -EDGE_SLACK <= y <= board.height + EDGE_SLACK):
            raise QueryError(f"ruler.{name}: {point!r} is not on the {board.width:g}x{board.height:g} board")
        ends.append((x, y))
    return replace(state, ruler=(ends[0], ends[1]))


def _weapon(state: GameState, event: dict[str, Any]) -> GameState:
    """Choose the weapon whose bands a unit shows (None: the rule system's default)."""
    unit = str(event["unit"])
    if not any(u.id == unit for u in state.scene.units):
        raise QueryError(f"no unit {unit!r} in the scene")
    chosen = tuple((u, w) for u, w in state.weapons if u != unit)
    if event.get("weapon") is not None:
        chosen += ((unit, str(event["weapon"])),)
    return replace(state, weapons=chosen)


def _confirm(state: GameState) -> GameState:
    alternate = state.steps[state.step][1] == "alternate"
    return replace(_end_activation(state), selected=None, target=None, destination=None,
                   player_index=state.player_index + 1 if alternate else state.player_index)


def _terrain(state: GameState, event: dict[str, Any]) -> GameState:
    document = {**scene_to_dict(state.scene), "terrain": event["terrain"]}
    return replace(state, scene=parse_scene(document, "terrain"))


def _marker(state: GameState, event: dict[str, Any]) -> GameState:
    model = _model(state, event["model"]).id
    roster = tuple((k, v) for k, v in state.roster if v != model and k != event.get("marker"))
    if event.get("marker") is not None:
        roster += ((int(event["marker"]), model),)
    return replace(state, roster=roster)


def _settings(state: GameState, event: dict[str, Any]) -> GameState:
    if "ruleset" in event:
        document = {**scene_to_dict(state.scene), "ruleset": event["ruleset"]}
        state = replace(state, scene=parse_scene(document, "settings.ruleset"), step=0, activation=None,
                        finished=())
    if "rulings" in event:
        state = replace(state, rulings=dict(event["rulings"]))
    if "brightness" in event:
        state = replace(state, brightness=float(event["brightness"]))
    return state


def apply(state: GameState | None, event: dict[str, Any]) -> GameState:
    """The state after one event; raises QueryError (or SceneError) for an event that cannot apply."""
    kind = event.get("kind")
    if kind == "game_start":
        scene = parse_scene(event["scene"], "game_start.scene")
        return GameState(scene, origin=scene, seed=event.get("seed"))
    if state is None:
        raise QueryError(f"event {kind!r} before the game started")
    if kind == "move":
        return _move(state, event)
    if kind == "phase":
        return _phase(state)
    if kind == "select":
        return _select(state, event)
    if kind == "target":
        return _target(state, event)
    if kind == "destination":
        return _destination(state, event)
    if is_game_action(state, kind):
        args = tuple(tuple(a) if isinstance(a, list) else a for a in event.get("args", []))
        return replace(state, actions=(*state.actions, (str(event["action"]), args)))
    if kind == "weapon":
        return _weapon(state, event)
    if kind == "ruler":
        return _ruler(state, event)
    if kind == "confirm":
        return _confirm(state)
    if kind == "acknowledge":
        return replace(state, acknowledged=state.acknowledged | {str(event["id"])})
    if kind == "warning_cleared":
        return replace(state, acknowledged=state.acknowledged - {str(event["id"])})
    if kind == "terrain":
        return _terrain(state, event)
    if kind == "marker":
        return _marker(state, event)
    if kind == "settings":
        return _settings(state, event)
    if kind == "roll":
        return replace(state, last_roll=event.get("result"))
    if kind in KINDS:  # measure, warning, camera: recorded, no state of their own
        return state
    raise QueryError(f"unknown event kind {kind!r}")


def is_game_action(state: GameState, kind: Any) -> bool:
    """Whether an event of `kind` is an action of the rule system's live game."""
    return kind == state.scene.ruleset and state.rules.live_game is not None


class Session:
    """The current state plus an undo stack; `apply` is the only way to change it."""

    UNDO_DEPTH = 50

    def __init__(self) -> None:
        self.state: GameState | None = None
        self._undo: list[GameState] = []

    def copy(self) -> Session:
        """An independent session in the same state (to try events on)."""
        twin = Session()
        twin.state, twin._undo = self.state, list(self._undo)
        return twin

    def preview(self, event: dict[str, Any]) -> GameState:
        """The state the event would lead to (raises without changing anything)."""
        if event.get("kind") == "undo":
            if not self._undo or self.state is None:
                raise QueryError("nothing to undo")
            previous = self._undo[-1]
            return replace(previous, scene=previous.scene.with_models(self.state.scene.models))
        return apply(self.state, event)

    def apply(self, event: dict[str, Any]) -> GameState:
        new = self.preview(event)
        kind = event.get("kind")
        if kind == "undo":
            self._undo.pop()
        elif self.state is not None and (kind in UNDOABLE or is_game_action(self.state, kind)):
            self._undo = [*self._undo[-(self.UNDO_DEPTH - 1):], self.state]
        elif kind == "game_start":
            self._undo = []
        self.state = new
        return new


def moved_distance(activation: Activation, model: Model) -> float:
    """Straight-line distance from where the model began the activation to where it ended it (or
    stands now, while the activation lasts)."""
    ends = {m: (x, y) for m, x, y in activation.ends}
    end = ends.get(model.id, model.position)
    for model_id, x, y in activation.starts:
        if model_id == model.id:
            return math.hypot(end[0] - x, end[1] - y)
    return 0.0
