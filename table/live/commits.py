"""A game log that tells its listeners after each commit (the MQTT link wakes on it).

The listeners learn only that something was committed; they read the events back from the log
itself, so what they publish is exactly what is on disk. A failed commit raises as before and
tells nobody.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from table.live.gamelog import GameLog

log = logging.getLogger(__name__)


class CommitFeed(GameLog):
    """`GameLog` with an after-commit subscription."""

    def __init__(self, path: Any):
        super().__init__(path)
        self._listeners: list[Callable[[], None]] = []

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call `listener()` after every successful commit (on the committing thread: keep it short)."""
        self._listeners.append(listener)

    def start_game(self, ruleset: str, first_event: dict[str, Any], game: int | None = None) -> int:
        game = super().start_game(ruleset, first_event, game)
        self._committed()
        return game

    def append_all(self, game: int, events: list[dict[str, Any]]) -> list[int]:
        seqs = super().append_all(game, events)
        self._committed()
        return seqs

    def _committed(self) -> None:
        for listener in self._listeners:
            try:
                listener()
            except Exception:  # a listener must never fail a commit that succeeded
                log.exception("after-commit listener")
