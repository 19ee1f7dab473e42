"""Issue 22's done-criteria, short form: one render per lens at 2028x1520 (the HQ camera binned, 1.65 m up,
20 mm markers: the same pixels a cell as 15 mm at 4056x3040 would have at 2.2 m), 40 flat markers, a config
that names no lens. bench/bench_lens.py measures the full figures at 4056x3040 with 15 mm markers."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from table.config import default_config
from vision.camera import PinholeCamera
from vision.cameras import camera_model
from vision.locate import VisionSetup, locate
from vision.synthetic import Renderer, RenderOptions
from vision.synthetic_scene import SyntheticScene, corner_markers, grid_layout

BOARD = (48.0, 48.0)
SIZE = (2028, 1520)
DISC = 2.4477  # the 95% radius of a 2-D normal with sd 1 on each axis


@pytest.mark.parametrize("k1", [0.0, -0.04, -0.09, 0.03])
def test_a_lens_no_config_names_is_learnt_from_one_frame(k1):
    config = default_config()
    cam = PinholeCamera.from_model(camera_model("hq-6mm"), SIZE, BOARD, height_mm=1650.0, tilt_deg=(0.8, -0.6))
    K = cam.K.copy()
    K[0, 0] = K[1, 1] = K[0, 0] * 1.02  # not quite the camera model's focal length
    K[:2, 2] += (6.0, -4.0)             # nor its principal point at the image's centre
    cam = replace(cam, K=K, dist=np.array([k1, 0.0, 0.0, 0.0, 0.0]))
    truth = grid_layout(40, BOARD, size_mm=20.0, seed=3, margin=3.0)
    options = RenderOptions(clutter=40, decoys=1, noise_sigma=2.0, blur_sigma=0.6, supersample=2, seed=5)
    frame = Renderer(cam, BOARD, options).render(SyntheticScene(BOARD, corner_markers(config) + truth), {0, 1, 2, 3})
    setup = replace(VisionSetup.from_config(config), model_size_mm=20.0)
    assert setup.intrinsics is None and setup.model_height_mm == 0
    result = locate(frame, setup)
    assert result.calibration.lens == "estimated"
    by_id = {m.id: m for m in truth}
    got = [m for m in result.markers if m.id in by_id]
    err = np.array([math.dist((m.x, m.y), (by_id[m.id].x, by_id[m.id].y)) for m in got])
    sigma = np.array([m.sigma for m in got])
    assert len(got) >= 39
    assert np.median(err) <= 0.03 and err.max() <= 0.08
    assert 0.85 <= np.mean(err <= DISC * sigma) <= 1.0
    assert 0.4 <= np.median(err / sigma) <= 2.2
    assert sigma.mean() <= 0.06
