"""The panel under test: the app made with the test PIN, and served by waitress in a thread."""

from __future__ import annotations

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
