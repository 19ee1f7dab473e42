"""`smarttable hub`: watch every table on a club's MQTT broker and serve the dashboard;
`smarttable camera`: a camera on another machine publishing what it sees to its table."""

from __future__ import annotations

import argparse
import signal
import threading
from pathlib import Path
from typing import Any

from table.broker import check_prefix, parse_url
from table.errors import ConfigError


def register(subparsers: argparse._SubParsersAction) -> None:
    hub = subparsers.add_parser("hub", help="watch every table on an MQTT broker; serve the club's dashboard",
                                description="Subscribe to every table on the broker, keep a copy of their "
                                            "events (gaps filled from the tables' logs), serve a dashboard.")
    hub.add_argument("--mqtt", required=True, metavar="URL", help="the broker: mqtt://host:1883 or mqtts://...")
    hub.add_argument("--host", default="0.0.0.0", help="dashboard address (default 0.0.0.0)")
    hub.add_argument("--port", type=int, default=8090, help="dashboard port (default 8090)")
    hub.add_argument("--db", default="var/hub.sqlite3", help="the hub's event store (SQLite)")
    hub.add_argument("--topic-prefix", default="smarttable", help="the tables' topic prefix")
    hub.add_argument("--username", help="broker user (else the URL's)")
    hub.add_argument("--password-file", help="file holding the broker password")
    hub.add_argument("--client-id", default="smarttable-hub",
                     help="the hub's MQTT client id (its session: events queued while it was away)")
    hub.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                     help="a name the dashboard answers to besides this machine's own and its IP addresses "
                          "(repeatable)")
    hub.add_argument("--duration", type=float, help="stop after this many seconds")
    hub.set_defaults(handler=run_hub)

    camera = subparsers.add_parser("camera", help="run one of a table's cameras on this machine, publishing "
                                                  "what it sees to the table over MQTT",
                                   description="A second Pi over a big board: runs the [[cameras]] entry "
                                               "--slot (source = \"mqtt\" in the table's config), "
                                               "publishing its observations to the table.")
    camera.add_argument("--config", help="the table's config (TOML)")
    camera.add_argument("--slot", type=int, required=True, help="which [[cameras]] entry it is (from 0)")
    camera.add_argument("--mqtt", metavar="URL", help="the broker (default from [mqtt] url)")
    camera.add_argument("--table-id", help="the table (default from [mqtt] table_id)")
    camera.add_argument("--demo", action="store_true", help="the synthetic camera over the demo scene")
    camera.add_argument("--duration", type=float, help="stop after this many seconds")
    camera.set_defaults(handler=run_camera)


def run_hub(args: argparse.Namespace) -> Any:
    from hub.listener import Hub
    from hub.store import HubStore
    from hub.web import create_hub_app, create_server, serve
    from table.broker import Broker

    broker = parse_url(args.mqtt, "--mqtt")
    password = broker.password
    if args.password_file:
        try:
            password = Path(args.password_file).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(f"{args.password_file}: --password-file: cannot read: {exc.strerror}") from None
    broker = Broker(broker.host, broker.port, broker.tls, args.username or broker.username, password)
    if not 0 < args.port < 65536:
        raise ConfigError(f"--port: expected 1-65535, got {args.port}")
    prefix = check_prefix(args.topic_prefix, "--topic-prefix")
    store = HubStore(args.db)
    hub = Hub(store, broker, prefix, client_id=args.client_id)
    try:
        server = create_server(create_hub_app(hub, args.allowed_host), args.host, args.port)
    except ConfigError:
        store.close()
        raise

    def on_signal(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    try:
        hub.start()
        if args.duration is not None:
            timer = threading.Timer(args.duration, signal.raise_signal, (signal.SIGTERM,))
            timer.daemon = True
            timer.start()
        serve(server, args.host, args.port)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        hub.close()
        tables = hub.tables()
        store.close()
    keys = ("id", "online", "events", "last_seq", "complete_to")
    return {"stopped": True, "tables": [{k: t[k] for k in keys} for t in tables]}


def run_camera(args: argparse.Namespace) -> Any:
    from table.config import load_config
    from table.live import remote_cameras
    from table.live.mqtt_link import settings_from_config

    config = load_config(args.config)
    settings = settings_from_config(config, args.mqtt, args.table_id)
    if settings is None:
        raise ConfigError("--mqtt: a remote camera publishes to the table's broker: "
                          "give --mqtt URL or [mqtt] url")
    camera = remote_cameras.slot_config(config, args.slot)
    if args.demo:
        source = _demo_source(config, camera)
    else:
        from table.live.run import camera_opener

        source = camera_opener(camera)()
    publisher = remote_cameras.CameraPublisher(settings, args.slot)
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if args.duration is not None:
        threading.Timer(args.duration, stop.set).start()
    publisher.start()
    try:
        done = remote_cameras.run_camera(camera, source, publisher, stop)
    finally:
        publisher.close()
        source.close()
    return {"slot": args.slot, **done}


def _demo_source(config: Any, camera: Any) -> Any:
    """The synthetic camera of slot `camera` over the table's demo scene, aimed at its area."""
    from table.live.run import DEMO_SCENE
    from table.scene import load_scene
    from vision.rig import camera_over
    from vision.sources import SyntheticSource
    from vision.synthetic_scene import from_scene

    scene = load_scene(config.path("game", "scene") if config.game.scene else DEMO_SCENE)
    cam = camera.camera
    view = camera_over((cam.width, cam.height), cam.area, (-2.0, 3.0))
    return SyntheticSource(camera, from_scene(scene, config), camera=view)
