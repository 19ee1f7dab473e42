"""The game log: every event of every game in SQLite (standard library), write-ahead logged.

Each event is committed before the table acts on it (WAL with synchronous=FULL), so a power cut
in the middle of a write loses at most the event being written and never corrupts the file;
reopening the log and replaying the current game's events resumes the game where it was.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from table.errors import ConfigError

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


class GameLog:
    """One SQLite file of games and their events; safe to share between threads."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            if str(path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(f"{path}: cannot open the game log: {exc}") from None
        self._lock = threading.Lock()

    def current_game(self) -> int | None:
        """The newest game not ended, if any."""
        row = self._db.execute("SELECT id FROM games WHERE ended IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else int(row[0])

    def start_game(self, ruleset: str, first_event: dict[str, Any]) -> int:
        """End any open game and start a new one whose first event is `first_event`."""
        with self._lock, self._db:
            now = time.time()
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("UPDATE games SET ended = ? WHERE ended IS NULL", (now,))
            game = self._db.execute("INSERT INTO games (started, ruleset) VALUES (?, ?)",
                                    (now, ruleset)).lastrowid
            self._insert(int(game), first_event, now)
        return int(game)

    def append(self, game: int, event: dict[str, Any]) -> int:
        """Commit one event; its sequence number is returned once it is on disk."""
        return self.append_all(game, [event])[0]

    def append_all(self, game: int, events: list[dict[str, Any]]) -> list[int]:
        """Commit events in one transaction (all or none); their sequence numbers once on disk."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            now = time.time()
            return [self._insert(game, event, now) for event in events]

    def _insert(self, game: int, event: dict[str, Any], now: float) -> int:
        data = {k: v for k, v in event.items() if k != "kind"}
        cursor = self._db.execute("INSERT INTO events (game, ts, kind, data) VALUES (?, ?, ?, ?)",
                                  (game, now, event["kind"], json.dumps(data, separators=(",", ":"))))
        return int(cursor.lastrowid)

    def events(self, game: int, after: int = 0, limit: int | None = None) -> list[dict[str, Any]]:
        """A game's events in order, each {"seq", "ts", "kind", ...data}: those with a sequence
        number above `after`, at most `limit` of them."""
        with self._lock:
            rows = self._db.execute("SELECT seq, ts, kind, data FROM events WHERE game = ? AND seq > ? "
                                    "ORDER BY seq LIMIT ?", (game, after, -1 if limit is None else limit)
                                    ).fetchall()
        return [{"seq": seq, "ts": ts, "kind": kind, **json.loads(data)} for seq, ts, kind, data in rows]

    def since(self, after: int, limit: int | None = None) -> list[dict[str, Any]]:
        """Every game's events with a sequence number above `after`, in order, each with its "game"
        (what a table publishes and replays to the club's hub)."""
        with self._lock:
            rows = self._db.execute("SELECT seq, game, ts, kind, data FROM events WHERE seq > ? ORDER BY seq "
                                    "LIMIT ?", (after, -1 if limit is None else limit)).fetchall()
        return [{"seq": seq, "game": game, "ts": ts, "kind": kind, **json.loads(data)}
                for seq, game, ts, kind, data in rows]

    def last_seq(self) -> int:
        """The newest event's sequence number (0 for an empty log)."""
        with self._lock:
            return int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])

    def games(self) -> list[dict[str, Any]]:
        rows = self._db.execute("SELECT g.id, g.started, g.ruleset, g.ended, COUNT(e.seq) FROM games g "
                                "LEFT JOIN events e ON e.game = g.id GROUP BY g.id ORDER BY g.id").fetchall()
        return [{"game": g, "started": s, "ruleset": r, "ended": e, "events": n} for g, s, r, e, n in rows]

    def integrity(self) -> str:
        return str(self._db.execute("PRAGMA integrity_check").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


def export_jsonl(events: Iterable[dict[str, Any]], out: TextIO) -> int:
    """Write events as JSON lines; returns how many."""
    count = 0
    for event in events:
        out.write(json.dumps(event, separators=(",", ":")) + "\n")
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
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}: line {number}: invalid JSON: {exc.msg}") from None
        if not isinstance(event, dict) or not isinstance(event.get("kind"), str):
            raise ConfigError(f"{path}: line {number}: expected an event object with a \"kind\"")
        yield event
