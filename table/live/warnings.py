"""Warnings the table raises for the players: each has a stable id, so it can be acknowledged.

Kinds: `cohesion` (a unit out of cohesion), `melee` (units in melee), `overmove` (a model moved
farther than its allowance this activation), `off_board` (a model's marker outside the board),
`unknown_marker` (a marker the roster does not know).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from table.live.events import Event, WarningCleared, WarningRaised
from table.live.session import GameState, moved_distance

SEEN_KINDS = ("off_board", "unknown_marker")   # warnings about what the camera sees right now


@dataclass(frozen=True)
class TableWarning:
    """One warning: its stable id, its kind, what it says, the units it is about, acknowledged or not."""

    id: str
    kind: str
    message: str
    units: tuple[str, ...] = ()
    acknowledged: bool = False

    def to_json(self) -> dict[str, Any]:
        """As the snapshot and `GET /api/state` show it."""
        return {"id": self.id, "kind": self.kind, "message": self.message, "units": list(self.units),
                "acknowledged": self.acknowledged}


def _warning(wid: str, kind: str, message: str, units: Iterable[str]) -> TableWarning:
    return TableWarning(wid, kind, message, tuple(sorted(set(units))))


def _melee_units(item: Any) -> list[str]:
    """Unit or model ids of one melee entry, whatever shape the rule system reports it in."""
    if isinstance(item, Mapping):
        if "model" in item and isinstance(item.get("enemies"), list):
            return [str(item["model"]), *map(str, item["enemies"])]
        for key in ("units", "models", "pair"):
            if isinstance(item.get(key), list):
                return [str(v) for v in item[key]]
        return [str(item[k]) for k in ("from", "to", "a", "b") if k in item]
    if isinstance(item, (list, tuple)):
        return [str(v) for v in item]
    return [str(item)]


def from_report(state: GameState, report: Mapping[str, Any] | None) -> list[TableWarning]:
    """Cohesion and melee warnings from the rule system's `report` answer."""
    if not report:
        return []
    warnings = []
    for entry in report.get("units", []) or []:
        if isinstance(entry, Mapping) and entry.get("coherent") is False:
            unit = str(entry.get("unit"))
            stray = ", ".join(map(str, entry.get("out_of_cohesion", [])))
            warnings.append(_warning(f"cohesion:{unit}", "cohesion",
                                     f"unit {unit} is out of cohesion ({stray})", [unit]))
    melee: dict[str, TableWarning] = {}
    for item in report.get("melee", []) or []:
        units = sorted({_unit_of(state, i) for i in _melee_units(item)})
        if len(units) > 1:
            wid = "melee:" + "+".join(units)
            melee.setdefault(wid, _warning(wid, "melee", f"in melee: {' and '.join(units)}", units))
    return warnings + list(melee.values())


def _unit_of(state: GameState, ident: str) -> str:
    try:
        return state.scene.model(ident).unit
    except KeyError:
        return ident


def overmove(state: GameState, tolerance: float) -> list[TableWarning]:
    """Models that ended (or stand, in the current activation) farther from their activation's start
    than their unit may move; activations of this phase count."""
    activations = [*state.finished, *([state.activation] if state.activation else [])]
    warnings = []
    for activation in activations:
        unit = state.scene.unit(activation.unit)
        movement = unit.stats.get("movement")
        if not isinstance(movement, (int, float)) or isinstance(movement, bool):
            continue
        allowance = float(movement) * activation.factor
        for model in state.scene.models_of(unit.id):
            distance = moved_distance(activation, model)
            if distance > allowance + tolerance:
                warnings.append(_warning(
                    f"overmove:{model.id}:{activation.number}", "overmove",
                    f"model {model.id} moved {distance:.1f}\" in activation {activation.number}; "
                    f"unit {unit.id} may move {allowance:g}\"", [unit.id]))
    return warnings


def on_board(state: GameState, seen: Mapping[int, tuple[float, float]],
             known: set[int]) -> list[TableWarning]:
    """Markers seen off the board, and markers the table does not know."""
    width, height = state.scene.board.width, state.scene.board.height
    bound = state.markers()
    warnings = []
    for marker, (x, y) in sorted(seen.items()):
        if marker in bound:
            if not (0 <= x <= width and 0 <= y <= height):
                model = bound[marker]
                warnings.append(_warning(f"off_board:{model}", "off_board",
                                         f"model {model} (marker {marker}) is off the board at "
                                         f"({x:.1f}, {y:.1f})", [_unit_of(state, model)]))
        elif marker not in known:
            warnings.append(_warning(f"unknown_marker:{marker}", "unknown_marker",
                                     f"marker {marker} is not in the roster (assign it to a model)", []))
    return warnings


def compute(state: GameState, report: Mapping[str, Any] | None, seen: Mapping[int, tuple[float, float]],
            known: set[int], tolerance: float) -> list[TableWarning]:
    """Every current warning, each marked acknowledged or not."""
    found = from_report(state, report) + overmove(state, tolerance) + on_board(state, seen, known)
    return [replace(w, acknowledged=w.id in state.acknowledged) for w in found]



class Standing:
    """The warnings standing now, each marked acknowledged or not. Used under the controller's lock."""

    def __init__(self) -> None:
        self.current: list[TableWarning] = []

    def update(self, state: GameState, report: Mapping[str, Any] | None,
               seen: Mapping[int, tuple[float, float]], known: set[int], tolerance: float,
               camera_started: bool, emit: Callable[[list[Event]], GameState]) -> None:
        """Recompute the warnings and `emit` the `warning` and `warning_cleared` events for what changed.
        Before the camera's first frame, what it saw last (markers off the board, unknown) still stands."""
        found = compute(state, report, seen, known, tolerance)
        if not camera_started:
            found += [w for w in self.current if w.kind in SEEN_KINDS]
        before = {w.id for w in self.current}
        now = {w.id for w in found}
        raised = [WarningRaised(w.id, w.kind, w.message, w.units) for w in found if w.id not in before]
        after = emit([*raised, *(WarningCleared(wid) for wid in sorted(before - now))])
        self.current = [replace(w, acknowledged=w.id in after.acknowledged) for w in found]
