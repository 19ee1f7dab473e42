"""The live connections (SSE and MJPEG): each holds a worker thread while it lasts, so there are at
most `total` at once and at most `per_address` from one address; one client cannot take them all."""

from __future__ import annotations

import threading
from collections import Counter

from web_ui.errors import ApiError

RETRY_AFTER_S = 5


class Streams:
    """Slots for live connections, counted per client address."""

    def __init__(self, total: int = 40, per_address: int = 4) -> None:
        self.total, self.per_address = total, per_address
        self._held: Counter[str] = Counter()
        self._lock = threading.Lock()

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

    def held(self) -> int:
        with self._lock:
            return sum(self._held.values())
