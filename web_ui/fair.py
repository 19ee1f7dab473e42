"""Read questions (`GET /api/query/...`) share the table fairly (docs/web.md, "Rule questions").

A question is worked out in the Python process that also runs the camera loop, so however many phones
ask, at most two are worked out at once: the open turn goes to the first in line, the kept one to an
address that has asked little lately (fewer than `light`, and less than half as much as the one holding
the open turn: a phone opening a card while a flood's slow question runs), so a phone never waits behind
a flood; the loop keeps its
share of the interpreter, and the others wait, each holding only its worker thread. One address
may have at most `per_address` questions waiting or running (more: 429 with Retry-After), and at most
`waiting` wait in all; a waiting question is served before those of addresses that used more of the
table's time lately (the seconds their questions took, counted as the mean question's from the moment
one is queued, and `asked_s` for each question asked, all halving every `fade_s`: a flood of slow
questions falls behind a phone's few), and takes the place of the worst-placed one when the queue is
full, which then gets 503 with Retry-After, as does one that waited `max_wait_s`.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from web_ui.errors import ApiError
from web_ui.fading import Fading


class FairQueue:
    """Turns to work out a question, fairly shared between client addresses."""

    def __init__(self, per_address: int = 8, waiting: int = 12, max_wait_s: float = 5.0,
                 fade_s: float = 10.0, asked_s: float = 0.05,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_address, self.waiting, self.max_wait_s = per_address, waiting, max_wait_s
        self.asked_s, self.clock = asked_s, clock
        self._used = Fading(fade_s)                 # address -> seconds its questions took lately
        self._mean = asked_s                        # a question's time, on average lately
        self._held: dict[str, int] = {}             # address -> its questions waiting or running
        self._queue: dict[int, str] = {}            # ticket -> address, waiting
        self._evicted: set[int] = set()
        self._turns: dict[str, str | None] = {"open": None, "kept": None}     # turn -> its holder
        self._tickets = itertools.count()
        self._cond = threading.Condition()

    @contextmanager
    def turn(self, address: str) -> Iterator[None]:
        """Wait for this address's turn (ApiError 429 or 503 with Retry-After if it cannot have one)."""
        with self._cond:
            if self._held.get(address, 0) >= self.per_address:
                raise ApiError(429, "path", f"this address already has {self.per_address} questions asked; "
                                            "wait for their answers", retry_after_s=1)
            self._used.add(address, self.clock(), self.asked_s)     # asking costs too, answered or not
            turn, charged = self._wait(address)
        started = self.clock()
        try:
            yield
        finally:
            with self._cond:
                took = self.clock() - started
                self._used.add(address, self.clock(), took - charged)
                self._mean += (took - self._mean) / 8
                self._turns[turn] = None
                self._release(address)
                self._cond.notify_all()

    def _rank(self, ticket: int) -> tuple[float, int]:
        return self._used.score(self._queue[ticket], self.clock()), ticket

    def _free_turn(self, ticket: int) -> str | None:
        """The turn this waiting question may take now, if any: the first in line takes the open turn;
        the kept one, the first of those that used under half the open turn's holder's time lately."""
        if self._turns["open"] is None and min(self._queue, key=self._rank) == ticket:
            return "open"
        holder = self._turns["open"]
        if self._turns["kept"] is not None or holder is None:
            return None
        bar = self._used.score(holder, self.clock()) / 2
        lighter = [t for t in self._queue if self._rank(t)[0] < bar]
        return "kept" if lighter and min(lighter, key=self._rank) == ticket else None

    def _wait(self, address: str) -> tuple[str, float]:
        """Holding the lock: queue `address`'s question and wait until it may take a turn: which, and
        the time charged to the address for it meanwhile."""
        busy = ApiError(503, "path", "the table is busy answering questions; try again", retry_after_s=1)
        ticket = next(self._tickets)
        self._queue[ticket] = address
        if len(self._queue) > self.waiting:
            worst = max(self._queue, key=self._rank)
            if worst == ticket:
                del self._queue[ticket]
                raise busy
            self._evicted.add(worst)                      # a better-placed question takes its place
            del self._queue[worst]
            self._cond.notify_all()
        self._held[address] = self._held.get(address, 0) + 1
        charged = self._mean
        self._used.add(address, self.clock(), charged)
        deadline = self.clock() + self.max_wait_s
        try:
            while True:
                if ticket in self._evicted:
                    self._evicted.discard(ticket)
                    raise busy
                turn = self._free_turn(ticket)
                if turn is not None:
                    del self._queue[ticket]
                    self._turns[turn] = address
                    return turn, charged
                now = self.clock()
                if now >= deadline:
                    self._queue.pop(ticket, None)
                    raise busy
                self._cond.wait(deadline - now)
        except ApiError:
            self._used.add(address, self.clock(), -charged)
            self._release(address)
            self._cond.notify_all()
            raise

    def _release(self, address: str) -> None:
        self._held[address] -= 1
        if not self._held[address]:
            del self._held[address]
