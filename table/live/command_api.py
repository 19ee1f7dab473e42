"""What the commands (table/live/*_commands.py) need of the controller: the `TableController` protocol."""

from __future__ import annotations

import random
from typing import Any, Protocol

from table.live.events import Event
from table.live.live_games import LiveGames
from table.live.session import GameState, Session
from table.live.sigmas import Sigmas
from table.rules.base import Ruleset
from table.scene import Scene


class TableController(Protocol):
    """What the commands need of the controller (`table.live.controller.TableController`)."""

    rng: random.Random
    games: LiveGames

    @property
    def session(self) -> Session: ...

    @property
    def game(self) -> int: ...

    @property
    def state(self) -> GameState: ...

    def model_sigmas(self) -> Sigmas: ...

    def rotate_pin(self) -> None: ...

    def emit(self, event: Event) -> GameState: ...

    def emit_all(self, events: list[Event]) -> GameState: ...

    def command(self, name: str, **params: Any) -> dict[str, Any]: ...

    def current_warnings(self) -> list[dict[str, Any]]: ...

    def ruleset(self) -> Ruleset | None: ...

    def start_game(self, scene: Scene) -> None: ...

    def end_game(self, reason: str | None = None) -> None: ...

    def resume_game(self, game: int) -> None: ...

    def take_bookmark(self, a: str | None = None, b: str | None = None,
                      ruler: bool = False) -> dict[str, Any]: ...
