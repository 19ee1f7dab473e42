"""The sandbox table's board (`smarttable run --sandbox`, table/live/sandbox.py): the markers lying on the
synthetic board, put down, moved and taken off by hand as a player does a miniature; the camera then sees
them there. A table that is not a sandbox answers 404."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify

from table.errors import QueryError
from table.live import command_limits as limits
from web_ui.auth import needs_pin
from web_ui.context import panel
from web_ui.errors import ApiError
from web_ui.inputs import body, number, only, parse_int

bp = Blueprint("api_sandbox", __name__, url_prefix="/api")


def _board() -> Any:
    board = getattr(panel().controller, "sandbox", None)
    if board is None:
        raise ApiError(404, "sandbox", "this table is not a sandbox (start it with smarttable run --sandbox)")
    return board


@bp.get("/sandbox")
def markers() -> Response:
    """The markers on the sandbox's board."""
    return jsonify({"markers": _board().markers()})


@bp.put("/sandbox/markers/<marker>")
@needs_pin
def place(marker: str) -> Response:
    """`{"x", "y", "heading"}`: put the marker down there (or move it there)."""
    board = _board()
    ident = parse_int(marker, "marker", 0, limits.MAX_MARKER)
    data = body()
    only(data, {"x", "y", "heading"})
    for key in ("x", "y"):
        if key not in data:
            raise ApiError(400, key, "give the marker's board position x, y in inches")
    x, y = number(data["x"], "x", 0.0, 1000.0), number(data["y"], "y", 0.0, 1000.0)
    heading = number(data.get("heading", 0.0), "heading", -180.0, 180.0)
    try:
        board.place(ident, x, y, heading)
    except QueryError as exc:
        field, _, message = str(exc).partition(": ")
        raise ApiError(400 if field in ("x, y", "marker") else 409, field, message) from None
    return jsonify({"markers": board.markers()})


@bp.delete("/sandbox/markers/<marker>")
@needs_pin
def take_off(marker: str) -> Response:
    """Take the marker off the board."""
    board = _board()
    ident = parse_int(marker, "marker", 0, limits.MAX_MARKER)
    only(body(), set())
    try:
        removed = board.remove(ident)
    except QueryError as exc:
        raise ApiError(400, "marker", str(exc).partition(": ")[2]) from None
    if not removed:
        raise ApiError(404, "marker", f"marker {ident} is not on the board")
    return jsonify({"markers": board.markers()})
