"""The LEDs say what the rules say (issue 17): enemy markers measured from the unit, the weapon shown,
sight lines as chains of LEDs, and band boundaries given to the nearer band, on every shipped layout.
Expected values are worked by hand from the scene (tests/data/live/led-rules.json) and the rules."""

from __future__ import annotations

import math
import time
from dataclasses import replace

import pytest

from table.config import CONFIG_DIR
from table.errors import QueryError
from table.hw import TableHardware
from table.hw.pinmap import load_pin_map
from table.hw.strip import ColourCorrection, MockStrip
from table.live import highlight as hl
from table.live.leds import load_layout, parse_layout
from table.scene import load_scene, parse_scene, scene_to_dict
from tests.live.live_fakes import DATA

LAYOUTS = sorted((CONFIG_DIR / "leds").glob("*.toml"))
GRID = CONFIG_DIR / "leds" / "under-board-grid.toml"
HOT, STANDARD, COLD = (hl.BAND_COLOURS[b] for b in ("hot", "standard", "cold"))


@pytest.fixture
def rules_scene():
    return load_scene(DATA / "led-rules.json")


def marker(c, model_id):
    return c.hw.strip.last[c.layout.nearest(c.state.scene.model(model_id).position)]


def model_leds(c):
    return {c.layout.nearest(m.position) for m in c.state.scene.models}


def leds_within(c, low, high, unit="us"):
    """LEDs (not marking a model) whose distance to the unit's nearest model centre is in [low, high]."""
    centres = [m.position for m in c.state.scene.models_of(unit)]
    return [i for i, p in enumerate(c.layout.positions) if i not in model_leds(c)
            and low <= min(math.dist(p, q) for q in centres) <= high]


@pytest.mark.parametrize("path", LAYOUTS, ids=lambda p: p.stem)
def test_enemy_markers_are_measured_from_the_unit(make_controller, rules_scene, path):
    c = make_controller(scene=rules_scene, layout=load_layout(path))
    c.command("select", id="us-1")
    # e1 (38, 32) is 29.1" from the selected us-1 (10, 40) but 11.3" from us-2 (30, 40): the unit is
    # in the Rifle's hot band (0-12"), as `band us e1` answers
    assert c.ruleset().ask("band", ["us", "e1"])["band"] == "hot"
    assert c.snapshot().selection["bands"]["e1"] == "hot"
    assert marker(c, "e1") == HOT
    # e2 (8, 20) is 20.1" from us-1 and 29.7" from us-2: standard
    assert c.snapshot().selection["bands"]["e2"] == "standard" and marker(c, "e2") == STANDARD


@pytest.mark.parametrize("path", LAYOUTS, ids=lambda p: p.stem)
def test_a_first_weapon_without_bands_still_shows_the_rifles_bands(make_controller, rules_scene, path):
    c = make_controller(scene=rules_scene, layout=load_layout(path))
    c.command("select", id="us-1")
    hot = leds_within(c, 0, 11.5)
    standard = leds_within(c, 12.5, 23.5)
    assert hot and standard
    assert {c.hw.strip.last[i] for i in hot} == {HOT}
    assert {c.hw.strip.last[i] for i in standard} == {STANDARD}
    assert c.snapshot().selection["weapon"] == "Rifle"           # the first weapon with bands
    assert c.snapshot().selection["weapons"] == ["Rifle", "Pistol"]


@pytest.mark.parametrize("path", LAYOUTS, ids=lambda p: p.stem)
def test_the_weapon_shown_can_be_changed(make_controller, rules_scene, path):
    c = make_controller(scene=rules_scene, layout=load_layout(path))
    c.command("select", id="us-1")
    assert c.command("weapon", weapon="Pistol") == {"unit": "us", "weapon": "Pistol",
                                                     "weapons": ["Rifle", "Pistol"]}
    # the Pistol: hot 0-6", standard 6-9", cold 9-12"; e1 is 11.3" from us-2
    assert c.ruleset().ask("band", ["us", "e1", "Pistol"])["band"] == "cold"
    assert c.snapshot().selection["weapon"] == "Pistol" and c.snapshot().selection["bands"]["e1"] == "cold"
    assert marker(c, "e1") == COLD
    assert {c.hw.strip.last[i] for i in leds_within(c, 6.5, 8.9)} == {STANDARD}
    assert {c.hw.strip.last[i] for i in leds_within(c, 12.5, 40)} == {hl.OFF}   # past the Pistol's reach
    with pytest.raises(QueryError, match="'Bayonet' of unit 'us' has no range bands"):
        c.command("weapon", weapon="Bayonet")
    c.command("undo")
    assert c.snapshot().selection["weapon"] == "Rifle" and marker(c, "e1") == HOT


def test_holding_next_phase_shows_the_next_weapon(layout, factory, make_controller, rules_scene):
    pins = replace(load_pin_map(CONFIG_DIR / "pins-pi4.toml"), hold_s=0.05)
    hardware = TableHardware(pins, MockStrip(ColourCorrection(len(layout))), factory, mock=True)
    c = make_controller(hardware=hardware, scene=rules_scene)
    c.command("select", id="us-1")
    phase = c.state.phase_dict()
    pin = c.hw.buttons["next_phase"].pin
    pin.drive_low()
    deadline = time.monotonic() + 2.0
    while c.snapshot().selection["weapon"] != "Pistol" and time.monotonic() < deadline:
        time.sleep(0.01)
    pin.drive_high()
    assert c.snapshot().selection["weapon"] == "Pistol" and marker(c, "e1") == COLD
    assert c.state.phase_dict() == phase              # a long press does not do the short press's job too


