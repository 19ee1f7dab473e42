"""The hub's own SQLite copy of every table's events, keyed by (table, seq): a repeated event is
stored once, and the gaps left by a hub that was away are found by `seq`.

The first event of a seq is kept: a different one with the same seq later (a fake on an open broker, a
table started on a new log under an old id) never replaces it, and is kept beside it as a conflict. A seq
the table's own log has no event for (its answer to `replay` skipped it, or gave one the hub refused) is
marked absent, so the hub does not ask for it again."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from table import strictjson
from table.errors import ConfigError

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL, seq INTEGER NOT NULL, game INTEGER, ts REAL, kind TEXT NOT NULL,
    event TEXT NOT NULL, received REAL NOT NULL, PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS events_received ON events(received);
CREATE TABLE IF NOT EXISTS conflicts (
    table_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, received REAL NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS absent (
    table_id TEXT NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL, reason TEXT NOT NULL,
    PRIMARY KEY (table_id, first)
) WITHOUT ROWID;
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
        self._conflicts: dict[str, int] = dict(self._db.execute(
            "SELECT table_id, COUNT(*) FROM conflicts GROUP BY table_id").fetchall())

    def add(self, table_id: str, events: list[dict[str, Any]]) -> tuple[int, list[int]]:
        """Store events (read by hub.inbox: a whole `seq`, `game` and `ts`); one the same as an event
        held is ignored, a different one kept as a conflict. Returns how many were new and the seqs
        that newly conflict (a seq's first different event; the ones after it are not kept)."""
        now = time.time()
        rows = [(table_id, e["seq"], e["game"], e["ts"], e["kind"], strictjson.dumps(e), now) for e in events]
        conflicts: list[int] = []
        with self._lock:
            self._db.execute("BEGIN")
            try:
                added = 0
                for row in rows:
                    if self._db.execute("INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?, ?, ?, ?)",
                                        row).rowcount:
                        added += 1
                    elif self._held(table_id, row[1]) != row[5] and self._db.execute(
                            "INSERT OR IGNORE INTO conflicts VALUES (?, ?, ?, ?)",
                            (table_id, row[1], row[5], now)).rowcount:
                        conflicts.append(row[1])
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._counts[table_id] = self._counts.get(table_id, 0) + added
            self._conflicts[table_id] = self._conflicts.get(table_id, 0) + len(conflicts)
            if rows:
                self._top[table_id] = max(self._top_of(table_id), max(r[1] for r in rows))
                self._advance(table_id)
        return added, conflicts

    def mark_absent(self, table_id: str, ranges: list[tuple[int, int]], reason: str) -> None:
        """The table's log has no event the hub can keep for the seqs `first` to `last` of each range:
        not to be asked for again."""
        if not ranges:
            return
        with self._lock:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR IGNORE INTO absent VALUES (?, ?, ?, ?)",
                                 [(table_id, first, last, reason) for first, last in ranges])
            self._db.execute("COMMIT")
            self._advance(table_id)

    def _advance(self, table_id: str) -> None:
        if table_id in self._have:
            self._have[table_id] = self._extend(table_id, self._have[table_id])

    def _extend(self, table_id: str, have: int) -> int:
        """The highest seq from `have` up with every one before it held or absent."""
        while True:
            if self._db.execute("SELECT 1 FROM events WHERE table_id = ? AND seq = ?",
                                (table_id, have + 1)).fetchone():
                have = int(self._db.execute(
                    "SELECT MIN(e.seq) FROM events e WHERE e.table_id = ?1 AND e.seq > ?2 AND NOT EXISTS "
                    "(SELECT 1 FROM events n WHERE n.table_id = ?1 AND n.seq = e.seq + 1)",
                    (table_id, have)).fetchone()[0])
                continue
            row = self._db.execute("SELECT MAX(last) FROM absent WHERE table_id = ?1 AND first <= ?2 "
                                   "AND last >= ?2", (table_id, have + 1)).fetchone()
            if row[0] is None:
                return have
            have = int(row[0])

    def _held(self, table_id: str, seq: int) -> str | None:
        row = self._db.execute("SELECT event FROM events WHERE table_id = ? AND seq = ?",
                               (table_id, seq)).fetchone()
        return None if row is None else str(row[0])

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
                self._have[table_id] = self._extend(table_id, 0)
            return self._have[table_id]

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

    def conflict_counts(self) -> dict[str, int]:
        """Table -> how many of its seqs came again with a different event."""
        with self._lock:
            return dict(self._conflicts)

    def conflicts(self, table_id: str, limit: int = 100) -> list[dict[str, Any]]:
        """The seqs that came again with a different event, in order: the event `kept` (the first) and
        the `other` one (the first different one after it), with when the other came."""
        sql = ("SELECT c.seq, e.event, c.event, c.received FROM conflicts c JOIN events e "
               "ON e.table_id = c.table_id AND e.seq = c.seq WHERE c.table_id = ? ORDER BY c.seq LIMIT ?")
        with self._lock:
            rows = self._db.execute(sql, (table_id, limit)).fetchall()
        return [{"seq": seq, "kept": json.loads(kept), "other": json.loads(other), "received": received}
                for seq, kept, other, received in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()
