"""Position uncertainty in answers: intervals worked by hand, "too close to call" at thresholds, nothing
added when no model carries `sigma`."""

import json
import math

import pytest

from table.rules import get_ruleset
from table.scene import parse_scene
from tests.inprocess import smarttable

Z95 = 1.959963984540054


def scene(models, ruleset="synaptik", weapons=None):
    units = [{"id": "a", "player": "A", "weapons": weapons or [
                  {"name": "Rifle", "bands": {"hot": [0, 12], "standard": [12, 24], "cold": [24, 36]}}]},
             {"id": "b", "player": "B"}]
    return {"format": "smarttable-scene/1", "ruleset": ruleset, "board": {"width": 48, "height": 48},
            "units": units, "models": models}


def model(mid, unit, x, y, sigma=None, **more):
    m = {"id": mid, "unit": unit, "x": x, "y": y, **more}
    if sigma is not None:
        m["sigma"] = sigma
    return m


def ask(doc, question, *args, rulings=None):
    s = parse_scene(doc)
    return get_ruleset(s.ruleset)(s, rulings).ask(question, list(args))


def test_no_sigma_no_change():
    doc = scene([model("a1", "a", 10, 10), model("b1", "b", 22.01, 10)])
    assert ask(doc, "distance", "a1", "b1") == {"from": "a1", "to": "b1", "distance": 12.01, "method": "centre"}
    assert "too_close_to_call" not in ask(doc, "band", "a1", "b1")


def test_distance_interval_by_hand():
    doc = scene([model("a1", "a", 10, 10, 0.03), model("b1", "b", 22, 10, 0.04)])
    answer = ask(doc, "distance", "a1", "b1")
    half = Z95 * 0.05  # sqrt(0.03^2 + 0.04^2) = 0.05
    assert answer["distance"] == 12.0
    assert answer["interval"] == pytest.approx([12 - half, 12 + half], abs=1e-4)
    assert answer["too_close_to_call"] is False


def test_one_exact_model_still_gets_the_others_interval():
    doc = scene([model("a1", "a", 10, 10), model("b1", "b", 10, 30, 0.05)])
    assert ask(doc, "distance", "a", "b")["interval"] == pytest.approx([20 - Z95 * 0.05, 20 + Z95 * 0.05],
                                                                       abs=1e-4)


@pytest.mark.parametrize("x, sigma, close", [
    (22.05, 0.03, True),    # 12.05" +- 1.96 * 0.0424 = 11.967-12.133: holds the 12" boundary
    (21.99, 0.04, True),    # 11.99" +- 0.111 = 11.879-12.101
    (22.20, 0.03, False),   # 12.20" +- 0.083 = 12.117-12.283: all standard
])
def test_band_too_close_to_call(x, sigma, close):
    bands = ["hot", "standard"]
    doc = scene([model("a1", "a", 10, 10, sigma), model("b1", "b", x, 10, sigma)])
    answer = ask(doc, "band", "a1", "b1")
    assert answer["too_close_to_call"] is close
    if close:
        assert sorted(answer["could_be"]["band"]) == bands
    else:
        assert "could_be" not in answer and answer["band"] == "standard" and answer["interval"][0] > 12


def test_age_of_tyrants_band_boundary():
    # edge to edge: 25 mm bases (0.492" radius each); centres 9.984" + 0.02" apart = 9.02" edge to edge
    doc = scene([model("a1", "a", 10, 10, 0.02), model("b1", "b", 10 + 9.0 + 0.984 + 0.02, 10, 0.02)],
                ruleset="age_of_tyrants", weapons=[])
    answer = ask(doc, "band", "a1", "b1")
    assert answer["too_close_to_call"] is True
    assert sorted(answer["could_be"]["band"]) == ["medium", "short"]


def test_cohesion_near_one_inch_is_too_close():
    # three models in a row 0.99" apart: each is within 1" of the next, the ends are 1.98" apart:
    # the middle one is within 1" of two others, the ends only of one: out of cohesion either way;
    # a triangle of 0.99" sides is coherent, and with 0.03" sigma it could fail
    tri = [model("a1", "a", 10, 10, 0.03), model("a2", "a", 10.99, 10, 0.03),
           model("a3", "a", 10.495, 10 + 0.99 * 0.8660254, 0.03)]
    answer = ask(scene(tri), "cohesion", "a")
    assert answer["coherent"] is True and answer["too_close_to_call"] is True
    assert answer["could_be"]["coherent"] == [True, False]
    loose = [model("a1", "a", 10, 10, 0.03), model("a2", "a", 10.6, 10, 0.03), model("a3", "a", 10.3, 10.5, 0.03)]
    assert ask(scene(loose), "cohesion", "a")["too_close_to_call"] is False


def test_answers_are_repeatable():
    tri = [model("a1", "a", 10, 10, 0.03), model("a2", "a", 10.99, 10, 0.03),
           model("a3", "a", 10.495, 10.857, 0.03)]
    assert ask(scene(tri), "cohesion", "a") == ask(scene(tri), "cohesion", "a")


def test_negative_sigma_is_one_line_exit_2(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scene([model("a1", "a", 10, 10, -0.1), model("b1", "b", 20, 10)])))
    result = smarttable("query", str(path), "distance", "a1", "b1")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "models[0].sigma" in result.stderr


