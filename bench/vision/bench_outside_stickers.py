"""Issue 21's Done-when, measured as the outside check measures it: its own renderer
(tests/vision/outside_render.py, no code shared with vision/synthetic.py or vision/miniature.py), the
tiles `smarttable markers DIR --tiles --ids 10-49 --base-mm B` writes, and `smarttable locate IMAGE
--config TOML` with a config of `markers_toml`, [board], [markers.corners] and `model_height_mm`.

The set-up: 4056x3040, the HQ camera's 6 mm lens 1.65 m above a 4'x4' board (square on, or `--tilt`),
40 models a render spread over the whole board, random headings; per base, renders with miniatures
standing on the stickers and with bare stickers. The round bases the issue covers, with the typical
model on each (height and body radius as vision/miniature.py's SIZES gives them, restated here: this
bench shares none of its code): 25 mm bases with 30 mm models (body 5 mm in radius), 28.5 with 32
(5.5), 32 with 34 (6.4), 40 with 45 (8), 50 with 55 (10). Then cavalry: 60x35 mm ovals, the ring for
35 mm in the middle, a rider 50 mm tall on a horse standing along the oval (its body 11 mm thick
over the sticker, legs, neck and head, a lance or sword); and the same model on a 75x42 mm oval
(the ring for 42 mm), the bigger base that reads it (docs/vision.md). And 6 mm-scale 40x20 mm
stands of five 6 mm figures, 10 mm tall: the ring for 20 mm (17 mm across) under the middle one, two
figures each side of it beyond the sticker.

Printed per case: found, located (within 0.05" and 3 degrees), false ids, position error
median/p95/worst (inches), heading error median/p95/worst (degrees); then per board region (distance
from the board's centre: centre < 8", middle < 16", edge < 24", corner beyond), and the misses.

    .venv/bin/python bench/vision/bench_outside_stickers.py [--renders N] [--bases 25,60x35,40x20]
        [--height-mm MM] [--tilt X,Y] [--blur PX] [--noise S] [--jpeg Q] [--shadow S] [--k1 K]
        [--light WHITE,BLACK] [--pose stride|cloak --footprint-mm F] [--quick]

`--pose stride` stands each miniature on two legs whose feet are F mm apart across its base; `--pose
cloak` gives it a cloak F mm across down to the base (round bases; see docs/vision.md for what a
footprint wider than the locator ring's outer edge does).
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo: tests.vision's outside check

from tests.vision.outside_check import COUNT, Row, check, corners_of, models_for, print_tiles  # noqa: E402
from tests.vision.outside_render import Camera, Renderer  # noqa: E402

BOARD = (48.0, 48.0)
SIZE = (4056, 3040)
HEIGHT_MM = 1650.0
# (name, the ring's base mm, base mm across, model mm, body radius mm, length mm along, a 6 mm stand)
CASES = (("25", 25.0, 25.0, 30.0, 5.0, 0.0, False), ("28.5", 28.5, 28.5, 32.0, 5.5, 0.0, False),
         ("32", 32.0, 32.0, 34.0, 6.4, 0.0, False), ("40", 40.0, 40.0, 45.0, 8.0, 0.0, False),
         ("50", 50.0, 50.0, 55.0, 10.0, 0.0, False), ("60x35", 35.0, 35.0, 50.0, 0.0, 60.0, False),
         ("75x42", 42.0, 42.0, 50.0, 0.0, 75.0, False), ("40x20", 20.0, 40.0, 10.0, 0.0, 20.0, True))
REGIONS = (("centre", 8.0), ("middle", 16.0), ("edge", 24.0), ("corner", math.inf))


def region(row: Row) -> str:
    r = math.dist((row.model.x, row.model.y), (BOARD[0] / 2, BOARD[1] / 2))
    return next(name for name, limit in REGIONS if r < limit)


def _stat(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else math.nan


def summary(name: str, rows: list[Row], false: int) -> str:
    found = [r for r in rows if r.found]
    pos, head = [r.position for r in found], [r.heading for r in found]
    ok = sum(r.located for r in rows)
    n = len(rows)
    return (f"  {name:<26} found {len(found) / n:6.1%}  located {ok / n:6.1%} ({ok}/{n})  false {false:2d}  "
            f"pos {_stat(pos, 50):.4f}/{_stat(pos, 95):.4f}/{max(pos, default=math.nan):.4f}\"  "
            f"heading {_stat(head, 50):.2f}/{_stat(head, 95):.2f}/{max(head, default=math.nan):.2f} deg")


def by_region(results: dict[str, list[Row]]) -> None:
    print("per board region, located within 0.05\" and 3 deg (of the models there):")
    print("  " + " " * 26 + "".join(f"{name:>16}" for name, _ in REGIONS))
    for name, rows in results.items():
        cells = []
        for reg, _ in REGIONS:
            here = [r for r in rows if region(r) == reg]
            ok = sum(r.located for r in here)
            cells.append(f"{ok / len(here):6.1%} ({len(here):3d})" if here else "")
        print(f"  {name:<26}" + "".join(f"{c:>16}" for c in cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--renders", type=int, help="renders per case, 40 models each (default 3; 1 --quick)")
    parser.add_argument("--tilt", default="0,0", help="the camera's tilt about x,y in degrees (default 0,0)")
    parser.add_argument("--blur", type=float, default=0.75, help="lens softness, sigma in px (0.75)")
    parser.add_argument("--noise", type=float, default=2.5, help="sensor noise, sigma in grey levels (2.5)")
    parser.add_argument("--jpeg", type=int, default=90, help="JPEG quality (90)")
    parser.add_argument("--shadow", type=float, default=0.0,
                        help="how much the miniatures' cast shadows darken their bases (0, none)")
    parser.add_argument("--k1", type=float, default=0.0, help="the lens's radial distortion (0: perfect)")
    parser.add_argument("--light", default="235,28", help="the print's white and black grey levels under the "
                        "table's light in the middle (235,28; 150,40: a dim room)")
    parser.add_argument("--bases", help="only these bases (comma separated: 25, 28.5, 32, 40, 50, 60x35, "
                        "75x42, 40x20; default all)")
    parser.add_argument("--height-mm", type=float, default=HEIGHT_MM, help="the camera's height (1650)")
    parser.add_argument("--pose", choices=("upright", "stride", "cloak"), default="upright",
                        help="the miniatures on round bases: upright (the default), striding or cloaked")
    parser.add_argument("--footprint-mm", type=float, default=0.0,
                        help="with --pose: the feet's spread or the cloak's width (mm)")
    parser.add_argument("--quick", action="store_true", help="25 mm bases only, one render unless --renders")
    args = parser.parse_args()
    if args.pose != "upright" and args.footprint_mm <= 0:
        parser.error(f"--pose {args.pose} needs --footprint-mm")
    tilt = tuple(float(v) for v in args.tilt.split(","))
    paper, ink = (float(v) for v in args.light.split(","))
    camera = Camera.hq_6mm(SIZE, BOARD, args.height_mm, (tilt[0], tilt[1]))
    renders = args.renders or (1 if args.quick else 3)
    only = set(args.bases.split(",")) if args.bases else None
    cases = [c for c in CASES if (c[0] in only if only else not args.quick or c is CASES[0])]
    pose = f", {args.pose} {args.footprint_mm:g} mm" if args.footprint_mm else ""
    print(f"outside renderer: hq-6mm {SIZE[0]}x{SIZE[1]} at {args.height_mm:g} mm, tilt {tilt}, {BOARD[0]:g}x"
          f"{BOARD[1]:g}\" board, {COUNT} models a render, {renders} renders a case; blur {args.blur:g} px, "
          f"noise {args.noise:g}, JPEG {args.jpeg}, shadow {args.shadow:g}, k1 {args.k1:g}, "
          f"light {paper:g}/{ink:g}{pose}")
    results: dict[str, list[Row]] = {}
    misses: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for title, ring_mm, base_mm, model_mm, body_mm, length_mm, stand in cases:
            folder = Path(tmp) / f"base{title}"
            folder.mkdir()
            tiles, markers_toml = print_tiles(folder, ring_mm)
            for standing in (model_mm, 0.0):
                kind = "stands" if stand else "cavalry" if length_mm else "models"
                name = f"{title} mm, " + (f"{standing:g} mm {kind}" if standing else "bare stickers")
                rows: list[Row] = []
                false = 0
                start = time.perf_counter()
                for k in range(renders):
                    seed = int(base_mm + length_mm) * 100 + k
                    models = models_for(BOARD, corners_of(BOARD), base_mm, standing, COUNT, seed, body_mm,
                                        length_mm, stand, args.pose, args.footprint_mm)
                    renderer = Renderer(camera, BOARD, seed, blur_sigma=args.blur, noise_sigma=args.noise,
                                        jpeg_quality=args.jpeg, shadow=args.shadow, k1=args.k1, paper=paper,
                                        ink=ink)
                    got, wrong, _ = check(folder, renderer, tiles, markers_toml, models)
                    rows += got
                    false += len(wrong)
                    misses += [f"{name}, render {k}: id {r.model.id} at ({r.model.x:.1f}, {r.model.y:.1f}) "
                               + (f"{r.position:.4f}\" {r.heading:.2f} deg" if r.found else "not found")
                               for r in got if not r.located]
                results[name] = rows
                print(summary(name, rows, false) + f"  ({time.perf_counter() - start:.0f} s)", flush=True)
    by_region(results)
    for line in misses:
        print("  miss: " + line)


if __name__ == "__main__":
    main()
