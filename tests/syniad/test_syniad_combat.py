"""Syniad combat: points, winner, casualty rates (statistically), retreat priorities, pursuit, replay."""

import math
import random

import pytest

from table.rules.syniad import combat
from table.rules.syniad.state import SyniadState, map_from_scene
from tests.syniad.syniad_helpers import make_scene

T = (3, 3)  # the target hex; its neighbours: (4,3) (4,2) (3,2) (2,3) (2,4) (3,4)
TRIALS = 3000


def setup(units, hexes=(), rivers=()):
    scene = make_scene(units, hexes, rivers)
    smap = map_from_scene(scene)
    return lambda: SyniadState.from_scene(scene, smap)


def within(rate, expected, samples, sigmas=4.0):
    sd = math.sqrt(expected * (1 - expected) / samples)
    return abs(rate - expected) <= sigmas * sd


def test_points_double_the_attack_and_ties_go_to_the_defender():
    fresh = setup([("d", "B", T, 3, 14), ("a", "A", (4, 3), 3, 7)])
    details = combat.combat_details(fresh(), T, ["a"])
    assert (details["attacking_points"], details["defending_points"]) == (14, 14)
    assert combat.resolve(fresh(), T, ["a"], random.Random(1))["winner"] == "defender"
    fresh = setup([("d", "B", T, 3, 13), ("a", "A", (4, 3), 3, 7)])
    assert combat.resolve(fresh(), T, ["a"], random.Random(1))["winner"] == "attacker"


def test_eligible_attackers_are_adjacent_and_not_across_an_unbridged_river():
    units = [("d", "B", T, 3, 5), ("a1", "A", (4, 3), 3, 5), ("a2", "A", (3, 2), 3, 5),
             ("far", "A", (6, 2), 3, 5)]
    state = setup(units, rivers=[(T, (4, 3))])()
    assert combat.eligible_attackers(state, T, "A") == []  # everyone starts unavailable
    assert combat.eligible_attackers(state, T, "A", statuses=None) == ["a2"]
    bridged = setup(units, hexes=[(T, "clear", True), ((4, 3), "clear", True)], rivers=[(T, (4, 3))])()
    assert combat.eligible_attackers(bridged, T, "A", statuses=None) == ["a1", "a2"]


def run_many(fresh, attackers, trials=TRIALS):
    totals = {"att_pts": 0, "att_lost": 0, "def_pts": 0, "def_lost": 0, "ret_pts": 0, "ret_lost": 0}
    results = []
    for seed in range(trials):
        state = fresh()
        totals["att_pts"] += sum(state.counters[u].strength for u in attackers)
        totals["def_pts"] += sum(state.counters[u].strength for u in state.stack(T))
        result = combat.resolve(state, T, attackers, random.Random(seed))
        totals["att_lost"] += sum(result["attacker"]["casualties"].values())
        totals["def_lost"] += sum(result["defender"]["casualties"].values())
        retreat = result["retreat"]
        if retreat and retreat["priority"] == 2:
            lost = sum(retreat["casualties"].values())
            totals["ret_lost"] += lost
            totals["ret_pts"] += lost + sum(result["strengths"][u] for u in retreat["units"])
        results.append(result)
    return totals, results


def test_casualty_rates_when_the_attacker_wins_with_a_priority_2_retreat():
    # attackers on alternate sides of the target: every open neighbour is next to one of them
    fresh = setup([("d", "B", T, 3, 8), ("a1", "A", (4, 3), 3, 10), ("a2", "A", (3, 2), 3, 5),
                   ("a3", "A", (2, 4), 3, 5)])
    t, results = run_many(fresh, ["a1", "a2", "a3"])
    assert all(r["winner"] == "attacker" for r in results)
    assert within(t["att_lost"] / t["att_pts"], 0.2, t["att_pts"])
    assert within(t["def_lost"] / t["def_pts"], 0.3, t["def_pts"])
    assert all(r["retreat"]["priority"] == 2 for r in results if r["retreat"])
    assert within(t["ret_lost"] / t["ret_pts"], 1 - 0.7 ** 2, t["ret_pts"])  # either of two 30% rolls


