"""The control loop from observations to LED frames, warnings and the snapshot."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from table.config import CONFIG_DIR
from table.errors import QueryError
from table.hexgrid import HexLayout
from table.live import highlight as hl
from table.live.leds import LedLayout, load_layout
from table.scene import load_scene
from tests.live.live_fakes import ROOT, frame, move


def led(controller, point):
    """The colour the mock strip last showed on the LED nearest a board point."""
    return controller.hw.strip.last[controller.layout.nearest(point)]


def test_selected_unit_shows_bands_and_enemies_in_their_band(make_controller):
    c = make_controller()
    c.command("select", id="rifles-1")
    # raiders-1 is 32.06" from rifles-1 (centre to centre): the Rifle's cold band (24-36")
    assert c.snapshot().selection["bands"]["raiders-1"] == "cold"
    assert led(c, (12.0, 8.0)) == hl.BAND_COLOURS["cold"]
    # sniper-1 is 44.0" away: out of range
    assert led(c, (38.0, 6.0)) == hl.BAND_COLOURS["out_of_range"]
    assert led(c, (10.0, 40.0)) == hl.SELECTED
    # the bottom-edge LED at (4, 48.5) is 10.4" from rifles-1: in the hot band (0-12")
    assert c.hw.strip.last[c.layout.nearest((4.0, 48.5))] == hl.BAND_COLOURS["hot"]
    assert c.snapshot().leds == c.hw.strip.last


def test_sight_line_and_cover_on_the_under_board_grid(make_controller, pipeline):
    c = make_controller(layout=load_layout(CONFIG_DIR / "leds" / "under-board-grid.toml"))
    pipeline.see({23: (38.0, 15.0)}, (move(23, (38.0, 6.0), (38.0, 15.0)),))
    c.process(frame(1))
    c.command("select", id="rifles-1")
    c.command("target", id="sniper-1")
    los = c.snapshot().selection["los"]
    # the line (10, 40) -> (38, 15) crosses the wood (light cover) and the bunker's corner (heavy)
    assert los["visible"] is True and los["cover_from"] == ["wood", "bunker"]
    assert led(c, (25.5, 25.5)) == hl.SIGHT_CLEAR      # 0.49" from the sight line
    assert led(c, (19.5, 25.5)) == hl.COVER_LIGHT      # in the wood, off the line
    assert led(c, (34.5, 16.5)) == hl.COVER_HEAVY      # in the bunker, 1.2" off the line
    assert led(c, (1.5, 1.5)) == hl.OFF                # 40.3" from every rifle: beyond the cold band
    assert led(c, (10.5, 31.5)) == hl.BAND_COLOURS["hot"]     # 8.5" from rifles-1


def test_blocked_sight_shows_the_blocking_terrain(make_controller):
    c = make_controller(layout=load_layout(CONFIG_DIR / "leds" / "under-board-grid.toml"))
    c.command("select", id="rifles-1")
    c.command("target", id="raiders")
    assert c.snapshot().selection["los"]["blocked_by"] == ["crag"]   # impassable, 4" tall
    # the line, centre to centre up the column x = 10.5 from rifles-1 (10, 40), is dashed: every
    # other LED off; the crag (8-12 by 22-26) holds (10.5, 22.5), lit, and a gap at (10.5, 25.5)
    column = [led(c, (10.5, y)) for y in (34.5, 31.5, 28.5, 25.5, 22.5, 19.5, 16.5)]
    blocked, off = hl.SIGHT_BLOCKED, hl.OFF
    assert column == [blocked, off, blocked, off, blocked, off, blocked]


def test_no_selection_shows_each_model_in_its_players_colour(make_controller):
    c = make_controller()
    assert led(c, (10.0, 40.0)) == hl.PLAYER_COLOURS[0]
    assert led(c, (38.0, 6.0)) == hl.PLAYER_COLOURS[1]


def test_pointer_marker_beside_a_model_selects_it(make_controller, pipeline):
    c = make_controller()
    pipeline.see({500: (9.0, 38.8)})            # 1.56" from rifles-1
    c.process(frame(1))
    assert c.state.selected == "rifles-1"
    pipeline.see({500: (30.0, 30.0)})           # nowhere near a model: selection stays
    c.process(frame(2))
    assert c.state.selected == "rifles-1"
    selects = [e for e in c.gamelog.events(c.game) if e["kind"] == "select"]
    assert [(e["model"], e["by"]) for e in selects] == [("rifles-1", "pointer")]


def test_moves_are_logged_and_moving_too_far_warns(make_controller, pipeline):
    c = make_controller()
    pipeline.see({23: (38.0, 15.0)}, (move(23, (38.0, 6.0), (38.0, 15.0)),))
    c.process(frame(1))
    assert c.state.scene.model("sniper-1").position == (38.0, 15.0)
    logged = [e for e in c.gamelog.events(c.game) if e["kind"] == "move"]
    assert logged[-1]["model"] == "sniper-1" and logged[-1]["distance"] == 9.0
    warning = next(w for w in c.snapshot().warnings if w["kind"] == "overmove")
    assert warning["units"] == ["sniper"] and "9.0\"" in warning["message"] and "6\"" in warning["message"]
    assert not warning["acknowledged"]
    c.command("acknowledge", id=warning["id"])
    assert next(w for w in c.snapshot().warnings if w["id"] == warning["id"])["acknowledged"]


def test_a_move_within_the_allowance_does_not_warn(make_controller, pipeline):
    c = make_controller()
    pipeline.see({23: (38.0, 11.9)}, (move(23, (38.0, 6.0), (38.0, 11.9)),))   # 5.9" of 6"
    c.process(frame(1))
    assert not [w for w in c.snapshot().warnings if w["kind"] == "overmove"]


def test_maneuver_order_doubles_the_allowance(make_controller, pipeline):
    c = make_controller()
    c.command("select", id="sniper-1", order="maneuver")
    pipeline.see({23: (38.0, 15.0)}, (move(23, (38.0, 6.0), (38.0, 15.0)),))      # 9" of 12"
    c.process(frame(1))
    assert not [w for w in c.snapshot().warnings if w["kind"] == "overmove"]


def test_cohesion_melee_off_board_and_unknown_marker_warnings(make_controller, pipeline):
    c = make_controller()
    pipeline.see({22: (15.5, 9.0)}, (move(22, (12.45, 8.78), (15.5, 9.0)),))
    c.process(frame(1))
    assert "cohesion:raiders" in {w["id"] for w in c.snapshot().warnings}
    # rifles-1 walks up to 0.9" of raiders-1: in melee (within 1", centre to centre)
    pipeline.see({10: (12.0, 8.9)}, (move(10, (10.0, 40.0), (12.0, 8.9)),))
    c.process(frame(2))
    ids = {w["id"] for w in c.snapshot().warnings}
    assert "melee:raiders+rifles" in ids
    pipeline.see({13: (50.0, 20.0), 77: (20.0, 20.0), 0: (1.5, 1.5), 500: (44.0, 44.0)})
    c.process(frame(3))
    ids = {w["id"] for w in c.snapshot().warnings}
    assert {"off_board:gunner-1", "unknown_marker:77"} <= ids
    assert not any(i.startswith("unknown_marker:0") or i == "unknown_marker:500" for i in ids)
    kinds = [e["kind"] for e in c.gamelog.events(c.game)]
    assert kinds.count("warning") >= 4


def test_warning_that_clears_is_logged_and_forgets_its_acknowledgement(make_controller, pipeline):
    c = make_controller()
    pipeline.see({77: (20.0, 20.0)})
    c.process(frame(1))
    c.command("acknowledge", id="unknown_marker:77")
    pipeline.see({})
    c.process(frame(2))
    assert not c.snapshot().warnings
    assert c.gamelog.events(c.game)[-1] == {**c.gamelog.events(c.game)[-1], "kind": "warning_cleared",
                                            "id": "unknown_marker:77"}
    assert "unknown_marker:77" not in c.state.acknowledged


def test_uncalibrated_frames_change_nothing(make_controller, pipeline):
    c = make_controller()
    pipeline.see({23: (38.0, 15.0)}, (move(23, (38.0, 6.0), (38.0, 15.0)),), calibrated=False)
    c.process(frame(1))
    assert c.state.scene.model("sniper-1").position == (38.0, 6.0)
    assert c.snapshot().status["calibration"] == "uncalibrated" and c.hw.status == "uncalibrated"


def test_first_sighting_places_a_model_without_starting_an_activation(make_controller, pipeline):
    c = make_controller()
    pipeline.see({13: (25.0, 44.0)})           # the gunner stands elsewhere than the scene says
    c.process(frame(1))
    assert c.state.scene.model("gunner-1").position == (25.0, 44.0)
    assert c.state.activation is None and not c.snapshot().warnings


def test_a_bad_frame_never_stops_the_table(make_controller, pipeline):
    c = make_controller()
    pipeline.observation = ValueError("corrupt frame")
    c.process(frame(1))
    status = c.snapshot().status
    assert status["bad_frames"] == 1 and "corrupt frame" in status["last_error"]
    assert c.hw.status == "error"
    pipeline.see({23: (38.0, 8.0)}, (move(23, (38.0, 6.0), (38.0, 8.0)),))
    c.process(frame(2))
    assert c.state.scene.model("sniper-1").position == (38.0, 8.0)


def test_commands_phase_roll_terrain_settings_and_errors(make_controller):
    c = make_controller()
    assert c.command("advance_phase")["phase"] == "activations"
    assert c.hw.turn_leds.value == (1, 0)                      # player A's turn LED
    assert c.hw.factory.pin(23).state == 1 and c.hw.factory.pin(24).state == 0
    c.command("confirm")                                       # A's activation ends: B's go
    assert c.snapshot().phase["player"] == "B" and c.hw.turn_leds.value == (0, 1)
    result = c.command("roll", kind="pool", d6=4, d8=0, d10=2, reroll="none")
    assert len(result["dice"]) == 6 and result["successes"] == sum(d["value"] >= 5 for d in result["dice"])
    assert c.snapshot().selection["last_roll"] == result
    hill = {"id": "hill", "polygon": [[0, 0], [5, 0], [5, 5]], "traits": ["elevated"]}
    c.command("set_terrain", terrain=[hill])
    assert [t["id"] for t in c.snapshot().scene["terrain"]] == ["hill"]
    c.command("settings", brightness=0.25)
    assert c.hw.strip.correction.brightness == 0.25
    with pytest.raises(QueryError, match="unknown ruling"):
        c.command("settings", rulings={"no_such_ruling": 1})
    with pytest.raises(QueryError, match="no model or unit 'zz'"):
        c.command("select", id="zz")
    with pytest.raises(QueryError, match="unknown command"):
        c.command("fly")
    with pytest.raises(QueryError, match="no warning"):
        c.command("acknowledge", id="nope")
    answer = c.command("measure", question="distance", args=["rifles-1", "raiders-1"])
    assert answer["answer"]["distance"] == pytest.approx(32.06, abs=0.01)
    assert c.gamelog.events(c.game)[-1]["kind"] == "measure"


def test_assign_marker_binds_a_new_marker_to_a_model(make_controller, pipeline):
    c = make_controller()
    c.command("assign_marker", model="gunner-1", marker=42)
    assert c.state.markers()[42] == "gunner-1" and 13 not in c.state.markers()
    pipeline.see({42: (30.0, 44.0)}, (move(42, (30.0, 42.0), (30.0, 44.0)),))
    c.process(frame(1))
    assert c.state.scene.model("gunner-1").position == (30.0, 44.0)


def test_snapshots_are_immutable_and_wait_for_change(make_controller):
    c = make_controller()
    before = c.snapshot()
    assert c.wait_for_change(before.seq, timeout=0.01).seq == before.seq     # nothing changed
    c.command("advance_phase")
    after = c.wait_for_change(before.seq, timeout=1.0)
    assert after.seq > before.seq
    assert before.phase["phase"] == "initiative" and after.phase["phase"] == "activations"
    assert isinstance(after.leds, tuple) and len(after.leds) == 292 and np.array(after.leds).shape == (292, 3)


def test_hex_rule_system_lights_the_hexes_a_unit_can_reach(make_controller):
    scene = load_scene(ROOT / "tests" / "data" / "syniad" / "movement.json")
    grid = HexLayout.from_spec(scene.hexgrid)
    cells = [(q, r) for q in range(0, 6) for r in range(-1, 5)]
    layout = LedLayout("one LED per hex", tuple(grid.to_board(h) for h in cells))   # LED i at cells[i]
    c = make_controller(scene=scene, layout=layout)
    assert c.snapshot().phase["phase"] == "movement" and c.snapshot().phase["player"] == "A"
    c.command("select", id="m-a-inf")
    reachable = {tuple(r["hex"]) for r in c.ruleset().ask("moves", ["a-inf"])["reachable"]}
    assert (0, 3) in reachable and (0, 2) not in reachable              # (0, 2) is water
    shown = dict(zip(cells, c.hw.strip.last, strict=True))
    assert shown[(1, 2)] == hl.SELECTED                                 # the unit's own hex
    assert all(shown[h] == hl.MOVE_RANGE for h in reachable if h in shown and h not in
               {m.hex for m in scene.models})
    assert shown[(0, 2)] != hl.MOVE_RANGE


def test_selecting_an_enemy_model_does_not_activate_it(make_controller):
    c = make_controller()
    c.command("advance_phase")                       # activations: player A
    c.command("select", id="rifles-1")
    assert c.state.activation.unit == "rifles"
    c.command("select", id="sniper-1")               # B's model: looked at, not activated
    assert c.state.selected == "sniper-1" and c.state.activation.unit == "rifles"


def test_the_table_leaves_the_interpreters_switch_interval_alone(make_controller, pipeline):
    """Lowering it bought the LED path nothing measurable (bench/bench_switch.py), so neither the
    controller nor its background worker changes it for the whole process."""
    before = sys.getswitchinterval()
    c = make_controller()
    pipeline.see({23: (38.0, 15.0)}, (move(23, (38.0, 6.0), (38.0, 15.0)),))
    c.process(frame(1))
    assert sys.getswitchinterval() == before
