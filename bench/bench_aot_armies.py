"""Bench: Age of Tyrants `report` for big armies: time against model count (30, 60, 120, 240, 480 bases, half
a side, in units of 5, with 40 terrain pieces), the plain one-pair-at-a-time baseline beside it where it
finishes within its budget, and the two targets: 300 bases under 250 ms, 60 bases under 25 ms.

Every run is a fresh `report` (a new rule system, table.geometry's caches emptied). Times are medians (and
minima) of wall clock and of this process's CPU time: the machine is shared, so CPU time is the steadier.
Where the baseline runs, the answers must be identical. Exit status 1 when a target is missed (on CPU time).

Run: .venv/bin/python bench/bench_aot_armies.py [--runs N] [--budget SECONDS] [--sizes 30,60,...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

from aot_baseline import plain_pairs
from aot_scenes import make_scene
from bench_report_aot import summary, timed

from table.rules.age_of_tyrants import AgeOfTyrants

PER_UNIT = 5
PIECES = 40
TARGETS_MS = {300: 250.0, 60: 25.0}


def army(models: int, seed: int):
    platoons = max(1, models // 2 // PER_UNIT)
    return make_scene(seed=seed, platoons=platoons, per_platoon=PER_UNIT, pieces=PIECES)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh engine reports per size (default 7)")
    parser.add_argument("--budget", type=float, default=40.0,
                        help="seconds of CPU the baseline may take at one size (default 40): beyond, skipped")
    parser.add_argument("--sizes", default="30,60,120,240,300,480")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    print(f"{'bases':>5} {'unit pairs':>10} {'no sight':>8} | {'engine wall':>17} {'engine cpu':>17} | "
          f"{'baseline cpu':>14} {'ratio':>7}")
    results: dict[int, float] = {}
    last_baseline: tuple[int, float] | None = None
    for size in (int(s) for s in args.sizes.split(",")):
        scene = army(size, args.seed)
        engine = lambda: AgeOfTyrants(scene).report()  # noqa: E731, B023
        engine()  # imports and first-call set-up
        wall, cpu, answer = timed(engine, args.runs)
        pairs = answer["pairs"]
        results[len(scene.models)] = statistics.median(cpu) * 1000
        # the baseline grows about as the cube of the bases (pairs of units, pairs of bases, each line
        # against every base): run it only where it fits the budget
        guess = None
        if last_baseline is not None:
            guess = last_baseline[1] * (len(scene.models) / last_baseline[0]) ** 3
        if guess is None or guess <= args.budget:
            _, base_cpu, plain = timed(lambda: plain_pairs(scene), 1)  # noqa: B023
            theirs = [(p["from"], p["to"], p["distance"], p["band"], p["visible"], p["blocked_by"],
                       p["models"]) for p in plain]
            assert summary(pairs) == theirs, f"{size} bases: the engine and the baseline disagree"
            last_baseline = (len(scene.models), base_cpu[0])
            baseline = f"{base_cpu[0] * 1000:11.0f} ms {base_cpu[0] / statistics.median(cpu):6.0f}x"
        else:
            baseline = f"skipped (about {guess:.0f} s)"
        print(f"{len(scene.models):5d} {len(pairs):10d} {sum(not p['los']['visible'] for p in pairs):8d} | "
              f"{statistics.median(wall) * 1000:7.1f} (min {min(wall) * 1000:6.1f}) "
              f"{statistics.median(cpu) * 1000:7.1f} (min {min(cpu) * 1000:6.1f}) | {baseline}", flush=True)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} (wall times grow with "
          f"other work; CPU time is this process's own)")
    ok = True
    for bases, limit in TARGETS_MS.items():
        if bases in results:
            met = results[bases] < limit
            ok &= met
            print(f"target {bases} bases: median cpu {results[bases]:.1f} ms < {limit:g} ms: "
                  f"{'met' if met else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
