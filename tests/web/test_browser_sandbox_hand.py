"""The sandbox on a laptop (issue 23): a newcomer moves a miniature by dragging its model on the panel's
board, and puts a new marker down by giving its id and tapping the board, as they would on a real table.
The table's own answer is read back: where GET /api/sandbox says the marker lies, and where the camera then
puts the model. A real `smarttable run --sandbox` in Chromium at 390x844, with a mouse and with a finger."""

from __future__ import annotations

import math

import pytest

from tests.web.engines import PHONE
from tests.web.table_process import PIN, running_table

FINGER_IN = 0.35      # how near a tap or a drop lands to its aim, in board inches at 390 px (a pixel is 0.14")


def screen_point(page, x: float, y: float) -> tuple[float, float]:
    """The viewport point of board point (x, y) on the panel's board."""
    return tuple(page.evaluate("""([x, y]) => { const svg = document.getElementById('board');
      const p = svg.createSVGPoint(); p.x = x; p.y = y; const q = p.matrixTransform(svg.getScreenCTM());
      return [q.x, q.y]; }""", [x, y]))


def where(table, marker: int) -> tuple[float, float] | None:
    return next(((m["x"], m["y"]) for m in table.get("/api/sandbox")["markers"] if m["id"] == marker), None)


def model_at(table, model: str, x: float, y: float) -> dict:
    """The state once the camera has `model` within FINGER_IN of (x, y)."""
    return table.wait_for(lambda s: any(m["id"] == model and m.get("x") is not None
                                        and math.dist((m["x"], m["y"]), (x, y)) < FINGER_IN
                                        for m in s["scene"]["models"]), timeout=60)


@pytest.fixture
def sandbox(browser, tmp_path):
    with running_table(tmp_path, mode="--sandbox") as table:
        table.wait_for(lambda s: s["status"]["camera"] == "ok" and s["status"]["calibration"] == "ok")
        context = browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]}, has_touch=True)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(table.url + "/")
        page.evaluate("(pin) => localStorage.setItem('smarttable-pin', pin)", PIN)
        page.wait_for_selector("[data-model='rifles-1']")
        page.wait_for_selector("#sandbox-hand:not([hidden])")
        yield table, page
        context.close()
        assert errors == []


def test_a_model_dragged_with_the_mouse_goes_where_it_is_dropped(sandbox):
    table, page = sandbox
    rifle = next(m for m in table.get("/api/state")["scene"]["models"] if m["id"] == "rifles-1")
    aim = (rifle["x"] + 6.0, rifle["y"] + 4.0)
    page.mouse.move(*screen_point(page, rifle["x"], rifle["y"]))
    page.mouse.down()
    for k in range(1, 11):                                   # slid across the board, as a hand would
        page.mouse.move(*screen_point(page, rifle["x"] + 0.6 * k, rifle["y"] + 0.4 * k))
    page.mouse.up()
    placed = table.wait_for(lambda s: where(table, rifle["marker"]) is not None
                            and math.dist(where(table, rifle["marker"]), aim) < FINGER_IN)
    assert placed
    model_at(table, "rifles-1", *aim)
    assert page.locator("#info").is_hidden() or "rifles-1" not in page.inner_text("#info")   # not a tap


def test_a_model_dragged_with_a_finger_goes_where_it_is_dropped(sandbox):
    table, page = sandbox
    sniper = next(m for m in table.get("/api/state")["scene"]["models"] if m["id"] == "sniper-1")
    aim = (sniper["x"] - 5.0, sniper["y"] + 3.0)
    cdp = page.context.new_cdp_session(page)
    x, y = screen_point(page, sniper["x"], sniper["y"])
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, 11):
        px, py = screen_point(page, sniper["x"] - 0.5 * k, sniper["y"] + 0.3 * k)
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": px, "y": py}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()
    model_at(table, "sniper-1", *aim)
    assert math.dist(where(table, sniper["marker"]), aim) < FINGER_IN


def test_a_new_marker_is_put_down_where_the_board_is_tapped_and_the_panel_asks_which_model_it_is(sandbox):
    table, page = sandbox
    free = int(page.input_value("#sandbox-hand input[name=marker]"))
    taken = {m.get("marker") for m in table.get("/api/state")["scene"]["models"]}
    assert free >= 10 and free not in taken                   # offered a marker no model has
    page.click("#sandbox-hand button[type=submit]")
    assert f"marker {free} goes" in page.inner_text("#sandbox-text")
    page.mouse.click(*screen_point(page, 30.0, 36.0))
    placed = table.wait_for(lambda s: where(table, free) is not None)
    assert math.dist(where(table, free), (30.0, 36.0)) < FINGER_IN
    table.wait_for(lambda s: any(u["marker"] == free for u in s["status"]["unassigned"]), timeout=60)
    assert placed and page.inner_text("#sandbox-text") == ""
