"""The panel's Flask app factory: `create_app(controller)`; the controller lives in `app.extensions`."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from flask import Flask, Response, render_template, request
from flask.json.provider import DefaultJSONProvider

from table import strictjson
from table.hosts import allowed_names, host_allowed, host_of
from table.panel_api import PanelController
from web_ui import api_army, api_games, api_read, api_write, bookmarks, errors, sandbox
from web_ui.auth import PinGuard, new_pin, resolve_pin
from web_ui.context import PanelContext, PanelOptions
from web_ui.errors import ApiError
from web_ui.streams import Streams

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; "
                               "script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class StrictJSONProvider(DefaultJSONProvider):
    """Flask's JSON, strict both ways: no NaN or Infinity in or out (a phone's JSON.parse refuses them)."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        kwargs.setdefault("allow_nan", False)
        return super().dumps(obj, **kwargs)

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return strictjson.loads(s)


class PanelFlask(Flask):
    json_provider_class = StrictJSONProvider


def rotate_pin(context: PanelContext, controller: PanelController) -> str:
    """A new PIN at once: every phone must ask for it again; stderr and the status LED show it."""
    pin = new_pin(context.options.data_dir)
    context.guard.rotate(pin)
    print(f"Panel PIN (rotated, kept in {context.options.data_dir / 'pin.txt'}): {pin}", file=sys.stderr,
          flush=True)
    controller.show_pin(pin)
    return pin


def create_app(controller: PanelController, *, pin: str = "", data_dir: str | Path | None = None,
               sse_interval_s: float = 0.2, heartbeat_s: float = 5.0, max_streams: int = 40,
               streams_per_address: int = 4, marker_dictionary: str = "DICT_APRILTAG_36h11",
               marker_size_mm: float = 15.0,
               pin_attempts: int = 10, allowed_hosts: Iterable[str] = ()) -> Flask:
    """Build the panel for `controller`. `data_dir` is the only folder the panel writes or reads
    files in (saved scenes, the generated PIN); `pin` empty means use or generate the stored one;
    `heartbeat_s`: a quiet SSE stream's heartbeat (a page that misses two calls the table offline);
    `max_streams` live connections (SSE, MJPEG) at once, `streams_per_address` from one address;
    `pin_attempts` wrong PINs a minute from one address lock that address out for the minute, and
    as many across all addresses start the global pace (web_ui/auth.py); the panel answers only to
    the table's own names, IP addresses and `allowed_hosts` (table/hosts.py)."""
    folder = Path(data_dir) if data_dir is not None else Path(tempfile.mkdtemp(prefix="smarttable-"))
    resolved, generated = resolve_pin(pin, folder)
    if generated:
        print(f"Panel PIN (generated, kept in {folder / 'pin.txt'}): {resolved}", file=sys.stderr, flush=True)
        controller.show_pin(resolved)
    options = PanelOptions(pin=resolved, data_dir=folder.resolve(), sse_interval_s=sse_interval_s,
                           heartbeat_s=heartbeat_s, max_streams=max_streams,
                           streams_per_address=streams_per_address,
                           marker_dictionary=marker_dictionary, marker_size_mm=marker_size_mm)
    app = PanelFlask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = 256 * 1024
    app.json.sort_keys = False  # type: ignore[attr-defined]
    streams = Streams(options.max_streams, options.streams_per_address)
    guard = PinGuard(resolved, limit=pin_attempts, streaming=streams.holds)   # the panel's phones first
    context = PanelContext(controller, options, guard, streams)
    app.extensions["smarttable"] = context
    # the table owner's button (hold confirm) rotates the PIN
    controller.on_rotate_pin.append(lambda: rotate_pin(context, controller))
    errors.install(app)
    names = allowed_names(allowed_hosts)

    @app.before_request
    def own_names_only() -> None:
        if not host_allowed(request.host, names):
            raise ApiError(403, "Host", f"this table answers only to its own names and addresses, not "
                                        f"{host_of(request.host)!r} (add it to [web] allowed_hosts)")
    app.register_blueprint(api_read.bp)
    app.register_blueprint(api_write.bp)
    app.register_blueprint(api_army.bp)
    app.register_blueprint(api_games.bp)
    app.register_blueprint(bookmarks.bp)
    app.register_blueprint(sandbox.bp)

    @app.get("/")
    def index() -> str:
        return render_template("index.html")

    @app.after_request
    def secure(response: Response) -> Response:
        for key, value in SECURITY_HEADERS.items():
            response.headers.setdefault(key, value)
        return response

    return app
