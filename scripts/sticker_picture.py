"""Draw docs/images/sticker-under-model.png: a ring sticker as printed, then rendered under a 28 mm-scale
model (30 mm tall on a 25 mm base) by the synthetic camera, under the camera and at a board corner
(where the model leans outward over it), each with where `locate` puts the base's centre and facing.

The camera sees the board at the HQ set-up's angles (a 24" board from 825 mm is a 48" board from
1.65 m) at twice its pixels a millimetre, so the picture shows detail.

    .venv/bin/python scripts/sticker_picture.py [OUT]
"""

from __future__ import annotations

import math
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from table.config import from_document, load_config
from vision.camera import PinholeCamera
from vision.cameras import camera_model
from vision.lens import Intrinsics
from vision.locate import VisionSetup, locate
from vision.sticker import Sticker, sticker_image
from vision.synthetic import Renderer, RenderOptions, Tile
from vision.synthetic_scene import SceneMarker, SyntheticScene, corner_markers, on_solid_bases

ROOT = Path(__file__).resolve().parent.parent
BOARD = (24.0, 24.0)
SIZE = (4056, 3040)
PLACES = ((12.0, 12.0), (3.6, 3.8))  # under the camera, a corner
CROP_MM = 40.0
PANEL = 320


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "images" / "sticker-under-model.png"
    config = load_config(ROOT / "tests" / "data" / "vision" / "small-board.toml")
    cam = PinholeCamera.from_model(camera_model("hq-6mm"), SIZE, BOARD, height_mm=825.0)
    sticker = Sticker(25.0)
    flat = tuple(SceneMarker(10 + i, x, y, -60.0) for i, (x, y) in enumerate(PLACES))
    models = tuple(on_solid_bases((m,), base_mm=25.0, seed=4)[0] for m in flat)
    tiles = {m.id: Tile(sticker_image(m.id, sticker, 600), sticker.diameter_mm) for m in models}
    options = RenderOptions(clutter=20, decoys=0, texture_ppi=40.0, supersample=4, seed=2)
    scene = SyntheticScene(BOARD, corner_markers(config) + models)
    frame = Renderer(cam, BOARD, options, tiles).render(scene, {0, 1, 2, 3})
    markers = {"corner_size_mm": config.markers.corner_size_mm, "stickers": {"25": "10-11"},
               "corners": {k: list(v) for k, v in config.markers.corners.items()}, "model_height_mm": 3.0}
    cfg = from_document({"board": {"width": BOARD[0], "height": BOARD[1]}, "markers": markers}, "picture")
    setup = replace(VisionSetup.from_config(cfg), intrinsics=Intrinsics(cam.K, cam.dist, cam.size))
    found = {m.id: m for m in locate(frame, setup).markers}
    printed = sticker_image(10, sticker, PANEL - 40)
    alpha = printed[..., 3:4] / 255.0
    panels = [np.pad((printed[..., 0:1] * alpha + 255 * (1 - alpha))[..., 0], 20, constant_values=255)]
    labels = ["as printed (22 mm)", "under the camera", "at a corner: leaning out"]
    for m in models:
        panels.append(_crop(frame, cam, m, found.get(m.id)))
    row = np.hstack([cv2.cvtColor(p.astype(np.uint8), cv2.COLOR_GRAY2BGR) for p in panels])
    strip = np.full((34, row.shape[1], 3), 255, np.uint8)
    for i, text in enumerate(labels):
        cv2.putText(strip, text, (i * PANEL + 10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1,
                    cv2.LINE_AA)
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), np.vstack([row, strip]))
    print(out, {i: (round(m.x, 3), round(m.y, 3), round(m.heading, 1)) for i, m in found.items()})


def _crop(frame: np.ndarray, cam: PinholeCamera, model: SceneMarker, got) -> np.ndarray:
    """The frame round a model's base, PANEL pixels square, with the located centre and facing."""
    centre = cam.project(np.array([[model.x, model.y, -model.height_in]]))[0]
    half = CROP_MM / 2 / 25.4 * np.linalg.norm(cam.project(np.array([[model.x + 1, model.y, 0.0]]))[0]
                                                - cam.project(np.array([[model.x, model.y, 0.0]]))[0])
    x0, y0 = centre - half
    scale = PANEL / (2 * half)
    warp = np.array([[scale, 0, -x0 * scale], [0, scale, -y0 * scale]])
    near = cv2.warpAffine(frame, warp, (PANEL, PANEL), flags=cv2.INTER_CUBIC)
    crop = cv2.cvtColor(near, cv2.COLOR_GRAY2BGR)
    if got is not None:
        h = math.radians(got.heading)
        ends = np.array([[got.x, got.y, -model.height_in],
                         [got.x + 0.3 * math.cos(h), got.y + 0.3 * math.sin(h), -model.height_in]])
        a, b = (warp[:, :2] @ p + warp[:, 2] for p in cam.project(ends))
        cv2.drawMarker(crop, tuple(int(v) for v in a), (0, 0, 0), cv2.MARKER_CROSS, 24, 2)
        cv2.arrowedLine(crop, tuple(int(v) for v in a), tuple(int(v) for v in b), (0, 0, 0), 2, tipLength=0.2)
    return cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)


if __name__ == "__main__":
    main()
