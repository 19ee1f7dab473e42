"""Run by test_gamelog.py as a separate process: a controller on mock hardware playing a stream of
commands as fast as it can, printing the state after each; the test kills it with SIGKILL."""

from __future__ import annotations

import sys

from table.config import default_config
from table.hw import build_hardware
from table.live.controller import TableController
from table.live.gamelog import GameLog
from table.live.leds import load_layout
from table.scene import load_scene
from tests.live.live_fakes import DEMO_SCENE, ScriptedPipeline

STREAM = [("advance_phase", {}), ("select", {"id": "rifles-1"}), ("roll", {"kind": "dice", "count": 3}),
          ("target", {"id": "raiders"}), ("advance_phase", {}), ("undo", {}), ("confirm", {}),
          ("advance_phase", {})]


def main(log_path: str) -> None:
    config = default_config()
    layout = load_layout(config.path("hardware", "led_layout"))
    hardware = build_hardware(config.hardware, config.path("hardware", "pin_map"), len(layout), mock=True)
    controller = TableController(config, hardware=hardware, layout=layout, log_=GameLog(log_path),
                                 pipeline=ScriptedPipeline(), scene=load_scene(DEMO_SCENE))
    print("resumed" if controller.status["resumed"] else "started", describe(controller), flush=True)
    count = 0
    while True:
        name, params = STREAM[count % len(STREAM)]
        controller.command(name, **params)
        count += 1
        print(count, describe(controller), flush=True)


def describe(controller: TableController) -> str:
    """The game state in one line: turn, phase step, selection, target."""
    state = controller.state
    return f"{state.turn} {state.step} {state.selected} {state.target}"


if __name__ == "__main__":
    main(sys.argv[1])
