"""The Raspberry Pi camera through picamera2 (`[camera] source = "picamera2"`, or `auto` on a Pi).

picamera2 is imported only when the camera is opened: apt's package on a Pi, with the venv on
--system-site-packages.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from table.config import Camera, Config
from table.errors import HardwareError, SetupError
from vision.types import Frame

REINSTALL = ("run deploy/install-pi.sh again: it keeps the venv on the system's numpy, which apt's picamera2 "
             "is built against")


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

    def __init__(self, camera: Camera):
        Picamera2 = load_picamera2()
        try:
            self._cam = Picamera2()
        except (RuntimeError, IndexError) as exc:
            if "busy" in str(exc).lower():
                raise HardwareError(f"the Pi camera is in use by another program ({exc}); the table's "
                                    "service holds it while it runs: sudo systemctl stop smarttable"
                                    ) from None
            raise HardwareError(f"no Pi camera found ({exc})") from None
        size = (int(camera.width), int(camera.height))
        lores = (size[0] // 4 // 2 * 2, size[1] // 4 // 2 * 2)
        controls: dict[str, Any] = {"FrameRate": float(camera.fps)}
        if camera.exposure_us:
            controls["ExposureTime"] = int(camera.exposure_us)
            controls["AeEnable"] = False
        if camera.analogue_gain:
            controls["AnalogueGain"] = float(camera.analogue_gain)
            controls["AeEnable"] = False
        if camera.lens_position >= 0:  # Camera Module 3: manual focus at this dioptre
            controls["AfMode"] = 0  # libcamera.controls.AfModeEnum.Manual
            controls["LensPosition"] = float(camera.lens_position)
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

    @classmethod
    def open(cls, config: Config, *, realtime: bool = True) -> Picamera2Source:
        return cls(config.camera)

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
