"""One table a game log: a running table holds an exclusive lock on `<log>.owner` beside its log, so a
second table started on the same log refuses with one line instead of writing the same games. The
lock goes with the process, however it ends (kill -9 included)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

from table.errors import ConfigError


class LogTaken(ConfigError):
    """Another process (a running table) holds the log."""


def hold(log_path: Path) -> IO[str] | None:
    """Take the log for this process (None for a log in memory); LogTaken when another holds it."""
    if str(log_path) == ":memory:":
        return None
    path = log_path.with_name(log_path.name + ".owner")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+", encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot open: {exc.strerror}") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        pid = handle.read().strip()
        handle.close()
        raise LogTaken(f"{log_path}: another table is running on this game log"
                          f"{f' (process {pid})' if pid.isdigit() else ''}: stop it first, or give this "
                          "one its own --log FILE") from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle
