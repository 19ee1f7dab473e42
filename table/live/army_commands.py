"""The commands that build a game's armies and board: add, change and remove units (checked by the
rule system's declared fields and its own checks), load an army list, and replace the terrain.

Each becomes game events (`UnitChange`, `SetTerrain`), so the log replays it; an error names the field
of the command's own parameters (`unit.stats.movement`, `models[1].base`, `army.units[0]...`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from table.errors import QueryError, SceneError
from table.live import command_limits
from table.live.command_api import TableController
from table.live.events import Event, SetTerrain, UnitChange
from table.live.session import GameState
from table.rules import get_ruleset
from table.rules.profiles import check_fields
from table.rules.setups import check_units, distinct_markers, parse_army
from table.scene import scene_to_dict

MAX_MODELS = command_limits.MAX_MODELS
_PATH = re.compile(r"^(?:\w+: )?(units|models)\[(\d+)\]")


def _trial(c: TableController, events: list[Event]) -> GameState:
    """The state after `events`, tried on a copy of the session (nothing changes)."""
    trial = c.session.copy()
    for event in events:
        trial.apply(event)
    return trial.state if trial.state is not None else c.state


def _in_command(message: str, unit_at: int, first_model: int) -> str:
    """A scene error about the changed unit (units[i]...) or its models (models[k]...) in the command's
    terms (`unit...`, `models[j]...`)."""
    match = _PATH.match(message)
    if match is None:
        return message
    what, index = match.group(1), int(match.group(2))
    rest = message[match.end():]
    if what == "units" and index == unit_at:
        return f"unit{rest}"
    if what == "models" and index >= first_model:
        return f"models[{index - first_model}]{rest}"
    return message


def _models(c: TableController, unit_id: str, models: Any, count: Any) -> list[dict[str, Any]] | None:
    """The unit's model documents: as given, or `count` new ones on the rule system's base."""
    if models is not None:
        if not isinstance(models, list) or not all(isinstance(m, dict) for m in models):
            raise QueryError("models: expected a list of model objects")
        return [{"id": m.get("id", f"{unit_id}-{i + 1}"), **m} for i, m in enumerate(models)]
    if count is None:
        return None
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_MODELS:
        raise QueryError(f"count: expected a whole number of models from 1 to {MAX_MODELS}, got {count!r}")
    base = dict(c.state.rules.unit_profile.base or {"shape": "circle", "diameter_mm": 25})
    return [{"id": f"{unit_id}-{i + 1}", "base": base} for i in range(count)]


def _change(c: TableController, unit_id: str, unit: dict[str, Any] | None,
            models: list[dict[str, Any]] | None) -> dict[str, Any]:
    """Check a unit's change against the scene and the rule system, then emit it."""
    state = c.state
    rules = state.rules
    units = [u.id for u in state.scene.units]
    at = units.index(unit_id) if unit_id in units else len(units)
    if unit is not None:
        shown = models if models is not None else \
            [m for m in scene_to_dict(state.scene)["models"] if m["unit"] == unit_id]
        check_fields(rules.unit_profile, unit, {f"models[{i}]": m for i, m in enumerate(shown)})
    event = UnitChange(unit_id, unit, None if models is None else tuple(models))
    first = sum(1 for m in state.scene.models if m.unit != unit_id)
    try:
        after = _trial(c, [event])
        distinct_markers(scene_to_dict(after.scene)["models"])
        if unit is not None:
            check_units(after.scene, only=[str(unit.get("id", unit_id))])
    except (SceneError, QueryError) as exc:
        raise QueryError(_in_command(str(exc), at, first)) from None
    state = c.emit(event)
    new_id = unit_id if unit is None else str(unit.get("id", unit_id))
    return {"unit": new_id if unit is not None else None, "units": [u.id for u in state.scene.units],
            "models": [m.id for m in state.scene.models_of(new_id)] if unit is not None else []}


def _unit_doc(unit: Any) -> dict[str, Any]:
    if not isinstance(unit, dict):
        raise QueryError("unit: expected a unit object (id, player, name, stats, weapons)")
    if not isinstance(unit.get("id"), str) or not unit["id"]:
        raise QueryError("unit.id: expected a non-empty string")
    return unit


