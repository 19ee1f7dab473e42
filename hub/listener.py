"""The hub's broker side: every table's availability, newest state and events (paho-mqtt).

Events go into the store as they come; a table that comes online, or whose events arrive with a
gap, is asked to `replay` from the last `seq` the hub holds without a gap, batch by batch, so a
hub restarted mid-evening (or that missed events) catches up with nothing lost.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from hub.store import HubStore
from table.broker import Broker, Topics, split_topic

log = logging.getLogger(__name__)

ASK_AGAIN_S = 2.0          # a replay not answered by then is asked again


@dataclass
class TableView:
    """What the hub knows of one table."""

    table_id: str
    available: str = "unknown"
    available_at: float = 0.0
    state_text: str = ""
    state_at: float = 0.0
    parsed: tuple[str, dict[str, Any]] | None = field(default=None, repr=False)

    def state(self) -> dict[str, Any] | None:
        """The newest state document (parsed once per message, when first asked for)."""
        if not self.state_text:
            return None
        if self.parsed is None or self.parsed[0] is not self.state_text:
            try:
                doc = json.loads(self.state_text)
            except json.JSONDecodeError:
                doc = {}
            self.parsed = (self.state_text, doc if isinstance(doc, dict) else {})
        return self.parsed[1]


def summary(doc: dict[str, Any] | None) -> dict[str, Any]:
    """The dashboard's line for a state document: rule system, turn, phase, players, warnings."""
    if not doc:
        return {"ruleset": None, "turn": None, "phase": None, "player": None, "players": [], "warnings": [],
                "open_disputes": 0, "camera": None, "state_seq": None}
    phase, scene, status = _object(doc.get("phase")), _object(doc.get("scene")), _object(doc.get("status"))
    units, warnings = _objects(scene.get("units")), _objects(doc.get("warnings"))
    return {"ruleset": doc.get("ruleset"), "turn": phase.get("turn"), "phase": phase.get("phase"),
            "player": phase.get("player"),
            "players": sorted({str(u["player"]) for u in units if u.get("player")}),
            "warnings": [{"id": w.get("id"), "message": w.get("message", ""),
                          "acknowledged": bool(w.get("acknowledged"))} for w in warnings],
            "open_disputes": sum(1 for w in warnings if not w.get("acknowledged")),
            "camera": status.get("camera"), "state_seq": doc.get("seq")}


def _object(value: object) -> dict[str, Any]:
    """`value` if it is a JSON object, else an empty one (a table may publish junk)."""
    return value if isinstance(value, dict) else {}


