"""Sight through the joint of touching terrain, in every rule system that draws sight lines: sections of a
wall block as one outline, pieces meeting at a corner close it (unless `corner_joint=open`), and a line
grazing the outside of the joined outline still sees. Worked by hand on scenes; the hex lines too."""

import json

import pytest

from table.cli import main
from table.hexgrid import distance, hex_round, line
from table.rules.syniad.sight import BlockingGrid, sight, visible_many

INCH_SYSTEMS = ("synaptik", "age_of_tyrants")


def scene(ruleset: str, pieces: list[list[list[float]]], a: tuple[float, float], b: tuple[float, float]) -> dict:
    return {"format": "smarttable-scene/1", "ruleset": ruleset, "board": {"width": 48, "height": 48},
            "terrain": [{"id": f"s{k}", "polygon": p, "height": 5, "traits": ["impassable"]}
                        for k, p in enumerate(pieces)],
            "units": [{"id": "a", "player": "A"}, {"id": "b", "player": "B"}],
            "models": [{"id": "a1", "unit": "a", "x": a[0], "y": a[1]},
                       {"id": "b1", "unit": "b", "x": b[0], "y": b[1]}]}


def los(tmp_path, capsys, doc: dict, *rulings: str) -> dict:
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(doc))
    args = ["query", str(path), "los", "a1", "b1"]
    for ruling in rulings:
        args += ["--ruling", ruling]
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def wall(sections: int, x0: float = 10.0, x1: float = 30.0, y0: float = 20.0, y1: float = 21.0):
    """A 20" wall cut into equal flush sections; the x of each joint."""
    xs = [x0 + (x1 - x0) * k / sections for k in range(sections + 1)]
    return [[[a, y0], [b, y0], [b, y1], [a, y1]] for a, b in zip(xs[:-1], xs[1:], strict=True)], xs[1:-1]


@pytest.mark.parametrize("ruleset", INCH_SYSTEMS)
@pytest.mark.parametrize("sections", [2, 3, 4, 5])
def test_a_line_along_every_joint_of_a_sectioned_wall_is_blocked(tmp_path, capsys, ruleset, sections):
    pieces, joints = wall(sections)
    for k, x in enumerate(joints):
        # the centre line runs exactly along the joint; every other line between the 25 mm bases
        # (within 0.5" of x) crosses the 20" wall too
        answer = los(tmp_path, capsys, scene(ruleset, pieces, (x, 10), (x, 32)))
        assert answer["visible"] is False, (x, answer)
        assert set(answer["blocked_by"]) == {f"s{k}", f"s{k + 1}"}
        whole = los(tmp_path, capsys, scene(ruleset, [[[10, 20], [30, 20], [30, 21], [10, 21]]], (x, 10), (x, 32)))
        assert whole["visible"] is False


@pytest.mark.parametrize("ruleset", INCH_SYSTEMS)
def test_a_line_grazing_the_end_of_the_joined_wall_sees(tmp_path, capsys, ruleset):
    pieces, _ = wall(4)
    answer = los(tmp_path, capsys, scene(ruleset, pieces, (30, 10), (30, 32)))  # along the wall's end face
    assert answer["visible"] is True and answer["blocked_by"] == []
    answer = los(tmp_path, capsys, scene(ruleset, pieces, (5, 20), (40, 20)))  # along its long face
    assert answer["visible"] is True


@pytest.mark.parametrize("ruleset", INCH_SYSTEMS)
def test_pieces_meeting_at_a_corner_block_through_it_unless_the_ruling_opens_it(tmp_path, capsys, ruleset):
    # squares [10,20]x[10,20] and [20,30]x[20,30] meet at (20, 20); the free quadrants up-left and
    # down-right meet only in that point, so every sight line between them passes through it
    pieces = [[[10, 10], [20, 10], [20, 20], [10, 20]], [[20, 20], [30, 20], [30, 30], [20, 30]]]
    doc = scene(ruleset, pieces, (12, 28), (28, 12))
    closed = los(tmp_path, capsys, doc)
    assert closed["visible"] is False and set(closed["blocked_by"]) == {"s0", "s1"}
    opened = los(tmp_path, capsys, doc, 'corner_joint="open"')
    assert opened["visible"] is True


@pytest.mark.parametrize("ruleset", INCH_SYSTEMS)
def test_overlapping_pieces_block_like_one(tmp_path, capsys, ruleset):
    pieces = [[[10, 20], [20.5, 20], [20.5, 21], [10, 21]], [[19.5, 20], [30, 20], [30, 21], [19.5, 21]]]
    for x in (19.5, 20.0, 20.5):  # along either piece's end, which lies inside the other
        answer = los(tmp_path, capsys, scene(ruleset, pieces, (x, 10), (x, 32)))
        assert answer["visible"] is False


@pytest.mark.parametrize("ruleset", INCH_SYSTEMS)
def test_a_bad_corner_joint_ruling_is_one_line(tmp_path, capsys, ruleset):
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(scene(ruleset, wall(2)[0], (5, 5), (5, 40))))
    assert main(["query", str(path), "los", "a1", "b1", "--ruling", "corner_joint=ajar"]) == 2
    assert "ruling corner_joint: expected one of closed, open, got 'ajar'" in capsys.readouterr().err


def _ties(a, b):
    """The hexes on either side of each point of the a-b line that lies exactly on a hexside."""
    n = distance(a, b)
    found = []
    for i in range(1, n):
        q, r = a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n
        plus, minus = hex_round(q + 1e-6, r + 1e-6), hex_round(q - 1e-6, r - 1e-6)
        if plus != minus:
            found.append((plus, minus))
    return found


def test_hex_lines_along_a_hexside_between_two_blocking_hexes_are_blocked():
    """Syniad and hex skirmish draw the nudged hex line (hexgrid.line): where it runs along the side
    between two blocking hexes it takes one of them, so two touching blockers block as one."""
    a = (0, 0)
    cases = 0
    for q in range(-7, 8):
        for r in range(-7, 8):
            b = (q, r)
            for pair in _ties(a, b):
                blocking = set(pair) - {a, b}
                if len(blocking) < 2:
                    continue
                cases += 1
                assert set(line(a, b)) & blocking
                assert sight(a, b, blocking)["visible"] is False
                everywhere = [(x, y) for x in range(-9, 10) for y in range(-9, 10)]
                assert not visible_many([(a, b)], BlockingGrid(everywhere, blocking))[0]
    assert cases > 20
