"""The live game of the scene's rule system, for those that declare one (`Ruleset.live_game`): one
instance per rule system, kept across states so it replays only the actions it has not seen."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table.live.events import Event, Move, decode, encode
from table.live.session import GameState
from table.rules.declarations import LiveGame


class LiveGames:
    """Each rule system's live game, made on first use."""

    def __init__(self) -> None:
        self._games: dict[str, LiveGame] = {}

    def of(self, state: GameState) -> LiveGame | None:
        """The live game of the state's rule system (None if it declares none)."""
        kind = state.rules.live_game
        if kind is None:
            return None
        name = state.scene.ruleset
        if name not in self._games:
            self._games[name] = kind()
        return self._games[name]

    def camera_moves(self, state: GameState, moves: list[Move]) -> list[Event]:
        """The game's actions for what the camera saw move (none without a live game); the rule
        system's game reads and writes events in their stored form (it imports no live table)."""
        game = self.of(state)
        if game is None:
            return []
        return [decode(stored) for stored in game.camera_moves(state, [encode(move) for move in moves])]

    def view(self, state: GameState, observed: Mapping[str, Any]) -> dict[str, Any] | None:
        """What the panel shows of the game, under `phase[<rule system>]` (None without a live game)."""
        game = self.of(state)
        return None if game is None else game.view(state, observed)
