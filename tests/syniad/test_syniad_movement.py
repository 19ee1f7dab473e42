"""Syniad movement: hand-worked golden cases, an independent reference on random maps, and paths."""

import json

import pytest

from table.hexgrid import distance
from table.rules.syniad.state import SyniadState
from table.rules.syniad.terrain import SyniadMap
from table.scene import load_scene
from tests.syniad.syniad_helpers import DATA, make_scene, random_scene, reference_moves

CASES = json.loads((DATA / "movement-cases.json").read_text())


@pytest.fixture(scope="module")
def golden_state():
    return SyniadState.from_scene(load_scene(DATA / CASES["scene"]))


@pytest.mark.parametrize("case", CASES["cases"], ids=lambda c: f"{c['unit']}->{c['hex']}")
def test_golden_movement_case(golden_state, case):
    reach = golden_state.reach(case["unit"])
    costs = dict(reach.reachable(golden_state.smap))
    h = tuple(case["hex"])
    assert costs.get(h) == case["cost"], case["why"]
    if "path" in case:
        assert reach.path(golden_state.smap, h) == [tuple(p) for p in case["path"]]


def test_artillery_pays_two_to_cross_an_unbridged_river_and_nothing_on_a_bridge():
    ring_rivers = [((2, 2), n) for n in [(3, 2), (3, 1), (2, 1), (1, 2), (1, 3), (2, 3)]]
    units = [("art", "A", (2, 2), 3, 4, "artillery"), ("inf", "A", (2, 2), 3, 4), ("foe", "B", (7, 0), 1, 1)]
    state = SyniadState.from_scene(make_scene(units, rivers=ring_rivers))
    assert dict(state.reach("art").reachable(state.smap))[(3, 2)] == 3
    assert dict(state.reach("inf").reachable(state.smap))[(3, 2)] == 2
    bridged = make_scene(units, hexes=[((2, 2), "clear", True), ((3, 2), "forest", True)], rivers=ring_rivers)
    state = SyniadState.from_scene(bridged)
    assert dict(state.reach("art").reachable(state.smap))[(3, 2)] == 1


def test_a_unit_starting_next_to_an_enemy_may_leave():
    state = SyniadState.from_scene(make_scene([("a", "A", (2, 2), 2, 1), ("b", "B", (3, 2), 1, 1)]))
    costs = dict(state.reach("a").reachable(state.smap))
    assert costs[(1, 2)] == 1 and costs[(0, 2)] == 2  # (1,2) is not next to the enemy: the move goes on


@pytest.mark.parametrize("seed", range(12))
def test_search_matches_the_reference_on_random_maps(seed):
    state = SyniadState.from_scene(random_scene(seed))
    for uid, c in state.counters.items():
        reach = state.reach(uid)
        got = dict(reach.reachable(state.smap))
        assert got == reference_moves(state, uid), uid
        for h, cost in got.items():
            path = reach.path(state.smap, h)
            assert path[0] == c.hex and path[-1] == h
            steps = list(zip(path, path[1:], strict=False))
            assert all(distance(a, b) == 1 for a, b in steps)
            assert sum(state.smap.enter_cost(a, b, c.artillery) for a, b in steps) == cost
            assert all(state.owner(p) in (None, c.player) for p in path)
            assert not any(state.enemy_adjacent(p, c.player) for p in path[1:-1])


def test_map_costs():
    smap = SyniadMap.build([(0, 0), (1, 0), (0, 1)], {(1, 0): "swamp", (0, 1): "water"}, [], [])
    assert smap.enter_cost((0, 0), (1, 0)) == 3
    assert smap.enter_cost((0, 0), (0, 1)) is None
    assert not smap.enterable((0, 1)) and smap.enterable((1, 0)) and not smap.enterable((9, 9))
