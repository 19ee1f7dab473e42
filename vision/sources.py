"""Frame sources behind one interface (`vision.types.FrameSource`): picamera2, OpenCV VideoCapture
(USB cameras and video files), replay of recorded frames, and the synthetic camera.

`open_source(config, demo_scene=None)` picks one from `[camera] source`; "auto" tries the Pi camera,
then a USB camera, and raises HardwareError when there is none (the live table then runs its demo).
A picamera2 that is installed but cannot load is a SetupError: no fallback hides it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from table.errors import ConfigError, HardwareError, SetupError
from vision.camera import PinholeCamera
from vision.cvcompat import quiet_opencv
from vision.planner import simulated_camera
from vision.synthetic import Renderer, RenderOptions
from vision.synthetic_scene import SyntheticScene
from vision.types import Frame

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".pgm")
REINSTALL = ("run deploy/install-pi.sh again: it keeps the venv on the system's numpy, which apt's picamera2 "
             "is built against")


def _grey(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image


class _Pacer:
    """Sleeps so frames come at most `fps` per second (0: as fast as asked)."""

    def __init__(self, fps: float):
        self.interval = 1.0 / fps if fps > 0 else 0.0
        self._next = 0.0

    def wait(self) -> None:
        if self.interval:
            now = time.monotonic()
            if self._next > now:
                time.sleep(self._next - now)
            self._next = max(now, self._next) + self.interval


class VideoCaptureSource:
    """A USB camera by index, or a video file, through OpenCV."""

    def __init__(self, device: int | str, size: tuple[int, int] | None = None, fps: float = 0.0):
        self.device = device
        with quiet_opencv():  # a missing camera is reported below, once, in our words
            self._cap = cv2.VideoCapture(device)
        if not self._cap.isOpened():
            raise HardwareError(f"camera {device!r}: cannot open (no such camera or unreadable video file)")
        if size and isinstance(device, int):
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        if fps and isinstance(device, int):
            self._cap.set(cv2.CAP_PROP_FPS, fps)
        self._index = 0

    def read(self) -> Frame | None:
        ok, image = self._cap.read()
        if not ok:
            if isinstance(self.device, str):
                return None  # end of the video file
            raise HardwareError(f"camera {self.device}: no frame (unplugged?)")
        self._index += 1
        return Frame(_grey(image), time.monotonic(), self._index)

    def close(self) -> None:
        self._cap.release()


class ReplaySource:
    """Recorded frames (a folder of images in name order, or a video) played through the live
    pipeline: paced as recorded (`fps`, or the video's own rate) or as fast as possible (realtime=False)."""

    def __init__(self, path: str | Path, fps: float = 10.0, realtime: bool = False, loop: bool = False):
        self.path = Path(path)
        if not self.path.exists():
            raise ConfigError(f"{self.path}: no such replay folder or video")
        self._video: cv2.VideoCapture | None = None
        self._files: list[Path] = []
        if self.path.is_dir():
            self._files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._files:
                raise ConfigError(f"{self.path}: no images to replay ({', '.join(IMAGE_SUFFIXES)})")
        else:
            self._video = cv2.VideoCapture(str(self.path))
            if not self._video.isOpened():
                raise ConfigError(f"{self.path}: not a readable video")
            fps = self._video.get(cv2.CAP_PROP_FPS) or fps
        self.fps = fps
        self._pacer = _Pacer(fps if realtime else 0.0)
        self.loop = loop
        self._index = 0

    def read(self) -> Frame | None:
        image = self._next_image()
        if image is None:
            return None
        self._pacer.wait()
        frame = Frame(_grey(image), self._index / self.fps, self._index)
        self._index += 1
        return frame

    def _next_image(self) -> np.ndarray | None:
        if self._video is not None:
            ok, image = self._video.read()
            if not ok and self.loop and self._index:
                self._video.set(cv2.CAP_PROP_POS_FRAMES, 0)
                ok, image = self._video.read()
            return image if ok else None
        position = self._index % len(self._files) if self.loop else self._index
        if position >= len(self._files):
            return None
        image = cv2.imread(str(self._files[position]), cv2.IMREAD_GRAYSCALE)
        if image is None:
            raise ConfigError(f"{self._files[position]}: not a readable image")
        return image

    def close(self) -> None:
        if self._video is not None:
            self._video.release()


class SyntheticSource:
    """The synthetic camera: renders the current scene (change it with `set_scene`) or plays a
    scripted sequence of scenes (`play`). A frame is re-rendered only when the scene changed."""

    def __init__(self, config: Mapping[str, Mapping[str, Any]], scene: SyntheticScene, *,
                 camera: PinholeCamera | None = None, options: RenderOptions | None = None,
                 realtime: bool = True, size: tuple[int, int] | None = None):
        cam = config["camera"]
        size = size or (int(cam["width"]), int(cam["height"]))
        self.camera = camera or simulated_camera(config, size, scene.board)
        markers = config["markers"]
        # the demo camera: gentle noise, clutter but no decoys (they only add warnings to the panel)
        options = options or RenderOptions(dictionary=markers["dictionary"], supersample=2, noise_sigma=1.0,
                                           blur_sigma=0.5, decoys=0)
        self.renderer = Renderer(self.camera, scene.board, options)
        self.corner_ids = frozenset(int(k) for k in {**markers["corners"], **markers["edges"]})
        self._scene = scene
        self._script: Iterator[SyntheticScene] | None = None
        self._cached: tuple[SyntheticScene, np.ndarray] | None = None
        self._pacer = _Pacer(float(cam["fps"]) if realtime else 0.0)
        self._index = 0
        self._clock = 0.0
        self._interval = 1.0 / float(cam["fps"])
        self.closed = False

    @property
    def scene(self) -> SyntheticScene:
        return self._scene

    def set_scene(self, scene: SyntheticScene) -> None:
        """Show this scene from the next frame on (thread-safe enough: one reference swap)."""
        self._scene = scene

    def play(self, scenes: Iterable[SyntheticScene]) -> None:
        """Show these scenes one per frame, then keep showing the last."""
        self._script = iter(scenes)

    def read(self) -> Frame | None:
        if self.closed:
            raise HardwareError("synthetic camera: closed")
        if self._script is not None:
            try:
                self._scene = next(self._script)
            except StopIteration:
                self._script = None
        scene = self._scene
        if self._cached is None or self._cached[0] != scene:
            self._cached = (scene, self.renderer.render(scene, self.corner_ids))
        self._pacer.wait()
        self._index += 1
        self._clock += self._interval
        return Frame(self._cached[1], self._clock, self._index)

    def close(self) -> None:
        self.closed = True


def load_picamera2() -> Any:
    """The `Picamera2` class. Not installed: HardwareError (`auto` then tries a USB camera). Installed
    but failing to load (apt's picamera2 is built against the system's numpy; another numpy in the venv
    fails with "numpy.dtype size changed"): SetupError, one line, since retrying cannot fix it."""
    try:
        from picamera2 import Picamera2  # only on a Pi: apt install python3-picamera2
    except ModuleNotFoundError as exc:
        if exc.name != "picamera2":
            raise SetupError(f"picamera2 is installed but cannot load: {exc}; {REINSTALL}") from None
        raise HardwareError("picamera2 is not available (apt install python3-picamera2; the venv needs "
                            "--system-site-packages)") from None
    except Exception as exc:  # any failure inside picamera2's own imports
        reason = " ".join(str(exc).split()) or "no message"
        raise SetupError(f"picamera2 is installed but cannot load: {type(exc).__name__}: {reason}; "
                         f"{REINSTALL}") from None
    return Picamera2


class Picamera2Source:
    """The Raspberry Pi camera (picamera2, imported here only): YUV420 at the configured size, the
    Y plane as the greyscale frame; fixed exposure, gain and lens position so calibration holds, and
    a low-resolution stream (`Frame.lores`) for change detection."""

    def __init__(self, camera: Mapping[str, Any]):
        Picamera2 = load_picamera2()
        try:
            self._cam = Picamera2()
        except (RuntimeError, IndexError) as exc:
            if "busy" in str(exc).lower():
                raise HardwareError(f"the Pi camera is in use by another program ({exc}); the table's "
                                    "service holds it while it runs: sudo systemctl stop smarttable"
                                    ) from None
            raise HardwareError(f"no Pi camera found ({exc})") from None
        size = (int(camera["width"]), int(camera["height"]))
        lores = (size[0] // 4 // 2 * 2, size[1] // 4 // 2 * 2)
        controls: dict[str, Any] = {"FrameRate": float(camera["fps"])}
        if camera["exposure_us"]:
            controls["ExposureTime"] = int(camera["exposure_us"])
            controls["AeEnable"] = False
        if camera["analogue_gain"]:
            controls["AnalogueGain"] = float(camera["analogue_gain"])
            controls["AeEnable"] = False
        if camera["lens_position"] >= 0:  # Camera Module 3: manual focus at this dioptre
            controls["AfMode"] = 0  # libcamera.controls.AfModeEnum.Manual
            controls["LensPosition"] = float(camera["lens_position"])
        config = self._cam.create_video_configuration(main={"size": size, "format": "YUV420"},
                                                      lores={"size": lores, "format": "YUV420"},
                                                      controls=controls, buffer_count=2)
        try:
            self._cam.configure(config)
            self._cam.start()
        except Exception as exc:  # an unsupported size or control, a camera taken meanwhile
            self._cam.close()
            raise HardwareError(f"Pi camera: cannot start at {size[0]}x{size[1]} ({exc})") from None
        self._size, self._lores = size, lores
        self._index = 0

    def read(self) -> Frame | None:
        try:
            (main, lores), _ = self._cam.capture_arrays(["main", "lores"])  # one request: same moment
        except Exception as exc:  # picamera2 raises several kinds when the camera goes away
            raise HardwareError(f"Pi camera: {exc}") from None
        self._index += 1
        # YUV420 arrays are (height * 3 / 2, stride): the Y plane is the first `height` rows
        y_plane = np.ascontiguousarray(main[: self._size[1], : self._size[0]])
        small = np.ascontiguousarray(lores[: self._lores[1], : self._lores[0]])
        return Frame(y_plane, time.monotonic(), self._index, lores=small)

    def close(self) -> None:
        self._cam.stop()
        self._cam.close()


def open_source(config: Mapping[str, Mapping[str, Any]], demo_scene: SyntheticScene | None = None,
                *, realtime: bool = True):
    """The frame source `[camera] source` names; a demo scene forces the synthetic camera."""
    cam = config["camera"]
    kind = "synthetic" if demo_scene is not None else cam["source"]
    if kind == "synthetic":
        if demo_scene is None:
            raise ConfigError("camera.source: the synthetic camera needs a scene (run --demo)")
        return SyntheticSource(config, demo_scene, realtime=realtime)
    if kind == "replay":
        if not cam["path"]:
            raise ConfigError("camera.path: replay needs a folder of images or a video file")
        path = config.path("camera", "path") if hasattr(config, "path") else cam["path"]
        return ReplaySource(path, float(cam["fps"]), realtime=realtime)
    if kind == "picamera2":
        return Picamera2Source(cam)
    if kind == "opencv":
        device: int | str = cam["path"] or int(cam["index"])
        return VideoCaptureSource(device, (int(cam["width"]), int(cam["height"])), float(cam["fps"]))
    errors = []
    for attempt in (lambda: Picamera2Source(cam),
                    lambda: VideoCaptureSource(int(cam["index"]), (int(cam["width"]), int(cam["height"])))):
        try:
            return attempt()
        except HardwareError as exc:
            errors.append(str(exc))
    raise HardwareError("no camera found: " + "; ".join(errors))
