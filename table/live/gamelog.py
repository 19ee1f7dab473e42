"""The game log: every event of every game in SQLite (standard library), write-ahead logged.

Each event is committed before the table acts on it (WAL with synchronous=FULL), so a power cut
in the middle of a write loses at most the event being written and never corrupts the file;
reopening the log and replaying the current game's events resumes the game where it was.

A write that fails (a full disk, another process holding the write lock) raises, so the caller can
tell the player; a log file deleted or replaced while the table runs is noticed before the next write
(its file identity changed) and the whole log is written afresh at its path from the open connection.
A damaged file (pages SQLite cannot read, an event whose data is not a JSON object) is refused when it
is opened: `DamagedLog` names the file and `smarttable log recover` (table/live/recover.py).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from table import strictjson
from table.errors import ConfigError
from table.live import locks

log = logging.getLogger(__name__)
RECOVER = "smarttable log recover --log {path}"      # what a damaged log's message offers
BUSY_TIMEOUT_S = 1.0       # a write waits this long for another process's lock, then fails (< SAVE_WAIT_S)

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY, started REAL NOT NULL, ruleset TEXT NOT NULL, ended REAL
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, game INTEGER NOT NULL REFERENCES games(id),
    ts REAL NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_game ON events(game, seq);
"""


class DamagedLog(ConfigError):
    """The game log file is damaged; the message names it and offers `smarttable log recover`."""

    def __init__(self, path: Path, detail: str):
        super().__init__(f"{path}: the game log is damaged ({detail}); `{RECOVER.format(path=path)}` keeps "
                         "every event it can read in a fresh log and sets this file aside")


