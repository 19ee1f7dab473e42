"""The panel under test: the app made with the test PIN, and served by waitress in a thread."""

from __future__ import annotations

import http.client
import json
import threading
from pathlib import Path

from web_ui import create_app

PIN = "4711"


def make_app(controller: object, folder: Path, **options: object):
    return create_app(controller, pin=PIN, data_dir=folder / "data", sse_interval_s=0.05, heartbeat_s=0.2,
                      **options)


class LiveServer:
    """The app served by waitress on 127.0.0.1 in a background thread."""

    def __init__(self, app) -> None:
        import waitress

        self.server = waitress.create_server(app, host="127.0.0.1", port=0, threads=16)
        self.url = f"http://127.0.0.1:{self.server.effective_port}"
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def close(self) -> None:
        """Let running requests end (a stream ends once its client has gone), then close everything."""
        from waitress import wasyncore

        self.server.task_dispatcher.shutdown(timeout=5)
        wasyncore.close_all(self.server._map)
        self.thread.join(timeout=5)


class Served:
    """The app on 127.0.0.1 with the server settings `smarttable run` uses (web_ui/server.py)."""

    def __init__(self, app, threads: int = 16, **options: object):
        from web_ui.server import create_server

        self.server = create_server(app, "127.0.0.1", 0, threads=threads, **options)
        self.port = int(self.server.effective_port)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def request(self, method: str, path: str, *, source: str = "127.0.0.1", headers: dict | None = None,
                body: dict | None = None, timeout: float = 20.0) -> tuple[int, dict]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout, source_address=(source, 0))
        try:
            data = None if body is None else json.dumps(body)
            conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
            reply = conn.getresponse()
            text = reply.read()
            return reply.status, (json.loads(text) if text.startswith(b"{") else {})
        finally:
            conn.close()

    def close(self) -> None:
        from waitress import wasyncore

        self.server.task_dispatcher.shutdown(timeout=5)
        wasyncore.close_all(self.server._map)
        self.thread.join(timeout=5)
