"""Slow and greedy clients against the server `smarttable run` uses (issue 25), on real sockets from
many 127.x.y.z addresses: a trickling slowloris from one address and from hundreds, a request that
never arrives whole, a client that never reads its response."""

from __future__ import annotations

import socket
import time

import pytest

from tests.web.attackers import Trickle, allow_open_files, latencies, p95, sources
from tests.web.server import Served, make_app
from web_ui.channels import ClientLimits


@pytest.fixture(autouse=True)
def enough_files():
    allow_open_files(4096)         # 505 attacking sockets and the server's 500 in one process


def state_status(served: Served) -> int:
    return served.request("GET", "/api/state", timeout=10)[0]


@pytest.mark.parametrize("addresses", [1, 505], ids=["one-address", "505-addresses"])
def test_a_trickling_slowloris_does_not_lock_phones_out(table, tmp_path, addresses):
    served = Served(make_app(table, tmp_path))
    attack = Trickle(served.port, 505, sources(addresses), every_s=1.0)
    try:
        attack.open_all()
        attack.start()
        time.sleep(2.0)                                  # every socket has trickled a byte or two
        took, statuses = latencies(lambda: state_status(served), seconds=6.0)
        print(f"\n/api/state under 505 trickling sockets from {addresses} address(es): p95 "
              f"{p95(took) * 1000:.0f} ms, max {max(took) * 1000:.0f} ms; the server let go of "
              f"{attack.reopened} attacking sockets")
        assert statuses == [200] * len(statuses)
        assert p95(took) < 2.0
        held = served.server.addresses
        if addresses == 1:                               # one address holds at most its share
            assert held[sources(1)[0]] <= ClientLimits().per_address
    finally:
        attack.close()
        served.close()


def test_a_request_head_that_never_ends_is_closed_within_the_bound(table, tmp_path):
    limits = ClientLimits(request_timeout_s=2.0)
    served = Served(make_app(table, tmp_path), limits=limits)
    attack = Trickle(served.port, 1, sources(1), every_s=0.5)     # busy: never idle for 20 s
    try:
        attack.open_all()
        first = attack.socks[0]
        started = time.monotonic()
        attack.start()
        while attack.socks[0] is first and time.monotonic() - started < 10:
            time.sleep(0.05)
        closed_after = time.monotonic() - started
        assert attack.socks[0] is not first, "a trickling request was never closed"
        assert limits.request_timeout_s <= closed_after < limits.request_timeout_s + 3, closed_after
    finally:
        attack.close()
        served.close()


def test_more_connections_than_an_address_may_hold_are_answered_503(table, tmp_path):
    served = Served(make_app(table, tmp_path))
    held = []
    try:
        for _ in range(ClientLimits().per_address):
            held.append(socket.create_connection(("127.0.0.1", served.port), source_address=("127.0.9.1", 0)))
        time.sleep(0.3)
        with socket.create_connection(("127.0.0.1", served.port), source_address=("127.0.9.1", 0),
                                      timeout=5) as extra:
            reply = extra.recv(4096)
        assert reply.startswith(b"HTTP/1.1 503") and b"Retry-After: 5" in reply
        assert b"too many connections from this address" in reply
        assert served.request("GET", "/api/state", source="127.0.9.2")[0] == 200     # others get in
    finally:
        for s in held:
            s.close()
        served.close()


def test_one_address_is_paced_to_its_share_of_requests(table, tmp_path):
    limits = ClientLimits(requests_per_s=20.0, request_burst=10)
    served = Served(make_app(table, tmp_path), limits=limits)
    try:
        started = time.monotonic()
        for _ in range(50):                           # ten at once, then twenty a second: about 2 s
            assert served.request("GET", "/api/state", source="127.0.12.1")[0] == 200
        flood_took = time.monotonic() - started
        asked = time.monotonic()
        assert served.request("GET", "/api/state", source="127.0.12.2")[0] == 200    # another address: at once
        other_took = time.monotonic() - asked
        print(f"\n50 requests from one address paced to 20 a second: {flood_took:.2f} s; another address "
              f"meanwhile {other_took * 1000:.0f} ms")
        assert flood_took >= (50 - limits.request_burst) / limits.requests_per_s * 0.9
        assert other_took < 1.0
    finally:
        served.close()
