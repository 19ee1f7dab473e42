"""API calls that change the game: each needs the table's PIN and becomes one controller command."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Response, jsonify
from flask.blueprints import BlueprintSetupState

from table import registry
from table.errors import ParamError, QueryError, SceneError
from table.frozen import thaw
from table.live import command_limits as limits
from table.rules import all_rulesets, get_ruleset
from table.scene import parse_scene
from web_ui import changes, storage
from web_ui.auth import needs_pin
from web_ui.context import panel
from web_ui.errors import ApiError
from web_ui.inputs import body, choice, ident, integer, number, only
from web_ui.rolls import check_roll

bp = Blueprint("api_write", __name__, url_prefix="/api")


def run(name: str, field: str = "body", **params: Any) -> Response:
    """Send one command (once per idempotency key, web_ui/changes.py); the reply carries the
    controller's answer and the new sequence number: 200 saved, 202 applied and saving. The request
    is already checked, so a refusal is about the table's state: a 409 naming `field`."""
    return changes.answer(name, changes.make(name, params, field))


def known_id(value: Any, field: str) -> str:
    """A model or unit id of the table's scene (404 naming `field` if there is none)."""
    ident(value, field)
    scene = panel().controller.snapshot().scene
    if not any(item.get("id") == value for item in [*scene.get("models", []), *scene.get("units", [])]):
        raise ApiError(404, field, f"no model or unit {value!r} on the table")
    return value


@bp.post("/phase/advance")
@needs_pin
def advance_phase() -> Response:
    only(body(), set())
    return run("advance_phase")


@bp.post("/ruler")
@needs_pin
def ruler() -> Response:
    """The shared ruler every phone and the LEDs show: `{"from", "to"}`, each a model id or a board
    point [x, y] in inches; `{"from": null}` takes it away."""
    data = body()
    only(data, {"from", "to"})
    ends: list[str | list[float] | None] = []
    for name in ("from", "to"):
        end = data.get(name)
        if end is None or isinstance(end, str):
            ends.append(None if end is None else known_id(end, name))
        elif isinstance(end, list) and len(end) == 2:
            ends.append([number(v, name, -limits.REACH, limits.REACH) for v in end])
        else:
            raise ApiError(400, name, "expected a model id or a board point [x, y]")
    if ends[0] is not None and ends[1] is None:
        raise ApiError(400, "to", "give the ruler's other end")
    return run("ruler", "from", a=ends[0], b=ends[1])


@bp.post("/undo")
@needs_pin
def undo() -> Response:
    only(body(), set())
    return run("undo")


@bp.post("/select")
@needs_pin
def select() -> Response:
    data = body()
    only(data, {"id"})
    return run("select", "id", id=known_id(data.get("id"), "id"))


@bp.post("/target")
@needs_pin
def target() -> Response:
    data = body()
    only(data, {"id"})
    return run("target", "id", id=known_id(data.get("id"), "id"))


def hex_of(value: Any, field: str) -> list[int]:
    """A hex as [q, r] (whole numbers within +-1000)."""
    if not isinstance(value, list) or len(value) != 2:
        raise ApiError(400, field, "expected a hex [q, r]")
    return [integer(v, field, -limits.REACH, limits.REACH) for v in value]


@bp.post("/destination")
@needs_pin
def destination() -> Response:
    """Hex games: the hex the selected unit's path leads to (null clears it); the LEDs draw the path."""
    data = body()
    only(data, {"hex"})
    where = data.get("hex")
    return run("destination", "hex", hex=None if where is None else hex_of(where, "hex"))


@bp.post("/weapon")
@needs_pin
def weapon() -> Response:
    """The weapon whose bands the LEDs show for the selected unit (null: its first with bands)."""
    data = body()
    only(data, {"weapon"})
    name = data.get("weapon")
    if name is not None and not (isinstance(name, str) and 0 < len(name) <= limits.MAX_NAME):
        raise ApiError(400, "weapon", f"expected a weapon name (1-{limits.MAX_NAME} characters) or null")
    return run("weapon", "weapon", weapon=name)


@needs_pin
def game_action(system: str) -> Response:
    """An action of a rule system's live game (`Ruleset.live_game`), posted to /api/<rule system>:
    `{"action"}` plus the `unit` or `hex` the action takes; its phase action goes through
    /api/phase/advance."""
    game = get_ruleset(system).live_game
    assert game is not None, "_game_routes makes this route only for a rule system with a live game"
    data = body()
    only(data, {"action", "unit", "hex"})
    action = data.get("action")
    actions = {a: kind for a, kind in game.arguments.items() if a != game.phase_action}
    if not isinstance(action, str) or action not in actions:
        raise ApiError(400, "action", f"expected one of {', '.join(sorted(actions))}")
    kind = actions[action]
    only(data, {"action", kind} if kind else {"action"})
    args: list[Any] = []
    if kind == "unit":
        args = [known_id(data.get("unit"), "unit")]
    elif kind == "hex":
        args = [hex_of(data.get("hex"), "hex")]
    return run(system, "action", action=action, args=args)


@bp.record_once
def _game_routes(state: BlueprintSetupState) -> None:
    """POST /api/<rule system> for each rule system that keeps a live game."""
    for rules in all_rulesets():
        if rules.live_game is not None:
            state.add_url_rule(f"/{rules.name}", f"game_{rules.name}", game_action,
                               defaults={"system": rules.name}, methods=["POST"])


