"""The API of a game's life: list the games in the log, start a new one (a rule system, a scenario or an
empty board, the players, their army lists; or a saved scene), end the one on the table, resume an
earlier one. Replaying one is `GET /api/replay?game=N` (web_ui/api_read.py)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify

from table import registry
from web_ui import storage
from web_ui.api_army import command
from web_ui.auth import needs_pin
from web_ui.context import panel
from web_ui.errors import ApiError
from web_ui.inputs import MAX_INT, body, choice, ident, only, parse_int

bp = Blueprint("api_games", __name__, url_prefix="/api")
MAX_PLAYERS = 8


@bp.get("/games")
def games() -> Response:
    """Every game in the log (`{"game", "started", "ruleset", "ended", "events"}`), the one on the table
    (`current`) and whether it is over."""
    ctx = panel()
    status = ctx.controller.snapshot().status
    return jsonify({"current": status.get("game"), "over": bool(status.get("game_over")),
                    "games": ctx.controller.replay_games()})


def _saved_or_given(value: Any, kind: str, field: str) -> dict[str, Any]:
    """A document given whole, or the name of a saved one."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        return storage.read(panel().options.data_dir, kind, value)
    raise ApiError(400, field, f"expected a saved {storage.WORDS[kind]}'s name or the document itself")


@bp.post("/games")
@needs_pin
def new_game() -> Response:
    """A new game: `{"ruleset", "scenario", "players", "armies"}` (each optional: the table's rule system, an
    empty board, players A and B, no units), `{"scene"}` (a saved scene's name or a scene), or `{}` (the
    scene on the table again)."""
    data = body()
    only(data, {"ruleset", "scenario", "players", "armies", "scene"})
    params: dict[str, Any] = {}
    if "scene" in data:
        if len(data) > 1:
            raise ApiError(400, "scene", "a scene is the whole game: give it alone")
        params["scene"] = _saved_or_given(data["scene"], storage.SCENES, "scene")
    if "ruleset" in data:
        params["ruleset"] = choice(data["ruleset"], "ruleset", tuple(registry.names()))
    if "scenario" in data:
        params["scenario"] = _saved_or_given(data["scenario"], storage.SCENARIOS, "scenario")
    if "players" in data:
        players = data["players"]
        if not isinstance(players, list) or not 1 <= len(players) <= MAX_PLAYERS:
            raise ApiError(400, "players", f"expected a list of 1 to {MAX_PLAYERS} player names")
        if len(set(map(str, players))) != len(players):
            raise ApiError(400, "players", "a player is named twice")
        params["players"] = [ident(p, f"players[{i}]") for i, p in enumerate(players)]
    if "armies" in data:
        armies = data["armies"]
        if not isinstance(armies, list) or len(armies) > 2 * MAX_PLAYERS:
            raise ApiError(400, "armies", f"expected a list of at most {2 * MAX_PLAYERS} armies")
        params["armies"] = [_army(entry, f"armies[{i}]") for i, entry in enumerate(armies)]
    return command("new_game", "body", True, **params)


def _army(entry: Any, field: str) -> dict[str, Any]:
    """`{"name": saved}` or `{"army": list}`, with an optional `player`."""
    if not isinstance(entry, dict):
        raise ApiError(400, field, 'expected {"name": saved army} or {"army": army list}, with "player"')
    only(entry, {"name", "army", "player"}, f"{field}.")
    if ("name" in entry) == ("army" in entry):
        raise ApiError(400, field, "give a saved army's name (name) or an army list (army)")
    document = _saved_or_given(entry.get("army", entry.get("name")), storage.ARMIES, f"{field}.army")
    player = entry.get("player")
    return {"army": document, "player": None if player is None else ident(player, f"{field}.player")}


@bp.post("/games/end")
@needs_pin
def end_game() -> Response:
    """End the game on the table (`{"reason"}` optional): it stays in the log."""
    data = body()
    only(data, {"reason"})
    reason = data.get("reason", "")
    if not (isinstance(reason, str) and len(reason) <= 64):
        raise ApiError(400, "reason", "expected a short text (at most 64 characters)")
    return command("end_game", "game", **data)


@bp.post("/games/<game>/resume")
@needs_pin
def resume_game(game: str) -> Response:
    """Make an earlier game of the log the one on the table, where it stood."""
    only(body(), set())
    number = parse_int(game, "game", 1, MAX_INT)
    if number not in {g["game"] for g in panel().controller.replay_games()}:
        raise ApiError(404, "game", f"no game {number} in the log")
    return command("resume_game", "game", game=number)
