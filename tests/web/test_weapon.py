"""The panel changes the weapon whose range bands the LEDs show (`POST /api/weapon`), on the real
controller: the reply, the state's selection, the LEDs and the `band` query agree."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.web.browser import needs_chromium
from tests.web.server import PIN, LiveServer, make_app
from tests.web.tables import demo_controller

SCENE = Path(__file__).resolve().parents[1] / "data" / "live" / "led-rules.json"   # us: Bayonet, Rifle, Pistol


@pytest.fixture
def panel(tmp_path):
    controller = demo_controller(tmp_path, scene=SCENE)
    yield controller, make_app(controller, tmp_path).test_client()
    controller.close()


def test_the_panel_switches_the_weapon_shown(panel, auth):
    table, client = panel
    assert client.post("/api/select", json={"id": "us-1"}, headers=auth).status_code == 200
    state = client.get("/api/state").get_json()
    assert state["selection"]["weapon"] == "Rifle" and state["selection"]["weapons"] == ["Rifle", "Pistol"]
    rifle_leds = state["leds"]
    reply = client.post("/api/weapon", json={"weapon": "Pistol"}, headers=auth)
    assert reply.status_code == 200
    assert reply.get_json()["result"] == {"unit": "us", "weapon": "Pistol", "weapons": ["Rifle", "Pistol"]}
    state = client.get("/api/state").get_json()
    # e1 is 11.3" from us-2: the Pistol's cold band (9-12"), as the query answers for that weapon
    query = client.get("/api/query/band?arg=us&arg=e1&arg=Pistol").get_json()["answer"]
    assert query["band"] == state["selection"]["bands"]["e1"] == "cold"
    assert state["selection"]["weapon"] == "Pistol" and state["leds"] != rifle_leds
    reply = client.post("/api/weapon", json={"weapon": None}, headers=auth)
    assert reply.get_json()["result"]["weapon"] == "Rifle"
    assert client.get("/api/state").get_json()["leds"] == rifle_leds


@pytest.mark.parametrize(("body", "status"), [({"weapon": 5}, 400), ({"weapon": ""}, 400),
                                              ({"weapon": "Bayonet"}, 409), ({"weapon": "Sword"}, 409),
                                              ({"gun": "Rifle"}, 400)])
def test_bad_weapons_name_the_field(panel, auth, body, status):
    _, client = panel
    client.post("/api/select", json={"id": "us-1"}, headers=auth)
    reply = client.post("/api/weapon", json=body, headers=auth)
    assert reply.status_code == status
    assert reply.get_json()["field"] == ("gun" if "gun" in body else "weapon")


def test_a_weapon_needs_a_selection_and_the_pin(panel, auth):
    _, client = panel
    assert client.post("/api/weapon", json={"weapon": "Pistol"}).status_code == 401
    reply = client.post("/api/weapon", json={"weapon": "Pistol"}, headers=auth)
    assert reply.status_code == 409 and "select a unit first" in reply.get_json()["error"]


@needs_chromium
def test_the_phone_shows_the_weapon_and_switches_it(panel, tmp_path, browser):
    table, _ = panel
    table.command("select", id="us-1")                 # as the table's buttons would
    server = LiveServer(make_app(table, tmp_path))
    context = browser.new_context(viewport={"width": 375, "height": 740})
    try:
        page = context.new_page()
        page.goto(server.url + "/")
        page.evaluate(f"localStorage.setItem('smarttable-pin', '{PIN}')")
        expect(page.locator("#table-sel")).to_contain_text("bands of Rifle")
        page.click("#next-weapon")
        expect(page.locator("#table-sel")).to_contain_text("bands of Pistol")
        assert table.snapshot().selection["weapon"] == "Pistol"
    finally:
        context.close()
        server.close()
