"""How long a dispute bookmark keeps the frame loop waiting: the longest wait for the controller's lock (what
the loop takes for each frame) while bookmarks are taken, against a baseline in the same run that makes the
whole bookmark holding the lock (as a command would). The demo table after four rendered frames; the
bookmark asks the measure card's questions with the camera's error and crops the frame.

    .venv/bin/python bench/bench_bookmark.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from table.config import load_config
from table.live.bookmarks import evidence, keep, moment
from table.live.run import build_table


def longest_wait(controller: Any, take: Callable[[], Any]) -> tuple[float, float]:
    """(the longest wait for the lock while `take` runs, how long `take` took), seconds."""
    done = threading.Event()
    spent = [0.0]

    def run() -> None:
        start = time.perf_counter()
        take()
        spent[0] = time.perf_counter() - start
        done.set()

    worker = threading.Thread(target=run)
    worker.start()
    worst = 0.0
    while not done.is_set():
        start = time.perf_counter()
        with controller._lock:        # what the frame loop takes for each frame
            worst = max(worst, time.perf_counter() - start)
        time.sleep(0.005)
    worker.join()
    return worst, spent[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-bookmark-"))
    table = build_table(load_config(), demo=True, log_path=folder / "game.sqlite3")   # not started
    controller = table.controller
    camera = controller.open_source()
    for _ in range(4):
        controller.process(camera.read())

    def locked() -> Any:                 # the baseline: everything under the lock
        def run() -> Any:
            return keep(controller, evidence(moment(controller), "rifles-1", "raiders-1"))
        return controller._change(run)

    try:
        base = [longest_wait(controller, locked) for _ in range(args.rounds)]
        now = [longest_wait(controller, lambda: controller.take_bookmark("rifles-1", "raiders-1"))
               for _ in range(args.rounds)]
    finally:
        table.close()
    base_wait, now_wait = statistics.median(w for w, _ in base), statistics.median(w for w, _ in now)
    print(f"bookmark took (median): {statistics.median(s for _, s in now) * 1000:.0f} ms")
    print(f"frame loop's longest wait for the lock, median of {args.rounds}: whole bookmark under the lock "
          f"{base_wait * 1000:.1f} ms, take_bookmark {now_wait * 1000:.1f} ms "
          f"(ratio {now_wait / base_wait:.3f})")


if __name__ == "__main__":
    main()
