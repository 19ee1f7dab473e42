"""Test helpers for the live table: a scripted stand-in for the vision pipeline (the lowest
layer), frames, moves, paths."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from table.config import CONFIG_DIR
from table.hw import build_hardware
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
