"""LOS corners the golden scenes do not show: smoke, grazing lines, terrain holding a base, units of
several bases; arcs (360 degrees, the any-part ruling); indirect fire and camouflage in targeting."""

from __future__ import annotations

from math import hypot

import pytest

from tests.age_of_tyrants.aot_helpers import base, box, build, golden, unit

UNITS = [unit("a", "A", ap=[2, 2, 2, 2], am=[1, 1, 1, 1], s=[1, 1, 1, 1]), unit("b", "B")]


def sight(models, terrain=(), **rulings):
    return build(UNITS, models, terrain, **rulings)


@pytest.mark.parametrize(("counter", "visible", "blocked_by"), [
    ((12, 10), False, ["smoke:s1"]),   # smoke between: intervening concealing terrain
    ((19, 10), False, ["smoke:s1"]),   # target 3.5" deep in the cloud (template edge at x=16)
    ((22, 10), True, []),              # target 0.5" in: size 1 sees out
    ((12, 14), True, []),              # 4" off the line: a 3" template does not reach it
])
def test_smoke_behaves_as_concealing_terrain(counter, visible, blocked_by):
    models = [base("v", "a", 4, 10), base("t", "b", 20, 10)]
    rules = sight(models, extra={"smoke": [{"id": "s1", "x": counter[0], "y": counter[1]}]})
    answer = rules.ask("los", ["v", "t"])
    assert (answer["visible"], answer["blocked_by"]) == (visible, blocked_by)


def test_smoke_counter_conceals_bases_under_the_template():
    models = [base("lt", "a", 10, 10, command=4), base("t", "b", 17, 12)]
    answer = sight(models).ask("smoke", ["lt", "16,10"])
    assert answer["allowed"] and answer["conceals"] == ["t"]  # 2.24" from the counter


def test_terrain_holding_the_viewer_does_not_block():
    models = [base("v", "a", 12, 10), base("t", "b", 20, 10)]
    assert sight(models, [box("wood", 10, 8, 14, 12, "light_cover")]).ask("los", ["v", "t"])["visible"]


def test_line_along_a_terrain_edge_does_not_cross_it():
    models = [base("v", "a", 4, 10), base("t", "b", 20, 10)]
    terrain = [box("wall", 10, 10, 14, 12, "heavy_cover"), box("post", 16, 8, 17, 10, "heavy_cover")]
    assert sight(models, terrain).ask("los", ["v", "t"])["visible"]


def test_unit_los_uses_the_closest_pair_that_sees():
    models = [base("v1", "a", 4, 10), base("v2", "a", 4, 20), base("t", "b", 20, 10)]
    answer = sight(models, [box("wood", 10, 8, 14, 12)]).ask("los", ["a", "t"])
    assert answer["visible"] and answer["from"] == "v2"
    blocked = sight([models[0], models[2]], [box("wood", 10, 8, 14, 12)]).ask("los", ["a", "b"])
    assert not blocked["visible"] and blocked["blocked_by"] == ["wood"]


def test_smaller_base_in_the_way_never_blocks_and_equal_does():
    units = [unit("a", "A"), unit("b", "B"), unit("big", "A", size=2)]
    models = [base("v", "a", 4, 10), base("mid", "big", 12, 10), base("t", "b", 20, 10, size=2)]
    answer = build(units, models).ask("los", ["v", "t"])
    assert answer["blocked_by"] == ["mid"]  # size 2 >= the viewer's 1 and the target's 2
    models[1]["size"] = 1.5
    assert build(units, models).ask("los", ["v", "t"])["visible"]


def test_arcs():
    units = [unit("a", "A", ap=[2, 2, 2, 2]),
             unit("turret", "A", ap=[2, 2, 2, 2], special=["360 Degree Attack"]), unit("b", "B")]
    models = [base("gun", "a", 10, 10, heading=90), base("tank", "turret", 30, 10, heading=90),
              base("behind", "b", 9.8, 2), base("side", "b", 20, 10)]
    rules = build(units, models)
    assert rules.ask("arc", ["gun", "side"])["in_arc"]           # square to the side: the arc's edge
    assert not rules.ask("arc", ["gun", "behind"])["in_arc"]
    assert rules.ask("arc", ["gun", "behind"])["angle"] == pytest.approx(178.57, abs=0.01)  # clockwise
    turret = rules.ask("arc", ["tank", "behind"])
    assert turret["arc"] == 360 and turret["in_arc"] and not turret["in_front_arc"]


