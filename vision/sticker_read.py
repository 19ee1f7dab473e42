"""Reading ring stickers (vision/sticker.py) in a calibrated frame: the base's centre and the model's facing
from whatever part of the sticker the model standing on it leaves visible.

1. Candidates: every strong edge in the frame votes for a centre one locator-ring radius away along its
   gradient (the ring's inner edge turns dark going out, its outer edge light), for each base size;
   peaks of the votes are candidates. A ring half hidden still gathers half its votes.
2. The ring: the sticker is sampled in board millimetres at its height (parallax, the homography and
   the lens undone), along rays from the candidate; on each ray where the ring shows, its two edges are
   found to a fraction of a pixel; a circle of the ring's known radii is fitted to them (outliers, the
   model's own edges, dropped), twice.
3. The code: the two bands are sampled round the fitted centre; the cells' edges give the code's phase,
   each band of each cell is read softly, from sure black to sure white (a cell under the model is
   neither, or not evenly; one greyed by blur is a doubtful read), and the code decodes the soft reads
   (doubtful ones as near-erasures) with a margin over any other id or turn, or the candidate is refused.
   What does not decide is read again: sharpened against the neighbouring cells (blur), and with the
   light round the sticker evened out (a miniature's shadow).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision import ringcode
from vision.calibrate import Calibration
from vision.detect import Detection
from vision.sticker import BANDS, GAP, RING, Sticker

MM_PER_INCH = 25.4
GRADIENT_MIN = 40.0  # Sobel (3x3) magnitude of an edge worth a vote
VOTE_SHARE = 0.12  # a candidate gathers at least this share of a whole ring's votes
BIN = 2  # pixels: the votes' bins
RAYS = 360
CODE_SAMPLES = 720  # angles round the code bands
FIRST_LOOK = 0.35  # share of rays where the ring shows for a full look (true stickers under models: 0.58+)
# grey levels the ring is darker than the white gap outside it where it shows, for the first look: a blur
# of sigma 2 px greys a 25 mm sticker's 2.6 px ring from 1.65 m to about 20 below its gap (a bare 25 mm
# sticker at 2 px: 35 of 40 looked at with 30, all with 20)
FIRST_LOOK_CONTRAST = 20.0
# the least contrast a fitted ring may show (grey levels, the 75th percentile round it): a print of 150 on
# 40 (a dim room) under 1.6 px of blur shows a 25 mm sticker's ring at 22-29 (the code read and its margin
# guard against false rings: none on the outside renders at 20)
RING_CONTRAST = 20.0
# the light round a sticker counts as even when nowhere below this share of its median (else the code is
# read again with the light evened out, when it does not decide as it is)
EVEN_LIGHT = 0.85
MIN_LENS_ARC = 0.3  # share of the ring's rays its outer edge shows on for the sticker to serve the lens fit
# the lens fit takes the ring's outer edge this many rays clear of where the ring is hidden: a model's
# blurred silhouette beside the edge moves it, and models lean outward by parallax, so it bent the ellipses
# as a lens's barrel would (25 mm under 30 mm models at 1.6 px blur, a perfect lens: k1 -0.06 and 27 of 40
# within 0.05"; 25 rays clear: k1 -0.004, 40 of 40)
LENS_CLEAR_RAYS = 25
LENS_RING_PX = 0.3  # a point of the ring's edge this far off the ellipse its points fit is another edge's
SEARCH_MM = 2.0  # how far from its candidate the ring's pattern is looked for
MIN_EDGES = 60  # ring edges (of 2 x RAYS) needed for a fit
FIT_TOLERANCE = 0.08  # share of the ring's width: an edge farther off the fitted circle is an outlier
MIN_VISIBLE = 10.0  # cells' worth of confidence needed to decode
MAX_MISMATCH = 0.15  # share of the visible cells the best codeword may disagree with
MIN_MARGIN = 4.0  # the runner-up codeword disagrees with this many more cells
SURE = 0.25  # a band's level (black 0, white 1) this far from half-way grey is a sure read
# blur leaks each cell's level into its neighbours' round the ring (at 2 px a lone white cell between black
# ones on a 25 mm sticker reads nearly half-way). When the cells as read do not decide, they are read again
# with each cell's level pushed away from its two neighbours' by this share of the difference: a crisp read
# only grows surer, but a cell half under a model's edge can grow surely wrong, so not first (cavalry on
# 60x35 ovals lost 2 of 60 when every read was sharpened)
SHARPEN = 0.5
# how much of each band's outer side the cells are not read from: the outer band ends at the sticker's
# edge, where a blur darkens its white cells with the base's rim (blur sigma 1.6 px on a 25 mm sticker
# from 1.65 m: bare stickers 95% -> 100% read, under models 30% -> 45%)
OUTER_SHARE = (0.2, 0.4)
STRIP_PARALLEL = 15.0  # degrees: the edges of a strip across the sticker (two hidden arcs' chords)
CRISP = 0.35  # a hidden band's level this far from half-way grey, and even, reads as print (a last resort)
# the cells of each run of MAX_RUN + 1 round the ring, one run a starting cell
RUNS_ROUND = (np.arange(ringcode.CELLS)[:, None] + np.arange(ringcode.MAX_RUN + 1)[None, :]) % ringcode.CELLS


@dataclass(frozen=True)
class StickerRead:
    """A sticker found: `id`, its base, the centre in board inches (the sticker's own height), the
    heading (the contract's), and how sure: the visible cells' weight, mismatch and margin."""

    id: int
    base_mm: float
    x: float
    y: float
    heading: float
    visible: float
    mismatch: float
    margin: float
    height_in: float
    outer_px: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)), compare=False, repr=False)


class BoardView:
    """Board inches at a height above the board <-> image pixels, through a calibration."""

    def __init__(self, calibration: Calibration, height_in: float):
        self.calibration = calibration
        self.height_in = height_in

    def to_image(self, board: np.ndarray) -> np.ndarray:
        cal = self.calibration
        pts = np.asarray(board, np.float64).reshape(-1, 2)
        if self.height_in and cal.camera_position is not None:
            fx, fy, hc = cal.camera_position
            foot = np.array([fx, fy])
            pts = foot + (pts - foot) * (hc / (hc - self.height_in))
        und = cal.to_image(pts)
        if cal.intrinsics is None or not np.any(cal.intrinsics.dist):
            return und
        return distort(und, cal.intrinsics.K, cal.intrinsics.dist)

    def to_board(self, pixels: np.ndarray) -> np.ndarray:
        cal = self.calibration
        return cal.to_board(cal.undistort(pixels), self.height_in)

    def px_per_mm(self) -> float:
        cal = self.calibration
        scale = 1.0
        if self.height_in and cal.camera_position is not None:
            scale = cal.camera_position[2] / (cal.camera_position[2] - self.height_in)
        return cal.px_per_inch / MM_PER_INCH * scale


def distort(pixels: np.ndarray, K: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Ideal pinhole pixels -> the lens's (OpenCV's model); the usual five coefficients worked here,
    more through cv2.projectPoints."""
    norm = (pixels - K[:2, 2]) / np.array([K[0, 0], K[1, 1]])
    d = np.ravel(dist)
    if len(d) > 5:
        rays = np.column_stack([norm, np.ones(len(norm))]).reshape(-1, 1, 3)
        px, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), K, d)
        return px.reshape(-1, 2)
    k1, k2, p1, p2, k3 = np.concatenate([d, np.zeros(5 - len(d))])
    x, y = norm[:, 0], norm[:, 1]
    r2 = x * x + y * y
    radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return np.column_stack([xd * K[0, 0] + K[0, 2], yd * K[1, 1] + K[1, 2]])


