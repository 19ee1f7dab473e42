"""The hub's broker side: every table's availability, newest state and events (paho-mqtt).

Every message is read at the edge (hub/inbox.py) before it touches anything: a bad one is logged,
counted for its table (shown on the dashboard) and dropped, and never reaches another table's view.
Handling one message cannot end the MQTT thread (a failure is contained and counted), and a thread
found dead is started again; `/api/tables` says whether it is alive.

Events go into the store as they come; a table that comes online, or whose events arrive with a
gap, is asked to `replay` from the last `seq` the hub holds without a gap, batch by batch, so a
hub restarted mid-evening (or that missed events) catches up with nothing lost. The asks are paced
(hub/views.py `Pacer`), and a live event too far past what the hub holds is not believed.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from hub import inbox
from hub.inbox import AHEAD, Rejected
from hub.store import HubStore
from hub.views import ASK_AGAIN_S, ASK_SPACING_S, Health, TableView, summary
from table import strictjson
from table.broker import Broker, Topics, split_topic

log = logging.getLogger(__name__)

MAX_TABLES = 1000        # tables with a view; one that never sent a message the hub kept makes way first


class Hub:
    """Subscribes to every table under `prefix` on `broker`; `start()`, then `close()`."""

    def __init__(self, store: HubStore, broker: Broker, prefix: str = "smarttable", *,
                 client_id: str = "smarttable-hub", keepalive_s: int = 10,
                 reconnect: tuple[float, float] = (0.5, 10.0), sweep_s: float = ASK_AGAIN_S / 4):
        self.store, self.broker, self.prefix = store, broker, prefix
        self.sweep_s = sweep_s
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False,
                                  protocol=mqtt.MQTTv311)
        if broker.username:
            self.client.username_pw_set(broker.username, broker.password or None)
        if broker.tls:
            self.client.tls_set()
        self.client.reconnect_delay_set(*reconnect)  # type: ignore[arg-type]
        self.client.suppress_exceptions = True       # paho logs what escapes a callback rather than dying
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.keepalive_s = keepalive_s
        self.views: dict[str, TableView] = {}
        self.health = Health()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._sweeper = threading.Thread(target=self._sweep, name="hub-sweep", daemon=True)
        self.request_id = f"hub-{uuid.uuid4().hex[:8]}"
        self.connected = threading.Event()
        for table_id in store.counts():
            self.views[table_id] = TableView(table_id, heard=True)

    def start(self) -> None:
        self.client.connect_async(self.broker.host, self.broker.port, self.keepalive_s)
        self.client.loop_start()
        self._sweeper.start()

    @property
    def alive(self) -> bool:
        """The MQTT thread is running (paho's own, which `loop_start` made and clears when it ends)."""
        thread: threading.Thread | None = getattr(self.client, "_thread", None)
        return thread is not None and thread.is_alive()

    def close(self) -> None:
        self._stop.set()
        if self._sweeper.is_alive():
            self._sweeper.join(5.0)
        self.client.disconnect()
        self.client.loop_stop()

    @property
    def listening(self) -> bool:
        """Connected, with the MQTT thread alive."""
        return self.connected.is_set() and self.alive

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

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        if self.connected.is_set() and not self._stop.is_set():
            log.warning("hub: lost %s: %s; retrying", self.broker, reason)
        self.connected.clear()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        """One message; whatever happens in handling it stays here (and is acknowledged once)."""
        self.health.messages += 1
        try:
            self._handle(message)
        except Exception as exc:  # a bug met by one message: counted and shown, the thread goes on
            self.health.failures += 1
            self.health.last_failure = f"{type(exc).__name__}: {exc}"[:300]
            log.exception("hub: handling a message on %r", message.topic)

    def _handle(self, message: mqtt.MQTTMessage) -> None:
        try:
            topic = message.topic
        except UnicodeDecodeError:
            topic = ""
        where = split_topic(self.prefix, topic)
        if where is None or where[1] not in inbox.MAX_BYTES:
            self.health.ignored["topic"] += 1
            return
        table_id, kind = where
        view = self._view(table_id)
        if view is None:
            self.health.ignored["tables"] += 1
            return
        payload = bytes(message.payload)
        try:
            if kind == "events":
                self._event(view, inbox.read_event(inbox.parse(payload, "events")))
            elif kind == "state":
                view.state, view.state_at = inbox.read_state(payload), time.time()
            elif kind == "available":
                self._available(view, inbox.read_available(payload))
            else:
                self._replied(view, topic, inbox.parse(payload, "reply/replay"))
        except Rejected as exc:
            self._refused(view, topic, exc)
            if kind == "reply/replay" and exc.reason == "too_big":
                with self._lock:
                    view.pacer.too_big()            # most likely the answer to the hub's ask: fewer at a time
            return
        view.heard = True

    def _refused(self, view: TableView, topic: str, exc: Rejected) -> None:
        count = view.faults.add(topic, exc)
        if count & (count - 1) == 0:          # the 1st, 2nd, 4th, 8th...: a flood does not flood the log
            log.warning("hub: %s: refused (%s, %d so far): %s", topic, exc.reason, count, exc.message[:200])

    # ------------------------------------------------------------ what came in

    def _view(self, table_id: str) -> TableView | None:
        """The table's view, made on its first message; None when MAX_TABLES are known and none of them
        is a table that only ever sent what the hub refused (the oldest such makes way)."""
        with self._lock:
            view = self.views.get(table_id)
            if view is None:
                if len(self.views) >= MAX_TABLES:
                    unheard = [v for v in self.views.values() if not v.heard]
                    if not unheard:
                        return None
                    del self.views[min(unheard, key=lambda v: v.touched).table_id]
                view = self.views[table_id] = TableView(table_id)
            view.touched = time.monotonic()
            return view

    def _available(self, view: TableView, value: str) -> None:
        view.available, view.available_at = value, time.time()
        if value == "online":
            self._ask(view, ASK_SPACING_S)            # catch up with whatever the hub missed

    def _event(self, view: TableView, event: dict[str, Any]) -> None:
        table_id, seq = view.table_id, event["seq"]
        have = self.store.contiguous(table_id)
        if seq > have + AHEAD:
            self._ask(view, None)
            raise Rejected("seq_ahead", f"seq {seq} is {seq - have} ahead of {have}, the last held without "
                                        f"a gap (at most {AHEAD}): not believed; the hub asks the table")
        _, conflicts = self.store.add(table_id, [event])
        self._conflicted(view, conflicts)
        if self.store.contiguous(table_id) < seq:
            self._ask(view, None)

    def _conflicted(self, view: TableView, seqs: list[int]) -> None:
        if seqs:
            count = self.store.conflict_counts().get(view.table_id, 0)
            log.warning("hub: %s: %d more seq(s) came again with a different event (%s; %d in all): "
                        "the first is kept", view.table_id, len(seqs), ", ".join(map(str, seqs[:5])), count)

    def _replied(self, view: TableView, topic: str, doc: Any) -> None:
        answer = inbox.read_reply(doc, self.request_id)
        if answer is None:
            return                                   # an answer to another hub
        table_id = view.table_id
        before = self.store.contiguous(table_id)
        if answer.error is not None:
            log.warning("hub: %s refused to replay after %d: %s", table_id, answer.after, answer.error[:200])
        kept = [e for e in answer.events.values() if isinstance(e, dict)]
        _, conflicts = self.store.add(table_id, kept)
        self._conflicted(view, conflicts)
        holes, last = [], answer.after
        for seq, event in answer.events.items():
            if seq > last + 1:
                holes.append((last + 1, seq - 1))
            if isinstance(event, Rejected):
                self._refused(view, topic, event)
                self.store.mark_absent(table_id, [(seq, seq)], f"refused: {event.message[:200]}")
            last = seq
        self.store.mark_absent(table_id, holes, "not in the table's log")
        progress = self.store.contiguous(table_id) > before
        with self._lock:
            view.pacer.answered(progress)
        if answer.more or self.store.contiguous(table_id) < self.store.top(table_id):
            self._ask(view, 0.0 if progress else None)

    def _ask(self, view: TableView, spacing: float | None) -> None:
        """Ask the table for the events after the last one held without a gap, if its pacer allows:
        `spacing` apart at least, or (None) after the pacer's own wait."""
        after = self.store.contiguous(view.table_id)
        with self._lock:
            if not view.pacer.due(time.monotonic(), spacing):
                return
            view.pacer.asked(time.monotonic())
        request = {"after": after, "limit": view.pacer.batch, "request_id": f"{self.request_id}-{after}"}
        topic = Topics(self.prefix, view.table_id).cmd("replay")
        self.client.publish(topic, strictjson.dumps(request), qos=1)

    def _sweep(self) -> None:
        """Ask again for gaps not filled (a table that was away, an answer lost), and start the MQTT
        thread again if it is gone."""
        while not self._stop.wait(self.sweep_s):
            try:
                self._watch_thread()
                with self._lock:
                    views = list(self.views.values())
                for view in views:
                    gap = self.store.contiguous(view.table_id) < self.store.top(view.table_id)
                    if view.available == "online" and (gap or view.pacer.waiting):
                        self._ask(view, None)
            except Exception:  # the sweeper must go on too
                log.exception("hub: sweeping")

    def _watch_thread(self) -> None:
        if not self.alive and not self._stop.is_set():
            self.health.restarts += 1
            log.error("hub: the MQTT thread ended; starting it again (%d)", self.health.restarts)
            self.client.loop_stop()
            self.client.loop_start()

    # ------------------------------------------------------------ what the dashboard reads

    def tables(self) -> list[dict[str, Any]]:
        counts, conflicts = self.store.counts(), self.store.conflict_counts()
        with self._lock:
            views = sorted(self.views.values(), key=lambda v: v.table_id)
        return [{"id": v.table_id, "online": v.available == "online", "available": v.available,
                 "available_since": v.available_at or None, "state_at": v.state_at or None,
                 **summary(v.state), "events": counts.get(v.table_id, 0),
                 "last_seq": self.store.top(v.table_id), "complete_to": self.store.contiguous(v.table_id),
                 "rejected": v.faults.to_json(), "conflicts": self._conflicts_line(v.table_id, conflicts),
                 "replays_asked": v.pacer.asks}
                for v in views]

    def _conflicts_line(self, table_id: str, counts: dict[str, int]) -> dict[str, Any]:
        count = counts.get(table_id, 0)
        seqs = [c["seq"] for c in self.store.conflicts(table_id, 20)] if count else []
        return {"count": count, "seqs": seqs}

    def state(self, table_id: str) -> dict[str, Any] | None:
        view = self.views.get(table_id)
        return None if view is None else view.state
