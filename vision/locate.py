"""One frame -> calibration and model marker positions in board inches (what `smarttable locate` does).

`VisionSetup` gathers what the config says about the board, the markers and the lens; `locate()`
detects, calibrates (or reuses a calibration), rejects detections whose printed size does not match,
and reports duplicates, off-board markers and missing corner markers as warnings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from table.config import Config
from table.config_schema import id_ranges
from table.errors import ConfigError
from vision import ringcode, sticker_read
from vision.calibrate import BoardMarkers, Calibration, calibrate, calibration_points, focal_from_homography
from vision.cameras import camera_model, camera_of_frame
from vision.detect import (
    MM_PER_INCH,
    Detection,
    DetectorSettings,
    MarkerDetector,
    as_grey,
    guess_px_per_inch,
)
from vision.families import family
from vision.focus import Focus, measure
from vision.lens import Intrinsics, load_intrinsics
from vision.lensfit import MODEL_LOG_FOCAL_SD, PRIOR_LOG_FOCAL_SD, LensFit, apart, fit_lens, prior_lens
from vision.sticker import TYPICAL_BASE_HEIGHT_MM, Sticker
from vision.uncertainty import marker_sigmas

SIZE_TOLERANCE = 0.2  # a detection whose side on the board is off by more than this fraction is false
PLACE_TOLERANCE_IN = 0.25  # a calibration marker this far from its configured centre is not that marker
# when the second pass had to read this share of what the first pass found, the frame is blurred or
# damaged: search a sharpened copy densely too, and if that finds more, a flattened and sharpened one
SHARPEN_TRIGGER = 0.2
WIDE_HFOV_DEG = 90.0  # the focal length guessed when neither the config nor the view gives one
MISMATCH_PX = 0.5  # a calibrated lens this far (pixels) from the board's estimate ...
MISMATCH_SDS = 5.0  # ... and this many of the estimate's sd has changed
# a lens that moves the frame's corner more than this (pixels) has ring stickers read again through it (k1
# -0.2 at 4056x3040, about 220 px: 85-94% of stickers under models were read through the homography alone)
REREAD_PX = 100.0
MIN_LENS_MARKERS = 3  # model markers the lens fit needs; with fewer the lens is assumed (a prior)


@dataclass(frozen=True)
class VisionSetup:
    """The board and markers as the config describes them, plus optional lens intrinsics."""

    dictionary: str
    board: tuple[float, float]
    calibration_points: Mapping[int, tuple[float, float]]
    corner_ids: tuple[int, ...]
    corner_size_mm: float
    model_size_mm: float
    model_height_mm: float = 0.0
    heights_mm: Mapping[int, float] = field(default_factory=dict)
    intrinsics: Intrinsics | None = None
    height_sigma_mm: float = 1.0  # how sure the model markers' heights are (1 sd): parallax in `sigma`
    camera_model: str = ""  # `[camera] model`: its focal length sizes the lens prior when uncalibrated
    stickers: Mapping[int, float] = field(default_factory=dict)  # ring sticker id -> its base (mm)

    @classmethod
    def from_config(cls, config: Config,
                    heights_mm: Mapping[int, float] | None = None) -> VisionSetup:
        m = config.markers
        corners = {int(k): (float(v[0]), float(v[1])) for k, v in m.corners.items()}
        edges = {int(k): (float(v[0]), float(v[1])) for k, v in m.edges.items()}
        intrinsics = None
        name = config.camera.intrinsics
        if name:
            path = config.path("camera", "intrinsics") if hasattr(config, "path") else name
            intrinsics = load_intrinsics(path)
        return cls(m.dictionary, (float(config.board.width), float(config.board.height)),
                   {**corners, **edges}, tuple(sorted(corners)), float(m.corner_size_mm),
                   float(m.model_size_mm), float(m.model_height_mm), dict(heights_mm or {}), intrinsics,
                   float(m.model_height_sigma_mm), config.camera.model,
                   stickers_of(m.stickers, {**corners, **edges}, int(m.pointer_id)))

    @property
    def board_markers(self) -> BoardMarkers:
        return BoardMarkers(self.calibration_points, self.corner_size_mm, self.board)

    def focal_guess(self, calibration: Calibration, size: tuple[int, int]) -> float:
        """The focal length (pixels) the lens fit starts from: `[camera] model`'s, else the tilted view's
        own (`focal_from_homography`), else that of the one camera whose frames are this size (the HQ
        camera's 6 mm lens for 4056x3040), else a wide lens's (WIDE_HFOV_DEG)."""
        if self.camera_model:
            return camera_model(self.camera_model).focal_px(size)
        if calibration.intrinsics is None:
            f = focal_from_homography(np.linalg.inv(calibration.H), size)
            if f is not None:
                return f
        known = camera_of_frame(size)
        if known is not None:
            return known.focal_px(size)
        return size[0] / 2 / math.tan(math.radians(WIDE_HFOV_DEG) / 2)

    @property
    def focal_sd(self) -> float:
        """How sure `focal_guess` is (1 sd of its log): a named camera's focal length is its lens's,
        otherwise a guess (a tilted view's own is no surer: the tilt is slight)."""
        return MODEL_LOG_FOCAL_SD if self.camera_model else PRIOR_LOG_FOCAL_SD

    @property
    def sticker_height_mm(self) -> float:
        """Where ring stickers lie: `model_height_mm`, or (0, not given) a typical base's top."""
        return self.model_height_mm or TYPICAL_BASE_HEIGHT_MM

    @property
    def marker_extent_mm(self) -> float:
        """The largest model marker across: the printed square, or the biggest ring sticker."""
        return max([self.model_size_mm, *(s.diameter_mm for s in self.sticker_sizes)])

    @property
    def sticker_sizes(self) -> tuple[Sticker, ...]:
        return tuple(Sticker(b) for b in sorted(set(self.stickers.values())))

    def height_in(self, marker_id: int) -> float:
        if marker_id in self.heights_mm:
            return self.heights_mm[marker_id] / MM_PER_INCH
        if marker_id in self.stickers:
            return self.sticker_height_mm / MM_PER_INCH
        return self.model_height_mm / MM_PER_INCH

    def detector_settings(self, image_shape: tuple[int, ...], px_per_inch: float | None = None,
                          corners_only: bool = False) -> DetectorSettings:
        """Settings for every marker, or the calibration markers alone (`corners_only`: printed bigger
        than the models, they let the AprilTag library read a frame shrunk further)."""
        scale = px_per_inch * 0.85 if px_per_inch else guess_px_per_inch(image_shape, self.board)
        sizes = (self.corner_size_mm,) if corners_only else (self.model_size_mm, self.corner_size_mm)
        return DetectorSettings.for_markers(self.dictionary, min(sizes), max(sizes), scale)

    def intrinsics_for(self, image_shape: tuple[int, ...]) -> Intrinsics | None:
        if self.intrinsics is None:
            return None
        size = (image_shape[1], image_shape[0])
        if size == self.intrinsics.size:
            return self.intrinsics
        if abs(size[0] / size[1] - self.intrinsics.size[0] / self.intrinsics.size[1]) > 0.01:
            raise ConfigError(f"lens intrinsics are for {self.intrinsics.size[0]}x{self.intrinsics.size[1]}, "
                              f"the frame is {size[0]}x{size[1]} (another aspect ratio)")
        return self.intrinsics.scaled(size)


def stickers_of(table: Mapping[str, str], calibration_ids: Mapping[int, Any], pointer_id: int
                ) -> dict[int, float]:
    """`[markers] stickers` (base mm -> ids) as id -> base mm; ids the ring code has, none a
    calibration marker's or the pointer's."""
    out: dict[int, float] = {}
    for size, ids in table.items():
        for i in id_ranges(ids):
            if i >= ringcode.ids() or i in calibration_ids or i == pointer_id:
                why = (f"ring stickers have ids 0-{ringcode.ids() - 1}" if i >= ringcode.ids() else
                       "it is a calibration marker's" if i in calibration_ids else "it is the pointer's")
                raise ConfigError(f"markers.stickers.{size}: id {i}: {why}")
            out[i] = float(size)
    return out


@dataclass(frozen=True)
class Located:
    """A model marker on the board."""

    id: int
    x: float
    y: float
    heading: float
    side_in: float
    detection: Detection
    sigma: float = 0.0  # inches, 1 sd of the position (vision.uncertainty)
    heading_sigma: float = 0.0  # degrees, 1 sd of the heading
    sigma_frame: float = 0.0  # the share of sigma new in each frame (averaging frames shrinks it)

    def to_dict(self) -> dict[str, Any]:
        heading = round(self.heading, 2)
        return {"id": self.id, "x": round(self.x, 4), "y": round(self.y, 4),
                "heading": heading + 360.0 if heading <= -180.0 else heading,  # (-180, 180] after rounding
                "sigma": round(self.sigma, 4), "heading_sigma": round(self.heading_sigma, 2)}


@dataclass(frozen=True)
class LocateResult:
    calibration: Calibration | None
    markers: tuple[Located, ...]
    warnings: tuple[str, ...]
    detections: tuple[Detection, ...]
    focus: Focus | None = None

    @property
    def calibrated(self) -> bool:
        return self.calibration is not None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"calibrated": self.calibrated, "markers": [m.to_dict() for m in self.markers],
                               "warnings": list(self.warnings)}
        if self.calibration is not None:
            out["reprojection_error_px"] = round(self.calibration.reprojection_error_px, 4)
            out["lens"] = self.calibration.lens
            if self.calibration.lens_fit is not None:
                out["lens_estimate"] = lens_summary(self.calibration.lens_fit)
        if self.focus is not None:
            out["focus"] = self.focus.to_dict()
        return out


def lens_state(calibration: Calibration) -> dict[str, Any]:
    """What the panel and `doctor` show of the lens: where it came from (`source`), the estimate the board
    gives (with a calibrated lens too: it is checked against it), and `check`, what disagrees (or "")."""
    out: dict[str, Any] = {"source": calibration.lens, "check": calibration.lens_check}
    if calibration.lens_fit is not None:
        out.update(lens_summary(calibration.lens_fit))
    return out


def lens_summary(fit: LensFit) -> dict[str, Any]:
    """The estimated lens as `locate` and the panel report it: focal length and principal point (px),
    k1, k2 with their sd, the model markers and calibration-marker corners it was fitted from, and the
    RMS residual of the fitted corners (px)."""
    K, dist = fit.intrinsics.K, np.ravel(fit.intrinsics.dist)
    sd = fit.sd()
    return {"focal_px": round(float(K[0, 0]), 1), "focal_sd_px": round(float(sd[0]), 1),
            "principal_point": [round(float(K[0, 2]), 1), round(float(K[1, 2]), 1)],
            "principal_point_sd_px": [round(float(sd[1]), 1), round(float(sd[2]), 1)],
            "k1": round(float(dist[0]), 5), "k2": round(float(dist[1]), 5),
            "k1_sd": round(float(sd[3]), 5), "k2_sd": round(float(sd[4]), 5),
            "markers": fit.markers, "corners": fit.corners, "frames": fit.frames,
            "residual_px": round(fit.rms_px, 4)}


def _pick_calibration_markers(detections: Sequence[Detection], setup: VisionSetup) -> list[Detection]:
    """One detection per calibration id: where an id is seen twice, the one whose size is nearest the
    median of all calibration-marker candidates (they are printed the same size)."""
    candidates = [d for d in detections if d.id in setup.calibration_points]
    if not candidates:
        return []
    median = float(np.median([d.side_px for d in candidates]))
    best: dict[int, Detection] = {}
    for d in candidates:
        if d.id not in best or abs(math.log(d.side_px / median)) < abs(math.log(best[d.id].side_px / median)):
            best[d.id] = d
    return list(best.values())


def calibrate_frame(detections: Sequence[Detection], setup: VisionSetup, image_shape: tuple[int, ...]
                    ) -> Calibration | None:
    """Calibrate from the detections, dropping (worst first) calibration markers whose size on the
    board is wrong or that sit away from their configured place (a stray copy of a corner id)."""
    chosen = _pick_calibration_markers(detections, setup)
    size = (image_shape[1], image_shape[0])
    intrinsics = setup.intrinsics_for(image_shape)
    expected = setup.corner_size_mm / MM_PER_INCH
    while True:
        cal = calibrate(chosen, setup.board_markers, size, intrinsics)
        if cal is None:
            return None
        placed = cal.markers_on_board(chosen, [0.0] * len(chosen))
        badness: dict[int, float] = {}
        for d, (x, y, _, side) in zip(chosen, placed, strict=True):
            off = math.dist((x, y), setup.calibration_points[d.id]) / PLACE_TOLERANCE_IN
            badness[d.id] = max(abs(side / expected - 1) / SIZE_TOLERANCE, off)
        worst = max(badness, key=badness.__getitem__)
        if badness[worst] <= 1.0:
            return cal
        chosen = [d for d in chosen if d.id != worst]


def bend_px(fit: LensFit) -> float:
    """How far (pixels) the fitted lens moves the frame's farthest corner."""
    lens = fit.intrinsics
    (f, cx, cy), (k1, k2) = (lens.K[0, 0], lens.K[0, 2], lens.K[1, 2]), lens.dist[:2]
    w, h = fit.size
    r = math.hypot(max(cx, w - cx), max(cy, h - cy)) / f
    return abs(k1 * r**2 + k2 * r**4) * r * f


def stickers_again(image: np.ndarray, setup: VisionSetup, calibration: Calibration,
                   detections: list[Detection]) -> list[Detection]:
    """The ring stickers read again through the lens the frame showed (the first read went through the
    corner markers' homography alone, and a strongly bent frame moves a sticker's ring off the circle it
    was looked for on); a sticker read only the first time is kept."""
    again = find_stickers(image, setup, calibration)
    ids = {d.id for d in again}
    return [d for d in detections if not d.base_mm or d.id not in ids] + again


def learn_lens(detections: Sequence[Detection], setup: VisionSetup, calibration: Calibration,
               image_shape: tuple[int, ...]) -> Calibration:
    """`calibration` again through the lens this frame shows (`vision.lensfit`): from its calibration
    markers' corners and every model marker whose size fits, or, with fewer than MIN_LENS_MARKERS of
    them, through the prior lens (assumed). A lens from `calibrate-lens` is kept as it is."""
    size = (image_shape[1], image_shape[0])
    chosen = used_detections(detections, setup, calibration)
    if calibration.intrinsics is not None and calibration.lens == "calibrated":
        return check_lens(detections, setup, calibration, chosen, size)
    focal = setup.focal_guess(calibration, size)
    fit = estimate_lens(detections, setup, calibration, chosen, size, focal, setup.focal_sd)
    return calibration_with_lens(chosen, setup, size, fit) or calibration


def used_detections(detections: Sequence[Detection], setup: VisionSetup,
                    calibration: Calibration) -> list[Detection]:
    """One detection of each calibration marker the calibration used: of an id seen twice (a decoy, a
    second print), the one nearest its configured place."""
    best: dict[int, tuple[float, Detection]] = {}
    for d in detections:
        if d.id not in calibration.used:
            continue
        x, y, _, _ = calibration.marker_on_board(d)
        off = math.dist((x, y), setup.calibration_points[d.id])
        if d.id not in best or off < best[d.id][0]:
            best[d.id] = (off, d)
    return [best[i][1] for i in sorted(best)]


def check_lens(detections: Sequence[Detection], setup: VisionSetup, calibration: Calibration,
               chosen: Sequence[Detection], size: tuple[int, int]) -> Calibration:
    """A calibrated lens, checked against the lens the board shows: `lens_check` says so when they bend the
    board's part of the image apart by more than MISMATCH_PX and MISMATCH_SDS of the estimate's own spread
    (a changed lens, zoom or focus, or another camera's intrinsics)."""
    assert calibration.intrinsics is not None
    fit = estimate_lens(detections, setup, calibration, chosen, size, float(calibration.intrinsics.K[0, 0]))
    if fit.markers < MIN_LENS_MARKERS:
        return calibration
    corners = np.vstack([d.corners for d in chosen]).astype(np.float64)
    (x0, y0), (x1, y1) = corners.min(axis=0), corners.max(axis=0)
    grid = np.stack(np.meshgrid(np.linspace(x0, x1, 9), np.linspace(y0, y1, 9)), axis=-1).reshape(-1, 2)
    off, sd = apart(fit, calibration.intrinsics, grid)
    check = ""
    if off > max(MISMATCH_PX, MISMATCH_SDS * sd):
        check = (f"the calibrated lens ([camera] intrinsics) does not match what the board shows: up to "
                 f"{off:.1f} px apart across the board (the board's estimate is sure to {sd:.2f} px); the "
                 "lens, its zoom or focus changed, or the intrinsics are another camera's: run smarttable "
                 "calibrate-lens again")
    return replace(calibration, lens_fit=fit, lens_check=check)


def estimate_lens(detections: Sequence[Detection], setup: VisionSetup, calibration: Calibration,
                  chosen: Sequence[Detection], size: tuple[int, int], focal_px: float,
                  focal_sd: float = PRIOR_LOG_FOCAL_SD) -> LensFit:
    """The lens fitted to the frame's squares, or the prior lens when too few model markers fit; `focal_px`
    is the focal length's guess, good to `focal_sd` (1 sd of its log)."""
    points = calibration_points(chosen, setup.board_markers)
    models = [d for d in detections if d.id not in setup.calibration_points and not d.base_mm]  # squares
    heights = [setup.height_in(d.id) for d in models]
    side = setup.model_size_mm / MM_PER_INCH
    w, h = setup.board
    placed = calibration.markers_on_board(models, heights)
    fitting = [(d.corners, hgt, side) for d, hgt, (x, y, _, s) in zip(models, heights, placed, strict=True)
               if abs(s / side - 1) <= SIZE_TOLERANCE and 0 <= x <= w and 0 <= y <= h]
    # ring stickers: the square on each one's locator ring that its edge shows (sticker_read.lens_square)
    fitting += [(d.lens_square, setup.height_in(d.id), d.lens_side_mm / MM_PER_INCH) for d in detections
                if d.base_mm and d.lens_square is not None and d.id not in setup.calibration_points]
    fit = None
    if points is not None and len(fitting) >= MIN_LENS_MARKERS:
        squares, square_heights, sides = zip(*fitting, strict=True)
        fit = fit_lens(points[1], points[3], squares, square_heights, sides, size, focal_px, focal_sd)
    return fit or prior_lens(size, focal_px, focal_sd)


def calibration_with_lens(chosen: Sequence[Detection], setup: VisionSetup, size: tuple[int, int],
                          fit: LensFit) -> Calibration | None:
    """The calibration through the fitted lens, with the same under the lenses of its spread."""
    lens = "estimated" if fit.markers >= MIN_LENS_MARKERS else "assumed"
    cal = calibrate(chosen, setup.board_markers, size, fit.intrinsics, lens)
    if cal is None:
        return None
    spread = [calibrate(chosen, setup.board_markers, size, i, lens) for i in fit.spread()]
    return replace(cal, lens_fit=fit, spread=tuple(c for c in spread if c is not None))


def missing_corner_warning(detections: Sequence[Detection], setup: VisionSetup,
                           calibration: Calibration | None) -> str | None:
    """What is wrong with the corner markers, naming them; None when all of them calibrated."""
    seen = {d.id for d in detections}
    missing = [i for i in setup.corner_ids if i not in seen]
    names = ", ".join(str(i) for i in missing)
    plural = "s" if len(missing) > 1 else ""
    if calibration is None:
        if missing:
            others = sorted(seen - set(setup.corner_ids))
            saw = f"markers seen: {', '.join(map(str, others))}" if others else "no other markers seen"
            return (f"not calibrated: corner marker{plural} {names} not found "
                    f"(need at least 3 of {', '.join(str(i) for i in setup.corner_ids)}; {saw})")
        return ("not calibrated: the corner markers do not fit the config (markers.corner_size_mm "
                f"{setup.corner_size_mm:g} and markers.corners)")
    unused = [i for i in setup.corner_ids if i not in calibration.used and i not in missing]
    if unused:
        return (f"corner marker{'s' if len(unused) > 1 else ''} {', '.join(map(str, unused))} ignored "
                "(wrong size or place): calibrated from the others")
    if missing:
        return f"corner marker{plural} {names} not found: calibrated from the others"
    return None


def place_markers(detections: Sequence[Detection], setup: VisionSetup, calibration: Calibration,
                  image_shape: tuple[int, ...]) -> tuple[list[Located], list[str]]:
    """Model markers in board inches; wrong-size detections are dropped, off-board ones warned about."""
    warnings: list[str] = []
    placed: list[Located] = []
    w, h = setup.board
    models = [d for d in detections if d.id not in setup.calibration_points]
    heights = [setup.height_in(d.id) for d in models]
    kept: list[tuple[Detection, float, tuple[float, float, float, float]]] = []
    boards = calibration.markers_on_board(models, heights)
    for d, height, (x, y, heading, side) in zip(models, heights, boards, strict=True):
        expected = (Sticker(d.base_mm).diameter_mm if d.base_mm else setup.model_size_mm) / MM_PER_INCH
        if abs(side / expected - 1) > SIZE_TOLERANCE:
            warnings.append(f"ignored marker {d.id}: {side:.2f}\" across, a model marker is {expected:.2f}\"")
        elif not (0 <= x <= w and 0 <= y <= h):
            warnings.append(f"marker {d.id} is off the board at ({x:.2f}, {y:.2f})")
        else:
            kept.append((d, height, (x, y, heading, side)))
    # the corner noise is pooled over the markers kept (not over a decoy printed at another size)
    sigmas = marker_sigmas(calibration, [d for d, _, _ in kept], [hgt for _, hgt, _ in kept],
                           setup.height_sigma_mm / MM_PER_INCH)
    for (d, _, (x, y, heading, side)), sd in zip(kept, sigmas, strict=True):
        placed.append(Located(d.id, x, y, heading, side, d, sd.sigma, sd.heading_sigma, sd.sigma_frame))
    counts: dict[int, int] = {}
    for m in placed:
        counts[m.id] = counts.get(m.id, 0) + 1
    warnings += [f"marker {i} seen {n} times" for i, n in sorted(counts.items()) if n > 1]
    placed.sort(key=lambda m: m.id)
    return placed, warnings


def plausible_candidates(rejects: Sequence[np.ndarray], setup: VisionSetup,
                         calibration: Calibration | None) -> list[np.ndarray]:
    """Undecoded quads whose size on the board is a marker's, or its white margin's (all of them
    before calibration)."""
    if calibration is None:
        return list(rejects)
    sizes = (setup.model_size_mm / MM_PER_INCH, setup.corner_size_mm / MM_PER_INCH)
    keep = []
    for quad in rejects:
        corners = calibration.to_board(calibration.undistort(quad))
        side = float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)))
        if any(1 - SIZE_TOLERANCE <= side / s <= 1.5 for s in sizes):
            keep.append(quad)
    return keep