def add_unit(c: TableController, unit: Any, models: Any = None, count: Any = None) -> dict[str, Any]:
    """A new unit with its models (given, or `count` on the rule system's base; they wait at their
    player's edge until the camera sees them)."""
    doc = _unit_doc(unit)
    if any(u.id == doc["id"] for u in c.state.scene.units):
        raise QueryError(f"unit.id: there is already a unit {doc['id']!r} (change it, or edit that one)")
    given = _models(c, doc["id"], models, count if count is not None or models is not None else 1)
    return _change(c, doc["id"], doc, given)


def edit_unit(c: TableController, id: Any, unit: Any = None, models: Any = None,
              count: Any = None) -> dict[str, Any]:
    """Change a unit (its document; `unit.id` renames it) and/or its models (None keeps them)."""
    ident = str(id)
    if not any(u.id == ident for u in c.state.scene.units):
        raise QueryError(f"id: no unit {ident!r} in the scene")
    current = next(u for u in scene_to_dict(c.state.scene)["units"] if u["id"] == ident)
    doc = current if unit is None else {"id": ident, **_unit_doc({"id": ident, **unit})}
    return _change(c, ident, doc, _models(c, doc["id"], models, count))


def remove_unit(c: TableController, id: Any) -> dict[str, Any]:
    """Take a unit and its models off the game."""
    ident = str(id)
    if not any(u.id == ident for u in c.state.scene.units):
        raise QueryError(f"id: no unit {ident!r} in the scene")
    return _change(c, ident, None, None)


def load_army(c: TableController, army: Any, player: Any = None) -> dict[str, Any]:
    """Every unit of an army list (`smarttable-army/1`) into the game, for `player` (default: the
    army's own, else the game's first player); all of them or none."""
    parsed = parse_army(army, "army")
    state = c.state
    if parsed.ruleset != state.scene.ruleset:
        raise QueryError(f"army: it is for {parsed.ruleset}, this game is {state.scene.ruleset}")
    owner = str(player) if player is not None else parsed.player or (state.players or ["A"])[0]
    events: list[Event] = []
    for i, unit in enumerate(parsed.units):
        ident = str(unit.get("id"))
        if any(u.id == ident for u in state.scene.units):
            raise QueryError(f"army.units[{i}].id: there is already a unit {ident!r} in the game")
        doc = {k: v for k, v in unit.items() if k != "models"}
        events.append(UnitChange(ident, {**doc, "player": owner}, tuple(unit.get("models", []))))
    try:
        after = _trial(c, events)
        distinct_markers(scene_to_dict(after.scene)["models"])
    except (SceneError, QueryError) as exc:
        raise QueryError(f"army: {exc}") from None
    c.emit_all(events)
    return {"player": owner, "units": [str(u.get("id")) for u in parsed.units]}


def set_terrain(c: TableController, terrain: Any = None, hexes: Any = None, hexsides: Any = None,
                board: Any = None) -> dict[str, Any]:
    """Replace the board's terrain pieces, hex terrain, hexsides and the rule system's board keys
    (`board`: deployment zones, objectives), each when given; every piece on the board."""
    params = {"terrain": terrain, "hexes": hexes, "hexsides": hexsides, "board": board}
    command_limits.board_changes("set_terrain", params, get_ruleset(c.state.scene.ruleset).scenario_keys)
    listed = {name: None if params[name] is None else tuple(params[name]) for name in ("terrain", "hexes",
                                                                                     "hexsides")}
    event = SetTerrain(listed["terrain"], listed["hexes"], listed["hexsides"], board)
    after = c.session.preview(event).scene
    for i, piece in enumerate(after.terrain):
        command_limits.on_board("set_terrain", f"terrain[{i}].polygon", piece.polygon, after.board.width,
                                after.board.height)
    state = c.emit(event)
    return {"terrain": [t.id for t in state.scene.terrain], "hexes": len(state.scene.hexes),
            "hexsides": len(state.scene.hexsides)}


COMMANDS: dict[str, Callable[..., dict[str, Any]]] = {
    "add_unit": add_unit, "edit_unit": edit_unit, "remove_unit": remove_unit, "load_army": load_army,
    "set_terrain": set_terrain}
