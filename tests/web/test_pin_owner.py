"""The owner's way in while PINs are guessed low and slow from hundreds of addresses (issue 25), over real
sockets from 127.x.y.z addresses against the server `smarttable run` uses: the owner's phone (showing
the panel: it holds a live stream) goes ahead of every guesser; a new PIN from the table's button opens
the door at once; the previous PIN is not a guess."""

from __future__ import annotations

import http.client
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from table.live.table_commands import ButtonActions
from tests.web.attackers import allow_open_files
from tests.web.server import PIN, Served, make_app

GUESSERS = 300
EVERY_S = 65.0                 # each address guesses once a minute and a bit: its wrong PINs never pile up


@pytest.fixture(autouse=True)
def enough_files():
    allow_open_files(4096)


def change(served: Served, source: str, pin: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30, source_address=(source, 0))
    try:
        conn.request("POST", "/api/phase/advance", body="{}",
                     headers={"X-Table-PIN": pin, "Content-Type": "application/json"})
        reply = conn.getresponse()
        reply.read()
        return reply.status, reply.getheader("Retry-After") or ""
    finally:
        conn.close()


def owner_gets_in(served: Served, source: str, pin: str, give_up_s: float = 30.0) -> float:
    """How long the owner's phone takes to get a change in, trying again after each Retry-After (as the
    panel's send() does); inf if it never does."""
    asked = time.monotonic()
    while time.monotonic() - asked < give_up_s:
        status, retry = change(served, source, pin)
        if status == 200:
            return time.monotonic() - asked
        assert status == 429, status
        time.sleep(float(retry or 1.0))                    # no Retry-After: a person taps again
    return float("inf")


class LowAndSlow:
    """`count` addresses, each guessing once every `every_s` (4.6 guesses a second for 300)."""

    def __init__(self, served: Served, count: int, every_s: float, block: int):
        self.served, self.stop = served, threading.Event()
        self.addresses = [f"127.{block + i // 250}.2.{1 + i % 250}" for i in range(count)]
        self.every_s, self.statuses = every_s, []
        self.pool = ThreadPoolExecutor(max_workers=48)
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        start, n = time.monotonic(), 0
        while not self.stop.is_set():
            source = self.addresses[n % len(self.addresses)]
            self.pool.submit(lambda s=source, k=n: self.statuses.append(change(self.served, s, f"{k:06d}")[0]))
            n += 1
            self.stop.wait(max(0.0, start + n * self.every_s / len(self.addresses) - time.monotonic()))

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=10)
        self.pool.shutdown(wait=True)


def test_the_owners_phone_gets_in_ahead_of_300_slow_guessers(table, tmp_path):
    served = Served(make_app(table, tmp_path), threads=48)
    attack = LowAndSlow(served, GUESSERS, EVERY_S, block=70)
    owner = "127.0.60.1"
    panel = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30, source_address=(owner, 0))
    try:
        panel.request("GET", "/api/events")                 # the owner's phone shows the panel
        stream = panel.getresponse()                        # (kept: a dropped response closes its socket)
        assert stream.status == 200
        attack.thread.start()
        time.sleep(8.0)                                     # guessing is paced by now: the queue is full
        took = owner_gets_in(served, owner, PIN)
        print(f"\nowner's phone under {GUESSERS} addresses guessing once per {EVERY_S:.0f} s each: in after "
              f"{took:.2f} s; guessers {attack.statuses.count(403)} checked, {attack.statuses.count(429)} refused")
        assert took < 5.0
    finally:
        attack.close()
        panel.close()
        served.close()


def test_a_new_pin_from_the_tables_button_opens_the_door_at_once(table, tmp_path):
    app = make_app(table, tmp_path)
    served = Served(app, threads=48)
    attack = LowAndSlow(served, 500, 50.0, block=80)        # fresh addresses, once each: as new as the owner
    try:
        attack.thread.start()
        time.sleep(6.0)
        ButtonActions(table).pressed("confirm", held=True)  # the owner holds the table's confirm button
        pin = app.extensions["smarttable"].guard.pin
        assert pin != PIN
        asked = time.monotonic()
        assert change(served, "127.0.61.1", pin)[0] == 200  # a new phone with the new PIN: at once
        print(f"\na new phone with the new PIN under a flood of new addresses: in after "
              f"{time.monotonic() - asked:.2f} s")
        assert time.monotonic() - asked < 1.0
    finally:
        attack.close()
        served.close()


def test_the_previous_pin_is_refused_but_not_counted_as_a_guess(table, tmp_path):
    app = make_app(table, tmp_path)
    served = Served(app)
    try:
        ButtonActions(table).pressed("confirm", held=True)
        for _ in range(12):                                 # more than the 10 wrong PINs that lock an address
            status, _ = change(served, "127.0.62.1", PIN)
            assert status == 403
        assert change(served, "127.0.62.1", app.extensions["smarttable"].guard.pin)[0] == 200
    finally:
        served.close()
