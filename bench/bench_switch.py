"""What lowering the interpreter's switch interval buys the LED path: frame-in to LED-out latency of
the live loop with Python's default (5 ms) and with 0.5 ms, measured in the same run.

Python runs one thread at a time; a thread that comes back from C code (OpenCV, SQLite) while
another runs Python waits for the GIL up to the switch interval. The frame thread does that many
times a frame, so it may matter when another thread is busy in Python: the controller's background
worker (the game log's commits, the warnings' report after a move) and the panel's threads
(a phone asking the rule system a question). Two loads, each run with both intervals taking turns
frame by frame, so both meet the same load from the rest of the machine:

- `worker`: the scripted game of bench_loop (a pointer, moves every 15 frames): only the
  controller's own background work competes;
- `worker + panel`: the same while one more thread keeps asking the rule system for its full
  report, as a phone on `GET /api/query/report` would.

Prints per load and interval the median and p95 latency over every frame of every pass, and the
ratio 0.5 ms / default.

    .venv/bin/python bench/bench_switch.py [--frames 45 --repeats 4]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_loop import SCENE, percentile, scripted_frames
from gpiozero.pins.mock import MockFactory, MockPWMPin

from table.config import Config, default_config
from table.hw import build_hardware
from table.live.controller import TableController
from table.live.gamelog import GameLog
from table.live.leds import load_layout
from table.rules import get_ruleset
from table.scene import load_scene
from vision.pipeline import VisionPipeline
from vision.types import Frame

DEFAULT_S = 0.005          # CPython's default switch interval
LOWERED_S = 0.0005


class PanelLoad:
    """A thread asking the rule system for its full report, again and again, until stopped."""

    def __init__(self) -> None:
        scene = load_scene(SCENE)
        self.ruleset = get_ruleset(scene.ruleset)(scene)
        self.done = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.ruleset.ask("report", [])
            self.done += 1

    def __enter__(self) -> PanelLoad:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def one_pass(config: Config, frames: list[Frame], panel: bool,
             phase: int) -> tuple[dict[float, list[float]], float]:
    """Latency per frame (s) through a fresh controller, by the interval it ran with (the two take
    turns frame by frame, starting with the default when `phase` is even), and the panel thread's
    reports per second."""
    layout = load_layout(config.path("hardware", "led_layout"))
    hardware = build_hardware(config.hardware, config.path("hardware", "pin_map"), len(layout), mock=True,
                              factory=MockFactory(pin_class=MockPWMPin))
    latency: dict[float, list[float]] = {DEFAULT_S: [], LOWERED_S: []}
    with tempfile.TemporaryDirectory() as folder:
        controller = TableController(config, hardware=hardware, layout=layout,
                                     pipeline=VisionPipeline(config), scene=load_scene(SCENE),
                                     log_=GameLog(Path(folder) / "bench.sqlite3"))
        load = PanelLoad() if panel else None
        started = time.perf_counter()
        if load is not None:
            load.__enter__()
        try:
            for index, frame in enumerate(frames):
                interval = DEFAULT_S if (index + phase) % 2 == 0 else LOWERED_S
                sys.setswitchinterval(interval)
                start = time.perf_counter()
                controller.process(frame, wait=False)       # on return the strip shows this frame
                latency[interval].append(time.perf_counter() - start)
        finally:
            if load is not None:
                load.__exit__()
        rate = load.done / (time.perf_counter() - started) if load is not None else 0.0
        controller.settle()
        controller.close()
    return latency, rate


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=45)
    parser.add_argument("--repeats", type=int, default=4)
    args = parser.parse_args()
    config = default_config()
    frames = list(scripted_frames(config, args.frames))
    before = sys.getswitchinterval()
    results: dict[tuple[bool, float], list[float]] = {}
    rates: list[float] = []
    try:
        for repeat in range(args.repeats):
            for panel in (False, True):
                latency, rate = one_pass(config, frames, panel, repeat)
                for interval, values in latency.items():
                    results.setdefault((panel, interval), []).extend(values)
                if panel:
                    rates.append(rate)
    finally:
        sys.setswitchinterval(before)
    print(f"frames: {args.frames} at {config.camera.width}x{config.camera.height}, "
          f"{args.repeats} passes per load; the intervals take turns frame by frame (each frame runs "
          f"with each interval in every other pass); panel thread: {statistics.median(rates):.0f} reports/s")
    for panel in (False, True):
        label = "worker + panel" if panel else "worker"
        base, low = results[(panel, DEFAULT_S)], results[(panel, LOWERED_S)]
        for interval, values in ((DEFAULT_S, base), (LOWERED_S, low)):
            print(f"{label:<15} interval {interval * 1000:3.1f} ms: frame-in to LED-out median "
                  f"{statistics.median(values) * 1000:7.1f} ms   "
                  f"p95 {percentile(values, 0.95) * 1000:7.1f} ms")
        print(f"{label:<15} ratio 0.5 ms / 5 ms: "
              f"median {statistics.median(low) / statistics.median(base):.2f}"
              f"   p95 {percentile(low, 0.95) / percentile(base, 0.95):.2f}")


if __name__ == "__main__":
    main()
