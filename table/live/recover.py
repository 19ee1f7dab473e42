"""`smarttable log recover`: a damaged game log's readable events in a fresh log at its path, the damaged
file set aside.

SQLite finds a row by its number from the table's root, so a row under a damaged page is lost but every
other one is found: each game and each event is asked for by its number, one at a time, and an event is
kept when its columns are what the log writes (its data a JSON object). The fresh log keeps every event's
`seq` (what the club's hub knows it by) and carries on numbering after the highest the damaged file had
handed out, so no number is used twice. A game whose own row was lost is rebuilt from its events. The
damaged file (with its write-ahead log) is renamed `NAME.damaged-DATE`, and the answer names it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from table.errors import ConfigError
from table.live import log_owner
from table.live.gamelog import GameLog

GIVE_UP_AFTER = 10_000      # numbers tried past the last readable row when the highest one is unknown


def recover(path: Path) -> dict[str, Any]:
    """Recover the log at `path` (the table stopped): what was kept and lost, where the damaged file went.
    Refused while a table runs on it (it holds the log, log_owner.py): the file would move under it."""
    if not path.is_file():
        raise ConfigError(f"{path}: no game log here")
    try:
        owner = log_owner.hold(path)
    except log_owner.LogTaken:
        raise ConfigError(f"{path}: a table is running on this game log: stop it, then recover") from None
    try:
        return _recover(path)
    finally:
        if owner is not None:
            owner.close()


def _recover(path: Path) -> dict[str, Any]:
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise ConfigError(f"{path}: cannot open the game log: {exc}") from None
    try:
        games, events, lost, highest = _read(db)
    finally:
        db.close()
    if not events and not games:
        raise ConfigError(f"{path}: no game or event in it can be read: nothing to recover (move it aside "
                          "and the table starts a new log)")
    fresh = path.with_name(path.name + ".recovering")
    for stale in (fresh, fresh.with_name(fresh.name + "-wal"), fresh.with_name(fresh.name + "-shm")):
        stale.unlink(missing_ok=True)
    _write(fresh, games, events, highest)
    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(f"{path}{suffix}"):
            os.replace(f"{path}{suffix}", f"{aside}{suffix}")
    os.replace(fresh, path)
    return {"log": str(path), "damaged": str(aside), "games": len(games), "events": len(events),
            "lost": lost}


Rows = dict[int, tuple[Any, ...]]      # a table's rows by their number


def _rows(db: sqlite3.Connection, query: str, highest: int | None) -> tuple[Rows, list[int]]:
    """Every row of a table asked for by its number (1 up to `highest`, or until GIVE_UP_AFTER numbers past
    the last one found); the rows found, and the numbers SQLite could not read."""
    found: dict[int, tuple[Any, ...]] = {}
    unreadable: list[int] = []
    number, last = 0, 0
    while (number < highest) if highest is not None else (number - last < GIVE_UP_AFTER):
        number += 1
        try:
            row = db.execute(query, (number,)).fetchone()
        except sqlite3.DatabaseError:
            unreadable.append(number)
            continue
        if row is not None:
            found[number], last = row, number
    return found, unreadable


def _highest(db: sqlite3.Connection, query: str) -> int | None:
    try:
        row = db.execute(query).fetchone()
    except sqlite3.DatabaseError:
        return None
    return None if row is None or row[0] is None else int(row[0])


def _read(db: sqlite3.Connection) -> tuple[Rows, Rows, dict[str, Any], int]:
    """The readable games and events, what was lost, and the highest event number ever handed out."""
    handed_out = _highest(db, "SELECT seq FROM sqlite_sequence WHERE name = 'events'")
    highest = handed_out if handed_out is not None else _highest(db, "SELECT MAX(seq) FROM events")
    rows, unreadable = _rows(db, "SELECT game, ts, kind, data FROM events WHERE seq = ?", highest)
    events, unusable = {}, []
    for seq, (game, ts, kind, data) in rows.items():
        try:
            parsed = json.loads(data) if isinstance(data, str) else None
        except ValueError:
            parsed = None
        if (type(game) is int and isinstance(ts, (int, float)) and isinstance(kind, str)
                and isinstance(parsed, dict)):
            events[seq] = (game, float(ts), kind, data)
        else:
            unusable.append(seq)
    game_rows, games_unreadable = _rows(db, "SELECT started, ruleset, ended FROM games WHERE id = ?",
                                        _highest(db, "SELECT MAX(id) FROM games"))
    games = {g: row for g, row in game_rows.items()
             if isinstance(row[0], (int, float)) and isinstance(row[1], str)}
    for _, (game, ts, kind, data) in sorted(events.items()):
        if game not in games:                  # its row was lost: rebuilt from its events
            scene = json.loads(data).get("scene") if kind == "game_start" else None
            ruleset = scene.get("ruleset") if isinstance(scene, dict) else None
            games[game] = (ts, ruleset if isinstance(ruleset, str) else "unknown", None)
    newest = max(games, default=None)
    last_ts = {game: ts for game, ts, _, _ in sorted(events.values(), key=lambda e: e[1])}
    games = {g: (started, ruleset, ended if ended is not None or g == newest else last_ts.get(g, started))
             for g, (started, ruleset, ended) in games.items()}
    lost = {"events_unreadable": len(unreadable), "events_unusable": sorted(unusable),
            "games_unreadable": len(games_unreadable)}
    return games, events, lost, max([highest or 0, *events])


def _write(fresh: Path, games: Rows, events: Rows, highest: int) -> None:
    GameLog(fresh).close()                      # the schema, as the table makes it
    db = sqlite3.connect(str(fresh), isolation_level=None)
    try:
        db.execute("BEGIN IMMEDIATE")
        db.executemany("INSERT INTO games (id, started, ruleset, ended) VALUES (?, ?, ?, ?)",
                       [(g, *row) for g, row in sorted(games.items())])
        db.executemany("INSERT INTO events (seq, game, ts, kind, data) VALUES (?, ?, ?, ?, ?)",
                       [(seq, *row) for seq, row in sorted(events.items())])
        db.execute("UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = 'events'", (highest,))
        db.execute("INSERT INTO sqlite_sequence (name, seq) SELECT 'events', ? WHERE NOT EXISTS "
                   "(SELECT 1 FROM sqlite_sequence WHERE name = 'events')", (highest,))
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
