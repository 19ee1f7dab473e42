"""The hub's dashboard: a Flask app (served by waitress, as the panel is) over the `Hub`.

Read-only: every table live, a board per table, the recent events of all tables, and
`GET /api/tables`. Errors are JSON `{"error", "field"}`.
"""

from __future__ import annotations

import sys
from typing import Any

from flask import Flask, Response, abort, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from hub.listener import Hub
from table.broker import NAME

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; "
                               "script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class BadRequest(Exception):
    def __init__(self, status: int, field: str, message: str):
        super().__init__(message)
        self.status, self.field, self.message = status, field, message


def _hub() -> Hub:
    return current_app.extensions["smarttable-hub"]


def _int_arg(name: str, default: int, low: int, high: int) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(400, name, f"expected a whole number, got {raw!r}") from None
    if not low <= value <= high:
        raise BadRequest(400, name, f"must be from {low} to {high}, got {value}")
    return value


def _known(table_id: str) -> str:
    if not NAME.fullmatch(table_id) or table_id not in _hub().views:
        raise BadRequest(404, "table_id", f"no table {table_id!r} on the broker")
    return table_id


def create_hub_app(hub: Hub) -> Flask:
    app = Flask(__name__)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions["smarttable-hub"] = hub

    @app.errorhandler(BadRequest)
    def bad(exc: BadRequest) -> tuple[Response, int]:
        return jsonify({"error": exc.message, "field": exc.field}), exc.status

    @app.errorhandler(HTTPException)
    def http(exc: HTTPException) -> tuple[Response, int]:
        return jsonify({"error": exc.description, "field": "path"}), exc.code or 500

    @app.after_request
    def secure(response: Response) -> Response:
        for key, value in SECURITY_HEADERS.items():
            response.headers.setdefault(key, value)
        response.headers.setdefault("Cache-Control", "no-store")
        return response

    @app.get("/")
    def dashboard() -> str:
        return render_template("hub.html")

    @app.get("/tables/<table_id>")
    def board(table_id: str) -> str:
        if not NAME.fullmatch(table_id):
            abort(404)
        return render_template("board.html", table_id=table_id)

    @app.get("/api/tables")
    def tables() -> Response:
        return jsonify({"connected": _hub().connected.is_set(), "tables": _hub().tables()})

    @app.get("/api/tables/<table_id>")
    def table(table_id: str) -> Response:
        hub = _hub()
        line = next(t for t in hub.tables() if t["id"] == _known(table_id))
        return jsonify({**line, "state": hub.state(table_id)})

    @app.get("/api/tables/<table_id>/events")
    def table_events(table_id: str) -> Response:
        after = _int_arg("after", 0, 0, 2**62)
        limit = _int_arg("limit", 100, 1, 1000)
        return jsonify({"events": _hub().store.events(_known(table_id), after=after, limit=limit)})

    @app.get("/api/events")
    def recent() -> Response:
        limit = _int_arg("limit", 50, 1, 500)
        return jsonify({"events": _hub().store.events(limit=limit, newest=True)})

    return app


def serve(app: Flask, host: str, port: int, **options: Any) -> None:
    """Serve the dashboard with waitress until interrupted."""
    import waitress

    shown = "localhost" if host in ("0.0.0.0", "::", "") else host
    print(f"Hub: http://{shown}:{port}/", file=sys.stderr, flush=True)
    waitress.serve(app, host=host, port=port, threads=16, ident="smarttable-hub", **options)


