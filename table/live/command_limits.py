"""The limits on every command's parameters, whichever way the command came: the panel's HTTP API, the
buttons, the club's MQTT broker. The controller's `command` calls `check` for all of them (through
`table_commands.check_params`), so a command over MQTT takes what the panel takes and nothing more; the
panel checks the same limits first (web_ui/api_write.py and web_ui/inputs.py import them) to answer a 400
naming the field. A refusal is a `ParamError` naming the field. The dice forms' checks: table/live/rolls.py.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from table.errors import ParamError

MAX_PAYLOAD = 256 * 1024     # bytes of one command's parameters as JSON (the panel's request body limit)
IDENT = re.compile(r"[A-Za-z0-9_.:-]{1,64}")        # a model, unit, warning or question id
ARG = re.compile(r"[A-Za-z0-9_.:,-]{1,64}")         # a question's argument: an id, a name or a hex q,r
MAX_NAME = 64                # a weapon's or an order's name, a live game's action
REACH = 1000                 # board points (inches) and hexes lie within +-REACH
MAX_TERRAIN = 200            # terrain pieces on a board
MAX_POINTS = 100             # corners of one piece
TERRAIN_KEYS = frozenset({"id", "polygon", "height", "traits"})
MAX_MARKER = 4095            # the largest marker id of the dictionaries the table reads
MAX_ARGS = 8                 # arguments of a question or a live game's action
MAX_HEX_ITEMS = 20_000       # hex terrain entries or hexsides of a board
MAX_MODELS = 50              # models of one unit
MAX_WEAPONS = 20             # weapons of one unit
MAX_UNITS = 200              # units of one army list
MAX_PLAYERS = 8              # players of one game


def ident(command: str, field: str, value: Any, optional: bool = False) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str) or not IDENT.fullmatch(value):
        raise ParamError(command, field, "expected an id (1-64 letters, digits, '_', '.', ':' or '-')")


def name(command: str, field: str, value: Any) -> None:
    if value is not None and not (isinstance(value, str) and 0 < len(value) <= MAX_NAME):
        raise ParamError(command, field, f"expected a name (1-{MAX_NAME} characters) or null")


def number(command: str, field: str, value: Any, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ParamError(command, field, "expected a number")
    if not low <= value <= high:
        raise ParamError(command, field, f"must be between {low} and {high}, got {value}")


def whole(command: str, field: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParamError(command, field, "expected a whole number")
    if not low <= value <= high:
        raise ParamError(command, field, f"must be between {low} and {high}, got {value}")


def _pair(value: Any) -> list[Any] | None:
    """A point or hex as two values: [x, y], or the text "x,y" the buttons and the broker may send."""
    if isinstance(value, str) and "," in value:
        value = value.split(",")
        try:
            return [float(v) if "." in v or "e" in v.lower() else int(v) for v in value]
        except ValueError:
            return None
    return list(value) if isinstance(value, (list, tuple)) else None


def point(command: str, field: str, value: Any) -> None:
    """A ruler's end: a model or unit id, or a board point within +-REACH inches."""
    if value is None or (isinstance(value, str) and "," not in value):
        return ident(command, field, value, optional=True)
    pair = _pair(value)
    if pair is None or len(pair) != 2:
        raise ParamError(command, field, "expected a model id or a board point [x, y]")
    for v in pair:
        number(command, field, v, -REACH, REACH)


def hex_of(command: str, field: str, value: Any) -> None:
    pair = _pair(value)
    if pair is None or len(pair) != 2:
        raise ParamError(command, field, "expected a hex [q, r]")
    for v in pair:
        whole(command, field, v, -REACH, REACH)


def terrain(command: str, field: str, value: Any) -> None:
    """Terrain pieces as the scene file has them, within the counts a board may hold."""
    if not isinstance(value, list) or len(value) > MAX_TERRAIN:
        raise ParamError(command, field, f"expected a list of at most {MAX_TERRAIN} terrain pieces")
    for i, piece in enumerate(value):
        if not isinstance(piece, dict):
            continue                                   # the scene's parser names it
        for key in piece:
            if key not in TERRAIN_KEYS:
                raise ParamError(command, f"{field}[{i}].{key}",
                                 f"unknown field (known: {', '.join(sorted(TERRAIN_KEYS))})")
        if isinstance(piece.get("polygon"), list) and len(piece["polygon"]) > MAX_POINTS:
            raise ParamError(command, f"{field}[{i}].polygon", f"at most {MAX_POINTS} points")
        traits = piece.get("traits", [])
        for j, trait in enumerate(traits if isinstance(traits, list) else []):
            if not isinstance(trait, str):
                raise ParamError(command, f"{field}[{i}].traits[{j}]", "expected a trait name")


