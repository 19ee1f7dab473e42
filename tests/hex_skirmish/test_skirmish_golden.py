"""Golden cases (tests/data/hex_skirmish/cases.json): scene questions against answers worked out by hand."""

from __future__ import annotations

import json
from typing import Any

import pytest

from table.errors import QueryError
from tests.hex_skirmish.skirmish_helpers import DATA, rules_for

CASES = json.loads((DATA / "cases.json").read_text(encoding="utf-8"))["cases"]


def _key(item: Any) -> str:
    if isinstance(item, dict) and "hex" in item and not isinstance(item.get("hex"), dict):
        return json.dumps(item["hex"])
    return json.dumps(item, sort_keys=True)


def _subset(expected: Any, actual: Any, where: str) -> None:
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected an object, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{where}: no key {key!r} in {sorted(actual)}"
            _subset(value, actual[key], f"{where}.{key}")
    else:
        assert actual == expected, f"{where}: expected {expected!r}, got {actual!r}"


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case(case: dict[str, Any]) -> None:
    def answer() -> Any:
        rules = rules_for(case["scene"], case.get("patch"), case.get("rulings"))
        return rules.ask(case["question"], case["args"], seed=case.get("seed"))

    if "error" in case:
        with pytest.raises(QueryError, match=None) as caught:
            answer()
        assert case["error"] in str(caught.value)
        return
    got = answer()
    _subset(case.get("expect", {}), got, "answer")
    for key, items in case.get("same_items", {}).items():
        assert sorted(map(_key, got[key])) == sorted(map(_key, items)), f"{key}: {got[key]!r}"
        assert sorted(json.dumps(i, sort_keys=True) for i in got[key]) == \
            sorted(json.dumps(i, sort_keys=True) for i in items), f"{key}: {got[key]!r}"
    for key, items in case.get("includes", {}).items():
        present = {json.dumps(i, sort_keys=True) for i in got[key]}
        for item in items:
            assert json.dumps(item, sort_keys=True) in present, f"{key}: {item!r} missing from {got[key]!r}"
    for key, items in case.get("excludes", {}).items():
        present = {_key(i) for i in got[key]}
        for item in items:
            assert json.dumps(item) not in present, f"{key}: {item!r} should not be in {got[key]!r}"