def detect_all(image: np.ndarray, setup: VisionSetup, detector: MarkerDetector,
               calibration: Calibration | None = None, sharpen: bool = True, stickers: bool = True
               ) -> tuple[list[Detection], Calibration | None]:
    """First look, calibration (unless given), a second look, recalibration if the second look
    found calibration markers, then the ring stickers the config assigns (unless not `stickers`).
    The AprilTag library's second look reads a sharpened copy (motion blur or defocus of about a
    cell merges a marker's black border with what lies beyond its white margin; sharpening
    separates them), and with `sharpen` False only when the first look could not calibrate;
    OpenCV's is the second pass over its marker-sized misses, with sharpened passes when that pass
    had much to read."""
    detections, rejects = detector.detect(image)
    if calibration is None:
        calibration = calibrate_frame(detections, setup, image.shape)
    if detector.family.library is not None:
        more: list[Detection] = []
        if sharpen or calibration is None:
            more = new_detections(detector.detect(image, sharpen=True)[0], detections)
    else:
        more = second_looks(image, setup, detector, calibration, detections, rejects)
    if more:
        detections += more
        if any(d.id in setup.calibration_points for d in more):
            calibration = calibrate_frame(detections, setup, image.shape) or calibration
    if stickers and setup.stickers and calibration is not None:
        detections += find_stickers(image, setup, calibration)
    return detections, calibration