def test_arc_any_part_ruling():
    # facing +y from (10, 10): the centre 0.4" behind the arc's edge, the base's front rim 0.1" past it
    models = [base("gun", "a", 10, 10, heading=90), base("t", "b", 14, 9.6)]
    assert sight(models).ask("arc", ["gun", "t"])["in_arc"] is False
    assert sight(models, arc_point="any_part").ask("arc", ["gun", "t"])["in_arc"] is True


def test_indirect_fire_needs_a_friendly_spotter():
    units = [unit("arty", "A", ap=[0, 0, 2, 2], weapons=[]), unit("spot", "A"), unit("b", "B")]
    units[0]["weapons"] = [{"name": "Howitzer", "ap": [0, 0, 2, 2], "indirect": True}]
    hedge = [box("hedge", 8, 0, 9, 20, "light_cover")]
    models = [base("gun", "arty", 4, 10), base("t", "b", 24, 10)]
    alone = build(units, models, hedge).ask("targets", ["gun"])["bases"][0]
    assert alone["target"] is None and alone["excluded"][0]["reason"] == "no line of sight"
    models.append(base("eyes", "spot", 12, 14))
    spotted = build(units, models, hedge).ask("targets", ["gun"])["bases"][0]
    assert spotted["target"] == "t" and spotted["candidates"][0]["spotter"] == "eyes"


def test_camouflage_only_when_no_other_target():
    units = [unit("a", "A", ap=[2, 2, 2, 2]), unit("cam", "B", special=["Camouflage"]), unit("b", "B")]
    models = [base("gun", "a", 4, 10), base("ghost", "cam", 10, 10)]
    assert build(units, models).ask("targets", ["gun"])["bases"][0]["target"] == "ghost"
    models.append(base("plain", "b", 20, 20))
    row = build(units, models).ask("targets", ["gun"])["bases"][0]
    assert row["target"] == "plain"
    assert row["excluded"][0]["reason"] == "camouflaged, and other targets are in range and LOS"


def test_report_shape_and_pairs():
    report = golden("priority.json").ask("report", [])
    assert report["ruleset"] == "age_of_tyrants"
    assert [u["unit"] for u in report["units"]] == ["bravo", "support", "principes", "falx", "sniper"]
    assert len(report["pairs"]) == 2 * 3 * 2  # every ordered pair of enemy units
    pair = next(p for p in report["pairs"] if (p["from"], p["to"]) == ("bravo", "falx"))
    assert pair["distance"] == pytest.approx(5.7082, abs=1e-4) and pair["band"] == "short"  # falx-rear
    assert pair["los"]["visible"] and pair["los"]["to"] == "falx-rear"
    assert set(pair["los"]) >= {"visible", "cover", "blocked_by", "line"}


def test_report_warnings():
    models = [base("v", "a", 12, 10, sp=3), base("t", "b", 20, 10)]
    report = sight(models, [box("pit", 10, 8, 14, 12, "impassable")]).ask("report", [])
    assert "base 'v' stands on impassable terrain 'pit'" in report["warnings"]
    assert "base 'v' has 3 SP: beyond 2 it is destroyed" in report["warnings"]


def test_quarter_inch_rounding_can_change_the_band():
    models = [base("v", "a", 4, 10), base("t", "b", 9.1, 10)]  # 4.1" apart
    assert sight(models).ask("band", ["v", "t"]) == {"band": "short", "distance": 4.1}
    assert sight(models, round_to=0.25).ask("band", ["v", "t"]) == {"band": "close_assault", "distance": 4.0}


def test_centre_measure_ruling():
    models = [base("v", "a", 4, 10), base("t", "b", 9, 10)]
    assert sight(models).ask("distance", ["v", "t"])["distance"] == 4.0
    assert sight(models, measure="centre").ask("distance", ["v", "t"]) == {
        "from": "v", "to": "t", "distance": 5.0, "method": "centre"}


def test_wreckage_is_no_target_and_no_path():
    units = [unit("a", "A", am=[2, 2, 2, 2], locomotion="foot", move=12), unit("b", "B", role="materiel")]
    models = [base("gun", "a", 4, 10), base("hulk", "b", 10, 10, wreckage=True), base("t", "b", 10, 20)]
    rules = build(units, models)
    row = rules.ask("targets", ["gun"])["bases"][0]
    assert row["target"] == "t" and [c["model"] for c in row["candidates"] + row["excluded"]] == ["t"]
    assert rules.ask("move", ["gun", "14,10"])["blocked_by"] == ["hulk"]
    # a unit's distance is from its fighting bases, not its wreckage
    assert rules.ask("distance", ["gun", "b"])["distance"] == pytest.approx(hypot(6, 10) - 1, abs=1e-4)
