"""`report` works every enemy unit pair out in one batch (table/rules/age_of_tyrants/screen.py); it must give
exactly what the per-pair questions give (`distance`, `los`: report_pair), under every ruling that
changes LOS or measuring, with round and rectangular bases, hills, woods, smoke and wreckage."""

from __future__ import annotations

from dataclasses import replace

import pytest
from aot_scenes import make_scene

from table.rules.age_of_tyrants import AgeOfTyrants
from table.scene import Base

RULINGS = [{}, {"concealment_depth_from": "centre"}, {"concealment_hides_viewer": False},
           {"round_to": 0.25}, {"measure": "centre"}]


def one_by_one(scene, rulings):
    rules = AgeOfTyrants(scene, rulings)
    return [rules.report_pair(a, b) for a, b in rules.enemy_pairs()]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("rulings", RULINGS, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()) or "-")
def test_the_batch_matches_the_questions_pair_by_pair(seed, rulings):
    scene = make_scene(seed=seed, platoons=3, per_platoon=4, pieces=30)
    assert AgeOfTyrants(scene, rulings).report()["pairs"] == one_by_one(scene, rulings)


@pytest.mark.parametrize("seed", [4, 5])
def test_the_batch_matches_with_rectangular_bases_and_smoke(seed):
    scene = make_scene(seed=seed, platoons=3, per_platoon=4, pieces=24)
    tank = Base(shape="rect", width_mm=40.0, depth_mm=60.0)
    models = tuple(replace(m, base=tank) if i % 5 == 0 else m for i, m in enumerate(scene.models))
    extra = {**scene.extra, "smoke": [{"id": "s1", "x": 24, "y": 20}, {"id": "s2", "x": 12, "y": 30}]}
    scene = replace(scene, models=models, extra=extra)
    assert AgeOfTyrants(scene).report()["pairs"] == one_by_one(scene, {})
