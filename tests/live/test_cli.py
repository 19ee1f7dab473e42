"""`smarttable run`, `doctor` and their errors, from the outside (separate processes)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import cv2
import pytest

from table.cli import main as cli_main
from table.config import CONFIG_DIR, default_config
from table.scene import load_scene
from tests.inprocess import smarttable
from tests.live.live_fakes import DEMO_SCENE, ROOT
from tests.ports import free_port
from vision.sources import SyntheticSource
from vision.synthetic_scene import from_scene

SMARTTABLE = [sys.executable, "-m", "table.cli"]


def test_run_demo_serves_the_panel_and_stops_cleanly_on_sigterm(tmp_path):
    port = free_port()
    config = tmp_path / "table.toml"          # the panel keeps its files beside the log: here, in tmp_path
    config.write_text(f'[web]\npin = "246813"\n[log]\npath = "game.sqlite3"\n'
                      f'[hardware]\npin_map = "{CONFIG_DIR}/pins-pi4.toml"\n'
                      f'led_layout = "{CONFIG_DIR}/leds/edge-strip.toml"\n')
    table = subprocess.Popen([*SMARTTABLE, "run", "--demo", "--config", str(config), "--host", "127.0.0.1",
                              "--port", str(port)],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        state = None
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=2) as reply:
                    state = json.load(reply)
                if state["status"].get("calibration") == "ok":
                    break
            except OSError:
                pass
            time.sleep(0.5)
        assert state is not None, "the panel never answered"
        assert state["status"]["camera"] == "ok" and state["status"]["calibration"] == "ok"
        assert state["status"]["hardware"]["mock"] is True and len(state["leds"]) == 292
    finally:
        table.send_signal(signal.SIGTERM)
        out, err = table.communicate(timeout=30)
    assert table.returncode == 0, err
    result = json.loads(out[out.index("{"):])
    assert result["stopped"] is True and result["demo"] is True and result["frames"] > 0
    assert result["leds_lit"] is False                        # every LED turned off on the way out
    assert (tmp_path / "game-demo.sqlite3").exists()          # the demo's own log, beside the real one


def test_run_without_a_camera_falls_back_to_the_demo(tmp_path):
    config = tmp_path / "table.toml"
    config.write_text(f'[camera]\nsource = "opencv"\nindex = 9\n'
                      f'[hardware]\npin_map = "{CONFIG_DIR}/pins-pi4.toml"\n'
                      f'led_layout = "{CONFIG_DIR}/leds/edge-strip.toml"\n')
    done = subprocess.run([*SMARTTABLE, "run", "--config", str(config), "--no-web", "--duration", "2",
                           "--log", str(tmp_path / "g.sqlite3")], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "running the simulated table" in done.stderr
    assert json.loads(done.stdout)["demo"] is True


def test_real_table_without_a_camera_keeps_its_hardware_and_retries(tmp_path):
    config = tmp_path / "table.toml"
    config.write_text(f'[camera]\nsource = "opencv"\nindex = 9\n'
                      f'[hardware]\nmock = true\npin_map = "{CONFIG_DIR}/pins-pi4.toml"\n'
                      f'led_layout = "{CONFIG_DIR}/leds/edge-strip.toml"\n')
    command = [*SMARTTABLE, "run", "--config", str(config), "--no-web", "--no-demo-fallback",
               "--scene", str(DEMO_SCENE), "--duration", "2", "--log", str(tmp_path / "g.sqlite3")]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["demo"] is False and result["camera"] == "lost" and result["frames"] == 0


def test_run_on_a_laptop_without_gpio_says_what_to_do(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_text(f'[camera]\nsource = "opencv"\nindex = 9\n'
                      f'[hardware]\npin_map = "{CONFIG_DIR}/pins-pi5.toml"\n'
                      f'led_layout = "{CONFIG_DIR}/leds/edge-strip.toml"\n')
    if Path("/dev/gpiochip0").exists():
        pytest.skip("a Raspberry Pi: the real pin factory starts here")
    assert cli_main(["run", "--config", str(config), "--no-demo-fallback", "--log",
                     str(tmp_path / "g.sqlite3")]) == 2
    assert "use --demo or hardware.mock = true" in capsys.readouterr().err


def test_run_with_a_bad_config_names_the_key(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_text('[hardware]\nbrightness = 3\n')
    assert cli_main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"smarttable run: {config}: hardware.brightness: must be between 0 and 1, got 3"]


def test_doctor_finds_the_board_in_recorded_frames(tmp_path, capsys):
    """A camera replaying rendered frames of the demo board: markers seen and calibration found."""
    frames = tmp_path / "frames"
    frames.mkdir()
    camera = SyntheticSource(default_config(), from_scene(load_scene(DEMO_SCENE), default_config()),
                             realtime=False)
    for i in range(4):
        cv2.imwrite(str(frames / f"{i:03d}.png"), camera.read().image)
    config = tmp_path / "table.toml"
    config.write_text(f'[camera]\nsource = "replay"\npath = "frames"\n[log]\npath = "game.sqlite3"\n'
                      f'[hardware]\npin_map = "{CONFIG_DIR}/pins-pi5.toml"\n'
                      f'led_layout = "{CONFIG_DIR}/leds/under-board-grid.toml"\n')
    code = cli_main(["doctor", "--config", str(config)])
    report = json.loads(capsys.readouterr().out)
    assert code == (0 if report["ok"] else 1)      # 1 whenever it reports a problem
    checks = {c["check"]: c for c in report["checks"]}
    assert checks["camera"]["ok"] and checks["calibration"]["ok"]
    assert checks["markers in view"]["detail"] == "model markers seen: [10, 11, 12, 13, 20, 21, 22, 23]"
    # no intrinsics in the config: the lens as the board shows it, from the 8 models and 16 corners
    assert checks["lens"]["ok"] and checks["lens"]["detail"].startswith(
        "estimated from the board: 8 model markers and 16 corner-marker corners, residual ")
    assert checks["LED layout"]["detail"].startswith("under-board-grid: 256 LEDs")
    assert checks["focus"]["ok"], checks["focus"]  # square markers: the blur is reported, nothing to fail
    assert checks["focus"]["detail"].startswith("edges blurred by ")
    if not Path("/dev/spidev0.0").exists():
        assert not checks["SPI"]["ok"] and "raspi-config" in checks["SPI"]["fix"]
        assert report["ok"] is False and any(f.startswith("SPI:") for f in report["fix"])


def test_doctor_says_when_the_log_cannot_be_written(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_text('[log]\npath = "/proc/smarttable/game.sqlite3"\n'
                      '[camera]\nsource = "replay"\npath = "x"\n')
    assert cli_main(["doctor", "--config", str(config)]) == 1
    checks = {c["check"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert not checks["game log"]["ok"] and "writable" in checks["game log"]["fix"]


def test_a_port_in_use_or_out_of_range_is_one_line_before_anything_is_printed(tmp_path):
    config = tmp_path / "table.toml"
    config.write_text('[log]\npath = "game.sqlite3"\n')
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for given, words in ((str(port), "is another table running?"), ("99999", "between 1 and 65535")):
            done = smarttable("run", "--demo", "--config", str(config), "--host", "127.0.0.1", "--port", given)
            assert done.returncode == 2 and done.stdout == ""
            lines = done.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("smarttable run: web.port: ") and words in lines[0]


def test_a_reader_that_stops_early_ends_the_command_without_a_traceback():
    """`smarttable log replay game.jsonl | head`: the reader has gone before the answer is written (its end
    of the pipe closed first, as `head` closes it after ten lines). The command stops quietly with 141."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([*SMARTTABLE, "log", "replay", str(ROOT / "tests/data/live/old_logs/synaptik.jsonl")],
                              cwd=ROOT, stdout=write, stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write)
    assert done.stderr == "" and done.returncode == 141
