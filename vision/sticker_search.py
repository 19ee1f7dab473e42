"""The ring-sticker search of the live table's budgeted passes: candidate by candidate, within the deadline.

Reading one candidate ring costs a few milliseconds; a piece of the frame may hold dozens of candidates (a
unit in base contact, the models' own round edges), more than a frame's whole detection share on a slow
core. So a piece's candidates are found at once (the edges' votes, about as costly as the marker search of
the piece; later if the deadline passed during that search) and queued, then read one at a time while the
deadline allows; the rest wait for the next frame, which reads them before anything new. Those where a
sticker was last seen come first (`expect`; the pipeline reads them right after their piece, the others
once its pieces are searched): a model still there is confirmed within a few reads; the others are most
often a miniature's own round edges, and are not read when they lie on the base of a sticker read this
frame. A marker whose last place has an unread candidate near it (or lies in a piece whose candidates are
still to be found) has not been looked at yet (`waiting_near`).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable

import numpy as np

from vision import sticker_read
from vision.budget import Deadline, inside
from vision.calibrate import Calibration
from vision.changes import Box
from vision.detect import MM_PER_INCH, Detection
from vision.locate import VisionSetup, sticker_detections
from vision.sticker import RING


class StickerSearch:
    """Queued candidates and this frame's reads (see the module's docstring); one per calibration."""

    def __init__(self, setup: VisionSetup, calibration: Calibration):
        self.setup = setup
        self.view = sticker_read.BoardView(calibration, setup.sticker_height_mm / MM_PER_INCH)
        self._first: deque[sticker_read.Candidate] = deque()  # where a sticker was last seen
        self._todo: deque[sticker_read.Candidate] = deque()
        self._expected: list[tuple[tuple[float, float], float]] = []
        self._reads: list[sticker_read.StickerRead] = []
        self._seen: list[sticker_read.Candidate] = []  # queued or read since the last `take`
        self._pieces: deque[Box] = deque()  # pieces whose candidates are still to be found

    def recalibrated(self, calibration: Calibration) -> None:
        """The same camera with a refined calibration (the queued candidates are image places)."""
        self.view = sticker_read.BoardView(calibration, self.view.height_in)

    def expect(self, seen: Iterable[tuple[tuple[float, float], float]]) -> None:
        """Where stickers were last seen (image pixels) and their bases (mm): candidates of that size
        there are read first."""
        self._expected = list(seen)

    def add(self, grey: np.ndarray, box: Box, deadline: Deadline) -> None:
        """Queue the candidates of one piece of the frame (but those queued or read since the last
        `take` already); when the deadline has passed, the piece, to find its candidates later."""
        if deadline.passed():
            self._pieces.append(box)
        else:
            self._queue(grey, box)

    def _queue(self, grey: np.ndarray, box: Box) -> None:
        for candidate in sticker_read.candidates_in(grey, self.view, self.setup.sticker_sizes, box):
            near = self._near(candidate)
            if not any(c.sticker == candidate.sticker and math.dist(c.pixel, candidate.pixel) <= near
                       for c in self._seen):
                seen_here = any(base == candidate.sticker.base_mm and math.dist(p, candidate.pixel) <= near
                                for p, base in self._expected)
                (self._first if seen_here else self._todo).append(candidate)
                self._seen.append(candidate)

    def _near(self, candidate: sticker_read.Candidate) -> float:
        """Pixels: a locator ring's inner radius. Another candidate of its size this near is the same
        (a piece overlapping another finds it again; `find_candidates` keeps one so near, too)."""
        return RING[0] * candidate.sticker.radius_mm * self.view.px_per_mm()

    def read(self, grey: np.ndarray, deadline: Deadline, first_only: bool = False) -> None:
        """Read queued candidates (where stickers were seen first; then find the candidates of the
        pieces left for later; then the others unless `first_only`; oldest first) while
        `deadline.left()` grants them."""
        while (self._first or self._pieces or (self._todo and not first_only)) and deadline.left():
            if not self._first and self._pieces:
                self._queue(grey, self._pieces.popleft())
                continue
            candidate = (self._first or self._todo).popleft()
            if sticker_read.on_a_read(self.view, candidate, self._reads):
                continue
            got = sticker_read.read_candidate(grey, self.view, candidate, self.setup.stickers)
            if got is not None:
                self._reads.append(got)

    def waiting(self) -> int:
        return len(self._first) + len(self._todo) + len(self._pieces)

    def waiting_near(self, pixel: tuple[float, float], radius: float) -> bool:
        """Whether an unread candidate lies within `radius` pixels of `pixel`, or a piece whose
        candidates are still to be found holds it."""
        return (any(math.dist(c.pixel, pixel) <= radius for c in [*self._first, *self._todo])
                or inside(pixel, list(self._pieces), 0.0))

    def take(self, grey: np.ndarray) -> list[Detection]:
        """The stickers read since the last `take` (one a place, the surest), as detections."""
        reads, self._reads = sticker_read.distinct(self._reads), []
        self._seen = [*self._first, *self._todo]
        return sticker_detections(grey, self.setup, self.view.calibration, reads)
