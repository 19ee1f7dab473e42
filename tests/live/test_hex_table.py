"""Hex games on the live table: hysteresis snapping of tracked models, movement range and the
cheapest path on the LEDs, the pointer choosing a destination hex."""

from __future__ import annotations

import math

import pytest

from table.hexgrid import HexLayout
from table.live import highlight as hl
from table.live.leds import LedLayout, grid
from table.rules import get_ruleset
from table.scene import load_scene
from tests.live.live_fakes import DATA, frame, move

SCENE = DATA / "syniad-table.json"
# LEDs under a 24" board, 1.5" apart: the nearest LED to a hex's centre lies inside that hex
GRID = LedLayout("grid-24", tuple(grid((0.75, 0.75), 1.5, 16, 16, serpentine=True)))


@pytest.fixture
def hex_table(make_controller):
    return make_controller(scene=load_scene(SCENE), layout=GRID)


def led_at_hex(c, h):
    layout = HexLayout.from_spec(c.state.scene.hexgrid)
    return c.hw.strip.last[GRID.nearest(layout.to_board(h))]


def between(layout, a, b, t):
    """The point a fraction t of the way from hex a's centre to hex b's."""
    (ax, ay), (bx, by) = layout.to_board(a), layout.to_board(b)
    return (ax + (bx - ax) * t, ay + (by - ay) * t)


def test_a_model_near_a_hexside_keeps_its_hex(hex_table, pipeline):
    c = hex_table
    layout = HexLayout.from_spec(c.state.scene.hexgrid)
    start = layout.to_board((1, 1))
    path = [(0.55, (1, 1)),    # 0.13" past the hexside: plain rounding says (2, 1); the table keeps (1, 1)
            (0.75, (2, 1)),    # 0.65" past it: clearly in the next hex
            (0.45, (2, 1)),    # back 0.13" over the side: still (2, 1), no flicker
            (0.2, (1, 1))]     # well back
    last = start
    for index, (t, expected) in enumerate(path, 1):
        point = between(layout, (1, 1), (2, 1), t)
        pipeline.see({31: point}, (move(31, last, point),))
        c.process(frame(index))
        last = point
        assert c.state.scene.model("a1").hex == expected, t
    assert layout.to_hex(*between(layout, (1, 1), (2, 1), 0.55)) == (2, 1)
    moves = [e for e in c.gamelog.events(c.game) if e["kind"] == "move"]
    assert [tuple(e["hex"]) for e in moves] == [h for _, h in path]


def test_leds_show_the_reachable_hexes_and_the_path_to_the_chosen_hex(hex_table):
    c = hex_table
    c.command("select", id="inf-1")
    c.command("destination", hex="4,1")
    rules = get_ruleset("syniad")(c.state.scene, {})
    expected = rules.ask("path", ["inf-1", "4,1"])
    assert c.snapshot().selection["path"] == expected
    assert expected["path"] == [[1, 1], [2, 0], [3, 0], [4, 0], [4, 1]] and expected["cost"] == 4
    for h in expected["path"][1:]:
        assert led_at_hex(c, tuple(h)) == hl.PATH
    reachable = {tuple(r["hex"]) for r in rules.ask("moves", ["inf-1"])["reachable"]}
    off_path = sorted(reachable - {tuple(h) for h in expected["path"]})
    assert off_path and all(led_at_hex(c, h) == hl.MOVE_RANGE for h in off_path)
    assert led_at_hex(c, (1, 1)) == hl.SELECTED
    assert (9, 9) not in reachable and led_at_hex(c, (9, 9)) == hl.OFF
    c.command("destination", hex=None)
    assert led_at_hex(c, (3, 0)) == hl.MOVE_RANGE        # the path is gone, the range stays


def test_the_pointer_on_an_empty_hex_chooses_the_destination(hex_table, pipeline):
    c = hex_table
    layout = HexLayout.from_spec(c.state.scene.hexgrid)
    c.command("select", id="inf-1")
    x, y = layout.to_board((4, 1))
    assert math.dist((x, y), layout.to_board((5, 2))) > 2.0     # not beside a model: not a selection
    pipeline.see({500: (x + 0.2, y)})
    c.process(frame(1))
    assert c.state.destination == (4, 1) and c.state.selected == "a1"
    assert led_at_hex(c, (3, 0)) == hl.PATH
    logged = [e for e in c.gamelog.events(c.game) if e["kind"] == "destination"]
    assert [(e["hex"], e["by"]) for e in logged] == [([4, 1], "pointer")]


def test_destination_needs_a_selection_and_a_hex(hex_table):
    from table.errors import QueryError

    with pytest.raises(QueryError, match="select a unit first"):
        hex_table.command("destination", hex="4,1")
    with pytest.raises(QueryError, match="destination: hex: expected a hex"):
        hex_table.command("destination", hex="four")
