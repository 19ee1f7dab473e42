"""Everything the web panel asks of a table, as one typed protocol: the `Controller` protocol
(snapshot.py: the snapshot, changes, commands) and the rest the panel's pages use. The live table's
`TableController` implements it; so does the panel tests' in-memory table (tests/web/fake_table.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from table.rules.base import Ruleset
from table.snapshot import Controller, Snapshot


class Bookmarks(Protocol):
    """The table's dispute bookmarks (table/live/bookmarks.py); the `bookmark` command takes one."""

    def summaries(self) -> list[dict[str, Any]]:
        """Every bookmark's summary, oldest first."""
        ...

    def get(self, ident: int) -> dict[str, Any]:
        """One bookmark's evidence (QueryError if there is none of that id)."""
        ...

    def seq_of(self, ident: int, game: int) -> int | None:
        """The game log's sequence number of the bookmark's event (None if the log has none)."""
        ...


class PanelController(Controller, Protocol):
    """The table as the panel sees it."""

    on_rotate_pin: list[Callable[[], Any]]
    """Called when the table's owner asks for a new PIN (hold confirm); the panel adds its rotation."""

    @property
    def bookmarks(self) -> Bookmarks | None:
        """The dispute bookmarks; None for a table whose game log is in memory (nowhere to keep them)."""
        ...

    def take_bookmark(self, a: str | None = None, b: str | None = None,
                      ruler: bool = False) -> dict[str, Any]:
        """Keep a dispute bookmark of two models or units (`a`, `b`), the shared ruler, or (neither) the
        table's selection, else the ruler: `{"bookmark": summary}`. QueryError when there is nothing to
        bookmark or nowhere to keep it, StorageError when it cannot be written."""
        ...

    def questions(self) -> tuple[Snapshot, Ruleset]:
        """The newest snapshot and the rule system that answers read-only questions about its scene
        (with the camera's error bars and the snapshot's rulings): asking it never changes the game.
        QueryError if the rulings do not fit the rule system."""
        ...

    def log_entries(self, after: int, limit: int) -> list[dict[str, Any]]:
        """This game's log entries with `seq` greater than `after`, oldest first (each with at least
        `seq`, `ts` and `kind`)."""
        ...

    def replay_games(self) -> list[dict[str, Any]]:
        """Every game in the log: {"game", "started", "ruleset", "ended", "events"}."""
        ...

    def replay_steps(self, game: int | None = None) -> dict[str, Any]:
        """A game's logged events so far (this game's for None), each with its seq, time, kind and
        summary: {"game", "events"}."""
        ...

    def replay_at(self, seq: int) -> dict[str, Any] | None:
        """The board after event `seq`, of whichever game holds it (None if the log has no such event)."""
        ...

    def camera_jpeg(self) -> bytes | None:
        """The newest camera frame as JPEG with the board outline and the placed markers drawn on it;
        None while there is no frame (or no camera)."""
        ...

    def marker_count(self, dictionary: str) -> int:
        """How many markers the named OpenCV dictionary holds (ConfigError for an unknown one)."""
        ...

    def marker_cells(self, dictionary: str, marker_id: int) -> list[list[bool]]:
        """One marker's cells, border included (True is black), for the printable sheet."""
        ...

    def show_pin(self, pin: str) -> None:
        """Show a just-generated panel PIN on the table (the status LED), where it can."""
        ...
