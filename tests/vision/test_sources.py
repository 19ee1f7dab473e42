"""Frame sources: replay of recorded frames, OpenCV video files, the synthetic camera, the factory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from table.config import default_config, from_document
from table.errors import ConfigError, HardwareError
from tests.vision.synthetic import camera, scene
from vision.picamera import Picamera2Source
from vision.sources import (
    ReplaySource,
    SyntheticSource,
    VideoCaptureSource,
    open_source,
)
from vision.synthetic import RenderOptions


def numbered_frames(n: int, shape=(48, 64)) -> list[np.ndarray]:
    frames = []
    for i in range(n):
        image = np.zeros(shape, np.uint8)
        cv2.putText(image, str(i), (10, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 255, 3)
        image[0, 0] = 20 * i  # an exact tag that survives lossless formats
        frames.append(image)
    return frames


def test_replay_of_a_folder_plays_frames_in_name_order_then_ends(tmp_path):
    for i, image in enumerate(numbered_frames(3)):
        cv2.imwrite(str(tmp_path / f"frame-{i:03d}.png"), image)
    source = ReplaySource(tmp_path, fps=5.0)
    frames = [source.read() for _ in range(3)]
    assert [f.image[0, 0] for f in frames] == [0, 20, 40]
    assert [f.timestamp for f in frames] == [0.0, 0.2, 0.4]
    assert source.read() is None
    looped = ReplaySource(tmp_path, loop=True)
    assert [looped.read().image[0, 0] for _ in range(4)] == [0, 20, 40, 0]


def test_replay_of_a_video_and_opencv_video_file(tmp_path):
    path = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48), False)
    if not writer.isOpened():
        pytest.skip("this OpenCV build writes no MJPG video")
    for image in numbered_frames(4):
        writer.write(image)
    writer.release()
    replay = ReplaySource(path)
    assert sum(1 for _ in iter(replay.read, None)) == 4
    capture = VideoCaptureSource(str(path))
    frames = list(iter(capture.read, None))
    assert len(frames) == 4 and frames[0].image.ndim == 2


def test_missing_replay_and_camera_are_clear_errors(tmp_path):
    with pytest.raises(ConfigError, match="no such replay folder"):
        ReplaySource(tmp_path / "nope")
    with pytest.raises(ConfigError, match="no images to replay"):
        ReplaySource(tmp_path)
    with pytest.raises(HardwareError, match="cannot open"):
        VideoCaptureSource(str(tmp_path / "missing.mp4"))


def test_picamera2_is_only_imported_on_a_pi():
    try:
        import picamera2  # noqa: F401
    except ImportError:
        with pytest.raises(HardwareError, match="picamera2 is not available"):
            Picamera2Source(default_config().camera)
    else:
        pytest.skip("picamera2 is installed here")


def test_synthetic_camera_renders_scene_changes_and_scripts(config):
    scn = scene(config)
    source = SyntheticSource(config, scn, camera=camera(size=(400, 300)),
                             options=RenderOptions(clutter=5, supersample=1, noise_sigma=0), realtime=False)
    first = source.read()
    assert first.image.shape == (300, 400) and first.image.dtype == np.uint8
    assert np.array_equal(source.read().image, first.image)  # nothing changed, same frame
    source.set_scene(scn.with_marker(10, x=12.0, y=12.0))
    assert not np.array_equal(source.read().image, first.image)
    source.play([scn, scn.with_marker(11, x=5.0)])
    assert np.array_equal(source.read().image, first.image)
    frames = [source.read(), source.read()]
    assert np.array_equal(frames[0].image, frames[1].image) and frames[1].index == 6
    source.close()
    with pytest.raises(HardwareError):
        source.read()


def test_open_source_follows_the_config(tmp_path, config):
    for i, image in enumerate(numbered_frames(2)):
        cv2.imwrite(str(tmp_path / f"{i}.png"), image)
    replay = from_document({"camera": {"source": "replay", "path": str(tmp_path)}}, "<test>")
    assert isinstance(open_source(replay, realtime=False), ReplaySource)
    with pytest.raises(ConfigError, match="camera.path"):
        open_source(from_document({"camera": {"source": "replay"}}, "<test>"))
    with pytest.raises(ConfigError, match="needs a scene"):
        open_source(from_document({"camera": {"source": "synthetic"}}, "<test>"))
    demo = open_source(config, scene(config), realtime=False)
    assert isinstance(demo, SyntheticSource)


def test_opencv_says_nothing_while_a_camera_is_probed():
    """OpenCV 4.11 (Raspberry Pi OS Bookworm's) printed "[ERROR:0@0.909] global obsensor_uvc_stream_channel.cpp:158
    ... Camera index out of range" before doctor's answer: a probe silences OpenCV's log, errors included."""
    code = ("import cv2\nfrom vision.cvcompat import quiet_opencv\nwith quiet_opencv():\n"
            "    print(cv2.utils.logging.getLogLevel())\n"
            "    cv2.VideoCapture(57).release()\n    cv2.VideoCapture(0, cv2.CAP_OBSENSOR).release()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.stdout.strip() == "0"   # cv::utils::logging::LOG_LEVEL_SILENT: not even its [ERROR] lines
    assert done.stderr == ""
