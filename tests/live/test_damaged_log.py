"""A damaged game log (issue 25), damaged for real: 4 KB pages of a real log overwritten with random bytes
(three pages of events in the middle, or the file's last page), or an event row whose data is `[]`. `run` and `log export` exit 2 with one line
naming the file (systemd does not restart on 2: deploy/smarttable.service), and `log recover` keeps every
event it can read, each exactly as it was, in a fresh log the table resumes, with the damaged file aside."""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.live.live_fakes import ROOT, scripted_table

PAGE = 4096


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> tuple[Path, list[dict]]:
    """A real log of 400 rolls (and a game start), and its events as SQLite reads them, before any damage."""
    path = tmp_path_factory.mktemp("pristine") / "game.sqlite3"
    table = scripted_table(path)
    for n in range(400):
        table.command("roll", kind="dice", count=3, sides=6, label=f"roll {n} " + "x" * 40)
    table.close()
    return path, events_of(path)


def events_of(path: Path) -> list[dict]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT seq, game, kind, data FROM events ORDER BY seq").fetchall()
    finally:
        db.close()
    return [{"seq": seq, "game": game, "kind": kind, "data": data} for seq, game, kind, data in rows]


def leaves(path: Path) -> list[int]:
    """The pages that hold the events' rows (dbstat: SQLite's own page map), first and last left out."""
    db = sqlite3.connect(path)
    try:
        pages = [n for (n,) in db.execute("SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' "
                                          "ORDER BY pageno")]
    finally:
        db.close()
    return pages[1:-1]


def damaged(pristine: tuple[Path, list[dict]], tmp_path: Path, how: str) -> Path:
    source, _ = pristine
    path = tmp_path / "game.sqlite3"
    shutil.copy(source, path)
    pages = os.path.getsize(path) // PAGE
    if how == "data []":
        db = sqlite3.connect(path)
        db.execute("UPDATE events SET data = '[]' WHERE seq = 123")
        db.commit()
        db.close()
        return path
    chosen = [pages - 1] if how == "last page" else random.Random(25).sample(leaves(path), 3)
    with path.open("r+b") as out:
        for page in chosen:
            out.seek(page * PAGE)
            out.write(random.Random(page).randbytes(PAGE))
    db = sqlite3.connect(path)                      # SQLite itself finds it damaged (the independent check)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] != "ok"
    except sqlite3.DatabaseError:
        pass
    finally:
        db.close()
    return path


def smarttable(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "table.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("how", ["pages mid-file", "last page", "data []"])
def test_a_damaged_log_is_one_line_and_exit_2_then_recover_keeps_every_readable_event(pristine, tmp_path, how):
    path = damaged(pristine, tmp_path, how)
    for args in (["run", "--demo", "--no-web", "--log", str(path), "--duration", "5"],
                 ["log", "export", "--log", str(path)]):
        done = smarttable(*args)
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0] and "damaged" in lines[0], done.stderr
        assert f"smarttable log recover --log {path}" in lines[0]
    done = smarttable("log", "recover", "--log", str(path))
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    aside = Path(answer["damaged"])
    assert aside.exists() and aside.name.startswith("game.sqlite3.damaged-") and answer["log"] == str(path)
    before = {e["seq"]: e for e in pristine[1]}
    kept = events_of(path)
    assert all(e == before[e["seq"]] for e in kept)              # every kept event exactly as it was
    lost = answer["lost"]
    assert len(kept) + lost["events_unreadable"] + len(lost["events_unusable"]) == len(before)
    assert answer["events"] == len(kept)
    if how == "data []":
        assert lost["events_unusable"] == [123] and len(kept) == len(before) - 1
    else:
        assert len(kept) >= len(before) - 3 * 40                 # at most what three pages held is lost
    # the table takes the fresh log: it resumes the game, and numbers new events after every old one
    done = smarttable("run", "--demo", "--no-web", "--log", str(path), "--duration", "4")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["game"] == 1
    newest = events_of(path)
    assert min(e["seq"] for e in newest if e["seq"] not in before) > max(before)


def test_recover_refuses_while_a_table_runs_on_the_log(pristine, tmp_path):
    """A table running on the log holds it: `log recover` would move the file from under its writes, so it
    refuses in one line (exit 2) and leaves the log and its events where they are."""
    path = tmp_path / "game.sqlite3"
    shutil.copy(pristine[0], path)
    table = subprocess.Popen([sys.executable, "-m", "table.cli", "run", "--demo", "--no-web", "--log", str(path),
                              "--duration", "120"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
    try:
        owner = path.with_name(path.name + ".owner")
        deadline = time.monotonic() + 90
        while not (owner.exists() and owner.read_text().strip() == str(table.pid)):
            assert table.poll() is None and time.monotonic() < deadline, table.stderr.read() if table.stderr else ""
            time.sleep(0.2)
        done = smarttable("log", "recover", "--log", str(path))
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip().splitlines() == [f"smarttable log: {path}: a table is running on this game "
                                                    "log: stop it, then recover"]
        assert not list(tmp_path.glob("game.sqlite3.damaged-*"))
    finally:
        table.terminate()
        table.communicate(timeout=60)
    assert {e["seq"] for e in pristine[1]} <= {e["seq"] for e in events_of(path)}
