"""The table on the club's MQTT broker (paho-mqtt): availability, state, events and commands.

- `available`: `online` once connected, `offline` on a clean stop and as the last will (retained).
- `state`: the `GET /api/state` document (strict JSON), retained, on change, at most one per
  `state_interval_s`.
- `events`: every event committed to the game log, read back from the log after the commit, in
  `seq` order, QoS 1. Events committed while the broker is away are sent once it is back, from the
  first one the broker had not acknowledged, so a subscriber that drops any `seq` it has already
  seen gets each event once, in order.
- `cmd/<name>` -> `reply/<name>`: the controller's commands (the HTTP API's), plus `replay`
  (`{"after": SEQ}`: the logged events after SEQ, for a hub filling a gap). A payload is refused for
  its size before it is parsed, read as strict JSON (table/strictjson.py), and its parameters pass the
  same limits as the panel's and the buttons' (the controller's `command` checks them).
"""

from __future__ import annotations

import collections
import json
import logging
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from table import strictjson
from table.broker import Broker, Topics, check_prefix, check_table_id, parse_url
from table.config import Config
from table.errors import ConfigError, QueryError, TableError
from table.live.command_limits import MAX_PAYLOAD
from table.live.commits import CommitFeed
from table.snapshot import Controller

log = logging.getLogger(__name__)

REPLAY_LIMIT = 1000          # events in one `replay` answer at most
EVENT_BATCH = 200            # events read from the log at a time
MAX_REQUEST_ID = 128         # characters of a command's request_id (echoed in its reply)


@dataclass(frozen=True)
class MqttSettings:
    broker: Broker
    table_id: str
    prefix: str = "smarttable"
    keepalive_s: int = 10
    state_interval_s: float = 0.5
    reconnect: tuple[float, float] = (0.5, 10.0)     # back-off: first wait, doubling up to the second

    @property
    def topics(self) -> Topics:
        return Topics(self.prefix, self.table_id)


def settings_from_config(config: Config, url: str | None = None, table_id: str | None = None
                         ) -> MqttSettings | None:
    """The table's MQTT settings (`--mqtt`/`--table-id` over `[mqtt]`), or None when no broker is set."""
    section = config.mqtt
    url = url if url is not None else section.url
    if not url:
        return None
    broker = parse_url(url, "--mqtt" if url is not section.url else "mqtt.url")
    table_id = table_id if table_id is not None else section.table_id
    if not table_id:
        raise ConfigError("mqtt.table_id: needed when a broker is set (or give --table-id)")
    check_table_id(table_id, "mqtt.table_id" if table_id is section.table_id else "--table-id")
    username = section.username or broker.username
    password = broker.password
    if section.password_file:
        password = read_password(config.path("mqtt", "password_file"))
    broker = Broker(broker.host, broker.port, broker.tls, username, password)
    return MqttSettings(broker, table_id, check_prefix(section.topic_prefix), section.keepalive_s,
                        section.state_interval_s)


