"""A regular (non-editable) install runs the demo table: `pip install .` of a clean copy of the repository
into a fresh virtual environment, then its `smarttable` console script runs `smarttable run --demo` (no
camera, mock hardware) and the panel answers with the demo's models; the default config, pin maps, LED
layouts, the demo scene, the panel's files and each rule system's own files are package data.

No network: the fresh environment sees the test environment's third-party packages (and pip's build
backend) through a .pth file naming its site-packages, and pip installs with --no-deps
--no-build-isolation. A .pth line only adds a folder to sys.path (the .pth files in that folder are not
read), so the working copy's editable install cannot answer for a missing file."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sysconfig
import time
import urllib.request
import venv
from pathlib import Path

import pytest

from tests.ports import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The fresh environment's folder, with smarttable installed in it from a clean copy."""
    folder = tmp_path_factory.mktemp("install")
    source = folder / "source"   # a clean copy: a stale build/ of the working copy must not fill the install
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".*", "build", "*.egg-info", "__pycache__", "tests", "var", "test-artifacts"))
    env = folder / "venv"
    venv.create(env, with_pip=False)
    python = env / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    outside = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "test-deps.pth").write_text("\n".join(sorted(outside)) + "\n", encoding="utf-8")
    done = subprocess.run([str(python), "-m", "pip", "--disable-pip-version-check", "-q", "install", "--no-deps",
                           "--no-build-isolation", str(source)], cwd=folder, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (env / "pip-stderr.txt").write_text(done.stderr, encoding="utf-8")
    return env


def test_the_install_gives_no_build_warnings(installed):
    """setuptools warned three times an install that `project.license` as a table is deprecated."""
    said = (installed / "pip-stderr.txt").read_text(encoding="utf-8")
    assert "deprecated" not in said.lower() and "Warning" not in said, said


def site_of(env: Path) -> Path:
    return next((env / "lib").glob("python3*/site-packages"))


def test_the_install_holds_the_tables_files_and_not_the_working_copy(installed):
    site = site_of(installed)
    for name in ("firmware_cfg/table.toml", "firmware_cfg/pins-pi4.toml", "firmware_cfg/leds/edge-strip.toml",
                 "table/data/demo.json", "web_ui/templates/index.html", "web_ui/static/js/app.js",
                 "table/rules/syniad/panel.js"):
        assert (site / name).is_file(), name
    where = subprocess.run([str(installed / "bin" / "python"), "-c", "import table, web_ui; "
                            "print(table.__file__); print(web_ui.__file__)"], cwd=installed,
                           capture_output=True, text=True, check=True).stdout.split()
    assert all(Path(w).is_relative_to(site) for w in where), where
    probe = subprocess.run([str(installed / "bin" / "smarttable"), "query", str(site / "table/data/demo.json"),
                            "distance", "rifles-1", "raiders-1"], cwd=installed, capture_output=True, text=True,
                           timeout=60)
    assert probe.returncode == 0, probe.stderr
    assert json.loads(probe.stdout)["method"] == "centre"


def test_the_console_script_runs_the_demo_table_and_stops_cleanly(installed):
    demo = json.loads((ROOT / "table" / "data" / "demo.json").read_text(encoding="utf-8"))
    port = free_port()
    table = subprocess.Popen([str(installed / "bin" / "smarttable"), "run", "--demo", "--host", "127.0.0.1",
                              "--port", str(port), "--log", str(installed / "game.sqlite3")],
                             cwd=installed, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        state = None
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline and table.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=2) as reply:
                    state = json.load(reply)
                    break
            except OSError:
                time.sleep(0.3)
        assert state is not None, table.communicate()[1] if table.poll() is not None else "no panel"
        assert state["ruleset"] == demo["ruleset"]
        assert sorted(m["id"] for m in state["scene"]["models"]) == sorted(m["id"] for m in demo["models"])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as page:
            assert b"app.js" in page.read()
    finally:
        table.send_signal(signal.SIGTERM)
        out, err = table.communicate(timeout=30)
    assert table.returncode == 0, err
    assert json.loads(out)["stopped"] is True and json.loads(out)["demo"] is True
