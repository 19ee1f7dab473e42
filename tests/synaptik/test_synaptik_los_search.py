"""Line of sight from any point of one base to any point of the other, checked against brute force:
whenever some sampled base-to-base segment clears the blockers with a margin, the engine must see;
whenever the engine sees, its sight line must run base to base and clear every blocker."""

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Polygon

from table.geometry import GRAZE, footprint
from table.rules.synaptik.los import SightLines
from table.scene import Base, Model
from table.spatial import ShapeIndex

MARGIN = 0.003  # brute force's sampled segments must clear the blockers by this much


def brute_force_sees(a: Model, b: Model, blockers: list[Polygon], samples: int = 48) -> bool:
    pa = [footprint(a).exterior.interpolate(k / samples, normalized=True) for k in range(samples)]
    pb = [footprint(b).exterior.interpolate(k / samples, normalized=True) for k in range(samples)]
    pa = np.array([[p.x, p.y] for p in pa] + [a.position])
    pb = np.array([[p.x, p.y] for p in pb] + [b.position])
    segments = np.stack([np.repeat(pa, len(pb), axis=0), np.tile(pb, (len(pa), 1))], axis=1)
    wall = shapely.union_all([p.buffer(MARGIN) for p in blockers])
    shapely.prepare(wall)
    return not shapely.intersects(shapely.linestrings(segments), wall).all()


def check_line(line, a: Model, b: Model, blockers: list[Polygon]) -> None:
    start, end = line
    assert footprint(a).distance(shapely.points(start)) < 1e-6
    assert footprint(b).distance(shapely.points(end)) < 1e-6
    if start != end:
        for poly in blockers:
            assert not LineString([start, end]).intersects(poly.buffer(-2 * GRAZE, join_style="mitre"))


@st.composite
def duels(draw):
    """Two bases about 10in apart with 1-4 boxes or triangles around the line between them."""
    shape = draw(st.sampled_from(["circle", "circle", "oval", "rect"]))
    width = draw(st.floats(25, 60))
    base = Base(shape, width, width if shape == "circle" else draw(st.floats(25, 60)))
    a = Model("a1", "a", 10, 10, draw(st.floats(-180, 180)), base=base)
    b = Model("b1", "b", 20, draw(st.floats(7, 13)), draw(st.floats(-180, 180)), base=base)
    blockers = []
    for _ in range(draw(st.integers(1, 4))):
        x, y = draw(st.floats(12, 18)), draw(st.floats(7, 13))
        w, h = draw(st.floats(0.1, 3)), draw(st.floats(0.1, 3))
        if draw(st.booleans()):
            blockers.append(Polygon([(x, y), (x + w, y), (x + w, y + h), (x, y + h)]))
        else:
            blockers.append(Polygon([(x, y), (x + w, y + h / 2), (x, y + h)]))
    return a, b, blockers


@settings(max_examples=100, deadline=None)
@given(duels())
def test_sight_agrees_with_brute_force_and_is_reciprocal(duel):
    a, b, blockers = duel
    sight = SightLines(ShapeIndex([f"w{k}" for k in range(len(blockers))], blockers))
    forward = sight.between([a], [b])
    if brute_force_sees(a, b, blockers):
        assert forward.visible
    if forward.visible:
        check_line(forward.line, a, b, blockers)
    else:
        assert forward.line is None and forward.blocked_by
    backward = sight.between([b], [a])
    assert backward.visible == forward.visible
    if backward.visible:
        check_line(backward.line, b, a, blockers)


@settings(max_examples=40, deadline=None)
@given(duels(), st.floats(-20, 20), st.floats(-20, 20))
def test_sight_unchanged_by_shifting_the_scene(duel, dx, dy):
    a, b, blockers = duel
    sight = SightLines(ShapeIndex([f"w{k}" for k in range(len(blockers))], blockers)).between([a], [b])
    shifted = [shapely.affinity.translate(p, dx, dy) for p in blockers]
    a2 = Model("a1", "a", a.x + dx, a.y + dy, a.heading, base=a.base)
    b2 = Model("b1", "b", b.x + dx, b.y + dy, b.heading, base=b.base)
    moved = SightLines(ShapeIndex([f"w{k}" for k in range(len(blockers))], shifted)).between([a2], [b2])
    assert moved.visible == sight.visible


def test_a_slanted_gap_is_found():
    """Centre line blocked by both walls; only lines through the gap's corners pass."""
    a, b = Model("a1", "a", 10, 30), Model("b1", "b", 30, 30)
    walls = [Polygon([(15, 29.9), (17, 29.9), (17, 31), (15, 31)]),
             Polygon([(23, 29), (25, 29), (25, 30.1), (23, 30.1)])]
    sight = SightLines(ShapeIndex(["w1", "w2"], walls)).between([a], [b])
    assert sight.visible
    check_line(sight.line, a, b, walls)
    closed = walls + [Polygon([(19, 29), (21, 29), (21, 31), (19, 31)])]
    assert not SightLines(ShapeIndex(["w1", "w2", "w3"], closed)).between([a], [b]).visible