class GameLog:
    """One SQLite file of games and their events; safe to share between threads."""

    def __init__(self, path: str | Path, busy_timeout_s: float = BUSY_TIMEOUT_S):
        self.path = Path(path)
        self.busy_timeout_s = busy_timeout_s
        self.in_memory = str(path) == ":memory:"
        self.notice = ""         # what happened to the file, once (see `take_notice`)
        try:
            if not self.in_memory:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = self._connect()
        except sqlite3.DatabaseError as exc:      # not a database, or its first pages are damaged
            raise DamagedLog(self.path, str(exc)) from None
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(f"{path}: cannot open the game log: {exc}") from None
        self._check()
        self._identity = self._file_identity()
        self._open = True
        self._lock = locks.lock("gamelog")

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(str(self.path) if not self.in_memory else ":memory:", check_same_thread=False,
                             isolation_level=None, timeout=self.busy_timeout_s)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.executescript(SCHEMA)
        return db

    def _check(self) -> None:
        """DamagedLog unless SQLite reads every page and every event's data is a JSON object (an old
        version's non-finite numbers still count: they are skipped with a warning when read)."""
        try:
            verdict = [row[0] for row in self._db.execute("PRAGMA quick_check(1)").fetchall()]
            if verdict != ["ok"]:           # one line: the first problem, without SQLite's heading
                raise DamagedLog(self.path, "; ".join(line for row in verdict for line in row.splitlines()
                                                      if line.strip() and not line.startswith("***")))
            odd = self._db.execute("SELECT seq, data FROM events WHERE NOT (json_valid(data) AND "
                                   "json_type(data) = 'object')").fetchall()
        except sqlite3.DatabaseError as exc:
            raise DamagedLog(self.path, str(exc)) from None
        for seq, data in odd:
            if not isinstance(_lenient(data), dict):
                raise DamagedLog(self.path, f"event {seq}: its data is not a JSON object")

    def _file_identity(self) -> tuple[int, int] | None:
        """The log file's (device, inode), None in memory or when there is no file at the path."""
        if self.in_memory:
            return None
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return st.st_dev, st.st_ino

    def _check_file(self) -> None:
        """Before a write (holding the lock): if the file at the path is not the one open, write the
        whole log afresh there from the open connection and leave a notice."""
        if self.in_memory:
            return
        if not self._open:
            self._db = self._connect()
            self._open = True
        now = self._file_identity()
        if now == self._identity:
            return
        what = "deleted" if now is None else "replaced by another file"
        fresh = self.path.with_name(self.path.name + ".recovering")
        fresh.unlink(missing_ok=True)
        target = sqlite3.connect(str(fresh))
        try:
            self._db.backup(target)     # a full disk fails here, with the open log untouched
        finally:
            target.close()
        self._db.close()                # checkpoints into the old file and removes its -wal and -shm
        self._open = False              # (reopened at the next write if opening fails below)
        moved = ""
        if now is not None:
            aside = self.path.with_name(f"{self.path.name}.replaced-{time.strftime('%Y%m%d-%H%M%S')}")
            os.replace(self.path, aside)
            moved = f" (the other file is kept as {aside.name})"
        os.replace(fresh, self.path)
        self._identity = self._file_identity()
        self._db = self._connect()
        self._open = True
        self.notice = (f"{self.path}: the game log was {what} while the table ran; every game in it was "
                       f"written to a fresh log there{moved}")
        log.warning("%s", self.notice)

    def take_notice(self) -> str:
        """What happened to the log file since the last call ("" if nothing)."""
        with self._lock:
            notice, self.notice = self.notice, ""
        return notice

    def current_game(self) -> int | None:
        """The newest game not ended, if any."""
        row = self._db.execute("SELECT id FROM games WHERE ended IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else int(row[0])

    def next_game(self) -> int:
        """The number a game started next takes (one above the newest)."""
        with self._lock:
            return int(self._db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM games").fetchone()[0])

    def start_game(self, ruleset: str, first_event: dict[str, Any], game: int | None = None) -> int:
        """End any open game and start a new one (numbered `game`, by default the next) whose first
        event is `first_event`."""
        with self._write():
            now = time.time()
            self._db.execute("UPDATE games SET ended = ? WHERE ended IS NULL", (now,))
            game = self._db.execute("INSERT INTO games (id, started, ruleset) VALUES (?, ?, ?)",
                                    (game, now, ruleset)).lastrowid
            assert game is not None          # an INSERT's row id
            self._insert(game, first_event, now)
        return game

    def end_game(self, game: int, events: list[dict[str, Any]]) -> list[int]:
        """Commit a game's last events and mark it ended, in one transaction."""
        with self._write():
            now = time.time()
            seqs = [self._insert(game, event, now) for event in events]
            self._db.execute("UPDATE games SET ended = ? WHERE id = ?", (now, game))
        return seqs

    def reopen_game(self, game: int, events: list[dict[str, Any]]) -> list[int]:
        """Make an earlier game the current one again (ending any other that is open) and commit its
        next events, in one transaction."""
        with self._write():
            now = time.time()
            self._db.execute("UPDATE games SET ended = ? WHERE ended IS NULL AND id != ?", (now, game))
            self._db.execute("UPDATE games SET ended = NULL WHERE id = ?", (game,))
            return [self._insert(game, event, now) for event in events]

    def append(self, game: int, event: dict[str, Any]) -> int:
        """Commit one event; its sequence number is returned once it is on disk."""
        return self.append_all(game, [event])[0]

    def append_all(self, game: int, events: list[dict[str, Any]]) -> list[int]:
        """Commit events in one transaction (all or none); their sequence numbers once on disk."""
        with self._write():
            now = time.time()
            return [self._insert(game, event, now) for event in events]

    @contextmanager
    def _write(self) -> Iterator[None]:
        """One write transaction (holding the lock, on the file at the path): committed when the
        block ends, rolled back when it or the commit fails (a full disk, a lock held elsewhere)."""
        with self._lock:
            self._check_file()
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def _insert(self, game: int, event: dict[str, Any], now: float) -> int:
        data = {k: v for k, v in event.items() if k != "kind"}
        cursor = self._db.execute("INSERT INTO events (game, ts, kind, data) VALUES (?, ?, ?, ?)",
                                  (game, now, event["kind"], strictjson.dumps(data)))
        assert cursor.lastrowid is not None          # an INSERT's row id
        return cursor.lastrowid

    def events(self, game: int, after: int = 0, limit: int | None = None) -> list[dict[str, Any]]:
        """A game's events in order, each {"seq", "ts", "kind", ...data}: those with a sequence
        number above `after`, at most `limit` of them."""
        with self._lock:
            rows = self._db.execute("SELECT seq, ts, kind, data FROM events WHERE game = ? AND seq > ? "
                                    "ORDER BY seq LIMIT ?", (game, after, -1 if limit is None else limit)
                                    ).fetchall()
        return _decoded([({"seq": seq, "ts": ts, "kind": kind}, data) for seq, ts, kind, data in rows])

    def since(self, after: int, limit: int | None = None) -> list[dict[str, Any]]:
        """Every game's events with a sequence number above `after`, in order, each with its "game"
        (what a table publishes and replays to the club's hub)."""
        with self._lock:
            rows = self._db.execute("SELECT seq, game, ts, kind, data FROM events WHERE seq > ? ORDER BY seq "
                                    "LIMIT ?", (after, -1 if limit is None else limit)).fetchall()
        return _decoded([({"seq": seq, "game": game, "ts": ts, "kind": kind}, data)
                         for seq, game, ts, kind, data in rows])

    def last_seq(self) -> int:
        """The newest event's sequence number (0 for an empty log)."""
        with self._lock:
            return int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])

    def game_of(self, seq: int) -> int | None:
        """The game an event belongs to (None for a sequence number the log does not hold)."""
        with self._lock:
            row = self._db.execute("SELECT game FROM events WHERE seq = ?", (seq,)).fetchone()
        return None if row is None else int(row[0])

    def games(self) -> list[dict[str, Any]]:
        rows = self._db.execute("SELECT g.id, g.started, g.ruleset, g.ended, COUNT(e.seq) FROM games g "
                                "LEFT JOIN events e ON e.game = g.id GROUP BY g.id ORDER BY g.id").fetchall()
        return [{"game": g, "started": s, "ruleset": r, "ended": e, "events": n} for g, s, r, e, n in rows]

    def integrity(self) -> str:
        return str(self._db.execute("PRAGMA integrity_check").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _lenient(data: str) -> Any:
    """An event's data as JSON, non-finite numbers allowed (an old version wrote them); None if not JSON."""
    try:
        return json.loads(data)
    except (TypeError, ValueError):
        return None


def _decoded(rows: list[tuple[dict[str, Any], str]]) -> list[dict[str, Any]]:
    """Events from their columns and JSON data; one whose data is not strict JSON (Infinity, written
    by an older version) is skipped with a warning."""
    events = []
    for head, data in rows:
        try:
            events.append({**head, **strictjson.loads(data)})
        except strictjson.StrictJsonError as exc:
            log.warning("game log event %s skipped: %s", head["seq"], exc)
    return events


def export_jsonl(events: Iterable[dict[str, Any]], out: TextIO) -> int:
    """Write events as JSON lines; returns how many."""
    count = 0
    for event in events:
        out.write(strictjson.dumps(event) + "\n")
        count += 1
    return count


def read_jsonl(path: str | Path) -> Iterator[dict[str, Any]]:
    """Events from an exported JSON-lines file; a bad line is a ConfigError naming the line."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            event = strictjson.loads(line)
        except strictjson.StrictJsonError as exc:
            raise ConfigError(f"{path}: line {number}: invalid JSON: {exc}") from None
        if not isinstance(event, dict) or not isinstance(event.get("kind"), str):
            raise ConfigError(f"{path}: line {number}: expected an event object with a \"kind\"")
        yield event
