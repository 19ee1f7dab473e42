"""Game events: one frozen dataclass per kind, each with its own `apply(state) -> GameState`.

An event's stored form is a JSON object with a `kind` (what the game log keeps, exports and publishes);
`decode` reads one, checking every field (an error names the field), and `encode` writes one, the same
as logs have always held, so old logs replay. The kinds: play_events.py (a game's start, moves,
phases, selection, the live game's actions...) and table_events.py (warnings, terrain, settings,
dice, questions, the camera). `table.live.session.replay` plays stored events into a game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table import registry
from table.errors import QueryError
from table.jsoncheck import kind_of
from table.live.event_base import KINDS, Event, Fields
from table.live.play_events import (
    Confirm,
    Destination,
    GameAction,
    GameEnd,
    GameResume,
    GameStart,
    Move,
    PhaseChange,
    Ruler,
    Select,
    Target,
    Undo,
    Weapon,
)
from table.live.state import GameState
from table.live.table_events import (
    Acknowledge,
    AssignMarker,
    Bookmark,
    Camera,
    Measure,
    Roll,
    SetTerrain,
    Settings,
    UnitChange,
    WarningCleared,
    WarningRaised,
)
from table.scene import Scene

__all__ = ["Acknowledge", "AssignMarker", "Bookmark", "Camera", "Confirm", "Destination", "Event",
           "GameAction", "GameEnd", "GameResume", "GameStart", "Measure", "Move", "PhaseChange", "Roll",
           "Ruler", "Select", "SetTerrain", "Settings", "Target", "Undo", "UnitChange", "WarningCleared",
           "WarningRaised", "Weapon", "apply", "decode", "encode", "new_game"]

ENVELOPE = frozenset({"kind", "seq", "ts", "game"})   # what the log adds around an event's own fields


def decode(stored: Mapping[str, Any]) -> Event:
    """The event from its stored form (a log entry, an exported line, a JSON object): its `kind`
    and fields, the log's envelope (`seq`, `ts`, `game`) ignored. QueryError (SceneError for a
    game's scene) names the field that is wrong."""
    if not isinstance(stored, Mapping):
        raise QueryError(f"event: expected an object, got {kind_of(stored)}")
    kind = stored.get("kind")
    if not isinstance(kind, str) or not kind:
        raise QueryError(f"event.kind: expected a non-empty string, got {kind_of(kind)}")
    data = {k: v for k, v in stored.items() if k not in ENVELOPE}
    cls = KINDS.get(kind)
    if cls is not None:
        return cls.from_json(Fields(kind, data))
    if kind in registry.names():       # a rule system's live game
        return GameAction.from_json(Fields(kind, data))
    raise QueryError(f"unknown event kind {kind!r}")


def encode(event: Event) -> dict[str, Any]:
    """The event's stored form (`decode` reads it back)."""
    return event.to_json()


def apply(state: GameState | None, event: Event) -> GameState:
    """The state after one event; raises QueryError (or SceneError) for an event that cannot apply."""
    if isinstance(event, GameStart):
        return event.apply(state)
    if state is None:
        raise QueryError(f"event {encode(event)['kind']!r} before the game started")
    return event.apply(state)


def new_game(scene: Scene, seed: int | None = None) -> GameStart:
    """The event that starts a game with a scene (and the seed of the rule system's own dice)."""
    return GameStart(scene, seed)
