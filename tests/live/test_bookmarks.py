"""Dispute bookmarks against the truth: on a rendered board with known model positions, each crop shows its
model's marker (found again by the real detector in the crop alone) where the overlay draws its base, the
stored geometry is the scene's, the answer is the rule system's with its interval, and the bookmark's place in
the game log is its own event. Stored durably: a full disk or a read-only folder (real, on a small tmpfs) is a
StorageError and leaves no file and no log event; a long press of `measure` stores one."""

from __future__ import annotations

import base64
import json
import math
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from table.errors import QueryError, StorageError
from table.hw.devices import TableHardware
from table.hw.pinmap import load_pin_map
from table.hw.strip import ColourCorrection, MockStrip
from table.live.bookmark_store import BookmarkStore
from table.live.bookmarks import Bookmarks
from table.live.gamelog import GameLog
from table.live.summaries import summary
from tests.live.live_fakes import CONFIG_DIR
from tests.live.test_log_faults import fill, mount_tmpfs
from vision.detect import detect_markers
from vision.pipeline import VisionPipeline
from vision.sources import SyntheticSource
from vision.synthetic_scene import from_scene


@pytest.fixture
def camera(config, scene):
    """The synthetic camera at 2028 x 1520 on the demo scene, unpaced."""
    return SyntheticSource(config, from_scene(scene, config), realtime=False)


@pytest.fixture
def seen(make_controller, config, camera):
    """A controller that has seen four rendered frames of the demo scene."""
    c = make_controller(pipeline=VisionPipeline(config))
    for _ in range(4):
        c.process(camera.read())
    assert c.snapshot().status["calibration"] == "ok"
    return c


def decode(picture):
    data = np.frombuffer(base64.b64decode(picture["jpeg"]), np.uint8)
    return cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)


def test_each_crop_shows_its_models_marker_where_the_overlay_draws_it(seen, camera, config):
    truth = {m.id: m for m in camera.scene.markers}
    taken = seen.take_bookmark("rifles-1", "raiders-1")["bookmark"]
    doc = seen.bookmarks.get(taken["id"])
    crops = {p["model"]: p for p in doc["pictures"] if p["kind"] == "crop"}
    assert sorted(crops) == ["raiders-1", "rifles-1"]
    roster = seen.state.markers()
    for model_id, picture in crops.items():
        image = decode(picture)
        assert image.shape == (picture["height"], picture["width"])
        marker = next(k for k, v in roster.items() if v == model_id)
        found = {d.id: d for d in detect_markers(image, config.markers.dictionary)}
        assert marker in found, f"{model_id}'s marker {marker} not found in its crop (found {sorted(found)})"
        base = next(b for b in picture["overlay"]["bases"] if b["id"] == model_id)
        assert math.dist(found[marker].centre, base["centre"]) < 3.0          # pixels: the overlay is on it
        assert 2 * max(math.dist(base["centre"], p) for p in base["outline"]) < min(image.shape)
    frame = next(p for p in doc["pictures"] if p["kind"] == "frame")
    assert frame["width"] == 640 and decode(frame).shape == (frame["height"], 640)
    # the geometry is the scene the camera saw: each model where the renderer put its marker
    for model in doc["scene"]["models"]:
        rendered = truth[model["marker"]]
        assert math.dist((model["x"], model["y"]), (rendered.x, rendered.y)) < 0.1
        assert model["sigma"] > 0
    # the answer is the rule system's, with the camera's error: the true distance inside its interval
    a, b = (truth[next(k for k, v in roster.items() if v == i)] for i in ("rifles-1", "raiders-1"))
    distance = doc["measurement"]["answers"]["distance"]
    lo, hi = distance["interval"]
    assert lo <= math.dist((a.x, a.y), (b.x, b.y)) <= hi
    assert taken["text"] == f'{distance["distance"]:.2f}" ± {(hi - lo) / 2:.2f}"'
    assert doc["rulings"] == seen.ruleset().rulings and doc["ruleset"] == "synaptik"
    assert doc["camera"]["calibrated"] and doc["camera"]["width"] == 2028
    # its place in the game log is its own event, which says what was measured
    events = seen.gamelog.events(seen.game)
    mine = [e for e in events if e["kind"] == "bookmark"]
    assert [e["id"] for e in mine] == [taken["id"]] and doc["log"]["seq"] == mine[0]["seq"]
    assert mine[0]["text"] == taken["text"] and mine[0]["between"] == ["rifles-1", "raiders-1"]


