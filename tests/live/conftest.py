"""Fixtures for the live table: gpiozero's MockFactory, a mock strip, a controller on a scripted
pipeline (the lowest layer: everything above it runs unchanged)."""

from __future__ import annotations

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

from table.config import default_config
from table.live.controller import TableController
from table.live.gamelog import GameLog
from table.live.leds import load_layout
from table.scene import load_scene
from tests.live.live_fakes import DEMO_SCENE, ScriptedPipeline, make_hardware


@pytest.fixture
def factory():
    """gpiozero's own mock pins (PWM-capable, for the RGB status LED), as gpiozero's tests do."""
    previous = Device.pin_factory
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = previous


@pytest.fixture
def config():
    return default_config()


@pytest.fixture
def layout(config):
    return load_layout(config.path("hardware", "led_layout"))


@pytest.fixture
def pipeline():
    return ScriptedPipeline()


@pytest.fixture
def scene():
    return load_scene(DEMO_SCENE)


@pytest.fixture
def make_controller(config, layout, factory, pipeline, scene, tmp_path):
    """Build controllers on mock hardware and a game log in tmp_path; closed after the test."""
    made = []

    def make(log_path=None, **kwargs):
        kwargs.setdefault("layout", layout)
        if "hardware" not in kwargs:
            kwargs["hardware"] = make_hardware(config, kwargs["layout"], factory)
        log = GameLog(log_path or tmp_path / "game.sqlite3")
        options = {"log_": log, "pipeline": pipeline, "scene": scene, "seed": 7, **kwargs}
        controller = TableController(options.pop("config", config), **options)
        made.append(controller)
        return controller

    yield make
    for controller in made:
        if not controller.hw.strip.closed:
            controller.close()
