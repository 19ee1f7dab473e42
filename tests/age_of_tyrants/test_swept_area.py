"""Age of Tyrants movement sweeps the real footprint: the hull of the base at both ends of each stretch
(facing along it), pivots included; impassable terrain and enemy bases in it stop the move, named, for
every locomotion. Worked by hand on rectangles; the sweep property-tested against sampled footprints."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from table.geometry import footprint
from table.rules.age_of_tyrants.movement import swept_area
from table.scene import Base, Model
from tests.age_of_tyrants.aot_helpers import box, build, unit

FALX = {"shape": "rect", "width_mm": 25.4, "depth_mm": 50.8}  # 2" long (along its facing), 1" wide
WIDE = {"shape": "oval", "width_mm": 60, "depth_mm": 35}  # 2.36" across its facing, 1.38" along it
LOCOMOTIONS = ("foot", "wheeled", "tracked", "hover")


def mover(locomotion: str, shape: dict, x: float = 10, y: float = 10, heading: float = 0) -> tuple[list, dict]:
    units = [unit("m", "A", locomotion=locomotion, move=8, role="materiel", size=3), unit("foe", "B", move=4)]
    return units, {"id": "m1", "unit": "m", "x": x, "y": y, "heading": heading, "base": shape}


@pytest.mark.parametrize("locomotion", LOCOMOTIONS)
def test_the_nose_that_sticks_out_past_half_the_width_is_stopped_by_a_rock(locomotion):
    # a Falx from (10, 10) to (15.8, 10) facing +x: its nose ends at x = 16.8, into a rock at x >= 16.5
    # (the centre line's round-ended buffer, 0.5" wide, would stop at 16.3 and miss it)
    units, m = mover(locomotion, FALX)
    rules = build(units, [m], [box("rock", 16.5, 9, 18, 11, "impassable")])
    answer = rules.ask("move", ["m1", "15.8,10"])
    assert answer["allowed"] is False and answer["blocked_by"] == ["rock"]
    assert "crosses impassable terrain 'rock'" in answer["problems"]
    clear = rules.ask("move", ["m1", "15.4,10"])  # nose at 16.4: 0.1" short of the rock
    assert clear["allowed"] is True, clear["problems"]


@pytest.mark.parametrize("locomotion", LOCOMOTIONS)
def test_a_corner_of_the_base_is_stopped_by_an_enemy_base_by_it(locomotion):
    # the Falx ends at (15, 10) facing +x: its front corner at (16, 10.5); an enemy round base (25 mm,
    # r 0.4921") centred at (16.2, 10.8) is 0.36" from that corner (1.44" from the path's end)
    units, m = mover(locomotion, FALX)
    foe = {"id": "f1", "unit": "foe", "x": 16.2, "y": 10.8}
    answer = build(units, [m, foe]).ask("move", ["m1", "15,10"])
    assert answer["blocked_by"] == ["f1"] and "moves through an enemy base 'f1'" in answer["problems"]
    foe.update(x=16.3, y=10.9)  # 0.5" from the corner: 0.008" clear
    assert build(units, [m, foe]).ask("move", ["m1", "15,10"])["allowed"] is True


@pytest.mark.parametrize("locomotion", LOCOMOTIONS)
def test_the_sweep_does_not_reach_behind_the_start(locomotion):
    # a wide oval facing +x reaches 0.69" behind its centre; an enemy 0.9" behind it (edge to centre) is
    # not in the way (the centre line's buffer, as wide as the base, reached 1.18" behind)
    units, m = mover(locomotion, WIDE)
    r = 12.5 / 25.4
    foe = {"id": "f1", "unit": "foe", "x": 10 - 0.9 - r, "y": 10}
    answer = build(units, [m, foe]).ask("move", ["m1", "14,10"])
    assert answer["allowed"] is True, answer["problems"]


def test_a_jump_ignores_what_it_passes_but_not_where_it_lands():
    units, m = mover("jump", FALX)
    rules = build(units, [m], [box("rock", 12, 8, 13, 12, "impassable"), box("pit", 16.5, 9, 18, 11, "impassable")])
    assert rules.ask("move", ["m1", "15.4,10"])["allowed"] is True  # jumps over the rock
    landing = rules.ask("move", ["m1", "15.8,10"])
    assert landing["blocked_by"] == ["pit"] and "lands on impassable terrain 'pit'" in landing["problems"]


def test_a_pivot_at_a_waypoint_is_stopped_and_named():
    # at (15, 10) the Falx turns 90 degrees clockwise onto +y: its front corner (16, 10.5) swings
    # through (15.8, 10.6) (1.0" from the centre, 36.9 degrees round), where a rock's corner is; the rock
    # is clear of both straight stretches (y <= 10.5 before, x <= 15.5 after)
    units, m = mover("tracked", FALX)
    rules = build(units, [m], [box("rock", 15.8, 10.6, 17, 12, "impassable")])
    answer = rules.ask("move", ["m1", "15,10", "15,13"])
    assert answer["blocked_by"] == ["rock"]
    assert any("pivots through impassable terrain 'rock' at (15, 10)" in p for p in answer["problems"])


shapes = st.sampled_from([Base("rect", 25.4, 50.8), Base("oval", 60, 35), Base("circle", 40, 40),
                          Base("rect", 76.2, 50.8)])
points = st.tuples(st.floats(5, 40), st.floats(5, 40))


@settings(max_examples=60, deadline=None)
@given(base=shapes, heading=st.floats(-180, 180), path=st.lists(points, min_size=2, max_size=4),
       ts=st.lists(st.floats(0, 1), min_size=5, max_size=5))
def test_the_swept_area_holds_every_footprint_along_the_way(base, heading, path, ts):
    model = Model("m", "u", path[0][0], path[0][1], heading, None, base)
    area = swept_area(model, path)
    for a, b in zip(path, path[1:], strict=False):
        if math.dist(a, b) < 1e-6:
            continue
        facing = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))
        for t in ts:
            at = replace(model, x=a[0] + (b[0] - a[0]) * t, y=a[1] + (b[1] - a[1]) * t, heading=facing)
            assert footprint(at).difference(area).area < 1e-9
    # and no more: every point of it is within half a sampling step of a footprint along some stretch
    samples, reach = [], 0.0
    for a, b in zip(path, path[1:], strict=False):
        length = math.dist(a, b)
        if length < 1e-6:
            continue
        facing = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))
        samples += [footprint(replace(model, x=a[0] + (b[0] - a[0]) * k / 100, y=a[1] + (b[1] - a[1]) * k / 100,
                                      heading=facing)) for k in range(101)]
        reach = max(reach, length / 200)
    if samples:
        assert area.difference(shapely.union_all(samples).buffer(reach + 1e-6)).area < 1e-9
