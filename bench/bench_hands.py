"""Hands over the board: what each frame of the live loop costs on a replayed camera (issue 16).

A scripted game on the demo board (models standing; a hand resting over three models; the sniper
carried 4"; a raider carried 8" and turned; a hand resting over two raiders) is rendered once per
resolution and cached under var/bench-cache/ (the 12 MP renders take minutes). Then it is replayed
through the whole live table as a camera would feed it: the capture thread puts one frame every
1/fps seconds into the one-frame slot, the loop thread takes the newest (an unread frame that is
replaced counts as dropped), the controller runs vision, game events, rule answers and LEDs; the
log, the report and the snapshot follow on its background worker.

Prints per frame the stages of the frame path in CPU time (detection, recovery, tracking, rules,
outputs), their median / p95 / worst, frames processed and dropped, and checks the result against
the script (every model where the script put it, the two carries logged, nothing else moved). The
process is pinned to one core (`taskset -c 0` semantics, `--cpus` to change). By default
the replay runs on a clock of the process's CPU time (a dedicated core: on a shared machine the
other processes' load would decide which frames are dropped); `--clock wall` replays in real time
through the controller's own capture and loop threads; `--slowdown 5` stands in for a core five
times slower (every cost x5, the frame budget /5).
`--miniatures` plays the same game with a painted miniature standing on every model's ring sticker
(`[markers] stickers`: 25 mm bases, the gunner's 40 mm; each unit's formation spread so that
neighbours stand in base contact), rendered by the synthetic camera (vision.miniature).
Targets: worst frame <= 2x the median, >= 95% of frames processed.

    .venv/bin/python bench/bench_hands.py [--size 2028x1520 --fps 10] [--size 4056x3040 --fps 5]
    .venv/bin/python bench/bench_hands.py --miniatures --size 4056x3040 --fps 5
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from gpiozero.pins.mock import MockFactory, MockPWMPin

import table.live.answering as answering
from table.config import Config, from_document
from table.hw import build_hardware
from table.live.controller import TableController
from table.live.gamelog import GameLog
from table.live.leds import load_layout
from table.scene import Base, Scene, load_scene
from vision.camera import PinholeCamera
from vision.pipeline import VisionPipeline
from vision.synthetic import Renderer, RenderOptions, sticker_tiles
from vision.synthetic_scene import Hand, SyntheticScene, config_stickers, from_scene
from vision.types import Frame

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "table" / "data" / "demo.json"
CACHE = ROOT / "var" / "bench-cache" / "hands"
OPTIONS = RenderOptions(supersample=2, noise_sigma=0.0, blur_sigma=0.5, decoys=0)
NOISE_SIGMA = 1.5  # sensor noise, fresh each frame
STAGES = ("detection", "recovery", "tracking", "rules", "outputs")
CARRIES = {23: (38.0, 10.0, 135.0), 22: (12.45 + 8.0, 8.78, 180.0)}  # marker: where the script leaves it
# --miniatures: ring stickers by base (the demo's 20 mm bases become 25 mm: a 28 mm-scale figure's body
# covers a 20 mm sticker's locator ring), the sticker tops 3 mm above the board
STICKERS = {"25": "10-12,20-23", "40": "13"}
SMALLEST_BASE_MM = 25.0


def config_for(size: tuple[int, int], fps: float, miniatures: bool = False) -> Config:
    doc: dict = {"camera": {"width": size[0], "height": size[1], "fps": fps}}
    if miniatures:
        doc["markers"] = {"stickers": STICKERS, "model_height_mm": 3}
    return from_document(doc, "<bench>")


def game_scene(config: Config) -> Scene:
    """The demo scene; with ring stickers in the config, every base at least SMALLEST_BASE_MM and each
    unit spread about its first model so that its two nearest models' bases touch."""
    scene = load_scene(SCENE)
    if not config.markers.stickers:
        return scene
    models = []
    for unit in scene.units:
        members = scene.models_of(unit.id)
        bases = [replace(m.base, width_mm=max(m.base.width_mm, SMALLEST_BASE_MM),
                         depth_mm=max(m.base.depth_mm, SMALLEST_BASE_MM)) for m in members]
        first = members[0]
        gaps = [math.dist(a.position, b.position) for i, a in enumerate(members) for b in members[i + 1:]]
        spread = bases[0].width_mm / 25.4 / min(gaps) if gaps else 1.0
        models += [replace(m, base=Base(b.shape, b.width_mm, b.depth_mm),
                           x=first.position[0] + (m.position[0] - first.position[0]) * spread,
                           y=first.position[1] + (m.position[1] - first.position[1]) * spread)
                   for m, b in zip(members, bases, strict=True)]
    return scene.with_models(tuple(models))


