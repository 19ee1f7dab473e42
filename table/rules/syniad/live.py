"""A Syniad game played on the live table: `SyniadGame` (game.py) behind the session, as the rule
system's `live_game` (`table.rules.declarations.LiveGame`).

The session keeps the game as its actions (`GameState.actions`, from `syniad` events and each
`phase` event's `next_phase`) over the scene and dice seed the game started with, so the log
replays it exactly. `SyniadLive` keeps the live `SyniadGame` in step with the session, tries an
action on a copy before it is logged, turns the camera's counter moves into `select_unit`/`move`
actions, and gives the panel the game's status, the last combat's instructions for the counters
and what the camera disagrees with.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping
from typing import Any

from table.errors import QueryError, TableError
from table.hexgrid import Hex
from table.rules.declarations import GameState
from table.rules.syniad.game import SyniadGame
from table.scene import Scene

log = logging.getLogger(__name__)

HEX_ACTIONS = frozenset({"select", "move", "rotate", "select_target"})      # one argument: a hex
UNIT_ACTIONS = frozenset({"select_unit", "add_attacker", "remove_attacker"})  # one argument: a unit id
PLAIN_ACTIONS = frozenset({"next_phase", "resolve", "cancel"})
ACTIONS = HEX_ACTIONS | UNIT_ACTIONS | PLAIN_ACTIONS


def _action_args(action: str, args: list[Any] | tuple[Any, ...]) -> list[Any]:
    """An action's arguments as logged (a hex as [q, r], a unit id as a string); QueryError if wrong."""
    if action not in ACTIONS:
        raise QueryError(f"syniad: unknown action {action!r} (known: {', '.join(sorted(ACTIONS))})")
    wanted = 0 if action in PLAIN_ACTIONS else 1
    if len(args) != wanted:
        raise QueryError(f"syniad {action}: expected {wanted} argument(s), got {len(args)}")
    if action in UNIT_ACTIONS:
        return [str(args[0])]
    if action in HEX_ACTIONS:
        where = args[0].split(",") if isinstance(args[0], str) else args[0]
        try:
            q, r = (int(v) for v in where)
        except (TypeError, ValueError):
            raise QueryError(f"syniad {action}: expected a hex Q,R, got {args[0]!r}") from None
        return [[q, r]]
    return []


def _run(game: SyniadGame, action: str, args: list[Any]) -> Any:
    return getattr(game, action)(*[tuple(a) if isinstance(a, list) else a for a in args])


class SyniadLive:
    """The live `SyniadGame` of the session's current state (rebuilt when the actions diverge)."""

    arguments: Mapping[str, str | None] = {**dict.fromkeys(HEX_ACTIONS, "hex"),
                                           **dict.fromkeys(UNIT_ACTIONS, "unit"),
                                           **dict.fromkeys(PLAIN_ACTIONS)}
    phase_action: str | None = "next_phase"

    def __init__(self) -> None:
        self._origin: Any = None
        self._seed: int | None = None
        self._done: tuple[tuple[str, tuple[Any, ...]], ...] = ()
        self._game: SyniadGame | None = None

    def action_args(self, action: str, args: list[Any] | tuple[Any, ...]) -> list[Any]:
        """An action's arguments as logged (a hex as [q, r], a unit id as a string); QueryError if wrong."""
        return _action_args(action, args)

    def game(self, state: GameState) -> SyniadGame | None:
        """The game after every action of `state` (None for another rule system, or a scene
        SyniadGame cannot play: the table then runs without it)."""
        if state.origin is None:
            return None
        try:
            return self._game_for(state, state.origin)
        except TableError as exc:
            log.warning("syniad: no game for this scene: %s", exc)
            self._game = None
            return None

    def _game_for(self, state: GameState, origin: Scene) -> SyniadGame:
        actions = state.actions
        fresh = (self._game is None or self._origin is not origin or self._seed != state.seed
                 or actions[:len(self._done)] != self._done)
        if fresh:
            self._game, self._origin, self._seed, self._done = (
                SyniadGame.from_scene(origin, state.seed), origin, state.seed, ())
        game = self._game
        assert game is not None
        for action, args in actions[len(self._done):]:
            _run(game, action, list(args))
            self._done = (*self._done, (action, args))
        return game

    def trial(self, state: GameState, action: str, args: list[Any]) -> Any:
        """What the action answers, tried on a copy of the game (IllegalAction if the rules forbid it)."""
        game = self.game(state)
        if game is None:
            raise QueryError("syniad: the current game is not a Syniad game")
        return _run(copy.deepcopy(game), action, args)

    def camera_moves(self, state: GameState, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """`syniad` events for counters the camera saw moved to another hex in the movement phase,
        when the rules allow the move; any other move is left to the mismatch list."""
        game = self.game(state)
        if game is None or game.phase != "movement":
            return []
        trial = copy.deepcopy(game)
        out: list[dict[str, Any]] = []
        by_model = {c.model: c for c in trial.state.counters.values() if c.model is not None}
        for event in events:
            model, where = event.get("model"), event.get("hex")
            counter = by_model.get(model) if isinstance(model, str) else None
            if event.get("kind") != "move" or counter is None or where is None or tuple(where) == counter.hex:
                continue
            steps: list[tuple[str, list[Any]]] = [] if trial.selected == counter.id else [
                ("select_unit", [counter.id])]
            steps.append(("move", [list(where)]))
            checkpoint = copy.deepcopy(trial)
            try:
                for action, args in steps:
                    _run(trial, action, args)
            except QueryError:
                trial = checkpoint
                continue
            out += [{"kind": "syniad", "action": a, "args": args, "by": "camera"} for a, args in steps]
        return out

    def view(self, state: GameState, observed: Mapping[str, Hex]) -> dict[str, Any] | None:
        """The panel's Syniad view: status, the last combat and its instructions, the mismatches."""
        game = self.game(state)
        if game is None:
            return None
        last = game.last_result
        return {**game.status(), "details": game.details(), "last_result": last,
                "instructions": (last or {}).get("instructions", []),
                "mismatches": game.check_board(observed)}
