"""The replay on a phone: drag the scrubber and step through a game the test played, and see what stood
where then (the raider drawn where it stood, on the page's own board transform), the event in words, the
measurement with its error bar, and a warning visible while it was in force and gone once it cleared."""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.web.browser import ARTIFACTS, BOARD_TO_SCREEN, TO_SCREEN, needs_chromium
from tests.web.replay_game import MOVED, RAIDER, START, play
from tests.web.server import LiveServer, make_app
from tests.web.tables import demo_controller

pytestmark = needs_chromium
HEX = Path(__file__).resolve().parents[1] / "data" / "web" / "demo_hex.json"   # flat, 1.5", hex [0,0] at (2, 2)



def drawn_at(page, svg: str, model: str) -> tuple[float, float]:
    """Where the model's drawing sits on the screen: the middle of its base and rings."""
    box = page.locator(f"#{svg} [data-model='{model}']").bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def assert_drawn_at(page, where: tuple[float, float], wait_s: float = 15.0) -> None:
    """The raider is drawn at `where` on the replay board (the board is redrawn as the event loads: the
    drawing may be replaced between looking and measuring, so look again until it settles)."""
    expect(page.locator(f"#replay-board [data-model='{RAIDER}']")).to_be_visible()
    deadline = time.monotonic() + wait_s
    while True:
        box = page.locator(f"#replay-board [data-model='{RAIDER}']").bounding_box()
        drawn = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2) if box else None
        expected = page.evaluate(BOARD_TO_SCREEN, [*where, "replay-board"])
        if drawn is not None and drawn == pytest.approx(expected, abs=1.5) or time.monotonic() > deadline:
            break
        page.wait_for_timeout(100)
    assert drawn == pytest.approx(expected, abs=1.5)


