"""The movement rules the first pass left out: a straddling start, pivots, mounting up and dismounting.

Numbers from the rule text: a Falx with Move 8 on difficult going moves at half rate; Direwolves carry
up to three fireteams (Troop Carrier 3); infantry Move 4, doubled At the Double; a base may not
dismount on a side with impassable terrain or another base within a base width.
"""

from __future__ import annotations

import pytest

from table.errors import QueryError
from tests.age_of_tyrants.aot_helpers import base, box, build, unit

FALX = {"shape": "rect", "width_mm": 25.4, "depth_mm": 50.8}  # 2" long, 1" wide: half-diagonal 1.118"
WOLF = {"shape": "rect", "width_mm": 50.8, "depth_mm": 76.2}  # 3" long, 2" wide
UNITS = [unit("falx", "A", locomotion="tracked", move=8, role="materiel", size=3),
         unit("wolf", "A", locomotion="tracked", move=8, role="materiel", size=3, troop_carrier=3),
         unit("team", "A", move=4), unit("foe", "B", move=4)]


def vehicle(mid: str, unit_id: str, x: float, y: float, heading: float = 0, shape=FALX) -> dict:
    return {"id": mid, "unit": unit_id, "x": x, "y": y, "heading": heading, "base": shape}


JUNGLE = box("jungle", 10, 5, 20, 15, "difficult", "concealment")


@pytest.mark.parametrize(("to", "cost", "allowed"), [("13.5,10", 8.0, True), ("13.75,10", 8.5, False)])
def test_a_base_starting_with_its_front_edge_in_jungle_moves_at_jungle_rate(to, cost, allowed):
    # centre 0.5" short of the jungle, front edge 0.5" inside: the whole move is on difficult going
    rules = build(UNITS, [vehicle("f", "falx", 9.5, 10)], [JUNGLE])
    answer = rules.ask("move", ["f", to])
    assert answer["starts_on"] == ["jungle"]
    assert (answer["cost"], answer["allowed"]) == (cost, allowed)
    assert answer["stretches"][0] == {"terrain": "jungle (front edge)", "length": 0.5, "cost": 1.0}


def test_front_edge_out_of_the_jungle_means_normal_going_until_the_centre_leaves():
    # centre 0.5" inside the jungle's edge, facing out: the first 0.5" is normal going (else it costs 1")
    rules = build(UNITS, [vehicle("f", "falx", 10.5, 10, heading=180)], [JUNGLE])
    answer = rules.ask("move", ["f", "6.5,10"])
    assert answer["starts_on"] == []
    assert answer["cost"] == 4.0 and answer["length"] == 4.0


def test_the_front_edge_is_read_before_the_pivot_unless_the_ruling_says_after():
    # facing into the jungle, then pivoting to drive out along -x: 0.5" at jungle rate by default
    start = build(UNITS, [vehicle("f", "falx", 10.5, 10, heading=0)], [JUNGLE])
    assert start.ask("move", ["f", "6.5,10"])["cost"] == 4.5
    after = build(UNITS, [vehicle("f", "falx", 10.5, 10, heading=0)], [JUNGLE], straddle_facing="path")
    assert after.ask("move", ["f", "6.5,10"])["cost"] == 4.0


def test_a_base_wholly_outside_difficult_going_is_not_straddling():
    rules = build(UNITS, [vehicle("f", "falx", 8.5, 10)], [JUNGLE])  # front edge touches x=9.5 < 10
    answer = rules.ask("move", ["f", "12.5,10"])
    assert answer["starts_on"] == [] and answer["cost"] == 1.5 + 2.5 * 2


ROCK_NEAR = box("rock", 10.5, 10.6, 12, 12, "impassable")  # corner 0.78" from the centre
ROCK_FAR = box("rock", 10.8, 10.85, 12, 12, "impassable")  # corner 1.17" from the centre


def test_a_long_base_may_not_pivot_through_impassable_terrain():
    # turning 90 degrees on its centre, the Falx's front corner sweeps 1.118" round: it hits the rock
    # either way round, though the straight move down the rock's side does not touch it
    answer = build(UNITS, [vehicle("f", "falx", 10, 10)], [ROCK_NEAR]).ask("move", ["f", "10,14"])
    assert not answer["allowed"]
    assert answer["problems"] == ["pivots through impassable terrain 'rock' at (10, 10)"]
    assert answer["pivots"][0]["turn"] == 90.0 and answer["pivots"][0]["blocked_by"] == ["rock"]


