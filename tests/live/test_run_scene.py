"""`smarttable run --scene FILE` on a log that already holds a game starts that scene as a new game; it
never resumes the old one in its place, and a scene it cannot read exits 2 with one line, the log as it
was (issue 23: `run --demo --scene tests/data/hex_skirmish/battle.json` used to resume the old Synaptik
game). The real command, as a process."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from table.config import CONFIG_DIR
from tests.live.live_fakes import ROOT

SMARTTABLE = [sys.executable, "-m", "table.cli"]
BATTLE = ROOT / "tests" / "data" / "hex_skirmish" / "battle.json"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SMARTTABLE, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def games(log: Path) -> list[dict]:
    done = run("log", "games", "--log", str(log))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["games"]


def test_a_scene_on_an_existing_log_starts_a_new_game_and_a_bad_one_says_why(tmp_path):
    log = tmp_path / "game.sqlite3"
    table = ("run", "--demo", "--no-web", "--duration", "1", "--log", str(log))
    first = run(*table)
    assert first.returncode == 0, first.stderr
    assert [g["ruleset"] for g in games(log)] == ["synaptik"]       # the demo's own game

    chosen = run(*table, "--scene", str(BATTLE))
    assert chosen.returncode == 0, chosen.stderr
    assert json.loads(chosen.stdout)["game"] == 2
    assert [(g["game"], g["ruleset"]) for g in games(log)] == [(1, "synaptik"), (2, "hex_skirmish")]

    again = run(*table)                        # no --scene: the log's current game goes on
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["game"] == 2 and len(games(log)) == 2

    broken = tmp_path / "broken.json"
    broken.write_text(BATTLE.read_text(encoding="utf-8").replace('"units"', '"unit"', 1), encoding="utf-8")
    refused = run(*table, "--scene", str(broken))
    assert refused.returncode == 2 and refused.stdout == ""
    assert len(refused.stderr.splitlines()) == 1 and str(broken) in refused.stderr, refused.stderr
    assert len(games(log)) == 2


def test_log_export_finds_the_demos_log_without_being_told(tmp_path):
    """`run --demo` writes `<[log] path>-demo`; `log export` and `log games` with no --log read it when
    the table's own log is not there (README's Commands: `smarttable log export --out game.jsonl`)."""
    config = tmp_path / "table.toml"
    config.write_text(f'[log]\npath = "game.sqlite3"\n[hardware]\npin_map = "{CONFIG_DIR}/pins-pi4.toml"\n'
                      f'led_layout = "{CONFIG_DIR}/leds/edge-strip.toml"\n', encoding="utf-8")
    missing = run("log", "export", "--config", str(config))
    assert missing.returncode == 2 and missing.stderr.strip().endswith("game.sqlite3: no game log here")
    demo = run("run", "--demo", "--no-web", "--duration", "1", "--config", str(config))
    assert demo.returncode == 0, demo.stderr
    listed = run("log", "games", "--config", str(config))
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["log"] == str(tmp_path / "game-demo.sqlite3")
    out = tmp_path / "game.jsonl"
    exported = run("log", "export", "--config", str(config), "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    first = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert (first["kind"], first["scene"]["ruleset"]) == ("game_start", "synaptik")


def test_a_second_table_on_the_same_log_refuses_with_one_line(tmp_path):
    """Two real tables on one game log: the second exits 2 with one line naming the log and the first
    table's process, and writes nothing; the first goes on, and once it has stopped the log is free."""
    log = tmp_path / "game.sqlite3"
    table = ("run", "--demo", "--no-web", "--log", str(log))
    first = subprocess.Popen([*SMARTTABLE, *table, "--duration", "60"], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        owner = log.with_name(log.name + ".owner")
        deadline = time.monotonic() + 60
        while not (owner.exists() and owner.read_text().strip() == str(first.pid) and log.exists()):
            assert first.poll() is None and time.monotonic() < deadline, first.stderr
            time.sleep(0.2)
        while not games(log):   # its game is on disk (a table stopped while still starting writes none)
            assert first.poll() is None and time.monotonic() < deadline, first.stderr
        second = run(*table, "--duration", "1")
        assert (second.returncode, second.stdout) == (2, "")
        assert second.stderr.splitlines() == [
            f"smarttable run: {log}: another table is running on this game log (process {first.pid}): "
            "stop it first, or give this one its own --log FILE"], second.stderr
        assert first.poll() is None
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=60)
    assert [g["game"] for g in games(log)] == [1]
    after = run(*table, "--duration", "1")
    assert after.returncode == 0, after.stderr
