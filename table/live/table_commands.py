"""The controller's commands (the web panel's and the buttons'), each turned into game events.

A command handler takes the controller and keyword parameters, emits events through
`controller.emit` (checked, logged, applied) and returns a JSON-able answer.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

from table.errors import QueryError, TableError
from table.live import army_commands, command_limits, display, game_commands, rolls
from table.live.command_api import TableController
from table.live.events import (
    Acknowledge,
    AssignMarker,
    Confirm,
    Destination,
    GameAction,
    Measure,
    PhaseChange,
    Roll,
    Ruler,
    Select,
    Settings,
    Target,
    Undo,
    Weapon,
)
from table.live.sigmas import with_sigmas
from table.rules import get_ruleset

log = logging.getLogger(__name__)


def _model_id(c: TableController, ident: Any) -> str:
    """A model id from a model or unit id (a unit selects its first model)."""
    scene = c.state.scene
    ident = str(ident)
    if any(m.id == ident for m in scene.models):
        return ident
    models = scene.models_of(ident)
    if models:
        return models[0].id
    raise QueryError(f"no model or unit {ident!r} in the scene")


def advance_phase(c: TableController) -> dict[str, Any]:
    """The next phase; the logged event names where it led (for the log a player reads)."""
    after = c.session.preview(PhaseChange()).phase_dict()
    named: dict[str, Any] = {k: after[k] for k in ("phase", "turn", "player") if k in after}
    return c.emit(PhaseChange(named)).phase_dict()


def select(c: TableController, id: Any = None, model: Any = None, order: str | None = None) -> dict[str, Any]:
    ident = id if id is not None else model
    state = c.emit(Select(None if ident is None else _model_id(c, ident), order or None))
    return {"selected": state.selected, "target": state.target}


def target(c: TableController, id: Any = None) -> dict[str, Any]:
    state = c.emit(Target(None if id is None else str(id)))
    return {"selected": state.selected, "target": state.target}


def _point(c: TableController, where: Any, name: str) -> tuple[float, float]:
    """A ruler end: a model or unit id (its centre; a unit: its first model), or a board point."""
    if isinstance(where, str) and "," not in where:
        return c.state.scene.model(_model_id(c, where)).position
    parts = where.split(",") if isinstance(where, str) else where
    try:
        x, y = (float(v) for v in parts)
    except (TypeError, ValueError):
        raise QueryError(f"ruler: {name} should be a model id or a board point X,Y, got {where!r}") from None
    return x, y


def ruler(c: TableController, a: Any = None, b: Any = None) -> dict[str, Any]:
    """The shared ruler from `a` to `b` (model ids or board points); no `a` clears it."""
    event = Ruler(None)
    if a is not None:
        if b is None:
            raise QueryError("ruler: give both ends (a model id or a board point each)")
        event = Ruler((_point(c, a, "a"), _point(c, b, "b")))
    return {"ruler": c.emit(event).ruler_dict()}


def destination(c: TableController, hex: Any = None) -> dict[str, Any]:
    """Choose the hex the selected unit's path leads to ("Q,R" or [q, r]; None clears it)."""
    where = None
    if hex is not None:
        parts = hex.split(",") if isinstance(hex, str) else list(hex)
        try:
            q, r = (int(v) for v in parts)
        except (TypeError, ValueError):
            raise QueryError(f"destination: expected a hex Q,R, got {hex!r}") from None
        where = (q, r)
    state = c.emit(Destination(where))
    chosen = None if state.destination is None else list(state.destination)
    return {"selected": state.selected, "destination": chosen}


def weapon(c: TableController, weapon: Any = None, unit: Any = None) -> dict[str, Any]:
    """Choose the weapon whose bands the table shows for a unit (default: the selected model's);
    None goes back to the rule system's default (the first weapon with bands)."""
    state = c.state
    if unit is None:
        if state.selected is None:
            raise QueryError("weapon: select a unit first")
        unit = state.scene.model(state.selected).unit
    ruleset = c.ruleset()
    if weapon is not None and ruleset is not None and "bands" in ruleset.questions():
        ruleset.ask("bands", [str(unit), str(weapon)])           # QueryError for a weapon without bands
    elif weapon is not None and not any(w.name == weapon for w in state.scene.unit(str(unit)).weapons):
        raise QueryError(f"weapon: unit {unit!r} has no weapon {weapon!r}")
    state = c.emit(Weapon(str(unit), None if weapon is None else str(weapon)))
    areas, shown = display.shown_weapon(state, ruleset, str(unit)) if ruleset is not None else (None, ())
    return {"unit": str(unit), "weapon": next(iter(shown), None),
            "weapons": (areas or {}).get("weapons", [])}


