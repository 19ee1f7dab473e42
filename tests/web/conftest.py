"""Fixtures for the panel's tests: a table controller, the app, and a live waitress server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.browser import ARGS, CHROMIUM, PHONE, require_chromium
from tests.web.engines import ENGINES, launch
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


@pytest.fixture(scope="module")
def browser():
    """One Debian Chromium per test module (each test opens contexts of its own); never for the whole
    session, as Playwright's sync API allows one instance at a time and other rooms start their own."""
    from playwright.sync_api import sync_playwright

    require_chromium()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def phone(browser):
    """A fresh phone (390x844, touch; its own storage); fails the test on any page error."""
    context = browser.new_context(**PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert errors == []


@pytest.fixture
def page(browser, live):
    """A fresh 375 px phone already on the panel served by `live`; fails the test on any page error."""
    context = browser.new_context(viewport={"width": 375, "height": 740}, device_scale_factor=2,
                                  has_touch=True, is_mobile=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(live.url + "/")
    yield page
    context.close()
    assert errors == []


@pytest.fixture(scope="module", params=ENGINES)
def engine(request):
    """One browser of each engine per test module (tests/web/engines.py): a test using it runs in Chromium,
    WebKit and Firefox; `@pytest.mark.parametrize("engine", ["webkit", "firefox"], indirect=True)` picks."""
    with launch(request.param) as browser:
        yield browser
