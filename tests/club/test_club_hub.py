"""The hub against a real Mosquitto: it sees every table, keeps every event once (filling gaps from
the tables' logs), shows a dead table offline, and catches up after a restart."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hub import inbox
from hub.listener import Hub
from hub.store import HubStore
from hub.web import create_hub_app
from table.broker import parse_url
from table.config import CONFIG_DIR
from tests.club.club_clients import PublishedTable, Recorder
from tests.inprocess import smarttable
from web_ui.sse import SnapshotText


def wait_until(check, timeout=15.0, step=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(step)
    return check()


def stored_seqs(store: HubStore, table_id: str) -> list[int]:
    return [e["seq"] for e in store.events(table_id, limit=100000)]


@pytest.fixture
def make_hub(broker, tmp_path):
    made = []

    def make(db=None, client_id="hub-test"):
        store = HubStore(db or tmp_path / "hub.sqlite3")
        hub = Hub(store, parse_url(broker.url), client_id=client_id, reconnect=(0.2, 1.0))
        hub.start()
        made.append(hub)
        return hub

    yield make
    for hub in made:
        hub.close()
        hub.store.close()


@pytest.fixture
def tables(broker, tmp_path):
    made = {tid: PublishedTable(tmp_path, broker.url, table_id=tid, state_interval_s=0.2) for tid in ("t1", "t2")}
    yield made
    for table in made.values():
        table.close()


def test_hub_sees_every_table_and_serves_the_dashboard(make_hub, tables):
    hub = make_hub()
    t1, t2 = tables["t1"], tables["t2"]
    t1.controller.command("select", id="rifles")
    t1.controller.command("target", id="raiders")
    t2.controller.command("advance_phase")
    for tid, table in tables.items():       # game_start came before the hub: it asked for it (replay)
        assert wait_until(lambda t=table, i=tid: stored_seqs(hub.store, i) == t.logged_seqs())
    snapshot = t1.controller.snapshot()
    assert wait_until(lambda: (hub.state("t1") or {}).get("seq") == snapshot.seq)
    client = create_hub_app(hub).test_client()
    listed = client.get("/api/tables").get_json()
    assert listed["connected"] is True
    assert [t["id"] for t in listed["tables"]] == ["t1", "t2"]
    line = listed["tables"][0]
    assert line["online"] and line["ruleset"] == "synaptik" and line["players"] == ["A", "B"]
    assert line["events"] == len(t1.logged_seqs()) == line["complete_to"] == line["last_seq"]
    assert line["turn"] == snapshot.phase["turn"] and line["phase"] == snapshot.phase["phase"]
    assert line["open_disputes"] == sum(1 for w in snapshot.warnings if not w.get("acknowledged"))
    one = client.get("/api/tables/t1").get_json()

    assert one["state"] == json.loads(SnapshotText().json(snapshot))     # the table's own /api/state
    recent = client.get("/api/events?limit=5").get_json()["events"]
    assert len(recent) == 5 and all(e["received"] >= recent[-1]["received"] for e in recent)
    events = client.get("/api/tables/t1/events?after=1&limit=2").get_json()["events"]
    assert [e["seq"] for e in events] == [2, 3] and events[0]["kind"] == "select"
    assert client.get("/api/tables/nope").status_code == 404
    assert client.get("/api/events?limit=0").get_json() == {"error": "must be from 1 to 500, got 0", "field": "limit"}
    page = client.get("/")
    assert page.status_code == 200 and b"hub.js" in page.data
    assert client.get("/tables/t1").status_code == 200 and client.get("/static/board.js").status_code == 200


def test_a_table_publishing_a_malformed_state_is_listed_without_its_junk(make_hub, broker):
    """Fields of the wrong JSON type (a number for a list, a string for an object) are left out of the
    dashboard's line, rather than failing the whole list of tables."""
    hub = make_hub()
    sender = Recorder(broker.url, "smarttable/+/state")
    assert sender.subscribed()
    junk = {"ruleset": "synaptik", "phase": {"turn": 2, "phase": "move"}, "scene": {"units": 7}, "warnings": 3,
            "status": "ok", "seq": 4}
    # retained, as a table publishes its state: the hub gets it whenever its subscription is in place
    sender.client.publish("smarttable/junk/state", json.dumps(junk), qos=1, retain=True).wait_for_publish(5)
    assert wait_until(lambda: hub.state("junk"))
    response = create_hub_app(hub).test_client().get("/api/tables")
    sender.close()
    assert response.status_code == 200
    line = response.get_json()["tables"][0]
    assert (line["id"], line["ruleset"], line["turn"], line["phase"]) == ("junk", "synaptik", 2, "move")
    assert (line["players"], line["warnings"], line["open_disputes"], line["camera"]) == ([], [], 0, None)