def game_action(c: TableController, action: str, args: list[Any] | tuple[Any, ...] = ()) -> dict[str, Any]:
    """An action of the rule system's live game (`Ruleset.live_game`); its phase action goes through
    `advance_phase`, which keeps the table's phases in step. The command and the event are named after
    the rule system."""
    game = c.games.of(c.state)
    if game is None:
        raise QueryError(f"{c.state.scene.ruleset} keeps no live game")
    logged = game.action_args(action, args)
    if action == game.phase_action:
        return advance_phase(c)
    answer = game.trial(c.state, action, logged)
    c.emit(GameAction(c.state.scene.ruleset, action, tuple(logged)))
    return answer if isinstance(answer, dict) else {"answer": answer}


def confirm(c: TableController) -> dict[str, Any]:
    return c.emit(Confirm()).phase_dict()


def undo(c: TableController) -> dict[str, Any]:
    return c.emit(Undo()).phase_dict()


def roll(c: TableController, kind: str = "dice", **params: Any) -> dict[str, Any]:
    """Roll the dice (`label`: what the roll is for, shown beside it)."""
    result = rolls.roll(c.rng, c.state.rules, kind, params)
    fields = {k: v for k, v in params.items() if k != "label"}
    c.emit(Roll(kind, fields, params.get("label"), result))
    return result


def acknowledge(c: TableController, id: Any) -> dict[str, Any]:
    if not any(w["id"] == str(id) for w in c.current_warnings()):
        raise QueryError(f"no warning {id!r}")
    c.emit(Acknowledge(str(id)))
    return {"acknowledged": str(id)}


def assign_marker(c: TableController, model: Any, marker: int | None = None) -> dict[str, Any]:
    state = c.emit(AssignMarker(str(model), None if marker is None else int(marker)))
    return {"roster": {str(k): v for k, v in sorted(state.markers().items())}}


def settings(c: TableController, **params: Any) -> dict[str, Any]:
    unknown = set(params) - {"brightness", "rulings", "ruleset"}
    if unknown:
        raise QueryError(f"settings: unknown option(s) {', '.join(sorted(unknown))}")
    if "brightness" in params and not 0 <= float(params["brightness"]) <= 1:
        raise QueryError(f"settings: brightness must be between 0 and 1, got {params['brightness']}")
    event = Settings(params.get("ruleset"), params.get("rulings"),
                     float(params["brightness"]) if "brightness" in params else None)
    preview = c.session.preview(event)
    get_ruleset(preview.scene.ruleset)(preview.scene, preview.rulings)  # QueryError for bad rulings
    state = c.emit(event)
    return {"ruleset": state.scene.ruleset, "rulings": state.rulings, "brightness": state.brightness}


def measure(c: TableController, question: str, args: list[Any] | tuple[Any, ...] = ()) -> dict[str, Any]:
    if not isinstance(args, (list, tuple)):
        raise QueryError(f"measure: args: expected a list of ids, got {args!r}")
    ruleset = c.ruleset()
    if ruleset is None:
        raise QueryError("the rule system cannot answer with the current rulings")
    sigmas = c.model_sigmas()  # the answer (and the log) carry the interval and "too close to call"
    if sigmas:
        ruleset = type(ruleset)(with_sigmas(ruleset.scene, sigmas), ruleset.rulings)
    answer = ruleset.ask(question, [str(a) for a in args])
    c.emit(Measure(question, tuple(str(a) for a in args), answer))
    return {"question": question, "answer": answer}