def test_the_tables_selection_or_else_the_ruler_is_the_measurement(make_controller):
    c = make_controller()
    with pytest.raises(QueryError, match="nothing measured"):
        c.take_bookmark()
    c.command("ruler", a="0,0", b="3,4")
    assert c.take_bookmark()["bookmark"]["text"] == '5.00"'
    logged = [e for e in c.gamelog.events(c.game) if e["kind"] == "bookmark"]
    assert summary(logged[0]) == 'Bookmark 1: ruler (0.0, 0.0) → (3.0, 4.0), 5.00".'    # the log's sentence
    c.command("select", id="rifles-1")
    c.command("target", id="raiders")                       # a unit: measured from its nearest model
    doc = c.bookmarks.get(c.take_bookmark()["bookmark"]["id"])
    assert doc["measurement"]["between"] == ["rifles-1", "raiders"]
    assert doc["measurement"]["models"][0] == "rifles-1" and doc["measurement"]["models"][1].startswith("raiders")
    assert doc["pictures"] == [] and doc["camera"] == {"frame": None, "calibrated": False}
    assert [s["id"] for s in c.bookmarks.summaries()] == [1, 2]


def test_bookmarks_survive_a_restart_and_read_from_disk_alone(make_controller, tmp_path):
    c = make_controller()
    c.take_bookmark("rifles-1", "sniper-1")
    c.close()
    on_disk = json.loads((tmp_path / "game-bookmarks" / "bookmark-0001.json").read_text())
    assert on_disk["measurement"]["between"] == ["rifles-1", "sniper-1"]
    again = make_controller()                              # the same log: the game resumes
    assert [s["between"] for s in again.bookmarks.summaries()] == [["rifles-1", "sniper-1"]]
    assert again.take_bookmark("rifles-2", "sniper-1")["bookmark"]["id"] == 2


@pytest.fixture
def small_disk(tmp_path):
    disk = tmp_path / "disk"
    mount_tmpfs(disk, "1m")
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=False)


def test_a_full_disk_refuses_the_bookmark_and_loses_nothing(seen, small_disk):
    seen.bookmarks = Bookmarks(BookmarkStore(small_disk / "bookmarks"), seen.gamelog)
    filler = fill(small_disk)
    before = len(seen.gamelog.events(seen.game))
    with pytest.raises(StorageError, match=f"bookmark not saved: {small_disk / 'bookmarks'}: No space left"):
        seen.take_bookmark("rifles-1", "raiders-1")
    folder = small_disk / "bookmarks"
    assert not folder.exists() or list(folder.iterdir()) == []        # no half-written file, no temporary
    assert len(seen.gamelog.events(seen.game)) == before               # and no bookmark event
    filler.unlink()
    taken = seen.take_bookmark("rifles-1", "raiders-1")["bookmark"]
    assert taken["id"] == 1 and [p.name for p in folder.iterdir()] == ["bookmark-0001.json"]
    assert BookmarkStore(folder).get(1)["pictures"]                    # complete, read by a fresh store


def test_a_read_only_folder_refuses_the_bookmark(make_controller, small_disk):
    c = make_controller()
    (small_disk / "bookmarks").mkdir()
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    c.bookmarks = Bookmarks(BookmarkStore(small_disk / "bookmarks"), c.gamelog)
    with pytest.raises(StorageError, match="bookmark not saved: .*Read-only file system"):
        c.take_bookmark("rifles-1", "sniper-1")
    assert not any(e["kind"] == "bookmark" for e in c.gamelog.events(c.game))


