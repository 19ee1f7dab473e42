"""Camera sources and LED strips are found by name (entry points `smarttable.cameras` and
`smarttable.strips`, or `register`), loaded on first use: a toy camera and a toy strip from the tests
folder alone run the live table; an unknown name is one line naming the key and the known names."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from importlib.metadata import entry_points
from pathlib import Path

import cv2
import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from table import plugins
from table.cli import main
from table.config import CONFIG_DIR, load_config
from table.errors import ConfigError, HardwareError, SetupError
from table.hw import build_hardware, load_pin_map, pin_factory
from table.hw.strip import ColourCorrection
from table.live.controller import TableController
from table.live.gamelog import GameLog
from table.live.leds import load_layout
from table.live.run import camera_opener
from table.plugins import CAMERAS, STRIPS
from table.scene import load_scene
from tests.live.live_fakes import DEMO_SCENE
from tests.live.toys.still_camera import StillCamera
from tests.live.toys.toy_strip import TextStrip
from vision.sources import SyntheticSource
from vision.synthetic_scene import from_scene

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def toys():
    """The toys registered as an installed camera or strip would be found by its entry point."""
    CAMERAS.register("still", StillCamera)
    STRIPS.register("text", TextStrip)
    yield
    CAMERAS.unregister("still")
    STRIPS.unregister("text")


def write_config(where: Path, camera: str, strip: str, extra: str = "") -> Path:
    path = where / "table.toml"
    path.write_text(f'[camera]\nsource = "{camera}"\npath = "board.png"\nfps = 10\n{extra}'
                    f'[hardware]\nstrip = "{strip}"\npin_map = "{CONFIG_DIR}/pins-pi5.toml"\n'
                    f'led_layout = "{CONFIG_DIR}/leds/edge-strip.toml"\n[log]\npath = "game.sqlite3"\n')
    return path


def test_a_toy_camera_and_a_toy_strip_run_the_live_table(toys, tmp_path):
    scene = load_scene(DEMO_SCENE)
    config = load_config(write_config(tmp_path, "still", "text"))
    photo = SyntheticSource(config, from_scene(scene, config), realtime=False).read().image
    cv2.imwrite(str(tmp_path / "board.png"), photo)   # the still camera's board: the demo, rendered once
    layout = load_layout(config.path("hardware", "led_layout"))
    hardware = build_hardware(config.hardware, config.path("hardware", "pin_map"), len(layout), mock=False,
                              factory=MockFactory(pin_class=MockPWMPin))
    from vision.pipeline import VisionPipeline

    controller = TableController(config, hardware=hardware, layout=layout, log_=GameLog(tmp_path / "g.sqlite3"),
                                 pipeline=VisionPipeline(config), open_source=camera_opener(config), scene=scene)
    try:
        controller.start()
        deadline = time.monotonic() + 60
        while controller.snapshot().status.get("markers_seen") != 8 and time.monotonic() < deadline:
            time.sleep(0.2)
        status = controller.snapshot().status
        assert status["calibration"] == "ok" and status["markers_seen"] == 8, status
        controller.command("select", id="rifles-1")
        controller.settle()
        strip = controller.hw.strip
        assert type(strip) is TextStrip and strip.lines
        shown = strip.lines[-1].split()
        assert len(shown) == len(layout) and shown[layout.nearest((10.0, 40.0))] != "#000000"  # by rifles-1
        wire = strip.correction.apply(controller.snapshot().leds)
        assert shown == ["#" + bytes(led).hex() for led in wire]     # what the panel says is lit
    finally:
        controller.close()


@pytest.mark.parametrize("key, known", [("camera.source", "auto, opencv, picamera2, replay, synthetic"),
                                        ("hardware.strip", "mock, none, spi")])
def test_an_unknown_name_is_one_line_naming_the_key_and_the_known_names(tmp_path, capsys, key, known):
    config = write_config(tmp_path, "usb3" if key == "camera.source" else "auto",
                          "ws2801" if key == "hardware.strip" else "mock")
    for command in (["doctor"], ["log", "games"]):
        assert main([*command, "--config", str(config)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1
        assert err.startswith(f"smarttable {command[0]}: {config}: {key}: must be one of {known}, got ")


def test_a_name_missing_from_a_config_built_in_code_names_the_key_too():
    with pytest.raises(ConfigError, match=r"^camera.source: unknown camera source 'usb3' \(known: opencv, "
                                          r"picamera2, replay, synthetic\)$"):
        CAMERAS.load("usb3")


def test_choosing_the_mocks_imports_no_camera_or_strip_driver_it_does_not_use(tmp_path):
    """A separate process: the replay camera and the mock strip load neither picamera2's nor the SPI
    strip's module (nor picamera2, spidev, lgpio themselves)."""
    cv2.imwrite(str(tmp_path / "board.png"), SyntheticSource(load_config(), from_scene(
        load_scene(DEMO_SCENE), load_config()), realtime=False).read().image)
    config = write_config(tmp_path, "replay", "mock")
    code = ("import sys\n"
            "from table.config import load_config\n"
            "from table.hw import build_hardware\n"
            "from table.live.leds import load_layout\n"
            "from table.live.run import open_camera\n"
            f"config = load_config({str(config)!r})\n"
            "layout = load_layout(config.path('hardware', 'led_layout'))\n"
            "hw = build_hardware(config.hardware, config.path('hardware', 'pin_map'), len(layout), mock=True)\n"
            "source = open_camera(config)()\n"
            "assert source.read() is not None\n"
            "print(type(source).__name__, type(hw.strip).__name__)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('picamera2', 'spidev', 'lgpio', 'RPi')"
            " or m in ('vision.picamera', 'table.hw.spi')))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["ReplaySource MockStrip", "[]"]


def test_the_command_line_help_imports_no_vision_opencv_or_rule_system():
    code = ("import sys\n"
            "from table.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'cv2', 'vision', 'gpiozero', 'flask'}),"
            " sorted(m for m in sys.modules if m.startswith('table.rules')))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[] []"


def test_a_pin_map_names_any_of_gpiozeros_own_pin_factories(tmp_path):
    gpiozero_names = sorted({ep.name for ep in entry_points(group="gpiozero_pin_factories")} - {"mock"})
    assert "pigpio" in gpiozero_names      # gpiozero's, never in a list of ours
    text = (CONFIG_DIR / "pins-pi5.toml").read_text()
    assert 'factory = "lgpio"' in text
    path = tmp_path / "pins.toml"
    path.write_text(text.replace('factory = "lgpio"', 'factory = "pigpio"'))
    assert load_pin_map(path).factory == "pigpio"
    path.write_text(text.replace('factory = "lgpio"', 'factory = "wiringpi"'))
    with pytest.raises(ConfigError, match=rf"^{path}: factory: must be one of gpiozero's pin factories "
                                          rf"\({', '.join(gpiozero_names)}\), got 'wiringpi'$"):
        load_pin_map(path)


def test_a_pin_factory_that_cannot_start_off_a_pi_says_so_in_one_line():
    if Path("/dev/gpiochip0").exists():
        pytest.skip("a machine with GPIO: the factory may start")
    with pytest.raises(HardwareError, match="^GPIO: cannot start the native pin factory .*hardware.mock = true$"):
        pin_factory("native", mock=False)


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A package's entry points, as `pip install` would leave them: a dist-info folder on sys.path
    declaring the toy strip and a strip whose module is missing."""
    dist = tmp_path / "site" / "toy_strips-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-strips\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[smarttable.strips]\ntext = tests.live.toys.toy_strip:TextStrip\n"
                                           "ws2801 = toy_strips_not_installed:Ws2801\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    plugins._installed.cache_clear()
    yield
    STRIPS.unregister("text")
    plugins._installed.cache_clear()


def test_an_installed_strip_is_found_by_its_entry_point_and_a_broken_one_is_one_line(installed):
    assert {"text", "ws2801", "spi", "mock"} <= set(STRIPS.names())
    correction = ColourCorrection(3)
    strip = STRIPS.load("text").open(correction, load_pin_map(CONFIG_DIR / "pins-pi5.toml"))
    strip.show([(255, 0, 0), (0, 0, 0), (0, 0, 255)])
    assert type(strip) is TextStrip and len(strip.lines[-1].split()) == 3
    with pytest.raises(SetupError, match=r"^hardware.strip: the LED strip 'ws2801' \(toy_strips_not_installed:Ws2801\) "
                                         r"cannot load: No module named 'toy_strips_not_installed'$"):
        STRIPS.load("ws2801")