def test_broker_restarted_mid_game_hub_has_every_event_once_in_order(make_hub, tables, broker):
    hub = make_hub()
    t1 = tables["t1"]
    units = ("rifles", "gunner", "raiders", "sniper")
    for unit in units:
        t1.controller.command("select", id=unit)
    broker.stop()
    for unit in units * 3:                       # committed while the broker is down
        t1.controller.command("select", id=unit)
    broker.start()
    for unit in units:
        t1.controller.command("select", id=unit)
    assert wait_until(lambda: stored_seqs(hub.store, "t1") == t1.logged_seqs(), 30), \
        (stored_seqs(hub.store, "t1"), t1.logged_seqs())
    stored = hub.store.events("t1", limit=1000)
    assert stored == [{"table": "t1", **e, "received": s["received"]} for e, s in zip(t1.gamelog.since(0), stored,
                                                                                       strict=True)]


def test_broker_killed_while_the_hub_runs_it_says_so_then_reconnects_and_catches_up(make_hub, tables, broker):
    """kill -9 of the broker: its sessions, the hub's subscriptions and every retained message are gone.
    While it is dead the dashboard answers and says it is not connected; once it is started again the
    hub subscribes again and has every table's events (those committed meanwhile too) and newest state."""
    hub = make_hub()
    client = create_hub_app(hub).test_client()
    t1, t2 = tables["t1"], tables["t2"]
    t1.controller.command("select", id="rifles")
    for tid, table in tables.items():
        assert wait_until(lambda t=table, i=tid: stored_seqs(hub.store, i) == t.logged_seqs())
    broker.kill()
    assert wait_until(lambda: client.get("/api/tables").get_json()["connected"] is False, 10)
    listed = client.get("/api/tables")
    assert listed.status_code == 200 and [t["id"] for t in listed.get_json()["tables"]] == ["t1", "t2"]
    for unit in ("gunner", "raiders", "sniper"):                 # committed while the broker is dead
        t1.controller.command("select", id=unit)
    t2.controller.command("advance_phase")
    assert stored_seqs(hub.store, "t1") != t1.logged_seqs()
    broker.start()
    assert wait_until(lambda: client.get("/api/tables").get_json()["connected"] is True, 30)
    t1.controller.command("target", id="raiders")                # and after
    for tid, table in tables.items():
        assert wait_until(lambda t=table, i=tid: stored_seqs(hub.store, i) == t.logged_seqs(), 30), \
            (tid, stored_seqs(hub.store, tid), table.logged_seqs())
        assert [{k: v for k, v in e.items() if k not in ("table", "received")}
                for e in hub.store.events(tid, limit=1000)] == table.gamelog.since(0)
        seq = table.controller.snapshot().seq
        assert wait_until(lambda i=tid, s=seq: (hub.state(i) or {}).get("seq") == s, 30)
    lines = {t["id"]: t for t in client.get("/api/tables").get_json()["tables"]}
    assert lines["t1"]["phase"] == t1.controller.snapshot().phase["phase"]
    assert lines["t2"]["phase"] == t2.controller.snapshot().phase["phase"] != lines["t1"]["phase"]
    assert all(line["online"] and line["complete_to"] == line["last_seq"] for line in lines.values())


def test_hub_restarted_catches_up_from_the_tables(make_hub, tables, tmp_path):
    t1 = tables["t1"]
    first = make_hub(client_id="hub-a")
    t1.controller.command("select", id="rifles")
    assert wait_until(lambda: stored_seqs(first.store, "t1") == t1.logged_seqs())
    first.close()
    first.store.close()
    for unit in ("gunner", "raiders", "sniper", "rifles"):     # while no hub is listening
        t1.controller.command("select", id=unit)
    tables["t2"].controller.command("advance_phase")
    again = make_hub(client_id="hub-b")                        # a new session: only replay can fill it
    for tid, table in tables.items():
        assert wait_until(lambda t=table, i=tid: stored_seqs(again.store, i) == t.logged_seqs())


