"""The camera's focus (vision/focus.py): the blur measured on the corner markers' edges, against the lens
blur an outside render was given, and the warning `locate` gives where ring stickers stop reading.

At half scale, as tests/vision/test_outside_stickers.py: the HQ camera binned to 2028x1520 at 825 mm over a
24"x24" board sees a millimetre as the full set-up does from 1.65 m (2.35 px), so the stickers' bands and
the corner markers are as many pixels wide."""

from __future__ import annotations

import math

import pytest

from tests.vision.outside_check import check, corners_of, models_for, print_tiles
from tests.vision.outside_render import Camera, Renderer

BOARD = (24.0, 24.0)
SIZE = (2028, 1520)
HEIGHT_MM = 825.0


@pytest.mark.parametrize(("blur", "soft"), [(0.75, False), (1.25, False), (2.2, True)])
def test_locate_measures_the_lens_blur_and_says_when_25mm_stickers_stop_reading(tmp_path, blur, soft):
    """The measured blur is the lens's and what the pixels add (in quadrature, under 0.6 px). 25 mm
    stickers under 30 mm models read reliably to about 1.6 px here (bench: 73 of 80 at 2 px)."""
    tiles, markers_toml = print_tiles(tmp_path, 25.0, count=8)
    models = models_for(BOARD, corners_of(BOARD), 25.0, 30.0, 8, seed=57, body_mm=5.0)
    renderer = Renderer(Camera.hq_6mm(SIZE, BOARD, HEIGHT_MM), BOARD, 57, blur_sigma=blur)
    _, _, answer = check(tmp_path, renderer, tiles, markers_toml, models)
    focus = answer["focus"]
    assert blur <= focus["blur_px"] <= math.hypot(blur, 0.6), focus
    assert focus["sticker_base_mm"] == 25.0 and 1.5 <= focus["sticker_limit_px"] <= 1.8
    warned = [w for w in answer["warnings"] if w.startswith("the camera is out of focus for the stickers")]
    assert len(warned) == soft and all("25 mm bases" in w and "focus the lens" in w for w in warned)
