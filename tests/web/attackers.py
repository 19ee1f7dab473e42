"""Greedy and slow clients on real sockets (issue 25), for the tests and bench/bench_slow_clients.py: a
trickling slowloris, SSE streams that never read. Sources are 127.x.y.z loopback addresses."""

from __future__ import annotations

import resource
import socket
import statistics
import threading
import time
from collections.abc import Callable, Sequence


def allow_open_files(wanted: int) -> None:
    """Raise this process's soft limit on open files towards `wanted` (a fresh CI machine has 1024)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


def sources(count: int, block: int = 7) -> list[str]:
    """`count` distinct loopback addresses 127.<block>.y.z."""
    return [f"127.{block + i // 250}.1.{1 + i % 250}" for i in range(count)]


class Trickle(threading.Thread):
    """`count` sockets, each sending one byte of a request head that never ends every `every_s`,
    round-robin over `addresses`; a socket the server closed (or answered) is opened again at once, as
    slowloris does. `reopened` counts the sockets the server got rid of."""

    HEAD = b"GET /api/state HTTP/1.1\r\nHost: localhost\r\nX-a: " + b"b" * 100000

    def __init__(self, port: int, count: int, addresses: Sequence[str], every_s: float = 4.0):
        super().__init__(daemon=True)
        self.port, self.count, self.addresses, self.every_s = port, count, list(addresses), every_s
        self.socks: list[socket.socket | None] = [None] * count
        self.sent = [0] * count
        self.reopened = 0
        self.stop = threading.Event()

    def _open(self, i: int) -> None:
        s = socket.socket()
        s.settimeout(2.0)
        try:
            s.bind((self.addresses[i % len(self.addresses)], 0))
            s.connect(("127.0.0.1", self.port))
            s.setblocking(False)
        except OSError:
            s.close()
            return
        self.socks[i], self.sent[i] = s, 0

    def _alive(self, s: socket.socket) -> bool:
        try:
            s.recv(1)                               # b"": closed; bytes: answered; either way gone
            return False
        except BlockingIOError:
            return True
        except OSError:
            return False

    def open_all(self) -> None:
        for i in range(self.count):
            self._open(i)

    def run(self) -> None:
        while not self.stop.is_set():
            for i in range(self.count):
                s = self.socks[i]
                if s is not None and self._alive(s):
                    try:
                        s.send(self.HEAD[self.sent[i]:self.sent[i] + 1])
                        self.sent[i] += 1
                        continue
                    except OSError:
                        pass
                if s is not None:
                    s.close()
                    self.reopened += 1
                self._open(i)
            self.stop.wait(self.every_s)

    def close(self) -> None:
        self.stop.set()
        if self.is_alive():
            self.join(timeout=30)
        for s in self.socks:
            if s is not None:
                s.close()


def latencies(ask: Callable[[], int], seconds: float, every_s: float = 0.2) -> tuple[list[float], list[int]]:
    """Call `ask` (returns an HTTP status) for `seconds`, every `every_s`: how long each took, and the
    statuses (0 for a connection that failed or timed out)."""
    took, statuses = [], []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        asked = time.monotonic()
        try:
            statuses.append(ask())
        except OSError:
            statuses.append(0)
        took.append(time.monotonic() - asked)
        time.sleep(every_s)
    return took, statuses


def p95(values: Sequence[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]
