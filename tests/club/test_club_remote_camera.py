"""A second Pi's camera over a real Mosquitto: the table merges what it publishes with its own
camera, so a model only the other Pi sees is on the table, where it stands; when the other Pi stops,
its view goes stale and the model is no longer tracked."""

from __future__ import annotations

import json
import math
import threading
import time

import pytest

from table.commands.club import _demo_source
from table.config import CONFIG_DIR, PACKAGE_ROOT, load_config
from table.errors import ConfigError
from table.live import remote_cameras
from table.live.mqtt_link import settings_from_config
from table.live.run import build_table


def wait_until(check, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return bool(check())


def table_config(tmp_path, url: str, second: str = "mqtt", mqtt: bool = True):
    scene = json.loads((PACKAGE_ROOT / "table" / "data" / "demo-72x48.json").read_text())
    for model in scene["models"]:
        if model["id"] == "gunner-1":
            model["x"], model["y"] = 60.0, 40.0          # where only the second camera sees it
    (tmp_path / "scene.json").write_text(json.dumps(scene))
    broker = f'[mqtt]\nurl = "{url}"\ntable_id = "t1"\n' if mqtt else ""
    path = tmp_path / "table.toml"
    path.write_text(f"""
[board]
width = 72.0
height = 48.0
[markers.corners]
"0" = [1.5, 1.5]
"1" = [70.5, 1.5]
"2" = [70.5, 46.5]
"3" = [1.5, 46.5]
[markers.edges]
"4" = [36.0, 1.5]
"5" = [36.0, 46.5]
[game]
scene = "{tmp_path / 'scene.json'}"
[hardware]
led_layout = "{CONFIG_DIR / 'leds' / 'edge-strip.toml'}"
pin_map = "{CONFIG_DIR / 'pins-pi4.toml'}"
{broker}
[[cameras]]
source = "synthetic"
area = [0.0, 0.0, 42.0, 48.0]
[[cameras]]
source = "{second}"
area = [30.0, 0.0, 72.0, 48.0]
""")
    return load_config(path)


def test_a_model_only_the_other_pi_sees_is_on_the_table(broker, tmp_path):
    config = table_config(tmp_path, broker.url)
    settings = settings_from_config(config)
    table = build_table(config, demo=True, log_path=tmp_path / "game.sqlite3", mqtt=settings)
    stop = threading.Event()
    camera = remote_cameras.slot_config(config, 1)
    publisher = remote_cameras.CameraPublisher(settings, 1)
    source = _demo_source(config, camera)
    done: dict = {}
    remote = threading.Thread(target=lambda: done.update(remote_cameras.run_camera(camera, source, publisher, stop)))
    try:
        table.remote.start()
        publisher.start()
        remote.start()
        assert wait_until(lambda: any(13 in v.observation.markers for v in table.remote.views()), 60)
        controller, local = table.controller, table.controller.open_source()
        for _ in range(4):
            controller.process(local.read())
        models = {m["id"]: m for m in controller.snapshot().scene["models"]}
        assert {m["state"] for m in models.values()} == {"tracked"}
        gunner = models["gunner-1"]
        assert math.dist((gunner["x"], gunner["y"]), (60.0, 40.0)) < 0.02
        assert 13 not in controller.pipeline.pipelines[0].tracker.poses(1e9)     # not the table's own camera
        stop.set()
        remote.join(30)
        time.sleep(remote_cameras.STALE_S + 0.2)
        for _ in range(2):
            controller.process(local.read())
        models = {m["id"]: m for m in controller.snapshot().scene["models"]}
        assert models["gunner-1"]["state"] != "tracked" and models["rifles-1"]["state"] == "tracked"
        assert done["published"] > 0
    finally:
        stop.set()
        publisher.close()
        source.close()
        table.close()


def test_remote_camera_mistakes(tmp_path):
    with pytest.raises(ConfigError, match=r"cameras\[1\]\.source: a remote camera \(\"mqtt\"\) needs a broker"):
        build_table(table_config(tmp_path, "", mqtt=False), demo=True, log_path=tmp_path / "g.sqlite3")
    local = table_config(tmp_path, "mqtt://127.0.0.1:1", second="synthetic")
    with pytest.raises(ConfigError, match=r"cameras\[1\]\.source: the table opens this camera itself"):
        remote_cameras.slot_config(local, 1)
    with pytest.raises(ConfigError, match=r"--slot: the config has 2 \[\[cameras\]\] entries, got 5"):
        remote_cameras.slot_config(local, 5)


def test_smarttable_camera_publishes_its_views(broker, tmp_path):
    import subprocess
    import sys

    from tests.club.club_clients import Recorder

    table_config(tmp_path, broker.url)
    recorder = Recorder(broker.url, "smarttable/t1/camera/#")
    done = subprocess.run([sys.executable, "-m", "table.cli", "camera", "--config", str(tmp_path / "table.toml"),
                           "--slot", "1", "--demo", "--duration", "6"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["slot"] == 1 and summary["published"] > 0
    views = recorder.json("camera/1")
    assert 0 < len(views) <= summary["published"] and views[-1]["calibrated"] is True
    gunner = next(m for m in views[-1]["markers"] if m["id"] == 13)
    assert math.dist((gunner["x"], gunner["y"]), (60.0, 40.0)) < 0.02
    assert recorder.payloads("camera/1/available") == ["online", "offline"]
    recorder.close()
