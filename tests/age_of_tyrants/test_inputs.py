"""Bad input gets a QueryError that says what is wrong; the CLI answers as the contract says."""

from __future__ import annotations

import json
import subprocess

import pytest

from table.errors import QueryError
from table.rules import get_ruleset
from tests.age_of_tyrants.aot_helpers import DATA, base, build, golden, unit
from tests.inprocess import smarttable


@pytest.mark.parametrize(("scene", "question", "args", "message"), [
    ("los.json", "los", ["v-clear", "nobody"], "no model or unit 'nobody'"),
    ("los.json", "arc", ["a-inf", "t-clear"], "is a unit of"),
    ("moves.json", "move", ["apc", "ten,twelve"], "expected a board point as X,Y"),
    ("moves.json", "move", ["apc"], "usage: query SCENE move"),
    ("moves.json", "move", ["jump", "20,44", "double"], "jump bases cannot receive At the Double"),
    ("priority.json", "band", ["bravo-1", "falx-2", "Laser"], "has no weapon 'Laser'"),
    ("priority.json", "template", ["5,5", "bravo-1"], "measured to a target base"),
    ("field.json", "deploy", ["a1", "middle"], "unknown table edge 'middle'"),
    ("command.json", "orders", ["b1", "b2"], "'b1' is not a leader"),
    ("command.json", "orders", ["lt", "b1", "b1"], "a base is named twice"),
    ("command.json", "orders", ["lt", "foe"], "is an enemy base"),
    ("victory.json", "los", ["a0", "b5"], "'a0' has no bases on the table"),
    ("los.json", "bombard", ["t-clear"], "usage: query SCENE bombard"),
])
def test_query_errors(scene, question, args, message):
    with pytest.raises(QueryError, match=message):
        golden(scene).ask(question, args)


def test_deploy_needs_an_edge_without_a_deployment_entry():
    with pytest.raises(QueryError, match="no deployment edge for player 'A'"):
        build([unit("a", "A")], [base("x", "a", 5, 5)]).ask("deploy", ["x"])


@pytest.mark.parametrize(("stats", "question", "message"), [
    ({"locomotion": "crawl", "move": 4}, "move", "unknown locomotion 'crawl'"),
    ({"role": "cavalry"}, "move", "unknown role 'cavalry'"),
    ({"move": "fast"}, "move", "move must be a number"),
    ({"ap": [1, 2]}, "targets", "expected 4 values"),
    ({"size": "big"}, "targets", "stats.size must be a number, got 'big'"),
    ({"ap": {"extreme": 2}}, "targets", "unknown band 'extreme'"),
])
def test_bad_stats(stats, question, message):
    rules = build([unit("a", "A", **stats), unit("b", "B")], [base("x", "a", 5, 5), base("y", "b", 9, 5)])
    with pytest.raises(QueryError, match=message):
        rules.ask(question, ["x", "6,5"] if question == "move" else ["x"])


@pytest.mark.parametrize(("rulings", "message"), [
    ({"arc_point": "edge"}, "ruling arc_point: expected one of centre, any_part"),
    ({"round_to": -1}, "ruling round_to"),
    ({"cover_dice": 2}, "unknown ruling option"),
])
def test_bad_rulings(rulings, message):
    with pytest.raises(QueryError, match=message):
        golden("los.json", **rulings)


def test_bad_smoke_entry():
    rules = build([unit("a", "A"), unit("b", "B")], [base("x", "a", 5, 5), base("y", "b", 9, 5)],
                  extra={"smoke": [{"id": "s", "x": "near"}]})
    with pytest.raises(QueryError, match=r"scene smoke\[0\].x: expected a number"):
        rules.ask("los", ["x", "y"])


def test_found_by_alias():
    assert get_ruleset("aot").name == "age_of_tyrants"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return smarttable(*args)


def test_cli_distance_los_band():
    done = run("query", str(DATA / "los.json"), "distance", "v-deep", "t-deep")
    assert done.returncode == 0
    assert json.loads(done.stdout) == {"from": "v-deep", "to": "t-deep", "distance": 13.5, "method": "edge"}
    los = json.loads(run("query", str(DATA / "los.json"), "los", "v-deep", "t-deep").stdout)
    assert los["visible"] is False and los["concealed"] is True and los["line"] == [[4.0, 30.0], [18.5, 30.0]]
    band = json.loads(run("query", str(DATA / "ranges.json"), "band", "s1", "t9").stdout)
    assert band == {"band": "short", "distance": 9.0}


def test_cli_ruling_and_seed():
    los = run("query", str(DATA / "los.json"), "los", "v-thicket", "t-open",
              "--ruling", "concealment_hides_viewer=false")
    assert json.loads(los.stdout)["visible"] is True
    first = run("query", str(DATA / "priority.json"), "attack", "bravo-1", "falx-2", "--seed", "4")
    again = run("query", str(DATA / "priority.json"), "attack", "bravo-1", "falx-2", "--seed", "4")
    assert first.returncode == 0 and first.stdout == again.stdout
    assert json.loads(first.stdout)["seed"] == 4


def test_cli_report():
    report = json.loads(run("query", str(DATA / "bombard.json"), "report").stdout)
    assert report["ruleset"] == "age_of_tyrants" and {"units", "pairs", "warnings"} <= set(report)


def test_cli_bad_id_exits_2_with_one_line():
    done = run("query", str(DATA / "los.json"), "los", "v-clear", "ghost")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().count("\n") == 0 and "no model or unit 'ghost'" in done.stderr
