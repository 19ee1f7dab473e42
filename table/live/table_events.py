"""The table's own events: warnings raised, acknowledged and cleared, terrain, marker assignments
and settings changed, dice rolled, questions asked and the camera's state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from table.frozen import FrozenJson, thaw
from table.live.event_base import Event, Fields, freeze_fields, model_in, optional, register
from table.live.state import GameState
from table.scene import parse_scene, scene_to_dict


@register
@dataclass(frozen=True)
class Acknowledge(Event):
    """A player acknowledged a warning."""

    kind: ClassVar[str] = "acknowledge"
    undoable: ClassVar[bool] = True
    id: str

    def apply(self, state: GameState) -> GameState:
        return replace(state, acknowledged=state.acknowledged | {self.id})

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id}

    @classmethod
    def from_json(cls, read: Fields) -> Acknowledge:
        return cls(read.text("id"))


@register
@dataclass(frozen=True)
class WarningRaised(Event):
    """The table raised a warning (`warning` is its kind: cohesion, melee, overmove...)."""

    kind: ClassVar[str] = "warning"
    id: str
    warning: str | None = None
    message: str = ""
    units: tuple[str, ...] | None = None       # the units it is about (logs before these had none)

    def to_json(self) -> dict[str, Any]:
        out = {"kind": self.kind, "id": self.id, "warning": self.warning, "message": self.message}
        return out if self.units is None else {**out, "units": list(self.units)}

    @classmethod
    def from_json(cls, read: Fields) -> WarningRaised:
        units = read.strings("units") if read.has("units") else None
        return cls(read.text("id"), read.opt_text("warning"), read.string("message") or "", units)


@register
@dataclass(frozen=True)
class WarningCleared(Event):
    """A warning no longer stands (and is no longer acknowledged)."""

    kind: ClassVar[str] = "warning_cleared"
    id: str

    def apply(self, state: GameState) -> GameState:
        return replace(state, acknowledged=state.acknowledged - {self.id})

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id}

    @classmethod
    def from_json(cls, read: Fields) -> WarningCleared:
        return cls(read.text("id"))


@register
@dataclass(frozen=True)
class SetTerrain(Event):
    """The board's terrain pieces replaced (scene file format: `terrain`)."""

    kind: ClassVar[str] = "terrain"
    undoable: ClassVar[bool] = True
    terrain: tuple[FrozenJson, ...]

    def __post_init__(self) -> None:
        freeze_fields(self, "terrain")

    def apply(self, state: GameState) -> GameState:
        document = {**scene_to_dict(state.scene), "terrain": thaw(self.terrain)}
        return replace(state, scene=parse_scene(document, "terrain"))

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "terrain": thaw(self.terrain)}

    @classmethod
    def from_json(cls, read: Fields) -> SetTerrain:
        return cls(read.array("terrain"))


@register
@dataclass(frozen=True)
class AssignMarker(Event):
    """A marker assigned to a model (None: the model's assignment dropped)."""

    kind: ClassVar[str] = "marker"
    undoable: ClassVar[bool] = True
    model: str
    marker: int | None = None

    def apply(self, state: GameState) -> GameState:
        model = model_in(state, self.model).id
        roster = tuple((k, v) for k, v in state.roster if v != model and k != self.marker)
        if self.marker is not None:
            roster += ((self.marker, model),)
        return replace(state, roster=roster)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "model": self.model, "marker": self.marker}

    @classmethod
    def from_json(cls, read: Fields) -> AssignMarker:
        return cls(read.text("model"), read.opt_integer("marker"))


@register
@dataclass(frozen=True)
class Settings(Event):
    """The table's settings changed: the rule system, its rulings, the LEDs' brightness (each optional)."""

    kind: ClassVar[str] = "settings"
    undoable: ClassVar[bool] = True
    ruleset: str | None = None
    rulings: Mapping[str, FrozenJson] | None = None
    brightness: float | None = None

    def __post_init__(self) -> None:
        freeze_fields(self, "rulings")

    def apply(self, state: GameState) -> GameState:
        if self.ruleset is not None:
            document = {**scene_to_dict(state.scene), "ruleset": self.ruleset}
            state = replace(state, scene=parse_scene(document, "settings.ruleset"), step=0, activation=None,
                            finished=())
        if self.rulings is not None:
            state = replace(state, rulings=thaw(self.rulings))
        if self.brightness is not None:
            state = replace(state, brightness=self.brightness)
        return state

    def to_json(self) -> dict[str, Any]:
        return optional({"kind": self.kind}, ruleset=self.ruleset,
                     rulings=None if self.rulings is None else thaw(self.rulings), brightness=self.brightness)

    @classmethod
    def from_json(cls, read: Fields) -> Settings:
        return cls(read.opt_text("ruleset"), read.obj("rulings") if read.has("rulings") else None,
                   read.opt_number("brightness"))


@register
@dataclass(frozen=True)
class Roll(Event):
    """Dice rolled: the kind of roll, its parameters and label, and the result."""

    kind: ClassVar[str] = "roll"
    roll: str
    params: Mapping[str, FrozenJson]
    label: str | None
    result: Mapping[str, FrozenJson]

    def __post_init__(self) -> None:
        freeze_fields(self, "params", "result")

    def apply(self, state: GameState) -> GameState:
        return replace(state, last_roll=thaw(self.result))

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "roll": self.roll, "params": thaw(self.params), "label": self.label,
                "result": thaw(self.result)}

    @classmethod
    def from_json(cls, read: Fields) -> Roll:
        return cls(read.opt_text("roll") or "dice", read.obj("params"), read.string("label", None),
                   read.obj("result"))


@register
@dataclass(frozen=True)
class Measure(Event):
    """A question asked of the rule system and its answer (recorded for the log)."""

    kind: ClassVar[str] = "measure"
    question: str
    args: tuple[str, ...]
    answer: FrozenJson

    def __post_init__(self) -> None:
        freeze_fields(self, "args", "answer")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "question": self.question, "args": list(self.args),
                "answer": thaw(self.answer)}

    @classmethod
    def from_json(cls, read: Fields) -> Measure:
        return cls(read.text("question"), read.strings("args"), read.any("answer"))


@register
@dataclass(frozen=True)
class Camera(Event):
    """The camera's state changed (ok, lost), with what it said."""

    kind: ClassVar[str] = "camera"
    status: str
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "status": self.status, "detail": self.detail}

    @classmethod
    def from_json(cls, read: Fields) -> Camera:
        return cls(read.text("status"), read.string("detail") or "")


@register
@dataclass(frozen=True)
class Bookmark(Event):
    """A dispute bookmarked: its evidence's id in the table's bookmark store (table/live/bookmarks.py),
    the question, what it measured between, the answer as the panel shows it, too close to call or not."""

    kind: ClassVar[str] = "bookmark"
    id: int
    question: str
    between: tuple[FrozenJson, ...]
    text: str
    too_close_to_call: bool = False

    def __post_init__(self) -> None:
        freeze_fields(self, "between")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "question": self.question, "between": thaw(self.between),
                "text": self.text, "too_close_to_call": self.too_close_to_call}

    @classmethod
    def from_json(cls, read: Fields) -> Bookmark:
        return cls(read.integer("id"), read.text("question"), read.array("between"),
                   read.string("text") or "", bool(read.data.get("too_close_to_call")))
