"""Buttons pressed through gpiozero's mock pins act on the game."""

from __future__ import annotations

import time
from dataclasses import replace

from table.config import CONFIG_DIR
from table.hw import TableHardware
from table.hw.pinmap import load_pin_map
from table.hw.strip import ColourCorrection, MockStrip
from tests.live.live_fakes import frame, move


def press(controller, name):
    pin = controller.hw.buttons[name].pin
    pin.drive_low()
    pin.drive_high()


def test_select_cycles_units_of_the_player_whose_turn_it_is(make_controller):
    c = make_controller()
    c.command("advance_phase")                          # activations: player A
    press(c, "select")
    assert c.state.selected == "gunner-1"               # A's units in id order: gunner, rifles
    press(c, "select")
    assert c.state.selected == "rifles-1"
    press(c, "select")
    assert c.state.selected == "gunner-1"


def test_measure_cycles_enemy_targets_and_lights_the_answer(make_controller):
    c = make_controller()
    press(c, "measure")                                  # nothing selected: nothing happens
    assert c.state.target is None
    c.command("select", id="rifles-1")
    press(c, "measure")
    assert c.state.target == "raiders"
    assert c.snapshot().selection["band"]["band"] == "cold"
    press(c, "measure")
    assert c.state.target == "sniper"


def test_next_phase_undo_and_confirm(make_controller, pipeline):
    c = make_controller()
    press(c, "next_phase")
    assert c.snapshot().phase["phase"] == "activations"
    press(c, "undo")
    assert c.snapshot().phase["phase"] == "initiative"
    press(c, "next_phase")
    # a warning pending: confirm acknowledges it (the newest first)
    pipeline.see({23: (38.0, 15.0)}, (move(23, (38.0, 6.0), (38.0, 15.0)),))
    c.process(frame(1))
    press(c, "confirm")
    assert all(w["acknowledged"] for w in c.snapshot().warnings)
    # nothing pending: confirm ends the activation and passes to the other player
    press(c, "confirm")
    assert c.state.activation is None and c.snapshot().phase["player"] == "B"
    kinds = [e["kind"] for e in c.gamelog.events(c.game)]
    assert kinds.count("phase") == 2 and "undo" in kinds and "acknowledge" in kinds and "confirm" in kinds


def test_holding_select_clears_the_selection(layout, factory, make_controller):
    pins = replace(load_pin_map(CONFIG_DIR / "pins-pi4.toml"), hold_s=0.05)
    hardware = TableHardware(pins, MockStrip(ColourCorrection(len(layout))), factory, mock=True)
    c = make_controller(hardware=hardware)
    c.command("select", id="rifles-1")
    pin = c.hw.buttons["select"].pin
    pin.drive_low()
    deadline = time.monotonic() + 2.0
    while c.state.selected is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    pin.drive_high()
    assert c.state.selected is None



def test_holding_undo_starts_the_scene_on_the_table_again_as_a_new_game(layout, factory, make_controller):
    pins = replace(load_pin_map(CONFIG_DIR / "pins-pi4.toml"), hold_s=0.05)
    hardware = TableHardware(pins, MockStrip(ColourCorrection(len(layout))), factory, mock=True)
    c = make_controller(hardware=hardware)
    c.command("add_unit", unit={"id": "scouts", "player": "A", "stats": {"movement": 7}})
    c.command("advance_phase")
    first = c.game
    pin = c.hw.buttons["undo"].pin
    pin.drive_low()
    deadline = time.monotonic() + 2.0
    while c.game == first and time.monotonic() < deadline:
        time.sleep(0.01)
    pin.drive_high()
    c.settle()
    assert c.game == first + 1 and c.snapshot().phase["phase"] == "initiative"      # a new game's first phase
    assert "scouts" in {u.id for u in c.state.scene.units}                           # with what was on the table
    assert [e["kind"] for e in c.gamelog.events(first)][-1] == "phase"              # the last game kept as it was


def test_pin_map_errors_name_the_file_and_key(tmp_path):
    import pytest

    from table.errors import ConfigError

    bad = tmp_path / "pins.toml"
    bad.write_text((CONFIG_DIR / "pins-pi5.toml").read_text().replace("undo = 19", "undo = 10"))
    with pytest.raises(ConfigError, match="pins.toml: GPIO 10 belongs to SPI0"):
        load_pin_map(bad)
    bad.write_text((CONFIG_DIR / "pins-pi5.toml").read_text().replace("undo = 19", "undo = 5"))
    with pytest.raises(ConfigError, match="GPIO 5 is used twice"):
        load_pin_map(bad)
    bad.write_text((CONFIG_DIR / "pins-pi5.toml").read_text().replace("undo = 19", "undo = 'x'"))
    with pytest.raises(ConfigError, match="buttons.undo: expected a BCM GPIO number"):
        load_pin_map(bad)
    assert load_pin_map(CONFIG_DIR / "pins-pi5.toml").factory == "lgpio"
