"""Bench: Age of Tyrants `report` on issue 2's scene (2 x 30 bases in 10 units, 30 terrain pieces)
against the plain baseline (shapely, one pair at a time, no index, no caching), timed in the same run.

Every run is a fresh `report`: a new rule system over the scene, and table.geometry's shape caches
emptied, so nothing worked out in one run helps the next. Prints the median and the minimum over the
runs (wall clock and CPU time: the machine is shared), the ratio to the baseline, and the peak memory
of one run (tracemalloc). Exit status 1 when a target is missed.

Run: .venv/bin/python bench/bench_report_aot.py [--runs N] [--seed S]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from typing import TypeVar

from aot_baseline import plain_pairs
from aot_scenes import make_scene

from table import geometry
from table.rules.age_of_tyrants import AgeOfTyrants

TARGET_MS = 25.0
TARGET_RATIO = 10.0
TARGET_MB = 150.0


def forget() -> None:
    """Empty every cache table.geometry keeps between calls (base outlines by size and heading)."""
    for value in vars(geometry).values():
        if hasattr(value, "cache_clear"):
            value.cache_clear()


T = TypeVar("T")


def timed(fn: Callable[[], T], runs: int) -> tuple[list[float], list[float], T]:
    """Wall and CPU seconds of `runs` fresh calls, and the last answer."""
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(runs):
        forget()
        w, c = time.perf_counter(), time.process_time()
        answer = fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return wall, cpu, answer


def peak_mb(fn: Callable[[], object]) -> float:
    forget()
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def summary(pairs: list[dict]) -> list[tuple]:
    return [(p["from"], p["to"], p["distance"], p["band"], p["los"]["visible"],
             sorted(p["los"]["blocked_by"]), [p["los"]["from"], p["los"]["to"]]) for p in pairs]


def ms(seconds: list[float]) -> str:
    return f"median {statistics.median(seconds) * 1000:8.1f} ms   min {min(seconds) * 1000:8.1f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="fresh engine reports to time (default 30)")
    parser.add_argument("--baseline-runs", type=int, default=3, help="baseline runs (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    scene = make_scene(seed=args.seed, platoons=5, per_platoon=6, pieces=30)
    engine = lambda: AgeOfTyrants(scene).report()  # noqa: E731
    baseline = lambda: plain_pairs(scene)  # noqa: E731
    engine()  # imports and first-call set-up
    fast_wall, fast_cpu, answer = timed(engine, args.runs)
    base_wall, base_cpu, plain = timed(baseline, args.baseline_runs)
    theirs = [(p["from"], p["to"], p["distance"], p["band"], p["visible"], p["blocked_by"], p["models"])
              for p in plain]
    assert summary(answer["pairs"]) == theirs, "the engine and the baseline disagree"
    fast_mb, base_mb = peak_mb(engine), peak_mb(baseline)

    pairs = answer["pairs"]
    sides = Counter(scene.unit(m.unit).player for m in scene.models)
    print(f"scene: {len(scene.models)} bases ({' + '.join(str(n) for n in sides.values())}), "
          f"{len(scene.units)} units, {len(scene.terrain)} terrain pieces; {len(pairs)} enemy unit pairs "
          f"({sum(not p['los']['visible'] for p in pairs)} without sight); answers identical to the baseline")
    print(f"baseline (plain shapely), {args.baseline_runs} runs: wall {ms(base_wall)}   cpu {ms(base_cpu)}")
    print(f"engine report, {args.runs} fresh runs:      wall {ms(fast_wall)}   cpu {ms(fast_cpu)}")
    ratio = statistics.median(base_wall) / statistics.median(fast_wall)
    cpu_ratio = statistics.median(base_cpu) / statistics.median(fast_cpu)
    print(f"ratio (baseline / engine, medians): wall {ratio:.1f}x   cpu {cpu_ratio:.1f}x")
    print(f"peak memory (tracemalloc, one run): engine {fast_mb:.1f} MB   baseline {base_mb:.1f} MB   "
          f"(whole process max RSS, shapely's C heap included: "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)")
    load = os.getloadavg()[0]
    print(f"machine: {os.cpu_count()} cores, load average {load:.1f} (wall times grow with other work; "
          f"CPU time is this process's own)")
    checks = {f"median wall < {TARGET_MS:g} ms": statistics.median(fast_wall) * 1000 < TARGET_MS,
              f"median cpu < {TARGET_MS:g} ms": statistics.median(fast_cpu) * 1000 < TARGET_MS,
              f">= {TARGET_RATIO:g}x the baseline": ratio >= TARGET_RATIO,
              f"peak memory < {TARGET_MB:g} MB": fast_mb < TARGET_MB}
    for name, ok in checks.items():
        print(f"target {name}: {'met' if ok else 'NOT met'}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
