"""Golden Synaptik answers as data: tests/data/synaptik/cases.json (each case says why)."""

import json
from pathlib import Path

import pytest

from table.errors import QueryError
from table.rules import get_ruleset
from table.scene import load_scene

DATA = Path(__file__).resolve().parents[1] / "data" / "synaptik"
CASES = json.loads((DATA / "cases.json").read_text())["cases"]


def ask(case):
    scene = load_scene(DATA / case["scene"])
    return get_ruleset(scene.ruleset)(scene, case.get("rulings")).ask(case["q"], case["args"])


def same(actual, expected):
    if isinstance(expected, float) or isinstance(actual, float):
        return actual == pytest.approx(expected, abs=1e-3)
    if isinstance(expected, list) and isinstance(actual, list):
        return len(actual) == len(expected) and all(same(a, e) for a, e in zip(actual, expected, strict=True))
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() >= expected.keys() and all(same(actual[k], v) for k, v in expected.items())
    return actual == expected


@pytest.mark.parametrize("case", CASES, ids=[f"{c['scene']}:{c['q']}:{'_'.join(c['args'])}" for c in CASES])
def test_golden_case(case):
    assert case["why"]
    if "error" in case:
        with pytest.raises(QueryError, match=case["error"]):
            ask(case)
        return
    answer = ask(case)
    for key, expected in case["expect"].items():
        assert same(answer[key], expected), f"{key}: {answer[key]!r} != {expected!r} ({case['why']})"
    if "cost" in case and isinstance(case["cost"], list):
        lo, hi = case["cost"]
        assert lo <= answer["cost"] <= hi
