"""A player sets up their own game on the phone, in each rule system: a new game (the rule system, an empty
board, the players), a unit built from the fields the system declares (one changed from its default), the
army saved and its file exported, and a piece of the system's own terrain put on the board. What the page
shows is checked against the table's own state; at 320 px in Chromium, WebKit and Firefox the forms fit."""

from __future__ import annotations

import json
import urllib.request

import pytest

from tests.web.engines import NARROW, PHONE
from tests.web.server import PIN, LiveServer, make_app
from tests.web.tables import demo_controller

SYSTEMS = ["age_of_tyrants", "hex_skirmish", "synaptik", "syniad"]
MOVE = {"synaptik": "movement", "age_of_tyrants": "move", "syniad": "movement", "hex_skirmish": "movement"}
HEX = {"hex_skirmish", "syniad"}


@pytest.fixture
def table(tmp_path):
    controller = demo_controller(tmp_path)
    server = LiveServer(make_app(controller, tmp_path))
    yield controller, server
    server.close()
    controller.close()


SET = """([selector, value]) => { const e = document.querySelector(selector); e.value = value;
  e.dispatchEvent(new Event('change', { bubbles: true })); return e.value; }"""


def open_setup(engine, server, size):
    page = engine.open(server.url + "/#setup/game", size)
    return page


def see(page, selector: str, text: str) -> str:
    """What `selector` shows once the player scrolls to it."""
    page.wait("(s) => { const e = document.querySelector(s); e?.scrollIntoView({ block: 'center' }); return !!e; }",
              selector)
    return page.wait_text(selector, text)


def start_game(page, system: str) -> None:
    page.wait("(v) => !!document.querySelector(`#game-form select[name=ruleset] option[value=${v}]`)", system)
    assert page.js(SET, ["#game-form select[name=ruleset]", system]) == system
    page.wait("() => document.querySelector('#game-form select[name=scenario] option').textContent === "
              "'Empty board'")
    page.tap("#game-form button[type=submit]")
    page.wait_text("#confirm-text", f"start a new {system} game")
    page.tap("#confirm-dialog button[value=ok]")


def add_unit(page, move: str) -> None:
    page.js(SET, ["#unit-form input[name=id]", "blue"])
    page.js(SET, [f"#unit-stats [data-field={move}] input", "5"])
    if page.js("() => !document.getElementById('unit-weapon').hidden"):
        page.js(SET, ["#unit-weapon input[name=weapon]", "Gun"])
    page.tap("#unit-submit")


@pytest.mark.parametrize("engine", ["chromium"], indirect=True)
@pytest.mark.parametrize("system", SYSTEMS)
def test_a_new_game_a_unit_an_army_and_terrain_of_each_system_on_the_phone(engine, table, system):
    controller, server = table
    with open_setup(engine, server, PHONE) as page:
        page.js("(pin) => localStorage.setItem('smarttable-pin', pin)", PIN)
        start_game(page, system)
        page.wait("() => location.hash === '#setup/army'")
        page.wait(f"() => !!document.querySelector('#unit-form[data-system={system}] [data-field={MOVE[system]}]')")
        assert controller.snapshot().ruleset == system and controller.snapshot().scene["units"] == ()
        fields = page.js("() => [...document.querySelectorAll('#unit-stats [data-field]')].map((e) => e.dataset.field)")
        profile = next(r for r in json.load(urllib.request.urlopen(server.url + "/api/rulesets"))["rulesets"]
                       if r["name"] == system)["units"]
        assert fields == [f["name"] for f in profile["fields"] if f["place"] in ("stats", "unit")]
        add_unit(page, MOVE[system])
        see(page, "#unit-list", "blue")
        unit = next(u for u in controller.snapshot().scene["units"] if u["id"] == "blue")
        assert unit["stats"][MOVE[system]] == 5 and unit["player"] == "A"
        assert [m["unit"] for m in controller.snapshot().scene["models"]] == ["blue"] * profile["models"]["min"]
        if profile["weapons"]:
            assert [w["name"] for w in unit["weapons"]] == ["Gun"]

        page.js(SET, ["#army-save input[name=name]", "mine"])
        page.tap("#army-save button")
        page.wait("() => [...document.querySelectorAll('#army-saved option')].some((o) => o.value === 'mine')")
        saved = json.load(urllib.request.urlopen(server.url + "/api/armies/mine"))
        assert [u["id"] for u in saved["units"]] == ["blue"] and saved["ruleset"] == system
        exported = page.js("() => document.getElementById('army-export').href")
        assert [u["id"] for u in json.load(urllib.request.urlopen(exported))["units"]] == ["blue"]

        page.goto(server.url + "/#setup/terrain")
        page.wait("() => !document.getElementById('hex-form').hidden || "
                  "document.querySelectorAll('#traits input').length > 0")
        page.js("() => document.getElementById('terrain-board').scrollIntoView({ block: 'start' })")
        box = page.boxes("#terrain-board")[0]
        if system in HEX:
            options = page.js("() => [...document.querySelectorAll('#hex-terrain option')].map((o) => o.value)")
            assert "forest" in options and page.js("() => document.getElementById('terrain-form').hidden")
            page.js(SET, ["#hex-terrain", "forest"])
            page.tap_at(box["x"] + box["width"] * 0.3, box["y"] + box["height"] * 0.3)
            see(page, "#terrain-list", "forest")
        else:
            traits = page.js("() => [...document.querySelectorAll('#traits input')].map((o) => o.value)")
            assert "impassable" in traits and page.js("() => document.getElementById('hex-form').hidden")
            for fx, fy in ((0.2, 0.2), (0.4, 0.2), (0.3, 0.4)):
                page.tap_at(box["x"] + box["width"] * fx, box["y"] + box["height"] * fy)
            page.js(SET, ["#terrain-form input[name=id]", "rock"])
            page.tap("#traits input[value=impassable]")
            page.tap("#terrain-form button[type=submit]")
            see(page, "#terrain-list", "rock")
        page.tap("#save-terrain")
        page.wait_text("#toast", "Terrain saved")
        scene = controller.snapshot().scene
        if system in HEX:
            assert [h["terrain"] for h in scene["hexes"]] == ["forest"]
        else:
            assert [(t["id"], t["traits"]) for t in scene["terrain"]] == [("rock", ("impassable",))]
            assert len(scene["terrain"][0]["polygon"]) == 3
        assert page.errors() == []


@pytest.mark.parametrize("size", [NARROW])
def test_the_game_and_army_forms_fit_a_narrow_phone(engine, table, size):
    controller, server = table
    with open_setup(engine, server, size) as page:
        page.js("(pin) => localStorage.setItem('smarttable-pin', pin)", PIN)
        start_game(page, "age_of_tyrants")
        page.wait("() => !!document.querySelector('#unit-form[data-system=age_of_tyrants] [data-field=move]')")
        add_unit(page, "move")
        see(page, "#unit-list", "blue")
        wide = page.js("""() => [...document.querySelectorAll('#setup-army *')].filter((e) => {
          const r = e.getBoundingClientRect(); return r.width > 0 && r.right > innerWidth + 1; })
          .map((e) => e.tagName + '#' + e.id + '.' + e.className)""")
        assert wide == [] and page.js("() => document.documentElement.scrollWidth") <= size[0]
        assert controller.snapshot().scene["units"][0]["stats"]["move"] == 5
