"""Scene files: the contract's example loads, round-trips, and every mistake names its JSON path."""

import copy
import json
from pathlib import Path

import pytest

from table.errors import SceneError
from table.scene import Base, load_scene, parse_scene, save_scene, scene_to_dict

DATA = Path(__file__).parent.parent / "data" / "core"
FULL = json.loads((DATA / "full-scene.json").read_text())


def test_contract_example_loads_with_its_values():
    scene = load_scene(DATA / "full-scene.json")
    m1 = scene.model("m1")
    assert (m1.x, m1.y, m1.heading, m1.marker, m1.height) == (12.0, 30.0, -90.0, 12, 1.1)
    assert m1.base == Base("circle", 25.0, 25.0)
    assert scene.model("m2").base == Base("circle", 25.0, 25.0)  # default base
    assert scene.model("m3").heading == -90.0  # 270 normalised into (-180, 180]
    assert scene.model("m3").base == Base("oval", 60.0, 35.0)
    assert scene.terrain[0].has("light_cover") and scene.terrain[0].height == 3.0
    assert scene.unit("u1").weapons[0].bands["cold"] == (24.0, 36.0)
    assert scene.model_size(scene.model("m3")) == 2.0  # from the unit's stats
    assert scene.model_size(scene.model("m1")) == 1.0  # the model's own


def test_hex_placed_model_gets_the_hex_centre_on_the_board():
    m4 = load_scene(DATA / "full-scene.json").model("m4")
    # flat hexes of size 1 from origin (1, 1): x = 1 + 1.5 q, y = 1 + sqrt(3) (r + q / 2)
    assert m4.hex == (4, 2)
    assert m4.x == pytest.approx(7.0)
    assert m4.y == pytest.approx(1 + 3 ** 0.5 * 4)


def test_save_and_load_round_trip(tmp_path):
    scene = load_scene(DATA / "full-scene.json")
    save_scene(scene, tmp_path / "again.json")
    again = load_scene(tmp_path / "again.json")
    assert again == scene
    assert scene_to_dict(again) == scene_to_dict(scene)


def test_heading_180_stays_180():
    doc = copy.deepcopy(FULL)
    doc["models"][1]["heading"] = -180
    assert parse_scene(doc).model("m2").heading == 180.0


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["models"][3].update(unit="u9"), "models[3].unit: no unit 'u9'"),
    (lambda d: d.update(format="other"), "format: expected 'smarttable-scene/1'"),
    (lambda d: d.update(ruleset="chess"), "ruleset: unknown rule system 'chess'"),
    (lambda d: d["models"][0].update(x="twelve"), "models[0].x: expected a number, got a string"),
    (lambda d: d["models"][1].pop("y"), "models[1].y: missing"),
    (lambda d: d["models"][0]["base"].update(shape="hex"), "models[0].base.shape: unknown shape 'hex'"),
    (lambda d: d["models"][2]["base"].pop("depth_mm"), "models[2].base.depth_mm: missing"),
    (lambda d: d["models"][0]["base"].update(diameter_mm=-3), "models[0].base.diameter_mm: must be greater than 0"),
    (lambda d: d["terrain"][0].update(traits=["lava"]), "terrain[0].traits[0]: unknown trait 'lava'"),
    (lambda d: d["terrain"][0].update(traits=[["cover"]]), "terrain[0].traits[0]: unknown trait ['cover']"),
    (lambda d: d["terrain"][0].update(traits=["light cover"]),
     'terrain[0].traits[0]: unknown trait \'light cover\'; did you mean "light_cover"?'),
    (lambda d: d["hexes"][0].update(terrain="forrest"), 'hexes[0].terrain: unknown hex terrain \'forrest\'; did you mean "forest"?'),
    (lambda d: d["terrain"][0].update(polygon=[[0, 0], [1, 1]]), "terrain[0].polygon: a polygon needs at least 3"),
    (lambda d: d["models"].append(dict(d["models"][0])), "models[4].id: duplicate id 'm1'"),
    (lambda d: d["hexsides"][0].update(between=[[0, 0], [5, 5]]), "hexsides[0].between: hexes [0, 0] and [5, 5]"),
    (lambda d: d["hexes"][0].update(terrain="lava"), "hexes[0].terrain: unknown hex terrain 'lava'"),
    (lambda d: d["units"][0]["weapons"][0]["bands"].update(hot=[12, 0]), "units[0].weapons[0].bands.hot"),
    (lambda d: d.pop("hexgrid"), "models[3].hex: a model placed by hex needs the scene's hexgrid"),
    (lambda d: d["models"][0].update(marker=-1), "models[0].marker: must be at least 0"),
])
def test_mistakes_name_the_json_path(mutate, message):
    doc = copy.deepcopy(FULL)
    mutate(doc)
    with pytest.raises(SceneError) as caught:
        parse_scene(doc, "scene.json")
    assert str(caught.value).startswith("scene.json: ")
    assert message in str(caught.value)


def test_unreadable_files_name_the_file(tmp_path):
    with pytest.raises(SceneError, match="no such file"):
        load_scene(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "smarttable-scene/1",\n  "ruleset": }')
    with pytest.raises(SceneError, match=r"bad.json: line 2 column 14: invalid JSON"):
        load_scene(bad)
    assert isinstance(SceneError("x"), ValueError)


def test_a_note_and_rule_system_keys_are_kept(tmp_path):
    doc = copy.deepcopy(FULL)
    doc["note"] = "Bridge at dawn"
    doc["models"][0]["wounds"] = 2  # a Synaptik key
    scene = parse_scene(doc)
    assert scene_to_dict(scene)["note"] == "Bridge at dawn"
    assert scene_to_dict(scene)["models"][0]["wounds"] == 2
