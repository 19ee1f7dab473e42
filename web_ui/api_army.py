"""The API for building a game: units (add, change, remove), army lists (the live game's as a file,
saved, imported, loaded), scenarios (the live board as a file, saved, imported) and markers for the
models of a unit. Reading is open; every change needs the PIN (docs/web.md, "Armies and scenarios").
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request

from table.errors import ParamError, QueryError, SceneError, StorageError, TableError
from table.frozen import thaw
from table.live import command_limits as limits
from table.live.idempotency import KeyReused
from table.rules.setups import army_document, scenario_document
from table.scene import parse_scene
from web_ui import changes, storage
from web_ui.auth import needs_pin
from web_ui.context import panel
from web_ui.errors import ApiError
from web_ui.inputs import body, ident, only

bp = Blueprint("api_army", __name__, url_prefix="/api")

UNIT_FIELDS = {"unit", "models", "count"}


def command(name: str, refused: str, all_input: bool = False, **params: Any) -> Response:
    """Send one command (once per idempotency key, web_ui/changes.py): 200 saved, 202 applied and saving.
    Its parameters are checked by the table: an error that names a place in them (`unit.stats.movement:
    ...`) is a 400 naming it; any other a 409 naming `refused` (with `all_input`, a 400: the rule system
    refused what was sent)."""
    try:
        receipt = panel().controller.change(name, params, changes.key())
    except KeyReused as exc:
        raise ApiError(409, changes.HEADER, str(exc)) from None
    except (QueryError, SceneError) as exc:
        field, rest = _place(str(exc))
        if field and field.split(".")[0].split("[")[0] in {*params, "unit", "models", "army", "armies"}:
            raise ApiError(400, field, rest) from None
        raise ApiError(400 if all_input else 409, refused, str(exc)) from None
    except StorageError:
        raise
    except TableError as exc:
        raise ApiError(409, refused, str(exc)) from None
    return changes.answer(name, receipt)


def _place(message: str) -> tuple[str, str]:
    """The place a message names (`scenario: terrain[0].traits[1]: unknown trait` -> the path
    `scenario.terrain[0].traits[1]`) and what it says; ("", message) when it names none."""
    parts = message.split(": ")
    path = []
    while len(parts) > 1 and parts[0] and " " not in parts[0] and len(parts[0]) < 80:
        path.append(parts.pop(0))
    return ".".join(path), ": ".join(parts)


def _scene() -> Any:
    return parse_scene(thaw(panel().controller.snapshot().scene))


def _download(document: dict[str, Any], name: str) -> Response:
    """The document, as a file to keep with `?download=1`."""
    download = request.args.get("download", "0")
    if download not in ("0", "1"):
        raise ApiError(400, "download", "expected 0 or 1")
    response = jsonify(document)
    if download == "1":
        response.headers["Content-Disposition"] = f'attachment; filename="{name}.json"'
    return response


def _name(value: Any, field: str) -> str:
    if not isinstance(value, str) or not storage.NAME.match(value):
        raise ApiError(400, field, "expected a saved name (1-64 letters, digits, '-' or '_')")
    return value


# ------------------------------------------------------------------ units


def unit_body(command: str, data: dict[str, Any], needs_unit: bool) -> dict[str, Any]:
    """A unit request's shape, within the limits every way in shares (the rule system checks the rest)."""
    only(data, UNIT_FIELDS)
    for key in UNIT_FIELDS & set(data):
        if data[key] is None:
            raise ApiError(400, key, "leave it out rather than null")
    try:
        limits.unit_change(command, data, needs_unit)
    except ParamError as exc:
        raise ApiError(400, exc.field, exc.problem) from None
    return data


@bp.post("/units")
@needs_pin
def add_unit() -> Response:
    return command("add_unit", "unit", True, **unit_body("add_unit", body(), True))


@bp.put("/units/<unit_id>")
@needs_pin
def edit_unit(unit_id: str) -> Response:
    data = unit_body("edit_unit", body(), False)
    if not data:
        raise ApiError(400, "body", "give unit, models or count")
    ident(unit_id, "unit_id")
    _known_unit(unit_id)
    return command("edit_unit", "unit", True, id=unit_id, **data)


@bp.delete("/units/<unit_id>")
@needs_pin
def remove_unit(unit_id: str) -> Response:
    only(body(), set())
    ident(unit_id, "unit_id")
    _known_unit(unit_id)
    return command("remove_unit", "unit_id", id=unit_id)


def _known_unit(unit_id: str) -> None:
    if not any(u.get("id") == unit_id for u in panel().controller.snapshot().scene.get("units", ())):
        raise ApiError(404, "unit_id", f"no unit {unit_id!r} in the game")


# ------------------------------------------------------------------ army lists