def read_password(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConfigError(f"{path}: mqtt.password_file: cannot read: {exc.strerror}") from None


def new_client(client_id: str, broker: Broker, reconnect: tuple[float, float]) -> mqtt.Client:
    """A paho client (MQTT 3.1.1) for `broker`, with its credentials, TLS and back-off set."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311)
    if broker.username:
        client.username_pw_set(broker.username, broker.password or None)
    if broker.tls:
        client.tls_set()
    client.reconnect_delay_set(*reconnect)  # type: ignore[arg-type]  # paho takes seconds as floats too
    return client


def strict_json(document: Any) -> str:
    """JSON without NaN or infinities (a non-finite number becomes null)."""
    try:
        return json.dumps(document, separators=(",", ":"), allow_nan=False)
    except ValueError:
        return json.dumps(_finite(document), separators=(",", ":"), allow_nan=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


class MqttLink:
    """Publishes one table and answers its commands; `start()`, then `close()`."""

    def __init__(self, controller: Controller, gamelog: CommitFeed, settings: MqttSettings):
        self.controller, self.gamelog, self.settings = controller, gamelog, settings
        self.topics = settings.topics
        self.client = new_client(f"smarttable-{settings.table_id}", settings.broker, settings.reconnect)
        self.client.will_set(self.topics.available, "offline", qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_subscribe = self._on_subscribe
        self._connected = threading.Event()
        self._listening = threading.Event()        # the broker acknowledged the command subscription
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._rewind = False
        self._next_seq = gamelog.last_seq() + 1     # earlier events: a hub asks for them (`replay`)
        self._pending: collections.deque[tuple[int, mqtt.MQTTMessageInfo]] = collections.deque()
        self._state_seq = -1
        self._state_at = -math.inf
        self._commands = ThreadPoolExecutor(1, thread_name_prefix="mqtt-cmd")
        self._threads: list[threading.Thread] = []
        self.attempts: list[float] = []            # when each failed connection attempt ended
        gamelog.subscribe(self._wake.set)

    # ------------------------------------------------------------ running

    def start(self) -> None:
        b = self.settings.broker
        self.client.connect_async(b.host, b.port, self.settings.keepalive_s)
        self.client.loop_start()
        self._threads = [threading.Thread(target=self._publisher, name="mqtt-publish", daemon=True),
                         threading.Thread(target=self._watch_snapshots, name="mqtt-watch", daemon=True)]
        for thread in self._threads:
            thread.start()

    def close(self, timeout: float = 3.0) -> None:
        """Say `offline`, disconnect and stop the threads."""
        self._stop.set()
        self._wake.set()
        for thread in self._threads:
            thread.join(timeout)
        self._commands.shutdown(wait=True, cancel_futures=True)
        if self._connected.is_set():
            info = self.client.publish(self.topics.available, "offline", qos=1, retain=True)
            try:
                info.wait_for_publish(timeout)
            except (RuntimeError, ValueError):
                pass
        self.client.disconnect()
        self.client.loop_stop()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def wait_listening(self, timeout: float) -> bool:
        """Wait until the broker has acknowledged the command subscription (a command sent before is lost)."""
        return self._listening.wait(timeout)

    def status(self) -> dict[str, Any]:
        return {"broker": repr(self.settings.broker), "table_id": self.settings.table_id,
                "connected": self.connected, "listening": self._listening.is_set(),
                "next_seq": self._next_seq, "failed_attempts": len(self.attempts)}

    # ------------------------------------------------------------ paho callbacks (its network thread)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if reason.is_failure:
            log.warning("mqtt: %s refused the connection: %s", self.settings.broker, reason)
            return
        log.info("mqtt: connected to %s as %s", self.settings.broker, self.settings.table_id)
        client.subscribe(self.topics.cmd("+"), qos=1)
        client.publish(self.topics.available, "online", qos=1, retain=True)
        self._state_seq = -1                    # the state again, whatever the broker kept
        self._connected.set()
        self._wake.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        if self._connected.is_set() and not self._stop.is_set():
            log.warning("mqtt: lost %s: %s; retrying", self.settings.broker, reason)
        self._connected.clear()
        self._listening.clear()
        self._rewind = True
        self._wake.set()

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any,
                      properties: Any) -> None:
        if not any(getattr(r, "is_failure", False) for r in reasons):
            self._listening.set()

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        self.attempts.append(time.monotonic())
        if len(self.attempts) == 1:
            log.warning("mqtt: cannot reach %s; the table plays on and retries", self.settings.broker)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        name = message.topic.rpartition("/")[2]
        if not self._stop.is_set():
            self._commands.submit(self._answer, name, bytes(message.payload))

    # ------------------------------------------------------------ publishing (its own thread)

    def _watch_snapshots(self) -> None:
        seq = self.controller.snapshot().seq
        while not self._stop.is_set():
            snapshot = self.controller.wait_for_change(seq, 0.5)
            if snapshot.seq != seq:
                seq = snapshot.seq
                self._wake.set()

    def _publisher(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self._state_due())
            self._wake.clear()
            if self._stop.is_set() or not self._connected.is_set():
                continue
            try:
                self._settle_pending()
                self._publish_events()
                self._publish_state()
            except Exception:  # the table must play on whatever the broker link does
                log.exception("mqtt: publishing")
                time.sleep(0.5)

    def _settle_pending(self) -> None:
        """Forget what the broker acknowledged; after a lost connection go back to the oldest event
        it did not acknowledge (paho resends that too: a duplicate `seq` a subscriber drops)."""
        if self._rewind:
            self._rewind = False
            unacked = [seq for seq, info in self._pending if not info.is_published()]
            if unacked:
                self._next_seq = min(unacked)
            self._pending.clear()
        while self._pending and self._pending[0][1].is_published():
            self._pending.popleft()

    def _publish_events(self) -> None:
        while self._connected.is_set() and not self._rewind:
            events = self.gamelog.since(self._next_seq - 1, EVENT_BATCH)
            if not events:
                return
            for event in events:
                info = self.client.publish(self.topics.events, strict_json(event), qos=1)
                self._pending.append((event["seq"], info))
                self._next_seq = event["seq"] + 1

    def _state_due(self) -> float:
        """Seconds until the next state may go out (a state is waiting), else a long idle wait."""
        if self.controller.snapshot().seq == self._state_seq:
            return 1.0
        return max(0.0, self._state_at + self.settings.state_interval_s - time.monotonic()) or 0.001

    def _publish_state(self) -> None:
        snapshot = self.controller.snapshot()
        now = time.monotonic()
        if snapshot.seq == self._state_seq or now - self._state_at < self.settings.state_interval_s:
            return
        self.client.publish(self.topics.state, strict_json(snapshot.to_dict()), qos=0, retain=True)
        self._state_seq, self._state_at = snapshot.seq, now

    # ------------------------------------------------------------ commands (one at a time, in order)

    def _answer(self, name: str, payload: bytes) -> None:
        request_id = None
        try:
            params, request_id = read_command(name, payload)
            result = self._replay(**params) if name == "replay" else self.controller.command(name, **params)
            reply: dict[str, Any] = {"ok": True, "command": name, "result": result,
                                     "seq": self.controller.snapshot().seq}
        except TableError as exc:
            reply = {"ok": False, "command": name, "error": str(exc)}
        except Exception as exc:  # a command must never take the link down
            log.exception("mqtt: cmd/%s", name)
            reply = {"ok": False, "command": name, "error": f"{type(exc).__name__}: {exc}"}
        if request_id is not None:
            reply["request_id"] = request_id
        self.client.publish(self.topics.reply(name), strict_json(reply), qos=1)

    def _replay(self, after: Any = 0, limit: Any = REPLAY_LIMIT, **unknown: Any) -> dict[str, Any]:
        """The logged events after `after` (at most `limit`); `more` when there are others after them."""
        if unknown:
            raise QueryError(f"replay: unknown parameter(s) {', '.join(sorted(unknown))} "
                             "(known: after, limit)")
        for key, value in (("after", after), ("limit", limit)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise QueryError(f"replay: {key}: expected a whole number at least 0, got {value!r}")
        limit = min(max(limit, 1), REPLAY_LIMIT)
        events = self.gamelog.since(after, limit + 1)
        return {"events": events[:limit], "more": len(events) > limit}


def read_command(name: str, payload: bytes) -> tuple[dict[str, Any], str | None]:
    """A command's parameters and its request_id from its payload: refused (QueryError) for its size
    before it is parsed, then read as strict JSON; an empty payload is no parameters."""
    if len(payload) > MAX_PAYLOAD:
        raise QueryError(f"cmd/{name}: payload: {len(payload)} bytes (at most {MAX_PAYLOAD})")
    try:
        params = strictjson.loads(payload) if payload.strip() else {}
    except ValueError as exc:        # not strict JSON, too deep, bad UTF-8, an integer too long
        raise QueryError(f"cmd/{name}: payload: not JSON ({exc})") from None
    if not isinstance(params, dict):
        raise QueryError(f"cmd/{name}: payload: expected a JSON object of parameters")
    request_id = params.pop("request_id", None)
    if request_id is not None and not (isinstance(request_id, str) and len(request_id) <= MAX_REQUEST_ID):
        raise QueryError(f"cmd/{name}: request_id: expected a text of at most {MAX_REQUEST_ID} characters")
    reserved = sorted(params.keys() & {"name", "self"})             # a parameter of no command
    if reserved:
        raise QueryError(f"cmd/{name}: unknown parameter {reserved[0]!r}")
    return params, request_id
