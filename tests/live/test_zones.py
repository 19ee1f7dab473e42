"""Deployment zones during the deployment phase, and the bombard template, on the LEDs."""

from __future__ import annotations

import math

from table.config import CONFIG_DIR
from table.hexgrid import HexLayout
from table.live import highlight as hl
from table.live.leds import LedLayout, grid, load_layout
from table.rules import get_ruleset
from table.scene import load_scene
from tests.live.live_fakes import DATA, ROOT

UNDER_BOARD = CONFIG_DIR / "leds" / "under-board-grid.toml"   # 16 x 16 LEDs, 3" apart, on 48 x 48
AOT = DATA / "aot-deploy.json"
SKIRMISH = ROOT / "tests" / "data" / "hex_skirmish" / "deploy.json"


def led(c, point):
    return c.hw.strip.last[c.layout.nearest(point)]


def test_age_of_tyrants_zones_are_the_6_inch_edge_strips(make_controller):
    c = make_controller(scene=load_scene(AOT), layout=load_layout(UNDER_BOARD))
    assert c.state.phase == "deployment"
    deploying = c.snapshot().selection["deployment"]
    assert [(z["player"], z["edge"]) for z in deploying["zones"]] == [("A", "bottom"), ("B", "top")]
    assert deploying["outside"] == ["alpha-1"]           # 18.5" from the bottom edge
    a, b = hl.PLAYER_COLOURS[0], hl.PLAYER_COLOURS[1]
    assert led(c, (25.5, 43.5)) == a and led(c, (40.5, 46.5)) == a      # within 6" of the bottom
    assert led(c, (25.5, 4.5)) == b                                      # within 6" of the top
    assert led(c, (25.5, 7.5)) == hl.OFF and led(c, (25.5, 40.5)) == hl.OFF   # 7.5" from either
    assert led(c, (20.0, 30.0)) == hl.SIGHT_BLOCKED      # the model outside its zone
    c.command("advance_phase")
    assert c.state.phase == "initiative" and c.snapshot().selection["deployment"] is None
    assert led(c, (25.5, 43.5)) == hl.OFF


def test_bombard_target_shows_the_template_and_the_bases_it_touches(make_controller):
    c = make_controller(scene=load_scene(AOT), layout=load_layout(UNDER_BOARD))
    c.command("advance_phase")
    c.command("select", id="arty-1")
    c.command("target", id="tgt")
    template = c.snapshot().selection["template"]
    rules = get_ruleset("age_of_tyrants")(c.state.scene, {})
    assert template == rules.ask("template", ["tgt", "arty"])
    assert template["touched"] == ["tgt", "near"] and template["far_enough"] is True
    assert math.dist((31.5, 1.5), (30, 3)) < 3 and led(c, (31.5, 1.5)) == hl.TEMPLATE
    assert math.dist((34.5, 1.5), (30, 3)) > 3 and led(c, (34.5, 1.5)) != hl.TEMPLATE
    # an infantry unit has no bombard: no template
    c.command("select", id="alpha-1")
    assert c.snapshot().selection["template"] is None


def test_hex_skirmish_zones_are_the_rule_systems_hexes(make_controller):
    scene = load_scene(SKIRMISH)
    layout = LedLayout("grid", tuple(grid((0.5, 0.5), 1.0, 28, 22, serpentine=True)))
    c = make_controller(scene=scene, layout=layout)
    assert c.state.phase == "deployment"
    answer = get_ruleset("hex_skirmish")(scene, {}).ask("deploy", [])
    zones = {p: {tuple(h) for h in z["hexes"]} for p, z in answer["zones"].items()}
    hexes = HexLayout.from_spec(scene.hexgrid)
    spots = {layout.nearest(m.position) for m in scene.models}
    checked = 0
    for index, (x, y) in enumerate(layout.positions):
        h = hexes.to_hex(x, y)
        if index in spots or (h in zones["A"] and h in zones["B"]):
            continue
        colour = c.hw.strip.last[index]
        expected = (hl.PLAYER_COLOURS[1] if h in zones["B"] else hl.PLAYER_COLOURS[0] if h in zones["A"]
                    else hl.OFF)
        assert colour == expected, (x, y, h)
        checked += 1
    assert checked > 500
    outside = {m.id for u in answer["units"] if not u["ok"] for m in scene.models_of(u["unit"])}
    assert set(c.snapshot().selection["deployment"]["outside"]) == outside
    assert c.hw.strip.last[layout.nearest(scene.model("d2").position)] == hl.SIGHT_BLOCKED
