"""Assembling a live table from its config: LED layout, hardware, game log, camera, vision
pipeline, controller and (for `--demo`) the demo director. `smarttable run` and `log replay`
use it; tests build the same pieces with their own sources.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table.config import PACKAGE_ROOT, Config
from table.errors import ConfigError, HardwareError
from table.hw import build_hardware
from table.live.capture import SourceOpener
from table.live.commits import CommitFeed
from table.live.controller import TableController
from table.live.demo import DemoDirector, scripted
from table.live.gamelog import GameLog
from table.live.leds import load_layout
from table.live.sandbox import Follower, Sandbox
from table.scene import Scene, load_scene, parse_scene

DEMO_SCENE = PACKAGE_ROOT / "table" / "data" / "demo.json"


@dataclass
class Table:
    controller: TableController
    director: DemoDirector | None = None
    link: Any = None              # the MQTT link (table/live/mqtt_link.py) when a broker is set
    remote: Any = None            # cameras on other machines (table/live/remote_cameras.py)
    follower: Follower | None = None   # the sandbox's markers carried after the game (table/live/sandbox.py)

    def start(self) -> None:
        if self.remote is not None:
            self.remote.start()
        self.controller.start()
        if self.link is not None:
            self.link.start()
        if self.director is not None:
            self.director.start()
        if self.follower is not None:
            self.follower.start()

    def close(self) -> None:
        for thread in (self.director, self.follower):
            if thread is not None:
                thread.stop()
                if thread.is_alive():
                    thread.join(timeout=5.0)
        try:
            if self.link is not None:
                self.link.close()
            if self.remote is not None:
                self.remote.close()
        finally:
            self.controller.close()


def camera_opener(config: Config) -> SourceOpener:
    """Opens the configured camera each time it is called (the capture thread retries failures)."""
    try:
        from vision.sources import open_source
    except ImportError as exc:
        raise HardwareError(f"camera sources are not available ({exc})") from None
    cameras = local_cameras(config)
    if any(c.camera.source == "synthetic" for c in cameras or [config]):
        raise HardwareError("the config asks for the synthetic camera")
    if cameras:
        return lambda: _open_rig(open_source, cameras)
    return lambda: open_source(config)


def _open_rig(open_source: Any, cameras: list[Config]) -> Any:
    """Every camera of the rig opened, as one source (none left open when one fails)."""
    from vision.rig import RigSource

    opened: list[Any] = []
    try:
        for camera in cameras:
            opened.append(open_source(camera))
    except BaseException:
        for source in opened:
            source.close()
        raise
    return RigSource(opened)


def open_camera(config: Config) -> SourceOpener:
    """Open the configured camera once (HardwareError if there is none); the opener it returns
    hands out that source first and reopens the camera after a failure."""
    reopen = camera_opener(config)
    first = [reopen()]

    def opener() -> Any:
        return first.pop() if first else reopen()

    return opener


def local_cameras(config: Config) -> list[Config]:
    """The `[[cameras]]` attached to this machine (not `source = "mqtt"`); a table with several
    cameras needs at least one of its own (its frames drive the loop)."""
    cameras = config.camera_configs()
    local = [c for c in cameras if c.camera.source != "mqtt"]
    if cameras and not local:
        raise ConfigError("cameras: every camera is remote (source = \"mqtt\"); "
                          "the table needs one of its own")
    return local


def remote_slots(config: Config) -> list[int]:
    """The `[[cameras]]` entries (by index) that another machine publishes over MQTT."""
    return [i for i, c in enumerate(config.cameras) if c.source == "mqtt"]


def _pipeline(config: Config, remote: Any = None) -> Any:
    try:
        from vision.pipeline import VisionPipeline
    except ImportError as exc:
        raise HardwareError(f"the vision pipeline is not available ({exc})") from None
    if config.cameras:
        from vision.rig import CameraRig

        return CameraRig(local_cameras(config), remote.views if remote is not None else None)
    return VisionPipeline(config)


def _synthetic(config: Config, scene: Any) -> tuple[Any, Any]:
    """The synthetic camera(s) of the demo, as (source, show scene): one camera over the whole
    board, or one per `[[cameras]]` entry aimed at its `area`."""
    from vision.sources import SyntheticSource

    cameras = local_cameras(config)
    if not cameras:
        source = SyntheticSource(config, scene)
        return source, source.set_scene
    from vision.rig import RigSource, camera_over

    tilts = ((3.0, -2.0), (-2.0, 3.0))
    entries = [entry for entry in config.cameras if entry.source != "mqtt"]   # each local camera's own
    parts = [SyntheticSource(c, scene, camera=camera_over((e.width, e.height), e.area, tilts[i % 2]))
             for i, (c, e) in enumerate(zip(cameras, entries, strict=True))]

    def show(shown: Any) -> None:
        for part in parts:
            part.set_scene(shown)

    return RigSource(parts), show


def _scene(config: Config, scene_path: str | None, demo: bool) -> Scene | None:
    if scene_path:
        return load_scene(scene_path)
    if config.game.scene:
        return load_scene(config.path("game", "scene"))
    return load_scene(DEMO_SCENE) if demo else None


def build_table(config: Config, *, demo: bool, log_path: Path, scene_path: str | None = None,
                open_source: SourceOpener | None = None, first_event: dict[str, Any] | None = None,
                mqtt: Any = None, sandbox: bool = False) -> Table:
    """Every part of a table, wired; `demo` uses mock hardware, the synthetic camera and the director
    (with `sandbox`, no director: the board changes only by the player's hand, table/live/sandbox.py).
    `scene_path` starts that scene as a new game (the log's games stay in it); without it the table
    resumes the log's current game, else starts `[game] scene` (the demo's with `demo`).
    With `first_event` (a replay) there is no camera at all. `mqtt` (MqttSettings) adds the link
    that publishes the table to a broker."""
    layout = load_layout(config.path("hardware", "led_layout"))
    scene = parse_scene(first_event["scene"], "game_start.scene") if first_event is not None \
        else _scene(config, scene_path, demo)
    hardware = build_hardware(config.hardware, config.path("hardware", "pin_map"), len(layout), mock=demo)
    slots = remote_slots(config)
    if slots and mqtt is None:
        hardware.close()
        raise ConfigError(f"cameras[{slots[0]}].source: a remote camera (\"mqtt\") needs a broker: "
                          "[mqtt] url or --mqtt")
    try:
        feed = CommitFeed(log_path) if mqtt is not None else None      # the MQTT link wakes on its commits
        gamelog = feed if feed is not None else GameLog(log_path)
    except ConfigError:
        hardware.close()
        raise
    remote = None
    if slots and first_event is None:
        from table.live.remote_cameras import RemoteCameras

        remote = RemoteCameras(mqtt, slots)
    try:
        director_scene = None
        if first_event is None and open_source is None:
            from vision.synthetic_scene import from_scene

            if scene is None:
                raise ConfigError("the simulated table needs a scene: --scene FILE or [game] scene")
            director_scene = from_scene(scene, config)
            source, show_scene = _synthetic(config, director_scene)
            open_source = lambda: source  # noqa: E731  (the same synthetic camera after a "failure")
        pipeline = _pipeline(config, remote) if first_event is None else None
        controller = TableController(config, hardware=hardware, layout=layout, log_=gamelog,
                                     pipeline=pipeline, open_source=open_source, scene=scene,
                                     new_game=bool(scene_path) and first_event is None)
    except BaseException:
        gamelog.close()
        hardware.close()
        raise
    director, follower = None, None
    if director_scene is not None and scene is not None:
        if sandbox or not scripted(controller.state.scene, scene):
            from vision.synthetic_scene import from_scene

            board = from_scene(controller.state.scene, config)   # the board as the game stands (resumed)
            show_scene(board)
            if sandbox:
                controller.sandbox = Sandbox(config, board, show_scene)
                follower = Follower(controller, controller.sandbox)
            else:                                 # a demo a player changed before the restart: still theirs
                controller.status["demo"] = "handed over"
        else:
            director = DemoDirector(controller, director_scene, show_scene, config.markers.pointer_id)
    link = None
    if feed is not None:
        from table.live.mqtt_link import MqttLink

        link = MqttLink(controller, feed, mqtt)
    return Table(controller, director, link, remote, follower)
