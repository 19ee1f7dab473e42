"""The live table's lens, refined as models move: every place a model marker has stood at is one more
square of known size for the fit (vision/lensfit.py), and over a game the models' places sample the whole
frame. A ring sticker's square is the one its locator ring's outer edge shows (vision/sticker_read.py
`lens_square`); a sighting whose edge showed too little of the ring to give one does not count.

A place counts once its marker has been seen there for STILL_FRAMES frames; its corners are the mean over the
frames it stood there (the calibration markers' likewise). The fit runs again whenever REFIT_PLACES new places
have come to rest, over the newest MAX_PLACES (one fit costs about 2 ms a place on the dev machine), once
there are as many as the one-frame fit it would replace had (`floor`: just after a recalibration a refit over
the few places at rest since would be worse). A bumped camera starts it over (`reset`): its pose changed, and
maybe its lens. The learner sees that itself when two calibration markers leave their places (before the
pipeline's bump check does, or when a refit's new homography would hide the bump from it): a fit over places
seen from two poses is wrong (on a rendered table it took k1 -0.077 to -0.168).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from vision.calibrate import Calibration
from vision.detect import Detection
from vision.locate import VisionSetup, calibration_with_lens, estimate_lens

STILL_FRAMES = 3  # a place counts once its marker was seen there this many frames
MAX_PLACES = 60  # the fit's model places: the newest
REFIT_PLACES = 3  # fit again when this many new places came to rest
SAME_PLACE_SIDES = 0.25  # a marker within this many of its sides of its place's mean is still there
MOVED_CORNER_MARKERS = 2  # this many calibration markers off their places: the camera moved, start over


def _square(d: Detection) -> np.ndarray | None:
    """The square of known side a detection gives the fit: a printed marker's corners, a ring sticker's
    `lens_square` (None when its ring's edge showed too little)."""
    if not d.base_mm:
        return d.corners.astype(np.float64)
    return None if d.lens_square is None else np.asarray(d.lens_square, np.float64)


@dataclass
class _Place:
    """A marker's place: the sum of its square's corners over the frames it was seen there."""

    marker_id: int
    total: np.ndarray  # (4, 2)
    count: int = 1
    base_mm: float = 0.0  # a ring sticker's
    side_mm: float = 0.0  # its square's side

    @classmethod
    def of(cls, d: Detection, square: np.ndarray) -> _Place:
        return cls(d.id, np.array(square, np.float64), 1, d.base_mm, d.lens_side_mm)

    @property
    def corners(self) -> np.ndarray:
        return self.total / self.count

    def detection(self) -> Detection:
        corners = self.corners.astype(np.float32)
        centre = (float(corners[:, 0].mean()), float(corners[:, 1].mean()))
        if self.base_mm:
            return Detection(self.marker_id, corners, centre, self.base_mm, corners, self.side_mm)
        return Detection(self.marker_id, corners, centre)

    def holds(self, square: np.ndarray) -> bool:
        side = float(np.mean(np.linalg.norm(square - np.roll(square, -1, axis=0), axis=1)))
        return math.dist(self.detection().centre, square.mean(axis=0)) < SAME_PLACE_SIDES * side


class LensLearner:
    """What the frames so far show of the lens."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._known: dict[int, _Place] = {}
        self._current: dict[int, _Place] = {}
        self._done: list[_Place] = []
        self._new = 0
        self.frames = 0
        self.floor = 0  # model places a refit needs: those of the one-frame fit it would replace

    def observe(self, calibration_markers: Sequence[Detection], models: Sequence[Detection]) -> None:
        """One frame's calibration markers and its located model markers (squares and ring stickers)."""
        moved = [d for d in calibration_markers
                 if d.id in self._known and not self._known[d.id].holds(d.corners)]
        if len(moved) >= MOVED_CORNER_MARKERS:  # the camera moved: every place so far was seen from before
            self.reset()
        self.frames += 1
        for d in calibration_markers:
            place = self._known.get(d.id)
            if place is None or not place.holds(d.corners):  # moved: start again (the bump check says more)
                self._known[d.id] = _Place.of(d, d.corners)
            else:
                place.total += d.corners
                place.count += 1
        for d in models:
            square = _square(d)
            if square is None:
                continue
            place = self._current.get(d.id)
            if place is not None and place.holds(square):
                place.total += square
                place.count += 1
                self._new += place.count == STILL_FRAMES
                continue
            if place is not None and place.count >= STILL_FRAMES:
                self._done.append(place)
            self._current[d.id] = _Place.of(d, square)
        self._done = self._done[-MAX_PLACES:]

    def places(self) -> list[_Place]:
        """The places that count, newest last (at most MAX_PLACES)."""
        still = [p for p in self._current.values() if p.count >= STILL_FRAMES]
        return (self._done + still)[-MAX_PLACES:]

    def due(self) -> bool:
        return self._new >= REFIT_PLACES

    def fit(self, setup: VisionSetup, calibration: Calibration, image_shape: tuple[int, ...]
            ) -> Calibration | None:
        """The calibration again, through the lens every place so far shows; None when it cannot be fitted
        (too few calibration markers seen still)."""
        self._new = 0
        if len(self.places()) < self.floor:  # fewer places than the frame's own fit had: no better
            return None
        known = [p.detection() for i, p in sorted(self._known.items()) if i in calibration.used]
        models = [p.detection() for p in self.places()]
        size = (image_shape[1], image_shape[0])
        fit = calibration.lens_fit
        guess = fit.focal_ref if fit is not None else setup.focal_guess(calibration, size)
        fit = estimate_lens(known + models, setup, calibration, known, size, guess, setup.focal_sd)
        fitted = calibration_with_lens(known, setup, size, replace(fit, frames=self.frames))
        return fitted if fitted is not None and fitted.lens == "estimated" else None
