"""Line of sight on a crowded board (issue 25: 200 terrain pieces of 30 corners made one LOS question take
4.6 s through the panel). Times Synaptik's `los` on the demo scene with 10 pieces, then with the most the
panel and MQTT take (200 pieces, command_limits.MAX_TERRAIN) and the most a scene file may hold (2,000,
scene_rules.MAX_TERRAIN), every piece of 30 corners and strewn along the sight line (the worst case: each
one is a candidate), and prints each time and its ratio to the 10-piece baseline of the same run.

    .venv/bin/python bench/bench_los_terrain.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import time
from pathlib import Path
from typing import Any

from table import registry
from table.live.command_limits import MAX_TERRAIN as PANEL_MAX
from table.scene import parse_scene
from table.scene_rules import MAX_TERRAIN as SCENE_MAX

ROOT = Path(__file__).resolve().parent.parent
CORNERS = 30


def crowded(pieces: int, seed: int = 1) -> tuple[dict[str, Any], list[str]]:
    """The demo scene with `pieces` small pieces of CORNERS corners along its first and last model's line."""
    doc = json.loads((ROOT / "table" / "data" / "demo.json").read_text())
    rng = random.Random(seed)
    a, b = doc["models"][0], doc["models"][-1]
    terrain = []
    for i in range(pieces):
        f = (i + 0.5) / pieces
        cx = a["x"] + (b["x"] - a["x"]) * f + rng.uniform(-1, 1)
        cy = a["y"] + (b["y"] - a["y"]) * f + rng.uniform(-1, 1)
        terrain.append({"id": f"p{i}", "height": 1.0, "traits": ["light_cover" if i % 2 else "heavy_cover"],
                        "polygon": [[round(cx + 0.3 * math.cos(2 * math.pi * k / CORNERS), 4),
                                     round(cy + 0.3 * math.sin(2 * math.pi * k / CORNERS), 4)]
                                    for k in range(CORNERS)]})
    doc["terrain"] = terrain
    return doc, [a["id"], b["id"]]


def los_time(pieces: int, repeat: int) -> float:
    """The fastest of `repeat` first questions (each on a new rule system object: nothing cached)."""
    doc, ends = crowded(pieces)
    scene = parse_scene(doc)
    system = registry.find(scene.ruleset)
    best = math.inf
    for _ in range(repeat):
        ruleset = system(scene, {})
        started = time.perf_counter()
        ruleset.ask("los", ends)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    base = los_time(10, args.repeat)
    print(f"los, 10 pieces of {CORNERS} corners on the line: {base * 1000:.1f} ms (baseline)")
    for pieces in (PANEL_MAX, SCENE_MAX):
        took = los_time(pieces, args.repeat)
        print(f"los, {pieces} pieces of {CORNERS} corners on the line: {took * 1000:.1f} ms "
              f"({took / base:.1f}x the baseline)")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
