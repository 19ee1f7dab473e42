"""The Synaptik rulings the text leaves open, each switchable: a distance on a shared band edge, difficult
ground under the centre or under any part of the base, climbing a difficult piece with height. Worked by
hand through `smarttable query`."""

import json

import pytest

from table.cli import main


def scene(models: list, terrain: list = ()) -> dict:
    rifle = {"name": "Rifle", "bands": {"hot": [0, 12], "standard": [12, 24], "cold": [24, 36]}}
    return {"format": "smarttable-scene/1", "ruleset": "synaptik", "terrain": list(terrain),
            "units": [{"id": "a", "player": "A", "stats": {"movement": 6}, "weapons": [rifle]},
                      {"id": "b", "player": "B", "stats": {"movement": 6}}],
            "models": models}


def query(tmp_path, capsys, doc, *args) -> dict:
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(doc))
    assert main(["query", str(path), *args]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("rulings, band", [([], "hot"), (["--ruling", 'band_edge="farther"'], "standard")])
def test_a_distance_on_a_shared_band_edge(tmp_path, capsys, rulings, band):
    doc = scene([{"id": "a1", "unit": "a", "x": 10, "y": 10}, {"id": "b1", "unit": "b", "x": 22, "y": 10}])
    answer = query(tmp_path, capsys, doc, "band", "a1", "b1", *rulings)
    assert answer["distance"] == 12.0 and answer["band"] == band
    assert query(tmp_path, capsys, doc, "bands", "a", *rulings)["boundary"] == ("farther" if rulings else "nearer")


BOG = [{"id": "bog", "polygon": [[20, 0], [24, 0], [24, 48], [20, 48]], "traits": ["difficult"]}]


@pytest.mark.parametrize("rulings, cost", [([], 4.0), (["--ruling", 'difficult_by="base"'], 8.0)])
def test_difficult_ground_under_the_centre_or_under_any_part_of_the_base(tmp_path, capsys, rulings, cost):
    # the centre runs 0.3" outside the bog for 4"; a 25 mm base (r 0.49") overlaps it all the way
    doc = scene([{"id": "a1", "unit": "a", "x": 19.7, "y": 10}], BOG)
    answer = query(tmp_path, capsys, doc, "move", "a1", "maneuver", "19.7,14", *rulings)
    assert answer["cost"] == cost


def test_a_base_short_of_the_bog_pays_nothing_either_way(tmp_path, capsys):
    doc = scene([{"id": "a1", "unit": "a", "x": 17, "y": 10}], BOG)  # its front reaches 19.49
    answer = query(tmp_path, capsys, doc, "move", "a1", "maneuver", "19,10", "--ruling", 'difficult_by="base"')
    assert answer["cost"] == 2.0


@pytest.mark.parametrize("rulings, cost", [([], 8 + 2), (["--ruling", "difficult_climb=true"], 8 + 2 + 2 * 2)])
def test_a_difficult_piece_with_height(tmp_path, capsys, rulings, cost):
    # a 2" high wood 2" deep on the path of 8": 2" inside it count twice; climbing it (2" per inch) adds 4"
    wood = [{"id": "wood", "polygon": [[14, 0], [16, 0], [16, 48], [14, 48]], "height": 2, "traits": ["difficult"]}]
    doc = scene([{"id": "a1", "unit": "a", "x": 11, "y": 10}], wood)
    answer = query(tmp_path, capsys, doc, "move", "a1", "maneuver", "19,10", *rulings)
    assert answer["cost"] == cost
