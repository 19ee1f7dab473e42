"""Hex skirmish live-table recomputation on a 4'x4' board of hexes with 60 units.

Measures, in the same run:
- baseline: the public questions, one by one (`moves` and `path` for every unit, `los` for every ordered
  enemy pair), as the table answered them before `SkirmishAnalysis`;
- full: `SkirmishAnalysis.refresh`, every unit's reachable hexes and cheapest paths and the hex line of
  sight (visible, cover) of every ordered enemy pair, from scratch;
- incremental: `SkirmishAnalysis.move` bringing the same answers up to date after one unit moves.
After every move the incremental answers are asserted equal to a fresh full computation, and every
`--check` moves equal to the baseline's answers.

    .venv/bin/python bench/bench_skirmish.py [--moves 100] [--seed 1] [--check 25]

Targets: full under 20 ms; incremental at most a fifth of full.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from skirmish_scene import battlefield

from table.rules.hex_skirmish import HexSkirmish
from table.rules.hex_skirmish.analysis import SkirmishAnalysis
from table.rules.hex_skirmish.movement import unwind
from table.scene import parse_scene

T = TypeVar("T")


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    """Wall time in ms (and the value); the CPU time of the same call goes to CPU_MS."""
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    value = fn()
    CPU_MS.append((time.process_time() - cpu) * 1000.0)
    return (time.perf_counter() - start) * 1000.0, value


CPU_MS: list[float] = []


def baseline(rules: HexSkirmish, tracked: list[str]) -> dict[str, Any]:
    """The answers through the public question code (Mover, sight.sight), as plain values."""
    moves: dict[str, list[tuple[Any, ...]]] = {}
    for uid in sorted(tracked):
        mover = rules.mover(uid)
        best, before = mover.search(mover.allowance)
        spots: list[dict[str, Any]] = mover.reachable()
        moves[uid] = [(tuple(s["hex"]), s["cost"], tuple(unwind(before, mover.start, tuple(s["hex"]))))
                      for s in spots]
    sight = {}
    present = rules.field.on_table()
    for a in present:
        for b in present:
            if a.player != b.player:
                seen = rules.los(a.id, b.id)
                sight[(a.id, b.id)] = (seen["visible"], seen["cover"]["heavy"], seen["cover"]["light"])
    return {"moves": moves, "sight": sight}


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "unknown"


def rules_for(doc: dict[str, Any]) -> HexSkirmish:
    return HexSkirmish(parse_scene(doc, "bench"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check", type=int, default=25, help="compare with the baseline every N moves")
    args = parser.parse_args()
    doc = battlefield(args.seed)
    rules = rules_for(doc)
    analysis = SkirmishAnalysis(rules)
    models = {m["id"]: m for m in doc["models"]}
    print(f"board 48x48 in, hex size 0.9 in: {len(rules.field.board)} hexes, {len(doc['hexes'])} terrain "
          f"hexes, {len(doc['hexsides'])} cover hexsides, {len(analysis.pieces)} units "
          f"({sum(p.vehicle for p in analysis.pieces)} vehicles, "
          f"{sum(len(p.offsets) > 1 for p in analysis.pieces)} bigger than one hex)")
    base_ms, base = timed(lambda: baseline(rules, list(analysis.reaches)))
    assert base == analysis.answers(), "the analysis differs from the public questions"
    rng = random.Random(args.seed)
    full_ms, incr_ms, redone, full_cpu, incr_cpu = [], [], [], [], []
    for count in range(1, args.moves + 1):
        uid = rng.choice([u for u, r in analysis.reaches.items() if len(r.stops)])
        to = rng.choice(analysis.reachable(uid))["hex"]
        ms, done = timed(partial(analysis.move, uid, tuple(to)))
        incr_ms.append(ms)
        incr_cpu.append(CPU_MS[-1])
        redone.append(done)
        models[uid]["hex"] = list(to)
        fresh_rules = rules_for(doc)
        fresh = SkirmishAnalysis(fresh_rules)   # built untimed (static tables); refresh() is the full work
        ms, _ = timed(fresh.refresh)
        full_ms.append(ms)
        full_cpu.append(CPU_MS[-1])
        assert fresh.answers() == analysis.answers(), f"incremental answers differ after {uid} -> {to}"
        if args.check and count % args.check == 0:
            same = baseline(fresh_rules, list(fresh.reaches)) == analysis.answers()
            assert same, f"the public questions differ after move {count}"
    full, incr = statistics.median(full_ms), statistics.median(incr_ms)
    sizes = [len(r.stops) for r in analysis.reaches.values()]
    print(f"moves measured: {len(incr_ms)}; mean destinations per unit {statistics.mean(sizes):.1f}; "
          f"enemy sight pairs {len(analysis.answers()['sight'])}")
    print(f"baseline (questions): {base_ms:7.2f} ms once")
    print(f"full recomputation  : median {full:6.2f} ms  min {min(full_ms):6.2f}  max {max(full_ms):6.2f}"
          f"   (target < 20 ms; {base_ms / full:.0f}x faster than the baseline)")
    print(f"incremental update  : median {incr:6.2f} ms  min {min(incr_ms):6.2f}  max {max(incr_ms):6.2f}"
          f"   searches redone: mean {statistics.mean(redone):.1f} of {len(analysis.reaches)}")
    print(f"ratio incremental/full: median {incr / full:.3f}  min-to-min {min(incr_ms) / min(full_ms):.3f}"
          f"   (target <= 0.200)")
    fc, ic = statistics.median(full_cpu), statistics.median(incr_cpu)
    print(f"CPU time (process): full median {fc:6.2f} ms, incremental median {ic:6.2f} ms, "
          f"ratio {ic / fc:.3f}   (wall times include waiting for a busy CPU: load average {_load()})")
    ok = full < 20.0 and incr / full <= 0.2
    print("all answers identical to a full recomputation after every move and to the questions every "
          f"{args.check} moves;", "targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