def rest(scene: SyntheticScene, hand: Hand, frames: int) -> list[SyntheticScene]:
    """A hand reaching in from its arm's side (2 frames), resting `frames` frames, then lifting."""
    a = math.radians(hand.angle)
    reach = [replace(hand, x=hand.x + math.cos(a) * d, y=hand.y + math.sin(a) * d) for d in (6.0, 3.0)]
    up = replace(hand, height_in=hand.height_in + 5.0, x=hand.x + math.cos(a) * 4, y=hand.y + math.sin(a) * 4)
    return [replace(scene, hands=(h,)) for h in [*reach, *[hand] * frames, up]]


def carry(scene: SyntheticScene, marker_id: int, to: tuple[float, float, float], angle: float
          ) -> tuple[list[SyntheticScene], SyntheticScene]:
    """A hand carrying a marker to (x, y, heading) over four frames, then withdrawing."""
    start = next(m for m in scene.markers if m.id == marker_id)
    frames = []
    for i in range(1, 5):
        f = i / 4
        x, y = start.x + (to[0] - start.x) * f, start.y + (to[1] - start.y) * f
        heading = start.heading + (to[2] - start.heading) * f
        moved = scene.with_marker(marker_id, x=x, y=y, heading=heading)
        frames.append(replace(moved, hands=(Hand(x, y + 0.2, angle=angle, height_in=1.0),)))
    end = scene.with_marker(marker_id, x=to[0], y=to[1], heading=to[2])
    frames.append(replace(end, hands=(Hand(to[0], to[1] + 3.0, angle=angle, height_in=6.0),)))
    return frames, end


def script(config: Config) -> list[SyntheticScene]:
    """60 frames: still, a hand over rifles-1..3, the sniper carried 4", a raider carried 8" and
    turned, a hand over raiders-1 and -2, still."""
    scene = from_scene(game_scene(config), config)
    out = [scene] * 6
    out += rest(scene, Hand(10.45, 38.0, angle=90.0, height_in=1.0), 6)
    out += [scene] * 5
    moved, scene = carry(scene, 23, CARRIES[23], -90.0)
    out += moved + [scene] * 5
    moved, scene = carry(scene, 22, CARRIES[22], -90.0)
    out += moved + [scene] * 5
    out += rest(scene, Hand(12.45, 10.2, angle=-90.0, height_in=1.0), 8)
    return out + [scene] * (60 - len(out) - 1) + [scene]


def rendered(config: Config, scenes: list[SyntheticScene]) -> list[np.ndarray]:
    """The frames, from the cache when it holds them (keyed by script, size and render options)."""
    size = (int(config.camera.width), int(config.camera.height))
    key = hashlib.sha256(repr((scenes, size, OPTIONS, NOISE_SIGMA, sorted(config_stickers(config).items())))
                         .encode()).hexdigest()[:16]
    folder = CACHE / f"{size[0]}x{size[1]}-{key}"
    if (folder / "done").exists():
        return [np.load(folder / f"{i:03d}.npy") for i in range(len(scenes))]
    folder.mkdir(parents=True, exist_ok=True)
    camera = PinholeCamera.overhead(size, scenes[0].board, tilt_deg=(3.0, -2.0))
    renderer = Renderer(camera, scenes[0].board, OPTIONS, sticker_tiles(config_stickers(config)))
    corners = {int(k) for k in config.markers.corners}
    rng = np.random.default_rng(5)
    clean: dict[SyntheticScene, np.ndarray] = {}
    frames = []
    for i, scene in enumerate(scenes):
        if scene not in clean:
            print(f"  rendering frame {i} at {size[0]}x{size[1]}", flush=True)
            clean[scene] = renderer.render(scene, corners)
        noise = rng.normal(0.0, NOISE_SIGMA, clean[scene].shape).astype(np.float32)
        frame = np.clip(clean[scene] + noise, 0, 255).astype(np.uint8)
        np.save(folder / f"{i:03d}.npy", frame)
        frames.append(frame)
    (folder / "done").touch()
    return frames


class Replay:
    """A camera playing cached frames once (the Capture thread paces them at the config's fps)."""

    def __init__(self, frames: list[np.ndarray], fps: float):
        self.frames, self.interval, self.index = frames, 1.0 / fps, 0

    def read(self) -> Frame | None:
        if self.index >= len(self.frames):
            return None
        self.index += 1
        return Frame(self.frames[self.index - 1], time.monotonic(), self.index)

    def close(self) -> None:
        pass


@dataclass
class Timings:
    """Per processed frame: its index, stage times on the frame path (CPU seconds of the process,
    so the other processes of a shared machine do not count), the frame path's CPU and wall time."""

    frames: list[int] = field(default_factory=list)
    stages: dict[str, list[float]] = field(default_factory=lambda: {s: [] for s in STAGES})
    total: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)


