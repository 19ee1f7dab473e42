"""The live vision loop: `VisionPipeline(config).process(frame) -> Observation`.

A full pass calibrates and finds every marker in the whole frame (for the AprilTag library's families the
calibration markers first, on a copy shrunk for their size, then every marker at the calibration's scale:
vision/apriltags.py). It runs again only while the camera or board looks bumped, for the calibration markers
alone; after a recalibration the whole frame is searched for every marker piece by piece. Otherwise each
frame's detection is bounded (vision/budget.py): the pieces left from earlier frames, the places of markers
still settling and the regions that changed since the last frame come first (all of the frame when most of it
changed), then a slice of a sweep that searches the whole frame again over `full_pass_every` frames (and looks
at the corner markers once a turn). Whenever two corner markers are seen (a sweep's turn, or a frame that
changed where they are: a bumped camera changes all of it) they are checked against the calibration; what does
not fit in the frame's share of the budget waits for the next frame. A tracked marker that was looked for and
not found is searched for by the recovery search (vision/recovery.py) in its own share of the budget. The
budgeted passes read ring stickers candidate by candidate within the deadline (vision/sticker_search.py).
The tracker turns sightings into steady poses and move events.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace

import numpy as np

from table.config import Config
from vision.budget import Deadline, Sweep, inside, split_box
from vision.calibrate import Calibration
from vision.changes import Box, ChangeDetector, box_around, covered, merge_boxes
from vision.detect import MM_PER_INCH, Detection, MarkerDetector, as_grey, diagonal_centre
from vision.families import family
from vision.focus import Focus, measure
from vision.lenslearn import LensLearner
from vision.locate import (
    VisionSetup,
    calibrate_frame,
    detect_all,
    detect_frame,
    find_stickers,
    learn_lens,
    lens_state,
    missing_corner_warning,
    new_detections,
    place_markers,
    plausible_candidates,
    used_detections,
)
from vision.pieces import PieceDetector
from vision.recovery import Recovery
from vision.removal import RemovalCheck
from vision.sticker_search import StickerSearch
from vision.track import Sighting, Tracker, TrackerSettings
from vision.types import Frame, Observation

BUMP_INCHES = 0.04  # a corner marker this far from where calibration puts it has moved
BUMP_FRAMES = 2  # ... in this many checks running, with at least two corner markers
# the camera's focus is measured again on the corner markers seen at most this often (seconds of frame time):
# turning the lens's focus ring changes the whole frame, so they are searched again as it turns
FOCUS_EVERY_S = 2.0
FULL_PASS_AREA = 0.4  # when more of the frame than this changed, search all of it again (piece by piece)
DETECT_SHARE = 0.3  # of the frame interval (1 / camera fps): changed regions and the sweep
RECOVERY_SHARE = 0.1  # ... and the recovery search
PIECE_SIDES = 24  # detection pieces are at most this many marker sides square ...
OVERLAP_SIDES = 2.5  # ... and overlap by this many (a marker, its margin and some slack)


@dataclass
class PipelineStats:
    frames: int = 0
    full_passes: int = 0
    region_passes: int = 0
    recalibrations: int = 0
    recovery_looks: int = 0
    deferred: int = 0  # pieces of changed regions left for a later frame
    sweeps: int = 0  # whole-frame sweeps completed
    lens_fits: int = 0  # the lens refitted over the places models stood at


@dataclass
class FrameTimings:
    """CPU seconds (of the process: the time other processes take does not count) the last frame
    spent in each stage of the pipeline."""

    detection: float = 0.0
    recovery: float = 0.0
    tracking: float = 0.0


class VisionPipeline:
    """Frames in, observations out; one per camera. Not thread-safe: call from the frame loop."""

    def __init__(self, config: Config,
                 heights_mm: Mapping[int, float] | None = None):
        self.setup = VisionSetup.from_config(config, heights_mm)
        self.tracker = Tracker(TrackerSettings.from_config(config))
        self.full_pass_every = int(config.tracking.full_pass_every)
        self.frame_budget_s = 1.0 / float(config.camera.fps)
        self.calibration: Calibration | None = None
        self.stats = PipelineStats()
        self.timings = FrameTimings()
        self._detector: PieceDetector | None = None
        self._changes = ChangeDetector()
        self._pixels: dict[int, tuple[float, float]] = {}  # last image centre of each marker
        self._corners: dict[int, tuple[float, float]] = {}  # ... and of each calibration marker
        self._bumps = 0
        self._removal = RemovalCheck()
        self._missing: dict[int, int] = {}  # confirmed markers not found where looked: bare still frames
        self._carried: list[Box] = []  # pieces of changed regions not searched yet
        self._sweep: Sweep | None = None
        self._recovery = Recovery()
        # the budgeted passes' ring-sticker searches: of what changed (and settling places), of the sweep
        self._stickers: tuple[StickerSearch, StickerSearch] | None = None
        self.lens = LensLearner()  # the lens over frames (without `[camera] intrinsics`)
        self.focus: Focus | None = None  # measured on the corner markers (every FOCUS_EVERY_S at most)
        self._focus_at = -math.inf

    def set_heights(self, heights_mm: Mapping[int, float]) -> None:
        """Marker heights above the board by id (from the roster), for parallax; others use
        `[markers] model_height_mm`."""
        self.setup = replace(self.setup, heights_mm=dict(heights_mm))

    # --- one frame ------------------------------------------------------------------------------
    def process(self, frame: Frame) -> Observation:
        started = time.process_time()
        self.timings = FrameTimings()
        grey = as_grey(frame.image)
        self.stats.frames += 1
        changed = self._changes.update(grey, frame.lores)
        warnings: list[str] = []
        searched: list[Box] = []
        if self.calibration is None or self._detector is None or self._bumps:
            detections, warnings = self._full_pass(grey)
        else:
            h, w = grey.shape[:2]
            if changed is None or sum(bw * bh for _, _, bw, bh in changed) > FULL_PASS_AREA * w * h:
                changed = None
            detections, searched = self._region_pass(grey, [(0, 0, w, h)] if changed is None else changed)
            warnings += self._check_bump(grey, detections)  # whenever two corner markers were seen
        self._measure_focus(grey, detections, frame.timestamp)
        self.timings.detection = time.process_time() - started
        if self.calibration is None:
            return Observation(frame.timestamp, False, {}, (), tuple(warnings))
        if self._bumps:  # corner markers look moved: hold every model until that is settled
            return Observation(frame.timestamp, True, self.tracker.poses(frame.timestamp), (),
                               tuple(warnings), self.calibration.reprojection_error_px,
                               lens_state(self.calibration), self._focus())
        side = self._side_px()
        inset = 0.5 * OVERLAP_SIDES * side
        stickers = self._stickers or ()

        def looked_at(marker_id: int) -> bool:
            if marker_id not in self._pixels:
                return True
            pixel = self._pixels[marker_id]
            return inside(pixel, searched, inset) and not any(s.waiting_near(pixel, side) for s in stickers)

        detections += self._recover(grey, detections, changed, looked_at)
        started = time.process_time()
        placed, more = place_markers(detections, self.setup, self.calibration, grey.shape)
        warnings += more
        self._learn_lens(detections, placed, grey.shape)
        sightings = self._sightings(placed)
        for located in placed:
            if located.id in sightings:
                self._pixels[located.id] = located.detection.centre
        moves = self.tracker.update(sightings, frame.timestamp, looked_at)
        self._watch_removals(sightings, changed, looked_at)
        self.timings.tracking = time.process_time() - started
        return Observation(frame.timestamp, True, self.tracker.poses(frame.timestamp), tuple(moves),
                           tuple(warnings), self.calibration.reprojection_error_px,
                           lens_state(self.calibration), self._focus())

    def _focus(self) -> dict | None:
        return None if self.focus is None else self.focus.to_dict()

    def _learn_lens(self, detections: list[Detection], placed: list, image_shape: tuple[int, ...]) -> None:
        """Give the lens learner this frame's squares; when enough new places came to rest, take the lens
        they all show (the calibration's homography and spread with it)."""
        assert self.calibration is not None
        if self.calibration.lens == "calibrated":
            return
        corners = used_detections(detections, self.setup, self.calibration)
        self.lens.observe(corners, [m.detection for m in placed])
        if self.lens.due():
            refined = self.lens.fit(self.setup, self.calibration, image_shape)
            if refined is not None:
                self.calibration = refined
                self.stats.lens_fits += 1
                for search in self._stickers or ():
                    search.recalibrated(refined)

    def _side_px(self) -> float:
        """The largest model marker's side in pixels (a ring sticker's diameter)."""
        assert self.calibration is not None
        return self.setup.marker_extent_mm / MM_PER_INCH * self.calibration.px_per_inch

    def _stickers_in(self, grey: np.ndarray, box: Box) -> list[Detection]:
        """The ring stickers in one piece of the frame (none unless the config has them)."""
        if not self.setup.stickers or self.calibration is None:
            return []
        return find_stickers(grey, self.setup, self.calibration, [box])

    def _watch_removals(self, sightings: Mapping[int, Sighting], changed: list[Box] | None,
                        looked_at: Callable[[int], bool]) -> None:
        """Markers not found where the camera looked are occluded at once (the tracker flags them);
        one whose place is still again for `stable_frames` frames, with its surroundings as they were
        but the marker gone, was lifted: it is dropped now rather than at the occlusion time-out."""
        small, scale = self._changes.small, self._changes.small_scale
        side = self._side_px()

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

    def _full_pass(self, grey: np.ndarray) -> tuple[list[Detection], list[str]]:
        """Calibrate and find every marker (vision.locate.detect_frame: the calibration markers first,
        on a copy shrunk for their size); once calibrated, while the camera or board looks bumped,
        the calibration markers alone (after a recalibration `_adopt` has every marker searched for
        piece by piece)."""
        self.stats.full_passes += 1
        warnings: list[str] = []
        if self.calibration is None:
            detections, calibration = detect_frame(grey, self.setup, sharpen=False)
            if calibration is not None:
                calibration = learn_lens(detections, self.setup, calibration, grey.shape)
            self._adopt(calibration, grey)
            self._carried = []  # the whole frame was searched
            missing = missing_corner_warning(detections, self.setup, calibration)
            if missing:
                warnings.append(missing)
        else:
            ppi = self.calibration.px_per_inch
            settings = self.setup.detector_settings(grey.shape, ppi, corners_only=True)
            detections, _ = detect_all(grey, self.setup, MarkerDetector(settings), self.calibration,
                                       sharpen=False, stickers=False)
            warnings += self._check_bump(grey, detections)
        self._note_corners(detections)
        return detections, warnings

    def _measure_focus(self, grey: np.ndarray, detections: list[Detection], now: float) -> None:
        """The camera's blur on the corner markers among `detections` (vision.focus), when calibrated and
        FOCUS_EVERY_S has passed since it was last measured."""
        if self.calibration is None or now - self._focus_at < FOCUS_EVERY_S:
            return
        cells = family(self.setup.dictionary).square_cells
        focus = measure(grey, detections, self.setup.corner_ids, cells, self.setup.stickers,
                        self.calibration.px_per_inch)
        if focus is not None:
            self.focus, self._focus_at = focus, now

    def _recover(self, grey: np.ndarray, detections: list[Detection], changed: list[Box] | None,
                 looked_at: Callable[[int], bool]) -> list[Detection]:
        """Tracked markers looked for and not found: a few regions of the recovery search, within its
        share of the frame budget; none while a marker's place is covered (a hand)."""
        assert self._detector is not None
        started = time.process_time()
        seen = {d.id for d in detections}
        tracked = self.tracker.poses(math.inf)
        self._recovery.found(seen)
        missing = {i: self._pixels[i] for i in tracked
                   if i not in seen and i in self._pixels and looked_at(i)}
        side = self._side_px()
        small, scale = self._changes.small, self._changes.small_scale

        def changed_here(marker_id: int) -> bool:
            return changed is None or covered(self._pixels[marker_id], changed)

        def hidden(marker_id: int) -> bool:
            return small is not None and self._removal.looks_covered(marker_id, small, scale,
                                                                    self._pixels[marker_id], side)

        self._recovery.update(missing, changed_here, tracked, side, grey.shape)
        before = self._recovery.looks_taken
        deadline = Deadline(RECOVERY_SHARE * self.frame_budget_s)
        found = self._recovery.step(grey, self._detector, deadline, hidden, self._sticker_look)
        self.stats.recovery_looks += self._recovery.looks_taken - before
        self.timings.recovery = time.process_time() - started
        return found

    def _sticker_look(self, marker_id: int, grey: np.ndarray, region: Box) -> list[Detection] | None:
        """The recovery search's look for a ring sticker (None: the marker is not one)."""
        if marker_id not in self.setup.stickers:
            return None
        return self._stickers_in(grey, region)

    def _adopt(self, calibration: Calibration | None, grey: np.ndarray) -> None:
        """Take a calibration: detection settings for its scale, the sweep, and the whole frame to
        search piece by piece from the next frame on; the lens learner refits once it has as many
        places as its one-frame lens fit."""
        self.calibration = calibration
        fit = calibration.lens_fit if calibration is not None and calibration.lens == "estimated" else None
        self.lens.floor = fit.markers if fit is not None else 0
        self._stickers = None
        if calibration is not None:
            if self.setup.stickers:
                self._stickers = (StickerSearch(self.setup, calibration),
                                  StickerSearch(self.setup, calibration))
            self._detector = PieceDetector(self.setup.detector_settings(grey.shape, calibration.px_per_inch))
            overlap = int(math.ceil(OVERLAP_SIDES * self._side_px()))
            piece = PIECE_SIDES * self._side_px()  # tiles no larger than the pieces of changed regions
            tiles = max(self.full_pass_every, math.ceil(grey.shape[0] * grey.shape[1] / piece**2))
            self._sweep = Sweep(grey.shape, tiles, overlap)
            self._carried = split_box((0, 0, grey.shape[1], grey.shape[0]), int(piece), overlap)

    def _note_corners(self, detections: list[Detection]) -> None:
        for d in detections:
            if d.id in self.setup.calibration_points:
                self._corners[d.id] = d.centre

    def _region_pass(self, grey: np.ndarray, changed: list[Box]) -> tuple[list[Detection], list[Box]]:
        """(detections, the pieces searched): the pieces carried from earlier frames, the places of
        settling markers, what changed, then the sweep's next tiles, while this frame's detection budget
        lasts (at least one piece); the ring-sticker candidates that earlier frames left of each come
        before its new pieces."""
        assert self._detector is not None and self._sweep is not None and self.calibration is not None
        self.stats.region_passes += 1
        side = self._side_px()
        overlap = int(math.ceil(OVERLAP_SIDES * side))
        watch = [*self.tracker.pending(), *self._missing]
        pending = [box_around(self._pixels[i], 1.2 * side) for i in watch if i in self._pixels]
        pieces = [p for box in merge_boxes(self._carried + pending + changed, grey.shape)
                  for p in split_box(box, int(PIECE_SIDES * side), overlap)]
        deadline = Deadline(DETECT_SHARE * self.frame_budget_s)
        changes, sweep = self._stickers or (None, None)
        seen_at = [(p, self.setup.stickers[i]) for i, p in self._pixels.items() if i in self.setup.stickers]
        found, rejects, searched = self._search_pieces(grey, pieces, deadline, changes, seen_at, True)
        self._carried = pieces[len(searched):]
        self.stats.deferred += len(self._carried)
        found += self._second_pass(grey, rejects, found)
        if not self._carried:  # the sweep, with what is left (all of it on a quiet frame)
            more, rejects, tiles = self._search_pieces(grey, self._sweep_tiles(), deadline, sweep, seen_at,
                                                       False)
            found += new_detections(more, found)
            searched += tiles
            found += self._second_pass(grey, rejects, found)
        for search in self._stickers or ():
            found += new_detections(search.take(grey), found)
        self._note_corners(found)
        return found, searched

    def _search_pieces(self, grey: np.ndarray, pieces: Iterable[Box], deadline: Deadline,
                       search: StickerSearch | None, seen_at: list[tuple[tuple[float, float], float]],
                       pieces_first: bool) -> tuple[list[Detection], list[np.ndarray], list[Box]]:
        """`PieceDetector.detect_pieces` with the ring-sticker search `search` (none without stickers),
        while time is left: the candidates where stickers were last seen (`seen_at`, with their bases)
        that earlier frames left, then each piece and its own such candidates, then the others (those
        left from earlier frames before the pieces unless `pieces_first`: what changed comes before the
        rest of a region that changed earlier; the sweep finishes its tiles' candidates before taking
        more tiles). The first read or piece even when the deadline has passed."""
        assert self._detector is not None
        if search is None:
            return self._detector.detect_pieces(grey, pieces, deadline)
        search.expect(seen_at)
        search.read(grey, deadline, first_only=pieces_first)

        def work(piece_grey: np.ndarray, piece: Box) -> None:
            search.add(piece_grey, piece, deadline)
            search.read(piece_grey, deadline, first_only=True)

        out = self._detector.detect_pieces(grey, pieces, deadline, work)
        search.read(grey, deadline)
        return out

    def _second_pass(self, grey: np.ndarray, rejects: list[np.ndarray], found: list[Detection]
                     ) -> list[Detection]:
        assert self._detector is not None
        candidates = plausible_candidates(rejects, self.setup, self.calibration)
        return self._detector.second_pass(grey, candidates, found)

    def _sweep_tiles(self) -> Iterator[Box]:
        """The sweep's tiles, one turn at most; a turn starts with the corner markers' places."""
        assert self._sweep is not None and self.calibration is not None
        while True:
            tile, first = self._sweep.take()
            if first:
                half = self.setup.corner_size_mm / MM_PER_INCH * self.calibration.px_per_inch
                yield from (box_around(c, half) for c in self._corners.values())
                self.stats.sweeps += 1
            yield tile
            if self._sweep.next == 0:
                return

    # --- calibration upkeep -----------------------------------------------------------------------
    def _check_bump(self, grey: np.ndarray, detections: list[Detection]) -> list[str]:
        """Corner markers away from where the calibration expects them: after BUMP_FRAMES checks in a
        row, recalibrate (or say why not). Fewer than two seen say nothing either way."""
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
        if fresh is not None:
            self.lens.reset()  # the camera moved: what it showed of its lens before may not hold
            every = detect_frame(grey, self.setup, fresh, sharpen=False, stickers=False)[0]  # its models too
            fresh = learn_lens(every, self.setup, fresh, grey.shape)
        if fresh is None:
            return ["camera or board moved: cannot recalibrate, " +
                    (missing_corner_warning(detections, self.setup, None) or "too few corner markers")]
        self.stats.recalibrations += 1
        self._adopt(fresh, grey)
        self._pixels.clear()
        self._recovery = Recovery()  # its searches were around the old pixels (and needed them: KeyError)
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
            out[marker_id] = Sighting(m.x, m.y, m.heading, m.sigma, m.heading_sigma, m.sigma_frame)
        return out

