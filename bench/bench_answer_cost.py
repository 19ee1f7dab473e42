"""Bench: what error bars cost an answer. Each question on the demo scene is timed with every model
carrying `sigma` (0.03") and `heading_sigma` (0.5 degree) and without, in the same run; the ratio is the
price of "too close to call" (a charge or a distance is asked again at the two ends of its interval, a
sight line is searched for its margin, cohesion and the rest are asked on drawn scenes).

Prints CPU seconds (time.process_time: other load on a shared machine counts only as slowdown).
Run: .venv/bin/python bench/bench_answer_cost.py
"""

from __future__ import annotations

import json
import statistics
import time
from importlib import resources

from table.rules import get_ruleset
from table.scene import parse_scene

QUESTIONS = [("distance", ["rifles", "raiders"]), ("band", ["rifles", "raiders"]),
             ("charge", ["rifles", "raiders"]), ("los", ["rifles", "sniper"]), ("cohesion", ["rifles"])]


def cpu_seconds(document: dict, name: str, args: list[str], repeat: int) -> float:
    """Median CPU seconds of one answer, a fresh rule system each time (the live table's caches aside)."""
    times = []
    for _ in range(repeat):
        scene = parse_scene(document)
        start = time.process_time()
        get_ruleset(scene.ruleset)(scene).ask(name, args)
        times.append(time.process_time() - start)
    return statistics.median(times)


def main(repeat: int = 3) -> None:
    exact = json.loads(resources.files("table").joinpath("data/demo.json").read_text())
    sure = json.loads(json.dumps(exact))
    for m in sure["models"]:
        m["sigma"], m["heading_sigma"] = 0.03, 0.5
    print(f"{'question':10} {'exact s':>9} {'with sigma s':>13} {'ratio':>7}")
    for name, args in QUESTIONS:
        plain = cpu_seconds(exact, name, args, repeat)
        with_sigma = cpu_seconds(sure, name, args, repeat)
        print(f"{name:10} {plain:9.4f} {with_sigma:13.4f} {with_sigma / max(plain, 1e-6):7.1f}x")


if __name__ == "__main__":
    main()