def table_process(folder: Path, url: str, table_id: str, keepalive: int) -> subprocess.Popen:
    config = folder / "table.toml"
    config.write_text(f"""
[camera]
width = 640
height = 480
fps = 4
[hardware]
led_layout = "{CONFIG_DIR / 'leds' / 'edge-strip.toml'}"
pin_map = "{CONFIG_DIR / 'pins-pi4.toml'}"
[log]
path = "game.sqlite3"
[mqtt]
keepalive_s = {keepalive}
""", encoding="utf-8")
    return subprocess.Popen([sys.executable, "-m", "table.cli", "run", "--demo", "--no-web", "--config", str(config),
                             "--mqtt", url, "--table-id", table_id], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd=folder)


def test_killed_table_shows_offline_within_one_and_a_half_keepalives(make_hub, broker, tmp_path):
    keepalive = 2
    hub = make_hub()
    folder = tmp_path / "pi"
    folder.mkdir()
    process = table_process(folder, broker.url, "t9", keepalive)
    try:
        assert wait_until(lambda: "t9" in hub.views and hub.views["t9"].available == "online", 60)
        assert wait_until(lambda: hub.store.top("t9") >= 1, 30)
        os.kill(process.pid, signal.SIGKILL)
        killed = time.monotonic()
        process.wait(10)
        assert wait_until(lambda: hub.views["t9"].available == "offline", 1.5 * keepalive, 0.01)
        assert time.monotonic() - killed <= 1.5 * keepalive
        line = create_hub_app(hub).test_client().get("/api/tables").get_json()["tables"][0]
        assert line["id"] == "t9" and line["online"] is False
        # the table comes back on the same log: the hub gets whatever it missed, from the log
        process = table_process(folder, broker.url, "t9", keepalive)
        assert wait_until(lambda: hub.views["t9"].available == "online", 60)

        with sqlite3.connect(folder / "game-demo.sqlite3") as db:        # --demo keeps its own log
            logged_then = [r[0] for r in db.execute("SELECT seq FROM events ORDER BY seq")]
        assert wait_until(lambda: stored_seqs(hub.store, "t9")[:len(logged_then)] == logged_then, 30)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)


@pytest.mark.parametrize("args, message", [
    (["--mqtt", "http://club"], "--mqtt: expected mqtt://host[:port] or mqtts://host[:port]"),
    (["--mqtt", "mqtt://127.0.0.1:1", "--port", "70000"], "--port: expected 1-65535, got 70000"),
    (["--mqtt", "mqtt://127.0.0.1:1", "--topic-prefix", "a/#"], "--topic-prefix: expected words of letters"),
    (["--mqtt", "mqtt://127.0.0.1:1", "--password-file", "/nonexistent/pw"], "/nonexistent/pw: --password-file: "
                                                                              "cannot read"),
    (["--mqtt", "mqtt://127.0.0.1:1", "--db", "/proc/hub.sqlite3"], "/proc/hub.sqlite3: cannot open the hub's"),
])
def test_hub_mistakes_exit_2_with_one_line(args, message):
    done = smarttable("hub", *args)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_a_replay_answer_too_big_to_read_is_asked_for_again_in_smaller_batches(make_hub, broker, tmp_path,
                                                                               monkeypatch):
    """Twelve games in the table's log: the hub's limit on one answer lowered (from its 4 MiB) to a third
    of the whole log, so a short log shows it. The hub asks for a tenth as many events, and fewer again,
    until an answer fits, then more as answers fill the gap, and gets every event."""
    table = PublishedTable(tmp_path, broker.url, table_id="big")
    try:
        for _ in range(12):
            table.controller.command("new_game")
            table.controller.command("select", id="rifles")
        events = table.gamelog.since(0)
        whole, largest = len(json.dumps(events)), max(len(json.dumps(e)) for e in events)
        assert whole // 3 > 2 * largest
        monkeypatch.setitem(inbox.MAX_BYTES, "reply/replay", whole // 3)
        hub = make_hub(client_id="hub-big")
        assert wait_until(lambda: stored_seqs(hub.store, "big") == table.logged_seqs(), 60), \
            (stored_seqs(hub.store, "big")[-3:], table.logged_seqs()[-3:], hub.tables()[0]["rejected"])
        line = create_hub_app(hub).test_client().get("/api/tables").get_json()["tables"][0]
        assert line["rejected"]["by_reason"]["too_big"] >= 1 and line["complete_to"] == table.logged_seqs()[-1]
    finally:
        table.close()
