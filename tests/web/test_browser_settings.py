"""The settings form in every rule system, in a real Chromium at a phone and a tablet: opened directly
it shows the table's own rule system with an input of the right kind per ruling (checkbox, number with
its range, a choice list, a group of checkboxes for a list of choices); an unchanged save sends
nothing; a list ruling is saved as a list and the answers still come; hex skirmish settings save."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.web.browser import ARTIFACTS, PHONE, TABLET, needs_chromium, tap_model
from tests.web.server import PIN, LiveServer, make_app
from tests.web.tables import demo_controller

pytestmark = needs_chromium

DATA = Path(__file__).resolve().parents[1] / "data"
SCENES = {"synaptik": None, "age_of_tyrants": DATA / "age_of_tyrants" / "priority.json",
          "syniad": DATA / "live" / "syniad-combat.json", "hex_skirmish": DATA / "hex_skirmish" / "battle.json"}


def controller_for(system: str, folder: Path):
    scene = SCENES[system]
    controller = demo_controller(folder) if scene is None else demo_controller(folder, scene=scene)
    assert controller.snapshot().ruleset == system
    return controller


def open_settings(page, url: str) -> None:
    """A bookmark to the settings page, reloaded (the PIN kept on the phone from an earlier visit)."""
    page.goto(url + "/")
    page.evaluate(f"localStorage.setItem('smarttable-pin', '{PIN}')")
    page.goto(url + "/#setup/settings")
    page.reload()


def ruling(page, name: str):
    return page.locator(f"#rulings [name='ruling:{name}'], #rulings fieldset[data-name='ruling:{name}']").first


@pytest.mark.parametrize("device", [PHONE, TABLET], ids=["390", "820"])
@pytest.mark.parametrize("system", list(SCENES))
def test_settings_show_each_ruling_as_its_kind_and_an_unchanged_save_sends_nothing(browser, tmp_path,
                                                                                   system, device):
    controller = controller_for(system, tmp_path)
    server = LiveServer(make_app(controller, tmp_path))
    context = browser.new_context(**device)
    try:
        page = context.new_page()
        open_settings(page, server.url)
        declared = page.evaluate("fetch('/api/rulesets').then((r) => r.json())")["rulesets"]
        mine = next(r for r in declared if r["name"] == system)
        select = page.locator("#settings-form select[name=ruleset]")
        expect(select.locator("option:checked")).to_have_text(mine["title"])
        assert mine["options"], f"{system} declares no ruling options"
        width = device["viewport"]["width"]
        for option in mine["options"]:
            field = ruling(page, option["name"])
            field.scroll_into_view_if_needed()
            expect(field).to_be_visible()
            box = field.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, option["name"]
            tag, kind = field.evaluate("(n) => n.tagName.toLowerCase()"), option["kind"]
            if kind == "bool":
                assert field.get_attribute("type") == "checkbox"
                assert field.is_checked() == option["default"]
            elif kind == "choice":
                assert tag == "select"
                assert field.locator("option").count() == len(option["choices"])
                assert field.input_value() == option["default"]
            elif kind == "choices":
                assert tag == "fieldset"
                boxes = field.locator("input[type=checkbox]")
                assert boxes.count() == len(option["choices"])
                ticked = [boxes.nth(i).get_attribute("value") for i in range(boxes.count()) if boxes.nth(i).is_checked()]
                assert sorted(ticked) == sorted(option["default"])
                expect(field.locator("legend")).to_have_text(option["name"].replace("_", " "))
            else:
                assert field.get_attribute("type") == "number"
                if "minimum" in option:
                    assert float(field.get_attribute("min")) == option["minimum"]
                if option["optional"] and option["default"] is None:
                    assert field.input_value() == "" and field.get_attribute("placeholder") == "none"
                else:
                    assert float(field.input_value()) == option["default"]
        before = controller.snapshot()
        sent: list[str] = []
        page.on("request", lambda r: sent.append(r.url) if r.method != "GET" else None)
        page.click("#settings-form button[type=submit]")
        expect(page.locator("#toast")).to_contain_text("Nothing changed")
        after = controller.snapshot()
        assert sent == [] and after.seq == before.seq and after.status["rulings"] == before.status["rulings"]
        page.screenshot(path=str(ARTIFACTS / f"settings-{width}-{system}.png"), full_page=True)
    finally:
        context.close()
        server.close()
        controller.close()


def test_a_list_ruling_is_saved_as_a_list_and_sight_still_answers(browser, tmp_path):
    controller = controller_for("syniad", tmp_path)
    server = LiveServer(make_app(controller, tmp_path))
    context = browser.new_context(**PHONE)
    try:
        page = context.new_page()
        open_settings(page, server.url)
        assert controller.ruleset().ask("los", ["a1", "b1"])["blocked_by"] == ["hex[2,1]"]   # the forest
        group = ruling(page, "los_blocking")
        group.locator("input[value=forest]").uncheck()
        group.locator("input[value=water]").check()
        page.click("#settings-form button[type=submit]")
        expect(page.locator("#toast")).to_contain_text("Settings saved")
        saved = controller.snapshot().status["rulings"]["los_blocking"]
        assert sorted(saved) == ["mountain", "town", "water"]               # a list, never "mountain,..."
        answer = controller.ruleset().ask("los", ["a1", "b1"])
        assert answer["visible"]                                              # the forest no longer blocks
        page.goto(server.url + "/#board")
        expect(page.locator("[data-model]").first).to_be_visible()
        tap_model(page, "a1")
        tap_model(page, "b1")
        row = page.locator("#info dt", has_text="line of sight").locator("xpath=following-sibling::dd[1]")
        expect(row).to_have_text("clear" if answer["visible"] else "blocked")
    finally:
        context.close()
        server.close()
        controller.close()


def test_hex_skirmish_settings_save(browser, tmp_path):
    controller = controller_for("hex_skirmish", tmp_path)
    server = LiveServer(make_app(controller, tmp_path))
    context = browser.new_context(**PHONE)
    try:
        page = context.new_page()
        open_settings(page, server.url)
        ruling(page, "cover_hexsides").select_option("target")
        ruling(page, "max_group_size").fill("3")
        ruling(page, "difficult_terrain").locator("input[value=swamp]").uncheck()
        page.click("#settings-form button[type=submit]")
        expect(page.locator("#toast")).to_contain_text("Settings saved")
        rulings = controller.snapshot().status["rulings"]
        assert rulings["cover_hexsides"] == "target" and rulings["max_group_size"] == 3
        assert sorted(rulings["difficult_terrain"]) == ["forest", "mountain"]
        assert controller.snapshot().ruleset == "hex_skirmish"
        ruling(page, "max_group_size").fill("")                          # back to none
        page.evaluate("document.getElementById('toast').textContent = ''")   # the first save's toast gone
        page.click("#settings-form button[type=submit]")
        expect(page.locator("#toast")).to_contain_text("Settings saved")
        assert controller.snapshot().status["rulings"]["max_group_size"] is None
    finally:
        context.close()
        server.close()
        controller.close()
