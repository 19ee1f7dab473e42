"""Server-sent events through a real waitress server: sequence numbers, throttling, resuming."""

from __future__ import annotations

import http.client
import json
import time
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.web.server import PIN, LiveServer
from web_ui import create_app
from web_ui.sse import apply_patch, patch


class Events:
    """A minimal SSE reader over http.client."""

    def __init__(self, url: str, path: str = "/api/events", headers: dict[str, str] | None = None):
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
        self.conn.request("GET", path, headers=headers or {})
        self.response = self.conn.getresponse()

    def next(self, kind: str = "state") -> dict:
        """The next `kind` event's id and data (other events, comments and retry lines skipped)."""
        event: dict = {}
        while True:
            line = self.response.readline().decode().rstrip("\n")
            if not line:
                if "data" in event and event.get("event", "message") == kind:
                    return event
                event = {}
                continue
            name, _, value = line.partition(": ")
            if name == "id":
                event["id"] = int(value)
            elif name == "event":
                event["event"] = value
            elif name == "data":
                event["data"] = json.loads(value)

    def close(self) -> None:
        self.response.close()
        self.conn.close()


def post(url: str, path: str, body: dict | None = None) -> dict:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
    conn.request("POST", path, body=json.dumps(body or {}),
                 headers={"X-Table-PIN": PIN, "Content-Type": "application/json"})
    data = json.loads(conn.getresponse().read())
    conn.close()
    return data


def test_first_event_is_the_current_state_then_each_change(live, table):
    events = Events(live.url)
    assert events.response.getheader("Content-Type").startswith("text/event-stream")
    first = events.next()
    assert first["id"] == first["data"]["seq"] == table.snapshot().seq
    assert first["data"]["state"]["phase"]["phase"] == "initiative"
    reply = post(live.url, "/api/phase/advance")
    second = events.next()
    assert second["id"] == reply["seq"] > first["id"]
    assert second["data"]["state"]["phase"]["phase"] == "activations"
    events.close()


def test_a_burst_is_coalesced_and_the_last_state_always_arrives(table, tmp_path):
    """Twelve changes 50 ms apart reach the page as at most one event per 0.3 s interval, the last state
    always among them. Counted over the whole burst, not gap by gap: the server sends each event 0.3 s or
    more after the one before, but on a loaded machine two can reach the client closer together (the
    first delayed in delivery); a count cannot grow that way."""
    changes, interval = 12, 0.3
    app = create_app(table, pin=PIN, data_dir=tmp_path, sse_interval_s=interval, heartbeat_s=0.5)
    server = LiveServer(app)
    try:
        events = Events(server.url)
        first = events.next()
        start = time.monotonic()
        for _ in range(changes):
            post(server.url, "/api/phase/advance")
            time.sleep(0.05)
        final = table.snapshot().seq
        seen = [first["id"]]
        while seen[-1] != final:
            seen.append(events.next()["id"])
        elapsed = time.monotonic() - start
        assert seen == sorted(set(seen))                  # increasing, no repeats
        sent = len(seen) - 1
        assert sent < changes                             # coalesced: fewer events than changes
        assert sent <= elapsed / interval + 1, (sent, elapsed)   # one event an interval at most
        events.close()
    finally:
        server.close()


def test_resume_after_a_known_sequence_number(live, table):
    current = table.snapshot().seq
    events = Events(live.url, headers={"Last-Event-ID": str(current)})
    post(live.url, "/api/phase/advance")
    event = events.next()
    assert event["id"] == table.snapshot().seq > current     # nothing replayed from before
    events.close()


def test_too_many_streams_are_refused_with_429(table, tmp_path):
    app = create_app(table, pin=PIN, data_dir=tmp_path, max_streams=1, heartbeat_s=0.2)
    server = LiveServer(app)
    try:
        first = Events(server.url)
        first.next()
        second = Events(server.url)
        assert second.response.status == 429
        assert json.loads(second.response.read())["field"] == "path"
        second.close()
        first.close()
        deadline = time.monotonic() + 5                      # the first stream notices and frees its slot
        while True:
            third = Events(server.url)
            if third.response.status == 200 or time.monotonic() > deadline:
                break
            third.close()
            time.sleep(0.2)
        assert third.response.status == 200
        third.close()
    finally:
        server.close()


@pytest.mark.parametrize("header", ["x", "1.5"])
def test_bad_last_event_id_is_a_400(client, header):
    response = client.get("/api/events", headers={"Last-Event-ID": header})
    assert response.status_code == 400 and response.get_json()["field"] == "Last-Event-ID"


def test_patch_events_rebuild_exactly_the_state_the_table_serves(live, table):
    events = Events(live.url, "/api/events?patch=1")
    first = events.next()["data"]
    state = first["state"]                                         # whole on connect
    sizes = []
    for step in range(4):
        if step % 2:
            post(live.url, "/api/phase/advance")
        else:
            post(live.url, "/api/select", {"id": "rifles-1" if step == 0 else "raiders-1"})
        raw = events.next()
        message = raw["data"]
        assert "state" not in message and message["base"] == state["seq"]
        sizes.append(len(json.dumps(message)))
        state = apply_patch(state, message)
        served = json.loads(urlopen_text(live.url + "/api/state"))
        assert state == served
    whole = len(json.dumps(first))
    assert max(sizes) < whole / 3, (sizes, whole)                    # a change costs a fraction of the board
    events.close()


def test_without_patch_every_event_is_whole(live, table):
    events = Events(live.url)
    events.next()
    post(live.url, "/api/phase/advance")
    assert "state" in events.next()["data"]
    events.close()


def urlopen_text(url: str) -> str:
    import urllib.request

    with urllib.request.urlopen(url, timeout=5) as response:
        return response.read().decode()


JSON = st.recursive(st.none() | st.booleans() | st.integers(-5, 5) | st.text("ab", max_size=2),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text("xyz", max_size=1), inner,
                                                                                 max_size=4), max_leaves=12)


PARTS = st.fixed_dictionaries({"status": JSON, "scene": JSON, "leds": JSON, "phase": JSON})


@given(PARTS, PARTS)
def test_a_patch_applied_gives_back_the_new_state(old, new):
    """A snapshot has the same parts every time; anything inside them may change, appear or go."""
    old, new = {"seq": 1, **old}, {"seq": 2, **new}
    assert apply_patch(old, {"seq": 2, "base": 1, "parts": patch(old, new)}) == new
