"""A short game played through the real controller, where the test knows what stood where at each step:
the camera (the lowest layer) sees the demo scene's markers, a player selects and targets, measures,
moves a raider too far (an overmove warning), and the phase ends (the warning cleared)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tests.web.tables import demo_controller
from vision.types import Frame, MarkerPose, MoveEvent, Observation

SIGMA = 0.02                    # inches: how sure the camera is of each marker (1 sd)
RAIDER, RAIDER_MARKER = "raiders-1", 20
START, MOVED = (12.0, 8.0), (12.0, 20.0)      # the raider, before and after its move (7" allowance)
MOVED_HEADING = 0.0                            # it faces +x once moved (90 in the scene)
RIFLE = (10.0, 40.0)                           # rifles-1, which never moves


class Camera:
    """What the camera sees is whatever the test puts on the board; settled moves for those that moved."""

    def __init__(self) -> None:
        self.observation = Observation(0.0, True, {})
        self.seen: dict[int, tuple[float, float]] = {}

    def process(self, frame: Frame) -> Observation:
        return self.observation

    def see(self, markers: dict[int, tuple[float, float, float]]) -> None:
        poses = {m: MarkerPose(m, x, y, h, sigma=SIGMA, heading_sigma=1.0) for m, (x, y, h) in markers.items()}
        moves = tuple(MoveEvent(m, self.seen[m], (x, y), math.dist(self.seen[m], (x, y)), 0.0)
                      for m, (x, y, _) in markers.items() if m in self.seen and self.seen[m] != (x, y))
        self.seen = {m: (x, y) for m, (x, y, _) in markers.items()}
        self.observation = Observation(0.0, True, poses, moves)


@dataclass
class Played:
    controller: object
    camera: Camera
    markers: dict[int, tuple[float, float, float]]
    frames: int = 0

    def show(self, markers: dict[int, tuple[float, float, float]]) -> None:
        self.camera.see(markers)
        self.frames += 1
        self.controller.process(Frame(np.zeros((8, 8), np.uint8), float(self.frames), self.frames))


def play(folder: Path) -> Played:
    """Play the game; the controller is left running (close it)."""
    camera = Camera()
    controller = demo_controller(folder, pipeline=camera)
    markers = {m.marker: (*m.position, m.heading) for m in controller.state.scene.models if m.marker is not None}
    game = Played(controller, camera, markers)
    game.show(markers)                                            # the board as set up: no moves
    controller.command("select", id="rifles-1")
    controller.command("target", id=RAIDER)
    controller.command("measure", question="distance", args=["rifles-1", RAIDER])
    game.show({**markers, RAIDER_MARKER: (*MOVED, MOVED_HEADING)})  # 12" on a 7" allowance: overmove
    controller.command("advance_phase")                           # the activation is over: cleared
    return game
