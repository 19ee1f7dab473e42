"""Base stickers under 3D miniatures at every board position (issue 21), the designs compared on the
same boards, measured in one run.

The set-up is the issue's: 4056x3040, the HQ camera's 6 mm lens 1.65 m above a 4'x4' board (tilted
a little, as hung by hand; the lens known), models in a grid from the board's centre to its corners,
where parallax leans them outward over their bases. One frame a design and base: every grid place
holds a model on a 3 mm base (vision/miniature.py: 30 mm tall on 25 mm, 34 on 32, 45 on 40...).

Designs (bench/vision/sticker_designs.py):
- marker: today's centred 15 mm tag36h11, read by `locate`;
- ring: the ring sticker (vision/sticker.py), read by `locate` from `[markers] stickers`;
- custom48: tagCustom48h12 as big as the sticker's disc holds, read by the AprilTag library;
- rim: four tag36h11 round the rim, as big as fit outside the model's feet, voted.
Then the other bases the rule systems use, ring sticker against the centred marker: a 6 mm-scale
stand (40x20 mm, five figures, the ring for a 20 mm base under the middle one),
a 60x35 mm oval cavalry model (a 35 mm ring) and a vehicle with no base (a 50 mm ring on its hull's
roof, 30 mm up, its turret on the sticker's middle; the roster gives the roof's height).

Printed per design and base: models found (the id read), located (within 0.05" and 3 degrees), false
ids, position error median/p95/worst (inches), heading error median/p95/worst (degrees), CPU per
frame as a ratio to locate on the same base's plain-marker frame (models without miniatures) in the
same run; then per board region (centre, middle, edge, corner: distance from under the camera).

    .venv/bin/python bench/vision/bench_stickers.py [--quick]
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import sticker_designs as designs

from table.config import default_config, from_document
from vision.camera import PinholeCamera
from vision.cameras import camera_model
from vision.lens import Intrinsics
from vision.locate import VisionSetup, locate
from vision.miniature import Arm, Figure, figures_for_base
from vision.sticker import Sticker
from vision.synthetic import Renderer, RenderOptions, Tile, sticker_tiles
from vision.synthetic_scene import SceneMarker, SyntheticScene, corner_markers

BOARD = (48.0, 48.0)
SIZE = (4056, 3040)
HEIGHT_MM = 1650.0
TILT = (3.0, -2.0)
THICK_MM = 3.0
MARKER_MM = 15.0
FIRST_ID = 10
OPTIONS = RenderOptions(clutter=60, decoys=2, texture_ppi=30.0, supersample=3, seed=5)
ROUND = (25.0, 28.5, 32.0, 40.0, 50.0)
POSITION_OK, HEADING_OK = 0.05, 3.0
REGIONS = ("centre", "middle", "edge", "corner")
EDGE_IN = 5.5


@dataclass(frozen=True)
class Shape:
    """A base the rule systems use: its outline, the ring sticker on it, and what stands there."""

    name: str
    shape: str
    width_mm: float
    depth_mm: float
    ring_mm: float  # the ring sticker's base size
    height_mm: float  # where the sticker lies (a base's top, a hull's roof)
    figures: Callable[[random.Random], tuple[Figure, ...]]


def _stand(rng: random.Random) -> tuple[Figure, ...]:
    """Five 6 mm-scale figures on a 40x20 mm stand; the middle one on the sticker's white middle."""
    spots = ((0.0, 0.0), (-4.0, -12.5), (4.0, -16.0), (-3.5, 13.0), (4.0, 16.5))
    return tuple(Figure(rng.uniform(8.0, 10.0), 1.5, spot, (Arm(3.0, 0.5, 0.6, rng.uniform(-90, 90)),),
                        *(rng.uniform(0.1, 0.8) for _ in range(5))) for spot in spots)


def _cavalry(rng: random.Random) -> tuple[Figure, ...]:
    """A rider on a horse: the horse's body a capsule along the facing over the ring, each way."""
    horse = rng.uniform(0.1, 0.8)
    arms = (Arm(22.0, 6.0, 0.3, 0.0, 5.0, horse), Arm(20.0, 6.0, 0.3, 180.0, 0.0, horse),
            Arm(9.0, 1.3, 0.75, rng.uniform(-90, 90), 20.0, rng.uniform(0.1, 0.8)))
    return (Figure(45.0, 5.5, (0.0, 0.0), arms, horse, *(rng.uniform(0.1, 0.8) for _ in range(4))),)


def _turret(rng: random.Random) -> tuple[Figure, ...]:
    gun = Arm(38.0, 2.0, 0.6, rng.uniform(-30, 30), 4.0, rng.uniform(0.1, 0.6))
    return (Figure(12.0, 10.0, (0.0, 0.0), (gun,), *(rng.uniform(0.1, 0.7) for _ in range(5))),)


