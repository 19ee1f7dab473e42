"""The hex rule-system base: hexes on the board, hex arguments from the command line."""

import pytest

from table.errors import QueryError
from table.rules import get_ruleset
from table.rules.hexbase import parse_hex
from table.scene import parse_scene


@pytest.mark.parametrize("text, hex_", [("3,-2", (3, -2)), ("[3, -2]", (3, -2)), ("-1 4", (-1, 4)),
                                        (" [0,0] ", (0, 0))])
def test_parse_hex(text, hex_):
    assert parse_hex(text) == hex_


@pytest.mark.parametrize("text", ["3", "a,b", "1,2,3", "1.5,2"])
def test_parse_hex_refuses_other_text(text):
    with pytest.raises(QueryError, match="expected a hex as Q,R"):
        parse_hex(text)


def test_on_board_agrees_with_the_board_hexes():
    scene = parse_scene({"format": "smarttable-scene/1", "ruleset": "syniad",
                         "board": {"width": 12, "height": 12},
                         "hexgrid": {"size": 1.0, "orientation": "pointy", "origin": [0.0, 0.0]}})
    rules = get_ruleset("syniad")(scene)
    assert len(rules.board_hexes) > 40
    for q in range(-10, 15):
        for r in range(-5, 15):
            x, y = rules.layout.to_board((q, r))
            inside = -1e-9 <= x <= 12 + 1e-9 and -1e-9 <= y <= 12 + 1e-9
            assert rules.on_board((q, r)) == inside == ((q, r) in rules.board_hexes)