def replay(config: Config, frames: list[np.ndarray], slowdown: float | None = None
           ) -> tuple[Timings, TableController, int]:
    """The frames through the live table at the config's fps; (timings, controller, frames offered).

    With `slowdown` None: in real time, by the controller's own capture and loop threads (the wall
    clock, so other processes' load counts). Else on a clock of this process's CPU time multiplied by
    `slowdown` (a dedicated core that many times slower: its frame budget shrinks to match): the
    loop takes the newest frame that has arrived by then, as the capture slot gives it."""
    layout = load_layout(config.path("hardware", "led_layout"))
    hardware = build_hardware(config.hardware, config.path("hardware", "pin_map"), len(layout), mock=True,
                              factory=MockFactory(pin_class=MockPWMPin))
    pipeline = VisionPipeline(config)
    fps = float(config.camera.fps)
    log_dir = tempfile.mkdtemp(prefix="bench-hands-")
    controller = TableController(config, hardware=hardware, layout=layout, pipeline=pipeline,
                                 log_=GameLog(Path(log_dir) / "bench.sqlite3"), scene=game_scene(config),
                                 open_source=lambda: Replay(frames, fps))
    timings = Timings()
    now: dict[str, float] = {}
    loop_thread: list[threading.Thread] = []

    def on_frame_path() -> bool:
        return bool(loop_thread) and threading.current_thread() is loop_thread[0]

    def timed(stage: str, fn):
        def run(*args, **kwargs):
            if not on_frame_path():
                return fn(*args, **kwargs)
            start = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                now[stage] = now.get(stage, 0.0) + time.process_time() - start
        return run

    answers_for, process = answering.answers_for, controller.process
    # the bench wraps the loop's stages in place to time them
    answering.answers_for = timed("answers", answers_for)  # type: ignore[method-assign]
    controller.observe = timed("observe", controller.observe)  # type: ignore[method-assign]
    controller._refresh = timed("refresh", controller._refresh)  # type: ignore[method-assign]

    def timed_process(frame: Frame, wait: bool = True) -> None:
        if not loop_thread:
            loop_thread.append(threading.current_thread())
        now.clear()
        start, wall = time.process_time(), time.perf_counter()
        process(frame, wait)
        total = time.process_time() - start
        timings.wall.append(time.perf_counter() - wall)
        seen = pipeline.timings
        values = {"detection": seen.detection, "recovery": seen.recovery, "tracking": seen.tracking,
                  "rules": now.get("observe", 0.0) + now.get("answers", 0.0),
                  "outputs": now.get("refresh", 0.0) - now.get("answers", 0.0)}
        timings.frames.append(frame.index)
        for stage in STAGES:
            timings.stages[stage].append(values[stage] * (slowdown or 1.0))
        timings.total.append(total * (slowdown or 1.0))

    controller.process = timed_process  # type: ignore[method-assign]
    try:
        if slowdown is None:
            controller.start()
            for thread in controller._threads:
                thread.join()
        else:
            pipeline.frame_budget_s /= slowdown
            cpu_clock(frames, fps, slowdown, lambda frame: controller.process(frame, wait=False))
        controller.settle()
    finally:
        answering.answers_for = answers_for
    return timings, controller, len(frames)


def cpu_clock(frames: list[np.ndarray], fps: float, slowdown: float, process) -> None:
    """The loop on a dedicated core: frame k arrives at k / fps; the loop takes the newest arrived
    frame (the ones it skipped are dropped) and is busy for its CPU time x `slowdown`."""
    clock, last = 0.0, -1
    while last < len(frames) - 1:
        arrived = min(len(frames) - 1, math.floor(clock * fps + 1e-9))
        if arrived <= last:  # idle until the next frame arrives
            clock = (last + 1) / fps
            continue
        start = time.process_time()
        process(Frame(frames[arrived], clock, arrived + 1))
        clock += (time.process_time() - start) * slowdown
        last = arrived


