"""Server-sent events: one event per new snapshot, throttled, each with its sequence number.

Throttling coalesces: a client gets at most one event per interval, always the newest snapshot, and
its `seq` lets the client see that it skipped some (each event carries the whole state anyway).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator

from table.snapshot import Controller, Snapshot


class SnapshotText:
    """The newest snapshot as JSON and as an SSE event, made once however many clients read it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple[int, float] | None = None
        self._json = self._event = ""

    def _update(self, snapshot: Snapshot) -> None:
        key = (snapshot.seq, snapshot.timestamp)
        if key != self._key:
            self._json = json.dumps(snapshot.to_dict(), separators=(",", ":"))
            data = f'{{"seq":{snapshot.seq},"state":{self._json}}}'
            self._event = f"id: {snapshot.seq}\nevent: state\ndata: {data}\n\n"
            self._key = key

    def json(self, snapshot: Snapshot) -> str:
        with self._lock:
            self._update(snapshot)
            return self._json

    def event(self, snapshot: Snapshot) -> str:
        with self._lock:
            self._update(snapshot)
            return self._event


def stream(controller: Controller, after: int, interval_s: float, heartbeat_s: float,
           slot: threading.BoundedSemaphore, cache: SnapshotText) -> Iterator[str]:
    """Yield SSE text until the client goes away; `slot` is released when the stream ends."""
    try:
        yield "retry: 2000\n\n"
        last = after
        current = controller.snapshot()
        if current.seq != last:
            yield cache.event(current)
            last = current.seq
        next_at = time.monotonic() + interval_s
        while True:
            wait = next_at - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            snapshot = controller.wait_for_change(last, heartbeat_s)
            if snapshot.seq != last:      # newer, or lower after a controller restart
                yield cache.event(snapshot)
                last = snapshot.seq
                next_at = time.monotonic() + interval_s
            else:
                yield ": keep-alive\n\n"
    finally:
        slot.release()
