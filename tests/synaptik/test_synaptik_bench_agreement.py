"""The engine's fast report and the plain baseline the bench times it against give the same answers."""

import importlib.util
import sys
from pathlib import Path

import pytest

from table.rules.synaptik import Synaptik

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load(name):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("seed", [2, 6, 9])
def test_fast_report_equals_the_plain_baseline(seed):
    scene = load("synaptik_scene").make_scene(seed, units_per_side=3, models_per_unit=4, pieces=16)
    fast = Synaptik(scene).report()
    plain = load("synaptik_baseline").plain_report(scene)
    assert fast == plain
    pairs = fast["pairs"]
    assert len(pairs) == 18  # 3 x 3 enemy units, both ways
    # these seeds exercise every path: hidden pairs, sight past a blocked centre line, cover
    centre = [[list(scene.model(m).position) for m in p["los"]["models"]] for p in pairs]
    assert any(not p["los"]["visible"] for p in pairs)
    assert any(p["los"]["visible"] and p["los"]["line"] != c for p, c in zip(pairs, centre, strict=True))
    assert any(p["los"]["cover_dice"] > 0 for p in pairs)