def test_a_pivot_clear_of_the_rock_or_on_a_round_base_is_allowed():
    far = build(UNITS, [vehicle("f", "falx", 10, 10)], [ROCK_FAR]).ask("move", ["f", "10,14"])
    assert far["allowed"] and far["pivots"][0]["blocked_by"] == []
    round_base = build(UNITS, [base("r", "team", 10, 10)], [ROCK_NEAR]).ask("move", ["r", "10,14"])
    assert round_base["allowed"]


def test_pivots_at_waypoints_are_checked_too():
    rock = box("rock", 15.5, 10.6, 17, 12, "impassable")  # near the waypoint (15, 10)
    answer = build(UNITS, [vehicle("f", "falx", 10, 10)], [rock]).ask("move", ["f", "15,10", "15,12"])
    assert answer["problems"] == ["pivots through impassable terrain 'rock' at (15, 10)"]


def test_pivoting_through_an_enemy_base_is_not_allowed():
    foe = base("e", "foe", 10.75, 10.95)
    answer = build(UNITS, [vehicle("f", "falx", 10, 10), foe]).ask("move", ["f", "10,8"])
    assert any("base 'e'" in p for p in answer["problems"])


def carrier_scene(*extra, terrain=()):
    models = [vehicle("w", "wolf", 20, 20, shape=WOLF), base("p1", "team", 0, 0, aboard="w"),
              base("p2", "team", 0, 0, aboard="w"), *extra]
    return build(UNITS, models, list(terrain))


@pytest.mark.parametrize(("y", "double", "allowed"),
                         [(25.5, False, True), (26, False, False), (26, True, True)])
def test_infantry_board_a_transport_within_their_move(y, double, allowed):
    # the Direwolf's right side is at y=21; a 1" base at y=25.5 is 4" away: Move 4 reaches, 4.5" needs
    # At the Double (up to double its move rate)
    rules = carrier_scene(base("t", "team", 20, y))
    answer = rules.ask("embark", ["t", "w", *(["double"] if double else [])])
    assert answer["allowed"] is allowed and answer["room"] == 1


def test_a_full_transport_has_no_room():
    rules = carrier_scene(base("p3", "team", 0, 0, aboard="w"), base("t", "team", 20, 22))
    answer = rules.ask("embark", ["t", "w"])
    assert not answer["allowed"] and answer["problems"] == ["no room: 3 of 3 places taken"]


def test_only_friendly_infantry_board_and_only_troop_carriers_carry():
    rules = carrier_scene(base("e", "foe", 20, 22), vehicle("f", "falx", 30, 30))
    assert rules.ask("embark", ["e", "w"])["problems"] == ["the transport is not a friendly one"]
    with pytest.raises(QueryError, match="not a Troop Carrier"):
        rules.ask("embark", ["e", "f"])


@pytest.mark.parametrize(("gap", "open_"), [(0.9, False), (1.0, False), (1.1, True)])
def test_no_dismounting_on_a_side_with_impassable_terrain_within_a_base_width(gap, open_):
    rock = box("rock", 19, 21 + gap, 21, 24, "impassable")  # below the right side (y = 21)
    answer = carrier_scene(terrain=[rock]).ask("dismount", ["w", "p1"])
    sides = answer["bases"][0]["sides"]
    assert sides["right"]["open"] is open_ and sides["left"]["open"] and answer["bases"][0]["can_dismount"]


def test_another_base_within_a_base_width_closes_that_side_and_the_reach_beyond_it():
    # a friendly base 0.8" off the front (x = 21.5): front closed; the left side (y = 19) is open (pal is
    # 1.14" from its end), so a base can end with its centre 0.5" (flush) + 4" (Move 4) beyond it:
    # y = 14.5, not y = 14
    rules = carrier_scene(base("pal", "team", 22.8, 20))
    row = rules.ask("dismount", ["w", "p1", "20,14.5"])["bases"][0]
    assert row["sides"]["front"] == {"open": False, "blocked_by": ["pal"]}
    assert row["reachable"] and "left" in row["reachable_by"]
    assert not rules.ask("dismount", ["w", "p1", "20,14"])["bases"][0]["reachable"]
