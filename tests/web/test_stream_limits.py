"""Live connections against the server `smarttable run` uses (issue 25): one address cannot take every
SSE slot, the heartbeat is an event a page can see, and a client that never reads is dropped with its
memory bounded and its slot freed."""

from __future__ import annotations

import http.client
import socket
import threading
import time

from tests.web.server import PIN, Served, make_app
from tests.web.test_sse import Events
from web_ui.channels import ClientLimits
from web_ui.server import LIMITS


def open_stream(served: Served, source: str) -> http.client.HTTPResponse:
    """An SSE stream from `source`; a refused one is read and its connection closed."""
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10, source_address=(source, 0))
    conn.request("GET", "/api/events")
    response = conn.getresponse()
    if response.status != 200:
        response.body = response.read()          # type: ignore[attr-defined]
        conn.close()
    return response


def test_one_address_cannot_take_every_stream_and_a_new_phone_gets_in(table, tmp_path):
    served = Served(make_app(table, tmp_path), threads=48)          # 40 slots, 4 per address
    greedy = []
    try:
        for _ in range(40):
            greedy.append(open_stream(served, "127.0.10.1"))
        statuses = [r.status for r in greedy]
        assert statuses.count(200) == 4 and statuses.count(429) == 36, statuses
        refused = next(r for r in greedy if r.status == 429)
        assert refused.getheader("Retry-After") == "5"
        assert b"already holds 4 live connections" in refused.body
        phone = open_stream(served, "127.0.10.2")
        assert phone.status == 200
        phone.close()
    finally:
        for response in greedy:
            response.close()
        served.close()


def test_the_heartbeat_is_an_event_with_its_interval(live, table):
    events = Events(live.url, "/api/events?patch=1")
    first = events.next("heartbeat")                       # at once: the page learns the interval
    assert first["data"] == {"seq": table.snapshot().seq, "every_s": 0.2}
    events.next("state")
    asked = time.monotonic()
    again = events.next("heartbeat")                       # a quiet table: another within its interval
    assert again["data"]["every_s"] == 0.2 and time.monotonic() - asked < 1.0
    events.close()


def test_a_client_that_never_reads_is_dropped_with_its_buffer_bounded(table, tmp_path):
    app = make_app(table, tmp_path)
    served = Served(app, limits=ClientLimits(stall_timeout_s=2.0))
    context = app.extensions["smarttable"]
    stop = threading.Event()

    def changes() -> None:                               # the table keeps changing: whole events pile up
        while not stop.is_set():
            served.request("POST", "/api/phase/advance", headers={"X-Table-PIN": PIN}, body={})
            stop.wait(0.02)

    sleeper = socket.socket()
    sleeper.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)     # a small window, never read
    sleeper.connect(("127.0.0.1", served.port))
    sleeper.sendall(b"GET /api/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
    writer = threading.Thread(target=changes, daemon=True)
    writer.start()
    try:
        assert wait_until(lambda: context.streams.held() == 1, 5)
        unsent = []
        dropped = wait_until(lambda: unsent.append(max((c.total_outbufs_len for c in served.server.channels()),
                                                       default=0)) or context.streams.held() == 0, 30)
        print(f"\ndropped after {len(unsent) * 0.05:.1f} s, most unsent {max(unsent)} bytes")
        assert dropped, "a client that never reads kept its stream"
        largest_event = 16 * 1024                       # the demo's whole state is about 10 KB
        assert max(unsent) <= LIMITS["outbuf_high_watermark"] + largest_event, max(unsent)
        assert max(unsent) > 0                          # it did fall behind (the kernel's buffers were full)
        phone = Events(f"http://127.0.0.1:{served.port}")          # its slot is free
        assert phone.next()["data"]["seq"] >= 0
        phone.close()
    finally:
        stop.set()
        writer.join(timeout=10)
        sleeper.close()
        served.close()


def wait_until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False
