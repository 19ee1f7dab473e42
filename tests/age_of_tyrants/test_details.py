"""Smaller readings the rulings page states: smoke counters, deployment edges, starting strength,
weapon arcs and indirect fire given on a card."""

from __future__ import annotations

import pytest

from tests.age_of_tyrants.aot_helpers import base, build, unit


@pytest.mark.parametrize(("extra", "stats", "problem"), [
    ({"smoke_used": True}, {}, "smoke already used"),
    ({}, {"leader": "Captain"}, "only a Lieutenant carries smoke"),
    ({}, {"leader": "Lieutenant"}, None),
])
def test_smoke_counter_belongs_to_a_lieutenant_once(extra, stats, problem):
    units = [unit("lt", "A", command=4, **stats), unit("b", "B")]
    rules = build(units, [base("l", "lt", 10, 10, **extra), base("x", "b", 40, 40)])
    answer = rules.ask("smoke", ["l", "14,10"])
    assert answer["problems"] == ([problem] if problem else [])


@pytest.mark.parametrize(("x", "y", "edge", "in_zone"), [
    (5.5, 20, "left", True), (5.6, 20, "west", False),
    (42.5, 20, "right", True), (42.4, 20, "east", False),
    (20, 42.5, "south", True), (20, 5.5, "north", True),
])
def test_deployment_edges(x, y, edge, in_zone):
    rules = build([unit("a", "A")], [base("m", "a", x, y)])
    assert rules.ask("deploy", ["m", edge])["deployed"] is in_zone


def test_victory_counts_from_the_scene_started_entry():
    units = [unit("a", "A"), unit("b", "B")]
    models = [base("a1", "a", 5, 5), base("a2", "a", 7, 5), base("b1", "b", 5, 40)]
    # A started with 5 bases, 2 left: fewer than 50%; B started with 2, 1 left: exactly 50%
    rules = build(units, models, extra={"started": {"A": 5, "B": 2}})
    answer = rules.ask("victory", [])
    assert answer["winner"] == "B" and [p["remaining"] for p in answer["players"]] == [2, 1]


def test_weapon_arc_360_and_card_indirect_fire():
    units = [unit("tank", "A", weapons=[{"name": "Turret", "ap": [2, 2, 2, 2], "arc": 360}]),
             unit("mortar", "A", ap=[0, 1, 1, 1], special=["Indirect Fire"]),
             unit("spot", "A"), unit("b", "B")]
    models = [base("t", "tank", 20, 20, heading=0), base("m", "mortar", 20, 30, heading=180),
              base("s", "spot", 4, 6), base("e", "b", 10, 10)]
    wall = {"id": "wall", "polygon": [[12, 20], [18, 20], [18, 26], [12, 26]], "traits": ["heavy_cover"]}
    rules = build(units, models, [wall])
    assert rules.ask("arc", ["t", "e"])["arc"] == 360
    assert rules.ask("targets", ["t"])["bases"][0]["target"] == "e"  # behind it, but a turret
    assert not rules.ask("los", ["m", "e"])["visible"]
    shot = rules.ask("targets", ["m"])["bases"][0]
    assert shot["target"] == "e" and shot["candidates"][0]["spotter"] == "t"  # the first friend that sees
