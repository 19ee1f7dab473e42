"""The hex grid laid on the board: layout, hexes on the board, rings, hexsides, lines and snapping."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from table.hexgrid import (
    HexLayout,
    Hexside,
    HexSnapper,
    distance,
    hex_range,
    hexsides_of,
    line,
    neighbours,
    ring,
)
from table.scene import HexGridSpec

coords = st.integers(-40, 40)
hexes = st.tuples(coords, coords)


def test_layout_from_scene_spec_places_hex_centres_in_inches():
    flat = HexLayout.from_spec(HexGridSpec(1.0, "flat", (1.0, 1.0)))
    assert flat.to_board((0, 0)) == (1.0, 1.0)
    assert flat.to_board((1, 0)) == pytest.approx((2.5, 1.0 + math.sqrt(3) / 2))
    assert flat.to_board((0, 1)) == pytest.approx((1.0, 1.0 + math.sqrt(3)))
    pointy = HexLayout.from_spec(HexGridSpec(2.0, "pointy", (0.0, 0.0)))
    assert pointy.to_board((1, 0)) == pytest.approx((2 * math.sqrt(3), 0.0))
    assert pointy.to_board((0, 1)) == pytest.approx((math.sqrt(3), 3.0))


@given(hexes, st.sampled_from(["flat", "pointy"]), st.floats(0.3, 3.0))
def test_board_point_round_trip(h, orientation, size):
    layout = HexLayout(size, orientation, (1.5, -2.0))
    assert layout.to_hex(*layout.to_board(h)) == h


@pytest.mark.parametrize("orientation", ["flat", "pointy"])
def test_corners_are_one_size_from_the_centre_and_map_back_to_the_hex(orientation):
    layout = HexLayout(1.0, orientation, (0.0, 0.0))
    centre = layout.to_board((2, -1))
    for x, y in layout.corners((2, -1)):
        assert math.dist((x, y), centre) == pytest.approx(1.0)
        # a point 1% of the way from the corner to the centre is inside the hex
        assert layout.to_hex(x + (centre[0] - x) * 0.01, y + (centre[1] - y) * 0.01) == (2, -1)


def test_hexes_on_board_are_exactly_those_with_a_centre_on_the_board():
    layout = HexLayout(1.0, "flat", (1.0, 1.0))
    on = set(layout.hexes_on_board(12.0, 12.0))
    assert (0, 0) in on and (7, -3) in on
    for h in on:
        x, y = layout.to_board(h)
        assert 0 <= x <= 12 and 0 <= y <= 12
    border = {n for h in on for n in neighbours(h)} - on
    for h in border:
        x, y = layout.to_board(h)
        assert not (0 <= x <= 12 and 0 <= y <= 12)
    assert len(on) == 56


def test_a_four_foot_board_of_one_inch_hexes():
    assert len(HexLayout(1.0, "flat", (1.0, 1.0)).hexes_on_board(48, 48)) == 896


@given(hexes, st.integers(0, 6))
def test_rings_and_ranges(centre, radius):
    r = ring(centre, radius)
    assert len(r) == max(1, 6 * radius) == len(set(r))
    assert all(distance(centre, h) == radius for h in r)
    area = list(hex_range(centre, radius))
    assert len(area) == 3 * radius * (radius + 1) + 1 == len(set(area))
    assert all(distance(centre, h) <= radius for h in area)


@given(hexes, hexes)
def test_line_is_connected_and_as_long_as_the_distance(a, b):
    hexes_on = line(a, b)
    assert hexes_on[0] == a and hexes_on[-1] == b
    assert len(hexes_on) == distance(a, b) + 1
    assert all(distance(p, q) == 1 for p, q in zip(hexes_on, hexes_on[1:], strict=False))


def test_line_along_a_hexside_resolves_the_same_way_everywhere():
    # (0,0)->(2,-1) runs exactly between (1,0) and (1,-1); the nudge picks (1,0), wherever the line is.
    assert line((0, 0), (2, -1)) == [(0, 0), (1, 0), (2, -1)]
    for dq, dr in [(5, 3), (-7, 2), (11, -9)]:
        assert line((dq, dr), (dq + 2, dr - 1))[1] == (dq + 1, dr)


def test_hexside_is_a_value_with_either_order():
    side = Hexside((3, 2), (4, 2))
    assert side == Hexside((4, 2), (3, 2))
    assert hash(side) == hash(Hexside((4, 2), (3, 2)))
    assert side.hexes == ((3, 2), (4, 2))
    assert side.other((4, 2)) == (3, 2)
    assert eval(repr(side)) == side
    assert len({s for h in [(0, 0), (1, 0)] for s in hexsides_of(h)}) == 11


def test_hexside_needs_neighbours():
    with pytest.raises(ValueError, match="not neighbours"):
        Hexside((0, 0), (2, 0))
    with pytest.raises(ValueError, match="is not on"):
        Hexside((0, 0), (1, 0)).other((5, 5))


@pytest.mark.parametrize("orientation", ["flat", "pointy"])
def test_hexside_segment_is_the_shared_edge(orientation):
    layout = HexLayout(1.0, orientation, (0.0, 0.0))
    for n in neighbours((0, 0)):
        p, q = layout.hexside_segment(Hexside((0, 0), n))
        assert math.dist(p, q) == pytest.approx(1.0)  # a regular hexagon's side equals its size
        mid = ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
        a, b = layout.to_board((0, 0)), layout.to_board(n)
        assert mid == pytest.approx(((a[0] + b[0]) / 2, (a[1] + b[1]) / 2))


class TestSnapper:
    layout = HexLayout(1.0, "flat", (0.0, 0.0))

    def edge_walk(self, offset):
        """A point `offset` inches across the edge from hex (0,0) towards (1,0) (negative: inside (0,0))."""
        a, b = self.layout.to_board((0, 0)), self.layout.to_board((1, 0))
        d = math.dist(a, b)
        t = 0.5 + offset / d
        return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)

    def test_depth_is_one_at_the_centre_and_zero_on_the_edge(self):
        assert self.layout.depth((0, 0), *self.layout.to_board((0, 0))) == pytest.approx(1.0)
        assert self.layout.depth((0, 0), *self.edge_walk(0.0)) == pytest.approx(0.0, abs=1e-9)
        apothem = math.sqrt(3) / 2
        assert self.layout.depth((0, 0), *self.edge_walk(0.2)) == pytest.approx(-0.2 / apothem)

    def test_keeps_its_hex_until_the_point_is_clearly_in_another(self):
        snap = HexSnapper(self.layout, margin=0.1)
        assert snap.snap("m1", *self.edge_walk(-0.3)) == (0, 0)
        assert snap.snap("m1", *self.edge_walk(0.05)) == (0, 0)  # just across: still (0,0)
        assert snap.snap("m1", *self.edge_walk(0.12)) == (1, 0)  # beyond the margin: (1,0)
        assert snap.snap("m1", *self.edge_walk(-0.05)) == (1, 0)  # back across a little: stays
        assert snap.snap("m1", *self.edge_walk(-0.15)) == (0, 0)

    def test_jitter_on_an_edge_does_not_flicker_but_a_plain_rounding_would(self):
        snap = HexSnapper(self.layout, margin=0.1)
        jitter = [(-1) ** i * 0.03 for i in range(40)]
        snapped = {snap.snap("m1", *self.edge_walk(j)) for j in jitter}
        plain = {self.layout.to_hex(*self.edge_walk(j)) for j in jitter}
        assert len(snapped) == 1 and len(plain) == 2

    def test_keys_are_independent_and_can_be_forgotten(self):
        snap = HexSnapper(self.layout)
        snap.snap("a", *self.edge_walk(-0.3))
        snap.snap("b", *self.edge_walk(0.3))
        assert (snap.current("a"), snap.current("b")) == ((0, 0), (1, 0))
        snap.forget("a")
        assert snap.current("a") is None
        assert snap.snap("a", *self.edge_walk(0.05)) == (1, 0)

    def test_margin_must_fit_inside_a_hex(self):
        with pytest.raises(ValueError, match="margin"):
            HexSnapper(self.layout, margin=1.0)