def detect_frame(image: np.ndarray, setup: VisionSetup, calibration: Calibration | None = None,
                 sharpen: bool = True, stickers: bool = True) -> tuple[list[Detection], Calibration | None]:
    """Every marker in a frame, for a family the AprilTag library reads: without a calibration, the
    calibration markers first (printed bigger than the models, they let the library read a copy
    shrunk further), calibrate, then every marker at the calibration's scale (`detect_all`); the
    models' size before calibration is a guess that must allow for a board seen small, so this
    reads the frame once at the guessed scale only when the first look cannot calibrate. OpenCV's
    families: `detect_all` at once (its cost does not fall with the scale)."""
    found: list[Detection] = []
    if calibration is None and family(setup.dictionary).library is not None:
        corners = MarkerDetector(setup.detector_settings(image.shape, corners_only=True))
        found, calibration = detect_all(image, setup, corners, None, sharpen=False, stickers=False)
    ppi = None if calibration is None else calibration.px_per_inch
    detector = MarkerDetector(setup.detector_settings(image.shape, ppi))
    more, calibration = detect_all(image, setup, detector, calibration, sharpen, stickers)
    return found + new_detections(more, found), calibration


def second_looks(image: np.ndarray, setup: VisionSetup, detector: MarkerDetector,
                 calibration: Calibration | None, detections: list[Detection], rejects: list[np.ndarray]
                 ) -> list[Detection]:
    """OpenCV's second pass on marker-sized misses; when it had to read a fifth or more of what the
    first found, sharpened passes too."""
    candidates = plausible_candidates(rejects, setup, calibration)
    more = detector.second_pass(image, candidates, detections)
    if len(more) >= max(3, SHARPEN_TRIGGER * len(detections)):
        for flatten in (False, True):
            extra = sharpened_pass(image, setup, detector, calibration, detections + more, flatten)
            more += extra
            if not extra:  # this look found nothing: the next is unlikely to
                break
    return more