def test_casualty_rates_when_the_defender_wins():
    fresh = setup([("d", "B", T, 3, 8), ("a", "A", (4, 3), 3, 3)])
    t, results = run_many(fresh, ["a"])
    assert all(r["winner"] == "defender" and r["retreat"] is None for r in results)
    assert within(t["att_lost"] / t["att_pts"], 0.3, t["att_pts"])
    assert within(t["def_lost"] / t["def_pts"], 0.2, t["def_pts"])


def test_the_rate_check_would_catch_a_wrong_rate():
    assert not within(0.25, 0.2, 20 * TRIALS) and not within(0.36, 0.3, 8 * TRIALS)


def test_retreat_prefers_hexes_away_from_the_enemy_and_picks_among_them_at_random():
    fresh = setup([("d", "B", T, 3, 3), ("a", "A", (4, 3), 3, 10)])
    chosen = set()
    for seed in range(60):
        result = combat.resolve(fresh(), T, ["a"], random.Random(seed))
        if result["retreat"] and result["retreat"]["units"]:
            assert result["retreat"]["priority"] == 1 and result["retreat"]["casualties"] == {}
            chosen.add(tuple(result["retreat"]["hex"]))
    assert chosen == {(3, 2), (2, 3), (2, 4)}


def test_no_retreat_hex_eliminates_the_defenders():
    water = [((4, 2), "water", False), ((2, 3), "water", False)]
    crowd = [(f"f{i}", "B", (3, 4), 3, 1) for i in range(10)]  # a full friendly stack
    fresh = setup([("d1", "B", T, 3, 2), ("d2", "B", T, 3, 2), *crowd, ("a1", "A", (4, 3), 3, 10),
                   ("a2", "A", (3, 2), 3, 10), ("a3", "A", (2, 4), 3, 10)], hexes=water)
    for seed in range(20):
        state = fresh()
        result = combat.resolve(state, T, ["a1", "a2", "a3"], random.Random(seed))
        survivors = [u for u in ("d1", "d2") if u not in result["defender"]["eliminated"]]
        if survivors:
            assert result["retreat"]["hex"] is None and result["retreat"]["eliminated"] == survivors
        assert all(state.counters[u].eliminated for u in ("d1", "d2"))
        assert state.stack(T) == [u for u in ("a1", "a2", "a3") if u in result["pursuit"]]


def test_pursuit_moves_at_most_ten_chosen_at_random_and_attackers_are_spent():
    units = [("d", "B", T, 3, 1)]
    units += [(f"a{i}", "A", (4, 3) if i < 6 else (3, 2), 3, 5) for i in range(12)]
    fresh = setup(units)
    attackers = [f"a{i}" for i in range(12)]
    subsets = set()
    for seed in range(30):
        state = fresh()
        result = combat.resolve(state, T, attackers, random.Random(seed))
        alive = [u for u in attackers if not state.counters[u].eliminated]
        assert result["pursuit"] == state.stack(T)
        assert len(result["pursuit"]) == min(10, len(alive))
        subsets.add(tuple(result["pursuit"]))
        assert all(state.counters[u].status == "attacked" for u in alive)
    assert len(subsets) > 5


def test_all_pursue_when_ten_or_fewer_survive():
    fresh = setup([("d", "B", T, 3, 1), ("a1", "A", (4, 3), 3, 9), ("a2", "A", (3, 2), 3, 9)])
    state = fresh()
    result = combat.resolve(state, T, ["a1", "a2"], random.Random(3))
    assert result["winner"] == "attacker" and result["pursuit"] == ["a1", "a2"] == state.stack(T)


def test_same_seed_same_result_and_units_below_one_are_eliminated():
    fresh = setup([("d", "B", T, 3, 2), ("a", "A", (4, 3), 3, 1)])
    results = [combat.resolve(fresh(), T, ["a"], random.Random(7)) for _ in range(2)]
    assert results[0] == results[1]
    for seed in range(40):
        state = fresh()
        result = combat.resolve(state, T, ["a"], random.Random(seed))
        if result["attacker"]["casualties"]["a"] == 1:
            assert result["attacker"]["eliminated"] == ["a"] and state.counters["a"].hex is None
            break
    else:
        pytest.fail("no seed eliminated the one-point attacker")
