"""Synaptik through the `smarttable query` command: JSON on stdout; mistakes exit 2 with one line."""

import json
import subprocess
from pathlib import Path

import pytest

from tests.inprocess import smarttable

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "synaptik"


def query(scene: Path, *args: str) -> subprocess.CompletedProcess:
    return smarttable("query", str(scene), *args)


def answer(scene: Path, *args: str):
    result = query(scene, *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_distance_los_and_band_answer_as_the_contract_says():
    assert answer(DATA / "cover_range.json", "distance", "s", "t") == {
        "from": "s", "to": "t", "distance": 20.0, "method": "centre"}
    los = answer(DATA / "cover_range.json", "los", "s", "t")
    assert {"visible", "cover", "blocked_by", "line"} <= los.keys()
    assert los["cover"] == {"light": 4, "heavy": 1} and los["line"] == [[10.0, 24.0], [30.0, 24.0]]
    assert answer(DATA / "cover_range.json", "band", "s", "h", "Rifle")["band"] == "hot"


def test_report_has_every_enemy_pair_and_the_contract_fields():
    report = answer(DATA / "los.json", "report")
    assert report["ruleset"] == "synaptik"
    assert [u["unit"] for u in report["units"]] == ["a", "b", "p", "q", "x", "y", "n", "m"]
    assert all(u.keys() >= {"unit", "coherent", "out_of_cohesion", "disorder"} for u in report["units"])
    assert len(report["pairs"]) == 4 * 4 * 2
    for pair in report["pairs"]:
        assert pair.keys() >= {"from", "to", "distance", "los", "band"}
        assert pair["los"].keys() >= {"visible", "cover", "blocked_by", "line"}
    hidden = {(p["from"], p["to"]) for p in report["pairs"] if not p["los"]["visible"]}
    assert ("a", "b") in hidden and ("b", "a") in hidden and ("n", "m") not in hidden
    assert report["melee"] == [] and report["warnings"] == []


def test_seeded_questions_repeat():
    first = answer(DATA / "move.json", "roll", "3d8+2d6", "--seed", "4")
    assert first == answer(DATA / "move.json", "roll", "3d8+2d6", "--seed", "4")
    assert [d["die"] for d in first["dice"]] == ["d8"] * 3 + ["d6"] * 2
    assert first["successes"] == sum(d["value"] >= 5 for d in first["dice"])
    rerolled = answer(DATA / "move.json", "roll", "6d6", "failures", "--seed", "4")
    assert all(d["rerolled"] or d["success"] for d in rerolled["dice"])  # every failure got its reroll
    initiative = answer(DATA / "move.json", "initiative", "--seed", "9")
    assert initiative == answer(DATA / "move.json", "initiative", "--seed", "9")
    assert sorted(d["player"] for d in initiative["draws"]) == ["A"] * 5 + ["B"] * 3


def test_move_and_charge_from_the_command_line():
    move = answer(DATA / "move.json", "move", "r1", "maneuver", "16,5")
    assert move["cost"] == 12.0 and move["legal"] is True
    assert answer(DATA / "move.json", "charge", "h", "e")["reachable"] is True


def test_firing_line_with_eleven_models(tmp_path):
    doc = {"format": "smarttable-scene/1", "ruleset": "synaptik",
           "units": [{"id": "line", "player": "A", "stats": {"movement": 6, "toughness": 1},
                      "weapons": [{"name": "Rifle", "bands": {"hot": [0, 12]}}]}],
           "models": [{"id": f"m{k}", "unit": "line", "x": 10 + 0.9 * k, "y": 10} for k in range(11)]}
    scene = tmp_path / "line.json"
    scene.write_text(json.dumps(doc))
    result = answer(scene, "firing_line", "line")
    assert result["extra_attacks"] == 2 and result["from"] == {"order": 1, "models": 1, "wounds": 0}
    every_ten = answer(scene, "firing_line", "line", "--ruling", "firing_line_models=every_ten")
    assert every_ten["extra_attacks"] == 3


@pytest.mark.parametrize("args, message", [
    (["distance", "s", "nobody"], "no model or unit 'nobody'"),
    (["band", "s", "t", "Sword"], "no weapon 'Sword'"),
    (["move", "s1", "standard", "12;4"], "path point '12;4'"),
    (["roll", "3d7"], "no d7"),
    (["distance", "s", "t", "--ruling", "measure=feet"], "ruling measure: expected one of centre, edge, got 'feet'"),
    (["los", "s"], "usage"),
])
def test_mistakes_exit_2_with_one_line(args, message):
    result = query(DATA / "cover_range.json", *args)
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]
