"""Golden cases: each row of tests/data/age_of_tyrants/cases.json asks a scene a question and names the
part of the answer the rule text fixes (its `why`)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from tests.age_of_tyrants.aot_helpers import DATA, golden

CASES = json.loads((DATA / "cases.json").read_text())


def contains(actual: Any, expected: Any, path: str = "$") -> None:
    """`expected` is part of `actual`: objects key by key, lists item by item, numbers to 1e-3."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{path}: expected an object, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{path}.{key}: missing in {actual!r}"
            contains(actual[key], value, f"{path}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list), f"{path}: expected a list, got {actual!r}"
        assert len(actual) == len(expected), f"{path}: {actual!r} != {expected!r}"
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            contains(a, e, f"{path}[{i}]")
    elif isinstance(expected, bool) or expected is None or isinstance(expected, str):
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"
    else:
        assert isinstance(actual, (int, float)) and math.isclose(actual, expected, abs_tol=1e-3), \
            f"{path}: {actual!r} != {expected!r}"


@pytest.mark.parametrize("case", CASES, ids=[f"{c['scene']}:{c['q']}:{'_'.join(c['args'])}"
                                             + ("+" + ",".join(c["rulings"]) if "rulings" in c else "")
                                             for c in CASES])
def test_golden_case(case: dict[str, Any]) -> None:
    rules = golden(case["scene"], **case.get("rulings", {}))
    options = {"seed": case["seed"]} if "seed" in case else {}
    answer = rules.ask(case["q"], list(case["args"]), **options)
    contains(answer, case["expect"])


def test_every_scene_file_has_cases() -> None:
    used = {c["scene"] for c in CASES}
    assert used == {p.name for p in DATA.glob("*.json")} - {"cases.json"}
