"""Serving the panel with waitress (a production WSGI server), as `smarttable run` does."""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask

from table.config import Config
from table.errors import ConfigError
from table.panel_api import PanelController

if TYPE_CHECKING:
    from waitress.server import MultiSocketServer

    from web_ui.channels import TableServer
    from web_ui.streams import Streams

STOP_S = 2.0                  # on SIGTERM, answers being worked out get this long to go out
DEFAULT_THREADS = 64          # 40 live connections (SSE, MJPEG) hold one each, questions up to 13
MAX_BODY = 256 * 1024         # the app's own limit (MAX_CONTENT_LENGTH), passed on to waitress
# A flood of slow or half-open clients costs a socket each, not a thread: allow many, drop the idle
# ones soon (an SSE stream writes a heartbeat more often than this), so real phones still get in; the
# slow, greedy and non-reading ones are web_ui/channels.py's. A response's unsent output is kept in
# memory up to the watermark (then its worker waits for the client); poll(), not select(), so more
# than 1024 open files are fine.
LIMITS = {"connection_limit": 500, "channel_timeout": 20, "cleanup_interval": 1,
          "max_request_header_size": 16 * 1024, "max_request_body_size": MAX_BODY,
          "outbuf_high_watermark": 256 * 1024, "asyncore_use_poll": True}


def data_dir_of(config: Config) -> Path:
    """The table's data folder: where the game log lives (`[log] path`'s folder)."""
    return config.path("log", "path").parent


def app_from_config(controller: PanelController, config: Config) -> Flask:
    """The panel app for a table config; prints the PIN when it was just generated."""
    from web_ui.app import create_app

    web = config.web
    app = create_app(controller, pin=web.pin, data_dir=data_dir_of(config),
                     sse_interval_s=web.sse_interval_s, heartbeat_s=web.heartbeat_s,
                     marker_dictionary=config.markers.dictionary,
                     marker_size_mm=config.markers.model_size_mm, allowed_hosts=web.allowed_hosts)
    return app


def check_port(host: str, port: int) -> None:
    """ConfigError (one line, exit 2) unless the panel can listen on host:port; checked before the
    table prints anything."""
    if not 1 <= port <= 65535:
        raise ConfigError(f"web.port: must be between 1 and 65535, got {port}")
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        raise ConfigError(f"web.host: cannot listen on {host!r}: {exc}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)    # as waitress does
        try:
            probe.bind(address)
        except OSError as exc:
            raise ConfigError(f"web.port: cannot listen on {host}:{port} ({exc.strerror}): "
                              "is another table running?") from None


def create_server(app: Flask, host: str, port: int, *, threads: int = DEFAULT_THREADS, **options: Any
                  ) -> MultiSocketServer | TableServer:
    """A waitress server for `app`, bound (ConfigError naming the port if it cannot listen), with the
    LIMITS against slow and oversized clients and web_ui/channels.py's against slow and greedy ones."""
    from web_ui.channels import create_server as limited_server

    try:
        return limited_server(app, host=host, port=port, threads=threads, ident="smarttable",
                              **{**LIMITS, **options})
    except OSError as exc:
        raise ConfigError(f"web.port: cannot listen on {host}:{port} ({exc.strerror}): "
                          "is another table running?") from None


def serve(app: Flask, host: str, port: int, *, threads: int = DEFAULT_THREADS,
          announce: Callable[[], object] | None = None, **options: Any) -> None:
    """Serve `app` with waitress until interrupted; once it is listening, `announce` and print where
    the panel is and its PIN."""
    server = create_server(app, host, port, threads=threads, **options)
    if announce is not None:
        announce()
    ctx = app.extensions["smarttable"]
    shown = "localhost" if host in ("0.0.0.0", "::", "") else host
    print(f"Panel: http://{shown}:{port}/  PIN: {ctx.guard.pin}", file=sys.stderr, flush=True)
    try:
        _run(server, ctx.streams)
    finally:
        server.task_dispatcher.shutdown()
        server.close()


def _run(server: Any, streams: Streams) -> None:
    """waitress's loop until SIGTERM (KeyboardInterrupt), then a gentle stop: the live connections end
    and the loop goes on sending what the workers write until none is busy (STOP_S at most), so waitress
    waits for no thread holding an SSE stream, nor closes what one would write to next (a traceback)."""
    from waitress import wasyncore

    sockets = server.map if hasattr(server, "map") else server._map      # several addresses, or one
    adj = server.adj
    try:
        wasyncore.loop(timeout=adj.asyncore_loop_timeout, map=sockets, use_poll=adj.asyncore_use_poll)
    except (SystemExit, KeyboardInterrupt):
        streams.close()
        deadline = time.monotonic() + STOP_S
        while server.task_dispatcher.active_count and time.monotonic() < deadline:
            wasyncore.loop(timeout=0.05, map=sockets, use_poll=adj.asyncore_use_poll, count=1)
