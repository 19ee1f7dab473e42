"""The hub's own SQLite copy of every table's events, keyed by (table, seq): a repeated event is
stored once, and the gaps left by a hub that was away are found by `seq`."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from table.errors import ConfigError

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL, seq INTEGER NOT NULL, game INTEGER, ts REAL, kind TEXT NOT NULL,
    event TEXT NOT NULL, received REAL NOT NULL, PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS events_received ON events(received);
"""


class HubStore:
    """Events of every table; safe to share between threads."""

    def __init__(self, path: str | Path):
        try:
            if str(path) != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(f"{path}: cannot open the hub's event store: {exc}") from None
        self._lock = threading.Lock()
        self._have: dict[str, int] = {}        # table -> every seq up to this one is stored
        self._top: dict[str, int] = {}         # table -> the highest seq stored
        self._counts: dict[str, int] = dict(self._db.execute(
            "SELECT table_id, COUNT(*) FROM events GROUP BY table_id").fetchall())

    def add(self, table_id: str, events: list[dict[str, Any]]) -> int:
        """Store events (those already stored are ignored); returns how many were new."""
        now = time.time()
        rows = [(table_id, int(e["seq"]), e.get("game"), e.get("ts"), str(e.get("kind", "")),
                 json.dumps(e, separators=(",", ":")), now) for e in events]
        with self._lock:
            before = self._db.total_changes
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
            self._db.execute("COMMIT")
            added = self._db.total_changes - before
            self._counts[table_id] = self._counts.get(table_id, 0) + added
            if rows:
                top = self._top[table_id] = max(self._top_of(table_id), max(r[1] for r in rows))
                if table_id in self._have:
                    have = self._have[table_id]
                    while have < top and self._stored(table_id, have + 1):
                        have += 1
                    self._have[table_id] = have
        return added

    def _top_of(self, table_id: str) -> int:
        if table_id not in self._top:
            row = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_id = ?",
                                   (table_id,)).fetchone()
            self._top[table_id] = int(row[0])
        return self._top[table_id]

    def contiguous(self, table_id: str) -> int:
        """The highest seq with every seq from 1 up to it stored (0: not even the first)."""
        with self._lock:
            if table_id not in self._have:
                self._have[table_id] = self._have_from(table_id)
            return self._have[table_id]

    def _stored(self, table_id: str, seq: int) -> bool:
        sql = "SELECT 1 FROM events WHERE table_id = ? AND seq = ?"
        return self._db.execute(sql, (table_id, seq)).fetchone() is not None

    def _have_from(self, table_id: str) -> int:
        if not self._stored(table_id, 1):
            return 0
        row = self._db.execute(
            "SELECT MIN(e.seq) FROM events e WHERE e.table_id = ? AND NOT EXISTS "
            "(SELECT 1 FROM events n WHERE n.table_id = e.table_id AND n.seq = e.seq + 1)",
            (table_id,)).fetchone()
        return int(row[0])

    def top(self, table_id: str) -> int:
        with self._lock:
            return self._top_of(table_id)

    def events(self, table_id: str | None = None, after: int = 0, limit: int = 100,
               newest: bool = False) -> list[dict[str, Any]]:
        """Events as the tables sent them plus `table` and `received`: one table's after `after`
        in seq order, or (`newest`) the most recently received of all tables (or one), newest first."""
        if newest:
            where, args = ("WHERE table_id = ?", [table_id]) if table_id else ("", [])
            sql = (f"SELECT table_id, event, received FROM events {where} "
                   "ORDER BY received DESC, seq DESC LIMIT ?")
            params: list[Any] = [*args, limit]
        else:
            sql = ("SELECT table_id, event, received FROM events WHERE table_id = ? AND seq > ? "
                   "ORDER BY seq LIMIT ?")
            params = [table_id, after, limit]
        with self._lock:
            rows = self._db.execute(sql, params).fetchall()
        return [{"table": t, **json.loads(e), "received": r} for t, e, r in rows]

    def counts(self) -> dict[str, int]:
        """Table -> how many of its events are stored."""
        with self._lock:
            return dict(self._counts)

    def close(self) -> None:
        with self._lock:
            self._db.close()
