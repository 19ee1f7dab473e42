"""The panel in a real headless Chromium (Debian's, driven by Playwright) at a 375 px phone viewport,
served by waitress with the real demo controller."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from playwright.sync_api import expect

from tests.web.browser import ARTIFACTS, needs_chromium, tap_model
from tests.web.fake_table import DATA
from tests.web.server import PIN, LiveServer, make_app
from tests.web.tables import demo_controller

pytestmark = needs_chromium


def advance(url: str) -> dict:
    request = urllib.request.Request(url + "/api/phase/advance", data=b"{}", method="POST",
                                     headers={"X-Table-PIN": PIN, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def test_phone_panel_measures_and_follows_the_table(page, live, table):
    models = {m["id"] for m in table.snapshot().scene["models"]}
    expect(page.locator("[data-model]")).to_have_count(len(models))
    drawn = page.locator("[data-model]")
    assert {drawn.nth(i).get_attribute("data-model") for i in range(len(models))} == models
    assert page.evaluate("document.documentElement.scrollWidth") <= 375        # nothing wider than the phone

    tap_model(page, "rifles-1")                    # (10, 40)
    page.wait_for_selector("#info:not([hidden])")
    tap_model(page, "raiders-1")                   # (12, 8): 32.06" centre to centre
    page.wait_for_selector("#distance")
    assert page.inner_text("#distance") == '32.06"'
    info = page.inner_text("#info")
    assert "cold" in info and "blocked" in info and "crag" in info
    assert page.locator("line.sight.blocked").count() == 1
    assert page.locator("polygon.terrain.blocker[data-terrain='crag']").count() == 1

    seq = int(page.evaluate("document.body.dataset.seq"))
    assert "Initiative" in page.inner_text("#turn-text")
    reply = advance(live.url)                      # a change made elsewhere (buttons, another phone)
    expect(page.locator("#turn-text")).to_contain_text("Activations", timeout=5000)
    assert int(page.evaluate("document.body.dataset.seq")) >= reply["seq"] > seq
    assert "Player A" in page.inner_text("#whose")

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "panel-375.png"))


def test_next_phase_button_asks_for_the_pin_once(page, table):
    page.wait_for_selector("[data-model]")
    page.click("#next-phase")
    expect(page.locator("#confirm-text")).to_have_text("End the initiative phase and go to activations?")
    page.click("#confirm-dialog button[value=ok]")
    page.fill("#pin-input", PIN)
    page.click("#pin-dialog button[value=ok]")
    expect(page.locator("#turn-text")).to_contain_text("Activations")
    page.click("#next-phase")                      # the PIN is kept: no PIN dialog this time
    page.click("#confirm-dialog button[value=ok]")
    expect(page.locator("#turn-text")).not_to_contain_text("Activations")
    assert table.snapshot().phase["phase"] != "activations"


def test_dice_roller_knows_the_rule_system(page):
    page.wait_for_selector("[data-model]")
    page.click("#tabs a[href='#dice']")
    assert page.inner_text("#dice-system") == "Synaptik pool"
    assert page.locator("#dice-form .stepper").count() == 3          # d6, d8, d10


def test_terrain_editor_draws_a_piece_and_saves_it_to_the_table(page, table):
    page.wait_for_selector("[data-model]")
    page.goto(page.url.split("#")[0] + "#setup/terrain")
    board = page.locator("#terrain-board")
    box = board.bounding_box()
    scale = box["width"] / 48                       # the demo board is 48" wide
    for x, y in [(30, 30), (36, 30), (36, 34)]:     # three corners, in board inches
        # a whole pixel, the nearest: a mouse event's position is whole pixels, and one pixel is more than
        # half the editor's 0.25" step on this phone, so a truncated 0.9 px put (30, 30) at (30, 29.75)
        page.mouse.click(round(box["x"] + x * scale), round(box["y"] + y * scale))
    expect(page.locator("#terrain-board .draft-pt")).to_have_count(3)
    page.fill("#terrain-form input[name=id]", "ridge")
    page.fill("#terrain-form input[name=height]", "2")
    page.check("#traits input[value=heavy_cover]")
    page.click("#terrain-form button[type=submit]")
    expect(page.locator("#terrain-list li")).to_have_count(4)          # wood, bunker, crag + ridge
    page.click("#save-terrain")
    page.fill("#pin-input", PIN)
    page.click("#pin-dialog button[value=ok]")
    expect(page.locator("#toast")).to_contain_text("Terrain saved")
    ridge = next(t for t in table.snapshot().scene["terrain"] if t["id"] == "ridge")
    assert ridge["polygon"] == [[30, 30], [36, 30], [36, 34]]
    assert ridge["height"] == 2 and ridge["traits"] == ["heavy_cover"]


def test_hex_game_shows_the_grid_reach_and_path(browser, tmp_path):
    controller = demo_controller(tmp_path, scene=DATA / "demo_hex.json")     # Syniad on a hex grid
    server = LiveServer(make_app(controller, tmp_path))
    context = browser.new_context(viewport={"width": 375, "height": 740}, has_touch=True, is_mobile=True)
    try:
        page = context.new_page()
        page.goto(server.url + "/")
        expect(page.locator("[data-model]")).to_have_count(2)
        assert page.locator("polygon.hex.forest").count() == page.locator("polygon.hex.water").count() == 1
        assert page.locator("line.hexside.river").count() == 1
        tap_model(page, "a1")
        tap_model(page, "b1")
        expect(page.locator("#distance")).to_have_text("5 hexes")
        page.click("#units button:has-text('inf-1')")
        expect(page.locator("#info")).to_contain_text("can reach")
        reach = controller.ruleset().ask("moves", ["inf-1"])["reachable"]
        expect(page.locator("polygon.reach")).to_have_count(len(reach))
        far = max(reach, key=lambda r: r["cost"])
        hexagon = page.locator(f'polygon[data-hex="{far["hex"][0]},{far["hex"][1]}"]')
        hexagon.evaluate("(e) => e.scrollIntoView({block: 'center'})")   # clear of the sticky bar
        box = hexagon.bounding_box()
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        expect(page.locator("#info")).to_contain_text(f"cost{far['cost']}")
        assert page.locator("polyline.path").count() == 1
        page.screenshot(path=str(ARTIFACTS / "panel-375-hex.png"))
    finally:
        context.close()
        server.close()
        controller.close()


def test_a_pool_rolled_on_the_phone_is_rolled_and_logged_by_the_table(page, table):
    page.evaluate(f"localStorage.setItem('smarttable-pin', '{PIN}')")
    page.goto(page.url.split("#")[0] + "#dice")
    page.click("#dice-form .stepper:has-text('d8') button[aria-label='one d8 more']")   # 3d6 + 1d8
    page.click("#dice-form button[type=submit]")
    expect(page.locator("#dice-result .die")).to_have_count(4)
    roll = table.log_entries(0, 1000)[-1]
    assert roll["kind"] == "roll" and roll["params"]["d6"] == 3 and roll["params"]["d8"] == 1
    faces = page.locator("#dice-result .die b").all_inner_texts()
    assert [int(f) for f in faces] == [d["value"] for d in roll["result"]["dice"]]
    successes = sum(d["value"] >= 5 for d in roll["result"]["dice"])
    plural = "" if successes == 1 else "es"
    expect(page.locator("#dice-result .big")).to_have_text(f"{successes} success{plural}")


SYNIAD_COMBAT = Path(__file__).resolve().parents[1] / "data" / "live" / "syniad-combat.json"


def tap_hex(page, hex_: tuple[int, int]) -> None:
    """Tap the centre of a hex on the board (the hex overlay's polygon)."""
    hexagon = page.locator(f'#board polygon[data-hex="{hex_[0]},{hex_[1]}"]')
    hexagon.evaluate("(e) => e.scrollIntoView({block: 'center'})")   # clear of the sticky bar
    box = hexagon.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def test_a_syniad_combat_played_from_the_phone(browser, tmp_path):
    controller = demo_controller(tmp_path, scene=SYNIAD_COMBAT)   # inf-1 (A, 7) [1, 1]; inf-2 (B, 5) [3, 0]
    controller.command("syniad", action="select_unit", args=["inf-1"])
    controller.command("syniad", action="move", args=["2,0"])    # next to the enemy, as the camera would
    server = LiveServer(make_app(controller, tmp_path))
    context = browser.new_context(viewport={"width": 375, "height": 740}, has_touch=True, is_mobile=True)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(server.url + "/")
        page.evaluate(f"localStorage.setItem('smarttable-pin', '{PIN}')")
        expect(page.locator("#syniad")).to_contain_text("movement")
        page.click("#next-phase")
        page.click("#confirm-dialog button[value=ok]")
        expect(page.locator("#syniad")).to_contain_text("Combat Details")
        page.click("#syniad-actions button:has-text('Pick target hex')")
        tap_hex(page, (3, 0))
        expect(page.locator("#syniad")).to_contain_text("[3, 0]")
        expect(page.locator("#syniad")).to_contain_text("0 attacking · 5 defending")
        page.click("#syniad-actions button:has-text('Add inf-1')")
        expect(page.locator("#syniad")).to_contain_text("14 attacking · 5 defending")   # attackers double
        page.click("#syniad-actions button:has-text('Resolve')")
        expect(page.locator("#syniad")).to_contain_text("Last combat: [3, 0]")
        last = controller.snapshot().phase["syniad"]["last_result"]
        expect(page.locator("#syniad")).to_contain_text(f"{last['winner']} wins")
        expect(page.locator("#syniad-instructions li")).to_have_count(len(last["instructions"]))
        assert last["target"] == [3, 0] and last["attackers"] == ["inf-1"]
        texts = page.locator("#syniad-instructions li").all_inner_texts()
        assert texts == [i["text"] for i in controller.snapshot().phase["syniad"]["instructions"]]
        mismatches = controller.snapshot().phase["syniad"]["mismatches"]
        assert mismatches and page.locator("#syniad-mismatches li").all_inner_texts() == [
            m["text"] for m in mismatches]
        logged = [e for e in controller.log_entries(0, 1000) if e["kind"] == "syniad"]
        assert [e["action"] for e in logged][-4:] == ["select_target", "add_attacker", "select_target", "resolve"]
        page.screenshot(path=str(ARTIFACTS / "panel-375-syniad.png"))
        assert errors == []
    finally:
        context.close()
        server.close()
        controller.close()


def test_the_led_view_draws_each_led_where_it_stands(page, table):
    page.goto(page.url.split("#")[0] + "#setup/leds")
    layout = table.snapshot().status["led_layout"]["positions"]
    dots = page.locator("#led-board circle.led-at")
    expect(dots).to_have_count(len(layout))
    for index in (0, len(layout) // 3, len(layout) - 1):
        dot = dots.nth(index)
        assert [float(dot.get_attribute("cx")), float(dot.get_attribute("cy"))] == layout[index]
    colours = page.evaluate("[...document.querySelectorAll('#led-board circle.led-at')].map((c) => c.getAttribute('fill'))")
    assert colours == [f"rgb({r} {g} {b})" for r, g, b in table.snapshot().leds]