def drag_with_a_thumb(page, selector: str) -> None:
    """A finger put on the right end of the element and slid past its left end (touch events, as a phone
    sends them: Chrome DevTools Protocol's Input.dispatchTouchEvent)."""
    box = page.locator(selector).bounding_box()
    y = box["y"] + box["height"] / 2
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": box["x"] + box["width"] - 6,
                                                                                  "y": y}]})
    for k in range(1, 11):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [
            {"x": box["x"] + box["width"] - 6 - k * (box["width"] + 20) / 10, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def test_scrubbing_the_replay_shows_the_board_event_and_warnings_then(phone, tmp_path):
    game = play(tmp_path)
    server = LiveServer(make_app(game.controller, tmp_path))
    try:
        phone.goto(server.url + "/#log")
        phone.get_by_role("link", name="Replay").click()
        view, event = phone.locator("#view-replay"), phone.locator("#replay-event")
        expect(view).to_be_visible()
        expect(phone.locator("#view-board")).to_be_hidden()
        expect(phone.locator("#replay-pos")).to_contain_text("Event 9 of 9")     # it opens on the newest
        expect(event).to_have_text("Warning cleared: overmove of Raiders (raiders-1).")
        warnings = phone.locator("#replay-warnings")
        expect(warnings).to_contain_text("out of cohesion")
        expect(warnings).not_to_contain_text("moved 12.0")
        assert_drawn_at(phone, MOVED)

        drag_with_a_thumb(phone, "#replay-slider")              # the scrubber back to its start
        expect(phone.locator("#replay-pos")).to_contain_text("Event 1 of 9")
        expect(event).to_have_text("New game: synaptik, 8 models.")
        assert_drawn_at(phone, START)
        expect(warnings).to_be_empty()
        expect(phone.locator("#replay-board .model.warn")).to_have_count(0)

        for _ in range(3):                                       # step on to the measurement
            phone.locator("#replay-next").click()
        expect(event).to_have_text('Measured distance rifles-1 → raiders-1: 32.06" ± 0.06".')
        expect(phone.locator("#replay-slider")).to_have_attribute(   # what a screen reader says of the slider
            "aria-valuetext", 'event 4 of 9: Measured distance rifles-1 → raiders-1: 32.06" ± 0.06".')
        answers = phone.locator("#replay-answers")
        expect(answers).to_be_visible()
        expect(answers).to_contain_text('32.06" ± 0.06"')
        expect(answers).to_contain_text("Selected: rifles-1 → raiders-1")
        expect(phone.locator("#replay-board line.sight")).to_be_visible()
        assert_drawn_at(phone, START)

        phone.locator("#replay-next").click()                    # the raider's move
        expect(event).to_have_text("Raiders (raiders-1) moved 12.0\" to (12.0, 20.0).")
        assert_drawn_at(phone, MOVED)
        expect(answers).not_to_contain_text("Measured")         # the raider moved: that measurement is gone
        expect(answers).to_contain_text('20.10"')                # the selection's distance to where it stands
        expect(warnings).to_be_empty()

        phone.locator("#replay-next").click()                    # the overmove warning is raised
        expect(warnings.get_by_text("moved 12.0\" in activation 2")).to_be_visible()
        ring = phone.locator(f"#replay-board .model.warn[data-model='{RAIDER}'] .wring")   # its warning ring
        expect(ring).to_be_visible()
        expect(ring).not_to_have_css("stroke", "none")
        ARTIFACTS.mkdir(exist_ok=True)
        phone.screenshot(path=str(ARTIFACTS / "panel-390-replay.png"), full_page=True)

        phone.locator("#replay-kind").select_option(label="warnings")      # warning to warning
        phone.locator("#replay-next").click()
        expect(event).to_contain_text("out of cohesion")         # the second warning, raised next
        phone.locator("#replay-next").click()                    # over the phase, to the overmove cleared
        expect(phone.locator("#replay-pos")).to_contain_text("Event 9 of 9")
        expect(event).to_have_text("Warning cleared: overmove of Raiders (raiders-1).")
        expect(warnings).not_to_contain_text("moved 12.0")
        expect(warnings).to_contain_text("out of cohesion")
        expect(phone.locator("#replay-next")).to_be_disabled()
        phone.locator("#replay-kind").select_option(label="measurements")  # back to the one measurement
        phone.locator("#replay-prev").click()
        expect(phone.locator("#replay-pos")).to_contain_text("Event 4 of 9")
        phone.locator("#replay-last").click()

        phone.get_by_role("link", name="Back to the live board").click()
        expect(phone.locator("#view-board")).to_be_visible()
        expect(view).to_be_hidden()
        live_at = phone.evaluate(TO_SCREEN, RAIDER)
        assert drawn_at(phone, "board", RAIDER) == pytest.approx(live_at, abs=1.5)

        measured = next(e["seq"] for e in game.controller.gamelog.events(game.controller.game)
                        if e["kind"] == "measure")
        phone.goto(f"{server.url}/#replay/{measured}")           # a link to one event, as a judge gets it
        expect(event).to_have_text('Measured distance rifles-1 → raiders-1: 32.06" ± 0.06".')
        expect(phone.locator("#replay-pos")).to_contain_text("Event 4 of 9")
        assert_drawn_at(phone, START)
    finally:
        server.close()
        game.controller.close()


def test_a_link_to_an_event_of_the_game_before_opens_it_and_the_games_can_be_chosen(phone, tmp_path):
    game = play(tmp_path)
    server = LiveServer(make_app(game.controller, tmp_path))
    try:
        before = game.controller.game
        measured = next(e["seq"] for e in game.controller.gamelog.events(before) if e["kind"] == "measure")
        game.controller.command("new_game")                     # the next game starts on the same table
        phone.goto(f"{server.url}/#replay/{measured}")           # the judge's link from the game before
        event = phone.locator("#replay-event")
        expect(event).to_have_text('Measured distance rifles-1 → raiders-1: 32.06" ± 0.06".')
        expect(phone.locator("#replay-pos")).to_contain_text("Event 4 of 9")
        assert_drawn_at(phone, START)
        picker = phone.locator("#replay-game")
        expect(picker).to_be_visible()
        expect(picker.locator("option:checked")).to_contain_text(f"Game {before} · synaptik")
        picker.select_option(str(game.controller.game))          # this game: opens on its newest event
        expect(phone.locator("#replay-pos")).to_contain_text("Event 2 of 2")
        expect(event).to_contain_text("out of cohesion")         # the raider still stands apart
        assert_drawn_at(phone, MOVED)
        phone.locator("#replay-first").click()
        expect(event).to_have_text("New game: synaptik, 8 models.")
    finally:
        server.close()
        game.controller.close()


def hex_centre(q: int, r: int) -> tuple[float, float]:
    """A flat hex's centre on the hex demo's board (Red Blob Games' layout, as the contract says)."""
    return 2.0 + 1.5 * 1.5 * q, 2.0 + 1.5 * math.sqrt(3) * (r + q / 2)


def test_a_hex_games_path_is_drawn_at_the_event_that_chose_it_and_gone_after(phone, tmp_path):
    controller = demo_controller(tmp_path, scene=HEX)
    server = LiveServer(make_app(controller, tmp_path))
    try:
        controller.command("select", id="inf-1")
        far = max(controller.ruleset().ask("moves", ["inf-1"])["reachable"], key=lambda r: r["cost"])
        controller.command("destination", hex=far["hex"])
        controller.command("select", id=None)
        phone.goto(server.url + "/#replay")
        expect(phone.locator("#replay-event")).to_have_text("Selection cleared.")
        path = phone.locator("#replay-board polyline.path")
        expect(path).to_have_count(0)
        phone.locator("#replay-prev").click()
        expect(phone.locator("#replay-event")).to_have_text(f"Path to hex [{far['hex'][0]}, {far['hex'][1]}].")
        expect(path).to_be_visible()
        drawn = [tuple(float(v) for v in p.split(",")) for p in path.get_attribute("points").split()]
        assert drawn == [pytest.approx(hex_centre(*h)) for h in far["path"]]
        assert len(drawn) >= 3
    finally:
        server.close()
        controller.close()
