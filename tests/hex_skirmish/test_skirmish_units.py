"""Footprints, sizes, facing, and the sight and movement of units bigger than one hex."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table.errors import QueryError
from table.hexgrid import DIRECTIONS, HexLayout, distance
from table.rules.hex_skirmish import HexSkirmish
from table.rules.hex_skirmish.footprint import facing_direction, offsets
from table.rules.hex_skirmish.text import SIZES
from table.scene import parse_scene
from tests.hex_skirmish.skirmish_helpers import rules_for


def scene(units: list[dict], models: list[dict], **extra) -> HexSkirmish:
    doc = {"format": "smarttable-scene/1", "ruleset": "hex_skirmish", "board": {"width": 28, "height": 22},
           "hexgrid": {"size": 1.0, "orientation": "flat", "origin": [1.0, 1.0]},
           "units": units, "models": models, **extra}
    return HexSkirmish(parse_scene(doc))


# The text's table, written out again here: (long, wide) for Normal..Giant and vehicle sizes 1..10.
TEXT_SIZES = {"normal": (1, 1), "medium": (2, 1), "large": (2, 2), "serpentine": (3, 2), "giant": (3, 3),
              1: (1, 1), 2: (2, 1), 3: (2, 2), 4: (3, 2), 5: (3, 3), 6: (4, 3), 7: (4, 4), 8: (5, 4),
              9: (5, 5), 10: (6, 5)}


@pytest.mark.parametrize("size", list(TEXT_SIZES))
def test_every_size_in_the_text_covers_long_times_wide_hexes_that_span_its_length(size):
    long, wide = TEXT_SIZES[size]
    rules = scene([{"id": "u", "player": "A", "stats": {"movement": 4, "size": size}}],
                  [{"id": "u", "unit": "u", "hex": [9, 3], "heading": 90}])
    hexes = [tuple(h) for h in rules.footprint("u")["hexes"]]
    assert len(hexes) == len(set(hexes)) == long * wide
    assert (9, 3) in hexes
    # along the facing (straight down the board, q fixed) the footprint spans `long` hexes
    assert max(h[1] for h in hexes if h[0] == 9) - min(h[1] for h in hexes if h[0] == 9) == long - 1
    assert len({h[0] for h in hexes}) == wide


@given(st.sampled_from(sorted(SIZES)), st.integers(0, 5), st.integers(0, 5))
def test_turning_a_footprint_keeps_its_shape(size, d1, d2):
    def shape(d):
        hexes = offsets(size, d)
        return sorted(distance(a, b) for a in hexes for b in hexes)

    assert shape(d1) == shape(d2)


@pytest.mark.parametrize("orientation,heading,expected", [
    ("flat", 90, (0, 1)), ("flat", -90, (0, -1)), ("flat", 30, (1, 0)), ("flat", 150, (-1, 1)),
    ("pointy", 0, (1, 0)), ("pointy", 180, (-1, 0)), ("pointy", 60, (0, 1)),
])
def test_a_model_faces_the_hex_direction_nearest_its_heading(orientation, heading, expected):
    layout = HexLayout(1.0, orientation, (0.0, 0.0))
    assert DIRECTIONS[facing_direction(layout, heading)] == expected
    # 20 degrees either side still picks the same direction
    assert DIRECTIONS[facing_direction(layout, heading + 20)] == expected
    assert DIRECTIONS[facing_direction(layout, heading - 20)] == expected


def test_a_models_size_overrides_its_units_and_a_listed_footprint_overrides_both():
    rules = scene([{"id": "u", "player": "A", "stats": {"movement": 4, "size": "normal"}}],
                  [{"id": "big", "unit": "u", "hex": [9, 3], "heading": 90, "size": 5},
                   {"id": "odd", "unit": "u", "hex": [2, 2], "footprint": [[2, 2], [3, 2], [2, 3]]}])
    assert len(rules.footprint("big")["hexes"]) == 9
    assert rules.footprint("odd")["hexes"] == [[2, 2], [3, 2], [2, 3]]
    assert len(rules.footprint("u")["hexes"]) == 12


def test_a_bad_listed_footprint_names_the_model():
    rules = scene([{"id": "u", "player": "A"}],
                  [{"id": "m", "unit": "u", "hex": [2, 2], "footprint": [[2, "x"]]}])
    with pytest.raises(QueryError, match=r"models\[0\] \(m\)\.footprint\[0\]"):
        rules.distance("u", "u")


def test_moving_a_unit_of_several_models_asks_for_one_model():
    rules = scene([{"id": "u", "player": "A", "stats": {"movement": 4}}],
                  [{"id": "m1", "unit": "u", "hex": [2, 2]}, {"id": "m2", "unit": "u", "hex": [4, 2]}])
    with pytest.raises(QueryError, match="name one model"):
        rules.moves("u")
    assert rules.moves("m1")["reachable"]


def test_a_big_target_is_seen_when_one_of_its_hexes_is():
    units = [{"id": "s", "player": "A", "weapons": [{"name": "Rifle", "range": [6, 12]}]},
             {"id": "t", "player": "B", "stats": {"size": "medium"}}]
    hexes = [{"hex": [3, 3], "terrain": "mountain"}]
    models = [{"id": "s", "unit": "s", "hex": [0, 6]}, {"id": "t", "unit": "t", "hex": [6, 0], "heading": 90}]
    normal = scene(units[:1] + [{"id": "t", "player": "B"}], models, hexes=hexes)
    assert normal.los("s", "t")["visible"] is False
    assert normal.los("s", "t")["blocked_by"] == ["hex:3,3"]
    medium = scene(units, models, hexes=hexes)
    seen = medium.los("s", "t")
    assert seen["visible"] is True
    assert seen["hexes"][-1] == [6, 1]


def test_los_has_the_contract_shape_with_the_board_points_of_the_hex_centres():
    rules = rules_for("battle.json")
    seen = rules.los("a1", "b1")
    assert {"visible", "cover", "blocked_by", "line", "hexes"} <= set(seen)
    assert set(seen["cover"]) == {"light", "heavy"}
    (x0, y0), (x1, y1) = seen["line"]
    # flat hexes of size 1 from origin (1, 1): x = 1 + 1.5 q, y = 1 + sqrt(3) (r + q / 2)
    assert (x0, y0) == pytest.approx((1 + 1.5 * 2, 1 + math.sqrt(3) * 4))
    assert (x1, y1) == pytest.approx((1 + 1.5 * 8, 1 + math.sqrt(3) * 7))


def test_distance_is_symmetric_and_no_sight_line_is_shorter_than_it():
    rules = rules_for("battle.json")
    ids = ["a1", "a2", "a3", "a4", "a5", "b1", "b2", "b4", "b5", "b8"]
    for a in ids:
        for b in ids:
            assert rules.distance(a, b)["distance"] == rules.distance(b, a)["distance"]
            assert len(rules.los(a, b)["hexes"]) - 1 >= rules.distance(a, b)["distance"]


@settings(max_examples=40, deadline=None)
@given(st.integers(6, 12), st.integers(0, 4), st.integers(0, 8))
def test_on_open_ground_a_unit_reaches_every_hex_within_its_movement_at_one_point_a_hex(q, r, movement):
    from table.hexgrid import hex_range

    rules = scene([{"id": "u", "player": "A", "stats": {"movement": movement}}],
                  [{"id": "u", "unit": "u", "hex": [q, r]}])
    got = {tuple(spot["hex"]): spot["cost"] for spot in rules.moves("u")["reachable"]}
    board = rules.field.board
    assert got == {h: distance(h, (q, r)) for h in hex_range((q, r), movement) if h != (q, r) and h in board}
