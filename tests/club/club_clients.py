"""Test helpers: a table published to the broker, and a subscriber that records what it gets."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from table.broker import parse_url
from table.config import load_config
from table.hw import build_hardware
from table.live.commits import CommitFeed
from table.live.controller import TableController
from table.live.leds import load_layout
from table.live.mqtt_link import MqttLink, MqttSettings
from table.live.run import DEMO_SCENE
from table.scene import load_scene


class PublishedTable:
    """The real controller (demo scene, mock hardware, no camera loop) with its MQTT link."""

    def __init__(self, folder: Path, url: str, table_id: str = "t1", listen: bool = True, **settings: Any):
        """`listen`: return once the broker acknowledged the table's command subscription (a command
        published before that is lost); False for a broker that is not there yet."""
        config = load_config()
        layout = load_layout(config.path("hardware", "led_layout"))
        hardware = build_hardware(config.hardware, config.path("hardware", "pin_map"), len(layout), mock=True)
        self.log_path = folder / f"{table_id}.sqlite3"
        self.gamelog = CommitFeed(self.log_path)
        self.controller = TableController(config, hardware=hardware, layout=layout, log_=self.gamelog,
                                          pipeline=None, scene=load_scene(DEMO_SCENE), seed=7)
        self.link = MqttLink(self.controller, self.gamelog,
                             MqttSettings(parse_url(url), table_id, **settings))
        self.link.start()
        assert not listen or self.link.wait_listening(60), f"the table never subscribed to its commands on {url}"

    def logged_seqs(self) -> list[int]:
        return [e["seq"] for e in self.gamelog.since(0)]

    def close(self) -> None:
        self.link.close()
        self.controller.close()


class Recorder:
    """A subscriber: every message it gets, as (topic, payload text, retained, arrival time)."""

    def __init__(self, url: str, topics: str | list[str], client_id: str = "", persistent: bool = False):
        broker = parse_url(url)
        self.messages: list[tuple[str, str, bool, float]] = []
        self._cond = threading.Condition()
        self._acks = 0
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                                  clean_session=not persistent, protocol=mqtt.MQTTv311)
        self.client.reconnect_delay_set(0.1, 0.5)
        if broker.username:
            self.client.username_pw_set(broker.username, broker.password)
        wanted = [topics] if isinstance(topics, str) else topics
        self._wanted = len(wanted)
        self.client.on_connect = lambda c, u, f, r, p: [c.subscribe(t, qos=1) for t in wanted]
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message
        self.client.connect(broker.host, broker.port, 5)
        self.client.loop_start()

    def _on_message(self, client: Any, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with self._cond:
            self.messages.append((message.topic, message.payload.decode(), bool(message.retain),
                                  time.time()))
            self._cond.notify_all()

    def _on_subscribe(self, client: Any, userdata: Any, mid: int, reasons: Any, properties: Any) -> None:
        with self._cond:
            self._acks += 1
            self._cond.notify_all()

    def subscribed(self, timeout: float = 10.0) -> bool:
        """Wait until the broker has acknowledged every subscription (what it publishes from then on
        reaches this recorder)."""
        return self.wait(lambda: self._acks >= self._wanted, timeout)

    def payloads(self, suffix: str) -> list[str]:
        with self._cond:
            return [p for t, p, _, _ in self.messages if t.endswith(suffix)]

    def json(self, suffix: str) -> list[Any]:
        return [json.loads(p) for p in self.payloads(suffix)]

    def wait(self, check: Callable[[], Any], timeout: float = 10.0) -> Any:
        """Wait until `check()` is truthy (re-checked on every message and every 0.1 s)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                value = check()
                if value or time.monotonic() > deadline:
                    return value
                self._cond.wait(0.1)

    def send(self, topic: str, payload: Any) -> None:
        self.client.publish(topic, json.dumps(payload), qos=1).wait_for_publish(5)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def seen_once_in_order(seqs: list[int]) -> list[int]:
    """What a subscriber that drops any seq not above the last one it kept ends with."""
    kept: list[int] = []
    for seq in seqs:
        if not kept or seq > kept[-1]:
            kept.append(seq)
    return kept


def publish_raw(url: str, topic: str, payload: bytes | str, retain: bool = False, client_id: str = "") -> None:
    """Publish one message as it is (any bytes, not necessarily JSON), QoS 1, and wait for the broker."""
    broker = parse_url(url)
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311)
    if broker.username:
        client.username_pw_set(broker.username, broker.password)
    client.connect(broker.host, broker.port, 5)
    client.loop_start()
    try:
        client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(10)
    finally:
        client.disconnect()
        client.loop_stop()
