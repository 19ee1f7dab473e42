"""Fixtures for the panel's tests: a table controller, the app, and a live waitress server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.fake_table import FakeTable, load_doc
from tests.web.server import PIN, LiveServer, make_app
from tests.web.tables import demo_controller


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


@pytest.fixture
def app(table: object, tmp_path: Path):
    return make_app(table, tmp_path)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def auth() -> dict[str, str]:
    return {"X-Table-PIN": PIN}


@pytest.fixture
def live(app) -> Iterator[LiveServer]:
    server = LiveServer(app)
    yield server
    server.close()
