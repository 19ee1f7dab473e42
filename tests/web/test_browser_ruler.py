"""The shared ruler: one phone measures from a model to the board's edge, every phone shows the same
line and distance, and the LEDs light it. Real Chromium at a phone viewport and the real controller."""

from __future__ import annotations

import math

from playwright.sync_api import expect

from table.config import CONFIG_DIR
from table.live import highlight
from tests.web.browser import ARTIFACTS, BOARD_TO_SCREEN, PHONE, needs_chromium, tap_model
from tests.web.server import PIN, LiveServer, make_app
from tests.web.tables import demo_controller

pytestmark = needs_chromium


def test_a_ruler_from_a_model_to_the_edge_is_shared_by_every_phone_and_the_leds(browser, tmp_path):
    controller = demo_controller(tmp_path, led_layout=CONFIG_DIR / "leds" / "under-board-grid.toml")
    server = LiveServer(make_app(controller, tmp_path))
    phones = [browser.new_context(**PHONE) for _ in range(2)]
    try:
        mine, theirs = (context.new_page() for context in phones)
        for page in (mine, theirs):
            page.goto(server.url + "/")
            expect(page.locator("[data-model]").first).to_be_visible()
        mine.evaluate(f"localStorage.setItem('smarttable-pin', '{PIN}')")
        before = controller.snapshot().leds
        mine.click("#ruler-mode")
        expect(mine.locator("#ruler-mode")).to_have_text("Tap the first end")
        tap_model(mine, "rifles-1")                                        # (10, 40)
        expect(mine.locator("#ruler-mode")).to_have_text("Tap the other end")
        mine.touchscreen.tap(*mine.evaluate(BOARD_TO_SCREEN, [0.4, 20.0]))  # a finger on the left edge
        expected = f'Ruler: {math.hypot(10, 20):.2f}"'                      # to (0, 20): the edge itself
        for page in (mine, theirs):
            expect(page.locator("#ruler-text")).to_have_text(expected, timeout=5000)
            line = page.locator("#board line.ruler-line")
            expect(line).to_be_visible()
            ends = [float(line.get_attribute(a)) for a in ("x1", "y1", "x2", "y2")]
            assert ends == [10.0, 40.0, 0.0, 20.0]
        theirs.screenshot(path=str(ARTIFACTS / "panel-390-ruler.png"))
        leds = controller.snapshot().leds                                 # under the board: a chain of LEDs
        chain = controller.layout.chain((10.0, 40.0), (0.0, 20.0))
        assert len(chain) >= 3 and sum(leds[i] == highlight.RULER for i in chain) >= len(chain) - 1
        mine.click("#ruler-clear")
        for page in (mine, theirs):
            expect(page.locator("#board line.ruler-line")).to_have_count(0)
            expect(page.locator("#ruler-text")).to_have_text("")
        assert controller.snapshot().leds == before
    finally:
        for context in phones:
            context.close()
        server.close()
        controller.close()