COMMANDS: dict[str, Callable[..., dict[str, Any]]] = {
    "advance_phase": advance_phase, "select": select, "target": target, "confirm": confirm, "undo": undo,
    "roll": roll, "acknowledge": acknowledge, "assign_marker": assign_marker,
    "settings": settings, "measure": measure, "destination": destination,
    "weapon": weapon, "ruler": ruler, **army_commands.COMMANDS,
    **game_commands.COMMANDS,
}
AFTER_THE_GAME = game_commands.AFTER_THE_GAME


def check_params(name: str, run: Callable[..., dict[str, Any]], params: dict[str, Any]) -> None:
    """QueryError naming the parameter if `params` do not fit the handler's signature (an unknown
    one, a missing one), ParamError if one is out of the limits every way in shares
    (table/live/command_limits.py); a TypeError inside a handler stays a bug."""
    try:
        inspect.signature(run).bind(None, **params)
    except TypeError as exc:
        raise QueryError(f"{name}: {exc}") from None
    command_limits.check(run.__name__, params)


def handler(c: TableController, name: str) -> Callable[..., dict[str, Any]] | None:
    """The command called `name`: one of COMMANDS, or the live game's actions under the rule system's
    name (None if there is no such command)."""
    if name in COMMANDS:
        return COMMANDS[name]
    if name == c.state.scene.ruleset and c.state.rules.live_game is not None:
        return game_action
    return None


class ButtonActions:
    """What each physical button does (docs/hardware.md lists them)."""

    def __init__(self, controller: TableController):
        self.c = controller

    def pressed(self, name: str, held: bool) -> None:
        """gpiozero callback: never lets an error escape into gpiozero's thread."""
        try:
            if name == "select":
                self.c.command("select", id=None) if held else self.cycle_selection()
            elif name == "measure":
                self.c.take_bookmark() if held else self.cycle_target()
            elif name == "next_phase":
                self.cycle_weapon() if held else self.c.command("advance_phase")
            elif name == "undo":      # held: the scene on the table again, as a new game (a rematch)
                self.c.command("new_game") if held else self.c.command("undo")
            elif name == "confirm" and held:
                self.c.rotate_pin()
            elif name == "confirm":
                pending = [w for w in self.c.current_warnings() if not w["acknowledged"]]
                if pending:
                    self.c.command("acknowledge", id=pending[-1]["id"])
                else:
                    self.c.command("confirm")
        except TableError as exc:
            log.info("button %s: %s", name, exc)

    def _units(self, player: str | None, exclude_player: str | None = None) -> list[str]:
        scene = self.c.state.scene
        return [u.id for u in sorted(scene.units, key=lambda u: u.id)
                if scene.models_of(u.id) and (player is None or u.player == player)
                and (exclude_player is None or u.player != exclude_player)]

    @staticmethod
    def _next(items: list[str], current: str | None) -> str | None:
        if not items:
            return None
        return items[(items.index(current) + 1) % len(items)] if current in items else items[0]

    def cycle_selection(self) -> None:
        """Select the first model of the next unit (of the player whose turn it is, if any)."""
        state = self.c.state
        current = state.scene.model(state.selected).unit if state.selected else None
        unit = self._next(self._units(state.player), current)
        if unit is not None:
            self.c.command("select", id=unit)

    def cycle_weapon(self) -> None:
        """Show the selected unit's next weapon with range bands."""
        state, ruleset = self.c.state, self.c.ruleset()
        if state.selected is None or ruleset is None:
            raise QueryError("select a model before picking a weapon")
        areas, shown = display.shown_weapon(state, ruleset, state.scene.model(state.selected).unit)
        following = self._next(list((areas or {}).get("weapons", [])), next(iter(shown), None))
        if following is not None:
            self.c.command("weapon", weapon=following)

    def cycle_target(self) -> None:
        """Target the next enemy unit of the selected model."""
        state = self.c.state
        if state.selected is None:
            raise QueryError("select a model before picking a target")
        player = state.scene.unit(state.scene.model(state.selected).unit).player
        is_unit = any(u.id == state.target for u in state.scene.units)
        current = state.target if is_unit else None
        unit = self._next(self._units(None, exclude_player=player), current)
        if unit is not None:
            self.c.command("target", id=unit)