def test_a_long_press_of_measure_bookmarks_the_selection(layout, factory, make_controller, tmp_path):
    pins = replace(load_pin_map(CONFIG_DIR / "pins-pi4.toml"), hold_s=0.05)
    hardware = TableHardware(pins, MockStrip(ColourCorrection(len(layout))), factory, mock=True)
    c = make_controller(hardware=hardware)
    c.command("select", id="rifles-1")
    c.command("target", id="raiders-1")
    pin = c.hw.buttons["measure"].pin
    pin.drive_low()
    deadline = time.monotonic() + 3.0
    while not c.bookmarks.summaries() and time.monotonic() < deadline:
        time.sleep(0.01)
    pin.drive_high()
    assert [s["between"] for s in c.bookmarks.summaries()] == [["rifles-1", "raiders-1"]]
    assert c.state.target == "raiders-1"                     # the press did not move the target on first
    assert (tmp_path / "game-bookmarks" / "bookmark-0001.json").is_file()
    # a short press still picks the next target, and stores nothing
    pin.drive_low()
    pin.drive_high()
    assert c.state.target != "raiders-1" and len(c.bookmarks.summaries()) == 1


def test_the_cli_lists_and_exports_bookmarks_without_the_table(make_controller, tmp_path, capsys):
    from table.cli import main as cli_main

    c = make_controller()
    taken = c.take_bookmark("rifles-1", "sniper-1")["bookmark"]
    c.close()
    log = str(tmp_path / "game.sqlite3")
    assert cli_main(["bookmarks", "list", "--log", log]) == 0
    listed = json.loads(capsys.readouterr().out)["bookmarks"]
    assert [(b["id"], b["text"], b["seq"] is not None) for b in listed] == [(1, taken["text"], True)]
    out = tmp_path / "judge.html"
    assert cli_main(["bookmarks", "export", "1", "--out", str(out), "--log", log]) == 0
    assert json.loads(capsys.readouterr().out) == {"bookmark": 1, "path": str(out), "text": taken["text"]}
    assert taken["text"].replace('"', "&quot;") in out.read_text()
    assert cli_main(["bookmarks", "export", "4", "--out", str(out), "--log", log]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"smarttable bookmarks: {tmp_path / 'game-bookmarks'}: no bookmark 4 (bookmarks: 1)"]
    assert cli_main(["bookmarks", "list", "--log", str(tmp_path / "other.sqlite3")]) == 2
    assert "other-bookmarks: no bookmarks here" in capsys.readouterr().err


def test_sigkill_while_bookmarking_loses_no_answered_bookmark(make_controller, tmp_path):
    log_path = tmp_path / "killed.sqlite3"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    child = subprocess.Popen([sys.executable, str(Path(__file__).parent / "bookmark_stream.py"), str(log_path)],
                             stdout=subprocess.PIPE, text=True, env=env)
    assert child.stdout.readline().strip() == "started"
    answered = [int(child.stdout.readline()) for _ in range(15)]
    child.send_signal(signal.SIGKILL)            # in the middle of a bookmark: no chance to clean up
    child.wait()
    answered += [int(line) for line in child.stdout.read().split()]
    folder = tmp_path / "killed-bookmarks"
    (folder / ".bookmark-cut.tmp").write_text('{"format": "smarttable-b')    # as a cut write leaves it
    store = BookmarkStore(folder)
    on_disk = [s["id"] for s in store.summaries()]
    # every bookmark the table answered is on disk, whole; at most the one in flight is there too
    assert on_disk[:len(answered)] == answered and len(on_disk) <= len(answered) + 1
    assert all(store.get(i)["measurement"]["answers"]["distance"] for i in on_disk)
    log = GameLog(log_path)
    try:
        logged = [e["id"] for e in log.events(log.current_game()) if e["kind"] == "bookmark"]
    finally:
        log.close()
    assert logged[:len(answered)] == answered and set(logged) <= set(on_disk)   # no event without its file
    restarted = make_controller(log_path=log_path)          # the table again: cut writes swept away
    assert [s["id"] for s in restarted.bookmarks.summaries()] == on_disk
    assert not [p.name for p in folder.iterdir() if not p.name.startswith("bookmark-")]
