"""Frame-in to LED-out latency of the live loop on the synthetic camera at 2028 x 1520.

Runs the same scripted frames twice: through the vision pipeline alone (the baseline), then
through the whole loop (pipeline, game events, rule answers, warnings, highlights, LED strip,
snapshot). Prints median and p95 of both, the loop's share on top of the pipeline (target: at most
30% extra) and the peak memory of the process (target: under 300 MB).

    .venv/bin/python bench/bench_loop.py [--frames 120]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from gpiozero.pins.mock import MockFactory, MockPWMPin

from table.config import default_config
from table.controller import TableController
from table.gamelog import GameLog
from table.hw import build_hardware
from table.leds import load_layout
from table.scene import load_scene
from vision.pipeline import VisionPipeline
from vision.sources import SyntheticSource
from vision.synthetic_scene import SceneMarker, from_scene

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "table" / "data" / "demo-synaptik.json"


def scripted_frames(config, count: int):
    """Frames of the demo board; every 15 frames something happens (pointer, moves)."""
    base = from_scene(load_scene(SCENE), config)
    camera = SyntheticSource(config, base, realtime=False)
    pointer = SceneMarker(config["markers"]["pointer_id"], 9.0, 38.8, 0.0, 15.0)
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=120)
    args = parser.parse_args()
    config = default_config()

    # baseline: the vision pipeline alone
    pipeline = VisionPipeline(config)
    alone = []
    for frame in scripted_frames(config, args.frames):
        start = time.perf_counter()
        pipeline.process(frame)
        alone.append(time.perf_counter() - start)

    # the whole loop on mock hardware (gpiozero MockFactory, MockStrip), a real SQLite log
    layout = load_layout(config.path("hardware", "led_layout"))
    hardware = build_hardware(config["hardware"], config.path("hardware", "pin_map"), len(layout), mock=True,
                              factory=MockFactory(pin_class=MockPWMPin))
    writes = []
    real_show = hardware.show
    hardware.show = lambda frame: (real_show(frame), writes.append(frame))
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
        latency = []
        for frame in scripted_frames(config, args.frames):
            start = time.perf_counter()
            controller.process(frame)        # on return the strip shows this frame's answer
            latency.append(time.perf_counter() - start)
        events = len(controller.gamelog.events(controller.game))
        selected = controller.state.selected
        controller.close()

    overhead = [total - vision_s for total, vision_s in zip(latency, in_pipeline, strict=True)]
    ms = 1000.0
    print(f"frames: {args.frames} at {config['camera']['width']}x{config['camera']['height']}, "
          f"{events} game events logged, {len(writes)} LED frames written (only changes are sent), "
          f"selected by the pointer: {selected}")
    print(f"vision pipeline alone     median {statistics.median(alone) * ms:7.2f} ms   "
          f"p95 {percentile(alone, 0.95) * ms:7.2f} ms")
    print(f"frame-in to LED-out       median {statistics.median(latency) * ms:7.2f} ms   "
          f"p95 {percentile(latency, 0.95) * ms:7.2f} ms")
    print(f"loop's own work per frame median {statistics.median(overhead) * ms:7.2f} ms   "
          f"p95 {percentile(overhead, 0.95) * ms:7.2f} ms")
    per_frame = [o / v for o, v in zip(overhead, in_pipeline, strict=True)]
    share = sum(overhead) / sum(in_pipeline)
    versus_alone = sum(latency) / sum(alone) - 1.0
    print(f"loop overhead per frame (loop's work / pipeline's time): "
          f"median {statistics.median(per_frame):+.1%}, "
          f"p95 {percentile(per_frame, 0.95):+.1%} (target: at most +30%)")
    print(f"in total: {share:+.1%} of the pipeline's time; whole loop {versus_alone:+.1%} against the "
          f"pipeline run alone")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"peak memory: {peak_mb:.0f} MB (target: under 300 MB)")


if __name__ == "__main__":
    main()
