"""The table learns its own lens: radial distortion, focal length and principal point from one frame.

Every printed square the camera sees says something about the lens. A calibration marker's four corners
sit at known board positions; a model marker is a square of known side at a known height whose position
and turn are unknown (three numbers each). Through a distorted lens those squares change size and shape
with their distance from the image centre in a way no homography explains, so one joint least-squares
fit over the lens (focal length, principal point, k1, k2), the camera's pose, the model markers' common
printed scale and every model marker's position and turn recovers the lens from a single frame.

Weak priors (focal length from the camera model or the view, principal point near the image centre,
|k1|, |k2| of a typical lens) keep the fit defined where the frame does not show a parameter; the fit's
covariance, scaled by its own residual, says how well the frame showed the lens (`LensFit.covariance`).
scipy's `least_squares` solves it (OpenCV's `calibrateCamera` cannot: it gives every object its own
six-number pose, which lets each marker's tilt absorb the distortion signal it carries, and it has no
place for priors or for a marker known to lie flat at a known height).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from scipy.optimize import least_squares

from vision.lens import Intrinsics

PRIOR_LOG_FOCAL_SD = 0.5  # the focal length's guess is good to a factor of about 1.6 (1 sd)
MODEL_LOG_FOCAL_SD = 0.05  # a named camera's (`[camera] model`): its lens's published focal length, to 5%
PRIOR_CENTRE_SD = 0.03  # principal point: sd as a share of the image's long side about its centre
PRIOR_K_SD = (0.05, 0.05)  # k1, k2 (normalised): |k1| <= 0.1 for 95% of the lenses this table expects
PRIOR_SCALE_SD = 0.05  # the model markers' printed size: within 5% of the configured one (1 sd)
GUESSED_FOCAL = 0.2  # a focal length less sure than this (1 sd of its log) is a guess
MIN_PX = 0.01  # the corner noise is never taken as less than this (px)
START_PX = 0.1  # the corner noise assumed for the first solve, before the residuals tell
OUTLIER_PX = 0.5  # a model marker whose corners miss by more than this (RMS) and 5 times the median
OUTLIER_SIGMAS = 5.0  # marker's is dropped
FAILED_PX = 5.0  # a fit leaving the corners this far off (RMS) found no lens: the lens is assumed
LENS = 5  # log focal, cx, cy, k1, k2
GLOBAL = 6 + LENS + 1  # pose, lens, the model markers' log scale
_TEMPLATE = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])


@dataclass(frozen=True)
class LensFit:
    """A lens as the board showed it: (log focal length, principal point x and y in pixels, and k1, k2
    as the distortion in pixels at a reference focal length: k1 (f_ref/f)^2, k2 (f_ref/f)^4), their
    covariance, and what they were fitted from. The distortion is kept in the reference's units because
    the board shows it so: a longer focal length at a greater height bends the image the same way."""

    vector: np.ndarray  # (5,)
    covariance: np.ndarray  # (5, 5)
    focal_ref: float
    size: tuple[int, int]  # (width, height) of the frames
    rms_px: float  # RMS of the fitted corners' residuals (pixels)
    markers: int  # model markers in the fit
    corners: int  # calibration-marker corners in the fit
    frames: int = 1

    @property
    def intrinsics(self) -> Intrinsics:
        return self.lens(self.vector)

    def lens(self, v: np.ndarray) -> Intrinsics:
        """The intrinsics of a vector in this fit's units."""
        f = math.exp(v[0])
        r = f / self.focal_ref
        K = np.array([[f, 0.0, v[1]], [0.0, f, v[2]], [0.0, 0.0, 1.0]])
        return Intrinsics(K, np.array([v[3] * r**2, v[4] * r**4, 0.0, 0.0, 0.0]), self.size, self.rms_px)

    def spread(self) -> list[Intrinsics]:
        """Lenses one sd away from the estimate along each principal direction of its covariance, in
        pairs (+, -): the spread of what the board allows."""
        values, vectors = np.linalg.eigh(self.covariance)
        out = []
        for value, vector in zip(values, vectors.T, strict=True):
            step = math.sqrt(max(float(value), 0.0)) * vector
            out += [self.lens(self.vector + sign * step) for sign in (1, -1)]
        return out

    def focal_guessed(self) -> bool:
        """Whether the frame left the focal length (and so the camera's height) a guess."""
        return math.sqrt(self.covariance[0, 0]) > GUESSED_FOCAL

    def sd(self) -> np.ndarray:
        """1 sd of (focal length in pixels, principal point x, y, k1, k2), to first order."""
        f = math.exp(self.vector[0])
        r = f / self.focal_ref
        k1, k2 = self.vector[3] * r**2, self.vector[4] * r**4
        T = np.diag([f, 1.0, 1.0, r**2, r**4])
        T[3, 0], T[4, 0] = 2 * k1, 4 * k2
        return np.sqrt(np.maximum(np.diag(T @ self.covariance @ T.T), 0.0))


