"""A regular (non-editable) install runs the demo table: the default config, pin maps, LED layouts,
the demo scene, the panel's files and each rule system's own files are package data.

The wheel is built from the repository, installed into a folder of its own, and run with `python -S`
(no site hooks, so the editable install of the working copy cannot answer for a missing file); the
third-party packages come from the test's own environment."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import urllib.request
from pathlib import Path

import pytest

from tests.ports import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("install")
    source = folder / "source"   # a clean copy: a stale build/ of the working copy must not fill the wheel
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".*", "build", "*.egg-info", "__pycache__", "tests", "var", "test-artifacts"))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", str(folder / "wheel"), str(source)],
                   check=True, cwd=folder, capture_output=True)
    wheel = next((folder / "wheel").glob("smarttable-*.whl"))
    subprocess.run([*pip, "install", "--no-deps", "--target", str(folder / "site"), str(wheel)],
                   check=True, cwd=folder, capture_output=True)
    return folder


def run(installed: Path, *args: str, **kwargs) -> subprocess.Popen:
    paths = [str(installed / "site"), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    return subprocess.Popen([sys.executable, "-S", "-c", "import sys; from table.cli import main; "
                             "sys.exit(main(sys.argv[1:]))", *args], cwd=installed, env=env, **kwargs)


def test_the_install_holds_the_tables_files_and_not_the_working_copy(installed):
    site = installed / "site"
    for name in ("firmware_cfg/table.toml", "firmware_cfg/pins-pi4.toml", "firmware_cfg/leds/edge-strip.toml",
                 "table/data/demo.json", "web_ui/templates/index.html", "web_ui/static/js/app.js",
                 "table/rules/syniad/panel.js"):
        assert (site / name).is_file(), name
    probe = run(installed, "query", str(site / "table/data/demo.json"), "distance", "rifles-1", "raiders-1",
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = probe.communicate(timeout=60)
    assert probe.returncode == 0, err
    assert json.loads(out)["method"] == "centre"


def test_a_regular_install_runs_the_demo_table(installed):
    port = free_port()
    table = run(installed, "run", "--demo", "--host", "127.0.0.1", "--port", str(port),
                "--log", str(installed / "game.sqlite3"), "--duration", "60",
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        state = None
        deadline = time.monotonic() + 50
        while time.monotonic() < deadline and table.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=2) as reply:
                    state = json.load(reply)
                    break
            except OSError:
                time.sleep(0.3)
        assert state is not None, table.stderr.read() if table.poll() is not None else "no panel"
        assert state["ruleset"] == "synaptik" and len(state["scene"]["models"]) == 8
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as page:
            assert b"app.js" in page.read()
    finally:
        table.terminate()
        table.wait(timeout=30)
