"""Cameras people buy for the table: sensor, lens and the capture sizes that keep the whole field of view.

Figures are the makers' published ones: Camera Module 3 (Sony IMX708, 4608x2592, 6.45x3.63 mm, 66 deg
horizontal; Wide 102 deg), the HQ camera (Sony IMX477, 4056x3040, 6.287x4.712 mm) with the 6 mm CS
lens, and a USB webcam named by its diagonal field of view (as webcams are sold: `usb-fov:78`).
No distortion figures are published for these lenses: the models have none, and `calibrate-lens`
measures a real one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from table.errors import ConfigError


@dataclass(frozen=True)
class CameraModel:
    """A camera and lens: native resolution, horizontal field of view, and the capture sizes (binned or
    scaled) that keep the whole field; pixels are square."""

    name: str
    title: str
    resolution: tuple[int, int]
    hfov_deg: float
    modes: tuple[tuple[int, int], ...]
    dist: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0)

    def focal_px(self, size: tuple[int, int] | None = None) -> float:
        """Focal length in pixels of a capture of `size` (default: native): the sensor's largest region
        of the capture's shape, scaled to it (a 4:3 capture of a 16:9 sensor crops its sides)."""
        native = (self.resolution[0] / 2) / math.tan(math.radians(self.hfov_deg) / 2)
        w, h = size or self.resolution
        region_w = min(self.resolution[0], self.resolution[1] * w / h)
        return native * w / region_w

    def fov_deg(self, size: tuple[int, int] | None = None) -> tuple[float, float]:
        """(horizontal, vertical) field of view of a capture of `size`."""
        w, h = size or self.resolution
        f = self.focal_px((w, h))
        return 2 * math.degrees(math.atan(w / 2 / f)), 2 * math.degrees(math.atan(h / 2 / f))


def _lens(sensor_mm: float, focal_mm: float) -> float:
    return 2 * math.degrees(math.atan(sensor_mm / 2 / focal_mm))


CAMERAS: dict[str, CameraModel] = {m.name: m for m in (
    CameraModel("cm3", "Raspberry Pi Camera Module 3 (standard lens)", (4608, 2592), 66.0,
                ((4608, 2592), (2304, 1296), (1536, 864))),
    CameraModel("cm3-wide", "Raspberry Pi Camera Module 3 Wide", (4608, 2592), 102.0,
                ((4608, 2592), (2304, 1296), (1536, 864))),
    CameraModel("hq-6mm", "Raspberry Pi HQ camera with the 6 mm CS lens", (4056, 3040), _lens(6.287, 6.0),
                ((4056, 3040), (2028, 1520), (1332, 990))),
)}
USB_RESOLUTION = (1920, 1080)


def camera_of_frame(size: tuple[int, int]) -> CameraModel | None:
    """The one camera of CAMERAS whose capture sizes include `size` (4056x3040 is only the HQ camera's
    sensor), or None when none or several have it (the Camera Module 3 and its Wide share theirs)."""
    have = [m for m in CAMERAS.values() if tuple(size) in m.modes]
    return have[0] if len(have) == 1 else None


def camera_model(name: str) -> CameraModel:
    """A camera by name: one of CAMERAS, or `usb-fov:D` (a 1920x1080 webcam of D degrees diagonal)."""
    if name in CAMERAS:
        return CAMERAS[name]
    prefix, _, value = name.partition(":")
    if prefix == "usb-fov":
        try:
            diagonal = float(value)
        except ValueError:
            diagonal = -1.0
        if not 20 <= diagonal <= 170:
            raise ConfigError(f"camera {name!r}: usb-fov:D takes the webcam's diagonal field of view, "
                              "20-170 degrees (e.g. usb-fov:78)")
        w, h = USB_RESOLUTION
        f = math.hypot(w, h) / 2 / math.tan(math.radians(diagonal) / 2)
        hfov = 2 * math.degrees(math.atan(w / 2 / f))
        return CameraModel(name, f"USB webcam, {diagonal:g} deg diagonal", USB_RESOLUTION, hfov,
                           (USB_RESOLUTION, (1280, 720)))
    raise ConfigError(f"camera {name!r}: one of {', '.join(CAMERAS)} or usb-fov:DEGREES")