def apart(fit: LensFit, other: Intrinsics, pixels: np.ndarray) -> tuple[float, float]:
    """How far (pixels, the most over `pixels`) `other` bends the image away from the fit, after the best
    homography between the two (what a calibration absorbs: focal length, pose); and how far the fit's own
    spread reaches the same way (1 sd)."""
    base = fit.intrinsics.undistort(pixels)

    def distance(lens: Intrinsics) -> float:
        seen = lens.undistort(pixels)
        H, _ = cv2.findHomography(seen, base, 0)
        if H is None:
            return math.inf
        mapped = cv2.perspectiveTransform(seen.reshape(-1, 1, 2), H).reshape(-1, 2)
        return float(np.max(np.linalg.norm(mapped - base, axis=1)))

    spread = [distance(lens) for lens in fit.spread()]
    sd = math.sqrt(sum(((a + b) / 2) ** 2 for a, b in zip(spread[0::2], spread[1::2], strict=True)))
    return distance(other), sd


def prior_lens(image_size: tuple[int, int], focal_px: float, focal_sd: float = PRIOR_LOG_FOCAL_SD) -> LensFit:
    """The lens assumed when the frame cannot show it: no distortion about the image centre, with the
    priors' spread (`focal_sd`: 1 sd of the log of the focal length's guess)."""
    w, h = image_size
    vector = np.array([math.log(focal_px), (w - 1) / 2, (h - 1) / 2, 0.0, 0.0])
    return LensFit(vector, np.diag(_prior_sd(image_size, focal_sd) ** 2), focal_px, image_size, 0.0, 0, 0)


def _prior_sd(image_size: tuple[int, int], focal_sd: float) -> np.ndarray:
    c = PRIOR_CENTRE_SD * max(image_size)
    return np.array([focal_sd, c, c, *PRIOR_K_SD])


