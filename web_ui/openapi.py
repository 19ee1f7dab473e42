"""The API's OpenAPI 3.0 document, served at `/api/openapi.json` and tested against the app."""

from __future__ import annotations

from typing import Any

from table import registry
from table.rules import all_rulesets
from table.rules.declarations import PLAIN_DICE, DiceField, DiceKind
from table.scene import TERRAIN_TRAITS
from web_ui import openapi_army
from web_ui.auth import PIN_HEADER
from web_ui.inputs import MAX_INT
from web_ui.markers import IDS_PATTERN

ID = {"type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,64}$"}
POINT = {"type": "array", "items": {"type": "number", "minimum": -1000, "maximum": 1000},
         "minItems": 2, "maxItems": 2}
NAME = {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"}
OBJ = {"type": "object"}
INT = {"type": "integer"}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


RETRY_AFTER = {"Retry-After": {"description": "seconds to wait before trying again",
                               "schema": {"type": "integer", "minimum": 1}}}


def _errors(*codes: int) -> dict[str, Any]:
    text = {400: "Bad input (the field is named)", 401: "PIN missing", 403: "Wrong PIN",
            404: "Not found", 409: "The table cannot do it now", 413: "The body is over 256 kB",
            429: "Too many requests from this address or of this kind (wrong PINs, live connections): "
                 "Retry-After says when to try again",
            503: "Not now: the bookmark's file cannot be written (nothing was changed), or the table busy "
                 "answering questions (Retry-After says when to try again)"}
    out = {str(c): _json(_ref("Error"), text[c]) for c in codes}
    for code in ("429", "503"):
        if code in out:
            out[code]["headers"] = RETRY_AFTER
    return out


def _read(summary: str, schema: dict[str, Any], *codes: int, params: list | None = None) -> dict[str, Any]:
    op: dict[str, Any] = {"summary": summary, "responses": {"200": _json(schema), **_errors(*codes)}}
    if params:
        op["parameters"] = params
    return op


IDEMPOTENCY = {"name": "Idempotency-Key", "in": "header", "required": False,
               "description": "a new one for each change; the same one again: answered as the first time, "
                              "not made again (docs/web.md)",
               "schema": {"type": "string", "pattern": "^[\\x21-\\x7e]{1,128}$"}}
REPLAYED = {"Idempotent-Replayed": {"description": "true: the answer to an earlier request with this key",
                                    "schema": {"type": "string", "enum": ["true"]}}}


def _change(summary: str, request: dict[str, Any] | None, *codes: int, params: list | None = None,
            result: dict[str, Any] | None = None) -> dict[str, Any]:
    """A write: 200 saved, 202 applied and saving (game log changes); PUT /api/scenes/<name> writes a file."""
    answers = {"200": {**_json(result or _ref("CommandResult"), "Done and saved"), "headers": REPLAYED}}
    if result is None:
        saving = "Done, not saved yet: the game log cannot store it now (kept, retried; `saving` says why)"
        answers["202"] = {**_json(_ref("CommandResult"), saving), "headers": REPLAYED}
    op: dict[str, Any] = {"summary": summary, "security": [{"pin": []}],
                          "responses": {**answers, **_errors(400, 401, 403, 409, 429, *codes,
                                                             *([413] if request is not None else []))},
                          "parameters": [*(params or []), *([IDEMPOTENCY] if result is None else [])]}
    if request is not None:
        op["requestBody"] = {"required": bool(request.get("required") or request.get("oneOf")),
                             "content": {"application/json": {"schema": request}}}
    if not op["parameters"]:
        del op["parameters"]
    return op


def _q(name: str, schema: dict[str, Any], where: str = "query", required: bool = False) -> dict[str, Any]:
    return {"name": name, "in": where, "required": required or where == "path", "schema": schema}


def _object(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        out["required"] = list(required)
    return out


NONE = {"nullable": True, "enum": [None]}   # only null
MARKER = {"type": "integer", "minimum": 0, "maximum": 4095, "nullable": True}
HEX = {"type": "array", "minItems": 2, "maxItems": 2,
       "items": {"type": "integer", "minimum": -1000, "maximum": 1000}}

SCHEMAS: dict[str, Any] = {
    "Error": {"type": "object", "required": ["error", "field"],
              "properties": {"error": {"type": "string"}, "field": {"type": "string"}}},
    "State": {"type": "object",
              "required": ["seq", "status", "ruleset", "phase", "scene", "warnings", "leds", "selection"],
              "properties": {"seq": INT, "status": OBJ, "ruleset": {"type": "string"}, "phase": OBJ,
                             "scene": OBJ, "warnings": {"type": "array", "items": OBJ},
                             "leds": {"type": "array", "items": {"type": "array", "items": INT}},
                             "selection": OBJ, "timestamp": {"type": "number"}}},
    "ReplayStep": {"type": "object", "required": ["seq", "ts", "kind", "summary"],
                   "properties": {"seq": INT, "ts": {"type": "number"}, "kind": {"type": "string"},
                                  "summary": {"type": "string"}}},
    "Game": {"type": "object", "required": ["game", "started", "ruleset", "ended", "events"],
             "properties": {"game": INT, "started": {"type": "number"}, "ruleset": {"type": "string"},
                            "ended": {"type": "number", "nullable": True}, "events": INT}},
    "Replay": {"type": "object", "required": ["game", "games", "count", "events"],
               "properties": {"game": INT, "count": INT,
                              "events": {"type": "array", "items": _ref("ReplayStep")},
                              "games": {"type": "array", "items": _ref("Game")}}},
    "ReplayView": {"type": "object",
                   "required": ["seq", "game", "index", "count", "event", "ruleset", "phase", "scene",
                                "selection", "measure", "warnings"],
                   "properties": {"seq": INT, "game": INT, "index": INT, "count": INT,
                                  "event": _ref("ReplayStep"),
                                  "ruleset": {"type": "string", "nullable": True}, "phase": OBJ,
                                  "scene": {**OBJ, "nullable": True}, "selection": OBJ,
                                  "measure": {**OBJ, "nullable": True},
                                  "warnings": {"type": "array", "items": OBJ}}},
    "CommandResult": {"type": "object", "required": ["ok", "command", "seq", "saved"],
                      "properties": {"ok": {"type": "boolean"}, "command": {"type": "string"},
                                     "result": {}, "seq": INT, "saved": {"type": "boolean"},
                                     "saving": {"type": "string"}}},
    "Terrain": {"type": "object", "required": ["id", "polygon"], "additionalProperties": False,
                "properties": {"id": ID, "height": {"type": "number", "minimum": 0},
                               "traits": {"type": "array", "items": {
                                   "type": "string", "enum": sorted(TERRAIN_TRAITS)}},
                               "polygon": {"type": "array", "minItems": 3, "maxItems": 100,
                                           "items": {"type": "array", "minItems": 2, "maxItems": 2,
                                                     "items": {"type": "number", "minimum": 0,
                                                               "maximum": 1000}}}}},
}


def _int(lo: int, hi: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": lo, "maximum": hi}


def _field(spec: DiceField) -> dict[str, Any]:
    """A dice form field's JSON schema."""
    if spec.kind == "toggle":
        return {"type": "string", "enum": list(spec.values)}
    number = _int(spec.minimum, spec.maximum)
    if spec.kind == "integers":
        return {"type": "array", "minItems": 1, "maxItems": 30, "items": number}
    if spec.kind == "per_player":
        return {"type": "array", "minItems": 1, "maxItems": 8, "items": {
            "type": "object", "additionalProperties": False, "required": ["player"],
            "properties": {"player": ID, "modifier": number}}}
    return number


def _rolls() -> dict[str, tuple[dict[str, Any], tuple[str, ...]]]:
    """Every rule system's dice kinds (and plain dice): their fields and which are required."""
    kinds: dict[str, DiceKind] = {d.kind: d for r in all_rulesets() for d in r.dice}
    kinds[PLAIN_DICE.kind] = PLAIN_DICE
    return {kind: ({f.name: _field(f) for f in d.fields},
                   tuple(f.name for f in d.fields if f.default is None)) for kind, d in kinds.items()}


def _game_actions() -> dict[str, Any]:
    """POST /api/<rule system> for each rule system with a live game: its actions and arguments."""
    paths = {}
    for rules in all_rulesets():
        game = rules.live_game
        if game is None:
            continue
        by_argument: dict[str, list[str]] = {}
        for action, argument in game.arguments.items():
            if action != game.phase_action:
                by_argument.setdefault(argument or "", []).append(action)
        schema = {"oneOf": [_object({"action": {"type": "string", "enum": sorted(actions)},
                                     **({field: ID if field == "unit" else HEX} if field else {})},
                                    ("action", field) if field else ("action",))
                            for field, actions in sorted(by_argument.items())]}
        title = rules.title or rules.name
        paths[f"/api/{rules.name}"] = {"post": _change(f"A {title} game action", schema, 404)}
    return paths


def _roll(kind: str, props: dict[str, Any], required: tuple[str, ...]) -> dict[str, Any]:
    return _object({"kind": {"type": "string", "enum": [kind]}, **props,
                    "label": {"type": "string", "maxLength": 80}}, ("kind", *required))


def _bookmark_paths() -> dict[str, Any]:
    """Dispute bookmarks (docs/web.md#dispute-bookmarks)."""
    one = [_q("bookmark_id", _int(1, 999_999_999), "path")]
    html = {"200": {"description": "a self-contained HTML page (images as data: URIs, no script)",
                    "content": {"text/html": {"schema": {"type": "string"}}}}, **_errors(404)}
    return {
        "/api/bookmarks": {
            "get": _read("Every dispute bookmark: time, question, answer with its error", OBJ, 404),
            "post": _change("Keep the evidence of the current measurement (the two ids of the measure card, "
                            "or none: the table's selection, else the ruler)",
                            {"oneOf": [_object({}), _object({"a": ID, "b": ID}, ("a", "b")),
                                       _object({"ruler": {"type": "boolean"}}, ("ruler",))]}, 404, 503)},
        "/api/bookmarks/{bookmark_id}": {"get": _read(
            "A bookmark's evidence: answers, board, rulings, pictures", OBJ, 404, params=one)},
        "/api/bookmarks/{bookmark_id}/export": {"get": {
            "summary": "A bookmark as one HTML page a judge opens offline",
            "parameters": [*one, _q("download", {"type": "string", "enum": ["0", "1"]})], "responses": html}},
    }


def _sandbox_paths() -> dict[str, Any]:
    """The sandbox table's board (web_ui/sandbox.py); 404 on a table that is not a sandbox."""
    marker = [_q("marker", {"type": "string", "pattern": "^[0-9]{1,4}$"}, "path")]
    listed = _object({"markers": {"type": "array", "items": _object(
        {"id": INT, "x": {"type": "number"}, "y": {"type": "number"}, "heading": {"type": "number"}})}})
    place = _object({"x": {"type": "number", "minimum": 0, "maximum": 1000},
                     "y": {"type": "number", "minimum": 0, "maximum": 1000},
                     "heading": {"type": "number", "minimum": -180, "maximum": 180}}, ("x", "y"))
    return {"/api/sandbox": {"get": _read("The markers on the sandbox's board", listed, 404)},
            "/api/sandbox/markers/{marker}": {
                "put": _change("Sandbox: put a marker down on the board (or move it there)",
                               place, 404, params=marker, result=listed),
                "delete": _change("Sandbox: take a marker off the board", None, 404, params=marker,
                                  result=listed)}}


def _ruler() -> dict[str, Any]:
    """Both ends, or none (no body, {} or nulls): take the ruler away."""
    op = _change("The shared ruler (every phone and the LEDs show it)", {"oneOf": [
        _object({"from": {"oneOf": [ID, POINT]}, "to": {"oneOf": [ID, POINT]}}, ("from", "to")),
        _object({"from": NONE, "to": NONE})]}, 404)
    op["requestBody"]["required"] = False
    return op


def document() -> dict[str, Any]:
    ident_body = _object({"id": ID}, ("id",))
    roll = {"oneOf": [_roll(kind, props, required) for kind, (props, required) in _rolls().items()]}
    settings = {"type": "object", "additionalProperties": False, "minProperties": 1, "properties": {
        "ruleset": {"type": "string", "enum": registry.names()}, "rulings": OBJ,
        "brightness": {"type": "number", "minimum": 0, "maximum": 1}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Smart table panel API", "version": "1",
                 "description": "Reading is open; every change needs the table's PIN in the "
                                f"{PIN_HEADER} header. Errors are {{\"error\", \"field\"}}."},
        "components": {"schemas": {**SCHEMAS, **openapi_army.SCHEMAS}, "securitySchemes": {
            "pin": {"type": "apiKey", "in": "header", "name": PIN_HEADER}}},
        "paths": {
            "/api/state": {"get": _read("The live table", _ref("State"))},
            "/api/events": {"get": {
                "summary": "Server-sent events: `id:` and `data.seq` are the snapshot's sequence number; "
                           "`patch=1`: after the first, events carry only the changed parts",
                "parameters": [_q("after", _int(-1, MAX_INT)),
                               _q("patch", {"type": "string", "enum": ["0", "1"]}),
                               _q("Last-Event-ID", _int(-1, MAX_INT), "header")],
                "responses": {"200": {"description": "an event stream",
                                      "content": {"text/event-stream": {"schema": {"type": "string"}}}},
                              **_errors(400, 429)}}},
            "/api/openapi.json": {"get": _read("This document", OBJ)},
            "/api/rulesets": {"get": _read("Every rule system and what it declares: rulings options, "
                                           "phases, dice forms", OBJ)},
            "/api/rulesets/{name}/panel.js": {"get": {
                "summary": "A rule system's own panel module (a JS module), if it has one",
                "parameters": [_q("name", NAME, "path")],
                "responses": {"200": {"description": "JavaScript", "content": {"text/javascript": {
                    "schema": {"type": "string"}}}}, **_errors(404)}}},
            "/api/questions": {"get": _read("The questions the table's rule system answers", OBJ)},
            "/api/query/{question}": {"get": _read(
                "Ask the rule system (distance, los, band, cohesion, moves...); questions share the table "
                "fairly between addresses (429: this address has 8 asked; 503: the queue is full)",
                OBJ, 400, 404, 429, 503,
                params=[_q("question", {"type": "string"}, "path"),
                        _q("arg", {"type": "array", "maxItems": 4, "items": {
                            "type": "string", "pattern": "^[A-Za-z0-9_.:,-]{1,64}$"}})])},
            "/api/log": {"get": _read("Game log entries after a sequence number", OBJ, 400, 404, params=[
                _q("after", _int(0, MAX_INT)), _q("limit", _int(1, 1000))])},
            "/api/replay": {"get": _read("The game replay: a game's events so far (seq, time, kind, summary; "
                                         "this game's unless `game` names another) and every game in the log",
                                         _ref("Replay"), 400, 404, params=[_q("game", _int(1, MAX_INT))])},
            "/api/replay/{seq}": {"get": _read(
                "The board after one event (of any game): models, phase, selection and its answers, the last "
                "measurement, the warnings in force", _ref("ReplayView"), 400, 404,
                params=[_q("seq", _int(1, MAX_INT), "path")])},
            "/api/log/export": {"get": {"summary": "The whole game log as JSON lines", "responses": {
                "200": {"description": "JSON lines", "content": {"application/x-ndjson": {
                    "schema": {"type": "string"}}}}, **_errors(404)}}},
            "/api/scenes": {"get": _read("Saved scenes", OBJ)},
            "/api/scenes/{name}": {
                "get": _read("A saved scene", OBJ, 400, 404, 409, params=[_q("name", NAME, "path")]),
                "put": _change("Save the table's scene under a name", None, 404,
                               params=[_q("name", NAME, "path")], result=OBJ)},
            "/api/camera.jpg": {"get": {"summary": "The newest camera frame with markers and board outline",
                                        "responses": {"200": {"description": "JPEG", "content": {
                                            "image/jpeg": {"schema": {"type": "string",
                                                                      "format": "binary"}}}},
                                            **_errors(404)}}},
            "/api/camera.mjpeg": {"get": {"summary": "The camera as MJPEG (multipart/x-mixed-replace)",
                                          "responses": {"200": {"description": "MJPEG stream", "content": {
                                              "multipart/x-mixed-replace": {"schema": {"type": "string"}}}},
                                              **_errors(404, 429)}}},
            "/api/markers/sheet.svg": {"get": {
                "summary": "A printable sheet of model markers",
                "parameters": [_q("ids", {"type": "string", "pattern": IDS_PATTERN}, required=True),
                               _q("size_mm", _int(5, 100))],
                "responses": {"200": {"description": "SVG", "content": {"image/svg+xml": {
                    "schema": {"type": "string"}}}}, **_errors(400, 404)}}},
            "/api/phase/advance": {"post": _change("Advance to the next phase", _object({}))},
            "/api/ruler": {"post": _ruler()},
            "/api/undo": {"post": _change("Take back the last change (as the undo button)", _object({}))},
            "/api/select": {"post": _change("Select a model or unit", ident_body, 404)},
            "/api/target": {"post": _change("Pick the selection's target", ident_body, 404)},
            "/api/destination": {"post": _change("Hex games: where the selected unit's path leads",
                                                 _object({"hex": {**HEX, "nullable": True}}))},
            "/api/weapon": {"post": _change("The weapon whose range bands the LEDs show", _object(
                {"weapon": {"type": "string", "minLength": 1, "maxLength": 64, "nullable": True}}))},
            **_game_actions(),
            "/api/roll": {"post": _change("Roll dice as the rule system does (logged)", roll)},
            "/api/warnings/{warning_id}/acknowledge": {"post": _change(
                "Acknowledge a warning", _object({}), 404, params=[_q("warning_id", ID, "path")])},
            "/api/terrain": {"put": _change(
                "Replace the board's terrain pieces, hex terrain, hexsides and board keys (each when given)",
                {**_object({"terrain": {"type": "array", "maxItems": 200, "items": _ref("Terrain")},
                            "hexes": {"type": "array", "maxItems": 20000, "items": OBJ},
                            "hexsides": {"type": "array", "maxItems": 20000, "items": OBJ},
                            "board": OBJ}), "minProperties": 1})},
            "/api/roster/assign": {"post": _change(
                "Bind a marker to a model (or to the first model of a unit without one; no marker: the one "
                "unassigned marker in view)",
                {"oneOf": [_object({"model": ID, "marker": MARKER}, ("model",)),
                           _object({"unit": ID, "marker": MARKER}, ("unit",))]}, 404)},
            "/api/settings": {"put": _change("Rule system, rulings options, LED brightness", settings)},
            **_bookmark_paths(),
            **_sandbox_paths(),
            **openapi_army.paths(_read, _change, _q, _object, registry.names()),
        },
    }
