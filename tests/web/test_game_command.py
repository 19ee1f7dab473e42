"""`smarttable game` against a real running table (`smarttable run --demo` in its own process): list its
games, start new ones (an empty board of a rule system, a scene file from docs/examples/), end the one on
the table and resume an earlier one; what the table then plays is read from its own API. A refusal (a
wrong PIN, an unknown rule system or scenario) and no table at all are one line and exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request

from tests.ports import free_port
from tests.web.table_process import PIN, ROOT, running_table

EXAMPLES = ROOT / "docs" / "examples"


def game(table_url: str, *args: str, pin: str = PIN) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "table.cli", "game", *args, "--url", table_url, "--pin", pin],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def answer(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def one_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2 and done.stdout == "", (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def started(listing: dict) -> tuple:
    """The table's games as `game list` gives them, but their event counts: the demo game on the table
    goes on logging while the command runs."""
    return listing["current"], [(g["game"], g["ruleset"], g["started"], g["ended"]) for g in listing["games"]]


def test_games_from_the_command_line_on_a_running_table(tmp_path):
    with running_table(tmp_path) as table:
        url = table.url
        first = answer(game(url, "list"))
        assert first["current"] == 1 and [g["ruleset"] for g in first["games"]] == ["synaptik"]

        hexes = answer(game(url, "new", "--ruleset", "hex_skirmish", "--players", "red,blue"))["result"]
        with urllib.request.urlopen(url + "/api/state", timeout=30) as reply:
            state = json.load(reply)
        assert hexes["game"] == 2 and state["ruleset"] == "hex_skirmish" and state["scene"]["models"] == []
        assert hexes["players"] == ["red", "blue"]

        scene = json.loads((EXAMPLES / "syniad.scene.json").read_text(encoding="utf-8"))
        syniad = answer(game(url, "new", "--scene", str(EXAMPLES / "syniad.scene.json")))["result"]
        assert syniad["ruleset"] == "syniad" and syniad["units"] == [u["id"] for u in scene["units"]]

        army = json.loads((EXAMPLES / "synaptik.army.json").read_text(encoding="utf-8"))
        board = json.loads((EXAMPLES / "synaptik.scenario.json").read_text(encoding="utf-8"))
        mine = answer(game(url, "new", "--ruleset", "synaptik", "--scenario", str(EXAMPLES / "synaptik.scenario.json"),
                           "--army", f"{EXAMPLES / 'synaptik.army.json'}:A"))["result"]
        with urllib.request.urlopen(url + "/api/state", timeout=30) as reply:
            state = json.load(reply)
        assert mine["game"] == 4 and mine["units"] == [u["id"] for u in army["units"]]
        assert [t["id"] for t in state["scene"]["terrain"]] == [t["id"] for t in board["terrain"]]
        assert [u["player"] for u in state["scene"]["units"]] == ["A"]

        assert answer(game(url, "resume", "3"))["result"]["ruleset"] == "syniad"
        assert answer(game(url, "end", "--reason", "time called"))["result"] == {"game": 3, "over": True}
        assert answer(game(url, "resume", "1"))["result"]["ruleset"] == "synaptik"
        listed = answer(game(url, "list"))
        assert listed["current"] == 1
        rulesets = {g["game"]: (g["ruleset"], g["ended"] is not None) for g in listed["games"]}
        assert rulesets[1] == ("synaptik", False) and rulesets[2][0] == "hex_skirmish"
        assert rulesets[3] == ("syniad", True)

        before = answer(game(url, "list"))
        wrong_pin = one_line(game(url, "new", pin="000000"))
        unknown = one_line(game(url, "new", "--ruleset", "chess"))
        missing = one_line(game(url, "new", "--ruleset", "synaptik", "--scenario", "no-such-board"))
        assert started(answer(game(url, "list"))) == started(before)  # nothing started or ended
    assert "403" in wrong_pin and "X-Table-PIN" in wrong_pin
    assert "ruleset" in unknown and "synaptik" in unknown           # what it may be
    assert "no-such-board" in missing


def test_no_table_is_one_line_naming_the_address():
    url = f"http://127.0.0.1:{free_port()}"
    line = one_line(game(url, "list"))
    assert line.startswith(f"smarttable game: no table answers at {url}") and "smarttable run" in line


def test_a_file_that_is_not_json_is_named(tmp_path):
    bad = tmp_path / "army.json"
    bad.write_text("{units: [", encoding="utf-8")
    line = one_line(game(f"http://127.0.0.1:{free_port()}", "new", "--army", f"{bad}:A"))
    assert str(bad) in line and "--army" in line
