"""The live vision loop: `VisionPipeline(config).process(frame) -> Observation`.

Full passes calibrate and re-check the calibration (a bumped camera or board is recalibrated, with a
warning); between them only the regions that changed since the last frame, plus the places of
markers still settling, are searched again. The tracker turns sightings into steady poses and
move events.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from vision.calibrate import Calibration
from vision.changes import Box, ChangeDetector, box_around, covered, merge_boxes
from vision.detect import MM_PER_INCH, Detection, MarkerDetector, diagonal_centre
from vision.locate import (
    VisionSetup,
    calibrate_frame,
    detect_all,
    missing_corner_warning,
    new_detections,
    place_markers,
    plausible_candidates,
)
from vision.removal import RemovalCheck
from vision.track import Sighting, Tracker, TrackerSettings
from vision.types import Frame, Observation

BUMP_INCHES = 0.04  # a corner marker this far from where calibration puts it has moved
BUMP_FRAMES = 2  # ... in this many checks running, with at least two corner markers
FULL_PASS_AREA = 0.4  # when more of the frame than this changed, search all of it


@dataclass
class PipelineStats:
    frames: int = 0
    full_passes: int = 0
    region_passes: int = 0
    recalibrations: int = 0
    recovery_passes: int = 0


class VisionPipeline:
    """Frames in, observations out; one per camera. Not thread-safe: call from the frame loop."""

    def __init__(self, config: Mapping[str, Mapping[str, Any]],
                 heights_mm: Mapping[int, float] | None = None):
        self.setup = VisionSetup.from_config(config, heights_mm)
        self.tracker = Tracker(TrackerSettings.from_config(config))
        self.full_pass_every = int(config["tracking"]["full_pass_every"])
        self.calibration: Calibration | None = None
        self.stats = PipelineStats()
        self._detector: MarkerDetector | None = None
        self._changes = ChangeDetector()
        self._since_full = 0
        self._pixels: dict[int, tuple[float, float]] = {}  # last image centre of each marker
        self._bumps = 0
        self._removal = RemovalCheck()
        self._missing: dict[int, int] = {}  # confirmed markers not found where looked: bare still frames

    def set_heights(self, heights_mm: Mapping[int, float]) -> None:
        """Marker heights above the board by id (from the roster), for parallax; others use
        `[markers] model_height_mm`."""
        self.setup = replace(self.setup, heights_mm=dict(heights_mm))

    # --- one frame ------------------------------------------------------------------------------
    def process(self, frame: Frame) -> Observation:
        grey = frame.image if frame.image.ndim == 2 else cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
        self.stats.frames += 1
        changed = self._changes.update(grey, frame.lores)
        warnings: list[str] = []
        full = self._needs_full_pass(grey, changed)
        if full:
            detections, warnings = self._full_pass(grey)
            boxes: list[Box] = []
        else:
            boxes = self._boxes(grey, changed or [])
            detections = self._region_pass(grey, boxes)
            warnings += self._check_bump(grey, detections)
        if self.calibration is None:
            return Observation(frame.timestamp, False, {}, (), tuple(warnings))
        if self._bumps:  # corner markers look moved: hold every model until that is settled
            return Observation(frame.timestamp, True, self.tracker.poses(frame.timestamp), (),
                               tuple(warnings), self.calibration.reprojection_error_px)
        placed, more = place_markers(detections, self.setup, self.calibration)
        warnings += more
        sightings = self._sightings(placed)
        for located in placed:
            if located.id in sightings:
                self._pixels[located.id] = located.detection.centre

        def looked_at(marker_id: int) -> bool:
            return full or marker_id not in self._pixels or covered(self._pixels[marker_id], boxes)

        moves = self.tracker.update(sightings, frame.timestamp, looked_at)
        self._watch_removals(sightings, changed, looked_at)
        return Observation(frame.timestamp, True, self.tracker.poses(frame.timestamp), tuple(moves),
                           tuple(warnings), self.calibration.reprojection_error_px)

    def _watch_removals(self, sightings: Mapping[int, Sighting], changed: list[Box] | None,
                        looked_at: Callable[[int], bool]) -> None:
        """Markers not found where the camera looked are occluded at once (the tracker flags them);
        one whose place is still again for `stable_frames` frames, with its surroundings as they were
        but the marker gone, was lifted: it is dropped now rather than at the occlusion time-out."""
        assert self.calibration is not None
        small, scale = self._changes.small, self._changes.small_scale
        side = self.setup.model_size_mm / MM_PER_INCH * self.calibration.px_per_inch

        def still(marker_id: int) -> bool:
            return changed is not None and not covered(self._pixels[marker_id], changed)

        for marker_id in sightings:
            self._missing.pop(marker_id, None)
            if small is not None and marker_id in self._pixels and still(marker_id):
                self._removal.remember(marker_id, small, scale, self._pixels[marker_id], side)
        for marker_id in self.tracker.poses(math.inf):
            if marker_id in sightings or marker_id not in self._pixels or not looked_at(marker_id):
                continue
            lifted = small is not None and still(marker_id) and self._removal.looks_lifted(
                marker_id, small, scale, self._pixels[marker_id], side)
            self._missing[marker_id] = self._missing.get(marker_id, 0) + 1 if lifted else 0
            if self._missing[marker_id] >= self.tracker.settings.stable_frames:
                self.tracker.drop(marker_id)
                self._removal.forget(marker_id)
                del self._missing[marker_id], self._pixels[marker_id]

    def _needs_full_pass(self, grey: np.ndarray, changed: list[Box] | None) -> bool:
        if self.calibration is None or self._detector is None or changed is None or self._bumps:
            return True
        if self._since_full + 1 >= self.full_pass_every:
            return True
        area = sum(w * h for _, _, w, h in changed)
        return area > FULL_PASS_AREA * grey.shape[0] * grey.shape[1]

    def _full_pass(self, grey: np.ndarray) -> tuple[list[Detection], list[str]]:
        self.stats.full_passes += 1
        self._since_full = 0
        warnings: list[str] = []
        if self._detector is None or self.calibration is None:
            self._detector = MarkerDetector(self.setup.detector_settings(grey.shape))
        detections, calibration = detect_all(grey, self.setup, self._detector, self.calibration)
        detections += self._recover(grey, detections)
        if self.calibration is None:
            self._adopt(calibration, grey)
            missing = missing_corner_warning(detections, self.setup, calibration)
            if missing:
                warnings.append(missing)
        else:
            warnings += self._check_bump(grey, detections)
        return detections, warnings

    def _recover(self, grey: np.ndarray, detections: list[Detection]) -> list[Detection]:
        """Markers the tracker knows but this pass missed: search the whole frame again with dense
        thresholds (real photos lose a marker to glare or blur more often than renders do)."""
        assert self._detector is not None
        seen = {d.id for d in detections}
        known = set(self.tracker.poses(math.inf)) | set(self.setup.corner_ids)
        if known <= seen:
            return []
        if self.calibration is None and (self.stats.frames - 1) % self.full_pass_every:
            return []  # uncalibrated, every frame is a full pass: search densely only now and then
        self.stats.recovery_passes += 1
        dense, _ = self._detector.detect(grey, dense=True)
        found = [d for d in dense if d.id in known - seen]
        for flatten in (False, True):  # still missing: a sharpened copy (blur), then flattened (shadows)
            if not known - seen - {d.id for d in found}:
                break
            sharp, _ = self._detector.detect(grey, dense=True, sharpen=True, flatten=flatten)
            found += new_detections([d for d in sharp if d.id in known - seen], found)
        return found

    def _adopt(self, calibration: Calibration | None, grey: np.ndarray) -> None:
        self.calibration = calibration
        if calibration is not None:
            self._detector = MarkerDetector(self.setup.detector_settings(grey.shape, calibration.px_per_inch))

    def _boxes(self, grey: np.ndarray, changed: list[Box]) -> list[Box]:
        assert self.calibration is not None
        half = 1.2 * self.setup.model_size_mm / MM_PER_INCH * self.calibration.px_per_inch
        watch = [*self.tracker.pending(), *self._missing]
        pending = [box_around(self._pixels[i], half) for i in watch if i in self._pixels]
        return merge_boxes(changed + pending, grey.shape)

    def _region_pass(self, grey: np.ndarray, boxes: list[Box]) -> list[Detection]:
        assert self._detector is not None
        self.stats.region_passes += 1
        self._since_full += 1
        found, rejects = self._detector.detect(grey, boxes)
        found += self._detector.second_pass(grey, plausible_candidates(rejects, self.setup, self.calibration),
                                            found)
        return found

    # --- calibration upkeep -----------------------------------------------------------------------
    def _check_bump(self, grey: np.ndarray, detections: list[Detection]) -> list[str]:
        """Corner markers away from where the calibration expects them: after BUMP_FRAMES checks in a
        row, recalibrate (or say why not)."""
        cal = self.calibration
        if cal is None:
            return []
        drifted = seen = 0
        for d in detections:
            if d.id not in self.setup.calibration_points:
                continue
            seen += 1
            centre = np.array([diagonal_centre(cal.undistort(d.corners))])
            x, y = cal.to_board(centre)[0]
            if math.dist((x, y), self.setup.calibration_points[d.id]) > BUMP_INCHES:
                drifted += 1
        if seen < 2:  # not enough evidence either way
            return []
        if drifted < 2:
            self._bumps = 0
            return []
        self._bumps += 1
        if self._bumps < BUMP_FRAMES:
            return []
        self._bumps = 0
        fresh = calibrate_frame(detections, self.setup, grey.shape)
        if fresh is None:
            return ["camera or board moved: cannot recalibrate, " +
                    (missing_corner_warning(detections, self.setup, None) or "too few corner markers")]
        self.stats.recalibrations += 1
        self._adopt(fresh, grey)
        self._pixels.clear()
        error = fresh.reprojection_error_px
        return [f"camera or board moved: recalibrated (reprojection error {error:.2f} px)"]

    def _sightings(self, placed: list) -> dict[int, Sighting]:
        """One sighting per id; of duplicates, the one nearest the marker's known place (none if new)."""
        by_id: dict[int, list] = {}
        for located in placed:
            by_id.setdefault(located.id, []).append(located)
        poses = self.tracker.poses(math.inf)
        out = {}
        for marker_id, options in by_id.items():
            if len(options) > 1:
                if marker_id not in poses:
                    continue
                p = poses[marker_id]
                options.sort(key=lambda m: math.dist((m.x, m.y), (p.x, p.y)))
            m = options[0]
            out[marker_id] = Sighting(m.x, m.y, m.heading)
        return out
