"""One bad message must not kill the hub (issue 25): each is published for real to a real Mosquitto, and
afterwards the hub still hears a good table, answers /api/tables, and shows what it dropped, for which
table and why."""

from __future__ import annotations

import json
import time

import pytest

from hub.listener import Hub
from hub.store import HubStore
from hub.web import create_hub_app
from table.broker import parse_url
from tests.club.club_clients import PublishedTable, Recorder, publish_raw
from tests.club.mosquitto_broker import secured

DEEP_EVENT = "[" * 100_000 + "]" * 100_000
DEEP_STATE = '{"a":' * 50_000 + "1" + "}" * 50_000


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


def event(seq, **fields):
    return json.dumps({"seq": seq, "game": 1, "ts": 1700000000.0, "kind": "select", "model": "rifles-1",
                       **fields})


@pytest.fixture
def make_hub(tmp_path):
    made = []

    def make(url, client_id="hub-poison", db=None, **options):
        hub = Hub(HubStore(db or tmp_path / "hub.sqlite3"), parse_url(url), client_id=client_id,
                  reconnect=(0.2, 1.0), **options)
        hub.start()
        made.append(hub)
        assert hub.connected.wait(10)
        return hub

    yield make
    for hub in made:
        hub.close()
        hub.store.close()


@pytest.fixture
def good(broker, tmp_path):
    table = PublishedTable(tmp_path, broker.url, table_id="good", state_interval_s=0.2)
    yield table
    table.close()


def line_of(hub: Hub, table_id: str) -> dict:
    """The table's line in /api/tables (empty while the hub has not heard of it)."""
    listed = create_hub_app(hub).test_client().get("/api/tables")
    assert listed.status_code == 200
    return next((t for t in listed.get_json()["tables"] if t["id"] == table_id), {})


def rejected(hub: Hub, table_id: str) -> int:
    return line_of(hub, table_id).get("rejected", {}).get("count", 0)


def the_good_table_still_updates(hub: Hub, table: PublishedTable) -> None:
    table.controller.command("select", id="sniper")
    assert wait_until(lambda: stored_seqs(hub.store, "good") == table.logged_seqs()), \
        (stored_seqs(hub.store, "good"), table.logged_seqs())
    assert wait_until(lambda: (hub.state("good") or {}).get("seq") == table.controller.snapshot().seq)
    listed = create_hub_app(hub).test_client().get("/api/tables").get_json()
    assert listed["connected"] is True and listed["listener"]["alive"] is True


POISON = {
    "game is an object": ("events", event(1, game={})),
    "ts is a list": ("events", event(1, ts=[1])),
    "seq is 2**63": ("events", event(2**63)),
    "nested 100,000 deep": ("events", DEEP_EVENT),
    "a seq of 4,301 digits": ("events", event(0).replace('"seq": 0', '"seq": ' + "9" * 4301)),
    "not UTF-8": ("events", b'{"seq": 1, "kind": "\xff\xfe"}'),
    "an unclosed string of 60,000 escaped quotes": ("events", "[" * 65 + '"' + '\\"' * 60_000),
    "a huge seq in a replay answer": ("reply/replay", json.dumps(
        {"ok": True, "command": "replay", "result": {"events": [json.loads(event(2**64))], "more": False}})),
}


@pytest.mark.parametrize("name", list(POISON))
def test_one_bad_message_is_dropped_and_counted_and_the_hub_hears_on(name, broker, make_hub, good):
    hub = make_hub(broker.url)
    assert wait_until(lambda: stored_seqs(hub.store, "good") == good.logged_seqs())
    topic, payload = POISON[name]
    if topic == "reply/replay":          # an answer to the hub's own request, as a rogue could send it
        asked = Recorder(broker.url, "smarttable/bad/cmd/replay")
        assert asked.subscribed()
        publish_raw(broker.url, "smarttable/bad/available", "online")
        request = asked.wait(lambda: asked.json("cmd/replay"))[0]
        asked.close()
        payload = json.dumps({**json.loads(payload), "request_id": request["request_id"]})
    publish_raw(broker.url, f"smarttable/bad/{topic}", payload)
    assert wait_until(lambda: rejected(hub, "bad") == 1), line_of(hub, "bad")
    the_good_table_still_updates(hub, good)
    bad = line_of(hub, "bad")
    assert bad["events"] == 0 and bad["last_seq"] == 0
    assert bad["rejected"]["recent"][0]["topic"] == f"smarttable/bad/{topic}"
    assert bad["rejected"]["recent"][0]["error"]
    assert line_of(hub, "good")["rejected"]["count"] == 0       # the other table is untouched


