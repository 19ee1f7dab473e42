"""What a player sees stays true: answers follow the camera, the settings page shows the table's own
rule system and saving it unchanged changes nothing, the LED view is visible, and a lost connection
is unmissable. Real Chromium at a phone viewport; assertions on what is visible and readable."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.web.browser import (
    ARTIFACTS,
    BOARD_TO_SCREEN,
    PHONE,
    TABLET,
    double_tap_to_zoom,
    needs_chromium,
    tap_model,
)
from tests.web.server import PIN, LiveServer, make_app
from tests.web.tables import demo_controller
from vision.types import Frame, MarkerPose, MoveEvent, Observation

pytestmark = needs_chromium


class Camera:
    """The lowest layer: what the camera sees is whatever the test puts on the board."""

    def __init__(self) -> None:
        self.observation = Observation(0.0, True, {})
        self.seen: dict[int, tuple[float, float]] = {}

    def process(self, frame: Frame) -> Observation:
        return self.observation

    def see(self, markers: dict[int, tuple[float, float]]) -> None:
        """The markers where they stand now; the tracker's settled moves for those that moved."""
        poses = {m: MarkerPose(m, x, y, -90.0) for m, (x, y) in markers.items()}
        moves = tuple(MoveEvent(m, self.seen[m], at, math.dist(self.seen[m], at), 0.0)
                      for m, at in markers.items() if m in self.seen and self.seen[m] != at)
        self.seen = dict(markers)
        self.observation = Observation(0.0, True, poses, moves)


def show(controller, camera: Camera, markers: dict[int, tuple[float, float]], index: int) -> None:
    camera.see(markers)
    controller.process(Frame(np.zeros((8, 8), np.uint8), float(index), index))


def sight_line(page) -> list[float]:
    line = page.locator("#board line.sight")
    expect(line).to_be_visible()
    return [float(line.get_attribute(a)) for a in ("x1", "y1", "x2", "y2")]


def test_the_measurement_card_and_sight_line_follow_a_model_the_camera_moves(phone, tmp_path):
    camera = Camera()
    controller = demo_controller(tmp_path, pipeline=camera)
    markers = {m.marker: m.position for m in controller.state.scene.models if m.marker is not None}
    show(controller, camera, markers, 0)
    server = LiveServer(make_app(controller, tmp_path))
    try:
        phone.goto(server.url + "/")
        expect(phone.locator("[data-model]").first).to_be_visible()
        tap_model(phone, "rifles-1")                       # (10, 40)
        tap_model(phone, "raiders-1")                      # (12, 8)
        expect(phone.locator("#distance")).to_have_text('32.06"')
        assert sight_line(phone)[3] == pytest.approx(8.0, abs=0.6)
        raider = next(m.marker for m in controller.state.scene.models if m.id == "raiders-1")
        show(controller, camera, {**markers, raider: (12.0, 20.0)}, 1)   # a player moves the raider
        expected = math.dist((10.0, 40.0), (12.0, 20.0))
        expect(phone.locator("#distance")).to_have_text(f'{expected:.2f}"', timeout=5000)
        expect(phone.locator("#info")).to_be_visible()
        assert sight_line(phone)[3] == pytest.approx(20.0, abs=0.6)       # the line moved with the model
        ARTIFACTS.mkdir(exist_ok=True)
        phone.screenshot(path=str(ARTIFACTS / "panel-390-follows-camera.png"))
    finally:
        server.close()
        controller.close()


def test_the_unit_card_follows_the_camera(phone, tmp_path):
    camera = Camera()
    controller = demo_controller(tmp_path, pipeline=camera)
    markers = {m.marker: m.position for m in controller.state.scene.models if m.marker is not None}
    show(controller, camera, markers, 0)
    server = LiveServer(make_app(controller, tmp_path))
    try:
        phone.goto(server.url + "/")
        phone.locator("#units button", has_text="Rifle").first.click()
        expect(phone.locator("#info")).to_contain_text("coherent")
        rifle = next(m.marker for m in controller.state.scene.models if m.id == "rifles-3")
        show(controller, camera, {**markers, rifle: (20.0, 30.0)}, 1)   # one rifle wanders off
        expect(phone.locator("#info")).to_contain_text("out: ", timeout=5000)
        expect(phone.locator("#info")).to_contain_text("rifles-3")
    finally:
        server.close()
        controller.close()


