"""Reading a file the user named (a scene, the config, a pin map, an LED layout): a regular file only,
read with a size cap, so `/dev/zero`, a FIFO or a huge file is one clear error instead of a hang or a
process that eats the memory. The file is opened without blocking and checked on the open descriptor
(a FIFO opened for reading would otherwise wait for a writer)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from table.errors import TableError

MAX_BYTES = 4 * 1024 * 1024          # far above any scene, config, pin map or LED layout the table uses


def read_capped(path: Path, what: str, error: type[TableError], limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file at `path` (at most `limit`); `error` naming the path and `what` the
    file should be for a missing one, a folder, a device, FIFO or socket, or a larger file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, not a {what}") from None
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise error(f"{path}: is a folder, not a {what}")
        if not stat.S_ISREG(mode):
            raise error(f"{path}: is not a regular file but a device, FIFO or socket")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise error(f"{path}: larger than {limit // (1024 * 1024)} MB, too large for a {what}")
    return data
