"""Touching and overlapping blockers block as one outline (spatial.joined_cores): a wall cut into sections
stops exactly the lines the uncut wall stops, lines along the seams included."""

import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, box

from table.geometry import core
from table.spatial import ShapeIndex, joined_cores

X0, X1, Y0, Y1 = 10.0, 20.0, 5.0, 7.0  # the wall: 10" long, 2" thick


def sections(cuts: list[float], overlap: float) -> list:
    """The wall cut at `cuts` (x), each section reaching `overlap` inches into the next."""
    edges = [X0, *sorted(cuts), X1]
    return [box(max(X0, a - overlap), Y0, min(X1, b + overlap), Y1) for a, b in zip(edges[:-1], edges[1:], strict=True)]


def blocked_by_whole(a, b) -> bool:
    return LineString([a, b]).intersects(core(box(X0, Y0, X1, Y1)))


cut_lists = st.lists(st.floats(X0 + 0.5, X1 - 0.5), min_size=1, max_size=4, unique=True)
overlaps = st.sampled_from([0.0, 0.0, 0.3, 1e-9])
coord = st.floats(0, 30)


@settings(max_examples=150, deadline=None)
@given(cuts=cut_lists, overlap=overlaps, ax=coord, ay=coord, bx=coord, by=coord)
def test_the_sections_block_every_line_the_whole_wall_blocks(cuts, overlap, ax, ay, bx, by):
    pieces = sections(cuts, overlap)
    index = ShapeIndex([str(k) for k in range(len(pieces))], pieces, cores=joined_cores(pieces))
    assert bool(index.crossing((ax, ay), (bx, by))) == blocked_by_whole((ax, ay), (bx, by))


@settings(max_examples=150, deadline=None)
@given(cuts=cut_lists, overlap=overlaps, pick=st.integers(0, 3), y0=st.floats(-10, 4), y1=st.floats(8, 20),
       slant=st.floats(-0.2, 0.2))
def test_a_line_through_a_seam_is_stopped_by_both_sections(cuts, overlap, pick, y0, y1, slant):
    pieces = sections(cuts, overlap)
    seam = sorted(cuts)[pick % len(cuts)]
    # a line that crosses the wall exactly where two sections meet, straight or slanted through the seam
    a, b = (seam + slant * (y0 - 6.0), y0), (seam + slant * (y1 - 6.0), y1)
    index = ShapeIndex([str(k) for k in range(len(pieces))], pieces, cores=joined_cores(pieces))
    hits = index.crossing(a, b)
    assert hits and blocked_by_whole(a, b)
    if overlap == 0.0:
        k = sorted(cuts).index(seam)
        assert {k, k + 1} <= set(hits)


@settings(max_examples=100, deadline=None)
@given(cuts=cut_lists, overlap=overlaps, side=st.sampled_from([Y0, Y1]), start=st.floats(0, 9),
       end=st.floats(21, 30))
def test_a_line_grazing_the_outside_of_the_wall_still_sees(cuts, overlap, side, start, end):
    pieces = sections(cuts, overlap)
    index = ShapeIndex([str(k) for k in range(len(pieces))], pieces, cores=joined_cores(pieces))
    assert index.crossing((start, side), (end, side)) == []  # along the wall's long face
    assert index.crossing((X0, 0), (X0, 12)) == [] and index.crossing((X1, 0), (X1, 12)) == []


def test_pieces_meeting_at_a_corner_close_it_unless_the_ruling_opens_it():
    c, d = box(0, 0, 1, 1), box(1, 1, 2, 2)
    through = [((0, 2), (2, 0)), ((-1, 1), (3, 1)), ((1, -1), (1, 3)), ((0.5, 2), (1.5, 0))]
    closed = ShapeIndex(["c", "d"], [c, d], cores=joined_cores([c, d], close_corners=True))
    opened = ShapeIndex(["c", "d"], [c, d], cores=joined_cores([c, d], close_corners=False))
    for a, b in through:
        assert closed.crossing(a, b) == [0, 1], (a, b)
        assert opened.crossing(a, b) == [], (a, b)
    # the bridge is only at the point: a line along either piece's far side still sees
    assert closed.crossing((-1, 0), (3, 0)) == [] and closed.crossing((2, -1), (2, 3)) == []


def test_a_corner_touching_an_edge_is_a_joint_too():
    floor, post = box(0, 0, 4, 1), shapely.Polygon([(2, 1), (3, 2), (2, 3), (1, 2)])  # post's tip on the floor
    index = ShapeIndex(["floor", "post"], [floor, post], cores=joined_cores([floor, post]))
    assert index.crossing((0, 0.5 + 1.5), (4, 1 - 0.5)) != []  # slanted line through the touching point
    assert index.crossing((-1, 1), (5, 1)) == [0, 1]  # along the floor's top edge, through the tip
    assert index.crossing((-1, 1.01), (1.5, 1.01)) == []  # above the floor, left of the post


def test_apart_pieces_keep_their_own_cores():
    a, b = box(0, 0, 1, 1), box(1.001, 0, 2, 1)  # a gap of 0.001": ten times the grazing tolerance
    cores = joined_cores([a, b])
    assert cores[0].equals(core(a)) and cores[1].equals(core(b))
    index = ShapeIndex(["a", "b"], [a, b], cores=cores)
    assert index.crossing((1.0005, -1), (1.0005, 2)) == []
