"""The live connections (SSE and MJPEG): each holds a worker thread while it lasts, so there are at
most `total` at once and at most `per_address` from one address; one client cannot take them all. When the
server stops, each ends within CLOSE_S (waitress waits 5 s for its worker threads, then closes what a stream
still holding one would write to)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from typing import TypeVar

from web_ui.errors import ApiError

RETRY_AFTER_S = 5
CLOSE_S = 0.5           # a live connection notices the server stopping within this
T = TypeVar("T")


class Streams:
    """Slots for live connections, counted per client address."""

    def __init__(self, total: int = 40, per_address: int = 4) -> None:
        self.total, self.per_address = total, per_address
        self._held: Counter[str] = Counter()
        self._lock = threading.Lock()
        self.closing = threading.Event()

    def acquire(self, address: str, instead: str) -> None:
        """Take a slot for `address`, else a 429 (with Retry-After) naming what to do `instead`."""
        with self._lock:
            if self._held[address] >= self.per_address:
                raise ApiError(429, "path", f"this address already holds {self.per_address} live connections "
                                            f"(close a tab, or {instead})", retry_after_s=RETRY_AFTER_S)
            if sum(self._held.values()) >= self.total:
                raise ApiError(429, "path", f"all {self.total} live connections are taken; {instead}",
                               retry_after_s=RETRY_AFTER_S)
            self._held[address] += 1

    def release(self, address: str) -> None:
        with self._lock:
            self._held[address] -= 1
            if self._held[address] <= 0:
                del self._held[address]

    def holds(self, address: str) -> bool:
        """Whether `address` holds a live connection now (a phone showing the panel)."""
        with self._lock:
            return address in self._held

    def close(self) -> None:
        """The server is stopping: every live connection ends (within CLOSE_S)."""
        self.closing.set()

    def until_closed(self, body: Iterator[T]) -> Iterator[T]:
        """`body`'s parts until the server stops."""
        for part in body:
            if self.closing.is_set():
                return
            yield part

    def held(self) -> int:
        with self._lock:
            return sum(self._held.values())
