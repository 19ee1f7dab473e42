"""A scene means what the player wrote: unknown keys, malformed numbers and absurd sizes exit 2 with one
line naming the place (checked through the `smarttable` command, in process and once as a real process)."""

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from table.cli import main
from table.rules import all_rulesets
from table.scene_rules import CONTRACT_KEYS, SCENE_PLACES

DATA = Path(__file__).parent.parent / "data" / "core"
FULL = json.loads((DATA / "full-scene.json").read_text())
DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"
PAGES = {"synaptik": "synaptik.md", "age_of_tyrants": "age-of-tyrants.md", "syniad": "syniad.md",
         "hex_skirmish": "hex-skirmish.md"}

WALL = {"format": "smarttable-scene/1", "ruleset": "synaptik", "board": {"width": 48, "height": 48},
        "terrain": [{"id": "wall", "polygon": [[20, 0], [21, 0], [21, 48], [20, 48]], "height": 4,
                     "traits": ["impassable"]}],
        "units": [{"id": "a", "player": "A"}, {"id": "b", "player": "B"}],
        "models": [{"id": "a1", "unit": "a", "x": 10, "y": 24}, {"id": "b1", "unit": "b", "x": 30, "y": 24}]}


def ask(tmp_path, capsys, doc_or_text, *question: str) -> tuple[int, str, str]:
    path = tmp_path / "scene.json"
    path.write_text(doc_or_text if isinstance(doc_or_text, str) else json.dumps(doc_or_text))
    code = main(["query", str(path), *(question or ("report",))])
    out, err = capsys.readouterr()
    return code, out, err.strip().replace(f"{path}: ", "")


def refused(tmp_path, capsys, doc_or_text, *question: str) -> str:
    code, out, err = ask(tmp_path, capsys, doc_or_text, *question)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, (code, out, err)
    return err.removeprefix("smarttable query: ")


def test_a_misspelt_trait_no_longer_turns_a_wall_into_clear_sight(tmp_path, capsys):
    code, out, _ = ask(tmp_path, capsys, WALL, "los", "a1", "b1")
    assert code == 0 and json.loads(out)["visible"] is False
    doc = copy.deepcopy(WALL)
    doc["terrain"][0]["trait"] = doc["terrain"][0].pop("traits")
    assert refused(tmp_path, capsys, doc, "los", "a1", "b1") == \
        'terrain[0].trait: unknown key; did you mean "traits"?'


def test_the_issue_example_as_a_real_process(tmp_path):
    doc = copy.deepcopy(WALL)
    doc["terrain"][0]["trait"] = doc["terrain"][0].pop("traits")
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    done = subprocess.run([sys.executable, "-m", "table.cli", "query", str(path), "los", "a1", "b1"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f'smarttable query: {path}: terrain[0].trait: unknown key; did you mean "traits"?\n'


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(rulset="synaptik"), 'rulset: unknown key; did you mean "ruleset"?'),
    (lambda d: d["board"].update(widht=48), 'board.widht: unknown key; did you mean "width"?'),
    (lambda d: d["hexgrid"].update(orientaton="flat"), 'hexgrid.orientaton: unknown key; did you mean "orientation"?'),
    (lambda d: d["hexes"][0].update(roads=True), 'hexes[0].roads: unknown key; did you mean "road"?'),
    (lambda d: d["hexsides"][0].update(features="river"), 'hexsides[0].features: unknown key; did you mean "feature"?'),
    (lambda d: d["units"][1].update(playr="B"), 'units[1].playr: unknown key; did you mean "player"?'),
    (lambda d: d["units"][0]["weapons"][0].update(band={}), 'units[0].weapons[0].band: unknown key; did you mean "bands"?'),
    (lambda d: d["models"][1].update(heding=90), 'models[1].heding: unknown key; did you mean "heading"?'),
    (lambda d: d["models"][0]["base"].update(diameter=25), 'models[0].base.diameter: unknown key; did you mean "diameter_mm"?'),
    (lambda d: d["models"][1].update(zzz=1), "models[1].zzz: unknown key; known keys: base, heading, heading_sigma, "
                                             "height, hex, id, marker, marker_height_mm, sigma, size, state, unit, "
                                             "wounds, x, y"),
    # another rule system's key is unknown here: `aboard` is Age of Tyrants', `footprint` hex skirmish's
    (lambda d: d["models"][1].update(aboard="m3"), "models[1].aboard: unknown key;"),
    (lambda d: d["models"][1].update(footprint=[[0, 0]]), "models[1].footprint: unknown key;"),
    (lambda d: d["models"][1].update(state="asleep"), "models[1].state: expected one of tracked, occluded, stale"),
])
def test_every_unknown_key_is_named_with_the_nearest_known_one(tmp_path, capsys, mutate, message):
    doc = copy.deepcopy(FULL)
    mutate(doc)
    assert refused(tmp_path, capsys, doc).startswith(message)


