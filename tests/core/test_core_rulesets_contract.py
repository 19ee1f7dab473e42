"""Every registered rule system answers the contract's common questions the same way."""

import os
import re
from pathlib import Path

import pytest

from table import registry
from table.errors import QueryError
from table.rules import all_rulesets, get_ruleset
from table.rules.hexbase import HexRuleset
from table.scene import parse_scene

ROOT = Path(__file__).resolve().parents[2]
RULE_TEXTS = ROOT.parent / "shared" / "rules"
RULESETS = [cls.name for cls in all_rulesets()]


def method(name: str) -> str:
    """How the rule system measures: on its hex grid, or in inches (centre or edge) by default."""
    cls = get_ruleset(name)
    return "hex" if issubclass(cls, HexRuleset) else cls.measure_default


def duel(ruleset: str):
    """Two lone models of opposing players, 10" apart (or 6 hexes on a 1" flat grid)."""
    hexed = method(ruleset) == "hex"
    where = ({"hex": [0, 0]}, {"hex": [6, 0]}) if hexed else ({"x": 10, "y": 10}, {"x": 20, "y": 10})
    stats = {"movement": 4, "combat_strength": 5, "size": 1}
    return parse_scene({
        "format": "smarttable-scene/1", "ruleset": ruleset,
        "hexgrid": {"size": 1.0, "orientation": "flat", "origin": [2.0, 2.0]},
        "units": [{"id": "a", "player": "1", "stats": stats}, {"id": "b", "player": "2", "stats": stats}],
        "models": [{"id": "a1", "unit": "a", **where[0]}, {"id": "b1", "unit": "b", **where[1]}],
    })


def test_the_four_rule_systems_are_installed():
    assert {"synaptik", "age_of_tyrants", "syniad", "hex_skirmish"} <= set(registry.names())
    assert set(registry.names()) <= set(RULESETS)


@pytest.mark.parametrize("name", RULESETS)
def test_distance_has_the_contract_shape(name):
    ruleset = get_ruleset(name)(duel(name))
    answer = ruleset.ask("distance", ["a1", "b1"])
    assert answer["from"] == "a1" and answer["to"] == "b1"
    assert answer["method"] == method(name)
    expected = {"centre": 10.0, "edge": 10.0 - 25 / 25.4, "hex": 6}[method(name)]
    assert answer["distance"] == pytest.approx(expected, abs=0.005)
    # a unit id measures from its closest model
    assert ruleset.ask("distance", ["a", "b"])["distance"] == pytest.approx(expected, abs=0.005)


@pytest.mark.parametrize("name", RULESETS)
def test_unknown_ids_and_questions_are_query_errors(name):
    ruleset = get_ruleset(name)(duel(name))
    with pytest.raises(QueryError, match="zz"):
        ruleset.ask("distance", ["a1", "zz"])
    with pytest.raises(QueryError, match="usage"):
        ruleset.ask("distance", ["a1"])
    with pytest.raises(QueryError):
        ruleset.ask("no_such_question", [])


def _normalise(text: str) -> str:
    text = text.replace("\u201c", '"').replace("\u201d", '"').replace("\u2019", "'").replace("\u2018", "'")
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.parametrize("name", RULESETS)
def test_rulings_page_quotes_the_rule_text_verbatim(name):
    cls = get_ruleset(name)
    page, text = cls.rulings_page, cls.rule_text
    assert page and text, f"{name} declares no rulings page or rule text"
    doc = (ROOT / page).read_text(encoding="utf-8")
    if not (RULE_TEXTS / text).exists():
        absent = f"the rule texts ({RULE_TEXTS}) are not beside the repository"
        pytest.fail(absent) if os.environ.get("CI") == "true" else pytest.skip(absent)
    source = _normalise((RULE_TEXTS / text).read_text(encoding="utf-8"))
    quotes = [_normalise(line[1:]) for line in doc.splitlines() if line.startswith(">")]
    quotes = [q for q in quotes if len(q) > 20]
    assert len(quotes) >= 5, f"{page} quotes too little of the rule text"
    for quote in quotes:
        for piece in re.split(r"\s*(?:\.\.\.|\u2026|\[[^\]]*\])\s*", quote):
            piece = piece.strip(' "')
            if len(piece) > 12:
                assert piece in source, f"{page} quotes text not in {text}: {piece[:80]!r}"
