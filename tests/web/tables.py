"""The real table controller in demo form (demo scene, mock hardware, a game log in a temp folder),
without a camera loop, so tests drive it by commands as the panel and the buttons do."""

from __future__ import annotations

from pathlib import Path

from table.config import load_config
from table.hw import build_hardware
from table.live.controller import TableController
from table.live.gamelog import GameLog
from table.live.leds import load_layout
from table.live.run import DEMO_SCENE
from table.scene import load_scene


def demo_controller(folder: Path, seed: int = 7, scene: Path = DEMO_SCENE, pipeline: object = None,
                    led_layout: Path | None = None) -> TableController:
    config = load_config()
    layout = load_layout(led_layout or config.path("hardware", "led_layout"))
    hardware = build_hardware(config.hardware, config.path("hardware", "pin_map"), len(layout), mock=True)
    return TableController(config, hardware=hardware, layout=layout, log_=GameLog(folder / "game.sqlite3"),
                           pipeline=pipeline, scene=load_scene(scene), seed=seed)