@dataclass(frozen=True)
class Edges:
    """The strong edges of a part of the frame: positions (full-frame pixels) and unit gradients."""

    x: np.ndarray
    y: np.ndarray
    ux: np.ndarray
    uy: np.ndarray
    box: tuple[int, int, int, int]

    @classmethod
    def of(cls, grey: np.ndarray, box: tuple[int, int, int, int] | None = None) -> Edges:
        x0, y0, w, h = box if box is not None else (0, 0, grey.shape[1], grey.shape[0])
        part = grey[y0:y0 + h, x0:x0 + w]
        gx = cv2.Sobel(part, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(part, cv2.CV_32F, 0, 1, ksize=3)
        mag = cv2.magnitude(gx, gy)
        ys, xs = np.nonzero(mag > GRADIENT_MIN)
        m = mag[ys, xs]
        return cls(xs + x0, ys + y0, gx[ys, xs] / m, gy[ys, xs] / m, (x0, y0, w, h))


@dataclass(frozen=True)
class Candidate:
    """A place (image pixels) where a locator ring of this sticker size may be centred, and its votes
    (the share of a whole ring's)."""

    sticker: Sticker
    pixel: tuple[float, float]
    votes: float


def find_candidates(edges: Edges, view: BoardView, sticker: Sticker) -> list[Candidate]:
    """Places where a locator ring of this sticker may be centred: peaks of the edges' votes
    (counted in bins of BIN pixels), strongest first, none within a ring's radius of a stronger one."""
    x0, y0, w, h = edges.box
    scale = view.px_per_mm()
    r_in, r_out = RING[0] * sticker.radius_mm * scale, RING[1] * sticker.radius_mm * scale
    # inner edge: light inside, so the gradient points at the centre; outer edge: away from it
    cx = (np.concatenate([edges.x + r_in * edges.ux, edges.x - r_out * edges.ux]) - x0) / BIN
    cy = (np.concatenate([edges.y + r_in * edges.uy, edges.y - r_out * edges.uy]) - y0) / BIN
    bw, bh = w // BIN + 1, h // BIN + 1
    keep = (cx >= 0) & (cx < bw) & (cy >= 0) & (cy < bh)
    votes = np.bincount(cy[keep].astype(int) * bw + cx[keep].astype(int), minlength=bw * bh)
    grid = cv2.boxFilter(votes.reshape(bh, bw).astype(np.float32), -1, (2, 2), normalize=False,
                         anchor=(0, 0))
    whole = 2 * math.pi * (r_in + r_out) * 2.0  # about two pixels a ray above the threshold, each edge
    peaks = (grid >= VOTE_SHARE * whole) & (grid >= cv2.dilate(grid, np.ones((3, 3), np.uint8)))
    py, px = np.nonzero(peaks)
    order = np.argsort(-grid[py, px])
    points = np.column_stack([(px[order] + 1) * BIN + x0, (py[order] + 1) * BIN + y0]).astype(np.float64)
    strength = grid[py[order], px[order]] / whole
    out: list[np.ndarray] = []
    shares: list[float] = []
    for p, v in zip(points, strength, strict=True):
        if not out or np.min(np.linalg.norm(np.array(out) - p, axis=1)) > r_in:
            out.append(p)
            shares.append(float(v))
    return [Candidate(sticker, (float(p[0]), float(p[1])), v) for p, v in zip(out, shares, strict=True)]


def _sample(grey: np.ndarray, view: BoardView, centre: np.ndarray, radii_mm: np.ndarray,
            angles: np.ndarray) -> np.ndarray:
    """Grey levels at (radius, angle) round a board centre (inches): (len(radii), len(angles))."""
    r = radii_mm[:, None] / MM_PER_INCH
    pts = np.stack([centre[0] + r * np.cos(angles)[None, :], centre[1] + r * np.sin(angles)[None, :]], -1)
    px = view.to_image(pts.reshape(-1, 2)).astype(np.float32)
    values = cv2.remap(grey, px[:, 0].reshape(-1, 1), px[:, 1].reshape(-1, 1), cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE)
    return values.reshape(len(radii_mm), len(angles)).astype(np.float32)


def _crossings(profile: np.ndarray, radii: np.ndarray, window: tuple[float, float], level: np.ndarray
               ) -> np.ndarray:
    """Per ray, the radius within `window` where the profile crosses `level` (that ray's half-way grey
    between the ring and the white beside it), interpolated between samples; NaN where it does not."""
    sel = (radii >= window[0]) & (radii <= window[1])
    p, r = profile[sel], radii[sel]
    above = p > level[None, :]
    flips = above[1:] != above[:-1]
    k = np.argmax(flips, axis=0)
    rays = np.arange(p.shape[1])
    a, b = p[k, rays], p[k + 1, rays]
    t = np.clip((level - a) / np.where(b == a, 1, b - a), 0, 1)
    out = r[k] + t * (r[k + 1] - r[k])
    return np.where(flips.any(axis=0), out, np.nan)


@dataclass(frozen=True)
class RingFit:
    """The locator ring: its centre (board inches), its contrast (grey levels), the edges that fit,
    and on which of the RAYS rays (from angle 0, clockwise) an edge of it shows where it should."""

    centre: np.ndarray
    contrast: float
    edges: int
    seen: np.ndarray
    outer_px: np.ndarray  # (N, 2) image pixels of the ring's outer edge, wherever it was found


def looks_like_ring(grey: np.ndarray, view: BoardView, sticker: Sticker, centre: np.ndarray) -> bool:
    """A cheap first look: on enough of 64 rays the ring is darker than the white gap outside it."""
    rho = sticker.radius_mm
    angles = np.linspace(0, 2 * math.pi, 64, endpoint=False)
    v = _sample(grey, view, centre, np.array([(RING[0] + RING[1]) / 2, (RING[1] + GAP) / 2]) * rho, angles)
    return float(np.mean(v[1] - v[0] > FIRST_LOOK_CONTRAST)) >= FIRST_LOOK


def match_ring(grey: np.ndarray, view: BoardView, sticker: Sticker, centre: np.ndarray) -> np.ndarray:
    """The centre (board inches) within SEARCH_MM of `centre` where the frame, resampled on the board,
    best matches the ring between its white sides (normalised correlation): a candidate's votes can
    lean towards the model's own round edges, the whole ring's pattern does not."""
    rho = sticker.radius_mm
    step = rho / 55  # mm a sample
    half_t = int(math.ceil(GAP * rho / step))
    half_p = half_t + int(math.ceil(SEARCH_MM / step))
    axis = np.arange(-half_p, half_p + 1) * step
    x, y = np.meshgrid(axis, axis)
    pts = centre + np.column_stack([x.ravel(), y.ravel()]) / MM_PER_INCH
    px = view.to_image(pts).astype(np.float32)
    patch = cv2.remap(grey, px[:, 0].reshape(x.shape), px[:, 1].reshape(x.shape), cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    r = np.hypot(*np.meshgrid(np.arange(-half_t, half_t + 1) * step, np.arange(-half_t, half_t + 1) * step))
    template = np.zeros(r.shape, np.float32)
    template[(r >= RING[0] * rho) & (r < RING[1] * rho)] = -1.0
    template[(r >= RING[1] * rho) & (r < GAP * rho)] = 1.0  # not the white inside: the feet stand there
    mask = (template != 0).astype(np.float32)
    score = cv2.matchTemplate(patch, template, cv2.TM_CCOEFF_NORMED, mask=mask)
    _, _, _, (bx, by) = cv2.minMaxLoc(score)
    offset = np.array([bx + _vertex(score[by, max(bx - 1, 0):bx + 2]),
                       by + _vertex(score[max(by - 1, 0):by + 2, bx])]) - (half_p - half_t)
    return centre + offset * step / MM_PER_INCH


def _vertex(values: np.ndarray) -> float:
    """Sub-sample offset of a peak from its two neighbours (parabola), 0 at an edge of the search."""
    if len(values) < 3:
        return 0.0
    a, b, c = (float(v) for v in values)
    denom = a - 2 * b + c
    return 0.0 if abs(denom) < 1e-9 else float(np.clip(0.5 * (a - c) / denom, -0.5, 0.5))


def fit_ring(grey: np.ndarray, view: BoardView, sticker: Sticker, centre: np.ndarray) -> RingFit | None:
    """The locator ring near `centre` (board inches), or None."""
    if not looks_like_ring(grey, view, sticker, centre):
        return None
    centre = match_ring(grey, view, sticker, centre)
    rho = sticker.radius_mm
    r1, r2 = RING[0] * rho, RING[1] * rho
    width = r2 - r1
    angles = np.linspace(0, 2 * math.pi, RAYS, endpoint=False)
    cos, sin = np.cos(angles), np.sin(angles)
    radii = np.arange(r1 - 0.9 * width, r2 + 0.9 * width, 0.06 * width)
    for _ in range(3):
        prof = _sample(grey, view, centre, radii, angles)
        dark = prof[np.argmin(np.abs(radii - (r1 + r2) / 2))]
        inside = prof[np.argmin(np.abs(radii - (r1 - 0.5 * width)))]
        outside = prof[np.argmin(np.abs(radii - (r2 + 0.5 * width)))]
        contrast = float(np.percentile(np.concatenate([inside - dark, outside - dark]), 75))
        if contrast < RING_CONTRAST:
            return None
        e1 = _crossings(prof, radii, (r1 - 0.45 * width, r1 + 0.45 * width), (inside + dark) / 2)
        e2 = _crossings(prof, radii, (r2 - 0.45 * width, r2 + 0.45 * width), (outside + dark) / 2)
        ok2 = (outside - dark > 0.5 * contrast) & np.isfinite(e2)
        # the inner edge borders the feet: a dark model merges with the ring there, so it counts only
        # beside an outer edge the ring's width away
        ok1 = (inside - dark > 0.5 * contrast) & np.isfinite(e1) & ok2
        ok1 &= np.abs(np.where(ok1, e2 - e1, 0) - width) < 0.25 * width
        if ok1.sum() + ok2.sum() < MIN_EDGES:
            return None
        # r_edge = r_k + dx cos + dy sin: least squares, twice without the outliers
        rows = np.concatenate([np.column_stack([cos, sin])[ok1], np.column_stack([cos, sin])[ok2]])
        target = np.concatenate([e1[ok1] - r1, e2[ok2] - r2])
        keep = np.ones(len(target), bool)
        for _ in range(3):
            if keep.sum() < MIN_EDGES:
                return None
            sol, *_ = np.linalg.lstsq(rows[keep], target[keep], rcond=None)
            resid = np.abs(rows @ sol - target)
            keep = resid < max(FIT_TOLERANCE * width, 2.5 * float(np.median(resid[keep])))
        spread = np.linalg.eigvalsh(rows[keep].T @ rows[keep] / keep.sum())
        if spread[0] < 0.08:  # edges only on one side: the centre is not pinned across
            return None
        sampled_at, centre = centre, centre + sol / MM_PER_INCH
        if np.hypot(*sol) < 0.02:
            break
    seen = np.zeros(RAYS, bool)
    n1 = int(ok1.sum())
    inner, outer = np.nonzero(ok1)[0][keep[:n1]], np.nonzero(ok2)[0][keep[n1:]]
    seen[inner] = seen[outer] = True
    clear = ok2 & ~_near(~seen, LENS_CLEAR_RAYS)
    return RingFit(centre, contrast, int(keep.sum()), seen,
                   _outer_edge(prof, radii, r2, width, clear, sampled_at, angles, view))


def _near(rays: np.ndarray, reach: int) -> np.ndarray:
    """Round the ring: the rays within `reach` rays of one of `rays` (a boolean per ray)."""
    wrapped = np.concatenate([rays[len(rays) - reach:], rays, rays[:reach]]).astype(np.float64)
    return np.convolve(wrapped, np.ones(2 * reach + 1), mode="valid") > 0


def _outer_edge(prof: np.ndarray, radii: np.ndarray, r2: float, width: float, found: np.ndarray,
                centre: np.ndarray, angles: np.ndarray, view: BoardView) -> np.ndarray:
    """(N, 2) image pixels of the ring's outer edge on the rays `found` of profiles `prof` sampled round
    `centre` (beside the white gap, where a model's feet do not reach), each ray's half-way grey between
    the darkest of its ring and the whitest of its gap: a lens bends the ring off its nominal circle,
    and levels sampled at fixed radii pulled the edge back towards that circle (a 25 mm ring's ellipse
    0.9292 across for 0.9248, against 0.94)."""
    dark = prof[(radii > r2 - 1.3 * width) & (radii < r2 + 0.3 * width)].min(axis=0)
    white = prof[(radii > r2 + 0.2 * width) & (radii < r2 + 0.8 * width)].max(axis=0)
    edge = _crossings(prof, radii, (r2 - 0.45 * width, r2 + 0.45 * width), (dark + white) / 2)
    rays = np.flatnonzero(found & np.isfinite(edge))
    along = np.column_stack([np.cos(angles[rays]), np.sin(angles[rays])])
    return view.to_image(centre + edge[rays, None] * along / MM_PER_INCH)


def read_code(grey: np.ndarray, view: BoardView, sticker: Sticker, ring: RingFit,
              among: Sequence[int] | None = None) -> tuple[int, float, float, float, float] | None:
    """(id, heading, visible weight, mismatch, margin) of the code round a fitted ring, or None. Where
    the ring is hidden the code beside it is taken as hidden too (a model leaning out across the
    sticker, an arm); when that does not decide, only over a narrower arc farther out (`beyond_strips`:
    more cells, nearer the model's blurred edge), then with the hidden cells that read as crisp print.
    When none of that decides and the light round the sticker is uneven (a miniature's shadow), all of
    it again with the light evened out (`_light`). `among`: the ids in use at this size (`_decide`)."""
    rho = sticker.radius_mm
    centre = ring.centre
    angles = np.linspace(0, 2 * math.pi, CODE_SAMPLES, endpoint=False)
    ring_seen = ring.seen[(np.arange(CODE_SAMPLES) * RAYS) // CODE_SAMPLES]
    raw, inner = [], []
    for (lo, hi), outer in zip(BANDS, OUTER_SHARE, strict=True):
        radii = np.linspace(lo + 0.2 * (hi - lo), hi - outer * (hi - lo), 3) * rho
        raw.append(_sample(grey, view, centre, radii, angles))
        inner.append(radii[0] / (RING[1] * rho))  # each band's inner edge, in the ring's outer radii
    dark = _sample(grey, view, centre, np.array([(RING[0] + RING[1]) / 2]) * rho, angles)[0]
    got = _read_bands(raw, dark, ring_seen, inner, angles, among)
    if got is None:  # a miniature's shadow across the sticker: read again with the light evened out
        gap = _sample(grey, view, centre, np.array([(RING[1] + GAP) / 2]) * rho, angles)[0]
        light = _light(gap, ring_seen)
        if light is not None:
            got = _read_bands([b / light for b in raw], dark / light, ring_seen, inner, angles, among)
    if got is None:
        return None
    marker_id, facing, visible, mismatch, margin = got
    heading = math.degrees(math.atan2(math.sin(facing), math.cos(facing)))
    return marker_id, heading, visible, mismatch, margin


def _read_bands(raw: list[np.ndarray], dark: np.ndarray, ring_seen: np.ndarray, inner: list[float],
                angles: np.ndarray, among: Sequence[int] | None = None
                ) -> tuple[int, float, float, float, float] | None:
    """(id, facing in radians, visible weight, mismatch, margin) of the code bands' samples `raw` (grey
    levels, per band (radii, angles)), `dark` the ring's; where the ring shows, its cells first, then
    beyond the ring's shadow (`beyond_strips`, each band's inner edge `inner` ring radii out)."""
    # black: the ring where it shows; white: the code's white cells there (the thin gap is greyed by blur)
    shown = ring_seen if ring_seen.sum() >= 8 else np.ones(CODE_SAMPLES, bool)
    black = float(np.percentile(dark[shown], 25))
    white = float(np.percentile(np.concatenate([b[:, shown].ravel() for b in raw]), 85))
    if white - black < 30:
        return None
    bands = [(b - black) / (white - black) for b in raw]
    beside = ring_seen.astype(np.float64)
    got = _read_cells(bands, angles, [beside, beside], False, among)
    if got is None and not ring_seen.all():  # a ring seen whole hides no cells: nothing more to try
        beyond = [beyond_strips(ring_seen, ratio).astype(np.float64) for ratio in inner]
        got = _read_cells(bands, angles, beyond, True, among)
    return got


def _light(gap: np.ndarray, seen: np.ndarray) -> np.ndarray | None:
    """The light round the sticker, 1 at its median, from the white gap outside the ring where the ring
    shows (the brightest within a cell either way, so a greyed gap beside a black cell does not count;
    across the hidden arcs, from their ends); None when it is even (within EVEN_LIGHT) or not seen."""
    n = len(gap)
    if seen.sum() < n // 4:
        return None
    k = n // ringcode.CELLS
    wrapped = np.concatenate([gap[-k:], gap, gap[:k]])
    peak = np.lib.stride_tricks.sliding_window_view(wrapped, 2 * k + 1).max(axis=1)
    where = np.flatnonzero(seen)
    filled = np.interp(np.arange(n), where, peak[where], period=n)
    smooth = np.convolve(np.concatenate([filled[-k:], filled, filled[:k]]), np.ones(2 * k + 1) / (2 * k + 1),
                         mode="valid")
    light = smooth / float(np.median(smooth[seen]))
    return None if light[seen].min() > EVEN_LIGHT or light.min() <= 0 else light


def _read_cells(bands: list[np.ndarray], angles: np.ndarray, seen: list[np.ndarray], hidden_too: bool,
                among: Sequence[int] | None = None) -> tuple[int, float, float, float, float] | None:
    """(id, facing in radians, visible weight, mismatch, margin) of the cells where `seen` (per band)
    shows them; when those do not decide, sharpened against their neighbours (SHARPEN), then with
    `hidden_too` the hidden cells that read as crisp print; None when nothing decides."""
    delta = 2 * math.pi / ringcode.CELLS
    weight_at = (seen[0] + seen[1]) / 2
    phase = 0.0
    for _ in range(2):
        # the cells' edges: where the bands change along the ring, at multiples of a cell from the phase
        change = sum(np.abs(np.roll(b.mean(axis=0), -1) - np.roll(b.mean(axis=0), 1)) for b in bands)
        z = np.sum(change * weight_at * np.exp(1j * ringcode.CELLS * angles))
        phase = (math.atan2(z.imag, z.real) / ringcode.CELLS) % delta
        soft, with_hidden, weight_at = _cells(bands, angles, phase, delta, seen)
    got = (_decide(soft, among) or _decide(_cells(bands, angles, phase, delta, seen, SHARPEN)[0], among)
           or (_decide(with_hidden, among) if hidden_too else None))
    if got is None:
        return None
    marker_id, turn, visible, mismatch, margin = got
    return marker_id, phase + (turn + 0.5) * delta, visible, mismatch, margin


def _decide(soft: np.ndarray, among: Sequence[int] | None = None
            ) -> tuple[int, int, float, float, float] | None:
    """(id, turn, visible weight, mismatch, margin) of soft cell reads, or None when too few cells show,
    the best codeword disagrees with too many or another fits nearly as well; with `among` (the ids in
    use at this size), another of those (`ringcode.decode`)."""
    got = ringcode.decode(soft, among)
    if got is None:
        return None
    marker_id, turn, mismatch, runner_up = got
    visible = float(np.abs(soft).mean(axis=0).sum())
    refused = mismatch > max(2.0, MAX_MISMATCH * visible) or runner_up - mismatch < MIN_MARGIN
    if visible < MIN_VISIBLE or refused:
        return None
    return marker_id, turn, visible, mismatch, runner_up - mismatch


def beyond_strips(seen: np.ndarray, ratio: float) -> np.ndarray:
    """Where a circle `ratio` times the ring's radius shows, from where the ring shows (`seen`, evenly
    round from angle 0): each arc where the ring is hidden is taken as the shadow of a strip through the
    middle (a body, a horse, an arm reaching out from them), which hides a narrower arc farther out:
    half-angle asin(sin(a) / ratio) for the ring's half-angle a. Arcs of half a turn or more stay hidden.
    When two arcs of more than a cell are hidden, they are one strip across the sticker (a horse's body,
    leaning off the middle by parallax): its edges join their ends (`_across`)."""
    n = len(seen)
    if seen.all() or not seen.any():
        return seen.copy()
    start = int(np.argmax(seen))  # a seen sample: hidden runs do not wrap past it
    rolled = np.roll(seen, -start)
    out = rolled.copy()
    edges = np.flatnonzero(np.diff(np.append(rolled, True).astype(np.int8)))
    runs = list(zip(edges[::2] + 1, edges[1::2] + 1, strict=True))  # hidden samples a..b-1
    major = [(a, b) for a, b in runs if b - a > n / ringcode.CELLS]
    strip = _across(major, start, n, ratio) if len(major) == 2 else None
    for a, b in runs:
        if strip is not None and (a, b) in major:
            out[a:b] = ~strip[a:b]
            continue
        half = (b - a) / 2 * 2 * math.pi / n
        if half < math.pi / 2:
            keep = math.asin(math.sin(half) / ratio) / half
            middle, reach = (a + b - 1) / 2, (b - a) / 2 * keep
            k = np.arange(a, b)
            out[k] = np.abs(k - middle) > reach
    return np.roll(out, start)


def _across(major: list[tuple[int, int]], start: int, n: int, ratio: float) -> np.ndarray | None:
    """Per sample (rolled by `start`), whether the circle `ratio` times the ring's radius lies inside a
    strip across the sticker whose edges join the ends of the ring's two hidden arcs (`major`): a
    horse's body, lean and all, hides the code between the lines through them. None when those lines
    are not parallel (within STRIP_PARALLEL): two things, not one strip (a body and an arm)."""
    def point(i: float) -> np.ndarray:
        t = (i + start) * 2 * math.pi / n
        return np.array([math.cos(t), math.sin(t)])
    t = (np.arange(n) + start) * 2 * math.pi / n
    q = ratio * np.column_stack([np.cos(t), np.sin(t)])
    inside = np.ones(n, bool)
    (a1, b1), (a2, b2) = major
    chords = [(point(p - 0.5), point(r - 0.5), point((p + r) / 2)) for p, r in ((b1, a2), (b2, a1 + n))]
    (p1, r1, _), (p2, r2, _) = chords
    u, v = r1 - p1, r2 - p2
    if -(u @ v) < math.cos(math.radians(STRIP_PARALLEL)) * np.linalg.norm(u) * np.linalg.norm(v):
        return None
    for pp, pr, flank in chords:
        d = pr - pp
        def side(x: np.ndarray, pp: np.ndarray = pp, d: np.ndarray = d) -> np.ndarray:
            return d[0] * (x[..., 1] - pp[1]) - d[1] * (x[..., 0] - pp[0])
        inside &= np.sign(side(q)) != np.sign(side(flank))
    return inside


def _cells(bands: list[np.ndarray], angles: np.ndarray, phase: float, delta: float, seen: list[np.ndarray],
           sharpen: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(soft reads (2, 31), each cell's weight, the weight at each sample) of the 31 cells from the
    phase: each band's cell is its middle half's mean level, rescaled so that the visible cells' own
    black and white are 0 and 1 (`_two_levels`); its soft read is how far that level, pushed away from
    its shown neighbours' by `sharpen` of the difference, is from the half-way grey (sure at SURE from
    it), and only as much as the band is even across the cell and shows (`seen`: per band, 1 where it
    shows at each sample). A band greyed by blur (a lone white cell between black ones) is a doubtful
    read, one under the model nothing: erasures the code decodes through, not errors."""
    n = ringcode.CELLS
    position = (angles - phase) / delta
    cell = np.floor(position).astype(int) % n
    middle = np.abs(position - np.floor(position) - 0.5) < 0.25
    count = np.maximum(np.bincount(cell[middle], minlength=n) * bands[0].shape[0], 1)
    levels, spreads = [], []
    for band in bands:
        labels = np.broadcast_to(cell[middle], band[:, middle].shape).ravel()
        values = band[:, middle].ravel()
        level = np.bincount(labels, values, minlength=n) / count
        levels.append(level)
        spreads.append(np.sqrt(np.maximum(np.bincount(labels, values**2, minlength=n) / count - level**2, 0)))
    beside = [np.bincount(cell, s, minlength=n) / np.maximum(np.bincount(cell, minlength=n), 1) for s in seen]
    black, white = _two_levels(np.concatenate([lv[b > 0.5] for lv, b in zip(levels, beside, strict=True)]))
    soft, hidden = np.zeros((2, n)), np.zeros((2, n))
    shown = np.clip((np.array(beside) - 0.3) / 0.5, 0, 1)
    x = (np.array(levels) - black) / (white - black) - 0.5
    sharp = 0.5 + x + sharpen * sum(np.roll(shown, turn, axis=1) * (x - np.roll(x, turn, axis=1))
                                    for turn in (1, -1))
    for k, spread in enumerate(spreads):
        even = np.clip((0.45 - spread / (white - black)) / 0.25, 0, 1)
        soft[k] = np.clip((sharp[k] - 0.5) / SURE, -1, 1) * even * shown[k]
        hidden[k] = np.sign(x[k]) * (np.abs(x[k]) >= CRISP) * (even == 1) * (shown[k] == 0)
    weights = np.abs(soft).mean(axis=0)
    return soft, soft + _print_like(hidden), weights[cell]


def _print_like(hidden: np.ndarray) -> np.ndarray:
    """The crisp reads of hidden cells (2, 31) that may be print: both bands crisp, and not in a run of
    more than MAX_RUN equal symbols round the ring (no id prints one: a dark or light horse's body
    over the code reads as such a run)."""
    both = (hidden != 0).all(axis=0)
    symbol = np.where(both, (hidden[0] < 0) * 2 + (hidden[1] < 0), -1)
    keep = both.copy()
    runs = RUNS_ROUND[symbol[RUNS_ROUND][:, 0] >= 0]
    runs = runs[(symbol[runs] == symbol[runs[:, :1]]).all(axis=1)]  # too long a run of one symbol
    keep[runs.ravel()] = False
    return hidden * keep


def _two_levels(levels: np.ndarray) -> tuple[float, float]:
    """The black and white of the visible cells (0 and 1 as the ring and the code's brightest cells
    gave them): the means of the two groups a split at the widest gap between classes makes (Otsu's),
    so a blur that greys the thin ring, or lone cells between others, does not decide; (0, 1) when the
    cells do not show two clear levels. The thin ring greys first: at 2 px of blur on a 25 mm sticker the
    code's black reads about -0.6 of the ring's contrast below it."""
    v = np.sort(levels)
    if len(v) < 6:
        return 0.0, 1.0
    k = np.arange(1, len(v))
    low = np.cumsum(v)[:-1] / k
    high = (v.sum() - np.cumsum(v)[:-1]) / (len(v) - k)
    split = int(np.argmax(k * (len(v) - k) * (high - low) ** 2))
    black, white = float(low[split]), float(high[split])
    both = min(k[split], len(v) - k[split]) >= 2
    if not (both and white - black > 0.5 and -1.0 < black < 0.5 < white < 1.5):
        return 0.0, 1.0
    return black, white


def read_stickers(grey: np.ndarray, calibration: Calibration, stickers: Sequence[Sticker], height_in: float,
                  boxes: Sequence[tuple[int, int, int, int]] | None = None,
                  assigned: Mapping[int, float] | None = None) -> list[StickerRead]:
    """Every sticker of these sizes in the frame (or in `boxes`, image x, y, w, h), one a place (the
    surest where two reads overlap); with `assigned` (id -> base mm) only ids read at their size."""
    view = BoardView(calibration, height_in)
    every: Sequence[tuple[int, int, int, int] | None] = boxes if boxes is not None else [None]
    found: list[StickerRead] = []
    for box in every:
        for candidate in candidates_in(grey, view, stickers, box):
            if not on_a_read(view, candidate, found):
                got = read_candidate(grey, view, candidate, assigned)
                found += [got] if got is not None else []
    return distinct(found)


def on_a_read(view: BoardView, candidate: Candidate, reads: Sequence[StickerRead]) -> bool:
    """Whether the candidate lies on the base of a sticker already read: no other base's centre can (a base
    in contact is a radius farther), so it is that model's own round edges, or the same ring again."""
    centre = view.to_board(np.array([candidate.pixel]))[0]
    return any(math.dist(centre, (r.x, r.y)) * MM_PER_INCH < r.base_mm / 2 for r in reads)


def candidates_in(grey: np.ndarray, view: BoardView, stickers: Sequence[Sticker],
                  box: tuple[int, int, int, int] | None = None) -> list[Candidate]:
    """The candidates of every size in the frame (or `box`), the most votes first."""
    edges = Edges.of(grey, box)
    every = [c for sticker in stickers for c in find_candidates(edges, view, sticker)]
    return sorted(every, key=lambda c: -c.votes)


def read_candidate(grey: np.ndarray, view: BoardView, candidate: Candidate,
                   assigned: Mapping[int, float] | None = None) -> StickerRead | None:
    """The sticker at a candidate, or None; with `assigned` (id -> base mm) only an id read at its size."""
    centre = view.to_board(np.array([candidate.pixel]))[0]
    among = None if assigned is None else ids_at(assigned, candidate.sticker.base_mm)
    got = read_one(grey, view, candidate.sticker, centre, among)
    if got is None or (assigned is not None and assigned.get(got.id) != candidate.sticker.base_mm):
        return None
    return got


def ids_at(assigned: Mapping[int, float], base_mm: float) -> list[int]:
    """The ids `assigned` (id -> base mm) gives stickers of this base size."""
    return [i for i, mm in assigned.items() if mm == base_mm]


def read_one(grey: np.ndarray, view: BoardView, sticker: Sticker, centre: np.ndarray,
             among: Sequence[int] | None = None) -> StickerRead | None:
    """The sticker at about `centre` (board inches), or None; `among`: the ids in use at this size."""
    ring = fit_ring(grey, view, sticker, centre)
    if ring is None:
        return None
    fitted = ring.centre
    code = read_code(grey, view, sticker, ring, among)
    if code is None:
        return None
    marker_id, heading, visible, mismatch, margin = code
    return StickerRead(marker_id, sticker.base_mm, float(fitted[0]), float(fitted[1]), heading, visible,
                       mismatch, margin, view.height_in, ring.outer_px)


def distinct(found: list[StickerRead]) -> list[StickerRead]:
    """One read per place (a candidate found twice, or by two sizes' searches): the surest."""
    out: list[StickerRead] = []
    for r in sorted(found, key=lambda r: (-r.margin, r.mismatch)):
        if all(math.dist((r.x, r.y), (o.x, o.y)) * MM_PER_INCH > 0.5 * RING[0] * r.base_mm for o in out):
            out.append(r)
    return out


def detection_of(read: StickerRead, calibration: Calibration) -> Detection:
    """A sticker read as a Detection: the image corners of its square tile (top-left, top-right,
    bottom-right, bottom-left; the top edge the facing), lying at the sticker's height."""
    half = Sticker(read.base_mm).diameter_mm / 2 / MM_PER_INCH
    h = math.radians(read.heading)
    forward, right = np.array([math.cos(h), math.sin(h)]), np.array([-math.sin(h), math.cos(h)])
    centre = np.array([read.x, read.y])
    board = np.array([centre + half * (forward - right), centre + half * (forward + right),
                      centre + half * (right - forward), centre - half * (forward + right)])
    view = BoardView(calibration, read.height_in)
    corners = view.to_image(board).astype(np.float32)
    middle = view.to_image(centre[None, :])[0]
    square = lens_square(read.outer_px)
    side = RING[1] * Sticker(read.base_mm).radius_mm * math.sqrt(2)
    return Detection(read.id, corners, (float(middle[0]), float(middle[1])), read.base_mm, square,
                     0.0 if square is None else side)


def lens_square(outer_px: np.ndarray) -> np.ndarray | None:
    """(4, 2) image pixels of four points 90 degrees apart on the ring's outer edge, a square of side its
    radius times sqrt(2): the ends of the axes of the ellipse its points fit (a circle seen through a map
    that is affine across the sticker: the axes' ends are the images of four such points); None when the
    ring shows on less than MIN_LENS_ARC of its rays."""
    points = outer_px.astype(np.float32)
    for _ in range(3):  # fit, drop the points off it (a model's edge), again
        if len(points) < MIN_LENS_ARC * RAYS:
            return None
        (cx, cy), (width, height), angle = cv2.fitEllipseDirect(points)
        t = math.radians(angle)
        along = (points - [cx, cy]) @ np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        rho = np.hypot(along[:, 0] / (width / 2), along[:, 1] / (height / 2))  # 1 on the ellipse
        off = np.abs(rho - 1) * (width + height) / 4
        fits = off <= max(LENS_RING_PX, 3.0 * float(np.median(off)))
        if fits.all():
            break
        points = points[fits]
    u = np.array([math.cos(t), math.sin(t)]) * width / 2
    v = np.array([-math.sin(t), math.cos(t)]) * height / 2
    return np.array([[cx, cy]]) + np.array([u, v, -u, -v])