def _boundary_scene(layout):
    """One model 12" (the Rifle's hot/standard boundary) from an LED that marks no model: (scene, LED)."""
    for i, p in enumerate(layout.positions):
        for k in range(24):
            angle = math.radians(15 * k)
            x, y = p[0] + 12 * math.cos(angle), p[1] + 12 * math.sin(angle)
            if 1 <= x <= 47 and 1 <= y <= 47 and layout.nearest((x, y)) != i:
                doc = scene_to_dict(load_scene(DATA / "led-rules.json"))
                doc["models"] = [{"id": "us-1", "unit": "us", "x": x, "y": y}]
                doc["units"][0]["weapons"] = doc["units"][0]["weapons"][1:]      # the Rifle first
                return parse_scene(doc, "boundary"), i
    raise AssertionError("no LED 12\" from a board point")


@pytest.mark.parametrize("path", LAYOUTS, ids=lambda p: p.stem)
def test_an_led_on_a_band_boundary_takes_the_nearer_band(make_controller, path):
    layout = load_layout(path)
    scene, led = _boundary_scene(layout)
    c = make_controller(scene=scene, layout=layout)
    c.command("select", id="us-1")
    assert math.dist(layout.positions[led], scene.model("us-1").position) == pytest.approx(12, abs=1e-9)
    assert c.hw.strip.last[led] == HOT          # Synaptik: a distance on a boundary is the nearer band


def _line_scene(terrain=()):
    """us-1 at (4.5, 3) sights e1 at (43.5, 3): a line 1.5" from the 3" grid's rows y = 1.5 and 4.5."""
    doc = scene_to_dict(load_scene(DATA / "led-rules.json"))
    doc["models"] = [{"id": "us-1", "unit": "us", "x": 4.5, "y": 3.0},
                     {"id": "e1", "unit": "them", "x": 43.5, "y": 3.0}]
    doc["terrain"] = list(terrain)
    return parse_scene(doc, "sight line")


def _grid(pitch):
    n = int(47 // pitch)
    return parse_layout({"name": f"grid {pitch}", "grid": [{"origin": [pitch / 2, pitch / 2], "pitch": pitch,
                                                           "columns": n, "rows": n}]}, f"grid-{pitch}.toml")


@pytest.mark.parametrize("layout", [load_layout(GRID), *(_grid(p) for p in (1.0, 1.5, 2.0, 2.5))],
                         ids=lambda lay: lay.name)
def test_a_visible_sight_line_is_a_chain_of_leds(make_controller, layout):
    c = make_controller(scene=_line_scene(), layout=layout)
    c.command("select", id="us-1")
    c.command("target", id="e1")
    assert c.snapshot().selection["los"]["visible"] is True
    pitch = math.dist(layout.positions[0], layout.positions[1])
    frame = c.hw.strip.last
    lit = [layout.positions[i] for i, colour in enumerate(frame) if colour == hl.SIGHT_CLEAR]
    ends = [layout.positions[layout.nearest(p)] for p in ((4.5, 3.0), (43.5, 3.0))]
    # one LED in every column from one end to the other, each within half a pitch of y = 3
    columns = sorted({round(x / pitch, 3) for x, _ in lit + ends})
    assert all(abs(y - 3.0) <= pitch / 2 for _, y in lit)
    assert len(lit) >= (43.5 - 4.5) / pitch - 2
    assert all(b - a <= 1.001 for a, b in zip(columns, columns[1:], strict=False))
    assert columns[0] <= ends[0][0] / pitch + 1e-3 and columns[-1] >= ends[1][0] / pitch - 1e-3


def test_a_blocked_sight_line_is_dashed_and_its_blocker_lit(make_controller):
    layout = load_layout(GRID)
    crag = {"id": "crag", "polygon": [[20, 2.5], [21, 2.5], [21, 3.5], [20, 3.5]], "height": 4.0,
            "traits": ["impassable"]}                      # 1" square: no LED of the 3" grid inside it
    c = make_controller(scene=_line_scene([crag]), layout=layout)
    c.command("select", id="us-1")
    c.command("target", id="e1")
    los = c.snapshot().selection["los"]
    assert los["visible"] is False and los["blocked_by"] == ["crag"]
    frame = c.hw.strip.last
    row = [frame[layout.nearest((x, 1.5))] for x in (7.5 + 3 * k for k in range(12))]   # x 7.5-40.5
    assert row.count(hl.SIGHT_BLOCKED) >= 5 and row.count(hl.OFF) >= 4       # a dashed line: gaps
    # the line meets the crag at (20.5, 3); the LED nearest it, (19.5, 1.5), is a gap of the dashes,
    # so the next nearest, (19.5, 4.5), lights the crag
    assert frame[layout.nearest((19.5, 1.5))] == hl.OFF
    assert frame[layout.nearest((19.5, 4.5))] == hl.SIGHT_BLOCKED             # the blocker is lit


def test_a_chosen_weapon_the_rule_system_no_longer_takes_falls_back_to_its_default(make_controller, rules_scene):
    c = make_controller(scene=rules_scene)
    c.command("select", id="us-1")
    c.command("weapon", weapon="Pistol")
    c.command("settings", ruleset="age_of_tyrants")     # no profile named Pistol: the four fixed bands
    c.command("select", id="us-1")
    selection = c.snapshot().selection
    assert selection["weapon"] is None and selection["bands"]["e1"] == "medium"   # 10.3" edge to edge
    assert marker(c, "e1") == hl.BAND_COLOURS["medium"]
