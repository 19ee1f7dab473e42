"""Fixtures for the panel's tests: a table controller, the app, and a live waitress server."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_table import FakeTable, load_doc  # noqa: E402
from tables import demo_controller  # noqa: E402

from web_ui import create_app  # noqa: E402

PIN = "4711"


@pytest.fixture
def table(tmp_path: Path) -> Iterator[object]:
    """The real table controller playing the demo scene (mock hardware, no camera loop)."""
    controller = demo_controller(tmp_path)
    yield controller
    controller.close()


@pytest.fixture
def fake() -> FakeTable:
    """A small in-memory table with a camera view (which the real controller does not offer yet)."""
    return FakeTable(load_doc("demo_synaptik.json"))


def make_app(controller: object, folder: Path, **options: object):
    return create_app(controller, pin=PIN, data_dir=folder / "data", sse_interval_s=0.05, heartbeat_s=0.2,
                      **options)


@pytest.fixture
def app(table: object, tmp_path: Path):
    return make_app(table, tmp_path)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def auth() -> dict[str, str]:
    return {"X-Table-PIN": PIN}


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


@pytest.fixture
def live(app) -> Iterator[LiveServer]:
    server = LiveServer(app)
    yield server
    server.close()
