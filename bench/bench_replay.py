"""Scrubbing the replay through a 1,000-event game: what one step costs with the replay's checkpoints
(table/live/replay.py) against replaying the game from its start for that step, both in the same run.

    .venv/bin/python bench/bench_replay.py [--events 1000] [--samples 40]

A step is `Replay.at(seq)`, what GET /api/replay/<seq> does: rebuild the board after the event and ask
the rule system about its selection. Three ways of scrubbing: one step forward at a time (the slider
dragged on), one step back at a time, and jumps to random events; each against a replay from the start
at the same events (a fresh Replay of the log as it stood at that event, which has no checkpoint or
last point to start from but the game's start). The
views are not cached (keep=0), so every step is worked out. Prints the median milliseconds a step, the
ratio, and the events applied a step; exit status 1 if a checkpointed step ever applies more than the
checkpoint interval or is not faster than the replay from the start.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from typing import Any

from replay_events import make_game

from table.live.replay import CHECKPOINT_EVERY, Fetch, Replay

GAME = 1


def source(events: list[dict[str, Any]]) -> Fetch:
    """The game log's `events(game, after)` over events numbered 1, 2, ..."""
    logged = [{**e, "seq": i + 1, "ts": 1_000_000.0 + i} for i, e in enumerate(events)]

    def fetch(game: int, after: int) -> list[dict[str, Any]]:
        return logged[after:]

    return fetch


def timed(replay: Replay, seq: int) -> tuple[float, int]:
    """Seconds for one step, and the events it applied."""
    applied = replay.applied
    start = time.perf_counter()
    view = replay.at(GAME, seq)
    elapsed = time.perf_counter() - start
    assert view is not None and view["seq"] == seq
    return elapsed, replay.applied - applied


def scratch(fetch: Fetch, seq: int) -> float:
    """One step replayed from the start: a fresh replay of the log as it stood at that event."""
    return timed(Replay(lambda game, after: fetch(game, after)[:seq - after], keep=0), seq)[0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=40, help="steps timed from the start, per way")
    args = parser.parse_args()
    events = make_game(args.events)
    fetch = source(events)
    seqs = list(range(1, len(events) + 1))
    rng = random.Random(3)
    ways = {"forward one step": seqs, "back one step": seqs[::-1],
            "random jumps": rng.sample(seqs, min(len(seqs), 300))}
    print(f"replay of a {len(events)}-event game, checkpoint every {CHECKPOINT_EVERY} events")
    worst, failed = 0, False
    for name, order in ways.items():
        replay = Replay(fetch, keep=0)
        replay.at(GAME, order[0])                    # the first view (loads the log, makes the checkpoints)
        steps = [timed(replay, seq) for seq in order[1:]]
        ours = statistics.median(s for s, _ in steps) * 1000
        applied = statistics.mean(n for _, n in steps)
        worst = max(worst, max(n for _, n in steps))
        sample = rng.sample(order[1:], min(args.samples, len(order) - 1))
        baseline = statistics.median(scratch(fetch, seq) for seq in sample) * 1000
        failed |= ours >= baseline
        print(f"  {name:17s} {ours:7.2f} ms a step (events applied: mean {applied:5.1f})   from the start "
              f"{baseline:7.2f} ms   ratio {baseline / ours:5.1f}x")
    print(f"  most events applied in one step: {worst} (limit {CHECKPOINT_EVERY})")
    if failed or worst > CHECKPOINT_EVERY:
        sys.exit(1)


if __name__ == "__main__":
    main()
