"""The base of the game's events: `Event` (one frozen dataclass per kind, each with its own
`apply(state) -> GameState` and `to_json`), `Fields` (an event's stored fields, read and checked)
and the registry of kinds that `table.live.events.decode` reads."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

from table.errors import QueryError
from table.frozen import FrozenJson, freeze, freeze_mapping
from table.hexgrid import Hex
from table.jsoncheck import JsonReader, kind_of
from table.live.state import GameState
from table.scene import Model

Point = tuple[float, float]


class Event(ABC):
    """One change to a game. Subclasses are frozen dataclasses that name their `kind`."""

    kind: ClassVar[str]
    undoable: ClassVar[bool] = False      # kept on the session's undo stack

    def apply(self, state: GameState) -> GameState:
        """The state after this event (recorded only, by default: no state of its own)."""
        return state

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The stored form: a JSON object with the `kind` first."""

    @classmethod
    @abstractmethod
    def from_json(cls, read: Fields) -> Event:
        """The event from its stored fields (each checked; QueryError names the field)."""


E = TypeVar("E", bound=type[Event])
KINDS: dict[str, type[Event]] = {}


def register(cls: E) -> E:
    """Class decorator: register an event class under its `kind`."""
    KINDS[cls.kind] = cls
    return cls


class Fields:
    """An event's stored fields, read and checked; a failure names `kind.field`."""

    def __init__(self, kind: str, data: Mapping[str, Any]):
        self.kind, self.data = kind, data
        self._reader = JsonReader("", QueryError)

    def _path(self, name: str) -> str:
        return f"{self.kind}.{name}"

    def has(self, name: str) -> bool:
        return name in self.data

    def any(self, name: str, default: Any = None) -> FrozenJson:
        """Any JSON value, frozen."""
        return freeze(self.data.get(name, default))

    def text(self, name: str) -> str:
        return self._reader.string(self.data.get(name), self._path(name))

    def opt_text(self, name: str) -> str | None:
        return None if self.data.get(name) is None else self.text(name)

    def string(self, name: str, default: str | None = "") -> str | None:
        """Any string, empty included (`default` when missing or null)."""
        value = self.data.get(name)
        if value is None:
            return default
        if not isinstance(value, str):
            raise QueryError(f"{self._path(name)}: expected a string, got {kind_of(value)}")
        return value

    def point(self, name: str) -> Point:
        return self._reader.point(self.data.get(name), self._path(name))

    def opt_number(self, name: str) -> float | None:
        value = self.data.get(name)
        return None if value is None else self._reader.number(value, self._path(name))

    def opt_integer(self, name: str) -> int | None:
        """An integer of any size (a dice seed is up to 2**31)."""
        value = self.data.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise QueryError(f"{self._path(name)}: expected an integer, got {kind_of(value)}")
        return value

    def integer(self, name: str) -> int:
        value = self.opt_integer(name)
        if value is None:
            raise QueryError(f"{self._path(name)}: expected an integer, got null")
        return value

    def opt_hex(self, name: str) -> Hex | None:
        value = self.data.get(name)
        return None if value is None else self._reader.hex(value, self._path(name))

    def obj(self, name: str, default: Mapping[str, Any] | None = None) -> Mapping[str, FrozenJson]:
        value = self.data.get(name, default)
        return freeze_mapping(self._reader.obj(value if value is not None else {}, self._path(name)))

    def array(self, name: str) -> tuple[FrozenJson, ...]:
        return tuple(freeze(self._reader.array(self.data.get(name, []), self._path(name))))

    def strings(self, name: str) -> tuple[str, ...]:
        """An array of strings (missing: none)."""
        items = self.array(name)
        for index, item in enumerate(items):
            if not isinstance(item, str):
                raise QueryError(f"{self._path(name)}[{index}]: expected a string, got {kind_of(item)}")
        return tuple(str(item) for item in items)


def optional(out: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """`out` plus the optional fields that are set (not None)."""
    return {**out, **{k: v for k, v in fields.items() if v is not None}}


def model_in(state: GameState, model_id: str) -> Model:
    """The scene's model called `model_id` (QueryError if there is none)."""
    try:
        return state.scene.model(model_id)
    except KeyError:
        raise QueryError(f"no model {model_id!r} in the scene") from None


def freeze_fields(event: Event, *names: str) -> None:
    """Freeze the named JSON fields of a just-made event (`__post_init__`): a caller may pass plain
    dicts and lists, and nobody can change the event afterwards."""
    for name in names:
        object.__setattr__(event, name, freeze(getattr(event, name)))