def find_stickers(image: np.ndarray, setup: VisionSetup, calibration: Calibration,
                  boxes: Sequence[tuple[int, int, int, int]] | None = None) -> list[Detection]:
    """The ring stickers the config assigns, in the frame (or in `boxes`): read at the stickers'
    height, again at a model's own height where the roster gives it another; an id read at a size
    the config does not give it is not that sticker."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    reads = sticker_read.read_stickers(grey, calibration, setup.sticker_sizes,
                                       setup.sticker_height_mm / MM_PER_INCH, boxes, setup.stickers)
    return sticker_detections(grey, setup, calibration, reads)


def sticker_detections(grey: np.ndarray, setup: VisionSetup, calibration: Calibration,
                       reads: Sequence[sticker_read.StickerRead]) -> list[Detection]:
    """Stickers read at the stickers' height as detections, each read again at its model's own
    height where the roster gives it another (dropped unless that read agrees)."""
    height = setup.sticker_height_mm / MM_PER_INCH
    out = []
    for read in reads:
        own = setup.height_in(read.id)
        if abs(own - height) * MM_PER_INCH > 0.5:
            view = sticker_read.BoardView(calibration, own)
            moved = view.to_board(sticker_read.BoardView(calibration, height).to_image(
                np.array([[read.x, read.y]])))[0]
            among = sticker_read.ids_at(setup.stickers, read.base_mm)
            again = sticker_read.read_one(grey, view, Sticker(read.base_mm), moved, among)
            if again is None or again.id != read.id:
                continue
            read = again
        out.append(sticker_read.detection_of(read, calibration))
    return out


def sharpened_pass(image: np.ndarray, setup: VisionSetup, detector: MarkerDetector,
                   calibration: Calibration | None, known: Sequence[Detection], flatten: bool = False
                   ) -> list[Detection]:
    """Markers a dense search of a sharpened (and `flatten`ed) copy finds, with its own second pass,
    that are not in `known` already: what motion blur, defocus or a shadow hid from the others."""
    found, rejects = detector.detect(image, dense=True, flatten=flatten, sharpen=True)
    candidates = plausible_candidates(rejects, setup, calibration)
    found += detector.second_pass(detector.enhanced(image, flatten), candidates, list(known) + found)
    return new_detections(found, known)


def new_detections(found: Sequence[Detection], known: Sequence[Detection]) -> list[Detection]:
    """Those of `found` not already in `known` (the same id within half a side of it)."""
    out: list[Detection] = []
    for d in found:
        near = (k.id == d.id and math.dist(k.centre, d.centre) < 0.5 * k.side_px for k in list(known) + out)
        if not any(near):
            out.append(d)
    return out


LENS_ASSUMED = ("lens not calibrated and too few model markers in view to estimate it: sigma allows for "
                "a typical lens's distortion, so the error bars are wide (run smarttable calibrate-lens, or "
                "put models on the board; docs/uncertainty.md)")


def locate(image: np.ndarray, setup: VisionSetup, detector: MarkerDetector | None = None,
           calibration: Calibration | None = None) -> LocateResult:
    """Detect, calibrate (unless a calibration is given) and place every model marker."""
    fixed = calibration is not None
    if detector is None:
        detections, calibration = detect_frame(image, setup, calibration)
    else:
        detections, calibration = detect_all(image, setup, detector, calibration)
    if calibration is not None and not fixed:
        calibration = learn_lens(detections, setup, calibration, image.shape)
        if setup.stickers and calibration.lens_fit is not None and bend_px(calibration.lens_fit) > REREAD_PX:
            detections = stickers_again(image, setup, calibration, detections)
    warnings: list[str] = []
    missing = None if fixed else missing_corner_warning(detections, setup, calibration)
    if missing:
        warnings.append(missing)
    if calibration is None:
        return LocateResult(None, (), tuple(warnings), tuple(detections))
    if setup.model_height_mm or setup.heights_mm:
        if not calibration.can_correct_parallax():
            warnings.append("parallax not corrected: camera pose unknown "
                            "(calibrate the lens, see docs/vision.md)")
        elif calibration.lens_fit is not None and calibration.lens_fit.focal_guessed():
            warnings.append("parallax corrected from a guessed camera height: the view is too square-on to "
                            "show the focal length (set [camera] model or calibrate the lens; sigma allows "
                            "for it)")
    if calibration.lens == "assumed":
        warnings.append(LENS_ASSUMED)
    if calibration.lens_check:
        warnings.append(calibration.lens_check)
    focus = measure(as_grey(image), detections, setup.corner_ids, family(setup.dictionary).square_cells,
                    setup.stickers, calibration.px_per_inch)
    soft = None if focus is None else focus.warning()
    warnings += [soft] if soft else []
    placed, more = place_markers(detections, setup, calibration, image.shape)
    why = None if more else models_warning(detections, setup, image.shape, len(placed))
    return LocateResult(calibration, tuple(placed), tuple(warnings + more + ([why] if why else [])),
                        tuple(detections), focus)


def models_warning(detections: Sequence[Detection], setup: VisionSetup, image_shape: tuple[int, ...],
                   found: int) -> str | None:
    """Why a calibrated frame has no model markers, or only `found` of them: too small to read at this
    size (a reduced copy, such as the panel's camera.jpg: the AprilTag library still reads some), or
    (none found) none on the board. Their size is the corner markers' scaled."""
    from vision.planner import CELLS, MARGINAL_PX_PER_CELL  # the planner's thresholds

    sides = [d.side_px for d in detections if d.id in setup.corner_ids]
    cell = float(np.median(sides)) * setup.model_size_mm / setup.corner_size_mm / CELLS
    h, w = image_shape[:2]
    size = f"a {setup.model_size_mm:g} mm marker is {cell:.1f} px a cell in this {w}x{h} image"
    if cell < MARGINAL_PX_PER_CELL:
        lead = f"only {found} model marker{'s' * (found > 1)} read" if found else "no model markers found"
        return (f"{lead}: {size}, too small to read (markers read from "
                f"{MARGINAL_PX_PER_CELL:g} px a cell); locate a full-size camera frame, not a reduced copy "
                "such as the panel's camera.jpg")
    return None if found else f"no model markers found on the board ({size})"