SHAPES = (Shape("6 mm stand 40x20", "rect", 40.0, 20.0, 20.0, THICK_MM, _stand),
          Shape("oval 60x35", "oval", 35.0, 60.0, 35.0, THICK_MM, _cavalry),
          Shape("vehicle hull 60x90", "rect", 60.0, 90.0, 50.0, 30.0, _turret))


def places(n: int) -> list[tuple[float, float]]:
    """An n x n grid from EDGE_IN in from the edges (clear of the corner markers under a 90 mm hull),
    through the centre, to the corners."""
    axis = np.linspace(EDGE_IN, BOARD[0] - EDGE_IN, n)
    return [(float(x), float(y)) for y in axis for x in axis]


def region(x: float, y: float) -> str:
    dx, dy = abs(x - BOARD[0] / 2), abs(y - BOARD[1] / 2)
    if min(dx, dy) > 15.0:
        return "corner"
    return "centre" if max(dx, dy) <= 8.0 else "middle" if max(dx, dy) <= 15.0 else "edge"


def models(grid: list[tuple[float, float]], base_mm: float, seed: int, figures: bool,
           shape: Shape | None = None) -> tuple[SceneMarker, ...]:
    """One model a place: the same places, headings, paint and poses for every design (same seed)."""
    rng = random.Random(seed)
    out = []
    for k, (x, y) in enumerate(grid):
        heading = round(rng.uniform(-180, 180), 1)
        grey = rng.uniform(30, 150)
        pose = random.Random(seed * 1000 + k)
        if shape is None:
            standing = figures_for_base(base_mm, pose) if figures else ()
            out.append(SceneMarker(FIRST_ID + k, x, y, heading, MARKER_MM, THICK_MM / 25.4, base_mm, "circle",
                                   0.0, grey, standing))
        else:
            standing = shape.figures(pose) if figures else ()
            out.append(SceneMarker(FIRST_ID + k, x, y, heading, MARKER_MM, shape.height_mm / 25.4,
                                   shape.width_mm, shape.shape, shape.depth_mm, grey, standing))
    return tuple(out)


def vision_setup(config, cam: PinholeCamera, stickers: dict[str, str] | None = None,
                 size_mm: float = MARKER_MM, heights: dict[int, float] | None = None) -> VisionSetup:
    markers = {"corner_size_mm": config.markers.corner_size_mm, "model_size_mm": size_mm,
               "corners": {k: list(v) for k, v in config.markers.corners.items()},
               "model_height_mm": THICK_MM}
    if stickers:
        markers["stickers"] = stickers
    cfg = from_document({"board": {"width": BOARD[0], "height": BOARD[1]}, "markers": markers}, "bench")
    return replace(VisionSetup.from_config(cfg, heights), intrinsics=Intrinsics(cam.K, cam.dist, cam.size))


@dataclass
class Outcome:
    """One design's reads of one frame against the truth, and its CPU seconds."""

    truth: tuple[SceneMarker, ...]
    reads: list[designs.Read]
    cpu: float

    def rows(self) -> list[tuple[str, bool, float, float]]:
        """Per true model: (region, found, position error, heading error)."""
        by_id = {r.id: r for r in self.reads}
        out = []
        for k, m in enumerate(self.truth):
            r = by_id.get(k)
            if r is None:
                out.append((region(m.x, m.y), False, math.nan, math.nan))
            else:
                out.append((region(m.x, m.y), True, math.dist((r.x, r.y), (m.x, m.y)),
                            abs((r.heading - m.heading + 180) % 360 - 180)))
        return out

    def false_ids(self) -> int:
        return sum(1 for r in self.reads if not 0 <= r.id < len(self.truth))


def _located(result, truth) -> list[designs.Read]:
    return [designs.Read(m.id - FIRST_ID, m.x, m.y, m.heading) for m in result.markers]


def read_design(design: str, frame: np.ndarray, config, cam: PinholeCamera, truth: tuple[SceneMarker, ...],
                ring_mm: float, heights: dict[int, float] | None) -> Outcome:
    """Read one frame as the design is read, timed (CPU)."""
    last = FIRST_ID + len(truth) - 1
    if design == "ring":
        setup = vision_setup(config, cam, {f"{ring_mm:g}": f"{FIRST_ID}-{last}"}, heights=heights)
    elif design == "rim":
        rim = designs.rim_for(Sticker(ring_mm))
        setup = vision_setup(config, cam, size_mm=rim.side_mm)
    else:
        setup = vision_setup(config, cam, heights=heights)
    start = time.process_time()
    result = locate(frame, setup)
    if design == "custom48":
        assert result.calibration is not None
        reads = [replace(r, id=r.id - FIRST_ID)
                 for r in designs.read_custom48(frame, result.calibration, THICK_MM / 25.4)]
    elif design == "rim":
        rims = {k: designs.rim_for(Sticker(ring_mm)) for k in range(len(truth))}
        reads = designs.vote_rim([(m.id, m.x, m.y, m.heading) for m in result.markers], rims)
    else:
        reads = _located(result, truth)
    return Outcome(truth, reads, time.process_time() - start)


