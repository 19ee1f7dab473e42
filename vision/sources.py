"""Frame sources behind one interface (`vision.types.FrameSource`): picamera2, OpenCV VideoCapture
(USB cameras and video files), replay of recorded frames, and the synthetic camera; the Pi camera is
`vision.picamera.Picamera2Source`, imported only when the config names it.

Each is a camera class (`vision.types.CameraClass`: `open(config, realtime=...)` makes a source from the
config) found by name through the entry points `smarttable.cameras` (`table.plugins.CAMERAS`).
`open_source(config, demo_scene=None)` opens the one `[camera] source` names; "auto" tries the Pi camera,
then a USB camera, and raises HardwareError when there is none (the live table then runs its demo).
A picamera2 that is installed but cannot load is a SetupError: no fallback hides it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import cv2
import numpy as np

from table.config import Config
from table.errors import ConfigError, HardwareError
from table.plugins import CAMERAS
from vision.camera import PinholeCamera
from vision.cvcompat import quiet_opencv
from vision.detect import as_grey
from vision.planner import simulated_camera
from vision.synthetic import Renderer, RenderOptions, sticker_tiles
from vision.synthetic_scene import SyntheticScene, config_stickers
from vision.types import Frame, FrameSource

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".pgm")
AUTO = ("picamera2", "opencv")     # what `source = "auto"` tries, in this order


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

    @classmethod
    def open(cls, config: Config, *, realtime: bool = True) -> VideoCaptureSource:
        """`[camera] path` (a video file), else the USB camera `index`."""
        cam = config.camera
        device: int | str = cam.path or int(cam.index)
        return cls(device, (int(cam.width), int(cam.height)), float(cam.fps))

    def read(self) -> Frame | None:
        ok, image = self._cap.read()
        if not ok:
            if isinstance(self.device, str):
                return None  # end of the video file
            raise HardwareError(f"camera {self.device}: no frame (unplugged?)")
        self._index += 1
        return Frame(as_grey(image), time.monotonic(), self._index)

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

    @classmethod
    def open(cls, config: Config, *, realtime: bool = True) -> ReplaySource:
        """`[camera] path` (relative to the config file), paced at `[camera] fps` when realtime."""
        cam = config.camera
        if not cam.path:
            raise ConfigError("camera.path: replay needs a folder of images or a video file")
        return cls(config.path("camera", "path"), float(cam.fps), realtime=realtime)

    def read(self) -> Frame | None:
        image = self._next_image()
        if image is None:
            return None
        self._pacer.wait()
        frame = Frame(as_grey(image), self._index / self.fps, self._index)
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
        still = cv2.imread(str(self._files[position]), cv2.IMREAD_GRAYSCALE)
        if still is None:
            raise ConfigError(f"{self._files[position]}: not a readable image")
        return still

    def close(self) -> None:
        if self._video is not None:
            self._video.release()


class SyntheticSource:
    """The synthetic camera: renders the current scene (change it with `set_scene`) or plays a
    scripted sequence of scenes (`play`). A frame is re-rendered only when the scene changed."""

    def __init__(self, config: Config, scene: SyntheticScene, *,
                 camera: PinholeCamera | None = None, options: RenderOptions | None = None,
                 realtime: bool = True, size: tuple[int, int] | None = None):
        cam = config.camera
        size = size or (int(cam.width), int(cam.height))
        self.camera = camera or simulated_camera(config, size, scene.board)
        markers = config.markers
        # the demo camera: gentle noise, clutter but no decoys (they only add warnings to the panel)
        options = options or RenderOptions(dictionary=markers.dictionary, supersample=2, noise_sigma=1.0,
                                           blur_sigma=0.5, decoys=0)
        self.renderer = Renderer(self.camera, scene.board, options, sticker_tiles(config_stickers(config)))
        self.corner_ids = frozenset(int(k) for k in {**markers.corners, **markers.edges})
        self._scene = scene
        self._script: Iterator[SyntheticScene] | None = None
        self._cached: tuple[SyntheticScene, np.ndarray] | None = None
        self._pacer = _Pacer(float(cam.fps) if realtime else 0.0)
        self._index = 0
        self._clock = 0.0
        self._interval = 1.0 / float(cam.fps)
        self.closed = False

    @classmethod
    def open(cls, config: Config, *, realtime: bool = True) -> SyntheticSource:
        """Only the demo opens the synthetic camera, with its scene (`open_source(config, scene)`)."""
        raise ConfigError("camera.source: the synthetic camera needs a scene (run --demo)")

    @property
    def scene(self) -> SyntheticScene:
        return self._scene

    def set_scene(self, scene: SyntheticScene) -> None:
        """Show this scene from the next frame on (thread-safe enough: one reference swap)."""
        self._scene = scene

    def play(self, scenes: Iterable[SyntheticScene]) -> None:
        """Show these scenes one per frame, then keep showing the last."""
        self._script = iter(scenes)

    def read(self) -> Frame:
        """The scene's frame (never None: the synthetic camera does not run out)."""
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


def open_source(config: Config, demo_scene: SyntheticScene | None = None, *,
                realtime: bool = True) -> FrameSource:
    """The frame source `[camera] source` names (its class loaded on first use); a demo scene forces
    the synthetic camera."""
    if demo_scene is not None:
        return SyntheticSource(config, demo_scene, realtime=realtime)
    name = config.camera.source
    if name != "auto":
        return CAMERAS.load(name).open(config, realtime=realtime)
    errors = []
    for kind in AUTO:
        try:
            return CAMERAS.load(kind).open(config, realtime=realtime)
        except HardwareError as exc:
            errors.append(str(exc))
    raise HardwareError("no camera found: " + "; ".join(errors))
