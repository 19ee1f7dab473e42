"""Bench: Synaptik `report` on a full table (2 x 30 models in 10 units, 30 terrain pieces) against
the plain baseline (shapely, one pair at a time, no index, no caching), timed in the same run.

Prints the median and least CPU time of each (time.process_time, so other processes on a shared
machine count only through the slowdown they cause); the targets are checked on the medians.

Run: .venv/bin/python bench/bench_report.py
"""

from __future__ import annotations

import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import TypeVar

from synaptik_baseline import plain_report
from synaptik_scene import make_scene

from table.rules.synaptik import Synaptik

T = TypeVar("T")


def timed(fn: Callable[[], T], repeat: int) -> tuple[float, float, float, T]:
    """Median and least CPU seconds of this process (other load on a shared machine does not count,
    though it still slows a run down) and median wall seconds."""
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(repeat):
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        result = fn()
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start_wall)
    return statistics.median(cpu), min(cpu), statistics.median(wall), result


def main() -> int:
    scene = make_scene(seed=1)
    fast = lambda: Synaptik(scene).report()  # noqa: E731  (a fresh engine each time: indexes included)
    fast()  # warm imports and shapely
    fast_s, fast_min, fast_wall, fast_answer = timed(fast, 50)
    base_s, base_min, base_wall, base_answer = timed(lambda: plain_report(scene), 3)
    assert fast_answer == base_answer, "the engine and the baseline disagree"
    tracemalloc.start()
    fast()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    pairs = fast_answer["pairs"]
    hidden = sum(not p["los"]["visible"] for p in pairs)
    searched = sum(p["los"]["visible"] and p["los"]["line"] != _centres(scene, p) for p in pairs)
    print(f"scene: {len(scene.models)} models, {len(scene.units)} units, "
          f"{len(scene.terrain)} terrain pieces; "
          f"{len(pairs)} enemy pairs ({hidden} without sight, {searched} seen past a blocked centre line)")
    print(f"baseline (plain shapely): {base_s * 1000:8.1f} ms CPU median, {base_min * 1000:.1f} least "
          f"({base_wall * 1000:.1f} ms wall)")
    print(f"engine report:            {fast_s * 1000:8.1f} ms CPU median, {fast_min * 1000:.1f} least "
          f"({fast_wall * 1000:.1f} ms wall)   {base_s / fast_s:.1f}x faster (medians)")
    print(f"peak traced memory in one report: {peak / 1e6:.1f} MB; process max RSS {rss_mb:.0f} MB")
    targets = {">= 10x the baseline": base_s / fast_s >= 10, "< 25 ms": fast_s < 0.025,
               "< 150 MB": rss_mb < 150 and peak < 150e6}
    print("targets:", ", ".join(f"{name} {'met' if ok else 'NOT met'}" for name, ok in targets.items()))
    return 0 if all(targets.values()) else 1


def _centres(scene, pair) -> list[list[float]]:
    a, b = (scene.model(m) for m in pair["los"]["models"])
    return [list(a.position), list(b.position)]


if __name__ == "__main__":
    sys.exit(main())
