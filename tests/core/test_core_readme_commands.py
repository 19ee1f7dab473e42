"""The README's Commands block runs as written after the quick start (issue 23): each line, its
`smarttable` being the venv's console script (`.venv/bin/smarttable`), runs as a process in a temporary
copy of the repository's documentation examples, exits 0 (`doctor`: 0 or 1, as the README says) and
prints one JSON document. The lines that serve until stopped or need a broker or a bookmark made on the
panel are named below with the test that runs them; the list must match the README, so a new line is
either run here or named."""

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONSOLE_SCRIPT = Path(sys.executable).parent / "smarttable"
ELSEWHERE = {
    "run": "serves until stopped: tests/live/test_run_scene.py, tests/live/test_cli.py and "
           "tests/web/test_simulated_tables.py run it",
    "log": "reads the table's own log: tests/live/test_run_scene.py runs it after run --demo",
    "bookmarks": "needs a bookmark made on the panel: tests/web/test_bookmarks*.py",
    "game": "asks a running table: tests/web/test_game_command.py runs it against run --demo",
    "hub": "needs an MQTT broker: tests/club",
    "camera": "needs a table on an MQTT broker: tests/club/test_club_remote_camera.py",
}


def readme_commands() -> list[list[str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## Commands", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [re.sub(r"\s+#.*$", "", line).strip() for line in block.splitlines()]
    return [shlex.split(line) for line in lines if line]


COMMANDS = readme_commands()


def test_every_line_is_run_here_or_named():
    assert all(c[0] == "smarttable" for c in COMMANDS)
    assert {c[1] for c in COMMANDS if c[1] in ELSEWHERE} == set(ELSEWHERE)
    assert len([c for c in COMMANDS if c[1] not in ELSEWHERE]) >= 10


@pytest.mark.parametrize("command", [c for c in COMMANDS if c[1] not in ELSEWHERE], ids=" ".join)
def test_a_readme_command_runs_as_written(command, tmp_path):
    shutil.copytree(ROOT / "docs" / "examples", tmp_path / "docs" / "examples")
    done = subprocess.run([str(CONSOLE_SCRIPT), *command[1:]], cwd=tmp_path, capture_output=True,
                          text=True, timeout=180)
    assert done.returncode in ((0, 1) if command[1] == "doctor" else (0,)), done.stderr
    assert json.loads(done.stdout), done.stdout[:200]