def test_cli_distance_interval(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scene([model("a1", "a", 10, 10, 0.01), model("b1", "b", 41.26, 10, 0.01)])))
    result = smarttable("query", str(path), "distance", "a1", "b1")
    answer = json.loads(result.stdout)
    assert answer["distance"] == 31.26
    assert answer["interval"] == pytest.approx([31.26 - Z95 * 0.01414, 31.26 + Z95 * 0.01414], abs=1e-4)


def aot(models, terrain=()):
    doc = scene(models, ruleset="age_of_tyrants", weapons=[])
    doc["terrain"] = list(terrain)
    return doc


@pytest.mark.parametrize("gap, close", [(0.01, True), (0.5, False)])
def test_a_sight_line_grazing_a_blocker(gap, close):
    # the centre line y = 10 passes `gap` below a 3" tall block: clear, and with 0.02" sigma maybe not
    block = {"id": "block", "polygon": [[19, 10 + gap], [21, 10 + gap], [21, 12], [19, 12]], "height": 3}
    doc = aot([model("a1", "a", 10, 10, 0.02), model("b1", "b", 30, 10, 0.02)], [block])
    answer = ask(doc, "los", "a1", "b1")
    assert answer["visible"] is True and answer["too_close_to_call"] is close
    if close:
        assert answer["could_be"]["visible"] == [True, False]


@pytest.mark.parametrize("angle, close", [(89.8, True), (80.0, False)])
def test_a_target_on_the_edge_of_the_front_arc(angle, close):
    # a1 faces +x (heading 0); b1 stands `angle` degrees off its facing, 10" away; heading sd 0.5 degree
    b = (10 + 10 * math.cos(math.radians(angle)), 10 + 10 * math.sin(math.radians(angle)))
    doc = aot([model("a1", "a", 10, 10, 0.001, heading=0, heading_sigma=0.5), model("b1", "b", *b)])
    answer = ask(doc, "arc", "a1", "b1")
    assert answer["in_front_arc"] is True and answer["too_close_to_call"] is close


def test_a_move_with_an_order_is_sampled_not_refused():
    # `move MODEL ORDER X,Y`: the second argument is no model; the answer still says how sure it is
    doc = scene([model("a1", "a", 10, 10, 0.02), model("b1", "b", 30, 30, 0.02)])
    doc["units"][0]["stats"] = {"movement": 6}
    answer = ask(doc, "move", "a1", "standard", "15.99,10")   # 5.99" of a 6" allowance
    assert answer["legal"] is True and answer["too_close_to_call"] is True


@pytest.mark.parametrize("gap, visible", [(0.01, True), (0.1, True), (0.5, True), (-0.3, False)])
def test_the_sight_line_margin_in_inches(gap, visible):
    # Age of Tyrants: the centre line y = 10 passes `gap` below a 3" block (a negative gap: it runs 0.3"
    # into it); the line must move |gap| sideways, both ends together, to touch or clear it
    block = {"id": "block", "polygon": [[19, 10 + gap], [21, 10 + gap], [21, 12], [19, 12]], "height": 3}
    answer = ask(aot([model("a1", "a", 10, 10, 0.02), model("b1", "b", 30, 10, 0.02)], [block]), "los", "a1", "b1")
    assert answer["visible"] is visible
    assert answer["margin"] == pytest.approx(abs(gap), abs=0.006)


def test_synaptik_margin_is_the_clearance_of_the_outermost_sight_line():
    # true LOS from any point of a 25 mm base: the wall's top edge (y = 10.3) leaves the bases' upper
    # tangent (y = 10 + 12.5 mm = 10.4921") clear by 0.1921"; no other shift up to 2" changes it
    wall = {"id": "wall", "polygon": [[19, 5], [21, 5], [21, 10.3], [19, 10.3]], "height": 3, "traits": ["impassable"]}
    doc = scene([model("a1", "a", 10, 10, 0.02), model("b1", "b", 30, 10, 0.02)])
    doc["terrain"] = [wall]
    answer = ask(doc, "los", "a1", "b1")
    assert answer["visible"] is True and answer["too_close_to_call"] is False
    assert answer["margin"] == pytest.approx(12.5 / 25.4 - 0.3, abs=0.006)


def test_no_margin_when_nothing_is_near():
    doc = aot([model("a1", "a", 10, 10, 0.02), model("b1", "b", 30, 10, 0.02)])
    assert ask(doc, "los", "a1", "b1")["margin"] is None


@pytest.mark.parametrize("over, reachable, close", [
    (-0.05, True, True),   # 10" allowance, the path costs 9.95": 0.05" inside, sd 0.0424" on the gap
    (0.05, False, True),
    (0.3, False, False),   # 0.3" beyond: more than 1.96 sd
    (-0.3, True, False),
])
def test_a_charge_at_the_edge_of_its_allowance(over, reachable, close):
    # movement 5: a Charge allows 10"; centre measuring: in melee within 1", so the charge reaches when the
    # centres are at most 11" apart, in the open (a straight path)
    doc = scene([model("a1", "a", 10, 10, 0.03), model("b1", "b", 10 + 11 + over, 10, 0.03)])
    doc["units"][0]["stats"] = {"movement": 5}
    answer = ask(doc, "charge", "a", "b")
    assert answer["reachable"] is reachable and answer["too_close_to_call"] is close
    if close:
        assert sorted(answer["could_be"]["reachable"]) == [False, True]
