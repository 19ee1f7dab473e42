"""The game log: every event in SQLite (WAL); resume after a restart or a SIGKILL; export and replay."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from table.cli import main as cli_main
from table.errors import ConfigError
from table.live.gamelog import GameLog, read_jsonl
from table.live.session import replay
from tests.live.live_fakes import ROOT, frame, make_hardware, move


def test_log_is_write_ahead_and_durable(tmp_path):
    log = GameLog(tmp_path / "g.sqlite3")
    game = log.start_game("synaptik", {"kind": "game_start", "scene": {}})
    seq = log.append(game, {"kind": "roll", "result": {"dice": [3, 5]}})
    db = sqlite3.connect(tmp_path / "g.sqlite3")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("SELECT kind, data FROM events WHERE seq = ?", (seq,)).fetchone() == \
        ("roll", '{"result":{"dice":[3,5]}}')
    assert log.current_game() == game and log.integrity() == "ok"
    second = log.start_game("syniad", {"kind": "game_start", "scene": {}})
    assert log.current_game() == second and [g["ended"] is not None for g in log.games()] == [True, False]
    log.close()


def test_every_kind_of_event_is_logged(make_controller, pipeline):
    c = make_controller()
    pipeline.see({23: (38.0, 15.0)}, (move(23, (38.0, 6.0), (38.0, 15.0)),))
    c.process(frame(1))
    c.command("select", id="rifles-1")
    c.command("measure", question="los", args=["rifles-1", "sniper-1"])
    c.command("roll", kind="dice", count=2, sides=6)
    c.command("acknowledge", id="overmove:sniper-1:1")
    c.command("advance_phase")
    events = c.gamelog.events(c.game)
    kinds = [e["kind"] for e in events]
    # the new phase starts with no activations: the overmove warning clears (logged too)
    assert kinds == ["game_start", "move", "warning", "select", "measure", "roll", "acknowledge", "phase",
                     "warning_cleared"]
    moved = events[1]
    assert (moved["model"], moved["from"], moved["to"], moved["distance"]) == ("sniper-1", [38.0, 6.0],
                                                                              [38.0, 15.0], 9.0)
    assert events[4]["answer"]["visible"] is True
    assert events[5]["result"]["total"] == sum(events[5]["result"]["dice"])


def untracked(scene: dict) -> list[dict]:
    """The scene's models without the camera's tracking state (tracked, occluded, stale)."""
    return [{k: v for k, v in m.items() if k != "state"} for m in scene["models"]]


def test_restart_resumes_the_game(make_controller, pipeline, tmp_path, config, layout, factory):
    c = make_controller()
    c.command("advance_phase")
    pipeline.see({23: (38.0, 15.0)}, (move(23, (38.0, 6.0), (38.0, 15.0)),))
    c.process(frame(1))
    c.command("select", id="sniper-1")
    c.command("target", id="rifles")
    c.command("acknowledge", id="overmove:sniper-1:1")
    c.command("assign_marker", model="gunner-1", marker=44)
    before = c.snapshot()
    c.close()
    again = make_controller(log_path=tmp_path / "game.sqlite3")
    after = again.snapshot()
    assert after.status["resumed"] is True and after.status["game"] == before.status["game"]
    # the game's scene resumes; the models' tracking state is the camera's, unknown before its first frame
    assert {m["id"]: m.get("state") for m in before.scene["models"]}["sniper-1"] == "tracked"
    assert all("state" not in m for m in after.scene["models"])
    assert after.phase == before.phase and after.scene == {**before.scene, "models": untracked(before.scene)}
    assert after.selection["model"] == "sniper-1" and after.selection["target"] == "rifles"
    assert [(w["id"], w["acknowledged"]) for w in after.warnings] == [("overmove:sniper-1:1", True)]
    assert again.state.markers()[44] == "gunner-1"
    assert after.leds == before.leds


def _stream(log_path: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    script = str(Path(__file__).parent / "event_stream.py")
    return subprocess.Popen([sys.executable, script, str(log_path)], stdout=subprocess.PIPE, text=True,
                            env=env)


def test_sigkill_during_a_stream_of_events_loses_nothing_committed(tmp_path):
    log_path = tmp_path / "killed.sqlite3"
    child = _stream(log_path)
    assert child.stdout.readline().split()[0] == "started"
    lines = [child.stdout.readline() for _ in range(60)]
    child.send_signal(signal.SIGKILL)           # in the middle of the stream: no chance to clean up
    child.wait()
    printed = [line.split() for line in lines + child.stdout.read().splitlines() if line.strip()]
    done, last_state = int(printed[-1][0]), printed[-1][1:]
    log = GameLog(log_path)
    assert log.integrity() == "ok"
    events = log.events(log.current_game())
    log.close()
    commands = [e for e in events if e["kind"] not in ("game_start", "warning", "warning_cleared")]
    # every command the child reported done is in the log; at most the one in flight got committed too
    assert done <= len(commands) <= done + 1
    logged = replay(events).state
    logged_state = [str(logged.turn), str(logged.step), str(logged.selected), str(logged.target)]
    if len(commands) == done:
        assert logged_state == last_state
    # restarted, the table resumes exactly the logged game
    restarted = _stream(log_path)
    first = restarted.stdout.readline().split()
    restarted.send_signal(signal.SIGKILL)
    restarted.wait()
    assert first[0] == "resumed" and first[1:] == logged_state


def test_export_and_replay_through_the_command_line(make_controller, pipeline, tmp_path, capsys):
    c = make_controller()
    pipeline.see({23: (38.0, 15.0), 77: (5.0, 5.0)}, (move(23, (38.0, 6.0), (38.0, 15.0)),))
    c.process(frame(1))
    c.command("advance_phase")
    c.command("select", id="rifles-1")
    c.command("target", id="raiders")
    original = c.snapshot()
    c.close()
    out = tmp_path / "game.jsonl"
    assert cli_main(["log", "export", "--log", str(tmp_path / "game.sqlite3"), "--out", str(out)]) == 0
    exported = list(read_jsonl(out))
    assert json.loads(capsys.readouterr().out)["events"] == len(exported)
    assert exported[0]["kind"] == "game_start" and exported[-1]["kind"] == "target"
    assert cli_main(["log", "replay", str(out)]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["phase"] == original.phase
    assert replayed["selection"]["model"] == "rifles-1" and replayed["selection"]["target"] == "raiders"
    assert {m["id"]: m["state"] for m in original.scene["models"]}["sniper-1"] == "tracked"
    assert replayed["scene"]["models"] == untracked(original.scene)   # a replay has no camera


def test_replay_into_a_running_controller(make_controller, pipeline, tmp_path, config, layout):
    c = make_controller()
    pipeline.see({22: (15.5, 9.0)}, (move(22, (12.45, 8.78), (15.5, 9.0)),))
    c.process(frame(1))
    c.command("advance_phase")
    events = c.gamelog.events(c.game)
    other_pins = MockFactory(pin_class=MockPWMPin)     # a second table: its own pins
    other = make_controller(log_path=tmp_path / "other.sqlite3",
                            hardware=make_hardware(config, layout, other_pins))
    state = other.replay(events)
    assert state.phase == "activations" and state.scene.model("raiders-3").position == (15.5, 9.0)
    assert "cohesion:raiders" in {w["id"] for w in other.snapshot().warnings}


def test_bad_export_file_is_named_with_its_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "game_start", "scene": {}}\nnot json\n')
    with pytest.raises(ConfigError, match=r"bad.jsonl: line 2: invalid JSON"):
        list(read_jsonl(bad))
    assert cli_main(["log", "export", "--log", str(tmp_path / "none.sqlite3")]) == 2


def test_a_restart_does_not_raise_standing_warnings_again(make_controller, pipeline, tmp_path):
    c = make_controller()
    pipeline.see({77: (20.0, 20.0)})
    c.process(frame(1))
    c.close()
    again = make_controller(log_path=tmp_path / "game.sqlite3")
    again.process(frame(2))                                   # marker 77 still there
    kinds = [(e["kind"], e.get("id")) for e in again.gamelog.events(again.game) if "warning" in e["kind"]]
    assert kinds == [("warning", "unknown_marker:77")]
    assert [w["id"] for w in again.snapshot().warnings] == ["unknown_marker:77"]
