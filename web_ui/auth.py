"""The table's PIN: every change needs it, reading does not.

The PIN comes from `[web] pin` in the config, else from `pin.txt` in the table's data folder, else it
is generated on first start (six digits) and kept there, so it survives a restart.
"""

from __future__ import annotations

import hmac
import itertools
import math
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

from flask import current_app, request

from web_ui.errors import ApiError
from web_ui.fading import Fading

PIN_HEADER = "X-Table-PIN"
PIN_FILE = "pin.txt"


def resolve_pin(configured: str, data_dir: Path) -> tuple[str, bool]:
    """The PIN to use and whether it was generated just now."""
    if configured:
        return configured, False
    path = data_dir / PIN_FILE
    if path.is_file():
        stored = path.read_text(encoding="utf-8").strip()
        if stored:
            return stored, False
    return new_pin(data_dir), True


def new_pin(data_dir: Path) -> str:
    """A new six-digit PIN, kept in `pin.txt` (mode 0600) so it survives a restart."""
    pin = f"{secrets.randbelow(10**6):06d}"
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / PIN_FILE
    path.touch(mode=0o600)
    path.chmod(0o600)
    path.write_text(pin + "\n", encoding="utf-8")
    return pin


class PinGuard:
    """Checks PINs and makes guessing slow from any number of addresses, the owner's phone first.

    Per address: `limit` wrong PINs within `window_s` lock that address out (429) for the window.
    Across every address: once `free` wrong PINs fall within `global_window_s`, PIN checks are paced,
    at most one every `pace_s`, so a guesser with many addresses gains nothing. Waiting checks are
    served in this order: addresses that have never given a wrong PIN (over the last hours: the counts
    fade by half every `memory_s`) first, then addresses showing the panel (holding a live stream,
    `streaming`: a guesser cannot hold one per address), then the fewest tries lately, then the longest
    waiting; one at a time per address, at most `max_waiting` at once (a better-placed address takes a
    worse one's place) and each for at most `max_wait_s` (else 429 with Retry-After). So the owner's
    phone goes ahead of guessers who guess slowly from hundreds of addresses, each once a minute.
    A new PIN (`rotate`, the owner holding the table's confirm button) opens the door for `admit_s`: a
    check from an address that has never given a wrong PIN is made at once, past the queue and the pace,
    until `admit_wrong` wrong PINs came that way; the previous PIN is answered 403 without counting as
    a wrong guess (the phones that kept it are not guessers).
    """

    def __init__(self, pin: str, limit: int = 10, window_s: float = 60.0, *, free: int | None = None,
                 pace_s: float = 1.0, global_window_s: float = 600.0, max_waiting: int = 4,
                 max_wait_s: float = 5.0, memory_s: float = 3600.0, admit_s: float = 60.0,
                 admit_wrong: int = 10, streaming: Callable[[str], bool] = lambda client: False,
                 clock: Callable[[], float] = time.monotonic):
        self.pin, self.previous = pin, ""
        self.limit, self.window_s = limit, window_s
        self.free = limit if free is None else free
        self.pace_s, self.global_window_s = pace_s, global_window_s
        self.max_waiting, self.max_wait_s = max_waiting, max_wait_s
        self.admit_s, self.admit_wrong = admit_s, admit_wrong
        self.streaming = streaming
        self.clock = clock
        self._failures: dict[str, deque[float]] = {}      # wrong PINs in the last `window_s`
        self._failed, self._tries = Fading(memory_s), Fading(memory_s)
        self._all_failures: deque[float] = deque()
        self._waiting: dict[str, int] = {}        # address -> its ticket
        self._evicted: set[int] = set()
        self._tickets = itertools.count()
        self._next_at = -math.inf
        self._admit_until, self._admitted_wrong = -math.inf, 0
        self._cond = threading.Condition()

    def rotate(self, pin: str) -> None:
        """A new PIN at once (the old one is refused from now on), and the door open for `admit_s`."""
        with self._cond:
            self.previous, self.pin = self.pin, pin
            self._admit_until, self._admitted_wrong = self.clock() + self.admit_s, 0

    def check(self, given: str | None, client: str = "") -> None:
        with self._cond:
            now = self.clock()
            self._expire(now)
            failures = self._failures.get(client, deque())
            if len(failures) >= self.limit:
                wait = math.ceil(self.window_s - (now - failures[0]))
                raise ApiError(429, PIN_HEADER, f"too many wrong PINs from this address; wait {wait} s",
                               retry_after_s=max(1, wait))
            if not given:
                raise ApiError(401, PIN_HEADER, f"a change needs the table's PIN ({PIN_HEADER})")
            self._tries.add(client, now)
            admitted = (now < self._admit_until and client not in self._failed
                        and self._admitted_wrong < self.admit_wrong)
            if not admitted and len(self._all_failures) >= self.free:
                self._wait_turn(client)
            if not hmac.compare_digest(given.encode(), self.pin.encode()):
                if self.previous and hmac.compare_digest(given.encode(), self.previous.encode()):
                    raise ApiError(403, PIN_HEADER, "the table's PIN has changed: ask for the new one")
                now = self.clock()
                self._failures.setdefault(client, deque()).append(now)
                self._failed.add(client, now)
                self._all_failures.append(now)
                self._admitted_wrong += admitted
                raise ApiError(403, PIN_HEADER, "wrong PIN")

    def _expire(self, now: float) -> None:
        while self._all_failures and now - self._all_failures[0] >= self.global_window_s:
            self._all_failures.popleft()
        for client in list(self._failures):
            times = self._failures[client]
            while times and now - times[0] >= self.window_s:
                times.popleft()
            if not times:
                del self._failures[client]

    def _rank(self, client: str, ticket: int | None = None) -> tuple[float, bool, float, int]:
        """Served first: never a wrong PIN, showing the panel, fewest tries lately, the longest waiting."""
        now = self.clock()
        return (self._failed.score(client, now), not self.streaming(client), self._tries.score(client, now),
                self._waiting.get(client, -1) if ticket is None else ticket)

    def _wait_turn(self, client: str) -> None:
        """Holding the lock: wait until this address is first in line and the pace allows a check."""
        busy = ApiError(429, PIN_HEADER, "many wrong PINs lately: PINs are checked one a second; try again",
                        retry_after_s=max(1, math.ceil(self.pace_s)))
        if client in self._waiting:
            raise busy
        ticket = next(self._tickets)
        if len(self._waiting) >= self.max_waiting:
            worst = max(self._waiting, key=self._rank)
            if self._rank(worst) <= self._rank(client, ticket):
                raise busy
            self._evicted.add(self._waiting.pop(worst))      # a better-placed address takes its place
            self._cond.notify_all()
        self._waiting[client] = ticket
        deadline = self.clock() + self.max_wait_s
        try:
            while True:
                if ticket in self._evicted:
                    self._evicted.discard(ticket)
                    raise busy
                now = self.clock()
                if min(self._waiting, key=self._rank) == client and now >= self._next_at:
                    self._next_at = now + self.pace_s
                    return
                if now >= deadline:
                    raise busy
                self._cond.wait(min(deadline, max(self._next_at, now + 0.005)) - now)
        finally:
            if self._waiting.get(client) == ticket:
                del self._waiting[client]
            self._cond.notify_all()


def needs_pin(view: Any) -> Any:
    """Decorator for a view that changes the game."""

    @wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        guard = current_app.extensions["smarttable"].guard
        guard.check(request.headers.get(PIN_HEADER), request.remote_addr or "")
        return view(*args, **kwargs)

    return guarded