@bp.post("/roll")
@needs_pin
def roll() -> Response:
    ruleset = panel().controller.snapshot().ruleset
    return run("roll", "kind", **check_roll(get_ruleset(ruleset), body()))


@bp.post("/warnings/<warning_id>/acknowledge")
@needs_pin
def acknowledge(warning_id: str) -> Response:
    only(body(), set())
    ident(warning_id, "warning_id")
    if not any(str(w.get("id")) == warning_id for w in panel().controller.snapshot().warnings):
        raise ApiError(404, "warning_id", f"no warning {warning_id!r}")
    return run("acknowledge", "warning_id", id=warning_id)


@bp.put("/terrain")
@needs_pin
def set_terrain() -> Response:
    """`{"terrain": [...]}` (the pieces), with or instead of `hexes`, `hexsides` and `board` (the rule
    system's board keys: deployment zones, objectives), each as in the scene file."""
    data = body()
    only(data, {"terrain", "hexes", "hexsides", "board"})
    scene = thaw(panel().controller.snapshot().scene)
    params: dict[str, Any] = {k: data[k] for k in ("terrain", "hexes", "hexsides", "board") if k in data}
    for key, value in params.items():
        if value is None:
            raise ApiError(400, key, "expected a list (board: an object), not null")
    try:
        limits.board_changes("set_terrain", params, get_ruleset(scene["ruleset"]).scenario_keys)
        for key in ("terrain", "hexes", "hexsides"):
            if key in params:
                scene[key] = params[key]
        scene.update({k: v for k, v in params.get("board", {}).items() if v is not None})
        parsed = parse_scene(scene)
        for i, piece in enumerate(parsed.terrain):
            limits.on_board("set_terrain", f"terrain[{i}].polygon", piece.polygon, parsed.board.width,
                            parsed.board.height)
    except ParamError as exc:
        raise ApiError(400, exc.field, exc.problem) from None
    except SceneError as exc:
        field, _, message = str(exc).partition(": ")
        raise ApiError(400, field, message or str(exc)) from None
    return run("set_terrain", "terrain", **params)


@bp.post("/roster/assign")
@needs_pin
def assign_marker() -> Response:
    """`{"model", "marker"}`, or `{"unit", "marker"}` (the unit's first model without a marker);
    without `marker`, the one marker in view that no model has (the model just placed)."""
    data = body()
    only(data, {"model", "unit", "marker"})
    if ("model" in data) == ("unit" in data):
        raise ApiError(400, "model", "give the model (model) or its unit (unit)")
    models = panel().controller.snapshot().scene.get("models", [])
    if "unit" in data:
        unit = ident(data["unit"], "unit")
        mine = [m for m in models if m.get("unit") == unit]
        if not mine:
            raise ApiError(404, "unit", f"no unit {unit!r} with models in the scene")
        free = [m for m in mine if m.get("marker") is None]
        if not free:
            raise ApiError(409, "unit", f"every model of {unit} has a marker: name the model")
        model = str(free[0]["id"])
    else:
        model = ident(data.get("model"), "model")
    if not any(m.get("id") == model for m in models):
        raise ApiError(404, "model", f"no model {model!r} in the scene")
    if data.get("marker") is not None:
        marker = integer(data["marker"], "marker", 0, limits.MAX_MARKER)
    else:
        marker = marker_in_view(panel().controller.snapshot().warnings)
    return run("assign_marker", "marker", model=model, marker=marker)


def marker_in_view(warnings: tuple[Mapping[str, Any], ...]) -> int:
    """The one marker the camera sees that the roster does not know (the model just placed)."""
    tails = [str(w.get("id", "")).rpartition(":")[2] for w in warnings if w.get("kind") == "unknown_marker"]
    unknown = sorted({int(tail) for tail in tails if tail.isdigit()})
    if not unknown:
        raise ApiError(409, "marker", "no unassigned marker in view: place the model on the table first")
    if len(unknown) > 1:
        raise ApiError(409, "marker", f"{len(unknown)} unassigned markers in view "
                                      f"({', '.join(map(str, unknown))}): give the marker number")
    return unknown[0]


@bp.put("/settings")
@needs_pin
def settings() -> Response:
    data = body()
    only(data, {"ruleset", "rulings", "brightness"})
    if not data:
        raise ApiError(400, "body", "give at least one of ruleset, rulings, brightness")
    params: dict[str, Any] = {}
    snapshot = panel().controller.snapshot()
    ruleset = snapshot.ruleset
    if "ruleset" in data:
        ruleset = params["ruleset"] = choice(data["ruleset"], "ruleset", tuple(registry.names()))
    if "rulings" in data:
        rulings = data["rulings"]
        if not isinstance(rulings, dict):
            raise ApiError(400, "rulings", "expected an object of ruling options")
        try:
            get_ruleset(ruleset)(parse_scene({**thaw(snapshot.scene), "ruleset": ruleset}), rulings)
        except (QueryError, SceneError) as exc:
            raise ApiError(400, "rulings", str(exc)) from None
        params["rulings"] = rulings
    if "brightness" in data:
        params["brightness"] = number(data["brightness"], "brightness", 0.0, 1.0)
    return run("settings", **params)


@bp.put("/scenes/<name>")
@needs_pin
def save_scene(name: str) -> Response:
    only(body(), set())
    ctx = panel()
    storage.write_scene(ctx.options.data_dir, name, thaw(ctx.controller.snapshot().scene))
    return jsonify({"ok": True, "name": name})
