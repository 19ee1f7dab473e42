"""Sub-pixel marker corners from the edges: fit a line to each side of the black square, intersect.

OpenCV's corner refinements look at a few pixels around each corner (a blurred outer corner of a
square is a poor target: 0.4 px RMS on renders). Each side of a marker, by contrast, is a long
straight black-to-white step: locating the step at many points along it (gradient centroid across the
edge) and fitting a line gives corners to a few hundredths of a pixel, as AprilTag's quad fit does.
"""

from __future__ import annotations

import cv2
import numpy as np

SAMPLES = 20  # points along each side
SPAN = (0.12, 0.88)  # part of the side used (keeps clear of the corners)
STEPS = 17  # points across each edge
ALONG = np.linspace(*SPAN, SAMPLES)


def refine_corners(grey: np.ndarray, quads: np.ndarray, cell_fraction: float = 0.125,
                   iterations: int = 2, light_inside: bool = False) -> np.ndarray:
    """Refine (M, 4, 2) corner estimates of dark squares on a light surround (`light_inside`: light
    squares in a dark ring); returns (M, 4, 2) float32.

    cell_fraction is one border cell's share of the side: the profile across an edge stays within the
    black border and the white margin around the marker.
    """
    quads = np.asarray(quads, np.float64).reshape(-1, 4, 2).copy()
    if len(quads) == 0:
        return quads.astype(np.float32)
    for _ in range(iterations):
        quads = _refine_once(grey, quads, cell_fraction, -1.0 if light_inside else 1.0)
    return quads.astype(np.float32)


def _refine_once(image: np.ndarray, quads: np.ndarray, cell_fraction: float, polarity: float) -> np.ndarray:
    m = len(quads)
    a = quads
    side = np.roll(quads, -1, axis=1) - a  # side i runs from corner i to corner i + 1
    length = np.sqrt((side * side).sum(axis=2, keepdims=True))  # (M, 4, 1)
    tangent = side / np.maximum(length, 1e-9)
    normal = np.stack([tangent[..., 1], -tangent[..., 0]], axis=-1)
    mid = a + side / 2 - quads.mean(axis=1, keepdims=True)
    outward = np.sign((mid * normal).sum(axis=2, keepdims=True))
    normal = normal * np.where(outward == 0, 1, outward)
    # half-width of the profile across the edge: most of a cell, at least 1.5 px, at most 4 px
    half = np.clip(length[..., 0].mean(axis=1) * cell_fraction * 0.8, 1.5, 4.0)  # (M,)
    offsets = np.linspace(-1.0, 1.0, STEPS)[:, None] * half[None, :]  # (K, M)
    along = a[:, :, None, :] + ALONG[None, None, :, None] * side[:, :, None, :]  # (M, 4, N, 2)
    # K points across the edge at each of N points along each side, K first so that the sums across an
    # edge run over whole rows: x and y maps (K * M, 4 * N) (remap wants under 32767 rows)
    across = offsets[:, :, None, None, None] * normal[None, :, :, None, :]  # (K, M, 4, 1, 2)
    mapx, mapy = ((along[None, ..., i] + across[..., i]).astype(np.float32).reshape(-1, 4 * SAMPLES)
                  for i in (0, 1))
    # sampling the 8-bit image rounds each value by at most half a level: a few thousandths of a pixel
    values = cv2.remap(image, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    profile = values.reshape(STEPS, m, 4, SAMPLES).astype(np.float32)
    grad = profile[1:] - profile[:-1] if polarity > 0 else profile[:-1] - profile[1:]  # dark to light: > 0
    # keep the step itself: noise elsewhere in the window would pull the centroid to the middle
    grad -= 0.25 * grad.max(axis=0)
    np.maximum(grad, 0, out=grad)
    mids = ((offsets[1:] + offsets[:-1]) / 2).astype(np.float32)  # (K-1, M)
    weight = grad.sum(axis=0)  # (M, 4, N)
    with np.errstate(invalid="ignore", divide="ignore"):
        shift = (grad * mids[:, :, None, None]).sum(axis=0) / weight
    # lines through the edge points, weighted by edge strength (total least squares)
    ok_pt = np.isfinite(shift)
    w = np.where(ok_pt, weight, 0.0)
    edge_pts = along + np.where(ok_pt, shift, 0.0)[..., None] * normal[:, :, None, :]
    wsum = w.sum(axis=2)
    ok = wsum > 0
    mean = (edge_pts * w[..., None]).sum(axis=2) / np.maximum(wsum, 1e-9)[..., None]  # (M, 4, 2)
    d = edge_pts - mean[:, :, None, :]
    sxx, syy, sxy = ((w * d[..., 0] * d[..., 0]).sum(axis=2), (w * d[..., 1] * d[..., 1]).sum(axis=2),
                     (w * d[..., 0] * d[..., 1]).sum(axis=2))
    angle = 0.5 * np.arctan2(2 * sxy, sxx - syy)  # the principal axis of the weighted points
    direction = np.stack([np.cos(angle), np.sin(angle)], axis=-1)
    # corner i = intersection of side i - 1 and side i
    p1, d1 = np.roll(mean, 1, axis=1), np.roll(direction, 1, axis=1)
    p2, d2 = mean, direction
    cross = d1[..., 0] * d2[..., 1] - d1[..., 1] * d2[..., 0]
    diff = p2 - p1
    s = (diff[..., 0] * d2[..., 1] - diff[..., 1] * d2[..., 0]) / np.where(np.abs(cross) < 1e-9, 1, cross)
    corners = p1 + s[..., None] * d1
    good = ok & np.roll(ok, 1, axis=1) & (np.abs(cross) > 0.2)
    moved = np.sqrt(((corners - quads) ** 2).sum(axis=2))
    good &= moved < 1.5 * half[:, None] + 1.0  # a step, not a jump to some other edge
    all_good = good.all(axis=1)
    return np.where(all_good[:, None, None], corners, quads)
