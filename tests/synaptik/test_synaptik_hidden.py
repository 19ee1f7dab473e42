"""The batched proof of no sight (`hidden_many`) against the exact search, pair by pair: it may leave a
hidden pair unproved (the search then settles it) but must never call a pair hidden that the exact
search finds a sight line for; and it does prove the cases it exists for (several pieces together)."""

from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Polygon

from table.rules.synaptik.hidden import hidden_many
from table.rules.synaptik.los import SightLines
from table.scene import Base, Model
from table.spatial import ShapeIndex


def lines_over(blockers: list[Polygon]) -> SightLines:
    return SightLines(ShapeIndex([f"w{k}" for k in range(len(blockers))], blockers))


@st.composite
def skirmishes(draw):
    """Two or three bases a side about 10in apart, 1-5 boxes or triangles between them."""
    shape = draw(st.sampled_from(["circle", "circle", "oval", "rect"]))
    width = draw(st.floats(25, 60))
    base = Base(shape, width, width if shape == "circle" else draw(st.floats(25, 60)))
    side_a = [Model(f"a{k}", "a", draw(st.floats(8, 11)), draw(st.floats(6, 14)), draw(st.floats(-180, 180)),
                    base=base) for k in range(draw(st.integers(2, 3)))]
    side_b = [Model(f"b{k}", "b", draw(st.floats(19, 22)), draw(st.floats(6, 14)), draw(st.floats(-180, 180)),
                    base=base) for k in range(draw(st.integers(2, 3)))]
    blockers = []
    for _ in range(draw(st.integers(1, 5))):
        x, y = draw(st.floats(12, 17)), draw(st.floats(5, 14))
        w, h = draw(st.floats(0.1, 3)), draw(st.floats(0.5, 5))
        if draw(st.booleans()):
            blockers.append(Polygon([(x, y), (x + w, y), (x + w, y + h), (x, y + h)]))
        else:
            blockers.append(Polygon([(x, y), (x + w, y + h / 2), (x, y + h)]))
    return side_a, side_b, blockers


@settings(max_examples=60, deadline=None)
@given(skirmishes())
def test_a_pair_proved_hidden_has_no_sight_line(skirmish):
    side_a, side_b, blockers = skirmish
    lines = lines_over(blockers)
    pairs = [(a, b) for a in side_a for b in side_b]
    hidden = hidden_many(lines, pairs)
    for (a, b), proved in zip(pairs, hidden, strict=True):
        if proved:
            assert lines.search(a, b) is None, (a.id, b.id)


def test_a_pair_behind_three_separate_pieces_is_proved_at_once():
    """No one piece spans the corridor, so only the search or the batched proof can tell."""
    a, b = Model("a1", "a", 10, 30), Model("b1", "b", 30, 30)
    gap = [Polygon([(15, 29.9), (17, 29.9), (17, 31), (15, 31)]),
           Polygon([(23, 29), (25, 29), (25, 30.1), (23, 30.1)])]
    closed = gap + [Polygon([(19, 29), (21, 29), (21, 31), (19, 31)])]
    assert hidden_many(lines_over(closed), [(a, b)]).tolist() == [True]
    assert hidden_many(lines_over(gap), [(a, b)]).tolist() == [False]  # a slanted line passes the gap
    assert lines_over(gap).search(a, b) is not None


def test_overlapping_bases_and_no_pairs_are_never_proved():
    a, b = Model("a1", "a", 10, 30), Model("b1", "b", 10.5, 30)
    wall = [Polygon([(12, 20), (13, 20), (13, 40), (12, 40)])]
    assert hidden_many(lines_over(wall), [(a, b)]).tolist() == [False]
    assert hidden_many(lines_over(wall), []).tolist() == []
