"""The hub under a fuzzer (issue 25), short form: a few thousand random and malformed messages, seeded, on
every topic pattern it subscribes to, through a real Mosquitto, with two real tables playing on.
Afterwards every good table still updates, with nothing of the fuzz on it, and the hub answers every
route; handling no message failed (a failure would be a fault the fuzzer found). The long form, with
figures: bench/bench_hub_fuzz.py."""

from __future__ import annotations

import time

from hub_fuzz import fuzz, publisher

from hub.listener import Hub
from hub.store import HubStore
from hub.web import create_hub_app
from table.broker import parse_url
from tests.club.club_clients import PublishedTable

GOOD = ("good-1", "good-2")


def wait_until(check, timeout=30.0, step=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(step)
    return check()


def test_the_hub_survives_a_fuzzer_on_its_topics_and_every_good_table_still_updates(broker, tmp_path):
    tables = {tid: PublishedTable(tmp_path, broker.url, table_id=tid, state_interval_s=0.2) for tid in GOOD}
    hub = Hub(HubStore(tmp_path / "hub.sqlite3"), parse_url(broker.url), client_id="hub-fuzzed", reconnect=(0.2, 1.0))
    hub.start()
    try:
        assert hub.connected.wait(10)
        for tid, table in tables.items():
            assert wait_until(lambda t=table, i=tid: [e["seq"] for e in hub.store.events(i)] == t.logged_seqs())
        held = {tid: hub.store.events(tid, limit=1000) for tid in GOOD}
        units = ("rifles", "gunner", "raiders", "sniper")

        batches = []

        def publish_and_play(batch):
            publish(batch)
            batches.append(len(batch))
            if len(batches) % 5 == 0:
                for table in tables.values():                   # the good tables play on meanwhile
                    table.controller.command("select", id=units[len(table.logged_seqs()) % 4])

        started = time.monotonic()
        with publisher("127.0.0.1", broker.port) as publish:
            sent = fuzz(publish_and_play, examples=50, rng_seed=2025, prefix="smarttable", good=GOOD,
                        request_id=hub.request_id)
        assert sent.messages >= 1500 and set(sent.by_kind) == {"available", "state", "events", "reply/replay"}
        handled = sent.messages + sum(len(t.logged_seqs()) for t in tables.values())
        assert wait_until(lambda: hub.health.messages >= handled, 60), (hub.health.messages, handled)
        print(f"\nfuzz: {sent.messages} messages ({sent.bytes / 1e6:.1f} MB) in {len(batches)} batches, "
              f"{time.monotonic() - started:.1f} s: {sent.by_kind}")

        for tid, table in tables.items():                        # still updating, nothing of the fuzz on them
            table.controller.command("advance_phase")
            logged = table.gamelog.since(0)
            assert wait_until(lambda t=tid, e=logged: [x["seq"] for x in hub.store.events(t, limit=1000)] ==
                              [x["seq"] for x in e]), tid
            stored = hub.store.events(tid, limit=1000)
            assert [{k: v for k, v in s.items() if k not in ("table", "received")} for s in stored] == logged
            assert stored[:len(held[tid])] == held[tid]
            assert wait_until(lambda t=tid, c=table: (hub.state(t) or {}).get("seq") == c.controller.snapshot().seq)
        client = create_hub_app(hub).test_client()
        listed = client.get("/api/tables")
        assert listed.status_code == 200
        body = listed.get_json()
        assert body["connected"] is True and body["listener"]["alive"] is True
        assert body["listener"]["failures"] == 0, body["listener"]["last_failure"]
        lines = {t["id"]: t for t in body["tables"]}
        for tid in GOOD:
            assert lines[tid]["online"] and lines[tid]["conflicts"]["count"] == 0
            assert lines[tid]["complete_to"] == lines[tid]["last_seq"] == tables[tid].logged_seqs()[-1]
        assert sum(t["rejected"]["count"] for t in lines.values()) > sent.messages / 3
        for tid in lines:
            for route in (f"/api/tables/{tid}", f"/api/tables/{tid}/events", f"/api/tables/{tid}/conflicts"):
                assert client.get(route).status_code in (200, 404), route
        assert client.get("/api/events?limit=500").status_code == 200
        assert client.get("/").status_code == 200
    finally:
        hub.close()
        hub.store.close()
        for table in tables.values():
            table.close()
