"""Cameras on another machine (a second Pi over a big board) that publish what they see over MQTT.

The other Pi runs its own camera and vision pipeline (`smarttable camera --slot N`) and publishes
each observation, calibrated into the one board frame, to `<prefix>/<table_id>/camera/<N>`
(`camera/<N>/available` says whether it runs, with a last will). The table listens
(`RemoteCameras`) and its camera rig merges the newest view of each remote camera with its own;
a view older than `stale_s` (the remote camera stopped or is cut off) is left out.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt

from table.broker import Topics
from table.live import locks
from table.live.mqtt_link import MqttSettings, new_client, strict_json
from vision.merge import CameraView, view_from_dict, view_to_dict

log = logging.getLogger(__name__)

STALE_S = 2.0


def camera_topic(topics: Topics, slot: int) -> str:
    return f"{topics.base}/camera/{slot}"


class RemoteCameras:
    """The table's side: the newest view of each remote camera slot; `start()`, then `close()`."""

    def __init__(self, settings: MqttSettings, slots: list[int], stale_s: float = STALE_S):
        self.settings, self.slots, self.stale_s = settings, set(slots), stale_s
        self.client = new_client(f"smarttable-{settings.table_id}-cameras", settings.broker,
                                 settings.reconnect)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self._views: dict[int, tuple[CameraView, float]] = {}
        self._lock = locks.lock("remote-cameras")

    def start(self) -> None:
        b = self.settings.broker
        self.client.connect_async(b.host, b.port, self.settings.keepalive_s)
        self.client.loop_start()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if not reason.is_failure:
            client.subscribe(f"{self.settings.topics.base}/camera/+", qos=0)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        tail = message.topic.rpartition("/")[2]
        if not tail.isdigit() or int(tail) not in self.slots:
            return
        now = time.monotonic()
        try:
            view = view_from_dict(json.loads(message.payload), now)
        except ValueError as exc:   # a broken remote camera must not stop the table
            log.warning("remote camera %s: %s", tail, exc)
            return
        with self._lock:
            self._views[int(tail)] = (view, now)

    def views(self) -> list[CameraView]:
        """The newest view of each remote camera heard from within `stale_s`."""
        now = time.monotonic()
        with self._lock:
            return [view for slot, (view, at) in sorted(self._views.items()) if now - at <= self.stale_s]


class CameraPublisher:
    """The other Pi's side: publishes each view of camera `slot`; `start()`, then `close()`."""

    def __init__(self, settings: MqttSettings, slot: int):
        self.settings, self.slot = settings, slot
        self.topic = camera_topic(settings.topics, slot)
        self.client = new_client(f"smarttable-{settings.table_id}-camera-{slot}", settings.broker,
                                 settings.reconnect)
        self.client.will_set(self.topic + "/available", "offline", qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.connected = threading.Event()

    def start(self) -> None:
        b = self.settings.broker
        self.client.connect_async(b.host, b.port, self.settings.keepalive_s)
        self.client.loop_start()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if not reason.is_failure:
            client.publish(self.topic + "/available", "online", qos=1, retain=True)
            self.connected.set()

    def publish(self, view: CameraView) -> None:
        """Send one view (dropped while the broker is away: only the newest matters)."""
        if self.connected.is_set():
            self.client.publish(self.topic, strict_json(view_to_dict(view)), qos=0)

    def close(self) -> None:
        if self.connected.is_set():
            info = self.client.publish(self.topic + "/available", "offline", qos=1, retain=True)
            info.wait_for_publish(2.0)
        self.client.disconnect()
        self.client.loop_stop()


def slot_config(config: Any, slot: int) -> Any:
    """The config a remote camera runs with: the table's, its `[camera]` the `[[cameras]]` entry
    `slot` (which the table marks `source = "mqtt"`), opened here as `auto`."""
    from dataclasses import replace

    from table.errors import ConfigError

    if not 0 <= slot < len(config.cameras):
        raise ConfigError(f"--slot: the config has {len(config.cameras)} [[cameras]] entries, got {slot}")
    entry = config.cameras[slot]
    if entry.source != "mqtt":
        raise ConfigError(f"cameras[{slot}].source: the table opens this camera itself "
                          f"({entry.source!r}); a camera on another machine is source = \"mqtt\"")
    return replace(config, camera=replace(entry, source="auto"), cameras=())


def run_camera(config: Any, source: Any, publisher: CameraPublisher, stop: threading.Event) -> dict[str, int]:
    """Frames in, views out, until `stop` or the source ends: the remote camera's loop."""
    from vision.pipeline import VisionPipeline
    from vision.rig import CameraRig

    pipeline = VisionPipeline(config)
    frames = published = 0
    while not stop.is_set():
        frame = source.read()
        if frame is None:
            break
        frames += 1
        view = CameraView(pipeline.process(frame), CameraRig.sigma_in(pipeline))
        if publisher.connected.is_set():
            publisher.publish(view)
            published += 1
    return {"frames": frames, "published": published}
