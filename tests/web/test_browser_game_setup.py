"""A player sets up their own game on the phone, in each rule system: a new game (the rule system, an empty
board, the players), a unit built from the fields the system declares (one changed from its default), the
army saved and its file exported, and a piece of the system's own terrain put on the board. What the page
shows is checked against the table's own state; at 320 px in Chromium, WebKit and Firefox the forms fit."""

from __future__ import annotations

import json
import urllib.request
from contextlib import contextmanager

import pytest

from tests.web.browser import BOARD_TO_SCREEN
from tests.web.engines import NARROW, PHONE
from tests.web.server import PIN, LiveServer, make_app
from tests.web.setup_pages import HEX, MOVE, SET, add_unit, see, start_game
from tests.web.tables import demo_controller

SYSTEMS = ["age_of_tyrants", "hex_skirmish", "synaptik", "syniad"]


@pytest.fixture
def table(tmp_path):
    controller = demo_controller(tmp_path)
    server = LiveServer(make_app(controller, tmp_path))
    yield controller, server
    server.close()
    controller.close()


@contextmanager
def open_setup(engine, server, size):
    """The set-up page on a phone that holds the table's PIN (as a player's phone does once typed)."""
    with engine.open(server.url + "/#setup/game", size) as page:
        page.js("(pin) => localStorage.setItem('smarttable-pin', pin)", PIN)
        yield page


@pytest.mark.parametrize("engine", ["chromium"], indirect=True)
@pytest.mark.parametrize("system", SYSTEMS)
def test_a_new_game_a_unit_an_army_and_terrain_of_each_system_on_the_phone(engine, table, system):
    controller, server = table
    with open_setup(engine, server, PHONE) as page:
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
        start_game(page, "age_of_tyrants")
        page.wait("() => !!document.querySelector('#unit-form[data-system=age_of_tyrants] [data-field=move]')")
        add_unit(page, "move")
        see(page, "#unit-list", "blue")
        wide = page.js("""() => [...document.querySelectorAll('#setup-army *')].filter((e) => {
          const r = e.getBoundingClientRect(); return r.width > 0 && r.right > innerWidth + 1; })
          .map((e) => e.tagName + '#' + e.id + '.' + e.className)""")
        assert wide == [] and page.js("() => document.documentElement.scrollWidth") <= size[0]
        assert controller.snapshot().scene["units"][0]["stats"]["move"] == 5


@pytest.mark.parametrize("engine", ["chromium"], indirect=True)
def test_the_army_of_the_player_chosen_is_saved_though_the_table_changed_meanwhile(engine, table):
    controller, server = table
    with open_setup(engine, server, PHONE) as page:
        page.goto(server.url + "/#setup/army")
        page.wait("() => !!document.querySelector(\"#army-player option[value='B']\")")
        page.js(SET, ["#army-player", "B"])
        page.js("() => { for (const o of document.getElementById('army-player').options) o.dataset.old = '1'; }")
        seq = controller.snapshot().seq
        advance = urllib.request.Request(server.url + "/api/phase/advance", data=b"{}", method="POST",
                                         headers={"X-Table-PIN": PIN, "Content-Type": "application/json"})
        urllib.request.urlopen(advance).close()          # another phone changes the table meanwhile
        page.wait("(seq) => window.smarttable.state?.seq > seq", seq)
        page.wait("() => !document.querySelector('#army-player option').dataset.old")   # the list drawn again
        assert page.js("() => document.getElementById('army-player').value") == "B"
        page.js(SET, ["#army-save input[name=name]", "theirs"])
        page.tap("#army-save button")
        page.wait_text("#toast", "Army theirs saved")
        saved = json.load(urllib.request.urlopen(server.url + "/api/armies/theirs"))
        assert saved["player"] == "B" and [u["id"] for u in saved["units"]] == ["raiders", "sniper"]


@pytest.mark.parametrize("engine", ["chromium"], indirect=True)
def test_the_board_drawn_is_saved_as_a_scenario_for_a_new_game(engine, table):
    controller, server = table
    with open_setup(engine, server, PHONE) as page:
        page.goto(server.url + "/#setup/terrain")
        page.wait("() => document.querySelectorAll('#traits input').length > 0")
        before = [t["id"] for t in controller.snapshot().scene["terrain"]]
        page.js("() => document.getElementById('terrain-board').scrollIntoView({ block: 'center' })")
        for x, y in ((40, 40), (44, 40), (42, 44)):
            page.tap_at(*page.js(BOARD_TO_SCREEN, [x, y, "terrain-board"]))
        page.js(SET, ["#terrain-form input[name=id]", "crater"])
        page.tap("#traits input[value=difficult]")
        page.tap("#terrain-form button[type=submit]")
        see(page, "#terrain-list", "crater")           # drawn, not saved to the table: the scenario saves it
        page.js(SET, ["#scenario-form input[name=name]", "crater-field"])
        page.tap("#scenario-form button")
        page.wait_text("#toast", "Scenario saved as crater-field")
        saved = json.load(urllib.request.urlopen(server.url + "/api/scenarios/crater-field"))
        assert saved["format"] == "smarttable-scenario/1" and saved["ruleset"] == "synaptik"
        assert [t["id"] for t in saved["terrain"]] == [*before, "crater"]
        assert saved["terrain"][-1]["polygon"] == [[40, 40], [44, 40], [42, 44]]
        assert saved["terrain"][-1]["traits"] == ["difficult"]
        assert [t["id"] for t in controller.snapshot().scene["terrain"]] == [*before, "crater"]
        page.goto(server.url + "/#setup/game")
        page.wait("() => [...document.querySelectorAll('#game-form select[name=scenario] option')]"
                  ".some((o) => o.value === 'crater-field')")
