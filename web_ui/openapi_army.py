"""The OpenAPI paths for building a game (web_ui/api_army.py, web_ui/api_games.py): units, army
lists, scenarios and games; `web_ui/openapi.py` puts them in the document."""

from __future__ import annotations

from typing import Any

OBJ = {"type": "object"}
INT = {"type": "integer"}
ID = {"type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,64}$"}
NAME = {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"}
PLAYER = {**ID, "nullable": True}
DOWNLOAD = {"name": "download", "in": "query", "required": False,
            "schema": {"type": "string", "enum": ["0", "1"]}}

SCHEMAS: dict[str, Any] = {
    "Unit": {"type": "object", "required": ["id"], "description": "a scene unit (docs/scene.md): id, player, "
             "name, stats, weapons and the rule system's own keys (GET /api/rulesets: `units`)",
             "properties": {"id": ID, "player": ID, "name": {"type": "string", "maxLength": 64},
                            "stats": OBJ, "weapons": {"type": "array", "maxItems": 20, "items": OBJ}}},
    "Army": {"type": "object", "required": ["format", "ruleset"], "description": "an army list "
             "(smarttable-army/1, docs/scene.md)",
             "properties": {"format": {"type": "string", "enum": ["smarttable-army/1"]},
                            "ruleset": {"type": "string"}, "name": {"type": "string"}, "player": ID,
                            "units": {"type": "array", "maxItems": 100, "items": OBJ}}},
    "Scenario": {"type": "object", "required": ["format", "ruleset"], "description": "a scenario "
                 "(smarttable-scenario/1, docs/scene.md)",
                 "properties": {"format": {"type": "string", "enum": ["smarttable-scenario/1"]},
                                "ruleset": {"type": "string"}, "name": {"type": "string"}, "board": OBJ,
                                "terrain": {"type": "array", "items": OBJ}}},
    "GameList": {"type": "object", "required": ["current", "games"], "properties": {
        "current": INT, "ended": {"type": "boolean"}, "games": {"type": "array", "items": {
            "$ref": "#/components/schemas/Game"}}}},
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def optional_body(op: dict[str, Any]) -> dict[str, Any]:
    """An operation whose body may be left out (none means the default: `{}`)."""
    op["requestBody"]["required"] = False
    return op


def paths(read: Any, change: Any, q: Any, obj: Any, systems: list[str]) -> dict[str, Any]:
    """The paths, made with openapi.py's own helpers (`_read`, `_change`, `_q`, `_object`)."""
    models = {"type": "array", "minItems": 1, "maxItems": 50, "items": OBJ}
    count = {"type": "integer", "minimum": 1, "maximum": 50}
    changed = {k: v for k, v in SCHEMAS["Unit"].items() if k != "required"}    # the path names the unit
    unit_body = obj({"unit": changed, "models": models, "count": count})
    name = [q("name", NAME, "path")]
    army_source = {"oneOf": [obj({"army": _ref("Army"), "player": PLAYER}, ("army",)),
                             obj({"name": NAME, "player": PLAYER}, ("name",))]}
    army = read("The live game's units as an army list (one player's with `player`)", _ref("Army"), 400, 404,
                params=[q("player", ID), q("name", NAME), DOWNLOAD])
    return {
        "/api/units": {"post": change("Add a unit with its models (given, or `count` on the system's base)",
                                      obj({"unit": _ref("Unit"), "models": models, "count": count},
                                          ("unit",)), 404)},
        "/api/units/{unit_id}": {
            "put": change("Change a unit (its document; `unit.id` renames it) and/or its models", unit_body,
                          404, params=[q("unit_id", ID, "path")]),
            "delete": change("Remove a unit and its models", None, 404, params=[q("unit_id", ID, "path")])},
        "/api/army": {"get": army,
                      "post": change("Load an army list into the game (all its units or none)", army_source,
                                     404)},
        "/api/armies": {"get": read("Saved army lists", OBJ)},
        "/api/armies/{name}": {
            "get": read("A saved army list", _ref("Army"), 400, 404, 409, params=[*name, DOWNLOAD]),
            "put": optional_body(change(
                "Save a player's units (`player`; none: every unit) or import `army` under a name",
                {"oneOf": [obj({"player": PLAYER}), obj({"army": _ref("Army")}, ("army",))]}, 404,
                params=name, result=OBJ)),
            "delete": change("Delete a saved army list", None, 404, params=name, result=OBJ)},
        "/api/games": {
            "get": read("The games in the log, the one on the table (`current`) and whether it is over",
                        _ref("GameList")),
            "post": change("Start a new game: a rule system's board (a scenario, saved or given, or an "
                           "empty one) with the players and their army lists; or a scene; `{}`: the table's "
                           "scene again",
                           {**obj({"ruleset": {"type": "string", "enum": systems},
                                   "scenario": {"oneOf": [NAME, _ref("Scenario")]},
                                   "players": {"type": "array", "minItems": 1, "maxItems": 8,
                                               "uniqueItems": True, "items": ID},
                                   "armies": {"type": "array", "maxItems": 16, "items": {"oneOf": [
                                       obj({"name": NAME, "player": PLAYER}, ("name",)),
                                       obj({"army": _ref("Army"), "player": PLAYER}, ("army",))]}},
                                   "scene": {"oneOf": [NAME, OBJ]}})}, 404)},
        "/api/games/end": {"post": change("End the game on the table (it stays in the log)",
                                          obj({"reason": {"type": "string", "maxLength": 64}}))},
        "/api/games/{game}/resume": {"post": change(
            "Make an earlier game the one on the table, where it stood", obj({}), 404,
            params=[q("game", {"type": "integer", "minimum": 1, "maximum": 2**31 - 1}, "path")])},
        "/api/scenario": {"get": read("The live board as a scenario", _ref("Scenario"), 400,
                                      params=[q("name", NAME), DOWNLOAD])},
        "/api/scenarios": {"get": read("Saved scenarios", OBJ)},
        "/api/scenarios/{name}": {
            "get": read("A saved scenario", _ref("Scenario"), 400, 404, 409, params=[*name, DOWNLOAD]),
            "put": change("Save the live board (`{}`) or import `scenario` under a name",
                          obj({"scenario": _ref("Scenario")}), 404, params=name, result=OBJ),
            "delete": change("Delete a saved scenario", None, 404, params=name, result=OBJ)},
    }
