"""The engine's LOS (index and numpy fast paths) agrees with the plain shapely baseline in
bench/aot_baseline.py on generated battlefields with every kind of terrain, hills and wreckage."""

from __future__ import annotations

import pytest
from aot_baseline import plain_los, plain_pairs
from aot_scenes import make_scene

from table.rules.age_of_tyrants import AgeOfTyrants


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_report_pairs_match_the_plain_baseline(seed):
    scene = make_scene(seed=seed, platoons=3, per_platoon=3, pieces=24)
    pairs = AgeOfTyrants(scene).report()["pairs"]
    mine = [(p["from"], p["to"], p["distance"], p["band"], p["los"]["visible"],
             sorted(p["los"]["blocked_by"]), [p["los"]["from"], p["los"]["to"]]) for p in pairs]
    theirs = [(p["from"], p["to"], p["distance"], p["band"], p["visible"], p["blocked_by"], p["models"])
              for p in plain_pairs(scene)]
    assert mine == theirs


@pytest.mark.parametrize("seed", [5, 6])
def test_every_base_pair_matches_the_plain_baseline(seed):
    scene = make_scene(seed=seed, platoons=2, per_platoon=3, pieces=24)
    rules = AgeOfTyrants(scene)
    size = dict(rules.sizes)
    bases = rules.fighting()
    outcomes = []
    for a in bases:
        for b in bases:
            if rules.player(a) == rules.player(b):
                continue
            sight = rules.los_between(a, b)
            visible, blocked = plain_los(scene, a, b, size)
            assert (sight.visible, sorted(sight.blocked_by)) == (visible, sorted(blocked)), (a.id, b.id)
            outcomes.append(visible)
    assert any(outcomes) and not all(outcomes)