def _pose_guess(px: np.ndarray, board: np.ndarray, K: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    obj = np.column_stack([board, np.zeros(len(board))])
    ok, rvec, tvec = cv2.solvePnP(obj, px.reshape(-1, 1, 2), K, None, flags=cv2.SOLVEPNP_ITERATIVE)
    if not ok or float(tvec[2, 0]) <= 0:
        return None
    return rvec.reshape(3), tvec.reshape(3)


def _marker_guesses(pixels: np.ndarray, H: np.ndarray, halves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(x, y, turn) of each model marker through the homography, and its template (half its side
    `halves`, mirrored to the corners' order as seen on the board)."""
    if not len(pixels):
        return np.zeros((0, 3)), np.zeros((0, 4, 2))
    board = cv2.perspectiveTransform(pixels.reshape(-1, 1, 2), H).reshape(-1, 4, 2)
    guesses, templates = [], []
    for quad, half in zip(board, halves, strict=True):
        c = quad.mean(axis=0)
        z = (quad[:, 0] - c[0]) + 1j * (quad[:, 1] - c[1])
        (ax, ay), (bx, by) = quad[1] - quad[0], quad[3] - quad[0]
        area = ax * by - ay * bx
        t = _TEMPLATE * half if area > 0 else _TEMPLATE[:, ::-1] * half
        tz = t[:, 0] + 1j * t[:, 1]
        a = np.vdot(tz, z) / np.vdot(tz, tz)
        guesses.append((c[0], c[1], math.atan2(a.imag, a.real)))
        templates.append(t)
    return np.array(guesses).reshape(-1, 3), np.array(templates).reshape(-1, 4, 2)


class _Problem:
    """Residuals (pixels over the corner noise, and the priors) and their Jacobian.

    The camera's parameters follow the problem's near-degeneracies, so that the solver walks them in
    nearly straight lines (a longer focal length with the camera higher and more tilted shows the same
    board): the tilt over the focal length's ratio to its guess f0, and the roll; the board centre's
    undistorted pixel (over f0); log(f / its depth); log f; the principal point; k1 (f0/f)^2 and
    k2 (f0/f)^4 (the distortion in pixels); then the model markers' log printed scale and (x, y, turn)
    of each model marker.
    """

    def __init__(self, known_px: np.ndarray, known_board: np.ndarray, model_px: np.ndarray,
                 heights: np.ndarray, templates: np.ndarray, prior: np.ndarray, prior_sd: np.ndarray):
        self.known_px, self.known_board = known_px, known_board
        self.model_px, self.heights, self.templates = model_px, heights, templates
        self.prior, self.prior_sd = prior, prior_sd
        self.f0 = math.exp(prior[0])
        self.ref = np.append(known_board.mean(axis=0), 0.0)
        self.sigma_known = self.sigma_model = START_PX  # corner noise (px) of each kind of marker
        self.observed = np.concatenate([known_px.reshape(-1), model_px.reshape(-1)])

    @property
    def m(self) -> int:
        return len(self.model_px)

    def camera(self, p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rvec, tvec, lens vector (log f, cx, cy, k1, k2)) of parameters p."""
        f = math.exp(p[6])
        r = f / self.f0
        rvec = np.array([p[0] * r, p[1] * r, p[2]])
        R, _ = cv2.Rodrigues(rvec)
        depth = f * math.exp(-p[5])
        seen = np.array([(p[3] * self.f0 - p[7]) / f, (p[4] * self.f0 - p[8]) / f, 1.0]) * depth
        return rvec, seen - R @ self.ref, np.array([p[6], p[7], p[8], p[9] * r**2, p[10] * r**4])

    def start(self, rvec: np.ndarray, tvec: np.ndarray, guesses: np.ndarray) -> np.ndarray:
        """Parameters from a camera pose at f0 with no distortion, and the markers' guesses."""
        R, _ = cv2.Rodrigues(rvec)
        seen = R @ self.ref + tvec.reshape(3)
        pixel = seen[:2] / seen[2] * self.f0 + self.prior[1:3]
        return np.concatenate([rvec.reshape(3), pixel / self.f0, [math.log(self.f0 / seen[2])],
                               self.prior[:5], [0.0], guesses.reshape(-1)])

    def _points(self, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Object points (N, 3), and the model markers' corners' offsets from their centres (M, 4, 2)."""
        s = math.exp(p[GLOBAL - 1])
        markers = p[GLOBAL:].reshape(-1, 3)
        c, sn = np.cos(markers[:, 2]), np.sin(markers[:, 2])
        tx, ty = self.templates[..., 0], self.templates[..., 1]
        off = s * np.stack([c[:, None] * tx - sn[:, None] * ty, sn[:, None] * tx + c[:, None] * ty], axis=-1)
        model = markers[:, None, :2] + off
        obj = np.vstack([np.column_stack([self.known_board, np.zeros(len(self.known_board))]),
                         np.column_stack([model.reshape(-1, 2), np.repeat(-self.heights, 4)])])
        return obj, off

    def _project(self, p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        obj, off = self._points(p)
        rvec, tvec, lens = self.camera(p)
        f = math.exp(lens[0])
        K = np.array([[f, 0, lens[1]], [0, f, lens[2]], [0, 0, 1]])
        dist = np.array([lens[3], lens[4], 0.0, 0.0, 0.0])
        px, jac = cv2.projectPoints(obj.reshape(-1, 1, 3), rvec, tvec, K, dist)
        return px.reshape(-1), jac, off

    def residuals(self, p: np.ndarray) -> np.ndarray:
        px, _, _ = self._project(p)
        lens = (np.concatenate([p[6:11], p[GLOBAL - 1:GLOBAL]]) - self.prior) / self.prior_sd
        return np.concatenate([(px - self.observed) / self.sigma_rows(), lens])

    def jacobian(self, p: np.ndarray) -> np.ndarray:
        """The camera's and the lens's columns by forward differences (11 of them, cheap); the model
        markers' analytically, through projectPoints' derivatives by the translation."""
        px, jac, off = self._project(p)
        rvec, _, _ = self.camera(p)
        n_known = len(self.known_board)
        rows = len(self.observed)
        J = np.zeros((rows + LENS + 1, GLOBAL + 3 * self.m))
        for j in range(GLOBAL - 1):
            step = 1e-7 * max(1.0, abs(p[j]))
            q = p.copy()
            q[j] += step
            J[:rows, j] = (self._project(q)[0] - px) / step
        R, _ = cv2.Rodrigues(rvec)
        d_obj = (jac[:, 3:6] @ R)[2 * n_known:].reshape(self.m, 4, 2, 3)  # marker, corner, x/y, X/Y/Z
        d_x, d_y = d_obj[..., 0], d_obj[..., 1]
        scale = d_x * off[..., 0:1] + d_y * off[..., 1:2]
        turn = -d_x * off[..., 1:2] + d_y * off[..., 0:1]
        J[2 * n_known:rows, GLOBAL - 1] = scale.reshape(-1)
        block = np.stack([d_x, d_y, turn], axis=-1).reshape(self.m, 8, 3)
        for i in range(self.m):
            r0 = 2 * n_known + 8 * i
            J[r0:r0 + 8, GLOBAL + 3 * i:GLOBAL + 3 * i + 3] = block[i]
        J[:rows] /= self.sigma_rows()[:, None]
        J[rows:rows + LENS, 6:11] = np.diag(1 / self.prior_sd[:LENS])
        J[rows + LENS, GLOBAL - 1] = 1 / self.prior_sd[LENS]
        return J

    def sigma_rows(self) -> np.ndarray:
        """Each pixel residual's corner noise: the calibration markers' own, the model markers' own (a
        large marker's long edges, bent by the lens, are read less exactly than a small one's)."""
        n = 2 * len(self.known_board)
        rest = len(self.observed) - n
        return np.concatenate([np.full(n, self.sigma_known), np.full(rest, self.sigma_model)])

    def pixel_residuals(self, p: np.ndarray) -> np.ndarray:
        px, _, _ = self._project(p)
        return (px - self.observed).reshape(-1, 2)


def fit_lens(known_px: np.ndarray, known_board: np.ndarray, model_px: Sequence[np.ndarray],
             heights_in: Sequence[float], side_in: float | Sequence[float], image_size: tuple[int, int],
             focal_px: float, focal_sd: float = PRIOR_LOG_FOCAL_SD) -> LensFit | None:
    """The lens from one frame: calibration-marker corners (pixels, known board inches), model markers'
    corners (pixels, (4, 2) each, the marker's order) at their heights, with `side_in` their printed
    side (one for all, or each its own); `focal_px` is the focal length's guess, good to `focal_sd` (1 sd
    of its log). None when the fit fails (too few points, no pose)."""
    known_px = np.asarray(known_px, np.float64).reshape(-1, 2)
    known_board = np.asarray(known_board, np.float64).reshape(-1, 2)
    if len(known_px) < 8:
        return None
    w, h = image_size
    prior = np.array([math.log(focal_px), (w - 1) / 2, (h - 1) / 2, 0.0, 0.0, 0.0])
    prior_sd = np.append(_prior_sd(image_size, focal_sd), PRIOR_SCALE_SD)
    K0 = np.array([[focal_px, 0, prior[1]], [0, focal_px, prior[2]], [0, 0, 1]])
    pose = _pose_guess(known_px, known_board, K0)
    H, _ = cv2.findHomography(known_px, known_board, 0)
    if pose is None or H is None:
        return None
    pixels = np.asarray(model_px, np.float64).reshape(-1, 4, 2)
    heights = np.asarray(heights_in, np.float64).reshape(-1)
    halves = np.broadcast_to(np.asarray(side_in, np.float64), (len(pixels),)) / 2
    keep = np.ones(len(pixels), bool)
    for _ in range(3):  # fit, drop markers whose corners do not fit (a misread, a bent sticker), again
        guesses, templates = _marker_guesses(pixels[keep], H, halves[keep])
        problem = _Problem(known_px, known_board, pixels[keep], heights[keep], templates, prior, prior_sd)
        solved = _solve(problem, problem.start(pose[0], pose[1], guesses))
        if solved is None:
            return None
        p = solved
        residual = problem.pixel_residuals(p)
        per_marker = np.sqrt(np.mean(residual[len(known_px):].reshape(-1, 8) ** 2, axis=1))
        if not len(per_marker):
            break
        bad = per_marker > max(OUTLIER_PX, OUTLIER_SIGMAS * float(np.median(per_marker)))
        if not bad.any():
            break
        keep[np.flatnonzero(keep)[bad]] = False
    J = problem.jacobian(p)
    try:
        covariance = np.linalg.inv(J.T @ J)[6:11, 6:11]
    except np.linalg.LinAlgError:
        return None
    rms = float(np.sqrt(np.mean(np.sum(residual ** 2, axis=1))))
    if rms > FAILED_PX:  # no lens explains these corners: not a fit
        return None
    return LensFit(p[6:11].copy(), covariance, problem.f0, image_size, rms, problem.m, len(known_px))


def _solve(problem: _Problem, p0: np.ndarray) -> np.ndarray | None:
    """Two solves: at the assumed corner noise, then at the noise the first one's residuals show."""
    p = p0
    for _ in range(2):
        try:
            result = least_squares(problem.residuals, p, jac=problem.jacobian, method="lm", x_scale="jac")
        except (ValueError, np.linalg.LinAlgError, cv2.error):
            return None
        p = result.x
        residual = problem.pixel_residuals(p)
        n = len(problem.known_board)
        # degrees of freedom: the calibration markers' corners less the 8 numbers of the board's frame they
        # fix; the model markers' less their own 3 each and the rest of the camera and lens
        known = float(np.sum(residual[:n] ** 2)) / max(1, 2 * n - 8)
        model = float(np.sum(residual[n:] ** 2)) / max(1, 5 * problem.m - (GLOBAL - 8))
        problem.sigma_known = max(MIN_PX, math.sqrt(known))
        problem.sigma_model = max(MIN_PX, math.sqrt(model)) if problem.m else problem.sigma_known
    return p
