"""Idempotency keys: a change sent again with the key it was sent with (a phone retrying a tap whose answer
it never got) is answered as the first time and applied once.

`Once.run(key, request, make)` runs `make()` for a key it has not seen, and keeps its receipt (or its
refusal); a request with that key again, even while the first is still running, waits for the first and
gets the same answer (`again` set, and whether it is saved as of now). The same key with another request
is refused. The newest KEPT keys are remembered. The lock is a leaf (table/live/controller.py): nothing
is taken under it, and a request waits for the first one's answer holding no lock.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from table.errors import QueryError, TableError
from table.live import locks
from table.snapshot import Receipt

KEPT = 1000                 # keys remembered (a phone retries within seconds; a table sees a few a second)
WAIT_S = 60.0               # a retry waits at most this long for the first request's answer


class KeyReused(QueryError):
    """The same idempotency key with another change (the panel names the key)."""


@dataclass
class _Entry:
    request: str
    done: threading.Event = field(default_factory=threading.Event)
    receipt: Receipt | None = None
    refusal: TableError | None = None


class Once:
    """Receipts by idempotency key, each change made once."""

    def __init__(self, saving: Callable[[int], str]) -> None:
        self._saving = saving            # a batch's number -> why it is not on disk yet ("" once it is)
        self._lock = locks.lock("idempotency")
        self._entries: OrderedDict[str, _Entry] = OrderedDict()

    def run(self, key: str, name: str, params: Mapping[str, Any], make: Callable[[], Receipt]) -> Receipt:
        request = json.dumps([name, params], sort_keys=True, default=str)
        with self._lock:
            entry = self._entries.get(key)
            first = entry is None
            if entry is None:
                entry = self._entries[key] = _Entry(request)
                while len(self._entries) > KEPT:
                    self._entries.popitem(last=False)
        if not first:
            return self._again(key, entry, request)
        try:
            entry.receipt = make()
            return entry.receipt
        except TableError as exc:
            entry.refusal = exc
            raise
        except BaseException:            # a bug: forget the key, so a retry runs it afresh
            with self._lock:
                self._entries.pop(key, None)
            raise
        finally:
            entry.done.set()

    def _again(self, key: str, entry: _Entry, request: str) -> Receipt:
        if entry.request != request:
            raise KeyReused(f"{key!r} was already used for another change: send a new key with each change")
        if not entry.done.wait(WAIT_S):
            raise KeyReused(f"{key!r}: the first request with this key has not answered yet")
        if entry.refusal is not None:
            raise entry.refusal
        if entry.receipt is None:        # the first one failed with a bug: nothing was kept
            raise KeyReused(f"{key!r}: the first request with this key failed; send it again with a new key")
        receipt = entry.receipt
        return replace(receipt, again=True, saving=self._saving(receipt.batch) if receipt.batch else "")
