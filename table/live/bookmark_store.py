"""Dispute bookmarks on disk: one JSON file per bookmark in the table's bookmarks folder (beside the game
log), written whole or not at all (a temporary file, fsync, rename, fsync of the folder) before the table
answers. A full disk or a folder the table cannot write is a StorageError naming the folder; nothing
half-written stays."""

from __future__ import annotations

import logging
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from table import strictjson
from table.errors import QueryError, StorageError
from table.live import locks

log = logging.getLogger(__name__)
FORMAT = "smarttable-bookmark/1"
NAME = re.compile(r"^bookmark-(\d{1,9})\.json$")


def folder_beside(log_path: Path) -> Path | None:
    """The bookmarks folder of a game log (`game.sqlite3` -> `game-bookmarks/`); None for a log in memory."""
    if str(log_path) == ":memory:":
        return None
    return log_path.with_name(log_path.stem + "-bookmarks")


class BookmarkStore:
    """The bookmark files of one folder, with a summary of each kept in memory."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._lock = locks.lock("bookmarks")
        self._summaries: dict[int, dict[str, Any]] | None = None

    def sweep(self) -> None:
        """Remove the temporary files of writes cut short (a power cut, SIGKILL); only the table that owns
        the folder calls it, when it starts."""
        if self.folder.is_dir():
            for leftover in self.folder.glob(".bookmark-*.tmp"):
                leftover.unlink(missing_ok=True)

    def path(self, ident: int) -> Path:
        return self.folder / f"bookmark-{ident:04d}.json"

    def _index(self) -> dict[int, dict[str, Any]]:
        """Every readable bookmark's summary by id (read once; a file that cannot be read is skipped
        with a warning, never taken for a new bookmark's place)."""
        if self._summaries is None:
            found: dict[int, dict[str, Any]] = {}
            names = sorted(os.listdir(self.folder)) if self.folder.is_dir() else []
            for name in names:
                match = NAME.match(name)
                if match is None:
                    continue
                try:
                    found[int(match.group(1))] = summary(self._read(self.folder / name))
                except (OSError, ValueError, KeyError, TypeError) as exc:
                    log.warning("bookmark %s skipped: %s", name, exc)
                    found[int(match.group(1))] = {}
            self._summaries = found
        return self._summaries

    @staticmethod
    def _read(path: Path) -> dict[str, Any]:
        document = strictjson.loads(path.read_text(encoding="utf-8"))
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} document")
        return document

    def next_id(self) -> int:
        with self._lock:
            return max(self._index(), default=0) + 1

    def save(self, document: dict[str, Any]) -> None:
        """Write one bookmark durably (its `id` names the file); StorageError if it cannot be."""
        ident = int(document["id"])
        text = strictjson.dumps(document)
        with self._lock:
            index = self._index()
            if ident in index:
                raise QueryError(f"bookmark {ident} exists already")
            self._write(self.path(ident), text)
            index[ident] = summary(document)

    def _write(self, path: Path, text: str) -> None:
        tmp = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".bookmark-", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, path)
            tmp = None
            folder = os.open(self.folder, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
        except OSError as exc:
            raise StorageError(f"bookmark not saved: {self.folder}: {exc.strerror or exc}") from None
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass

    def summaries(self) -> list[dict[str, Any]]:
        """Every bookmark's summary, oldest first."""
        with self._lock:
            return [dict(s) for _, s in sorted(self._index().items()) if s]

    def get(self, ident: int) -> dict[str, Any]:
        """One bookmark's whole document; QueryError if there is none."""
        with self._lock:
            known = ident in self._index()
        if not known:
            raise QueryError(f"no bookmark {ident}")
        try:
            return self._read(self.path(ident))
        except (OSError, ValueError) as exc:
            raise QueryError(f"bookmark {ident} cannot be read: {exc}") from None


def answer_text(measurement: dict[str, Any]) -> str:
    """The measurement as the panel shows it: `31.26" ± 0.03"` (hexes: `5 hexes`)."""
    distance = measurement.get("answers", {}).get("distance")
    if not isinstance(distance, dict) or not isinstance(distance.get("distance"), (int, float)):
        return "no distance"
    value = distance["distance"]
    if distance.get("method") == "hex":
        return f"{value:g} hexes"
    text = f'{value:.2f}"'
    interval = distance.get("interval")
    if isinstance(interval, list) and len(interval) == 2:
        text += f' ± {(interval[1] - interval[0]) / 2:.2f}"'
    return text


def too_close(measurement: dict[str, Any]) -> bool:
    """Whether any of the answers is too close to call."""
    answers = measurement.get("answers", {}).values()
    return any(isinstance(a, dict) and a.get("too_close_to_call") for a in answers)


def summary(document: dict[str, Any]) -> dict[str, Any]:
    """What the bookmarks list shows of one bookmark."""
    measurement = document["measurement"]
    return {"id": document["id"], "time": document["time"], "game": document["game"],
            "question": measurement["question"], "between": measurement["between"],
            "text": answer_text(measurement), "too_close_to_call": too_close(measurement),
            "pictures": len(document.get("pictures", []))}