def pixels(text: str) -> tuple[int, int]:
    """WIDTHxHEIGHT as (width, height)."""
    width, _, height = text.partition("x")
    return int(width), int(height)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def check(controller: TableController, config: Config) -> list[str]:
    """Where the table put every model, whether the camera tracks it at the end (a model never seen
    keeps the scene file's place), and which moves it logged, against the script."""
    truth = {m.id: m for m in script(config)[-1].markers}
    problems = []
    states = {m["id"]: m.get("state") for m in controller.snapshot().scene["models"]}
    for model in controller.state.scene.models:
        t = None if model.marker is None else truth.get(model.marker)
        if t is None:
            continue
        if states.get(model.id) != "tracked":
            problems.append(f"{model.id} not tracked by the camera ({states.get(model.id)})")
        elif model.x is None or model.y is None:
            problems.append(f"{model.id} not on the table, script ({t.x}, {t.y})")
        elif math.dist((model.x, model.y), (t.x, t.y)) > 0.01:
            problems.append(f"{model.id} at ({model.x:.3f}, {model.y:.3f}), script ({t.x}, {t.y})")
    moves = [e for e in controller.gamelog.events(controller.game) if e["kind"] == "move"
             and not e.get("placement")]
    moved = sorted(controller.state.markers()[m] for m in CARRIES)
    if sorted(e["model"] for e in moves) != moved:
        problems.append(f"moves logged: {[(e['model'], round(e['distance'], 2)) for e in moves]}, "
                        f"script: {moved}")
    return problems


def report(label: str, timings: Timings, offered: int, fps: float) -> None:
    budget = 1.0 / fps
    processed = len(timings.frames)
    print(f"{label}: {processed}/{offered} frames processed ({processed / offered:.0%}), "
          f"{offered - processed} dropped; frame budget {budget * 1000:.0f} ms")
    for stage in STAGES:
        v = timings.stages[stage]
        print(f"  {stage:<10} median {statistics.median(v) * 1000:8.1f} ms   "
              f"p95 {percentile(v, 0.95) * 1000:8.1f} ms   worst {max(v) * 1000:8.1f} ms")
    v = timings.total
    med, worst = statistics.median(v), max(v)
    print(f"  {'frame path':<10} median {med * 1000:8.1f} ms   p95 {percentile(v, 0.95) * 1000:8.1f} ms"
          f"   worst {worst * 1000:8.1f} ms   worst/median {worst / med:.2f} (target <= 2)")
    later = max(v[1:])
    print(f"  {'':<10} after the first frame (which calibrates: a full pass): worst {later * 1000:.1f} ms, "
          f"worst/median {later / med:.2f}")
    w = timings.wall
    print(f"  {'wall clock':<10} median {statistics.median(w) * 1000:8.1f} ms   "
          f"p95 {percentile(w, 0.95) * 1000:8.1f} ms   worst {max(w) * 1000:8.1f} ms   "
          "(other processes' load included)")
    over = [(i, t) for i, t in zip(timings.frames, v, strict=True) if t > budget]
    print(f"  frames over budget: {len(over)}"
          + (": " + ", ".join(f"{i} ({t * 1000:.0f} ms)" for i, t in over[:8]) if over else ""))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", action="append", help="WxH (default: 2028x1520 and 4056x3040)")
    parser.add_argument("--fps", action="append", type=float, help="replay rate per size (default 10, 5)")
    parser.add_argument("--cpus", default="0", help="CPUs to pin to (default: one core, 0)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="cpu",
                        help="replay in real time (wall: other processes' load counts) or on this "
                             "process's CPU time (cpu, the default: a dedicated core)")
    parser.add_argument("--slowdown", type=float, default=1.0,
                        help="with --clock cpu: a core this many times slower (its budget shrinks to match)")
    parser.add_argument("--per-frame", action="store_true", help="print every frame's stages")
    parser.add_argument("--miniatures", action="store_true",
                        help="a painted miniature on every model's ring sticker (25 and 40 mm bases, "
                             "units in base contact)")
    args = parser.parse_args()
    sizes = [pixels(s) for s in (args.size or ["2028x1520", "4056x3040"])]
    rates = args.fps or [10.0, 5.0][:len(sizes)]
    os.sched_setaffinity(0, {int(c) for c in args.cpus.split(",")})
    slowdown = args.slowdown if args.clock == "cpu" else None
    print(f"pinned to CPU {args.cpus}; " + ("real time (wall clock)" if slowdown is None else
          f"CPU-time clock (a dedicated core{f' {slowdown:g}x slower' if slowdown != 1 else ''})"))
    for size, fps in zip(sizes, rates, strict=True):
        config = config_for(size, fps, args.miniatures)
        frames = rendered(config, script(config))
        timings, controller, offered = replay(config, frames, slowdown)
        extra = ", miniatures on ring stickers" if args.miniatures else ""
        report(f"{size[0]}x{size[1]} at {fps:g} fps{extra}", timings, offered, fps)
        if args.per_frame:
            for n, i in enumerate(timings.frames):
                stages = "  ".join(f"{s} {timings.stages[s][n] * 1000:6.1f}" for s in STAGES)
                print(f"    frame {i:3d}: {stages}   total {timings.total[n] * 1000:6.1f} ms")
        problems = check(controller, config)
        print("  against the script: " + ("; ".join(problems) if problems else
                                          "every model tracked and in place, the two carries logged"))
        controller.close()


if __name__ == "__main__":
    main()