def test_a_retained_state_nested_50000_deep_is_refused_and_the_dashboard_answers(broker, make_hub, good):
    hub = make_hub(broker.url)
    publish_raw(broker.url, "smarttable/deep/state", DEEP_STATE, retain=True)
    publish_raw(broker.url, "smarttable/deep/available", "online", retain=True)
    assert wait_until(lambda: rejected(hub, "deep") == 1)
    client = create_hub_app(hub).test_client()
    assert client.get("/api/tables").status_code == 200
    one = client.get("/api/tables/deep")
    assert one.status_code == 200 and one.get_json()["state"] is None
    assert "nested" in one.get_json()["rejected"]["recent"][0]["error"]
    the_good_table_still_updates(hub, good)
    assert client.get("/api/tables/good").get_json()["state"]["seq"] == good.controller.snapshot().seq


def test_a_later_event_with_a_held_seq_never_replaces_it_and_is_shown_as_a_conflict(broker, make_hub, good):
    """On an anonymous broker anyone may publish as any table: the hub keeps the first event of each seq
    and flags every different one after it, for the past (a real event held) and the future alike."""
    hub = make_hub(broker.url)
    assert wait_until(lambda: stored_seqs(hub.store, "good") == good.logged_seqs())
    real_first = hub.store.events("good")[0]
    publish_raw(broker.url, "smarttable/good/events", event(1, kind="phase"))     # a fake for a held seq
    top = good.logged_seqs()[-1]
    for seq in range(top + 1, top + 9):                                           # fakes ahead of the table
        publish_raw(broker.url, "smarttable/good/events", event(seq, model="fake"))
    for unit in ("rifles", "gunner", "raiders", "sniper") * 2:                    # the real ones come after
        good.controller.command("select", id=unit)
    assert wait_until(lambda: line_of(hub, "good").get("conflicts", {}).get("count") == 9), line_of(hub, "good")
    assert hub.store.events("good")[0] == real_first
    line = line_of(hub, "good")
    assert line["conflicts"]["seqs"] == [1, *range(top + 1, top + 9)]
    shown = create_hub_app(hub).test_client().get("/api/tables/good/conflicts").get_json()["conflicts"]
    assert [c["seq"] for c in shown] == line["conflicts"]["seqs"]
    assert shown[0]["kept"]["kind"] == "game_start" and shown[0]["other"]["kind"] == "phase"
    assert all(c["kept"]["model"] == "fake" and c["other"]["model"] != "fake" for c in shown[1:])
    assert line["events"] == len(good.logged_seqs())                  # one event per seq, no more


def test_a_fake_seq_far_ahead_is_not_stored_nor_chased(broker, make_hub, good):
    """A seq of 1e9 made the hub ask for a replay about 11 times a second for ever."""
    hub = make_hub(broker.url)
    assert wait_until(lambda: stored_seqs(hub.store, "good") == good.logged_seqs())
    asked = Recorder(broker.url, "smarttable/good/cmd/replay")
    assert asked.subscribed()
    publish_raw(broker.url, "smarttable/good/events", event(10**9))
    time.sleep(4.0)
    asks = len(asked.payloads("cmd/replay"))
    asked.close()
    assert asks <= 2, asks
    line = line_of(hub, "good")
    assert line["last_seq"] == good.logged_seqs()[-1] and line["rejected"]["count"] == 1
    assert "ahead" in line["rejected"]["recent"][0]["error"]
    the_good_table_still_updates(hub, good)


