"""The report and the movement checks through the Python API, beyond the golden cases."""

import json
from pathlib import Path

import pytest
from shapely.geometry import LineString, Polygon

from table.errors import QueryError
from table.rules.synaptik import Synaptik
from table.scene import load_scene, parse_scene

DATA = Path(__file__).resolve().parents[1] / "data" / "synaptik"


def engine(name: str, **rulings) -> Synaptik:
    return Synaptik(load_scene(DATA / name), rulings or None)


def test_report_lists_melee_and_warnings():
    doc = json.loads((DATA / "move.json").read_text())
    doc["models"].append({"id": "lost", "unit": "r", "x": 50, "y": 5})
    doc["units"].append({"id": "reserve", "player": "B"})
    report = Synaptik(parse_scene(doc)).report()
    assert {"model": "x1", "unit": "x", "enemies": ["y1"]} in report["melee"]
    assert any("'lost'" in w and "off the board" in w for w in report["warnings"])
    assert any("'reserve'" in w for w in report["warnings"])
    assert all(p["from"] != "reserve" and p["to"] != "reserve" for p in report["pairs"])


def test_report_pairs_read_the_same_both_ways():
    report = engine("los.json").report()
    by_pair = {(p["from"], p["to"]): p for p in report["pairs"]}
    for (a, b), pair in by_pair.items():
        back = by_pair[(b, a)]
        assert pair["distance"] == back["distance"]
        assert pair["los"]["visible"] == back["los"]["visible"]
        assert pair["los"]["models"] == back["los"]["models"][::-1]
        if pair["los"]["line"]:
            assert pair["los"]["line"] == back["los"]["line"][::-1]


def test_charge_path_goes_round_the_rock_and_costs_what_it_says():
    ruleset = engine("move.json")
    charge = ruleset.charge("g", "k")
    path = charge["path"]
    rock = Polygon([(30, 25), (34, 25), (34, 35), (30, 35)])
    assert LineString(path).distance(rock) >= 0.49  # the 25 mm base stays clear of the rock
    assert ruleset.move("g1", "charge", *[f"{x},{y}" for x, y in path[1:]])["cost"] == pytest.approx(
        charge["cost"], abs=1e-3)
    assert ruleset.move("g1", "charge", *[f"{x},{y}" for x, y in path[1:]])["legal"]


def test_charge_through_difficult_ground_pays_double():
    doc = {"format": "smarttable-scene/1", "ruleset": "synaptik",
           "terrain": [{"id": "bog", "polygon": [[12, 0], [14, 0], [14, 48], [12, 48]],
                        "traits": ["difficult"]}],
           "units": [{"id": "a", "player": "A", "stats": {"movement": 3}},
                     {"id": "b", "player": "B", "stats": {"movement": 3}}],
           "models": [{"id": "a1", "unit": "a", "x": 10, "y": 10},
                      {"id": "b1", "unit": "b", "x": 16, "y": 10}]}
    answer = Synaptik(parse_scene(doc)).charge("a", "b")
    # straight: 5 inches to get within 1", 2 of them in the bog: 7 > 6 (twice Movement 3)
    assert answer["reachable"] is False
    doc["units"][0]["stats"]["movement"] = 3.5
    answer = Synaptik(parse_scene(doc)).charge("a", "b")
    assert answer["reachable"] is True and answer["cost"] == pytest.approx(7.0, abs=1e-3)


def test_edge_ruling_changes_every_distance():
    centre, edge = engine("cover_range.json"), engine("cover_range.json", measure="edge")
    assert centre.distance("s", "t")["distance"] == 20.0
    assert edge.distance("s", "t")["distance"] == pytest.approx(20 - 25 / 25.4, abs=1e-3)
    assert edge.distance("s", "t")["method"] == "edge"
    with pytest.raises(QueryError, match="unknown ruling"):
        Synaptik(load_scene(DATA / "cover_range.json"), {"measure_from": "edge"})


def test_units_without_stats_or_weapons_are_clear_errors():
    doc = {"format": "smarttable-scene/1", "ruleset": "synaptik",
           "units": [{"id": "a", "player": "A"}, {"id": "b", "player": "B"}],
           "models": [{"id": "a1", "unit": "a", "x": 1, "y": 1}, {"id": "b1", "unit": "b", "x": 5, "y": 1}]}
    ruleset = Synaptik(parse_scene(doc))
    with pytest.raises(QueryError, match="no stats.movement"):
        ruleset.move("a1", "standard", "2,1")
    with pytest.raises(QueryError, match="no weapon with range bands"):
        ruleset.band("a", "b")
    assert ruleset.report()["pairs"][0]["band"] is None
