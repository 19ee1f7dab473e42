"""Frame-in to LED-out latency of the live loop on the synthetic camera at 2028 x 1520.

Runs the same scripted frames twice: through the vision pipeline alone (the baseline), then
through the whole loop (pipeline, game events, rule answers, highlights, LED strip) as the loop
thread runs it: the game log's commit, the warnings' report and the snapshot follow on the
controller's background worker, which keeps running while the next frame is processed. Prints
median and p95 of both, the loop's share on top of the pipeline (target: at most 30% extra), how
long an event frame waits for its commit and snapshot, and the peak memory of the process (target:
under 300 MB).

    .venv/bin/python bench/bench_loop.py [--frames 120]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from gpiozero.pins.mock import MockFactory, MockPWMPin

from table.config import default_config
from table.hw import build_hardware
from table.live.controller import TableController
from table.live.gamelog import GameLog
from table.live.leds import load_layout
from table.scene import load_scene
from vision.pipeline import VisionPipeline
from vision.sources import SyntheticSource
from vision.synthetic_scene import SceneMarker, from_scene

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "table" / "data" / "demo.json"


def scripted_frames(config, count: int):
    """Frames of the demo board; every 15 frames something happens (pointer, moves)."""
    base = from_scene(load_scene(SCENE), config)
    camera = SyntheticSource(config, base, realtime=False)
    pointer = SceneMarker(config.markers.pointer_id, 9.0, 38.8, 0.0, 15.0)
    beats = {15: lambda s: replace(s, markers=s.markers + (pointer,)),
             30: lambda s: s.with_marker(23, y=12.0),
             45: lambda s: s.with_marker(22, x=15.5, y=9.0),
             60: lambda s: s.with_marker(10, y=35.0).with_marker(11, y=35.0),
             75: lambda s: s.with_marker(22, x=12.45, y=8.78)}
    scene = base
    for i in range(count):
        if i in beats:
            scene = beats[i](scene)
            camera.set_scene(scene)
        yield camera.read()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


@dataclass
class LoopRun:
    """One pass of the scripted frames through the whole loop (times in seconds, per frame)."""

    latency: list[float]
    in_pipeline: list[float]
    committed: list[float]
    events: int
    writes: int
    asked: int
    selected: str | None


def run_loop(config, frames: int, inline: bool = False) -> LoopRun:
    """The whole loop on mock hardware (gpiozero MockFactory, MockStrip) and a real SQLite log."""
    layout = load_layout(config.path("hardware", "led_layout"))
    hardware = build_hardware(config.hardware, config.path("hardware", "pin_map"), len(layout), mock=True,
                              factory=MockFactory(pin_class=MockPWMPin))
    writes = []
    real_show = hardware.show

    def show(frame):
        real_show(frame)
        writes.append(frame)

    hardware.show = show  # type: ignore[method-assign]  # the bench counts the strip's writes
    vision = VisionPipeline(config)
    in_pipeline: list[float] = []

    class Timed:
        def process(self, frame):
            start = time.perf_counter()
            try:
                return vision.process(frame)
            finally:
                in_pipeline.append(time.perf_counter() - start)

    with tempfile.TemporaryDirectory() as folder:
        controller = TableController(config, hardware=hardware, layout=layout, pipeline=Timed(),
                                     log_=GameLog(Path(folder) / "bench.sqlite3"), scene=load_scene(SCENE))
        latency: list[float] = []
        committed: list[float] = []          # frame-in to its events on disk, for frames with events
        submitted: list[float] = []
        real_emit_all, real_commit = controller.journal.emit_all, controller.journal._commit
        started = 0.0

        def emit_all(events):
            if events:
                submitted.append(started)
            return real_emit_all(events)

        def commit(game, events):
            real_commit(game, events)
            committed.append(time.perf_counter() - submitted.pop(0))

        controller.journal.emit_all, controller.journal._commit = emit_all, commit  # type: ignore[method-assign]
        for frame in scripted_frames(config, frames):
            started = time.perf_counter()
            controller.process(frame, wait=inline)   # on return the strip shows this frame's answer
            latency.append(time.perf_counter() - started)
        controller.settle()
        run = LoopRun(latency, in_pipeline, committed, len(controller.gamelog.events(controller.game)),
                      len(writes), controller.answers.bands.asked, controller.state.selected)
        controller.close()
    return run


def line(label: str, values: list[float], unit: str = "ms") -> str:
    if unit == "%":
        return f"{label:<44} median {statistics.median(values):+7.1%}   p95 {percentile(values, 0.95):+7.1%}"
    return (f"{label:<44} median {statistics.median(values) * 1000:7.2f} ms   "
            f"p95 {percentile(values, 0.95) * 1000:7.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--repeats", type=int, default=3,
                        help="passes of the script; the per-frame minimum over them filters out the time "
                             "other processes took the CPU (the script is the same every pass)")
    parser.add_argument("--inline", action="store_true",
                        help="for comparison: each frame also waits for its commit, report and snapshot "
                             "(the work the loop thread did itself before the background worker)")
    args = parser.parse_args()
    config = default_config()

    alone_runs, loop_runs = [], []
    for _ in range(args.repeats):
        # baseline: the vision pipeline alone
        pipeline = VisionPipeline(config)
        alone = []
        for frame in scripted_frames(config, args.frames):
            start = time.perf_counter()
            pipeline.process(frame)
            alone.append(time.perf_counter() - start)
        alone_runs.append(alone)
        loop_runs.append(run_loop(config, args.frames, args.inline))

    first = loop_runs[0]
    if args.inline:
        print("--inline: every frame waits for its commit, report and snapshot")
    print(f"frames: {args.frames} at {config.camera.width}x{config.camera.height}, "
          f"{args.repeats} passes; per pass {first.events} game events logged, {first.writes} LED frames "
          f"written (only changes are sent), selected by the pointer: {first.selected}, "
          f"{first.asked} band questions asked of the rule system")
    every = {"alone": [v for run in alone_runs for v in run],
             "latency": [v for run in loop_runs for v in run.latency],
             "pipeline": [v for run in loop_runs for v in run.in_pipeline]}
    overhead = [t - v for t, v in zip(every["latency"], every["pipeline"], strict=True)]
    print("every frame of every pass (wall clock, other processes' load included):")
    print(line("  vision pipeline alone", every["alone"]))
    print(line("  frame-in to LED-out", every["latency"]))
    print(line("  loop's own work per frame", overhead))
    shares = [o / v for o, v in zip(overhead, every["pipeline"], strict=True)]
    print(line("  loop overhead (loop's work / pipeline's)", shares, "%"))
    # per frame, the least each part took over the passes
    least_pipeline = [min(r.in_pipeline[i] for r in loop_runs) for i in range(args.frames)]
    least_work = [min(r.latency[i] - r.in_pipeline[i] for r in loop_runs) for i in range(args.frames)]
    print("per frame, the least over the passes (the machine's other load filtered out):")
    print(line("  vision pipeline", least_pipeline))
    print(line("  loop's own work per frame", least_work))
    ratios = [w / v for w, v in zip(least_work, least_pipeline, strict=True)]
    print(line("  loop overhead (target: at most +30%)", ratios, "%"))
    worst = sorted(range(args.frames), key=lambda i: ratios[i], reverse=True)[:5]
    print("  largest: " + ", ".join(f"frame {i} {least_work[i] * 1000:.2f} ms ({ratios[i]:+.1%})"
                                    for i in worst))
    committed = [v for run in loop_runs for v in run.committed]
    if committed:
        print(line("frame-in to its events committed (snapshot)", committed) + "   (off the LED path)")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"peak memory: {peak_mb:.0f} MB (target: under 300 MB)")


if __name__ == "__main__":
    main()
