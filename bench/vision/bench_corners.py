"""Marker corners against ground truth: the AprilTag library's own, our edge fit, and the two combined.

Renders (vision/synthetic.py) of a 24" board at 1200x900, tilted, with lens distortion, 25 markers
of one size a scene (8 to 30 mm: 1.6 to 6 px a cell), clean and spoiled the ways real photos are
(vision/degrade.py). Corner error per corner against the projected printed corners, in the marker's
own order, for:
- plain: OpenCV's ArucoDetector with default parameters;
- opencv+fit: OpenCV with our parameters, corners fitted from the edges (vision/refine.py), as
  `detect` read AprilTags before the library read whole frames;
- library: the AprilTag library alone (vision/apriltags.py, its own edge refinement);
- library+fit: the library's corners, every one fitted from the edges (one iteration);
- ours: what `detect` does (the library's corners, fitted under REFINE_CELL_PX pixels a cell).
The real photos' references sit on the library's corners, so they cannot say which is better; this does.

    .venv/bin/python bench/vision/bench_corners.py
"""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np

from table.config import default_config
from vision import apriltags
from vision.calibrate import board_corners_of
from vision.camera import PinholeCamera
from vision.degrade import LEVELS, degrade
from vision.detect import (
    DetectorSettings,
    MarkerDetector,
    detect_markers,
    detector_parameters,
    get_dictionary,
)
from vision.refine import refine_corners
from vision.synthetic import Renderer, RenderOptions
from vision.synthetic_scene import SceneMarker, SyntheticScene, corner_markers, grid_layout

BOARD = (24.0, 24.0)
SIZE = (1200, 900)
SIZES_MM = (8.0, 12.0, 18.0, 20.0, 22.0, 30.0)
DAMAGE = ("none", "jpeg 50", "motion 3 px", "defocus 2.5 px", "gain noise 12", "all moderate")
Corners = list[tuple[int, np.ndarray]]
DICTIONARY = "DICT_APRILTAG_36h11"


def truth(camera: PinholeCamera, m: SceneMarker) -> np.ndarray:
    """Image pixels of a marker's printed corners 0..3 (its own order)."""
    a = math.radians(m.heading + 90.0)  # heading -90 is the marker as printed
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    board = board_corners_of((0.0, 0.0), m.size_mm / 25.4) @ rot.T + np.array([m.x, m.y])
    return camera.project(np.column_stack([board, np.full(4, -m.height_in)]))


def plain(image: np.ndarray) -> Corners:
    corners, ids, _ = cv2.aruco.ArucoDetector(get_dictionary(DICTIONARY)).detectMarkers(image)
    if ids is None:
        return []
    return [(int(i), np.asarray(c, float).reshape(4, 2)) for i, c in zip(np.asarray(ids).reshape(-1), corners,
                                                                          strict=True)]


def opencv_fit(image: np.ndarray) -> Corners:
    params = detector_parameters(DetectorSettings(DICTIONARY, min_side_px=8.0), image.shape)
    corners, ids, _ = cv2.aruco.ArucoDetector(get_dictionary(DICTIONARY), params).detectMarkers(image)
    if ids is None:
        return []
    fitted = refine_corners(image, np.stack([np.asarray(c, np.float32).reshape(4, 2) for c in corners]), 0.1)
    return [(int(i), q) for i, q in zip(np.asarray(ids).reshape(-1), fitted, strict=True)]


def library(image: np.ndarray) -> Corners:
    return apriltags.read(image, "tag36h11")


def library_fit(image: np.ndarray) -> Corners:
    found = library(image)
    if not found:
        return []
    fitted = refine_corners(image, np.stack([q for _, q in found]).astype(np.float32), 0.1, iterations=1)
    return [(i, q) for (i, _), q in zip(found, fitted, strict=True)]


def ours(image: np.ndarray) -> Corners:
    return [(d.id, d.corners) for d in detect_markers(image, DICTIONARY)]


DETECTORS: dict[str, Callable[[np.ndarray], Corners]] = {
    "plain": plain, "opencv+fit": opencv_fit, "library": library, "library+fit": library_fit, "ours": ours}


def errors(found: Corners, truths: dict[int, np.ndarray]) -> tuple[int, list[float]]:
    hits, out = 0, []
    for marker_id, t in truths.items():
        near = [q for i, q in found if i == marker_id and np.linalg.norm(q.mean(axis=0) - t.mean(axis=0)) < 5]
        if near:
            hits += 1
            out += np.linalg.norm(np.asarray(near[0], float) - t, axis=1).tolist()
    return hits, out


def stats(e: list[float]) -> str:
    if not e:
        return "          (none found)           "
    a = np.asarray(e)
    return f"median {np.median(a):.3f} p90 {np.percentile(a, 90):.3f} max {a.max():.2f}"


def main() -> None:
    config = default_config()
    camera = PinholeCamera.overhead(SIZE, BOARD, height_in=30.0, tilt_deg=(6.0, -4.0),
                                    dist=(-0.08, 0.02, 0.0, 0.0, 0.0))
    renderer = Renderer(camera, BOARD, RenderOptions(clutter=30, decoys=0, texture_ppi=30.0, supersample=3))
    corners = tuple(m for m in corner_markers(config) if m.x < BOARD[0] and m.y < BOARD[1])
    everything: dict[str, list[float]] = {name: [] for name in DETECTORS}
    MarkerDetector(DetectorSettings(DICTIONARY))  # the library's detector made before any timing matters
    for size_mm in SIZES_MM:
        markers = grid_layout(25, BOARD, size_mm=size_mm, first_id=10, margin=3.5, seed=3)
        clean = renderer.render(SyntheticScene(BOARD, corners + markers), {m.id for m in corners})
        truths = {m.id: truth(camera, m) for m in markers}
        side = float(np.mean([np.linalg.norm(t[0] - t[1]) for t in truths.values()]))
        print(f"{size_mm:g} mm markers ({side / 8:.1f} px a cell), {len(DAMAGE)} frames: {', '.join(DAMAGE)}")
        per: dict[str, tuple[int, list[float]]] = {name: (0, []) for name in DETECTORS}
        for level in DAMAGE:
            image = clean if level == "none" else degrade(clean, LEVELS[level], seed=1)
            for name, fn in DETECTORS.items():
                hits, e = errors(fn(image), truths)
                per[name] = (per[name][0] + hits, per[name][1] + e)
        for name, (hits, e) in per.items():
            print(f"  {name:12s} found {hits:3d}/{len(truths) * len(DAMAGE)}  corners {stats(e)} px")
            everything[name] += e
    print("all sizes, every corner found")
    for name, e in everything.items():
        a = np.asarray(e)
        print(f"  {name:12s} {stats(e)} px, p99 {np.percentile(a, 99):.2f}, {np.mean(a <= 1.0):.2%} <= 1 px")


if __name__ == "__main__":
    main()