def tiles_for(design: str, truth: tuple[SceneMarker, ...], ring_mm: float) -> dict[int, Tile]:
    sticker = Sticker(ring_mm)
    if design == "ring":
        return sticker_tiles({m.id: ring_mm for m in truth})
    if design == "custom48":
        return {m.id: designs.custom48_tile(m.id, sticker) for m in truth}
    if design == "rim":
        return {m.id: designs.rim_tile(m.id - FIRST_ID, sticker) for m in truth}
    return {}


def _stat(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else math.nan


def line(name: str, out: Outcome, baseline: float) -> str:
    rows = out.rows()
    found = [r for r in rows if r[1]]
    pos = [r[2] for r in found]
    head = [r[3] for r in found]
    ok = sum(1 for r in found if r[2] <= POSITION_OK and r[3] <= HEADING_OK)
    n = len(rows)
    return (f"  {name:<24} found {len(found) / n:6.1%}  located {ok / n:6.1%}  false {out.false_ids():2d}  "
            f"pos {_stat(pos, 50):.3f}/{_stat(pos, 95):.3f}/{max(pos, default=math.nan):.3f}\"  "
            f"heading {_stat(head, 50):.2f}/{_stat(head, 95):.2f}/{max(head, default=math.nan):.2f} deg  "
            f"cpu {out.cpu:5.2f} s = {out.cpu / baseline:4.2f}x")


def by_region(outcomes: dict[str, list[Outcome]]) -> None:
    print("per board region (every base above), located within 0.05\" and 3 deg / found:")
    print("  " + " " * 24 + "".join(f"{r:>16}" for r in REGIONS))
    for design, outs in outcomes.items():
        rows = [r for o in outs for r in o.rows()]
        cells = []
        for reg in REGIONS:
            here = [r for r in rows if r[0] == reg]
            ok = sum(1 for r in here if r[1] and r[2] <= POSITION_OK and r[3] <= HEADING_OK)
            got = sum(1 for r in here if r[1])
            cells.append(f"{ok / len(here):7.1%} /{got / len(here):6.1%}" if here else " " * 16)
        print(f"  {design:<24}" + "".join(f"{c:>16}" for c in cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 4x4 grid (7x7 otherwise)")
    args = parser.parse_args()
    config = default_config()
    cam = PinholeCamera.from_model(camera_model("hq-6mm"), SIZE, BOARD, height_mm=HEIGHT_MM, tilt_deg=TILT)
    grid = places(4 if args.quick else 7)
    corners = corner_markers(config)
    renderer = Renderer(cam, BOARD, OPTIONS)
    print(f"hq-6mm {SIZE[0]}x{SIZE[1]} at {HEIGHT_MM:g} mm, tilt {TILT}, {BOARD[0]:g}x{BOARD[1]:g}\" board, "
          f"{len(grid)} models a frame; pos median/p95/worst (in), heading median/p95/worst (deg), "
          "CPU against the plain-marker frame")
    outcomes: dict[str, list[Outcome]] = {}
    cases: list[tuple[str, float, Shape | None]] = [(f"{b:g} mm round", b, None) for b in ROUND]
    cases += [(s.name, s.ring_mm, s) for s in SHAPES]
    for seed, (title, ring_mm, shape) in enumerate(cases, start=1):
        base_mm = shape.width_mm if shape else ring_mm
        heights = {FIRST_ID + k: shape.height_mm for k in range(len(grid))} if shape else None
        plain = models(grid, base_mm, seed, figures=False, shape=shape)
        frame = renderer.render(SyntheticScene(BOARD, corners + plain), {0, 1, 2, 3})
        baseline = read_design("marker", frame, config, cam, plain, ring_mm, heights)
        print(f"{title}: plain markers, no miniatures: locate {baseline.cpu:.2f} s CPU")
        print(line("marker, no miniature", baseline, baseline.cpu))
        outcomes.setdefault("marker, no miniature", []).append(baseline)
        rows = [("marker", True), ("ring", True), ("ring", False)]
        if shape is None:
            rows += [("custom48", True), ("custom48", False), ("rim", True), ("rim", False)]
        for design, figures in rows:
            truth = models(grid, base_mm, seed, figures=figures, shape=shape)
            scene = SyntheticScene(BOARD, corners + truth)
            frame = renderer.with_tiles(tiles_for(design, truth, ring_mm)).render(scene, {0, 1, 2, 3})
            out = read_design(design, frame, config, cam, truth, ring_mm, heights)
            name = f"{design}{'' if figures else ', no miniature'}"
            print(line(name, out, baseline.cpu), flush=True)
            outcomes.setdefault(name, []).append(out)
    by_region(outcomes)


if __name__ == "__main__":
    main()
