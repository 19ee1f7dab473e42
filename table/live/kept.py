"""Changes the game log could not store when the table stopped, kept in a file beside it for the next start.

`NAME.unsaved.jsonl` holds one batch a line (`{"game", "ruleset", "events", "ends", "reopens"}`: `ruleset`
set when the batch starts that game, `ends` when it ends it, `reopens` when it resumes an earlier one), in
the order they were applied; the next start writes them to the log before it resumes the game and removes
the file. A full disk cannot take a new file, so the space is set aside while there is some:
`NAME.unsaved.reserve` (RESERVE bytes, allocated when the table starts) is written in place and renamed. A
filesystem gone read-only takes nothing: then the caller says on stderr what was not saved. See
docs/running.md.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table import strictjson
from table.errors import ConfigError

log = logging.getLogger(__name__)
RESERVE = 1024 * 1024          # bytes set aside beside the log for the changes a stop could not save


@dataclass(frozen=True)
class Batch:
    """Events of one game, committed in one transaction; `ruleset` is set when they start the game."""

    game: int
    events: list[dict[str, Any]]
    ruleset: str | None = None
    ends: bool = False           # the game is over once they are written
    reopens: bool = False        # an earlier game is the current one again

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "ruleset": self.ruleset, "events": self.events, "ends": self.ends,
                "reopens": self.reopens}


class Kept:
    """The file beside the log for unsaved changes, and the space set aside for it."""

    def __init__(self, log_path: Path) -> None:
        self.path = log_path.with_name(log_path.name + ".unsaved.jsonl")
        self.reserve = log_path.with_name(log_path.name + ".unsaved.reserve")

    def set_aside(self) -> None:
        """Allocate the reserve if it is missing (while the disk has room; a failure only warns)."""
        if self.reserve.exists():
            return
        try:
            fd = os.open(self.reserve, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                os.posix_fallocate(fd, 0, RESERVE)
            finally:
                os.close(fd)
        except OSError as exc:
            log.warning("%s: cannot set space aside for changes a stop could not save (%s)", self.reserve,
                        exc.strerror or exc)
            self.reserve.unlink(missing_ok=True)

    def read(self) -> list[Batch]:
        """The batches kept at the last stop (none: no file); ConfigError naming the file and line."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{self.path}: cannot read the changes kept at the last stop: {exc}") from None
        batches = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                item = strictjson.loads(line)
                batch = Batch(item["game"], item["events"], item["ruleset"], item.get("ends", False) is True,
                              item.get("reopens", False) is True)
                ok = (type(batch.game) is int and isinstance(batch.events, list) and batch.events
                      and all(isinstance(e, dict) and isinstance(e.get("kind"), str) for e in batch.events)
                      and (batch.ruleset is None or isinstance(batch.ruleset, str)))
            except (strictjson.StrictJsonError, KeyError, TypeError):
                ok = False
            if not ok:
                raise ConfigError(f"{self.path}: line {number}: not a batch of kept changes "
                                  "(move the file aside to start without them)")
            batches.append(batch)
        return batches

    def write(self, batches: list[Batch]) -> Path:
        """Keep the batches in the file (in the reserve's space when there is one); OSError if it cannot."""
        data = "".join(strictjson.dumps(b.to_json()) + "\n" for b in batches).encode()
        target = self.reserve if self.reserve.exists() else self.path.with_name(self.path.name + ".tmp")
        fd = os.open(target, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.ftruncate(fd, len(data))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(target, self.path)
        _sync_folder(self.path.parent)
        return self.path

    def clear(self) -> None:
        """The kept changes are in the log now: remove the file and set the space aside again."""
        self.path.unlink(missing_ok=True)
        self.set_aside()


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