def test_settings_opened_directly_show_the_table_and_an_unchanged_save_changes_nothing(browser, tmp_path):
    controller = demo_controller(tmp_path)
    server = LiveServer(make_app(controller, tmp_path))
    context = browser.new_context(**PHONE)
    try:
        page = context.new_page()
        page.goto(server.url + "/")
        page.evaluate(f"localStorage.setItem('smarttable-pin', '{PIN}')")
        for _ in range(6):                                  # a bookmark, reloaded: never another game
            page.goto(server.url + "/#setup/settings")
            page.reload()
            select = page.locator("#settings-form select[name=ruleset]")
            expect(select).to_be_visible()
            expect(select.locator("option:checked")).to_have_text("Synaptik Tactics")
        before = controller.snapshot()
        seq = before.seq
        page.click("#settings-form button[type=submit]")
        expect(page.locator("#toast")).to_contain_text("Nothing changed")
        after = controller.snapshot()
        assert after.seq == seq and after.phase == before.phase and after.status["rulings"] == {}
        assert page.locator("#settings-form input[name=brightness]").input_value() == str(
            after.status["brightness"])
    finally:
        context.close()
        server.close()
        controller.close()


def test_the_led_view_is_visible_on_a_phone(phone, tmp_path):
    controller = demo_controller(tmp_path)
    server = LiveServer(make_app(controller, tmp_path))
    try:
        phone.goto(server.url + "/#setup/leds")
        board = phone.locator("#led-board")
        expect(board).to_be_visible()
        box = board.bounding_box()
        assert box["width"] > 300 and box["height"] > 300 and box["x"] >= 0 and box["x"] + box["width"] <= 390
        dots = phone.locator("#led-board circle.led-at")
        expect(dots.first).to_be_visible()
        expect(dots.last).to_be_visible()
        phone.screenshot(path=str(ARTIFACTS / "panel-390-leds.png"))
    finally:
        server.close()
        controller.close()


def test_a_lost_connection_is_unmissable_and_changes_are_off(phone, tmp_path):
    controller = demo_controller(tmp_path)
    server = LiveServer(make_app(controller, tmp_path))
    try:
        phone.goto(server.url + "/")
        expect(phone.locator("[data-model]").first).to_be_visible()
        expect(phone.locator("#offline")).to_be_hidden()
        expect(phone.locator("#next-phase")).to_be_enabled()
        server.close()                                     # the table goes away (Wi-Fi, power)
        banner = phone.locator("#offline")
        expect(banner).to_be_visible(timeout=10000)
        expect(banner).to_contain_text("Offline")
        expect(phone.locator("#next-phase")).to_be_disabled()
        assert phone.locator("#live").get_attribute("aria-label").startswith("offline")
        phone.screenshot(path=str(ARTIFACTS / "panel-390-offline.png"))
    finally:
        controller.close()


PRIORITY = Path(__file__).resolve().parents[1] / "data" / "age_of_tyrants" / "priority.json"


def test_age_of_tyrants_targets_arcs_and_concealment_reach_the_phone(phone, tmp_path):
    controller = demo_controller(tmp_path, scene=PRIORITY)
    answer = controller.ruleset().ask("targets", ["bravo"])
    base = answer["bases"][0]
    server = LiveServer(make_app(controller, tmp_path))
    try:
        phone.goto(server.url + "/")
        phone.locator("#units button", has_text="Bravo Team").click()
        info = phone.locator("#info")
        expect(info).to_contain_text(f"bravo-1 → {base['target']}")          # not "none"
        phone.locator("#info details summary", has_text="not targetable").click()
        for excluded in base["excluded"]:
            expect(info).to_contain_text(f"{excluded['model']}: {excluded['reason']}")
        tap_model(phone, "bravo-1")
        tap_model(phone, "falx-rear")
        expect(phone.locator("#distance")).to_be_visible()
        expect(info).to_contain_text("outside the 180° arc")
        expect(info).to_contain_text("concealed")
        phone.screenshot(path=str(ARTIFACTS / "panel-390-aot-targets.png"))
    finally:
        server.close()
        controller.close()


SYNIAD = Path(__file__).resolve().parents[1] / "data" / "live" / "syniad-combat.json"


def test_a_question_the_rule_system_declines_is_a_dash_not_a_paragraph(phone, tmp_path):
    controller = demo_controller(tmp_path, scene=SYNIAD)
    server = LiveServer(make_app(controller, tmp_path))
    try:
        phone.goto(server.url + "/")
        expect(phone.locator("[data-model]").first).to_be_visible()
        tap_model(phone, "a1")
        tap_model(phone, "b1")
        expect(phone.locator("#distance")).to_contain_text("hexes")
        row = phone.locator("#info dd", has=phone.locator("details.declined"))
        expect(row.locator("small")).to_be_hidden()                     # the reason stays folded
        assert row.inner_text().strip() == "—"
        row.locator("summary").click()
        expect(row.locator("small")).to_be_visible()
        expect(row.locator("small")).to_contain_text("no range bands")
    finally:
        server.close()
        controller.close()


