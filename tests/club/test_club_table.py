"""A table publishing to a real Mosquitto: availability, state, events after commit, commands,
broker outages and a broker that is not there yet."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest

from table.config import default_config, validate
from table.live.mqtt_link import settings_from_config
from tests.club.club_clients import PublishedTable, Recorder, seen_once_in_order
from tests.club.mosquitto_broker import Mosquitto, free_port, secured
from tests.inprocess import smarttable
from web_ui.sse import SnapshotText


@pytest.fixture
def table(broker, tmp_path):
    made = PublishedTable(tmp_path, broker.url, state_interval_s=0.5)
    yield made
    made.close()


def test_off_by_default_no_broker_no_link():
    assert settings_from_config(default_config()) is None


@pytest.mark.parametrize("args, message", [
    (["--table-id", "t1"], "--table-id: no broker to publish to"),
    (["--mqtt", "http://x"], "--mqtt: expected mqtt://host[:port] or mqtts://host[:port]"),
    (["--mqtt", "mqtt://127.0.0.1:1883"], "mqtt.table_id: needed when a broker is set"),
    (["--mqtt", "mqtt://127.0.0.1:1883", "--table-id", "a b"], "--table-id: expected 1-64 letters"),
])
def test_bad_broker_options_exit_2_with_one_line(args, message):
    done = smarttable("run", "--demo", "--no-web", *args)
    assert done.returncode == 2
    assert message in done.stderr and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_config_section_is_checked():
    with pytest.raises(Exception, match=r"t.toml: mqtt.keepalive_s: must be greater than 0"):
        validate({"mqtt": {"keepalive_s": 0}}, "t.toml")
    sections = validate({"mqtt": {"url": "mqtts://club.local", "table_id": "t7"}}, "t.toml")
    assert sections["mqtt"]["topic_prefix"] == "smarttable"


def test_available_is_retained_online_and_offline_on_a_clean_stop(broker, tmp_path):
    made = PublishedTable(tmp_path, broker.url, table_id="t2")
    first = Recorder(broker.url, "smarttable/t2/available")
    assert first.wait(lambda: first.payloads("available") == ["online"])
    late = Recorder(broker.url, "smarttable/t2/available")          # joins later: gets the retained one
    assert late.wait(lambda: late.messages) and late.messages[0][1:3] == ("online", True)
    made.close()
    assert first.wait(lambda: first.payloads("available")[-1:] == ["offline"])
    first.close(), late.close()


def test_state_is_the_api_state_document_retained(table, broker):
    table.controller.command("select", id="rifles")
    table.controller.settle()
    snapshot = table.controller.snapshot()
    http = json.loads(SnapshotText().json(snapshot))        # what GET /api/state answers
    watcher = Recorder(broker.url, "smarttable/t1/state")   # until the table has published this state
    assert watcher.wait(lambda: [s for s in watcher.json("state") if s["seq"] == snapshot.seq])
    late = Recorder(broker.url, "smarttable/t1/state")      # joins after it: gets the retained one first
    assert late.wait(lambda: late.messages)
    topic, payload, retained, _ = late.messages[0]
    assert retained is True and json.loads(payload) == http
    assert http["selection"]["model"] == "rifles-1" and http["scene"]["models"]
    watcher.close(), late.close()


def test_state_is_rate_limited(table, broker):
    recorder = Recorder(broker.url, "smarttable/t1/state")
    recorder.wait(lambda: recorder.messages)
    start = time.monotonic()
    for _ in range(15):
        for unit in ("rifles", "gunner"):
            table.controller.command("select", id=unit)
    elapsed = time.monotonic() - start
    final = table.controller.snapshot().seq
    assert recorder.wait(lambda: any(s["seq"] == final for s in recorder.json("state")))
    times = [t for topic, _, retained, t in recorder.messages if not retained]
    assert len(times) <= elapsed / 0.5 + 2
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert all(gap > 0.3 for gap in gaps), gaps    # 0.5 s apart, less delivery jitter on a loaded machine
    recorder.close()


def test_events_are_published_after_commit_in_order_with_seq(table, broker):
    on_disk: list[bool] = []
    db = sqlite3.connect(table.log_path, check_same_thread=False)

    def check_on_disk(client, userdata, message):
        seq = json.loads(message.payload)["seq"]
        on_disk.append(db.execute("SELECT 1 FROM events WHERE seq = ?", (seq,)).fetchone() is not None)

    recorder = Recorder(broker.url, "smarttable/t1/events")
    recorder.client.message_callback_add("smarttable/t1/events", lambda c, u, m: (check_on_disk(c, u, m),
                                                                                 recorder._on_message(c, u, m)))
    assert recorder.subscribed()
    before = table.gamelog.last_seq()
    table.controller.command("select", id="rifles")
    table.controller.command("target", id="raiders")
    table.controller.command("roll", kind="dice", count=3, sides=6)
    table.controller.command("advance_phase")
    logged = [e for e in table.gamelog.since(before)]
    assert recorder.wait(lambda: len(recorder.payloads("events")) >= len(logged))
    events = recorder.json("events")
    assert events == logged                           # the log's own events, seq and all, in order
    assert [e["kind"] for e in events][:3] == ["select", "target", "roll"]
    assert on_disk and all(on_disk)
    assert not any(retained for _, _, retained, _ in recorder.messages)
    recorder.close()
    db.close()


def test_commands_answer_on_reply_topics(table, broker):
    recorder = Recorder(broker.url, "smarttable/t1/reply/#")
    assert recorder.subscribed()
    recorder.send("smarttable/t1/cmd/select", {"id": "raiders", "request_id": "r1"})
    recorder.send("smarttable/t1/cmd/fly", {})
    recorder.send("smarttable/t1/cmd/select", {"nonsense": 1})
    recorder.send("smarttable/t1/cmd/target", [1, 2])
    recorder.client.publish("smarttable/t1/cmd/roll", b"{not json", qos=1).wait_for_publish(5)
    assert recorder.wait(lambda: len(recorder.messages) >= 5)
    by_topic = [(t.rpartition("/reply/")[2], json.loads(p)) for t, p, _, _ in recorder.messages]
    assert by_topic[0] == ("select", {"ok": True, "command": "select",
                                      "result": {"selected": "raiders-1", "target": None},
                                      "seq": by_topic[0][1]["seq"], "request_id": "r1"})
    assert table.controller.snapshot().selection["model"] == "raiders-1"
    assert by_topic[1][0] == "fly" and "unknown command 'fly'" in by_topic[1][1]["error"]
    assert by_topic[2][1]["ok"] is False and "nonsense" in by_topic[2][1]["error"]
    assert by_topic[3][1]["error"] == "cmd/target: payload: expected a JSON object of parameters"
    assert by_topic[4][0] == "roll" and "not JSON" in by_topic[4][1]["error"]
    recorder.close()


def test_replay_answers_the_logged_events(table, broker):
    for unit in ("rifles", "gunner", "raiders"):
        table.controller.command("select", id=unit)
    recorder = Recorder(broker.url, "smarttable/t1/reply/replay")
    assert recorder.subscribed()
    recorder.send("smarttable/t1/cmd/replay", {"after": 1, "limit": 2})
    recorder.send("smarttable/t1/cmd/replay", {"after": -1})
    assert recorder.wait(lambda: len(recorder.messages) >= 2)
    first, bad = recorder.json("replay")
    assert first["result"] == {"events": table.gamelog.since(1, 2), "more": True}
    assert [e["seq"] for e in first["result"]["events"]] == [2, 3]
    assert "after: expected a whole number at least 0" in bad["error"]
    recorder.close()


def test_broker_restarted_mid_game_every_event_once_in_order(table, broker):
    recorder = Recorder(broker.url, "smarttable/t1/events", client_id="seq-tracker", persistent=True)
    assert recorder.subscribed()
    units = ("rifles", "gunner", "raiders", "sniper")
    for unit in units:
        table.controller.command("select", id=unit)
    broker.stop()
    assert recorder.wait(lambda: not table.link.connected, 5) is not False
    for unit in units * 2:                          # the table plays on while the broker is away
        table.controller.command("select", id=unit)
    broker.start()
    for unit in units:
        table.controller.command("select", id=unit)
    logged = table.logged_seqs()
    fresh = [s for s in logged if s > logged[0]]
    got = recorder.wait(lambda: [e["seq"] for e in recorder.json("events")][-1:] == logged[-1:], 20)
    assert got, (recorder.json("events"), logged)
    seqs = [e["seq"] for e in recorder.json("events")]
    assert set(fresh) <= set(seqs)
    assert seen_once_in_order(seqs) == [s for s in logged if s >= seqs[0]]
    recorder.close()


def test_table_before_the_broker_retries_with_backoff_and_plays_on(tmp_path):
    port = free_port()
    url = f"mqtt://127.0.0.1:{port}"
    table = PublishedTable(tmp_path, url, listen=False, reconnect=(0.2, 1.6))
    try:
        for unit in ("rifles", "raiders"):
            assert table.controller.command("select", id=unit)["selected"]
        # the waits 0.2, 0.4, 0.8 and 1.6 s take about 3 s, longer on a loaded machine: wait for a long one
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            attempts = list(table.link.attempts)
            gaps = [b - a for a, b in zip(attempts, attempts[1:], strict=False)]
            if len(attempts) >= 3 and max(gaps) > 1.4:
                break
            time.sleep(0.1)
        # the waits double from 0.2 s up to 1.6 s (paho sleeps them in steps)
        assert len(attempts) >= 3 and max(gaps) > 1.4 and all(g < 2.6 for g in gaps), gaps
        assert all(b >= a - 0.1 for a, b in zip(gaps, gaps[1:], strict=False)), gaps
        assert not table.link.connected
        broker = Mosquitto(tmp_path / "late-broker", port)
        broker.start()
        try:
            recorder = Recorder(url, "smarttable/t1/#")
            assert recorder.wait(lambda: table.link.connected and recorder.payloads("available"), 10)
            table.controller.command("select", id="gunner")
            logged = table.logged_seqs()
            assert recorder.wait(lambda: [e["seq"] for e in recorder.json("events")][-1:] == logged[-1:])
            # the events committed before the broker existed went out too, once, in order
            assert [e["seq"] for e in recorder.json("events")] == logged[1:]
            recorder.close()
        finally:
            broker.stop()
    finally:
        table.close()


def test_the_documented_acl_keeps_each_table_to_its_own_topics(tmp_path):
    folder = tmp_path / "secure"
    broker = secured(folder, ("hub", "t1", "t2"))
    broker.start()
    port = broker.port
    table = PublishedTable(tmp_path, f"mqtt://t1:pw-t1@127.0.0.1:{port}")
    try:
        hub = Recorder(f"mqtt://hub:pw-hub@127.0.0.1:{port}", "smarttable/#")
        assert hub.wait(lambda: hub.payloads("t1/available") == ["online"])
        hub.send("smarttable/t1/cmd/select", {"id": "sniper"})          # the hub may command a table
        assert hub.wait(lambda: hub.json("t1/reply/select"))[0]["ok"] is True
        rogue = Recorder(f"mqtt://t1:pw-t1@127.0.0.1:{port}", "smarttable/t2/#", client_id="rogue")
        rogue.send("smarttable/t2/state", {"forged": True})                # t1 may not speak for t2
        rogue.send("smarttable/t2/cmd/select", {"id": "rifles"})          # nor command another table
        hub.send("smarttable/t1/state", {"forged": True})                  # nor the hub publish a state
        anonymous = Recorder(f"mqtt://127.0.0.1:{port}", "smarttable/#", client_id="anon")
        time.sleep(1.0)
        assert hub.payloads("t2/state") == [] and hub.payloads("t2/cmd/select") == []
        assert all("forged" not in p for p in hub.payloads("t1/state"))
        assert anonymous.messages == []                                    # no user, nothing
        for client in (hub, rogue, anonymous):
            client.close()
    finally:
        table.close()
        broker.stop()
