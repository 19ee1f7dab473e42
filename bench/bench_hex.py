"""Syniad live-table recomputation on a 4'x4' board of hexes with 60 units.

Measures, in the same run:
- full: everything the live table shows after a move, from scratch (every unit's reachable hexes and
  cheapest paths, attacker eligibility for every occupied hex, hex line of sight between all enemy pairs);
- incremental: `SyniadAnalysis.move` bringing the same answers up to date after one unit moves.
After every move the incremental answers are asserted equal to a full recomputation.

    .venv/bin/python bench/bench_hex.py [--size 0.9] [--moves 200] [--seed 1]

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
from typing import TypeVar

from table.hexgrid import HexLayout, Hexside, line, neighbours
from table.rules.syniad.analysis import SyniadAnalysis
from table.rules.syniad.state import Counter, SyniadState
from table.rules.syniad.terrain import SyniadMap

KINDS = {"infantry": 4, "cavalry": 6, "armour": 5, "artillery": 3}


def battlefield(size: float, seed: int, gap: float = 4.0) -> SyniadState:
    """A 48"x48" board: terrain patches, lakes, three rivers, a road net with bridges, 2 x 30 units."""
    rng = random.Random(seed)
    layout = HexLayout(size, "flat", (size, size))
    hexes = layout.hexes_on_board(48.0, 48.0)
    on = set(hexes)
    terrain = {}
    for kind, patches, radius in [("forest", 14, 3), ("mountain", 8, 2), ("swamp", 6, 2), ("desert", 5, 3),
                                  ("town", 10, 1), ("water", 4, 2)]:
        for _ in range(patches):
            centre = rng.choice(hexes)
            for h in hexes:
                dq, dr = h[0] - centre[0], h[1] - centre[1]
                if (abs(dq) + abs(dr) + abs(dq + dr)) // 2 <= radius and rng.random() < 0.7:
                    terrain[h] = kind
    rivers: set[Hexside] = set()
    for _ in range(3):  # a river wanders along hexsides across the board
        h = rng.choice(hexes)
        for _ in range(45):
            n = rng.choice([m for m in neighbours(h) if m in on] or [h])
            if n != h:
                rivers.add(Hexside(h, n))
                h = rng.choice([m for m in neighbours(h) if m in on and m in neighbours(n)] or [n])
    roads: set[tuple[int, int]] = set()
    for _ in range(6):  # straight-ish roads between random towns
        a, b = rng.choice(hexes), rng.choice(hexes)
        roads.update(p for p in line(a, b) if p in on)
    smap = SyniadMap.build(hexes, terrain, roads, rivers)
    counters: dict[str, Counter] = {}
    stacks: dict = {}
    land = [h for h in hexes if smap.enterable(h)]
    xs = {h: layout.to_board(h)[0] for h in land}
    fronts = (("A", (16 - gap / 2, 24 - gap / 2)), ("B", (24 + gap / 2, 32 + gap / 2)))
    for player, (lo, hi) in fronts:  # two 8" deep fronts either side of the middle, `gap` inches apart
        spots = [h for h in land if lo <= xs[h] <= hi]
        for i in range(30):
            kind = list(KINDS)[i % 4]
            h = rng.choice(spots)
            uid = f"{player}{i}"
            strength = rng.randint(2, 8)
            counters[uid] = Counter(uid, player, f"{uid} {kind}", kind, KINDS[kind], strength, h, uid)
            stacks.setdefault(h, []).append(uid)
            if len(stacks[h]) >= 3:
                spots.remove(h)
    return SyniadState(smap, counters, ("A", "B"), stacks)


T = TypeVar("T")


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    gc.collect()
    start = time.perf_counter()
    value = fn()
    return (time.perf_counter() - start) * 1000.0, value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=float, default=0.9, help="hex size (centre to corner, inches)")
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--gap", type=float, default=4.0,
                        help="inches between the two armies (negative: they overlap)")
    args = parser.parse_args()
    state = battlefield(args.size, args.seed, args.gap)
    rng = random.Random(args.seed)
    analysis = SyniadAnalysis(state)
    print(f"board 48x48 in, hex size {args.size} in: {len(state.smap.hexes)} hexes, "
          f"{len(state.counters)} units, {len(state.smap.rivers)} river hexsides, "
          f"{len(state.smap.roads)} road hexes")
    full_ms: list[float] = []
    incr_ms: list[float] = []
    redone: list[int] = []
    for _ in range(args.moves):
        uid = rng.choice([u for u, c in state.counters.items() if c.hex is not None])
        options = analysis.reach(uid).reachable(state.smap)
        if not options:
            continue
        to = rng.choice(options)[0]
        ms, count = timed(partial(analysis.move, uid, to))
        incr_ms.append(ms)
        redone.append(count)
        fresh = SyniadAnalysis(state, follow=False)  # built untimed; its refresh() is the full computation
        ms, _ = timed(fresh.refresh)
        full_ms.append(ms)
        assert fresh.answers() == analysis.answers(), f"incremental answers differ after {uid} -> {to}"
    full, incr = statistics.median(full_ms), statistics.median(incr_ms)
    reach_sizes = [len(r.destinations) for r in analysis.reaches.values()]
    print(f"moves measured: {len(incr_ms)}; mean reachable hexes per unit "
          f"{statistics.mean(reach_sizes):.1f}; enemy sight pairs {len(analysis.sight)}")
    print(f"full recomputation : median {full:6.2f} ms  mean {statistics.mean(full_ms):6.2f}  "
          f"min {min(full_ms):6.2f}  max {max(full_ms):6.2f}   (target < 20 ms)")
    print(f"incremental update : median {incr:6.2f} ms  mean {statistics.mean(incr_ms):6.2f}  "
          f"min {min(incr_ms):6.2f}  max {max(incr_ms):6.2f}   "
          f"units re-searched: mean {statistics.mean(redone):.1f} of {len(analysis.reaches)}")
    ratio = statistics.mean(incr_ms) / statistics.mean(full_ms)
    print(f"ratio incremental/full: median {incr / full:.3f}  mean {ratio:.3f}   (target <= 0.200)")
    ok = full < 20.0 and incr / full <= 0.2
    print("all answers identical to full recomputation after every move;",
          "targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
