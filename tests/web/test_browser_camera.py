"""The camera page as a player reads it, in a real Chromium at a phone and a tablet: whether the camera
sees the board, how many models it sees (and which it does not), calibration, the last problem; the
developer counters folded away. The camera here is whatever the test puts in front of it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.web.browser import ARTIFACTS, PHONE, TABLET, needs_chromium
from tests.web.server import LiveServer, make_app
from tests.web.tables import demo_controller
from tests.web.test_browser_truth import Camera, show
from vision.types import Frame, Observation

pytestmark = needs_chromium


def row(page, name: str):
    return page.locator(f"#camera-summary dd[data-row='{name}']")


@contextmanager
def camera_page(browser, controller, tmp_path, device=PHONE) -> Iterator:
    """The panel's camera page for `controller` at a device's size; the table closed after."""
    server = LiveServer(make_app(controller, tmp_path))
    context = browser.new_context(**device)
    try:
        page = context.new_page()
        page.goto(server.url + "/#setup/camera")
        yield page
    finally:
        context.close()
        server.close()
        controller.close()


@pytest.mark.parametrize("device", [PHONE, TABLET], ids=["390", "820"])
def test_the_camera_page_says_what_a_player_needs(browser, tmp_path, device):
    camera = Camera()
    controller = demo_controller(tmp_path, pipeline=camera)
    models = [m for m in controller.state.scene.models if m.marker is not None]
    hidden = models[:2]                                       # two models the camera cannot see
    show(controller, camera, {m.marker: m.position for m in models[2:]}, 0)
    with camera_page(browser, controller, tmp_path, device) as page:
        expect(row(page, "Seeing the board?")).to_have_text("✓ Yes")
        seen = row(page, "Models seen")
        expect(seen).to_contain_text(f"{len(models) - 2} of {len(models)} (not seen: ")
        for model in hidden:
            expect(seen).to_contain_text(model.id)
        expect(row(page, "Calibration")).to_contain_text("✓ OK")
        expect(row(page, "Last problem")).to_have_text("✓ None")
        for name in ("Seeing the board?", "Models seen", "Calibration", "Last problem"):
            expect(row(page, name)).to_be_in_viewport()
        counters = page.locator("#status")
        expect(counters).to_be_hidden()                       # developer counters folded away
        page.screenshot(path=str(ARTIFACTS / f"camera-{device['viewport']['width']}-player.png"))
        page.locator("#status-details summary").click()
        expect(counters).to_be_visible()
        expect(counters).to_contain_text("frames")
        camera.observation = Observation(1.0, False, {})      # the board's corners out of view
        controller.process(Frame(np.zeros((8, 8), np.uint8), 1.0, 1))
        expect(row(page, "Seeing the board?")).to_contain_text("✗ No: it cannot find the board")
        expect(row(page, "Calibration")).to_contain_text("✗ Not calibrated")
        page.screenshot(path=str(ARTIFACTS / f"camera-{device['viewport']['width']}-no-board.png"))


def test_the_camera_page_shows_the_lens_as_the_board_shows_it(browser, tmp_path):
    # the real pipeline on the demo board through the simulated camera, its config naming no lens
    from table.config import load_config
    from vision.pipeline import VisionPipeline
    from vision.sources import SyntheticSource
    from vision.synthetic_scene import from_scene

    config = load_config()
    controller = demo_controller(tmp_path, pipeline=VisionPipeline(config))
    source = SyntheticSource(config, from_scene(controller.state.scene, config), realtime=False)
    for _ in range(4):
        controller.process(source.read())
    with camera_page(browser, controller, tmp_path) as page:
        lens = row(page, "Lens")
        expect(lens).to_contain_text("✓ Estimated from the board: 8 markers, residual 0.")
        expect(lens).to_contain_text("k1 ")
        expect(lens).to_be_in_viewport()
        focus = row(page, "Focus")  # the demo's square markers: the blur is shown, nothing to fail
        expect(focus).to_contain_text("✓ Measured: edges blurred 0.")
        page.screenshot(path=str(ARTIFACTS / "camera-390-lens.png"))


def test_the_camera_page_says_when_the_lens_is_out_of_focus_for_the_stickers(browser, tmp_path):
    """The blur the last full pass measured against what the smallest ring stickers read to (vision/focus.py)."""
    camera = Camera()
    controller = demo_controller(tmp_path, pipeline=camera)
    models = [m for m in controller.state.scene.models if m.marker is not None]
    show(controller, camera, {m.marker: m.position for m in models}, 0)
    with camera_page(browser, controller, tmp_path) as page:
        focus = row(page, "Focus")
        expect(focus).to_have_text("… Not measured yet")
        for blur, text in ((0.93, "✓ Sharp enough: edges blurred 0.9 px (25 mm stickers read to 1.6 px)"),
                           (2.07, "✗ Out of focus: edges blurred 2.1 px, and 25 mm stickers read to 1.6 px: "
                                  "turn the lens's focus ring until the corner markers are sharpest")):
            camera.observation = Observation(2.0, True, {}, focus={"blur_px": blur, "sticker_base_mm": 25.0,
                                                                  "sticker_limit_px": 1.63})
            controller.process(Frame(np.zeros((8, 8), np.uint8), 2.0, 2))
            expect(focus).to_have_text(text)
        expect(focus).to_be_in_viewport()
        page.screenshot(path=str(ARTIFACTS / "camera-390-out-of-focus.png"))