def view_width(page) -> float:
    return float(page.locator("#board").get_attribute("viewBox").split()[2])


def pinch(page, centre: tuple[float, float], start: float, end: float, steps: int = 8) -> None:
    """Two fingers on the screen spreading from `start` to `end` px apart (Chromium's touch input)."""
    cdp = page.context.new_cdp_session(page)
    cx, cy = centre

    def points(span: float) -> list[dict]:
        return [{"x": cx - span / 2, "y": cy, "id": 1}, {"x": cx + span / 2, "y": cy, "id": 2}]

    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": points(start)})
    for i in range(1, steps + 1):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove",
                                              "touchPoints": points(start + (end - start) * i / steps)})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_pinch_and_double_tap_zoom_and_the_whole_board_button(phone, tmp_path):
    controller = demo_controller(tmp_path)
    server = LiveServer(make_app(controller, tmp_path))
    try:
        phone.goto(server.url + "/")
        expect(phone.locator("[data-model]").first).to_be_visible()
        assert view_width(phone) == 48
        expect(phone.locator("#zoom-reset")).to_be_hidden()
        box = phone.locator("#board").bounding_box()
        pinch(phone, (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2), 60, 240)
        assert 9 < view_width(phone) < 20                      # fingers 4x apart: about 4x closer
        expect(phone.locator("#zoom-reset")).to_be_visible()
        phone.click("#zoom-reset")
        expect(phone.locator("#board")).to_have_attribute("viewBox", "0 0 48 48")
        sniper = phone.evaluate(BOARD_TO_SCREEN, [38.0, 6.0])
        double_tap_to_zoom(phone, *sniper)                    # zoom to the sniper's unit
        assert view_width(phone) <= 12
        centre = phone.evaluate(BOARD_TO_SCREEN, [38.0, 6.0])
        board = phone.locator("#board").bounding_box()
        assert board["x"] <= centre[0] <= board["x"] + board["width"]      # the unit is on screen
        phone.screenshot(path=str(ARTIFACTS / "panel-390-zoomed.png"))
    finally:
        server.close()
        controller.close()


def test_a_tap_between_close_models_asks_which_one(phone, tmp_path):
    controller = demo_controller(tmp_path)
    server = LiveServer(make_app(controller, tmp_path))
    try:
        phone.goto(server.url + "/")
        expect(phone.locator("[data-model]").first).to_be_visible()
        phone.touchscreen.tap(*phone.evaluate(BOARD_TO_SCREEN, [10.45, 40.0]))   # between rifles-1 and -2
        chooser = phone.locator("#info .chooser button")
        expect(chooser.first).to_be_visible()
        names = chooser.all_inner_texts()
        assert any(n.startswith("rifles-1") for n in names) and any(n.startswith("rifles-2") for n in names)
        assert all(chooser.nth(i).bounding_box()["height"] >= 44 for i in range(chooser.count()))
        chooser.filter(has_text="rifles-2").click()
        expect(phone.locator("#info h3")).to_contain_text("rifles-2")
    finally:
        server.close()
        controller.close()


def test_a_lone_model_is_a_44_px_target(phone, tmp_path):
    controller = demo_controller(tmp_path)
    server = LiveServer(make_app(controller, tmp_path))
    try:
        phone.goto(server.url + "/")
        expect(phone.locator("[data-model]").first).to_be_visible()
        x, y = phone.evaluate(BOARD_TO_SCREEN, [38.0, 6.0])                    # sniper-1
        phone.touchscreen.tap(x + 15, y + 12)                                   # 19 px off its centre
        expect(phone.locator("#info h3")).to_contain_text("sniper-1")
    finally:
        server.close()
        controller.close()


