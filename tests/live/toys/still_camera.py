"""A toy camera from the tests folder: shows one still image (`[camera] path`) forever, paced at
`[camera] fps`. A camera class is this much: `open(config, realtime=...)`, `read()` and `close()`."""

from __future__ import annotations

import time
from typing import Self

import cv2

from table.config import Config
from table.errors import HardwareError
from vision.types import Frame


class StillCamera:
    def __init__(self, image_path: str, fps: float):
        self.image = cv2.imread(image_path, cv2.IMREAD_GRAYSCALE)
        if self.image is None:
            raise HardwareError(f"still camera: cannot read {image_path}")
        self.interval, self.index = 1.0 / fps, 0

    @classmethod
    def open(cls, config: Config, *, realtime: bool = True) -> Self:
        return cls(str(config.path("camera", "path")), config.camera.fps)

    def read(self) -> Frame:
        if self.image is None:
            raise HardwareError("still camera: closed")
        time.sleep(self.interval)
        self.index += 1
        return Frame(self.image, time.monotonic(), self.index)

    def close(self) -> None:
        self.image = None
