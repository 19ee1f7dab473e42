"""A picamera2 that is installed but cannot load (apt's build against another numpy) is one line and
exit 2 from `run`, a camera finding from `doctor`; never a traceback or a restart loop. A fake
`picamera2` package on PYTHONPATH fails on import exactly as the real one does (picamera2 issues
1088, 1211), in a separate process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG_DIR = ROOT / "firmware_cfg"
NUMPY_MISMATCH = ("numpy.dtype size changed, may indicate binary incompatibility. "
                  "Expected 96 from C header, got 88 from PyObject")


def fake_picamera2(where: Path, body: str) -> Path:
    package = where / "fakes" / "picamera2"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(body)
    return package.parent


def write_config(where: Path, source: str) -> Path:
    config = where / "table.toml"
    config.write_text(f'[camera]\nsource = "{source}"\n[log]\npath = "game.sqlite3"\n'
                      f'[hardware]\npin_map = "{CONFIG_DIR}/pins-pi5.toml"\n'
                      f'led_layout = "{CONFIG_DIR}/leds/edge-strip.toml"\n')
    return config


def smarttable(fakes: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fakes), str(ROOT)])}
    return subprocess.run([sys.executable, "-m", "table.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def numpy_mismatch(tmp_path):
    return fake_picamera2(tmp_path, "import numpy\n"
                                    f"raise ValueError({NUMPY_MISMATCH!r})\n")


@pytest.mark.parametrize("source", ["picamera2", "auto"])
def test_run_exits_2_with_one_line_when_picamera2_cannot_load(tmp_path, numpy_mismatch, source):
    config = write_config(tmp_path, source)
    done = smarttable(numpy_mismatch, "run", "--config", str(config), "--no-demo-fallback", "--no-web",
                      "--duration", "5")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("smarttable run: picamera2 is installed but cannot load: ValueError: ")
    assert NUMPY_MISMATCH in lines[0] and "deploy/install-pi.sh" in lines[0]
    assert done.stdout == ""


def test_doctor_names_the_reason_as_its_camera_finding(tmp_path, numpy_mismatch):
    config = write_config(tmp_path, "auto")
    done = smarttable(numpy_mismatch, "doctor", "--config", str(config))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr    # not ok: exit 1
    report = json.loads(done.stdout)
    camera = [c for c in report["checks"] if c["check"] == "camera"]
    assert len(camera) == 1 and camera[0]["ok"] is False
    assert NUMPY_MISMATCH in camera[0]["detail"] and "install-pi.sh" in camera[0]["fix"]
    assert report["ok"] is False


def test_a_missing_dependency_inside_picamera2_is_a_setup_error(tmp_path):
    fakes = fake_picamera2(tmp_path, "import libcamera_that_is_not_here\n")
    config = write_config(tmp_path, "picamera2")
    done = smarttable(fakes, "run", "--config", str(config), "--no-web", "--duration", "5")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "No module named 'libcamera_that_is_not_here'" in done.stderr


def test_picamera2_absent_is_still_a_missing_camera_and_auto_moves_on(tmp_path):
    """No picamera2 at all (a laptop): `auto` tries the USB camera and names both reasons; with no
    fallback `run` keeps retrying (the service's job), here cut short by --duration."""
    fakes = tmp_path / "empty"
    fakes.mkdir()
    code = ("import sys\n"
            "sys.modules['picamera2'] = None\n"  # an import of it raises ModuleNotFoundError
            "from table.config import from_document\n"
            "from table.errors import HardwareError\n"
            "from vision.sources import open_source\n"
            "cfg = from_document({'camera': {'source': 'auto', 'index': 9}}, 't')\n"
            "try:\n    open_source(cfg)\nexcept HardwareError as exc:\n    print(exc)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("no camera found: picamera2 is not available")
    assert "camera 9: cannot open" in done.stdout


def test_a_camera_held_by_the_running_service_says_how_to_free_it(tmp_path):
    """libcamera lets one process hold a camera: doctor or calibrate-lens beside the running service
    get picamera2's "Device or resource busy", and the finding says to stop the service."""
    fakes = fake_picamera2(tmp_path, "class Picamera2:\n"
                                     "    def __init__(self):\n"
                                     "        raise RuntimeError('Failed to acquire camera: Device or resource busy')\n")
    config = write_config(tmp_path, "picamera2")
    done = smarttable(fakes, "doctor", "--config", str(config))
    camera = next(c for c in json.loads(done.stdout)["checks"] if c["check"] == "camera")
    assert camera["ok"] is False and "in use by another program" in camera["detail"]
    assert "sudo systemctl stop smarttable" in camera["detail"]
