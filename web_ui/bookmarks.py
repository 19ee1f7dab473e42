"""Dispute bookmarks in the API: take one (PIN), list them, read one's evidence, export it as one
self-contained HTML page (table/live/bookmarks.py keeps them; a table whose game log is in memory has
none: 404)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request

from table.errors import QueryError, StorageError
from table.panel_api import Bookmarks
from web_ui import changes
from web_ui.api_write import known_id
from web_ui.auth import needs_pin
from web_ui.context import panel
from web_ui.errors import ApiError
from web_ui.inputs import body, only

bp = Blueprint("bookmarks", __name__, url_prefix="/api")


def _bookmarks() -> Bookmarks:
    found = panel().controller.bookmarks
    if found is None:
        raise ApiError(404, "bookmarks", "this table keeps no bookmarks (its game log is in memory)")
    return found


def _one(bookmark_id: str) -> dict[str, Any]:
    if not bookmark_id.isascii() or not bookmark_id.isdigit() or not 0 < len(bookmark_id) < 10:
        raise ApiError(404, "bookmark_id", f"no bookmark {bookmark_id!r}")
    try:
        return dict(_bookmarks().get(int(bookmark_id)))
    except QueryError as exc:
        raise ApiError(404, "bookmark_id", str(exc)) from None


@bp.post("/bookmarks")
@needs_pin
def take():
    """Keep the evidence of the current measurement: `{"a", "b"}` (the measure card's two model or unit ids),
    `{"ruler": true}` (the shared ruler), or `{}` for the table's selection (else the shared ruler)."""
    data = body()
    only(data, {"a", "b", "ruler"})
    ruler = data.get("ruler", False)
    if not isinstance(ruler, bool):
        raise ApiError(400, "ruler", "expected true or false")
    a, b = (None if data.get(k) is None else known_id(data.get(k), k) for k in ("a", "b"))
    if (a is None) != (b is None):
        raise ApiError(400, "b" if b is None else "a", "give both ends of the measurement, or neither")
    bookmarks = _bookmarks()
    try:
        receipt = changes.make("bookmark", {"a": a, "b": b, "ruler": ruler})
    except StorageError as exc:            # the evidence file could not be written: nothing was kept
        raise ApiError(503, "bookmark", str(exc)) from None
    taken = receipt.result["bookmark"]
    seq = bookmarks.seq_of(taken["id"], taken["game"])
    return changes.answer("bookmark", receipt, {"bookmark": {**taken, "seq": seq}})


@bp.get("/bookmarks")
def listing():
    return jsonify({"bookmarks": _bookmarks().summaries()})


@bp.get("/bookmarks/<bookmark_id>")
def evidence(bookmark_id: str):
    return jsonify(_one(bookmark_id))


@bp.get("/bookmarks/<bookmark_id>/export")
def export(bookmark_id: str):
    """The bookmark as one HTML page that opens offline (its own CSP: no script, only data: images)."""
    from table.live.bookmark_page import POLICY, page

    document = _one(bookmark_id)
    headers = {"Content-Security-Policy": POLICY, "Cache-Control": "no-store"}
    if request.args.get("download") == "1":
        headers["Content-Disposition"] = f'attachment; filename="bookmark-{document["id"]}.html"'
    return Response(page(document), mimetype="text/html", headers=headers)