def _objects(value: object) -> list[dict[str, Any]]:
    """The JSON objects in `value` if it is a list, else none."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


class Hub:
    """Subscribes to every table under `prefix` on `broker`; `start()`, then `close()`."""

    def __init__(self, store: HubStore, broker: Broker, prefix: str = "smarttable", *,
                 client_id: str = "smarttable-hub", keepalive_s: int = 10,
                 reconnect: tuple[float, float] = (0.5, 10.0)):
        self.store, self.broker, self.prefix = store, broker, prefix
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False,
                                  protocol=mqtt.MQTTv311)
        if broker.username:
            self.client.username_pw_set(broker.username, broker.password or None)
        if broker.tls:
            self.client.tls_set()
        self.client.reconnect_delay_set(*reconnect)  # type: ignore[arg-type]
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.keepalive_s = keepalive_s
        self.views: dict[str, TableView] = {}
        self._asked: dict[str, tuple[int, float]] = {}      # table -> (after, when) of the replay asked
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._sweeper = threading.Thread(target=self._sweep, name="hub-sweep", daemon=True)
        self.request_id = f"hub-{uuid.uuid4().hex[:8]}"
        self.connected = threading.Event()
        for table_id in store.counts():
            self.views[table_id] = TableView(table_id)

    def start(self) -> None:
        self.client.connect_async(self.broker.host, self.broker.port, self.keepalive_s)
        self.client.loop_start()
        self._sweeper.start()

    def close(self) -> None:
        self._stop.set()
        self.client.disconnect()
        self.client.loop_stop()
        if self._sweeper.is_alive():
            self._sweeper.join(5.0)

    # ------------------------------------------------------------ paho callbacks (its network thread)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if reason.is_failure:
            log.warning("hub: %s refused the connection: %s", self.broker, reason)
            return
        p = self.prefix
        client.subscribe([(f"{p}/+/available", 1), (f"{p}/+/state", 0), (f"{p}/+/events", 1),
                          (f"{p}/+/reply/replay", 1)])
        self.connected.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        where = split_topic(self.prefix, message.topic)
        if where is None:
            return
        table_id, kind = where
        try:
            if kind == "events":
                self._event(table_id, json.loads(message.payload))
            elif kind == "state":
                view = self._view(table_id)
                view.state_text, view.state_at = message.payload.decode("utf-8", "replace"), time.time()
            elif kind == "available":
                self._available(table_id, message.payload.decode("utf-8", "replace"))
            elif kind == "reply/replay":
                self._replayed(table_id, json.loads(message.payload))
        except (ValueError, TypeError, KeyError) as exc:   # a table sending junk must not stop the hub
            log.warning("hub: %s: %s", message.topic, exc)

    # ------------------------------------------------------------ what came in

    def _view(self, table_id: str) -> TableView:
        with self._lock:
            if table_id not in self.views:
                self.views[table_id] = TableView(table_id)
            return self.views[table_id]

    def _available(self, table_id: str, value: str) -> None:
        view = self._view(table_id)
        view.available, view.available_at = value, time.time()
        if value == "online":
            self._ask(table_id, force=True)            # catch up with whatever the hub missed

    def _event(self, table_id: str, event: Any) -> None:
        if not isinstance(event, dict) or not isinstance(event.get("seq"), int):
            raise ValueError("an event is an object with an integer seq")
        self._view(table_id)
        self.store.add(table_id, [event])
        if self.store.contiguous(table_id) < event["seq"]:
            self._ask(table_id)

    def _replayed(self, table_id: str, reply: Any) -> None:
        if not isinstance(reply, dict) or not reply.get("ok"):
            return
        events = [e for e in reply["result"]["events"]
                  if isinstance(e, dict) and isinstance(e.get("seq"), int)]
        self.store.add(table_id, events)
        if reply["result"].get("more") or self.store.contiguous(table_id) < self.store.top(table_id):
            self._ask(table_id, force=True)
        else:
            with self._lock:
                self._asked.pop(table_id, None)

    def _ask(self, table_id: str, force: bool = False) -> None:
        """Ask the table for the events after the last one held without a gap (once per
        ASK_AGAIN_S for the same point, unless `force`)."""
        after = self.store.contiguous(table_id)
        now = time.monotonic()
        with self._lock:
            last = self._asked.get(table_id)
            if not force and last is not None and last[0] == after and now - last[1] < ASK_AGAIN_S:
                return
            self._asked[table_id] = (after, now)
        self.client.publish(Topics(self.prefix, table_id).cmd("replay"),
                            json.dumps({"after": after, "request_id": self.request_id}), qos=1)

    def _sweep(self) -> None:
        """Ask again for gaps whose replay was not answered (the table was away, a message lost)."""
        while not self._stop.wait(ASK_AGAIN_S):
            with self._lock:
                pending = list(self._asked)
            for table_id in pending:
                view = self.views.get(table_id)
                if view is not None and view.available == "online":
                    self._ask(table_id)

    # ------------------------------------------------------------ what the dashboard reads

    def tables(self) -> list[dict[str, Any]]:
        counts = self.store.counts()
        with self._lock:
            views = sorted(self.views.values(), key=lambda v: v.table_id)
        return [{"id": v.table_id, "online": v.available == "online", "available": v.available,
                 "available_since": v.available_at or None, "state_at": v.state_at or None,
                 **summary(v.state()), "events": counts.get(v.table_id, 0),
                 "last_seq": self.store.top(v.table_id), "complete_to": self.store.contiguous(v.table_id)}
                for v in views]

    def state(self, table_id: str) -> dict[str, Any] | None:
        view = self.views.get(table_id)
        return None if view is None else view.state()
