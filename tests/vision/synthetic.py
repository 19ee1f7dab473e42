"""The vision tests' synthetic world: a small board config, a camera over it and renders with ground truth."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np

from vision.calibrate import board_corners_of
from vision.camera import PinholeCamera
from vision.synthetic import Renderer, RenderOptions
from vision.synthetic_scene import SceneMarker, SyntheticScene, corner_markers, grid_layout

DATA = Path(__file__).parent.parent / "data" / "vision"
SMALL_BOARD = DATA / "small-board.toml"
BOARD = (24.0, 24.0)
SIZE = (1200, 900)
DISTORTION = (-0.08, 0.02, 0.0, 0.0, 0.0)


def camera(tilt=(6.0, -4.0), dist=DISTORTION, size=SIZE, height=30.0) -> PinholeCamera:
    return PinholeCamera.overhead(size, BOARD, height_in=height, tilt_deg=tilt, dist=dist)


def models(count=16, seed=3, height_in=0.0) -> tuple[SceneMarker, ...]:
    return grid_layout(count, BOARD, size_mm=20.0, first_id=10, margin=3.5, seed=seed, height_in=height_in)


def scene(config, markers=None, drop=()) -> SyntheticScene:
    corners = tuple(m for m in corner_markers(config) if m.id not in drop)
    return SyntheticScene(BOARD, corners + (models() if markers is None else markers))


def render(cam: PinholeCamera, scn: SyntheticScene, **options) -> np.ndarray:
    opts = replace(RenderOptions(clutter=30, decoys=1, texture_ppi=30.0, supersample=3), **options)
    return Renderer(cam, BOARD, opts).render(scn, {0, 1, 2, 3})


def truth_corners(cam: PinholeCamera, m: SceneMarker) -> np.ndarray:
    """Image pixels of a marker's corners 0..3 (its own order)."""
    local = board_corners_of((0.0, 0.0), m.size_mm / 25.4)
    a = math.radians(m.heading + 90.0)  # heading -90 is the marker as printed
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    board = local @ rot.T + np.array([m.x, m.y])
    return cam.project(np.column_stack([board, np.full(4, -m.height_in)]))


def heading_error(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)