def test_next_phase_asks_first_and_undo_takes_it_back(phone, tmp_path):
    controller = demo_controller(tmp_path)
    server = LiveServer(make_app(controller, tmp_path))
    try:
        phone.goto(server.url + "/")
        phone.evaluate(f"localStorage.setItem('smarttable-pin', '{PIN}')")
        expect(phone.locator("#turn-text")).to_have_text("Initiative")
        phone.click("#next-phase")
        expect(phone.locator("#confirm-dialog")).to_be_visible()
        phone.click("#confirm-dialog button[value=cancel]")               # changed my mind: nothing happens
        expect(phone.locator("#confirm-dialog")).to_be_hidden()
        assert controller.snapshot().phase["phase"] == "initiative"
        phone.click("#next-phase")
        phone.click("#confirm-dialog button[value=ok]")
        expect(phone.locator("#turn-text")).to_have_text("Activations")
        phone.click("#undo")
        expect(phone.locator("#confirm-text")).to_have_text("Take back the last change?")
        phone.click("#confirm-dialog button[value=ok]")
        expect(phone.locator("#turn-text")).to_have_text("Initiative")
        assert controller.snapshot().phase["phase"] == "initiative"
        phone.goto(server.url + "/#log")
        log = phone.locator("#log li")
        expect(log.first).to_be_visible()
        expect(phone.locator("#log")).to_contain_text("Activations phase, turn 1, player A.")
        expect(phone.locator("#log")).to_contain_text("The last change was taken back.")
    finally:
        server.close()
        controller.close()


def test_a_new_warning_stays_on_screen_until_acknowledged(browser, tmp_path):
    camera = Camera()
    controller = demo_controller(tmp_path, pipeline=camera)
    markers = {m.marker: m.position for m in controller.state.scene.models if m.marker is not None}
    show(controller, camera, markers, 0)
    server = LiveServer(make_app(controller, tmp_path))
    context = browser.new_context(**PHONE)
    context.add_init_script("window.buzzes = []; navigator.vibrate = (p) => { window.buzzes.push(p); return true; };")
    try:
        page = context.new_page()
        page.goto(server.url + "/")
        page.evaluate(f"localStorage.setItem('smarttable-pin', '{PIN}')")
        expect(page.locator("[data-model]").first).to_be_visible()
        expect(page.locator("#alerts .alert")).to_have_count(0)
        rifle = next(m.marker for m in controller.state.scene.models if m.id == "rifles-3")
        show(controller, camera, {**markers, rifle: (20.0, 30.0)}, 1)   # out of cohesion
        alert = page.locator("#alerts .alert").first
        expect(alert).to_be_visible(timeout=5000)
        expect(alert).to_contain_text("cohesion")
        expect(alert).to_be_in_viewport()          # on screen, not below the fold (retried: the list re-renders)
        assert page.locator("#alerts").get_attribute("role") == "alert"
        assert page.evaluate("window.buzzes.length") == 1
        page.wait_for_timeout(4000)                                       # longer than a toast lasts
        expect(alert).to_be_visible()
        while page.locator("#alerts .alert").count():                     # each stays until acknowledged
            first = page.locator("#alerts .alert").first
            warning = first.get_attribute("data-warning")
            first.locator("button", has_text="Acknowledge").click()
            expect(page.locator(f'#alerts .alert[data-warning="{warning}"]')).to_have_count(0)
        assert all(w["acknowledged"] for w in controller.snapshot().warnings)
    finally:
        context.close()
        server.close()
        controller.close()


def test_a_tablet_shows_the_board_and_the_card_side_by_side(browser, tmp_path):
    controller = demo_controller(tmp_path)
    server = LiveServer(make_app(controller, tmp_path))
    context = browser.new_context(**TABLET)
    try:
        page = context.new_page()
        page.goto(server.url + "/")
        expect(page.locator("[data-model]").first).to_be_visible()
        tap_model(page, "rifles-1")
        tap_model(page, "raiders-1")
        expect(page.locator("#distance")).to_be_visible()
        board, card = page.locator("#board").bounding_box(), page.locator("#info").bounding_box()
        assert board["x"] + board["width"] <= card["x"]                   # beside, not below
        assert card["y"] < board["y"] + board["height"] / 2
        assert board["width"] > 400
        assert page.evaluate("document.documentElement.scrollWidth") <= 820
        page.screenshot(path=str(ARTIFACTS / "panel-820-tablet.png"))
    finally:
        context.close()
        server.close()
        controller.close()


def test_the_panel_installs_to_a_home_screen(phone, tmp_path):
    controller = demo_controller(tmp_path)
    server = LiveServer(make_app(controller, tmp_path))
    try:
        phone.goto(server.url + "/")
        href = phone.locator("link[rel=manifest]").get_attribute("href")
        manifest = phone.evaluate("(url) => fetch(url).then((r) => r.json())", href)
        assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
        icon = phone.evaluate("(url) => fetch(url).then((r) => r.status)", manifest["icons"][0]["src"])
        assert icon == 200
    finally:
        server.close()
        controller.close()
