"""Values that cross from vision to the table: frames in, observations out.

The controller codes against these, the vision pipeline produces them; both sides may extend a
value with new optional fields but never change the meaning of one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from table.config import Config


@dataclass(frozen=True)
class Frame:
    """One camera frame: greyscale (H, W) uint8, or BGR (H, W, 3); time in seconds (monotonic)."""

    image: np.ndarray
    timestamp: float
    index: int = 0
    lores: np.ndarray | None = None  # optional small greyscale copy (Pi lores stream), for change detection


class FrameSource(Protocol):
    """Anything that yields frames: picamera2, OpenCV VideoCapture, replay, synthetic."""

    def read(self) -> Frame | None:
        """The next (newest) frame, or None at the end of a finite source. Raises HardwareError
        (table.errors) when the camera is lost."""

    def close(self) -> None: ...


class CameraClass(Protocol):
    """What a `[camera] source` name stands for (an entry point in `smarttable.cameras`): a class whose
    `open` makes a frame source from the table config, raising HardwareError when the camera is missing
    (so `auto` and the capture thread's retries move on) and ConfigError for a bad key."""

    def open(self, config: Config, *, realtime: bool = True) -> FrameSource: ...


@dataclass(frozen=True)
class MarkerPose:
    """A model marker on the board: centre in board inches, heading in degrees (contract)."""

    id: int
    x: float
    y: float
    heading: float
    occluded: bool = False
    last_seen: float = 0.0
    moving: bool = False  # seen away from (x, y) and not yet settled: x, y stay where it last stood
    sigma: float = 0.0  # inches, 1 sd of (x, y) on each axis, as averaged over the frames seen still
    heading_sigma: float = 0.0  # degrees


@dataclass(frozen=True)
class MoveEvent:
    """A marker that came to rest somewhere else: from and to in board inches."""

    id: int
    start: tuple[float, float]
    end: tuple[float, float]
    distance: float
    timestamp: float


@dataclass(frozen=True)
class Observation:
    """What the camera saw in one frame after calibration and tracking."""

    timestamp: float
    calibrated: bool
    markers: dict[int, MarkerPose] = field(default_factory=dict)
    moves: tuple[MoveEvent, ...] = ()
    warnings: tuple[str, ...] = ()
    reprojection_error_px: float | None = None
    # the lens it was seen through (vision.locate.lens_state): "source" calibrated, estimated or assumed,
    # and the estimate (markers, residual_px, k1, k2, ...); None before calibration
    lens: dict | None = None
    # the camera's blur (vision.focus.Focus.to_dict: blur_px, and with ring stickers sticker_base_mm and
    # sticker_limit_px), measured at the last full pass; None before one measured it
    focus: dict | None = None
