"""A just-generated panel PIN blinks on the status LED (issue 6), recorded on gpiozero's mock pins."""

from __future__ import annotations

import time

from table.hw.devices import PIN_COLOUR, PinTiming
from web_ui import create_app

# fast, yet with room for a loaded machine's scheduling hiccups (a blink's dark stretched by up to 0.45 s)
FAST = PinTiming(on=0.04, off=0.04, digit_pause=1.0, repeat_pause=1.2, repeats=2)
GAP = 0.5      # dark longer than this separates digits: far above a blink's 0.04 s, below the 1.0 s pause


def blue_pin(controller, factory):
    return factory.pin(controller.hw.pins.status_led[2])


def flashes(pin, since: int) -> list[tuple[float, float]]:
    """Each time the blue leg showed the PIN's blue, over the states recorded from index `since`:
    (dark before it, how long it stayed lit). gpiozero's MockPin records every state with the time
    since the change before it."""
    found, dark, lit_for = [], 0.0, None
    for before, after in zip(pin.states[since - 1:], pin.states[since:], strict=False):
        if before.state == PIN_COLOUR[2]:
            lit_for = (lit_for or 0.0) + after.timestamp
        else:
            dark += after.timestamp
        if after.state != PIN_COLOUR[2] and before.state == PIN_COLOUR[2]:
            found[-1] = (found[-1][0], lit_for)
            lit_for = None
        elif after.state == PIN_COLOUR[2] and before.state != PIN_COLOUR[2]:
            found.append((dark, 0.0))
            dark, lit_for = 0.0, 0.0
    return found


def groups(found: list[tuple[float, float]], gap: float) -> list[int]:
    """Flashes grouped where the dark before one is longer than `gap`: blinks per digit."""
    counts: list[int] = []
    for index, (dark, _) in enumerate(found):
        if index == 0 or dark > gap:
            counts.append(1)
        else:
            counts[-1] += 1
    return counts


def assert_whole_blinks(found: list[tuple[float, float]], timing: PinTiming) -> None:
    """No blink was cut short by the next one: each stayed lit its full time, each dark at least `off`."""
    assert all(lit >= timing.on * 0.9 for _, lit in found), found
    assert all(dark >= timing.off * 0.9 for dark, _ in found[1:]), found


def test_the_pin_blinks_digit_by_digit_then_the_status_returns(make_controller, factory):
    c = make_controller()
    status_before = c.hw.status
    c.hw.pin_timing = FAST
    blue = blue_pin(c, factory)
    start = len(blue.states)
    c.hw.show_pin("305").join(timeout=20)
    found = flashes(blue, start)
    assert groups(found, gap=GAP) == [3, 10, 5] * 2      # a 0 is ten blinks; the whole PIN twice
    assert_whole_blinks(found[:-1], FAST)
    assert c.hw.status == status_before        # the status it had before is shown again


def test_status_changes_wait_until_the_pin_is_shown(make_controller, factory):
    c = make_controller()
    c.hw.pin_timing = FAST
    thread = c.hw.show_pin("1")
    c.hw.set_status("uncalibrated")
    assert c.hw.status == "pin"
    thread.join(timeout=10)
    assert c.hw.status == "uncalibrated"


def test_a_fault_stops_the_pin_and_shows_at_once(make_controller, factory):
    c = make_controller()
    c.hw.pin_timing = PinTiming(on=0.5, off=0.5, repeats=3)
    blue = blue_pin(c, factory)
    thread = c.hw.show_pin("999999")
    c.hw.set_status("camera_lost")
    assert not thread.is_alive() and c.hw.status == "camera_lost"
    red = factory.pin(c.hw.pins.status_led[0])
    time.sleep(0.5)        # the camera-lost pattern (vermillion, fast blink) is running, not the blue PIN
    assert any(s.state > 0.5 for s in red.states[-4:]) and blue.state != PIN_COLOUR[2]


def test_closing_stops_the_pin_at_once(make_controller, factory):
    c = make_controller()
    blue = blue_pin(c, factory)
    c.hw.pin_timing = PinTiming(on=0.5, off=0.5, repeats=3)
    thread = c.hw.show_pin("999999")
    c.close()
    thread.join(timeout=2)
    assert not thread.is_alive() and blue.state == 0


def test_a_generated_panel_pin_is_blinked(make_controller, factory, tmp_path, capsys):
    c = make_controller()
    c.hw.pin_timing = PinTiming(on=FAST.on, off=FAST.off, digit_pause=FAST.digit_pause, repeats=1)
    blue = blue_pin(c, factory)
    start = len(blue.states)
    create_app(c, data_dir=tmp_path / "data")
    pin = (tmp_path / "data" / "pin.txt").read_text().strip()
    assert pin in capsys.readouterr().err and c.hw.status == "pin"
    c.hw._pin_thread.join(timeout=30)
    digits = [int(d) or 10 for d in pin]
    found = flashes(blue, start)
    assert groups(found, gap=GAP) == digits
    assert_whole_blinks(found[:-1], FAST)
    assert PIN_COLOUR[2] > 0 and PIN_COLOUR[0] == 0      # blue only: not one of the status colours


def test_holding_confirm_rotates_the_pin(layout, factory, make_controller, tmp_path, capsys):
    from dataclasses import replace

    from table.config import CONFIG_DIR
    from table.hw import TableHardware
    from table.hw.pinmap import load_pin_map
    from table.hw.strip import ColourCorrection, MockStrip

    pins = replace(load_pin_map(CONFIG_DIR / "pins-pi4.toml"), hold_s=0.05)
    hardware = TableHardware(pins, MockStrip(ColourCorrection(len(layout))), factory, mock=True)
    c = make_controller(hardware=hardware)
    # blinks far apart from the pause between digits, so a loaded machine's stalls cannot merge or split them
    c.hw.pin_timing = PinTiming(on=0.04, off=0.04, digit_pause=1.0, repeat_pause=1.0, repeats=1)
    client = create_app(c, pin="246813", data_dir=tmp_path / "data").test_client()
    assert client.post("/api/phase/advance", json={}, headers={"X-Table-PIN": "246813"}).status_code == 200
    blue = blue_pin(c, factory)
    start = len(blue.states)
    button = c.hw.buttons["confirm"].pin
    button.drive_low()
    stored = tmp_path / "data" / "pin.txt"
    deadline = time.monotonic() + 3.0
    while not (c.hw._pin_thread and c.hw._pin_thread.is_alive()) and time.monotonic() < deadline:
        time.sleep(0.01)
    button.drive_high()
    new = stored.read_text().strip()
    assert len(new) == 6 and new.isdigit() and new != "246813" and stored.stat().st_mode & 0o777 == 0o600
    assert f"Panel PIN (rotated, kept in {stored}): {new}" in capsys.readouterr().err
    c.hw._pin_thread.join(timeout=20)                        # the status LED blinked the new PIN
    assert groups(flashes(blue, start), gap=0.5) == [int(d) or 10 for d in new]
    assert client.post("/api/phase/advance", json={}, headers={"X-Table-PIN": "246813"}).status_code == 403
    assert client.post("/api/phase/advance", json={}, headers={"X-Table-PIN": new}).status_code == 200