@bp.get("/army")
def live_army() -> Response:
    """The live game's units as an army list (`?player=A`: one player's; `?download=1`: as a file)."""
    player = request.args.get("player")
    if player is not None:
        ident(player, "player")
    scene = _scene()
    if player is not None and player not in {u.player for u in scene.units} | set(scene.players):
        raise ApiError(404, "player", f"no player {player!r} in the game")
    name = _name(request.args.get("name", player or "army"), "name")
    return _download(army_document(scene, player, name), name)


@bp.post("/army")
@needs_pin
def load_army() -> Response:
    """Load an army list into the live game: `{"army": document}` or `{"name": saved}`, and `player`."""
    data = body()
    only(data, {"army", "name", "player"})
    if ("army" in data) == ("name" in data):
        raise ApiError(400, "army", "give the army list (army) or a saved one's name (name)")
    army = data["army"] if "army" in data else storage.read(panel().options.data_dir, storage.ARMIES,
                                                              _name(data["name"], "name"))
    player = data.get("player")
    if player is not None:
        ident(player, "player")
    return command("load_army", "army", army=army, player=player)


@bp.get("/armies")
def armies() -> Response:
    folder = panel().options.data_dir
    listed = []
    for name in storage.names(folder, storage.ARMIES):
        try:
            doc = storage.read(folder, storage.ARMIES, name)
        except ApiError:
            continue
        listed.append({"name": name, "title": doc.get("name", name), "ruleset": doc.get("ruleset"),
                       "player": doc.get("player"), "units": len(doc.get("units", []))})
    return jsonify({"armies": listed})


@bp.get("/armies/<name>")
def saved_army(name: str) -> Response:
    return _download(storage.read(panel().options.data_dir, storage.ARMIES, name), name)


@bp.put("/armies/<name>")
@needs_pin
def save_army(name: str) -> Response:
    """Save `{"player": p}` (that player's units in the live game; none: every unit) or import
    `{"army": document}` under a name."""
    data = body()
    only(data, {"player", "army"})
    if "army" in data:
        if not isinstance(data["army"], dict):
            raise ApiError(400, "army", "expected an army list (smarttable-army/1)")
        document = data["army"]
    else:
        player = data.get("player")
        if player is not None:
            ident(player, "player")
        scene = _scene()
        if player is not None and player not in {u.player for u in scene.units}:
            raise ApiError(409, "player", f"player {player!r} has no units in the game")
        document = army_document(scene, player, name)
        if not document["units"]:
            raise ApiError(409, "player", "the game has no units to save")
    storage.write(panel().options.data_dir, storage.ARMIES, name, document, "army")
    return jsonify({"ok": True, "name": name, "units": len(document.get("units", []))})


@bp.delete("/armies/<name>")
@needs_pin
def delete_army(name: str) -> Response:
    only(body(), set())
    storage.delete(panel().options.data_dir, storage.ARMIES, name)
    return jsonify({"ok": True, "name": name})


# ------------------------------------------------------------------ scenarios


@bp.get("/scenario")
def live_scenario() -> Response:
    """The live board as a scenario (`?download=1`: as a file)."""
    name = _name(request.args.get("name", "scenario"), "name")
    return _download(scenario_document(_scene(), name), name)


@bp.get("/scenarios")
def scenarios() -> Response:
    folder = panel().options.data_dir
    listed = []
    for name in storage.names(folder, storage.SCENARIOS):
        try:
            doc = storage.read(folder, storage.SCENARIOS, name)
        except ApiError:
            continue
        listed.append({"name": name, "title": doc.get("name", name), "ruleset": doc.get("ruleset"),
                       "board": doc.get("board"), "terrain": len(doc.get("terrain", [])),
                       "players": doc.get("players", [])})
    return jsonify({"scenarios": listed})


@bp.get("/scenarios/<name>")
def saved_scenario(name: str) -> Response:
    return _download(storage.read(panel().options.data_dir, storage.SCENARIOS, name), name)


@bp.put("/scenarios/<name>")
@needs_pin
def save_scenario(name: str) -> Response:
    """Save the live board (`{}`) or import `{"scenario": document}` under a name."""
    data = body()
    only(data, {"scenario"})
    document = data["scenario"] if "scenario" in data else scenario_document(_scene(), name)
    if not isinstance(document, dict):
        raise ApiError(400, "scenario", "expected a scenario (smarttable-scenario/1)")
    storage.write(panel().options.data_dir, storage.SCENARIOS, name, document, "scenario")
    return jsonify({"ok": True, "name": name})


@bp.delete("/scenarios/<name>")
@needs_pin
def delete_scenario(name: str) -> Response:
    only(body(), set())
    storage.delete(panel().options.data_dir, storage.SCENARIOS, name)
    return jsonify({"ok": True, "name": name})
