"""The game so far: the session in memory and its events in the game log on disk.

`Journal.emit_all` checks a batch of events and applies them all or none to the `Session` on the
caller's thread (which holds the controller's lock), then has the background worker commit the
batch to the log; batches are written in the order they were applied. `start_game` is a batch too:
the new game's number is decided here (the log's next), so starting a game never waits for the
worker. A batch the log refuses (a full disk, a lock held elsewhere) stays applied, is kept and
tried again every RETRY_S (the batches after it wait behind it, untried, so nothing waits for the
disk twice), and the log's status says so until it is written: a change is "applied, saving", and
`wait_saved` says so within SAVE_WAIT_S. Batches still refused when the table stops are kept beside
the log (table/live/kept.py) and written at the next start, before the game resumes. Who runs where
and which lock guards what: table/live/controller.py.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

from table import strictjson
from table.errors import QueryError, TableError
from table.live import locks
from table.live.background import Background
from table.live.events import Event, GameEnd, GameResume, WarningCleared, WarningRaised, decode, encode
from table.live.gamelog import GameLog
from table.live.kept import Batch, Kept
from table.live.session import GameState, Session, new_game
from table.live.warnings import TableWarning
from table.scene import Scene

log = logging.getLogger(__name__)
RETRY_S = 1.0              # a refused write to the game log is tried again this often
SAVE_WAIT_S = 2.0          # a change waits at most this long for its commit, then is answered "saving"


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
        self._why = ""                       # why the last write failed
        # the worker's alone (and `resume`'s, before any job): the batches not written yet, each with its
        # number (0: kept from the last stop), and whether the file beside the log still holds some
        self._unsaved: list[tuple[int, Batch]] = []
        self._from_file = False
        self._retry: threading.Timer | None = None
        self._closed = False
        self.kept = Kept(Path(gamelog.path)) if not gamelog.in_memory else None
        if self.kept is not None:
            self.kept.set_aside()

    # ------------------------------------------------------------ the game

    @property
    def state(self) -> GameState:
        assert self.session.state is not None
        return self.session.state

    def resume(self) -> list[TableWarning] | None:
        """Write the changes kept at the last stop, then replay the current game (the log's, and any of
        the kept changes the log still refuses) into the session; the warnings it holds as still
        standing (None when there is no game to resume)."""
        if self.kept is not None:
            self._write_kept(self.kept.read())
        current = self.gamelog.current_game()
        games = [g for g in [current, *(b.game for _, b in self._unsaved)] if g is not None]
        if not games:
            return None
        game = max(games)
        session, standing = self._replayed(game, current)
        if session.state is None:
            return None
        self.session, self.game = session, game
        return standing

    def _replayed(self, game: int, current: int | None) -> tuple[Session, list[TableWarning]]:
        """A game replayed (the log's events of it when it is the log's current one, or any earlier
        game, then its unsaved ones): its session and the warnings it holds as still standing."""
        session = Session()
        logged = self.gamelog.events(game) if current is not None and game <= current else []
        raised: dict[str, TableWarning] = {}
        for entry in logged + [e for _, b in self._unsaved if b.game == game for e in b.events]:
            try:
                event = decode(entry)
                session.apply(event)
            except TableError as exc:  # an event this version cannot apply: keep the rest
                log.warning("game log event %s skipped: %s", entry.get("seq"), exc)
                continue
            if isinstance(event, WarningRaised):
                raised[event.id] = TableWarning(event.id, event.warning or "", event.message,
                                                event.units or ())
            elif isinstance(event, WarningCleared):
                raised.pop(event.id, None)
        return session, list(raised.values())

    def end_game(self, reason: str | None = None) -> None:
        """The game is over: its `game_end` event, and the log marks it ended (on the worker)."""
        event = GameEnd(reason)
        trial = self.session.copy()
        trial.apply(event)
        self.session = trial
        self._queue(Batch(self.game, [encode(event)], ends=True))

    def resume_game(self, game: int) -> list[TableWarning]:
        """Make an earlier game of the log (every event of it already written) the one on the table
        again: replayed, with a `game_resume` event; the warnings it holds as still standing."""
        session, standing = self._replayed(game, game)     # its events are in the log, ended or not
        if session.state is None:
            raise QueryError(f"game {game}: the log holds no start of it")
        event = GameResume()
        session.apply(event)
        self.session, self.game = session, game
        self._queue(Batch(game, [encode(event)], reopens=True))
        return standing

    def _write_kept(self, kept: list[Batch]) -> None:
        """Write the batches kept at the last stop (before any job); those the log refuses stay unsaved."""
        if not kept:
            return
        assert self.kept is not None
        self._next_game = max(self._next_game, *(b.game + 1 for b in kept))
        count = sum(len(b.events) for b in kept)
        for index, batch in enumerate(kept):
            try:
                self._write(batch)
            except (sqlite3.Error, OSError) as exc:
                self._unsaved, self._from_file = [(0, b) for b in kept[index:]], True
                self._failed(f"game log: cannot write the {count} change(s) kept at the last stop in "
                             f"{self.kept.path} ({exc}); retrying", exc)
                return
        self.kept.clear()
        self._log = ("recovered", f"{count} change(s) the last stop could not save (kept in "
                                  f"{self.kept.path}) are in the game log now")
        log.warning("%s", self._log[1])

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
            number = self._emitted
        self._background.submit(lambda: self._commit(number, batch))

    # ------------------------------------------------------------ what the others read

    @property
    def pending(self) -> bool:
        """Batches applied whose commit the worker has not tried yet while the log takes writes (no
        snapshot shows them yet); while it refuses them, the snapshot shows them with the fault."""
        with self._cond:
            return self._uncommitted > 0 and self._log[0] != "fault"

    @property
    def emitted(self) -> int:
        with self._cond:
            return self._emitted

    def log_status(self) -> tuple[str, str]:
        """The log's state ("ok", "fault" or "recovered") and what happened."""
        with self._cond:
            return self._log

    def wait_saved(self, upto: int, timeout: float = SAVE_WAIT_S) -> str:
        """Wait until batch number `upto` is on disk: "" then; else (after `timeout` at most, at once
        while the log refuses writes: it waits behind the refused ones) why it is not saved yet."""
        with self._background.role.waiting(), self._cond:
            self._cond.wait_for(lambda: self._committed >= upto or self._log[0] == "fault", timeout)
            return self._saving(upto)

    def saving(self, upto: int) -> str:
        """Why batch number `upto` is not on disk yet ("" when it is)."""
        with self._cond:
            return self._saving(upto)

    def _saving(self, upto: int) -> str:
        if self._committed >= upto:
            return ""
        if self._log[0] == "fault":
            return self._log[1]
        return "game log: the write is taking long; the change is applied and will be saved"

    # ------------------------------------------------------------ on the worker

    def _commit(self, number: int, batch: Batch) -> None:
        """Write one batch, unless it waits behind batches the log refused (the retry writes them)."""
        self._unsaved.append((number, batch))
        try:
            if len(self._unsaved) == 1:
                self._flush()
        finally:
            with self._cond:
                self._uncommitted -= 1
                self._attempted += 1
                self._cond.notify_all()

    def _write(self, batch: Batch) -> None:
        if batch.ruleset is not None:
            self.gamelog.start_game(batch.ruleset, batch.events[0], game=batch.game)
        elif batch.ends:
            self.gamelog.end_game(batch.game, batch.events)
        elif batch.reopens:
            self.gamelog.reopen_game(batch.game, batch.events)
        else:
            self.gamelog.append_all(batch.game, batch.events)

    def _flush(self) -> None:
        """Write the unsaved batches in order; on a failure keep them, show the fault and try again
        in RETRY_S."""
        while self._unsaved:
            number, batch = self._unsaved[0]
            try:
                self._write(batch)
            except (sqlite3.Error, OSError) as exc:       # a full disk, a lock held elsewhere
                count = sum(len(b.events) for _, b in self._unsaved)
                self._failed(f"game log: cannot write ({exc}); {count} change(s) not saved yet, retrying",
                             exc)
                return
            self._unsaved.pop(0)
            with self._cond:
                self._committed = max(self._committed, number)
                self._cond.notify_all()
        if self._from_file and self.kept is not None:
            self.kept.clear()
            self._from_file = False
        notice = self.gamelog.take_notice()
        with self._cond:
            if notice:
                self._log = ("recovered", notice)
            elif self._log[0] == "fault":
                log.warning("game log: writing again; every change is saved")
                self._log = ("ok", "")

    def _failed(self, message: str, exc: BaseException) -> None:
        log.error("%s", message)
        with self._cond:
            self._log, self._why = ("fault", message), str(exc)
            self._cond.notify_all()
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

    def keep(self) -> str:
        """At a stop, on the worker: try the unsaved batches once more, keep those the log still refuses
        in the file beside it for the next start, or else write every one to the log's stderr. What was
        said ("" when everything is saved)."""
        if self._unsaved:
            self._flush()
        if not self._unsaved:
            return ""
        batches = [b for _, b in self._unsaved]
        count = sum(len(b.events) for b in batches)
        try:
            if self.kept is None:
                raise OSError("the game log is in memory")
            where = self.kept.write(batches)
        except OSError as exc:
            message = (f"game log: {count} change(s) not saved ({self._why}) and not kept beside the log "
                       f"either ({exc.strerror or exc}): here they are, one batch a line")
            log.error("%s", message)
            for batch in batches:
                log.error("%s", strictjson.dumps(batch.to_json()))
            return message
        message = (f"game log: {count} change(s) not saved ({self._why}); kept in {where}, to be written "
                   "at the next start")
        log.error("%s", message)
        return message
