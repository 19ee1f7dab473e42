"""The hub's dashboard: a Flask app (served by waitress, as the panel is) over the `Hub`.

Read-only: every table live, a board per table, the recent events of all tables, and
`GET /api/tables`. Errors are JSON `{"error", "field"}`. As on the panel, it answers only to this
machine's own names, IP addresses and `allowed_hosts` (table/hosts.py, against DNS rebinding), and the
server bounds slow and oversized clients.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from flask import Flask, Response, abort, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from hub.listener import Hub
from table.broker import NAME
from table.errors import ConfigError
from table.hosts import allowed_names, host_allowed, host_of
from table.live.summaries import summary
from web_ui.channels import TableServer
from web_ui.channels import create_server as limited_server
from web_ui.server import LIMITS

if TYPE_CHECKING:
    from waitress.server import MultiSocketServer

THREADS = 16
MAX_BODY = 16 * 1024            # the dashboard takes no bodies

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


def create_hub_app(hub: Hub, allowed_hosts: Iterable[str] = ()) -> Flask:
    app = Flask(__name__)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.extensions["smarttable-hub"] = hub
    names = allowed_names(allowed_hosts)

    @app.before_request
    def own_names_only() -> None:
        if not host_allowed(request.host, names):
            raise BadRequest(403, "Host", f"this hub answers only to its own names and addresses, not "
                                          f"{host_of(request.host)!r} (add it with --allowed-host)")

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
        hub = _hub()
        return jsonify({"connected": hub.listening, "listener": hub.health.to_json(hub.alive),
                        "tables": hub.tables()})

    @app.get("/api/tables/<table_id>")
    def table(table_id: str) -> Response:
        hub = _hub()
        line = next(t for t in hub.tables() if t["id"] == _known(table_id))
        return jsonify({**line, "state": hub.state(table_id)})

    @app.get("/api/tables/<table_id>/events")
    def table_events(table_id: str) -> Response:
        after = _int_arg("after", 0, 0, 2**62)
        limit = _int_arg("limit", 100, 1, 1000)
        events = _hub().store.events(_known(table_id), after=after, limit=limit)
        return jsonify({"events": [{**e, "text": summary(e)} for e in events]})

    @app.get("/api/tables/<table_id>/conflicts")
    def table_conflicts(table_id: str) -> Response:
        limit = _int_arg("limit", 100, 1, 1000)
        return jsonify({"conflicts": _hub().store.conflicts(_known(table_id), limit)})

    @app.get("/api/events")
    def recent() -> Response:
        limit = _int_arg("limit", 50, 1, 500)
        events = _hub().store.events(limit=limit, newest=True)
        return jsonify({"events": [{**e, "text": summary(e)} for e in events]})   # the tables' own sentences

    return app


def create_server(app: Flask, host: str, port: int) -> MultiSocketServer | TableServer:
    """A waitress server for the dashboard with the panel's limits on slow, greedy and oversized clients
    (web_ui/server.py LIMITS, web_ui/channels.py), bound (ConfigError, one line, if it cannot listen)."""
    options: dict[str, Any] = {**LIMITS, "max_request_body_size": MAX_BODY}
    try:
        return limited_server(app, host=host, port=port, threads=THREADS, ident="smarttable-hub", **options)
    except OSError as exc:
        raise ConfigError(f"--port: cannot listen on {host}:{port} ({exc.strerror or exc}): "
                          "is another hub running?") from None


def serve(server: MultiSocketServer | TableServer, host: str, port: int) -> None:
    """Serve the dashboard until interrupted."""
    shown = "localhost" if host in ("0.0.0.0", "::", "") else host
    print(f"Hub: http://{shown}:{port}/", file=sys.stderr, flush=True)
    try:
        server.run()
    finally:
        server.close()


