"""The table's own events: warnings raised, acknowledged and cleared, terrain, units, marker
assignments and settings changed, dice rolled, questions asked and the camera's state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from table.errors import QueryError
from table.frozen import FrozenJson, thaw
from table.live.event_base import Event, Fields, freeze_fields, model_in, optional, register
from table.live.state import GameState
from table.rules.setups import stage
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
    """The board's terrain replaced (scene file format): its pieces (`terrain`), and, each when given,
    the hex terrain (`hexes`), the hexsides and the rule system's board keys (`board`: deployment
    zones, objectives; a key set to null is dropped)."""

    kind: ClassVar[str] = "terrain"
    undoable: ClassVar[bool] = True
    terrain: tuple[FrozenJson, ...] | None
    hexes: tuple[FrozenJson, ...] | None = None
    hexsides: tuple[FrozenJson, ...] | None = None
    board: Mapping[str, FrozenJson] | None = None

    def __post_init__(self) -> None:
        freeze_fields(self, "terrain", "hexes", "hexsides", "board")

    def apply(self, state: GameState) -> GameState:
        document = scene_to_dict(state.scene)
        for key in ("terrain", "hexes", "hexsides"):
            if getattr(self, key) is not None:
                document[key] = thaw(getattr(self, key))
        for key, value in thaw(self.board or {}).items():
            document.pop(key, None) if value is None else document.update({key: value})
        return replace(state, scene=parse_scene(document, "terrain"))

    def to_json(self) -> dict[str, Any]:
        return optional({"kind": self.kind}, terrain=None if self.terrain is None else thaw(self.terrain),
                        hexes=None if self.hexes is None else thaw(self.hexes),
                        hexsides=None if self.hexsides is None else thaw(self.hexsides),
                        board=None if self.board is None else thaw(self.board))

    @classmethod
    def from_json(cls, read: Fields) -> SetTerrain:
        def maybe(name: str) -> tuple[FrozenJson, ...] | None:
            return read.array(name) if read.has(name) else None
        return cls(maybe("terrain"), maybe("hexes"), maybe("hexsides"),
                   read.obj("board") if read.has("board") else None)


@register
@dataclass(frozen=True)
class UnitChange(Event):
    """A unit added or changed (`unit`: its scene document, which may rename it) with its models
    (`models`: their documents; None keeps those it has), or removed (`unit` None, with its models).
    A model given without a place keeps the one it had, else waits at its player's edge."""

    kind: ClassVar[str] = "unit"
    undoable: ClassVar[bool] = True
    id: str
    unit: Mapping[str, FrozenJson] | None
    models: tuple[FrozenJson, ...] | None = None

    def __post_init__(self) -> None:
        freeze_fields(self, "unit", "models")

    def apply(self, state: GameState) -> GameState:
        doc = scene_to_dict(state.scene)
        units, models = doc["units"], doc["models"]
        at = next((i for i, u in enumerate(units) if u["id"] == self.id), None)
        if self.unit is None and at is None:
            raise QueryError(f"no unit {self.id!r} in the scene")
        new_id = self.id if self.unit is None else str(self.unit.get("id", self.id))
        if new_id != self.id and any(u["id"] == new_id for u in units):
            raise QueryError(f"unit.id: there is already a unit {new_id!r}")
        before = {m["id"]: m for m in models if m["unit"] == self.id}
        kept = [m for m in models if m["unit"] != self.id]
        if self.unit is None:
            del units[at]
            mine: list[dict[str, Any]] = []
        else:
            unit = {**thaw(self.unit), "id": new_id}
            if at is None:
                units.append(unit)
            else:
                units[at] = unit
            given = list(before.values()) if self.models is None else thaw(self.models)
            mine = [_placed({**m, "unit": new_id}, before.get(m.get("id"))) for m in given]
        doc["models"] = kept + mine
        scene = parse_scene(stage(doc), "unit")
        return _without_missing(replace(state, scene=scene))

    def to_json(self) -> dict[str, Any]:
        unit = None if self.unit is None else thaw(self.unit)
        return optional({"kind": self.kind, "id": self.id, "unit": unit},
                        models=None if self.models is None else thaw(self.models))

    @classmethod
    def from_json(cls, read: Fields) -> UnitChange:
        return cls(read.text("id"), read.obj("unit") if read.data.get("unit") is not None else None,
                   read.array("models") if read.has("models") else None)


def _placed(model: dict[str, Any], before: Mapping[str, Any] | None) -> dict[str, Any]:
    """A model document given without a place keeps the place it had."""
    if before is None or {"x", "y", "hex"} & set(model):
        return model
    return {**model, **{k: before[k] for k in ("x", "y", "hex", "heading") if k in before}}


def _without_missing(state: GameState) -> GameState:
    """The selection, target, activation and chosen weapons forget units and models no longer there."""
    scene = state.scene
    models = {m.id for m in scene.models}
    units = {u.id for u in scene.units}
    selected = state.selected if state.selected in models else None
    target = state.target if state.target in models | units else None
    activation = state.activation if state.activation is None or state.activation.unit in units else None
    return replace(state, selected=selected, target=target, activation=activation,
                   destination=state.destination if selected else None,
                   weapons=tuple((u, w) for u, w in state.weapons if u in units))


@register
@dataclass(frozen=True)
class AssignMarker(Event):
    """A marker assigned to a model (None: the model's marker dropped): the scene's models change, so a
    marker belongs to one model at most."""

    kind: ClassVar[str] = "marker"
    undoable: ClassVar[bool] = True
    model: str
    marker: int | None = None

    def apply(self, state: GameState) -> GameState:
        model = model_in(state, self.model).id
        models = tuple(replace(m, marker=self.marker) if m.id == model else
                       replace(m, marker=None) if self.marker is not None and m.marker == self.marker else m
                       for m in state.scene.models)
        return replace(state, scene=state.scene.with_models(models))

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
