"""Test helpers for the live table: a scripted stand-in for the vision pipeline (the lowest
layer), frames, moves, paths."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from table.config import CONFIG_DIR, default_config
from table.hw import build_hardware
from table.live.controller import TableController
from table.live.gamelog import GameLog
from table.live.leds import load_layout
from table.scene import load_scene
from vision.types import Frame, MarkerPose, MoveEvent, Observation

DATA = Path(__file__).resolve().parent.parent / "data" / "live"
ROOT = Path(__file__).resolve().parents[2]
DEMO_SCENE = ROOT / "table" / "data" / "demo.json"


class ScriptedPipeline:
    """Stands in for the vision pipeline: returns whatever observation the test sets."""

    def __init__(self) -> None:
        self.observation = Observation(0.0, True, {})
        self.calls = 0

    def process(self, frame: Frame) -> Observation:
        self.calls += 1
        if isinstance(self.observation, Exception):
            raise self.observation
        return self.observation

    def see(self, markers: dict[int, tuple[float, float]], moves: tuple[MoveEvent, ...] = (),
            calibrated: bool = True) -> None:
        poses = {m: MarkerPose(m, x, y, 0.0) for m, (x, y) in markers.items()}
        self.observation = Observation(0.0, calibrated, poses, moves)


def frame(index: int = 0) -> Frame:
    return Frame(np.zeros((8, 8), dtype=np.uint8), float(index), index)


def move(marker: int, start: tuple[float, float], end: tuple[float, float]) -> MoveEvent:
    return MoveEvent(marker, start, end, float(np.hypot(end[0] - start[0], end[1] - start[1])), 0.0)




def make_hardware(config, layout, factory):
    """The table's devices on gpiozero's MockFactory `factory` and a MockStrip."""
    return build_hardware(config.hardware, CONFIG_DIR / "pins-pi4.toml", len(layout), mock=True,
                          factory=factory)


def scripted_table(log_path: str | Path) -> TableController:
    """The demo scene's controller on mock hardware with a scripted pipeline, logging to `log_path` (the
    processes the kill -9 tests run)."""
    config = default_config()
    layout = load_layout(config.path("hardware", "led_layout"))
    hardware = build_hardware(config.hardware, config.path("hardware", "pin_map"), len(layout), mock=True)
    return TableController(config, hardware=hardware, layout=layout, log_=GameLog(log_path),
                           pipeline=ScriptedPipeline(), scene=load_scene(DEMO_SCENE))
