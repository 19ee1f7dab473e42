"""Army lists and scenarios, each one JSON file (docs/scene.md), and the scene a new game starts from.

An army list (`smarttable-army/1`) is what one player brings: units with their stats and weapons, each
with its models (base, marker, the rule system's own keys), but not where they stand. A scenario
(`smarttable-scenario/1`) is the board a game is played on: its size and grid, terrain, hex terrain
and hexsides, the players, and the top-level keys the rule system keeps with the board (deployment
zones, objectives: `Ruleset.scenario_keys`). `compose` makes a game's first scene of a scenario (or
an empty board) and armies; models without a place stand along their player's edge until the camera
sees them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from table.errors import QueryError, SceneError
from table.jsoncheck import JsonReader
from table.rules.base import Ruleset, get_ruleset
from table.rules.profiles import check_fields
from table.scene import FORMAT, Scene, parse_scene, scene_to_dict

ARMY = "smarttable-army/1"
SCENARIO = "smarttable-scenario/1"
DEFAULT_PLAYERS = ("A", "B")
WHERE_KEYS = ("x", "y", "hex", "heading", "state", "sigma", "heading_sigma")   # a game's, not an army's
BOARD_PARTS = ("board", "hexgrid", "terrain", "hexes", "hexsides", "players")
STAGING_GAP = 1.5      # inches between models waiting at the board's edge
STAGING_EDGE = 1.5     # inches in from the edge


@dataclass(frozen=True)
class Army:
    """A checked army list: its rule system, name, player (None: chosen at loading) and units, each a
    scene unit document without `player` and with its `models` (scene model documents without `unit`)."""

    ruleset: str
    name: str
    player: str | None
    units: tuple[Mapping[str, Any], ...]


def _system(reader: JsonReader, data: dict[str, Any], expected: str) -> type[Ruleset]:
    if data.get("format") != expected:
        raise reader.fail("format", f"expected {expected!r}, got {data.get('format')!r}")
    ruleset = data.get("ruleset")
    try:
        return get_ruleset(str(ruleset))
    except QueryError as exc:
        raise reader.fail("ruleset", str(exc)) from None


def parse_army(document: Any, source: str = "") -> Army:
    """Check an army list (parsed JSON): its keys, and every unit and model as a scene would take them."""
    r = JsonReader(source)
    data = r.obj(document, "$")
    rules = _system(r, data, ARMY)
    r.keys(data, "$", {"format", "ruleset", "name", "player", "units", "note"})
    player = data.get("player")
    if player is not None:
        r.string(player, "player")
    name = data.get("name", "")
    if not isinstance(name, str):
        raise r.fail("name", "expected a string")
    units = r.array(data.get("units", []), "units")
    for i, unit in enumerate(units):
        unit = r.obj(unit, f"units[{i}]")
        if "player" in unit:
            raise r.fail(f"units[{i}].player", "an army list's units are one player's: give the army's "
                                               "\"player\" (or choose it when loading)")
        models = r.array(unit.get("models", []), f"units[{i}].models")
        for j, model in enumerate(models):
            if "unit" in r.obj(model, f"units[{i}].models[{j}]"):
                raise r.fail(f"units[{i}].models[{j}].unit", "a model of an army list belongs to the unit "
                                                             "it is listed under")
    army = Army(rules.name, name, player, tuple(units))
    try:
        check_units(compose(rules.name, armies=[(army, player or DEFAULT_PLAYERS[0])], players=None))
    except (SceneError, QueryError) as exc:
        raise r.fail(*_in_army(str(exc), units)) from None
    return army


def check_units(scene: Scene, only: Sequence[str] | None = None) -> None:
    """Each unit (or those named in `only`) against its rule system's declared fields and the system's
    own checks; QueryError naming the unit and the field (`units[2].stats.movement: ...`)."""
    rules = get_ruleset(scene.ruleset)
    full = scene_to_dict(scene)
    ruleset = rules(scene)
    for index, unit in enumerate(full["units"]):
        if only is not None and unit["id"] not in only:
            continue
        models = {f"models[{i}]": m for i, m in enumerate(full["models"]) if m["unit"] == unit["id"]}
        check_fields(rules.unit_profile, unit, models, f"units[{index}]")
        ruleset.check_unit(unit["id"])


def _in_army(message: str, units: list[Any]) -> tuple[str, str]:
    """A composed scene's error (at units[i]... or models[k]...) as (path, what) in the army list."""
    where, _, what = message.partition(": ")
    if where.startswith("models[") and "]" in where:
        index = int(where[len("models["):where.index("]")])
        owners = [(i, j) for i, u in enumerate(units) for j, _ in enumerate(u.get("models", []))]
        if index < len(owners):
            i, j = owners[index]
            return f"units[{i}].models[{j}]{where[where.index(']') + 1:]}", what
    if where.startswith("units["):
        return where, what
    return "units", message


def army_document(scene: Scene, player: str | None = None, name: str = "") -> dict[str, Any]:
    """One player's units (every unit for None) as an army list: stats, weapons, models with their
    bases and markers, not where they stand."""
    full = scene_to_dict(scene)
    units = []
    for unit in full["units"]:
        if player is not None and unit["player"] != player:
            continue
        models = [{k: v for k, v in m.items() if k not in WHERE_KEYS and k != "unit"}
                  for m in full["models"] if m["unit"] == unit["id"]]
        units.append({**{k: v for k, v in unit.items() if k != "player"}, "models": models})
    doc: dict[str, Any] = {"format": ARMY, "ruleset": scene.ruleset, "name": name or (player or "army")}
    if player is not None:
        doc["player"] = player
    doc["units"] = units
    return doc


