"""The camera's focus (vision/focus.py): the blur measured on the corner markers' edges, against the lens
blur an outside render was given, and the warning `locate` gives where ring stickers stop reading.

At half scale, as tests/vision/test_outside_stickers.py: the HQ camera binned to 2028x1520 at 825 mm over a
24"x24" board sees a millimetre as the full set-up does from 1.65 m (2.35 px), so the stickers' bands and
the corner markers are as many pixels wide."""

from __future__ import annotations

import math

import cv2
import numpy as np
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


def test_the_live_table_measures_the_focus_again_as_the_lens_is_turned():
    """The demo board through the simulated camera, then the same frame blurred by 1.6 px more, as a lens
    turned out of focus: the table's measure follows within a few frames (FOCUS_EVERY_S of frame time).
    The demo's corner markers are 7 px a cell: the measure holds to a quarter of that."""
    from table.config import default_config
    from table.scene import load_scene
    from tests.live.live_fakes import DEMO_SCENE
    from vision.pipeline import FOCUS_EVERY_S, VisionPipeline
    from vision.sources import SyntheticSource
    from vision.synthetic_scene import from_scene
    from vision.types import Frame

    config = default_config()
    image = SyntheticSource(config, from_scene(load_scene(DEMO_SCENE), config), realtime=False).read().image
    soft = cv2.GaussianBlur(image, (0, 0), 1.6)
    pipeline = VisionPipeline(config)
    seen = [pipeline.process(Frame(image if k < 3 else soft, k * FOCUS_EVERY_S / 2, k)).focus for k in range(12)]
    assert seen[0] is not None and seen[0]["blur_px"] < 1.0
    assert seen[-1] is not None and abs(seen[-1]["blur_px"] - math.hypot(1.6, seen[0]["blur_px"])) < 0.2
    assert seen[1] == seen[0]  # measured again only once FOCUS_EVERY_S has passed


@pytest.mark.parametrize("sigma", [0.8, 1.6])
def test_a_square_dark_inside_or_light_inside_measures_the_blur_it_was_given(sigma):
    """AprilTag 3's layouts (tagStandard41h12, ...) are a light square in a dark ring: the same blur either
    way. A step drawn on whole pixels adds a pixel's box (0.29 px) in quadrature."""
    from vision.focus import edge_blur_px

    image = np.full((400, 400), 230, np.uint8)
    image[100:300, 100:300] = 25
    square = [np.array([[99.5, 99.5], [299.5, 99.5], [299.5, 299.5], [99.5, 299.5]])]
    expected = math.hypot(sigma, 1 / math.sqrt(12))
    for drawn in (image, 255 - image):
        blur = edge_blur_px(cv2.GaussianBlur(drawn, (0, 0), sigma), square, 8)
        assert blur is not None and abs(blur - expected) < 0.05
