"""The game so far: the session in memory and its events in the game log on disk.

`Journal.emit_all` checks a batch of events and applies them all or none to the `Session` on the
caller's thread (which holds the controller's lock), then has the background worker commit the
batch to the log; batches are written in the order they were applied. `start_game` is a batch too:
the new game's number is decided here (the log's next), so starting a game never waits for the
worker. A batch the log refuses (a full disk, a lock held elsewhere) is kept and tried again every
RETRY_S, and the log's status says so until it is written. Who runs where and which lock guards
what: table/live/controller.py.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from dataclasses import dataclass
from typing import Any

from table import strictjson
from table.errors import QueryError, TableError
from table.live import locks
from table.live.background import Background
from table.live.events import Event, WarningCleared, WarningRaised, decode, encode
from table.live.gamelog import GameLog
from table.live.session import GameState, Session, new_game
from table.live.warnings import TableWarning
from table.scene import Scene

log = logging.getLogger(__name__)
RETRY_S = 1.0              # a refused write to the game log is tried again this often



@dataclass(frozen=True)
class Batch:
    """Events of one game, committed in one transaction; `ruleset` is set when they start the game."""

    game: int
    events: list[dict[str, Any]]
    ruleset: str | None = None


class Journal:
    """The session (the controller's lock guards it) and the commit of its events on the worker."""

    def __init__(self, gamelog: GameLog, background: Background) -> None:
        self.gamelog = gamelog
        self.session = Session()
        self.game = 0
        self._next_game = gamelog.next_game()  # the number the next game started here takes
        self._background = background
        self._cond = locks.condition("journal")   # guards the counters and the log's status below
        self._uncommitted = 0                # batches applied, their commit not yet tried
        self._emitted = self._attempted = self._committed = 0   # batches applied / tried / on disk
        self._log = ("ok", "")               # the log's state (ok, fault, recovered) and detail
        self._unsaved: list[Batch] = []      # the worker's alone: batches the log refused so far
        self._retry: threading.Timer | None = None
        self._closed = False

    # ------------------------------------------------------------ the game

    @property
    def state(self) -> GameState:
        assert self.session.state is not None
        return self.session.state

    def resume(self) -> list[TableWarning] | None:
        """Replay the log's current game into the session; the warnings it holds as still standing
        (None when there is no game to resume)."""
        game = self.gamelog.current_game()
        if game is None:
            return None
        raised: dict[str, TableWarning] = {}
        for entry in self.gamelog.events(game):
            try:
                event = decode(entry)
                self.session.apply(event)
            except TableError as exc:  # an event this version cannot apply: keep the rest
                log.warning("game log event %s skipped: %s", entry.get("seq"), exc)
                continue
            if isinstance(event, WarningRaised):
                raised[event.id] = TableWarning(event.id, event.warning or "", event.message,
                                                event.units or ())
            elif isinstance(event, WarningCleared):
                raised.pop(event.id, None)
        if self.session.state is None:
            return None
        self.game = game
        return list(raised.values())

    def start_game(self, scene: Scene, seed: int) -> None:
        """A new game: the session now, the log's new game on the worker after every event of the
        game before it (never waited for here: the caller holds the controller's lock)."""
        event = new_game(scene, seed)
        session = Session()
        session.apply(event)
        game, self._next_game = self._next_game, self._next_game + 1
        self.session, self.game = session, game
        self._queue(Batch(game, [encode(event)], scene.ruleset))

    def emit_all(self, events: list[Event]) -> GameState:
        """Check every event, apply them all (or none), and queue their stored form to be committed
        in one transaction."""
        if events:
            stored = [encode(event) for event in events]
            try:
                strictjson.dumps(stored)
            except ValueError as exc:            # a non-finite number: never stored, never shown
                raise QueryError(f"{stored[0]['kind']}: {exc}") from None
            trial = self.session.copy()
            for event in events:
                trial.apply(event)
            self.session = trial
            self._queue(Batch(self.game, stored))
        return self.state

    def _queue(self, batch: Batch) -> None:
        """Count a batch applied and have the worker commit it."""
        with self._cond:
            self._uncommitted += 1
            self._emitted += 1
        self._background.submit(lambda: self._commit(batch))

    # ------------------------------------------------------------ what the others read

    @property
    def pending(self) -> bool:
        """Batches applied whose commit the worker has not tried yet (no snapshot shows them yet)."""
        with self._cond:
            return self._uncommitted > 0

    @property
    def emitted(self) -> int:
        with self._cond:
            return self._emitted

    def log_status(self) -> tuple[str, str]:
        """The log's state ("ok", "fault" or "recovered") and what happened."""
        with self._cond:
            return self._log

    def wait_tried(self, upto: int, timeout: float = 10.0) -> str:
        """Wait until the worker has tried to write every batch up to number `upto`: "" when they are
        all on disk, else why not."""
        with self._background.role.waiting(), self._cond:
            tried = self._cond.wait_for(lambda: self._attempted >= upto, timeout)
            if self._committed >= upto:
                return ""
            state, detail = self._log
        if state == "fault":
            return detail
        return "game log: the write did not finish in time" if not tried else "game log: not written"

    # ------------------------------------------------------------ on the worker

    def _commit(self, batch: Batch) -> None:
        """Queue one batch behind any the log refused, and write them."""
        self._unsaved.append(batch)
        try:
            self._flush()
        finally:
            with self._cond:
                self._uncommitted -= 1
                self._attempted += 1
                self._cond.notify_all()

    def _flush(self) -> None:
        """Write the unsaved batches in order; on a failure keep them, show the fault and try again
        in RETRY_S."""
        while self._unsaved:
            batch = self._unsaved[0]
            try:
                if batch.ruleset is not None:
                    self.gamelog.start_game(batch.ruleset, batch.events[0], game=batch.game)
                else:
                    self.gamelog.append_all(batch.game, batch.events)
            except (sqlite3.Error, OSError) as exc:       # a full disk, a lock held elsewhere
                self._failed(f"game log: cannot write ({exc}); {len(self._unsaved)} change(s) not "
                             f"saved yet, retrying")
                return
            self._unsaved.pop(0)
            with self._cond:
                self._committed += 1
        notice = self.gamelog.take_notice()
        with self._cond:
            if notice:
                self._log = ("recovered", notice)
            elif self._log[0] == "fault":
                log.warning("game log: writing again; every change is saved")
                self._log = ("ok", "")

    def _failed(self, message: str) -> None:
        log.error("%s", message)
        with self._cond:
            self._log = ("fault", message)
            if self._closed or (self._retry is not None and self._retry.is_alive()):
                return
            self._retry = threading.Timer(RETRY_S, self._retry_flush)
            self._retry.daemon = True
            self._retry.start()

    def _retry_flush(self) -> None:
        try:
            self._background.submit(self._flush)
        except RuntimeError:         # the worker is closed: the table is stopping
            pass

    def close(self) -> None:
        """No more retries (the table is stopping)."""
        with self._cond:
            self._closed = True
            if self._retry is not None:
                self._retry.cancel()