def parse_scenario(document: Any, source: str = "") -> dict[str, Any]:
    """Check a scenario (parsed JSON) and give it as a scene document with no units."""
    r = JsonReader(source)
    data = r.obj(document, "$")
    rules = _system(r, data, SCENARIO)
    r.keys(data, "$", {"format", "ruleset", "name", "note", *BOARD_PARTS, *rules.scenario_keys})
    scene = {**{k: v for k, v in data.items() if k not in ("format", "name")}, "format": FORMAT}
    parse_scene(scene, source)
    return scene


def scenario_document(scene: Scene, name: str = "") -> dict[str, Any]:
    """The scene's board as a scenario: its size and grid, terrain, hexes, hexsides, players and the
    rule system's board keys (deployment zones, objectives)."""
    full = scene_to_dict(scene)
    keep = get_ruleset(scene.ruleset).scenario_keys
    doc: dict[str, Any] = {"format": SCENARIO, "ruleset": scene.ruleset, "name": name or "scenario"}
    doc.update({k: v for k, v in full.items() if k in BOARD_PARTS or k in keep or k == "note"})
    return doc


def compose(ruleset: str, *, scenario: Mapping[str, Any] | None = None,
            armies: Sequence[tuple[Army, str | None]] = (), players: Sequence[str] | None = None) -> Scene:
    """A game's first scene: the scenario (a scene document without units, from `parse_scenario`; None:
    an empty board of the rule system) with each army's units for its player (an army without one takes
    the next player in turn). Models without a place wait at their player's edge (`stage`)."""
    rules = get_ruleset(ruleset)
    doc = dict(scenario) if scenario is not None else rules.empty_scene()
    if doc.get("ruleset") != rules.name:
        raise SceneError(f"ruleset: the scenario is for {doc.get('ruleset')}, the game for {rules.name}")
    names = list(players or doc.get("players") or ())
    units: list[dict[str, Any]] = []
    models: list[dict[str, Any]] = []
    for number, (army, player) in enumerate(armies):
        if army.ruleset != rules.name:
            raise SceneError(f"army {army.name or number + 1}: it is for {army.ruleset}, "
                             f"the game for {rules.name}")
        pool = names or list(DEFAULT_PLAYERS)
        owner = player or army.player or pool[number % len(pool)]
        for unit in army.units:
            units.append({**{k: v for k, v in unit.items() if k != "models"}, "player": owner})
            models.extend({**m, "unit": unit.get("id")} for m in unit.get("models", []))
    for owner in (u["player"] for u in units):
        if owner not in names:
            names.append(owner)
    doc.update(players=names or list(DEFAULT_PLAYERS), units=units, models=models)
    doc = stage(doc)
    distinct_markers(doc["models"])
    return parse_scene(doc)


def stage(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of a scene document where each model without a place (no x, y or hex) stands in a row
    along its player's edge of the board, on the first spot no model holds: the first player's near
    edge (the largest y), the second's far edge, and so on, 1.5" apart."""
    board = doc.get("board") or {}
    width, height = float(board.get("width", 48.0)), float(board.get("height", 48.0))
    players = list(doc.get("players") or sorted({u.get("player") for u in doc.get("units", [])}, key=str))
    owner = {u.get("id"): u.get("player") for u in doc.get("units", []) if isinstance(u, dict)}
    models = [m for m in doc.get("models", []) if isinstance(m, dict)]
    held = [(m["x"], m["y"]) for m in models if _finite(m.get("x")) and _finite(m.get("y"))]
    per_row = max(1, int((width - 2 * STAGING_EDGE) // STAGING_GAP) + 1)
    placed = []
    for model in doc.get("models", []):
        if isinstance(model, dict) and not ({"x", "y", "hex"} & set(model)):
            player = owner.get(model.get("unit"))
            side = players.index(player) if player in players else 0
            for slot in range(per_row * max(1, int(height // (2 * STAGING_GAP)))):
                row, column = divmod(slot, per_row)
                x = STAGING_EDGE + column * STAGING_GAP
                y = height - STAGING_EDGE - row * STAGING_GAP if side % 2 == 0 else \
                    STAGING_EDGE + row * STAGING_GAP
                if all(math.hypot(x - hx, y - hy) >= STAGING_GAP - 1e-9 for hx, hy in held):
                    break
            held.append((x, y))
            model = {**model, "x": round(x, 3), "y": round(y, 3), "heading": -90 if side % 2 == 0 else 90}
        placed.append(model)
    return {**doc, "models": placed}


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def distinct_markers(models: list[Any]) -> None:
    """Each marker on one model at most (SceneError naming the second)."""
    held: dict[int, str] = {}
    for i, model in enumerate(models):
        marker = model.get("marker") if isinstance(model, dict) else None
        if isinstance(marker, int) and not isinstance(marker, bool):
            if marker in held:
                raise SceneError(f"models[{i}].marker: marker {marker} is already on model {held[marker]!r}")
            held[marker] = str(model.get("id"))
