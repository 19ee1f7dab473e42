"""The game log under real faults (issues 11, 25): a full filesystem (a small tmpfs), a write lock held by
another process, the file deleted or replaced while the table runs. Each checks what is on disk
through a connection of its own: every roll the table said was saved is there; a roll it could not store
yet is applied all the same and answered "saving" with the reason (the player is told), the live state
shows it, and once the fault is gone the kept rolls are stored, each once, in order."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from table.config import load_config
from table.live.doctor import check_log
from table.live.journal import SAVE_WAIT_S


def mount_tmpfs(where: Path, size: str) -> None:
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        reason = f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture
def small_disk(tmp_path):
    """A 2 MB filesystem of its own, unmounted after the test."""
    disk = tmp_path / "disk"
    mount_tmpfs(disk, "2m")
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=False)


def fill(disk: Path) -> Path:
    """Write a file until the filesystem is full (ENOSPC); returns it."""
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    return filler


def rolls_on_disk(path: Path) -> list[dict]:
    """The rolls of the newest game, read by a connection of this test's own."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        game = db.execute("SELECT MAX(id) FROM games").fetchone()[0]
        rows = db.execute("SELECT data FROM events WHERE game = ? AND kind = 'roll' ORDER BY seq",
                          (game,)).fetchall()
    finally:
        db.close()
    return [json.loads(data)["result"] for (data,) in rows]


def roll(controller) -> tuple[dict, bool]:
    """One roll: its result, and whether the table said it was saved (else: applied, saving, and why)."""
    receipt = controller.change("roll", {"kind": "dice", "count": 3, "sides": 6})
    if not receipt.saved:
        assert receipt.saving.startswith("game log: cannot write ("), receipt.saving
    assert controller.state.last_roll == receipt.result             # the live state shows it either way
    return receipt.result, receipt.saved


def wait_for(condition, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_a_full_disk_applies_and_keeps_what_it_cannot_store_and_stores_it_once_there_is_room(
        make_controller, small_disk):
    log_path = small_disk / "game.sqlite3"
    c = make_controller(log_path=log_path)
    before = [roll(c) for _ in range(5)]
    filler = fill(small_disk)
    answers = [roll(c) for _ in range(60)]
    rolled = [r for r, _ in before + answers]
    saved = [r for r, ok in before + answers if ok]
    assert not all(ok for _, ok in answers), "the disk never filled"
    # everything said to be saved is on disk, first to last; nothing said to be saving is yet
    assert rolls_on_disk(log_path) == saved == rolled[:len(saved)]
    # the player is told: the snapshot's status (the panel's banner), the status LED, doctor
    status = c.snapshot().status
    assert status["log"] == "fault" and "not saved yet" in status["log_detail"]
    assert c.snapshot().selection["last_roll"] == rolled[-1]         # the panel shows the last roll
    assert c.hw.status == "log_fault"
    config = small_disk.parent / "table.toml"
    config.write_text(f'[log]\npath = "{log_path}"\n')
    finding = check_log(load_config(config))
    assert not finding["ok"] and "full" in finding["detail"]
    # room again: the table retries on its own and stores the kept rolls, in order, each once
    filler.unlink()
    assert wait_for(lambda: c.snapshot().status["log"] == "ok")
    assert rolls_on_disk(log_path) == rolled
    assert c.hw.status != "log_fault"
    assert roll(c)[1]


LOCKER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.read()
"""


def test_a_log_locked_by_another_process_is_reported_and_the_rolls_kept(make_controller, tmp_path):
    log_path = tmp_path / "game.sqlite3"
    c = make_controller(log_path=log_path)
    first, _ = roll(c)
    locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(log_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout.readline().strip() == "locked"
        config = tmp_path / "table.toml"
        config.write_text(f'[log]\npath = "{log_path}"\n')
        finding = check_log(load_config(config))
        assert not finding["ok"] and "another process holds its write lock" in finding["detail"]
        for _ in range(2):
            started = time.monotonic()
            assert roll(c)[1] is False
            assert time.monotonic() - started < SAVE_WAIT_S + 1.0    # told within the bound, not after a hang
        assert "locked" in c.snapshot().status["log_detail"] and c.hw.status == "log_fault"
        assert rolls_on_disk(log_path) == [first]
    finally:
        locker.stdin.close()
        locker.wait(timeout=10)
    assert wait_for(lambda: c.snapshot().status["log"] == "ok")
    assert len(rolls_on_disk(log_path)) == 3               # the two kept rolls, stored


def test_a_deleted_log_is_written_afresh_and_the_player_warned(make_controller, tmp_path):
    log_path = tmp_path / "game.sqlite3"
    c = make_controller(log_path=log_path)
    rolls = [roll(c) for _ in range(3)]
    for leftover in tmp_path.glob("game.sqlite3*"):        # rm game.sqlite3*
        leftover.unlink()
    rolls += [roll(c) for _ in range(3)]
    assert all(ok for _, ok in rolls)
    rolls = [r for r, _ in rolls]
    assert rolls_on_disk(log_path) == rolls                 # the whole game, at the same path
    status = c.snapshot().status
    assert status["log"] == "recovered" and "deleted" in status["log_detail"]
    game = c.game
    c.close()
    again = make_controller(log_path=log_path)              # a restart resumes it, nothing lost
    assert again.game == game and again.snapshot().status["resumed"] is True
    assert rolls_on_disk(log_path) == rolls


def test_a_replaced_log_is_kept_aside_and_the_game_written_afresh(make_controller, tmp_path):
    log_path = tmp_path / "game.sqlite3"
    c = make_controller(log_path=log_path)
    rolls = [roll(c)[0] for _ in range(2)]
    other = tmp_path / "other.sqlite3"
    sqlite3.connect(other).execute("CREATE TABLE mine (x)").connection.close()
    os.replace(other, log_path)
    rolls.append(roll(c)[0])
    assert rolls_on_disk(log_path) == rolls
    aside = list(tmp_path.glob("game.sqlite3.replaced-*"))
    assert len(aside) == 1
    assert sqlite3.connect(aside[0]).execute("SELECT name FROM sqlite_master").fetchall() == [("mine",)]
    assert "replaced" in c.snapshot().status["log_detail"]


def test_the_panel_answers_202_saving_with_the_reason_while_the_log_is_locked(make_controller, tmp_path):
    from web_ui import create_app

    log_path = tmp_path / "game.sqlite3"
    c = make_controller(log_path=log_path)
    client = create_app(c, pin="246813", data_dir=tmp_path / "data").test_client()
    locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(log_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout.readline().strip() == "locked"
        response = client.post("/api/roll", json={"kind": "dice", "count": 2, "sides": 6},
                               headers={"X-Table-PIN": "246813"})
        assert response.status_code == 202
        body = response.get_json()
        assert body["ok"] is True and body["saved"] is False
        assert body["saving"].startswith("game log: cannot write (database is locked)")
        state = client.get("/api/state").get_json()          # what the panel shows: the roll and the banner
        assert state["status"]["log"] == "fault" and "locked" in state["status"]["log_detail"]
        assert state["selection"]["last_roll"] == body["result"]
    finally:
        locker.stdin.close()
        locker.wait(timeout=10)
    assert wait_for(lambda: client.get("/api/state").get_json()["status"]["log"] == "ok")
    assert len(rolls_on_disk(log_path)) == 1
