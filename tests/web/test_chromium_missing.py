"""Where Debian's Chromium is missing, a browser test skips with the reason locally and fails under CI=true
(the pytest run is real: a probe test with the `browser` fixture, Chromium named at a path that is not there)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = '''from tests.web.browser import needs_chromium

pytestmark = needs_chromium


def test_opens_a_page(browser):
    assert browser.new_page().evaluate("1 + 1") == 2
'''


def run_probe(tmp_path: Path, ci: str) -> subprocess.CompletedProcess[str]:
    probe = tmp_path / "test_probe.py"
    probe.write_text(PROBE, encoding="utf-8")
    env = {**os.environ, "SMARTTABLE_CHROMIUM": str(tmp_path / "no-chromium"), "CI": ci,
           "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rsE", "-p", "no:randomly", "-p",
                           "no:cacheprovider", "-p", "tests.web.conftest", "--rootdir", str(tmp_path),
                           str(probe)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)


def test_a_missing_chromium_skips_with_the_reason_locally(tmp_path):
    done = run_probe(tmp_path, ci="")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped" in done.stdout and "chromium is not installed" in done.stdout


def test_a_missing_chromium_fails_under_ci(tmp_path):
    done = run_probe(tmp_path, ci="true")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 error" in done.stdout and "chromium is not installed" in done.stdout
    assert "skipped" not in done.stdout
