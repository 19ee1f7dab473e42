"""Segments against polygons: Cyrus-Beck clipping, tangents, the grazing rule and the spatial index,
each checked against plain shapely."""

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Polygon

from table.geometry import (
    GRAZE,
    convex_clip,
    footprint,
    footprint_vertices,
    outer_tangents,
    tangent_points_many,
)
from table.scene import Base, Model
from table.spatial import ShapeIndex

XY = st.floats(0, 20)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["circle", "oval", "rect"]), st.floats(-180, 180), XY, XY, XY, XY)
def test_convex_clip_matches_shapely(shape, heading, x0, y0, x1, y1):
    model = Model("m", "u", 10, 10, heading, base=Base(shape, 60, 35 if shape != "circle" else 60))
    if abs(x1 - x0) + abs(y1 - y0) < 1e-3:
        return
    o, d = np.array([[x0, y0]]), np.array([[x1 - x0, y1 - y0]])
    t_in, t_out = convex_clip(footprint_vertices(model), o, d)
    unit = d[0] / np.hypot(*d[0])
    far = LineString([o[0] - 100 * unit, o[0] + 100 * unit])
    chord = far.intersection(footprint(model))
    if chord.length < 1e-6:
        return  # a tangent or a miss: covered by the tangent test
    assert t_in[0] <= t_out[0]
    ends = np.array([o[0] + t_in[0] * d[0], o[0] + t_out[0] * d[0]])
    expected = np.asarray(chord.coords)
    if np.dot(expected[1] - expected[0], d[0]) < 0:
        expected = expected[::-1]
    assert ends == pytest.approx(expected, abs=1e-7)


def test_convex_clip_reports_a_miss():
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
    t_in, t_out = convex_clip(square, np.array([[0, 2.0], [0.5, -1]]), np.array([[1, 0.0], [0, 1.0]]))
    assert t_in[0] > t_out[0]  # y = 2 misses
    assert (t_in[1], t_out[1]) == pytest.approx((1.0, 2.0))


def test_tangent_lines_touch_but_do_not_enter():
    model = Model("m", "u", 10, 10, 30, base=Base("oval", 60, 35))
    verts = footprint_vertices(model)
    p = np.array([2.0, 13.0])
    outside, touching = tangent_points_many(verts, np.array([p, [10.0, 10.0]]))
    assert outside.tolist() == [p.tolist()]  # from inside the base (10, 10): no tangent
    touching = touching[0]
    shrunk = footprint(model).buffer(-1e-7)
    for t in touching:
        line = LineString([p, p + 3 * (t - p)])
        assert line.distance(footprint(model)) < 1e-9 and not line.intersects(shrunk)


def test_outer_tangents_are_the_hull_bridges():
    a = footprint_vertices(Model("a", "u", 0, 0, base=Base("circle", 25.4, 25.4)))
    b = footprint_vertices(Model("b", "u", 10, 0, base=Base("circle", 50.8, 50.8)))
    bridges = outer_tangents(a, b)
    assert len(bridges) == 2
    hull = shapely.convex_hull(shapely.multipoints(np.vstack([a, b])))
    for p, q in bridges:
        assert LineString([p, q]).within(hull.buffer(1e-9))
        assert hull.exterior.distance(shapely.points(p)) < 1e-9


def test_grazing_is_not_crossing():
    index = ShapeIndex(["box"], [Polygon([(0, 0), (2, 0), (2, 2), (0, 2)])])
    assert index.crossing((-1, 2), (3, 2)) == []  # along an edge
    assert index.crossing((-1, -1), (1, 1)) == [0]
    assert index.crossing((-1, 2 - GRAZE / 2), (3, 2 - GRAZE / 2)) == []  # within the tolerance
    assert index.crossing((-1, 1.99), (3, 1.99)) == [0]
    assert index.containing((1, 1)) == [0] and index.containing((2, 2)) == [0]
    assert index.containing((3, 3)) == []


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(XY, XY, st.floats(0.2, 4), st.floats(0.2, 4)), min_size=1, max_size=12),
       st.lists(st.tuples(XY, XY, XY, XY), min_size=1, max_size=20))
def test_index_answers_as_a_plain_loop(boxes, segments):
    shapes = [Polygon([(x, y), (x + w, y), (x + w, y + h), (x, y + h)]) for x, y, w, h in boxes]
    index = ShapeIndex([str(k) for k in range(len(shapes))], shapes)
    segs = np.array([[[a, b], [c, d]] for a, b, c, d in segments])
    found = index.crossing_many(segs)
    blocked = index.blocked_many(segs)
    for s, hits in zip(segs, found, strict=True):
        line = LineString(s)
        cores = [shape.buffer(-GRAZE, join_style="mitre") for shape in shapes]
        assert hits == [k for k, c in enumerate(cores) if line.intersects(c)]
    assert blocked.tolist() == [bool(h) for h in found]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["circle", "oval", "rect"]), st.sampled_from(["circle", "oval", "rect"]),
       st.floats(-180, 180), st.floats(-180, 180), st.floats(0, 360), st.floats(3, 15))
def test_outer_tangents_support_both_outlines(shape_a, shape_b, heading_a, heading_b, bearing, gap):
    a = Model("a", "u", 10, 10, heading_a, base=Base(shape_a, 60, 35 if shape_a != "circle" else 60))
    x, y = 10 + gap * np.cos(np.radians(bearing)), 10 + gap * np.sin(np.radians(bearing))
    b = Model("b", "u", x, y, heading_b, base=Base(shape_b, 32, 50 if shape_b != "circle" else 32))
    va, vb = footprint_vertices(a), footprint_vertices(b)
    bridges = outer_tangents(va, vb)
    assert len(bridges) == 2
    for p, q in bridges:
        normal = np.array([-(q - p)[1], (q - p)[0]])
        side_a, side_b = (va - p) @ normal, (vb - p) @ normal
        assert (side_a <= 1e-9).all() and (side_b <= 1e-9).all() or (side_a >= -1e-9).all() and (
            side_b >= -1e-9).all()
