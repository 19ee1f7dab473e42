"""`plan-camera --base-mm --model-height-mm` against what the detector finds on renders of models
standing on ring stickers at the centre, edges and corners of the board (tests/vision/test_sticker.py's
half set-up: the same pixels a millimetre and angles as the HQ camera at 1.65 m over 48"): where
the plan says the sticker reads everywhere, every model is located; where it says a model that wide
hides the ring, not all are. And the command from the outside."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest

from table.cli import main
from tests.vision.test_sticker import BOARD, HEIGHT_MM, PLACES, SIZE, _render, _setup
from vision.camera import PinholeCamera
from vision.cameras import camera_model
from vision.locate import locate
from vision.planner import Setup
from vision.sticker import Sticker, sticker_image
from vision.sticker_plan import sticker_plan
from vision.synthetic import Tile
from vision.synthetic_scene import SceneMarker, on_solid_bases


def located_share(config, base_mm: float, width_mm: float | None, camera_mm: float = HEIGHT_MM) -> float:
    """The share of models (typical for the base, or `width_mm` wide) located within 0.05" and 3 degrees."""
    cam = PinholeCamera.from_model(camera_model("hq-6mm"), SIZE, BOARD, height_mm=camera_mm)
    flat = tuple(SceneMarker(10 + i, x, y, 33.0 * i - 170.0) for i, (x, y) in enumerate(PLACES))
    models = tuple(on_solid_bases((m,), base_mm=base_mm, seed=i + 7)[0] for i, m in enumerate(flat))
    if width_mm is not None:
        models = tuple(replace(m, figures=tuple(replace(f, radius_mm=width_mm / 2) for f in m.figures))
                       for m in models)
    tiles = {m.id: Tile(sticker_image(m.id, Sticker(base_mm), 300), Sticker(base_mm).diameter_mm) for m in models}
    result = locate(_render(cam, config, models, tiles), _setup(config, cam, {f"{base_mm:g}": "10-20"}))
    truth = {m.id: m for m in models}
    assert all(m.id in truth for m in result.markers)  # never a false id
    good = [m for m in result.markers if math.dist((m.x, m.y), (truth[m.id].x, truth[m.id].y)) <= 0.05
            and abs((m.heading - truth[m.id].heading + 180) % 360 - 180) <= 3.0]
    return len(good) / len(models)


HALF = Setup(camera_model("hq-6mm"), HEIGHT_MM, BOARD, 15.0, SIZE)


def test_where_the_plan_says_the_sticker_reads_everywhere_every_model_is_located(config):
    p = sticker_plan(HALF, 25.0, 30.0, None)
    assert p["sticker_reading"] == "reliable" and p["sticker_board_share"] == 1.0
    assert p["sticker"]["diameter_mm"] == 22.0
    assert located_share(config, 25.0, None) == 1.0


def test_where_the_plan_says_the_model_hides_the_ring_models_are_not_reliably_located(config):
    """A 13 mm-wide model on a 25 mm base: wider than the sticker's white middle. Fewer than the 98% the
    issue asks for are located (decoding through doubtful cells as erasures: 7 of 11; before, 4)."""
    p = sticker_plan(HALF, 25.0, 30.0, 13.0)
    assert p["sticker_reading"] == "unreliable" and p["sticker_board_share"] == 0.0
    assert any("32 mm bases" in a for a in p["sticker_advice"])
    assert located_share(config, 25.0, 13.0) < 0.98


def test_where_the_plan_says_the_bands_are_thin_some_models_are_lost(config):
    """The half set-up's camera raised to 1.45 m: the code's bands 2.06 px wide (at 1.4 m, 2.13 px, the
    reader that takes the cells' black and white from the cells themselves locates all 11)."""
    p = sticker_plan(replace(HALF, height_mm=1450.0), 25.0, 30.0, None)
    assert p["sticker_reading"] == "marginal" and 2.0 <= p["sticker_band_px"] < 3.0
    assert 0.5 <= located_share(config, 25.0, None, 1450.0) < 0.98


def test_plan_camera_adds_the_sticker_to_the_cameras_plan(capsys):
    args = ["plan-camera", "--camera", "hq-6mm", "--height-mm", "1650"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*args, "--model-height-mm", "30", "--base-mm", "25"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {k: out[k] for k in plain} == plain  # every key plan-camera printed before, unchanged
    assert out["sticker"]["kind"] == "ring" and out["sticker"]["base_mm"] == 25.0
    assert out["sticker_reading"] == "reliable" and out["model_height_mm"] == 30.0
    # the same camera capturing a quarter of the pixels: the code's bands too thin to read
    assert main([*args, "--base-mm", "25", "--resolution", "2028x1520"]) == 0
    low = json.loads(capsys.readouterr().out)
    assert low["sticker_reading"] == "unreliable" and low["sticker_band_px"] < 2.0
    assert "bands are 1.8 px wide" in low["sticker_advice"][0] and "lower the camera to 1195 mm" in low["sticker_advice"][0]


@pytest.mark.parametrize("extra, message", [
    (["--base-mm", "15"], "--base-mm 15: ring stickers need a base"),
    (["--model-height-mm", "30"], "need --base-mm"),
    (["--base-mm", "25", "--model-height-mm", "-3"], "--model-height-mm -3: must be more than 0"),
])
def test_bad_sticker_options_are_one_line(capsys, extra, message):
    assert main(["plan-camera", "--camera", "hq-6mm", "--height-mm", "1650", *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
