"""docs/scene.md's examples (docs/examples/*.scene.json, *.army.json, *.scenario.json) are real: each
scene is answered by the real `smarttable query FILE report` (a process), each army list and scenario
is read by the table's own readers and, put together into a game's first scene, answered by `query report`.
Every rule system has an example of each format, and the page links every one (issue 23)."""

import json
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from table.rules.setups import army_document, compose, parse_army, parse_scenario
from table.scene import load_scene, scene_to_dict
from tests.inprocess import smarttable

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
PAGE = ROOT / "docs" / "scene.md"
CONSOLE_SCRIPT = Path(sys.executable).parent / "smarttable"
KINDS = ("scene", "army", "scenario")


def examples(kind: str) -> list[Path]:
    return sorted(EXAMPLES.glob(f"*.{kind}.json"))


def report(path: Path) -> dict:
    """`smarttable query PATH report` as a user runs it: exit 0 and one JSON document on stdout."""
    done = subprocess.run([str(CONSOLE_SCRIPT), "query", str(path), "report"], capture_output=True,
                          text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, ""), f"{path.name}: {done.stderr}"
    answer = json.loads(done.stdout)
    assert isinstance(answer, dict) and answer, path.name
    return answer


def test_every_rule_system_has_an_example_of_each_format():
    for kind in KINDS:
        systems = sorted(json.loads(p.read_text(encoding="utf-8"))["ruleset"] for p in examples(kind))
        assert systems == sorted(entry_points(group="smarttable.rulesets").names), kind


def test_the_page_links_every_example_and_the_readme_links_the_page():
    page = PAGE.read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(examples/([^)]+\.json)\)", page))
    assert linked == {p.name for kind in KINDS for p in examples(kind)}
    assert "docs/scene.md" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("path", examples("scene"), ids=lambda p: p.name)
def test_each_example_scene_is_answered_by_query_report(path):
    scene = json.loads(path.read_text(encoding="utf-8"))
    answer = report(path)
    for unit in scene["units"]:      # the report speaks of every unit of the scene
        assert f'"{unit["id"]}"' in json.dumps(answer), (path.name, unit["id"])


@pytest.mark.parametrize("path", examples("scenario"), ids=lambda p: p.name)
def test_each_example_army_on_its_scenario_makes_a_game_query_answers(path, tmp_path):
    """A game's first scene as the table composes it for a new game: the system's scenario with the
    example army list for player A and the example scene's other units as player B's list (the armies'
    models wait at their players' edges) is answered by `query report` (in-process: the scenes above
    go through the real process)."""
    scenario = parse_scenario(json.loads(path.read_text(encoding="utf-8")), path.name)
    army_path = path.with_name(path.name.replace(".scenario.", ".army."))
    army = parse_army(json.loads(army_path.read_text(encoding="utf-8")), army_path.name)
    scene_path = path.with_name(path.name.replace(".scenario.", ".scene."))
    other = parse_army(army_document(load_scene(scene_path), "B"), "B's army")
    assert army.ruleset == scenario["ruleset"] == other.ruleset and army.player == "A"
    scene = compose(army.ruleset, scenario=scenario, armies=[(army, None), (other, None)])
    assert {m.unit for m in scene.models} == {u["id"] for u in (*army.units, *other.units)}
    assert all(m.x is not None for m in scene.models)
    first = tmp_path / "first.json"
    first.write_text(json.dumps(scene_to_dict(scene)), encoding="utf-8")
    done = smarttable("query", str(first), "report")
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert json.loads(done.stdout)
