"""Several cameras as one: a source that reads a frame from each (`RigSource`) and a pipeline that
runs each camera's own vision pipeline and merges what they saw (`CameraRig`).

To the table controller the rig is one camera and one pipeline: `RigSource.read()` returns a
`RigFrame` (the first camera's image, for the panel's camera view, with every camera's frame in
`parts`), and `CameraRig.process(frame)` returns one merged `Observation`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from table.config import Config
from vision.calibrate import Calibration
from vision.camera import PinholeCamera
from vision.merge import CameraView, ObservationMerger
from vision.pipeline import VisionPipeline
from vision.types import Frame, FrameSource, Observation

DETECTION_NOISE_PX = 0.25      # a calibrated camera is never trusted to better than this


@dataclass(frozen=True)
class RigFrame(Frame):
    """Frames taken together, one per camera, in the rig's order."""

    parts: tuple[Frame, ...] = ()


class RigSource:
    """Reads the newest frame of every camera; the rig's frame ends when any camera's does."""

    def __init__(self, sources: Sequence[FrameSource]):
        self.sources = list(sources)
        self._index = 0

    def read(self) -> RigFrame | None:
        parts = []
        for source in self.sources:
            frame = source.read()
            if frame is None:
                return None
            parts.append(frame)
        self._index += 1
        return RigFrame(parts[0].image, max(p.timestamp for p in parts), self._index, parts[0].lores,
                        tuple(parts))

    def close(self) -> None:
        for source in self.sources:
            source.close()


class CameraRig:
    """One vision pipeline per camera (each calibrated into the one board frame), merged."""

    def __init__(self, configs: Sequence[Config],
                 remote: Callable[[], Sequence[CameraView]] | None = None):
        """`configs`: one per camera on this machine; `remote()`: the newest views of cameras
        elsewhere (another Pi publishing over MQTT), merged in with this machine's."""
        if not configs:
            raise ValueError("a camera rig needs at least one camera of its own")
        self.pipelines = [VisionPipeline(config) for config in configs]
        self.remote = remote
        self.merger = ObservationMerger(float(configs[0].tracking.move_threshold_in))

    @property
    def calibration(self) -> Calibration | None:
        """The first camera's calibration (the panel's camera view shows the first camera)."""
        return self.pipelines[0].calibration

    def set_heights(self, heights_mm: Mapping[int, float]) -> None:
        for pipeline in self.pipelines:
            pipeline.set_heights(heights_mm)

    def process(self, frame: Frame) -> Observation:
        parts = frame.parts if isinstance(frame, RigFrame) else (frame,)
        if len(parts) != len(self.pipelines):
            raise ValueError(f"the rig has {len(self.pipelines)} cameras, the frame {len(parts)}")
        views = [CameraView(pipeline.process(part), self.sigma_in(pipeline))
                 for pipeline, part in zip(self.pipelines, parts, strict=True)]
        if self.remote is not None:
            views += self.remote()
        return self.merger.merge(views, frame.timestamp)

    @staticmethod
    def sigma_in(pipeline: VisionPipeline) -> float:
        """A camera's position uncertainty in inches: its calibration's reprojection error (at
        least the detection noise) over its pixels per inch."""
        cal = pipeline.calibration
        if cal is None or not cal.px_per_inch:
            return 1.0
        return max(cal.reprojection_error_px, DETECTION_NOISE_PX) / cal.px_per_inch


def camera_over(size: tuple[int, int], area: Sequence[float], tilt_deg: tuple[float, float] = (0.0, 0.0)
                ) -> PinholeCamera:
    """A (synthetic) camera over the part `area` = [x0, y0, x1, y1] of the board, in board inches,
    turned a quarter when the part is taller than wide (as it is mounted: the long side of the
    image along the long side of its part, for the most pixels per inch)."""
    x0, y0, x1, y1 = (float(v) for v in area)
    turned = (y1 - y0 > x1 - x0) != (size[1] > size[0])
    cam = PinholeCamera.overhead(size, (x1 - x0, y1 - y0), tilt_deg=tilt_deg, roll_deg=90.0 * turned)
    return replace(cam, t=cam.t - cam.R @ np.array([x0, y0, 0.0]))
