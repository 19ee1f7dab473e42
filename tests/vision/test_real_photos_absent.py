"""Where ../shared/photos is absent, the real-photo tests skip with the reason, and fail under CI=true:
test_real_photos.py run from a copy of the repository with no ../shared beside it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REASON = "the shared photos sit beside the repository"


def run_without_photos(tmp_path: Path, ci: str) -> subprocess.CompletedProcess[str]:
    repo = tmp_path / "repo"  # tmp_path/shared does not exist
    (repo / "tests" / "vision").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "vision" / "test_real_photos.py", repo / "tests" / "vision")
    shutil.copytree(ROOT / "tests" / "data" / "vision", repo / "tests" / "data" / "vision")
    env = {**os.environ, "CI": ci, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rsfE", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "tests/vision/test_real_photos.py"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("ci", ["", "true"])
def test_the_real_photo_tests_skip_without_the_photos_and_fail_under_ci(tmp_path, ci):
    run = run_without_photos(tmp_path, ci)
    out = run.stdout + run.stderr
    assert " passed" not in out, out
    if ci:
        assert run.returncode == 1 and "shared photos are missing" in out, out
        assert " skipped" not in out, out
    else:
        assert run.returncode == 0 and REASON in out and " skipped" in out, out
