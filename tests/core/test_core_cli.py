"""The `smarttable` command from the outside: JSON on stdout, exit 2 and one line for mistakes. The
console script runs as a real process once; the rest call its `main` in-process (tests/inprocess.py)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.inprocess import smarttable

DATA = Path(__file__).parent.parent / "data" / "core"
CONSOLE_SCRIPT = Path(sys.executable).parent / "smarttable"


def test_the_console_script_answers_and_exits_2_on_a_mistake():
    version = subprocess.run([str(CONSOLE_SCRIPT), "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.startswith("smarttable ")
    wrong = subprocess.run([str(CONSOLE_SCRIPT), "query", "missing.json", "report"], capture_output=True,
                           text=True, timeout=60)
    assert (wrong.returncode, wrong.stdout) == (2, "")
    assert wrong.stderr == "smarttable query: missing.json: no such file\n"


def test_version():
    result = smarttable("--version")
    assert result.returncode == 0 and result.stdout.startswith("smarttable ")


@pytest.mark.parametrize("args, message", [
    (["query", "missing.json", "report"], "missing.json: no such file"),
    (["query", str(DATA / "full-scene.json"), "teleport"], "does not answer 'teleport'"),
])
def test_user_mistakes_exit_2_with_one_line(args, message):
    result = smarttable(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_malformed_scene_names_the_path(tmp_path):
    doc = json.loads((DATA / "full-scene.json").read_text())
    doc["models"][3]["unit"] = "u9"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    result = smarttable("query", str(path), "report")
    assert result.returncode == 2
    assert result.stderr.strip() == f"smarttable query: {path}: models[3].unit: no unit 'u9'"


def test_unknown_id_exits_2():
    result = smarttable("query", str(DATA / "full-scene.json"), "distance", "m1", "nobody")
    assert result.returncode == 2
    assert "nobody" in result.stderr and "Traceback" not in result.stderr


ROOT = Path(__file__).resolve().parents[2]


def test_help_lists_the_rule_systems_the_config_page_says_it_does():
    """docs/config.md sends a player to `smarttable --help` for the rule systems' names: every system with a
    rulings page is there by the name a scene and the config take."""
    assert "`smarttable --help` lists them" in (ROOT / "docs" / "config.md").read_text(encoding="utf-8")
    result = smarttable("--help")
    assert result.returncode == 0
    listed = result.stdout.split("rule systems", 1)[1]
    pages = sorted((ROOT / "docs" / "rules").glob("*.md"))
    assert len(pages) >= 4
    for page in pages:
        assert page.stem.replace("-", "_") in listed, page.name


def test_the_readme_says_what_doctor_exits_with(tmp_path):
    """The README once said every command exits 0; `doctor` exits 1 when it finds a problem."""
    config = tmp_path / "table.toml"
    config.write_text(f'[camera]\nsource = "replay"\npath = "{tmp_path / "no-frames"}"\n')
    result = smarttable("doctor", "--config", str(config))
    assert result.returncode == 1 and not json.loads(result.stdout)["ok"]
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "`doctor` exits 1 when it finds a problem" in readme
    assert "Every command prints one JSON document and exits 0;" not in readme
