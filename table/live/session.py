"""The game session: the current `GameState` and an undo stack, changed only by events.

Every change to a game is an event (table/live/events.py), and applying it is the only way to a new
state; the game log stores the events, so replaying them rebuilds the game exactly (after a restart,
from an exported log, or step by step in a replay): `replay` is that entry point.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from table.errors import QueryError, TableError
from table.live.events import Event, GameStart, Undo, apply, decode, new_game
from table.live.state import Activation, GameState, moved_distance
from table.scene import Scene

__all__ = ["Activation", "GameState", "Session", "moved_distance", "new_game", "replay"]


class Session:
    """The current state plus an undo stack; `apply` is the only way to change it."""

    UNDO_DEPTH = 50

    def __init__(self) -> None:
        self.state: GameState | None = None
        self._undo: list[GameState] = []

    def copy(self) -> Session:
        """An independent session in the same state (to try events on, or a replay's checkpoint)."""
        twin = Session()
        twin.state, twin._undo = self.state, list(self._undo)
        return twin

    def preview(self, event: Event) -> GameState:
        """The state the event would lead to (raises without changing anything)."""
        if isinstance(event, Undo):
            if not self._undo or self.state is None:
                raise QueryError("nothing to undo")
            previous = self._undo[-1]
            return replace(previous, scene=standing_as_now(previous.scene, self.state.scene))
        return apply(self.state, event)

    def apply(self, event: Event) -> GameState:
        new = self.preview(event)
        if isinstance(event, Undo):
            self._undo.pop()
        elif isinstance(event, GameStart):
            self._undo = []
        elif self.state is not None and event.undoable:
            self._undo = [*self._undo[-(self.UNDO_DEPTH - 1):], self.state]
        self.state = new
        return new


def standing_as_now(before: Scene, now: Scene) -> Scene:
    """The scene `before` with each of its models standing where it stands `now` (an undo takes back
    a change, never where the camera sees a model)."""
    where = {m.id: m for m in now.models}
    return before.with_models(tuple(
        replace(m, x=w.x, y=w.y, heading=w.heading, hex=w.hex) if (w := where.get(m.id)) is not None else m
        for m in before.models))


def replay(stored: Iterable[Mapping[str, Any]], session: Session | None = None) -> Session:
    """A session after the stored events (the game log's entries, an exported log's lines: JSON
    objects with a `kind`), applied in order after `session`'s state (a copy: the given session is
    left as it was; none: from nothing). An event that cannot be decoded or applied raises a
    TableError naming it (its `seq` when it has one) and the field."""
    replayed = Session() if session is None else session.copy()
    for index, entry in enumerate(stored):
        try:
            replayed.apply(decode(entry))
        except TableError as exc:
            seq = entry.get("seq") if isinstance(entry, Mapping) else None
            raise type(exc)(f"event {index if seq is None else seq}: {exc}") from None
    return replayed