@pytest.mark.parametrize("ruleset, place, key", [
    (cls.name, place, key) for cls in all_rulesets() for place, keys in cls.extra_scene_keys.items()
    for key in sorted(keys)])
def test_each_rule_systems_declared_keys_load_for_it_and_its_page_lists_them(ruleset, place, key):
    assert place in SCENE_PLACES and key not in CONTRACT_KEYS[place]
    assert f"`{key}`" in (DOCS / PAGES[ruleset]).read_text(), f"{PAGES[ruleset]} does not list `{key}`"


@pytest.mark.parametrize("text, message", [
    ('{"format": NaN}', "invalid JSON: NaN is not a number JSON allows"),
    ('{"format": Infinity}', "invalid JSON: Infinity is not a number JSON allows"),
    ('{"a": -Infinity}', "invalid JSON: -Infinity is not a number JSON allows"),
    ('{"a": ' + "7" * 5000 + "}", "invalid JSON: an integer of more than 4300 digits"),
    ("[" * 200_000 + "]" * 200_000, "invalid JSON: nested too deeply"),
])
def test_json_that_is_not_strict_is_refused(tmp_path, capsys, text, message):
    assert refused(tmp_path, capsys, text) == message


BIG = int("9" * 400)


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["models"][0].update(x=BIG), "models[0].x: out of range"),
    (lambda d: d["models"][0].update(x=1e300), "models[0].x: out of range"),
    (lambda d: d["models"][0].update(marker=BIG), "models[0].marker: out of range"),
    (lambda d: d["board"].update(width=0), "board.width: must be greater than 0"),
    (lambda d: d["board"].update(height=-48), "board.height: must be greater than 0"),
    (lambda d: d["models"][0]["base"].update(diameter_mm=0), "models[0].base.diameter_mm: must be greater than 0"),
    (lambda d: d["models"][2]["base"].update(width_mm=-60), "models[2].base.width_mm: must be greater than 0"),
    (lambda d: d["hexgrid"].update(size=0), "hexgrid.size: must be at least 0.25"),
    (lambda d: d["hexgrid"].update(size=1e-9), "hexgrid.size: must be at least 0.25"),
    (lambda d: d["terrain"][0].update(polygon=[[0, 0], [2, 2], [2, 0], [0, 2]]),
     "terrain[0].polygon: the outline crosses itself (Self-intersection[1 1])"),
    (lambda d: d["terrain"][0].update(polygon=[[0, 0], [1, 1], [2, 2]]), "terrain[0].polygon: the outline has no area"),
    (lambda d: d["terrain"][0].update(polygon=[[k % 7, k // 7] for k in range(1001)]),
     "terrain[0].polygon: at most 1000 points, got 1001"),
    (lambda d: d.update(board={"width": 10, "height": 10}, models=[dict(d["models"][1], id=f"m{k}", x=5, y=5)
                                                                   for k in range(401)]),
     'models: 401 models are more than a 10"x10" board holds (at most 400)'),
    (lambda d: d.update(board={"width": 2000, "height": 2000}), 'hexgrid.size: 1" hexes lay over 50000 hexes'),
])
def test_malformed_numbers_and_sizes_never_reach_the_geometry(tmp_path, capsys, mutate, message):
    doc = copy.deepcopy(FULL)
    mutate(doc)
    assert refused(tmp_path, capsys, doc).startswith(message)


def test_a_ruling_that_is_not_a_finite_number_is_refused(tmp_path, capsys):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(FULL))
    assert main(["query", str(path), "report", "--ruling", "los_block_height=Infinity"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == "smarttable query: --ruling 'los_block_height=Infinity': Infinity is not a finite number"


def test_rule_system_keys_round_trip_where_they_belong(tmp_path, capsys):
    doc = {"format": "smarttable-scene/1", "ruleset": "age_of_tyrants", "smoke": [],
           "units": [{"id": "a", "player": "A", "stats": {"size": 1}}, {"id": "b", "player": "B"}],
           "models": [{"id": "a1", "unit": "a", "x": 5, "y": 5, "sp": 1, "activated": True},
                      {"id": "b1", "unit": "b", "x": 25, "y": 5, "wreckage": True}]}
    code, out, _ = ask(tmp_path, capsys, doc, "distance", "a1", "b1")
    assert code == 0 and json.loads(out)["distance"] > 0
