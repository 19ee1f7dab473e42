"""Dispute bookmarks as a player and a judge see them, in a real Chromium: a phone taps two models and then
Bookmark; the Log page lists the bookmark with the answer the card showed; its export, saved and opened
with the network cut off, shows the camera's pictures (decoded: naturalWidth > 0), its own styles (allowed by
the page's hash-only policy) and the answer, and asks for nothing from the network."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from table.config import load_config
from tests.web.browser import ARTIFACTS, PHONE, needs_chromium, tap_model
from tests.web.server import PIN, LiveServer, make_app
from tests.web.tables import demo_controller
from vision.pipeline import VisionPipeline
from vision.sources import SyntheticSource
from vision.synthetic_scene import from_scene

pytestmark = needs_chromium

IMAGES = """() => [...document.images].map((i) => [i.complete, i.naturalWidth, i.getBoundingClientRect().width])"""


@pytest.fixture
def seen_table(tmp_path):
    """The demo table after the rendered camera's first frames: calibrated, every model seen."""
    config = load_config()
    controller = demo_controller(tmp_path, pipeline=VisionPipeline(config))
    camera = SyntheticSource(config, from_scene(controller.state.scene, config), realtime=False)
    for _ in range(4):
        controller.process(camera.read())
    assert controller.snapshot().status["calibration"] == "ok"
    server = LiveServer(make_app(controller, tmp_path))
    yield server
    server.close()
    controller.close()


def test_tap_bookmark_list_it_and_open_its_export_offline(browser, seen_table, tmp_path):
    context = browser.new_context(**PHONE)
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(seen_table.url + "/")
        page.evaluate(f"localStorage.setItem('smarttable-pin', '{PIN}')")
        expect(page.locator("[data-model]")).to_have_count(8)
        tap_model(page, "rifles-1")
        expect(page.locator("#info")).to_contain_text("cohesion")     # the unit's card, all asked
        page.evaluate("window.scrollTo(0, 0)")      # raiders-1 stands near the top edge: clear of the sticky bar
        tap_model(page, "raiders-1")
        distance = page.locator("#distance")
        # the camera's error bar; the card's sight line with the camera's error takes seconds on a loaded machine
        expect(distance).to_contain_text(" ± ", timeout=30_000)
        shown = distance.inner_text()
        page.locator("#bookmark").tap()
        expect(page.locator("#toast")).to_contain_text("Bookmarked", timeout=30_000)
        page.goto(seen_table.url + "/#log")
        entry = page.locator("#bookmarks li[data-bookmark='1']")
        expect(entry).to_be_visible()
        expect(entry.locator(".bookmark-answer")).to_have_text(shown)
        expect(entry).to_contain_text("Bookmark 1: distance rifles-1 → raiders-1")
        expect(page.locator("#log li[data-kind='bookmark']")).to_contain_text(f"Bookmark 1: distance rifles-1 → "
                                                                              f"raiders-1, {shown}")
        # the shared ruler, laid by another phone: its Bookmark button keeps it
        laid = page.request.post(seen_table.url + "/api/ruler", data={"from": [1, 1], "to": [4, 5]},
                                 headers={"X-Table-PIN": PIN})
        assert laid.ok
        page.goto(seen_table.url + "/#board")
        page.locator("#ruler-bookmark").tap()
        expect(page.locator("#toast")).to_contain_text("Bookmarked", timeout=30_000)
        page.goto(seen_table.url + "/#log")
        expect(page.locator("#bookmarks li[data-bookmark='2']")).to_contain_text('ruler (1.0, 1.0) → (4.0, 5.0)5.00"')
        page.screenshot(path=str(ARTIFACTS / "bookmarks-list.png"))
        link = entry.get_by_role("link", name="Export")
        expect(link).to_be_visible()
        with page.expect_download() as download:
            link.tap()
        saved = tmp_path / "judge" / "bookmark-1.html"
        download.value.save_as(saved)
    finally:
        context.close()
    assert errors == []

    offline = browser.new_context(offline=True, viewport={"width": 1000, "height": 1400})
    try:
        page = offline.new_page()
        asked: list[str] = []
        page.on("request", lambda request: asked.append(request.url))
        blocked: list[str] = []
        page.on("console", lambda message: blocked.append(message.text) if message.type == "error" else None)
        page.goto(saved.as_uri())
        expect(page.locator("#answer")).to_have_text(shown)
        expect(page.locator("#answer")).to_be_visible()
        images = page.evaluate(IMAGES)
        assert len(images) == 3                                 # a crop round each model, the whole frame
        assert all(complete and natural > 0 and width > 0 for complete, natural, width in images), images
        expect(page.locator(".pic svg polygon")).to_have_count(6)      # each picture: both bases drawn
        weight = page.evaluate("getComputedStyle(document.getElementById('answer')).fontWeight")
        assert weight == "700"                                  # the style block ran under the page's own CSP
        assert [u for u in asked if not u.startswith("data:")] == [saved.as_uri()]
        assert blocked == []                                    # nothing refused by the policy
        page.screenshot(path=str(ARTIFACTS / "bookmark-export.png"), full_page=True)
    finally:
        offline.close()