def on_board(command: str, field: str, polygon: tuple[tuple[float, float], ...], width: float,
             height: float) -> None:
    """A terrain piece lies on the board and has an area (its corners are not all in a line)."""
    for j, (x, y) in enumerate(polygon):
        if not (0 <= x <= width and 0 <= y <= height):
            raise ParamError(command, f"{field}[{j}]", f"({x}, {y}) is off the {width}x{height} inch board")
    edges = zip(polygon, polygon[1:] + polygon[:1], strict=True)
    twice_area = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in edges)
    if abs(twice_area) < 1e-6:
        raise ParamError(command, field, "the corners are all in a line: the piece has no area")


def arguments(command: str, field: str, value: Any) -> None:
    """A question's or a live game's arguments: ids, names or hexes (a hex may be [q, r])."""
    if not isinstance(value, (list, tuple)) or len(value) > MAX_ARGS:
        raise ParamError(command, field, f"expected a list of at most {MAX_ARGS} arguments")
    for i, arg in enumerate(value):
        if isinstance(arg, (list, tuple)):
            hex_of(command, f"{field}[{i}]", arg)
        elif not isinstance(arg, str) or not ARG.fullmatch(arg):
            raise ParamError(command, f"{field}[{i}]", "expected an id, a name or a hex q,r")


def _select(p: Mapping[str, Any]) -> None:
    ident("select", "id", p.get("id"), optional=True)
    ident("select", "model", p.get("model"), optional=True)
    name("select", "order", p.get("order"))


def _target(p: Mapping[str, Any]) -> None:
    ident("target", "id", p.get("id"), optional=True)


def _ruler(p: Mapping[str, Any]) -> None:
    point("ruler", "a", p.get("a"))
    point("ruler", "b", p.get("b"))


def _destination(p: Mapping[str, Any]) -> None:
    if p.get("hex") is not None:
        hex_of("destination", "hex", p["hex"])


def _weapon(p: Mapping[str, Any]) -> None:
    name("weapon", "weapon", p.get("weapon"))
    ident("weapon", "unit", p.get("unit"), optional=True)


def _game_action(p: Mapping[str, Any]) -> None:
    name("action", "action", p.get("action"))
    arguments("action", "args", p.get("args", []))


def _acknowledge(p: Mapping[str, Any]) -> None:
    ident("acknowledge", "id", p.get("id"))


def board_changes(command: str, p: Mapping[str, Any], keys: frozenset[str] | None = None) -> None:
    """A change of the board: terrain pieces, hex terrain, hexsides and the rule system's board keys
    (`keys`, when known: deployment zones, objectives), at least one of them."""
    if not any(p.get(k) is not None for k in ("terrain", "hexes", "hexsides", "board")):
        raise ParamError(command, "terrain", "give terrain, hexes, hexsides or board")
    if p.get("terrain") is not None:
        terrain(command, "terrain", p["terrain"])
    for key in ("hexes", "hexsides"):
        value = p.get(key)
        if value is not None and not (isinstance(value, list) and len(value) <= MAX_HEX_ITEMS):
            raise ParamError(command, key, f"expected a list of at most {MAX_HEX_ITEMS}")
    board = p.get("board")
    if board is not None:
        if not isinstance(board, dict):
            raise ParamError(command, "board", "expected an object of the rule system's board keys")
        for key in board:
            if keys is not None and key not in keys:
                raise ParamError(command, f"board.{key}",
                                 f"unknown field (known: {', '.join(sorted(keys)) or 'none'})")


def _set_terrain(p: Mapping[str, Any]) -> None:
    board_changes("set_terrain", p)


def unit(command: str, field: str, value: Any, needs_id: bool = True) -> None:
    """A unit document's shape: an id, a player, a name, stats, weapons (the rule system checks the rest)."""
    if not isinstance(value, dict):
        raise ParamError(command, field, "expected a unit object (id, player, name, stats, weapons)")
    if needs_id or "id" in value:
        ident(command, f"{field}.id", value.get("id"))
    if "player" in value:
        ident(command, f"{field}.player", value["player"])
    if "name" in value and not (isinstance(value["name"], str) and len(value["name"]) <= MAX_NAME):
        raise ParamError(command, f"{field}.name", f"expected a name of at most {MAX_NAME} characters")
    if "stats" in value and not isinstance(value["stats"], dict):
        raise ParamError(command, f"{field}.stats", "expected an object")
    weapons = value.get("weapons", [])
    if not (isinstance(weapons, list) and len(weapons) <= MAX_WEAPONS
            and all(isinstance(w, dict) for w in weapons)):
        raise ParamError(command, f"{field}.weapons",
                         f"expected a list of at most {MAX_WEAPONS} weapon objects")


