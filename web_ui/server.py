"""Serving the panel with waitress (a production WSGI server), as `smarttable run` does."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from flask import Flask

from table.config import Config
from table.snapshot import Controller

DEFAULT_THREADS = 48          # every SSE or MJPEG client holds a thread while connected


def data_dir_of(config: Config) -> Path:
    """The table's data folder: where the game log lives (`[log] path`'s folder)."""
    return config.path("log", "path").parent


def app_from_config(controller: Controller, config: Config) -> Flask:
    """The panel app for a table config; prints the PIN when it was just generated."""
    from web_ui.app import create_app

    web = config["web"]
    app = create_app(controller, pin=web["pin"], data_dir=data_dir_of(config),
                     sse_interval_s=web["sse_interval_s"], marker_dictionary=config["markers"]["dictionary"],
                     marker_size_mm=config["markers"]["model_size_mm"])
    return app


def serve(app: Flask, host: str, port: int, *, threads: int = DEFAULT_THREADS, **options: Any) -> None:
    """Serve `app` with waitress until interrupted; prints where the panel is and its PIN."""
    import waitress

    ctx = app.extensions["smarttable"]
    shown = "localhost" if host in ("0.0.0.0", "::", "") else host
    print(f"Panel: http://{shown}:{port}/  PIN: {ctx.options.pin}", file=sys.stderr, flush=True)
    waitress.serve(app, host=host, port=port, threads=threads, ident="smarttable", **options)
