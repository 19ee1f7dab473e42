"""Run by test_bookmarks.py as a separate process: a controller on mock hardware taking dispute bookmarks as
fast as it can, printing each one's id once the table has answered; the test kills it with SIGKILL."""

from __future__ import annotations

import sys

from table.config import default_config
from table.hw import build_hardware
from table.live.controller import TableController
from table.live.gamelog import GameLog
from table.live.leds import load_layout
from table.scene import load_scene
from tests.live.live_fakes import DEMO_SCENE, ScriptedPipeline


def main(log_path: str) -> None:
    config = default_config()
    layout = load_layout(config.path("hardware", "led_layout"))
    hardware = build_hardware(config.hardware, config.path("hardware", "pin_map"), len(layout), mock=True)
    controller = TableController(config, hardware=hardware, layout=layout, log_=GameLog(log_path),
                                 pipeline=ScriptedPipeline(), scene=load_scene(DEMO_SCENE))
    print("started", flush=True)
    pairs = [("rifles-1", "raiders-1"), ("gunner-1", "sniper-1")]
    count = 0
    while True:
        a, b = pairs[count % len(pairs)]
        taken = controller.take_bookmark(a, b)["bookmark"]
        count += 1
        print(taken["id"], flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
