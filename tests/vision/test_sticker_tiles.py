"""`smarttable markers DIR --tiles` (the contract) and what an outside check does with it: paste the PNG
tiles into its own render, with miniatures standing on the stickers, and run `smarttable locate` with a
config built from `markers_toml`. Half the HQ set-up (tests/vision/test_sticker.py)."""

from __future__ import annotations

import json
import math
import tomllib

import cv2
import numpy as np
import pytest

from table.cli import main
from table.config import from_document
from vision.camera import PinholeCamera
from vision.cameras import camera_model
from vision.synthetic import Renderer, RenderOptions, Tile
from vision.synthetic_scene import SceneMarker, SyntheticScene, on_solid_bases

BOARD = (24.0, 24.0)
CORNERS = {"0": [1.6, 1.6], "1": [22.4, 1.6], "2": [22.4, 22.4], "3": [1.6, 22.4]}
PLACES = [(12.0, 12.0), (12.0, 3.9), (20.1, 12.0), (12.0, 20.1), (3.9, 12.0),
          (4.4, 4.6), (19.6, 4.4), (19.5, 19.7), (4.5, 19.6), (8.0, 15.5), (16.0, 8.5)]


@pytest.fixture(scope="module")
def tiles(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiles")
    assert main(["markers", str(folder), "--tiles", "--ids", "10-49", "--base-mm", "25"]) == 0
    return folder, json.loads((folder / "tiles.json").read_text())


def test_tiles_json_is_the_contract(tiles):
    folder, doc = tiles
    assert set(doc) == {"tiles", "markers_toml"}
    assert set(doc["tiles"]) == {str(i) for i in [0, 1, 2, 3, *range(10, 50)]}
    for key, tile in doc["tiles"].items():
        assert set(tile) == {"file", "side_mm"}
        image = cv2.imread(str(folder / tile["file"]), cv2.IMREAD_UNCHANGED)
        assert image.ndim == 3 and image.shape[0] == image.shape[1] and image.shape[2] == 4, key
        n = image.shape[0]
        if int(key) >= 10:  # a 22 mm sticker for a 25 mm base, transparent outside its disc
            assert tile["side_mm"] == pytest.approx(22.0, abs=0.1)
            assert image[0, 0, 3] == 0 and image[n // 2, n // 2, 3] == 255 and image[n // 2, 2, 3] == 255
        else:  # a corner marker: the 50 mm black square and its one-cell white margin, opaque
            assert tile["side_mm"] == pytest.approx(50.0 * 10 / 8, abs=0.2)
            assert (image[..., 3] == 255).all() and image[0, 0, 0] == 255
    keys = tomllib.loads(doc["markers_toml"])
    assert "corners" not in keys and "model_height_mm" not in keys
    assert keys["stickers"] == {"25": "10-49"}


def _outside_config(tmp_path, markers_toml: str, extra: str = "") -> str:
    path = tmp_path / "outside.toml"
    corners = "\n".join(f'"{k}" = [{x}, {y}]' for k, (x, y) in CORNERS.items())
    path.write_text(f"[board]\nwidth = 24.0\nheight = 24.0\n\n[markers]\n{markers_toml}{extra}\n"
                    f"[markers.corners]\n{corners}\n")
    from_document(tomllib.loads(path.read_text()), str(path))  # a config the table takes as it is
    return str(path)


@pytest.mark.parametrize("figures", [True, False], ids=["models", "bare"])
def test_an_outside_render_of_the_tiles_with_models_standing_on_them_is_located(tiles, tmp_path, capsys,
                                                                                  figures):
    folder, doc = tiles
    images = {int(k): Tile(cv2.imread(str(folder / t["file"]), cv2.IMREAD_UNCHANGED), t["side_mm"])
              for k, t in doc["tiles"].items()}
    corners = tuple(SceneMarker(int(k), x, y, -90.0) for k, (x, y) in CORNERS.items())
    flat = tuple(SceneMarker(10 + 3 * i, x, y, 31.0 * i - 160.0) for i, (x, y) in enumerate(PLACES))
    models = on_solid_bases(flat, base_mm=25.0, thickness_mm=3.0, figures=figures, seed=5)
    cam = PinholeCamera.from_model(camera_model("hq-6mm"), (2028, 1520), BOARD, height_mm=825.0)
    options = RenderOptions(clutter=30, decoys=1, texture_ppi=30.0, supersample=3, blur_sigma=0.8,
                            noise_sigma=2.5, seed=9)
    frame = Renderer(cam, BOARD, options, images).render(SyntheticScene(BOARD, corners + models))
    image = tmp_path / "board.png"
    cv2.imwrite(str(image), frame)
    config = _outside_config(tmp_path, doc["markers_toml"], "model_height_mm = 3\n")
    assert main(["locate", str(image), "--config", config]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["calibrated"]
    truth = {m.id: m for m in models}
    assert sorted(m["id"] for m in found["markers"]) == sorted(truth)
    for m in found["markers"]:
        t = truth[m["id"]]
        assert math.dist((m["x"], m["y"]), (t.x, t.y)) <= 0.05, m
        assert abs((m["heading"] - t.heading + 180) % 360 - 180) <= 3.0, m


def test_markers_tiles_errors_are_one_line(tmp_path, capsys):
    assert main(["markers", str(tmp_path / "t"), "--tiles", "--ids", "90-99", "--base-mm", "25"]) == 2
    assert "ring stickers have ids 0-95" in capsys.readouterr().err
    assert main(["markers", str(tmp_path / "t"), "--tiles", "--ids", "10", "--base-mm", "12"]) == 2
    assert "a ring sticker needs a base of at least 20 mm" in capsys.readouterr().err
    (tmp_path / "file").write_text("x")
    assert main(["markers", str(tmp_path / "file"), "--tiles", "--ids", "10", "--base-mm", "25"]) == 2
    assert "writes a folder of images" in capsys.readouterr().err


def test_an_ovals_stickers_are_the_ring_for_its_narrower_side(tmp_path, capsys):
    """`--base-mm` takes what `plan-camera --base-mm` takes: a 60x35 mm oval (either way round) prints the
    ring for 35 mm, as the config then names it; a base that is neither says so in one line."""
    for text in ("60x35", "35X60"):
        folder = tmp_path / text
        assert main(["markers", str(folder), "--tiles", "--ids", "10-11", "--base-mm", text]) == 0
        doc = json.loads((folder / "tiles.json").read_text())
        assert tomllib.loads(doc["markers_toml"])["stickers"] == {"35": "10-11"}
        assert doc["tiles"]["10"]["side_mm"] == pytest.approx(35 - 3, abs=0.01)  # the base less its rim
    capsys.readouterr()
    assert main(["markers", str(tmp_path / "x"), "--tiles", "--ids", "10", "--base-mm", "60x"]) == 2
    assert capsys.readouterr().err.strip().endswith("expected a round base's mm (25) or an oval's LxW (60x35)")


def test_detect_with_the_config_lists_the_stickers_in_pixels(tiles, tmp_path, capsys):
    """`detect --config`: each sticker's centre is where the camera projects the base's centre, its
    corners the tile's, its top edge (corner 0 to 1) across the facing."""
    folder, doc = tiles
    images = {int(k): Tile(cv2.imread(str(folder / t["file"]), cv2.IMREAD_UNCHANGED), t["side_mm"])
              for k, t in doc["tiles"].items()}
    corners = tuple(SceneMarker(int(k), x, y, -90.0) for k, (x, y) in CORNERS.items())
    models = on_solid_bases((SceneMarker(12, 9.0, 14.0, 0.0),), base_mm=25.0, figures=True, seed=1)
    cam = PinholeCamera.from_model(camera_model("hq-6mm"), (2028, 1520), BOARD, height_mm=825.0)
    frame = Renderer(cam, BOARD, RenderOptions(clutter=10, decoys=0, texture_ppi=30.0, supersample=3),
                     images).render(SyntheticScene(BOARD, corners + models))
    image = tmp_path / "board.png"
    cv2.imwrite(str(image), frame)
    config = _outside_config(tmp_path, doc["markers_toml"], "model_height_mm = 3\n")
    assert main(["detect", str(image), "--config", config]) == 0
    found = {m["id"]: m for m in json.loads(capsys.readouterr().out)["markers"]}
    assert sorted(found) == [0, 1, 2, 3, 12] and found[12]["sticker"] == "ring" and found[12]["base_mm"] == 25
    centre = cam.project(np.array([[9.0, 14.0, -3.0 / 25.4]]))[0]
    assert math.dist(found[12]["centre"], centre) < 1.0
    c = np.array(found[12]["corners"])
    top = (c[0] + c[1]) / 2 - (c[2] + c[3]) / 2  # heading 0 faces +x, which is +x in this image
    assert top[0] > 0 and abs(top[1]) < 0.05 * top[0]