def unit_change(command: str, p: Mapping[str, Any], needs_unit: bool) -> None:
    """A unit's change: its document (needed to add one), its models, or a count of new ones."""
    if p.get("unit") is not None or needs_unit:
        unit(command, "unit", p.get("unit"), needs_id=needs_unit)
    models = p.get("models")
    if models is not None and not (isinstance(models, list) and 1 <= len(models) <= MAX_MODELS
                                   and all(isinstance(m, dict) for m in models)):
        raise ParamError(command, "models", f"expected a list of 1 to {MAX_MODELS} model objects")
    if p.get("count") is not None:
        whole(command, "count", p["count"], 1, MAX_MODELS)


def _add_unit(p: Mapping[str, Any]) -> None:
    unit_change("add_unit", p, True)


def _edit_unit(p: Mapping[str, Any]) -> None:
    ident("edit_unit", "id", p.get("id"))
    unit_change("edit_unit", p, False)


def _remove_unit(p: Mapping[str, Any]) -> None:
    ident("remove_unit", "id", p.get("id"))


def _load_army(p: Mapping[str, Any]) -> None:
    army = p.get("army")
    if not isinstance(army, dict):
        raise ParamError("load_army", "army", "expected an army list (smarttable-army/1)")
    units = army.get("units", [])
    if not isinstance(units, list) or len(units) > MAX_UNITS:
        raise ParamError("load_army", "army.units", f"expected a list of at most {MAX_UNITS} units")
    ident("load_army", "player", p.get("player"), optional=True)


def _assign_marker(p: Mapping[str, Any]) -> None:
    ident("assign_marker", "model", p.get("model"))
    if p.get("marker") is not None:
        whole("assign_marker", "marker", p["marker"], 0, MAX_MARKER)


def _settings(p: Mapping[str, Any]) -> None:
    if "ruleset" in p:
        ident("settings", "ruleset", p["ruleset"])
    if "rulings" in p and not isinstance(p["rulings"], dict):
        raise ParamError("settings", "rulings", "expected an object of ruling options")
    if "brightness" in p:
        number("settings", "brightness", p["brightness"], 0.0, 1.0)


def _measure(p: Mapping[str, Any]) -> None:
    ident("measure", "question", p.get("question"))
    arguments("measure", "args", p.get("args", []))


def _new_game(p: Mapping[str, Any]) -> None:
    for key in ("scene", "scenario"):
        document = p.get(key)
        if document is not None:
            if not isinstance(document, dict):
                raise ParamError("new_game", key, f"expected a {key} (a JSON object)")
            if "terrain" in document:
                terrain("new_game", f"{key}.terrain", document["terrain"])
    ident("new_game", "ruleset", p.get("ruleset"), optional=True)
    players = p.get("players")
    if players is not None:
        if not isinstance(players, list) or not 1 <= len(players) <= MAX_PLAYERS:
            raise ParamError("new_game", "players", f"expected a list of 1 to {MAX_PLAYERS} player names")
        for i, player in enumerate(players):
            ident("new_game", f"players[{i}]", player)
    armies = p.get("armies")
    if armies is not None:
        if not isinstance(armies, list) or len(armies) > MAX_PLAYERS * 2:
            raise ParamError("new_game", "armies", f"expected a list of at most {MAX_PLAYERS * 2} army lists")
        for i, army in enumerate(armies):
            entry = army.get("army", army) if isinstance(army, dict) else army
            if not isinstance(entry, dict):
                raise ParamError("new_game", f"armies[{i}]", "expected an army list")
            units = entry.get("units", [])
            if not isinstance(units, list) or len(units) > MAX_UNITS:
                raise ParamError("new_game", f"armies[{i}].units",
                                 f"expected a list of at most {MAX_UNITS} units")
            if isinstance(army, dict) and "army" in army:
                ident("new_game", f"armies[{i}].player", army.get("player"), optional=True)


def _resume_game(p: Mapping[str, Any]) -> None:
    whole("resume_game", "game", p.get("game"), 1, 2**31 - 1)


def _end_game(p: Mapping[str, Any]) -> None:
    name("end_game", "reason", p.get("reason"))


CHECKS: dict[str, Callable[[Mapping[str, Any]], None]] = {
    "select": _select, "target": _target, "ruler": _ruler, "destination": _destination, "weapon": _weapon,
    "game_action": _game_action, "acknowledge": _acknowledge, "set_terrain": _set_terrain,
    "assign_marker": _assign_marker, "settings": _settings, "measure": _measure, "new_game": _new_game,
    "resume_game": _resume_game, "end_game": _end_game, "add_unit": _add_unit, "edit_unit": _edit_unit,
    "remove_unit": _remove_unit, "load_army": _load_army,
}


def check(handler: str, params: Mapping[str, Any]) -> None:
    """ParamError naming the first parameter of the command (its handler's name) out of its limits.
    The roll's fields are its dice form's: table/live/rolls.py checks them as it rolls."""
    checker = CHECKS.get(handler)
    if checker is not None:
        checker(params)
