"""Are the error bars honest? Coverage of the 95% distance interval on rendered boards with known truth.

Each condition renders a few 12 MP boards (4056x3040, 15 mm markers, a lens with k1 = -0.06 known as after
`smarttable calibrate-lens`, or learnt from the board) with many markers each; every pair of located markers
is a measured pair.
The interval is the one `smarttable query ... distance` answers (table.uncertainty) from the two
markers' `sigma` as `smarttable locate` reports it. True marker heights scatter around the configured
height by `model_height_sigma_mm`. Targets: coverage 92-98% over >= 1,000 pairs per condition and a mean
half-width < 0.05". Renders are cached under /tmp/smarttable-bench-uncertainty (they are slow).

With the lens learnt from the board, this camera looks straight down and the config names no camera
model: nothing in the frame shows the focal length, so the camera's height (focal length over pixels per
inch) is a guess good to its prior (vision.lensfit.PRIOR_LOG_FOCAL_SD), and so is the parallax correction of
markers 4 mm up: that, not the distortion, is most of sigma there (0.03"). Markers flat on the board need no
parallax correction ("flat markers, lens estimated"): sigma there is the lens's and the corners' alone, as in
bench/bench_lens.py (whose markers are flat, 0.001"). A config that names its camera (`[camera] model`) gives
the focal length to 5% (vision.lensfit.MODEL_LOG_FOCAL_SD): "hq-6mm named" renders the HQ camera with its 6 mm
lens 1.65 m up, its focal length 3% off the published one, calibrated and estimated.

    .venv/bin/python bench/bench_uncertainty.py [--quick] [--only TEXT]
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from table.config import default_config
from table.uncertainty import distance_interval
from vision.camera import PinholeCamera
from vision.cameras import camera_model
from vision.lens import Intrinsics
from vision.locate import VisionSetup, locate
from vision.synthetic import Renderer, RenderOptions
from vision.synthetic_scene import SceneMarker, SyntheticScene, corner_markers, grid_layout

BOARD = (48.0, 48.0)
SIZE = (4056, 3040)
DIST = (-0.06, 0.015, 0.0, 0.0, 0.0)
CACHE = Path("/tmp/smarttable-bench-uncertainty")
MARKERS = 100


@dataclass(frozen=True)
class Condition:
    name: str
    noise: float = 2.0
    blur: float = 0.6
    tilt: tuple[float, float] = (0.0, 0.0)
    height_mm: float = 4.0  # configured marker height
    height_sigma_mm: float = 1.0  # true heights scatter by this (and the config says so)
    lens_known: bool = True  # the lens calibrated (`smarttable calibrate-lens`), else not
    dist: tuple[float, ...] = DIST  # the rendered lens's distortion
    camera: str = ""  # `[camera] model`, named in the config and rendered (else a camera 40" up, not named)


CONDITIONS = (
    Condition("plain"),
    Condition("noise 6", noise=6.0),
    Condition("blur 1.4", blur=1.4),
    Condition("tilt (10, -6)", tilt=(10.0, -6.0)),
    Condition("tall bases 12+-3 mm", height_mm=12.0, height_sigma_mm=3.0),
    Condition("lens estimated (not calibrated)", lens_known=False),
    Condition("milder lens k1 -0.02, estimated", lens_known=False, dist=(-0.02, 0.0, 0.0, 0.0, 0.0)),
    Condition("flat markers, lens estimated", height_mm=0.0, height_sigma_mm=0.0, lens_known=False),
    Condition("hq-6mm named, calibrated", camera="hq-6mm"),
    Condition("hq-6mm named, lens estimated", lens_known=False, camera="hq-6mm"),
)


def truth_for(cond: Condition, seed: int) -> tuple[SceneMarker, ...]:
    rng = random.Random(seed * 7919 + 1)
    layout = grid_layout(MARKERS, BOARD, size_mm=15.0, seed=seed, margin=4.0)
    return tuple(replace(m, height_in=max(0.0, rng.gauss(cond.height_mm, cond.height_sigma_mm)) / 25.4)
                 for m in layout)


def camera_for(cond: Condition) -> PinholeCamera:
    if not cond.camera:
        return PinholeCamera.overhead(SIZE, BOARD, height_in=40.0, tilt_deg=cond.tilt, dist=cond.dist)
    model = camera_model(cond.camera)
    cam = PinholeCamera.from_model(model, SIZE, BOARD, height_mm=1650.0, tilt_deg=cond.tilt)
    K = cam.K.copy()
    K[0, 0] = K[1, 1] = K[0, 0] * 1.03  # a lens a little off its published focal length
    return replace(cam, K=K, dist=np.asarray(cond.dist, np.float64))


def frame_for(config, cond: Condition, seed: int, truth: tuple[SceneMarker, ...]) -> np.ndarray:
    """The rendered frame, from the cache when it is there."""
    key = f"{cond.noise}-{cond.blur}-{cond.tilt}-{cond.height_mm}-{cond.height_sigma_mm}-{seed}"
    if cond.dist != DIST:
        key += f"-dist{cond.dist}"
    if cond.camera:
        key += f"-{cond.camera}"
    path = CACHE / (key.replace(" ", "_").replace("/", "_") + ".png")
    cached = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE) if path.exists() else None
    if cached is not None:
        return cached
    options = RenderOptions(clutter=80, decoys=2, noise_sigma=cond.noise, blur_sigma=cond.blur, light=0.3,
                            supersample=3, seed=seed)
    frame = Renderer(camera_for(cond), BOARD, options).render(
        SyntheticScene(BOARD, corner_markers(config) + truth), {0, 1, 2, 3})
    CACHE.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), frame)
    return frame


def measure(config, cond: Condition, seeds: range) -> dict:
    cam = camera_for(cond)
    setup = replace(VisionSetup.from_config(config), model_size_mm=15.0, model_height_mm=cond.height_mm,
                    height_sigma_mm=cond.height_sigma_mm, camera_model=cond.camera,
                    intrinsics=Intrinsics(cam.K, cam.dist, cam.size) if cond.lens_known else None)
    inside = pairs = found = placed = radial_in = radial = 0
    halves, position_z, heading_z, sigmas = [], [], [], []
    for seed in seeds:
        truth = truth_for(cond, seed)
        by_id = {m.id: m for m in truth}
        result = locate(frame_for(config, cond, seed, truth), setup)
        assert result.calibration is not None, f"{cond}, seed {seed}: the corner markers were not found"
        pose = result.calibration.camera_position  # unknown without a lens calibration and tilt
        foot = pose[:2] if pose is not None else (BOARD[0] / 2, BOARD[1] / 2)
        located = [m for m in result.markers if m.id in by_id]
        found += len(located)
        placed += len(truth)
        for m in located:
            t = by_id[m.id]
            position_z += [(m.x - t.x) / m.sigma, (m.y - t.y) / m.sigma]
            heading_z.append(((m.heading - t.heading + 180) % 360 - 180) / m.heading_sigma)
            sigmas.append(m.sigma)
        for a, b in itertools.combinations(located, 2):
            measured = math.dist((a.x, a.y), (b.x, b.y))
            true = math.dist((by_id[a.id].x, by_id[a.id].y), (by_id[b.id].x, by_id[b.id].y))
            lo, hi = distance_interval(measured, a.sigma, b.sigma)
            inside += lo <= true <= hi
            pairs += 1
            if along_radius(foot, a, b):
                radial_in += lo <= true <= hi
                radial += 1
            halves.append((hi - lo) / 2)
    return {"radial": radial, "radial_coverage": radial_in / radial if radial else math.nan, "pairs": pairs,
            "coverage": inside / pairs if pairs else math.nan, "found": found, "of": placed,
            "half_mean": statistics.fmean(halves), "half_max": max(halves),
            "sigma_mean": statistics.fmean(sigmas),
            "z_position": statistics.pstdev(position_z), "z_heading": statistics.pstdev(heading_z)}


def along_radius(foot: tuple[float, float], a, b, degrees: float = 20.0) -> bool:
    """Whether the line a-b runs within `degrees` of the radius from the camera's foot at both ends:
    the pairs whose parallax errors fall along the line (the worst case for an isotropic sigma)."""
    line = math.atan2(b.y - a.y, b.x - a.x)
    for m in (a, b):
        radius = math.atan2(m.y - foot[1], m.x - foot[0])
        off = abs((math.degrees(line - radius) + 90) % 180 - 90)
        if off > degrees:
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one render per condition (too few pairs)")
    parser.add_argument("--only", metavar="TEXT", help="only the conditions whose name contains TEXT")
    args = parser.parse_args()
    config = default_config()
    renders = range(1, 2) if args.quick else range(1, 3)
    print(f"coverage of the 95% distance interval: {SIZE[0]}x{SIZE[1]}, 15 mm markers, {MARKERS} markers "
          f"a render, {len(renders)} render(s) a condition (cache {CACHE})")
    ok = True
    for cond in CONDITIONS:
        if args.only and args.only not in cond.name:
            continue
        r = measure(config, cond, renders)
        # the width target is for markers whose height is known to the default 1 mm: taller, less sure
        # bases are honestly wider
        width_ok = r["half_mean"] < 0.05 or cond.height_sigma_mm > 1.0
        met = r["pairs"] >= 1000 and 0.92 <= r["coverage"] <= 0.98 and width_ok
        if not cond.lens_known:  # the lens learnt from the board: honest (conservative allowed) and narrow
            met = r["pairs"] >= 1000 and r["coverage"] >= 0.92 and width_ok
        ok &= met
        verdict = "ok" if met else "MISSED"
        print(f"  {cond.name:>20}: {r['pairs']} pairs ({r['found']}/{r['of']} markers), coverage "
              f"{100 * r['coverage']:.1f}%, half-width mean {r['half_mean']:.4f}\" "
              f"max {r['half_max']:.4f}\", "
              f"sigma mean {r['sigma_mean']:.4f}\"; error/sigma sd: position {r['z_position']:.2f}, "
              f"heading {r['z_heading']:.2f}; along the radius: {100 * r['radial_coverage']:.1f}% of "
              f"{r['radial']}  [{verdict}]")
    print("targets: coverage 92-98% over >= 1000 pairs; mean half-width < 0.05\" where heights are known to "
          "1 mm, with the lens calibrated; estimated from the board, coverage >= 92% and the same width: "
          f"{'met' if ok else 'MISSED'}")


if __name__ == "__main__":
    main()
