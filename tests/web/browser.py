"""Helpers for the panel's browser tests: Debian's Chromium (never a downloaded build) driven by
Playwright, the devices they play on, and taps where a thumb would land. The `browser`, `phone` and
`page` fixtures are in conftest.py."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

# SMARTTABLE_CHROMIUM names another Debian chromium binary (tests/web/test_chromium_missing.py names none)
CHROMIUM = os.environ.get("SMARTTABLE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "has_touch": True, "is_mobile": True}
TABLET = {"viewport": {"width": 820, "height": 1180}, "device_scale_factor": 2, "has_touch": True, "is_mobile": True}

CHROMIUM_ABSENT = f"Debian's chromium is not installed at {CHROMIUM} (apt-get install chromium)"
# Locally a browser test skips, saying why, where there is no Chromium; under CI=true it runs and its
# `browser` fixture fails with that reason (require_chromium), as the tests that need ../shared do.
needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists() and os.environ.get("CI") != "true",
                                    reason=CHROMIUM_ABSENT)


def require_chromium() -> None:
    """Fail (under CI=true) or skip the test, saying why, when Debian's Chromium is not there."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail(CHROMIUM_ABSENT, pytrace=False)
        pytest.skip(CHROMIUM_ABSENT)

TO_SCREEN = """(id) => {
  const svg = document.getElementById("board");
  const model = window.smarttable.state.scene.models.find((m) => m.id === id);
  const point = svg.createSVGPoint();
  point.x = model.x; point.y = model.y;
  const screen = point.matrixTransform(svg.getScreenCTM());
  return [screen.x, screen.y];
}"""

# a board point [x, y] (inches) on the screen; a third element names another board drawing (the replay's)
BOARD_TO_SCREEN = """([x, y, svgId]) => {
  const svg = document.getElementById(svgId || "board");
  const point = svg.createSVGPoint();
  point.x = x; point.y = y;
  const screen = point.matrixTransform(svg.getScreenCTM());
  return [screen.x, screen.y];
}"""


def tap_model(page, model_id: str) -> None:
    """Tap where the model stands (its board position on the screen), as a thumb would."""
    page.touchscreen.tap(*page.evaluate(TO_SCREEN, model_id))


def tap_board(page, x: float, y: float) -> None:
    """Tap the board at (x, y) inches."""
    page.touchscreen.tap(*page.evaluate(BOARD_TO_SCREEN, [x, y]))


def double_tap_to_zoom(page, x: float, y: float, tries: int = 3) -> None:
    """Double-tap the screen point (x, y) until the board zooms (its "Whole board" button shows): a loaded
    machine can send the two taps too far apart to be a double tap. Fails if no double tap zooms."""
    from playwright.sync_api import expect

    for _ in range(tries):
        page.touchscreen.tap(x, y)
        page.touchscreen.tap(x, y)
        try:
            expect(page.locator("#zoom-reset")).to_be_visible(timeout=3000)
            return
        except AssertionError:
            continue
    expect(page.locator("#zoom-reset")).to_be_visible()