def test_the_hub_sessions_poison_message_is_not_redelivered_at_each_restart(broker, make_hub, good, tmp_path):
    """The hub's persistent session holds a message queued while it was away: handled once, and acknowledged."""
    first = make_hub(broker.url, client_id="hub-kept")
    assert wait_until(lambda: stored_seqs(first.store, "good") == good.logged_seqs())
    first.close()
    first.store.close()
    publish_raw(broker.url, "smarttable/bad/events", DEEP_EVENT)         # queued for the hub's session
    again = make_hub(broker.url, client_id="hub-kept")
    assert wait_until(lambda: rejected(again, "bad") == 1)
    the_good_table_still_updates(again, good)
    again.close()
    again.store.close()
    third = make_hub(broker.url, client_id="hub-kept")
    the_good_table_still_updates(third, good)
    time.sleep(1.0)
    assert "bad" not in [t["id"] for t in create_hub_app(third).test_client().get("/api/tables").get_json()["tables"]]


def test_under_the_club_acl_one_tables_garbage_does_not_silence_another(tmp_path, make_hub):
    """table-7 may write only its own topics (docs/club.md's ACL), which is enough to have killed the hub."""
    broker = secured(tmp_path / "secure", ("hub", "table-7", "table-8"))
    broker.start()
    url = f"mqtt://127.0.0.1:{broker.port}"
    table8 = PublishedTable(tmp_path, f"mqtt://table-8:pw-table-8@127.0.0.1:{broker.port}", table_id="table-8")
    try:
        hub = make_hub(f"mqtt://hub:pw-hub@127.0.0.1:{broker.port}")
        assert wait_until(lambda: stored_seqs(hub.store, "table-8") == table8.logged_seqs())
        rogue = url.replace("mqtt://", "mqtt://table-7:pw-table-7@")
        garbage = [payload for topic, payload in POISON.values() if topic == "events"]
        for payload in garbage:
            publish_raw(rogue, "smarttable/table-7/events", payload, client_id="table-7")
        publish_raw(rogue, "smarttable/table-7/state", DEEP_STATE, retain=True, client_id="table-7")
        assert wait_until(lambda: rejected(hub, "table-7") == len(garbage) + 1)
        for unit in ("rifles", "gunner", "raiders"):
            table8.controller.command("select", id=unit)
        assert wait_until(lambda: stored_seqs(hub.store, "table-8") == table8.logged_seqs())
        assert wait_until(lambda: (hub.state("table-8") or {}).get("seq") == table8.controller.snapshot().seq)
        assert line_of(hub, "table-8")["rejected"]["count"] == 0
    finally:
        table8.close()
        broker.stop()


def test_a_deaf_hub_does_not_say_it_is_connected(broker, make_hub, good):
    """The MQTT thread ended (as an error escaping paho would end it), and nothing has started it again yet."""
    hub = make_hub(broker.url, sweep_s=3600.0)          # the watchdog looks only once an hour
    assert wait_until(lambda: stored_seqs(hub.store, "good") == good.logged_seqs())
    hub.client.loop_stop()
    good.controller.command("select", id="gunner")
    time.sleep(1.0)
    assert stored_seqs(hub.store, "good") != good.logged_seqs()          # deaf
    listed = create_hub_app(hub).test_client().get("/api/tables").get_json()
    assert listed["connected"] is False and listed["listener"]["alive"] is False


def test_an_mqtt_thread_that_ended_is_started_again(broker, make_hub, good):
    hub = make_hub(broker.url)
    assert wait_until(lambda: stored_seqs(hub.store, "good") == good.logged_seqs())
    hub.client.loop_stop()
    assert wait_until(lambda: hub.health.restarts == 1)
    the_good_table_still_updates(hub, good)
    assert create_hub_app(hub).test_client().get("/api/tables").get_json()["listener"]["restarts"] == 1
