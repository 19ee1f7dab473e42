"""The toy fifth rule system (tests/rule_systems/toy_duel, registered by tests/conftest.py) in the panel, in a
real Chromium at a phone: the settings form generated from its typed ruling options shows each option with its
control and value, a changed reach reaches the table (its state and its band answer), and the dice form made
from its dice kind shows its field and rolls a d12 whose result a player sees."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from tests.web.browser import PHONE, needs_chromium
from tests.web.server import PIN, LiveServer, make_app
from tests.web.tables import demo_controller

pytestmark = needs_chromium

TOY_SCENE = Path(__file__).resolve().parents[1] / "rule_systems" / "toy_duel" / "scene.json"
BAND = "fetch('/api/query/band?arg=red-1&arg=blue-1').then((r) => r.json()).then((j) => j.answer.band)"


def open_panel(browser, tmp_path: Path, hash_: str):
    controller = demo_controller(tmp_path, scene=TOY_SCENE)
    server = LiveServer(make_app(controller, tmp_path))
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(server.url + "/")
    page.evaluate(f"localStorage.setItem('smarttable-pin', '{PIN}')")
    page.goto(server.url + "/" + hash_)
    page.reload()
    return controller, server, context, page


def test_the_toy_settings_form_shows_its_options_and_a_change_reaches_the_table(browser, tmp_path):
    controller, server, context, page = open_panel(browser, tmp_path, "#setup/settings")
    try:
        select = page.locator("#settings-form select[name=ruleset]")
        expect(select.locator("option:checked")).to_have_text("Toy duel")
        reach = page.locator("#rulings label", has_text="reach")
        strict = page.locator("#rulings label", has_text="strict")
        expect(reach).to_be_visible()
        expect(strict).to_be_visible()
        number = reach.locator("input")
        assert number.get_attribute("type") == "number" and number.input_value() == "12"   # its default
        assert (number.get_attribute("min"), number.get_attribute("max")) == ("1", "48")
        box = strict.locator("input")
        assert box.get_attribute("type") == "checkbox" and not box.is_checked()
        assert page.evaluate(BAND) == "short"                    # 8" apart, within the 12" reach
        number.fill("6")
        page.click("#settings-form button[type=submit]")
        expect(page.locator("#toast")).to_contain_text("Settings saved")
        state = page.evaluate("fetch('/api/state').then((r) => r.json())")
        assert state["status"]["rulings"]["reach"] == 6
        assert page.evaluate(BAND) == "long"                     # 8" is beyond a 6" reach
        page.reload()
        expect(page.locator("#rulings label", has_text="reach").locator("input")).to_have_value("6")
    finally:
        context.close()
        server.close()
        controller.close()


def test_the_toy_dice_form_shows_its_field_and_a_roll_shows_the_result(browser, tmp_path):
    controller, server, context, page = open_panel(browser, tmp_path, "#dice")
    try:
        expect(page.locator("#dice-system")).to_have_text("Toy check (d12)")
        field = page.locator("#dice-form label", has_text="Target number")
        expect(field).to_be_visible()
        expect(field.locator("input")).to_have_value("7")                 # the field's initial value
        field.locator("input").fill("9")
        page.click("#dice-form button[type=submit]")
        expect(page.locator("#dice-result .die")).to_have_count(1)
        roll = controller.log_entries(0, 1000)[-1]
        assert roll["kind"] == "roll" and roll["params"]["target"] == 9
        die = roll["result"]["dice"][0]
        assert 1 <= die <= 12
        expect(page.locator("#dice-result .die b")).to_have_text(str(die))
        expect(page.locator("#dice-result .big")).to_have_text("hit" if die >= 9 else "miss")
    finally:
        context.close()
        server.close()
        controller.close()
