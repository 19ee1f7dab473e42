"""What a model standing on its base hides of the ring sticker under it, seen from a camera above.

A model is a few solids in millimetres about its base's centre, x along its facing, y across it, z up
from the sticker: `Post`s (upright cylinders: a body, a rider, a leg) and `Block`s (boxes lying along
the facing: a horse's body, its neck). A point of the sticker is hidden when the camera's ray from it
passes through a solid. Two models: a figure on foot (`on_foot`: one post as wide as its body, what
the renders' typical models are) and a rider on a horse standing along an oval (`cavalry`: the outside
render's horse, tests/vision/outside_render.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

HORSE_WIDTH_MM = 11.0  # a horse's body, flank to flank
RIDER_HEIGHT_MM = 50.0  # the top of a rider's head above the base


@dataclass(frozen=True)
class Post:
    """An upright cylinder of `radius` at (x, y), from `bottom` to `top` above the sticker."""

    x: float
    y: float
    radius: float
    bottom: float
    top: float


@dataclass(frozen=True)
class Barrel:
    """A cylinder of `radius` lying along the facing from `back` to `front`, its axis `height` up."""

    back: float
    front: float
    radius: float
    height: float


@dataclass(frozen=True)
class Block:
    """A box from `back` to `front` along the facing, `half_width` each side of it, from `bottom` to `top`."""

    back: float
    front: float
    half_width: float
    bottom: float
    top: float


Model = tuple[Post | Barrel | Block, ...]


def on_foot(height_mm: float, width_mm: float) -> Model:
    """A figure on foot: an upright cylinder as wide as its body, the base's top to its head."""
    return (Post(0.0, 0.0, width_mm / 2, 0.0, height_mm),)


def cavalry(height_mm: float = RIDER_HEIGHT_MM, width_mm: float = HORSE_WIDTH_MM) -> Model:
    """A rider `height_mm` tall on a horse `width_mm` thick standing along the facing: the horse's body
    40 mm long, its belly 10 mm above the base, its legs, its neck and head raised in front; the rider's
    body on its back."""
    spine = 10.0 + width_mm / 2
    legs = tuple(Post(along, across, 1.4, 0.0, 12.0) for along in (-15.0, 14.0) for across in (-3.0, 3.0))
    return (Barrel(-20.0, 20.0, width_mm / 2, spine), *legs,
            Block(15.0, 30.0, 3.2, spine, spine + 18.0),  # the neck and head
            Post(0.0, 0.0, 4.0, spine + 5.0, max(height_mm, spine + 5.0)))


def hidden(model: Model, points: np.ndarray, camera: np.ndarray) -> np.ndarray:
    """(N,) bool: which sticker points (N, 2) the model hides from a camera at `camera` (x, y, z) mm, one
    for all or (N, 3) one a point."""
    camera = np.broadcast_to(camera, (len(points), 3))
    out = np.zeros(len(points), bool)
    toward = (camera[:, :2] - points) / camera[:, 2:]  # the ray's drift in x, y a millimetre up
    for part in model:
        if isinstance(part, Barrel):
            out |= _ray_through_barrel(points, camera, part)
            continue
        a = points + part.bottom * toward  # the ray where it enters the part's heights and leaves them
        b = points + part.top * toward
        if isinstance(part, Post):
            out |= _segment_near(a, b, np.array([part.x, part.y])) <= part.radius
        else:
            out |= _segment_crosses_box(a, b, (part.back, -part.half_width), (part.front, part.half_width))
    return out


def _ray_through_barrel(points: np.ndarray, camera: np.ndarray, barrel: Barrel) -> np.ndarray:
    """Whether the rays from sticker points (N, 2) to the cameras (N, 3) pass through a barrel: where the ray,
    seen end on along the facing, is within the barrel's radius of its axis, is it between its ends?"""
    # the ray at t (0 at the sticker, 1 at the camera): y = py + t (cy - py), z = t cz
    py, dy, dz = points[:, 1], camera[:, 1] - points[:, 1], camera[:, 2]
    a = dy * dy + dz * dz
    b = py * dy - barrel.height * dz
    c = py * py + barrel.height ** 2 - barrel.radius ** 2
    disc = b * b - a * c
    root = np.sqrt(np.maximum(disc, 0.0))
    t0, t1 = np.clip((-b - root) / a, 0, 1), np.clip((-b + root) / a, 0, 1)
    x0 = points[:, 0] + t0 * (camera[:, 0] - points[:, 0])
    x1 = points[:, 0] + t1 * (camera[:, 0] - points[:, 0])
    return (disc > 0) & (t1 > t0) & (np.maximum(x0, x1) >= barrel.back) & (np.minimum(x0, x1) <= barrel.front)


def _segment_near(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Distances from the point c to the segments a-b (N, 2)."""
    ux, uy = b[:, 0] - a[:, 0], b[:, 1] - a[:, 1]
    wx, wy = c[0] - a[:, 0], c[1] - a[:, 1]
    t = np.clip((wx * ux + wy * uy) / np.maximum(ux * ux + uy * uy, 1e-12), 0.0, 1.0)
    return np.hypot(wx - t * ux, wy - t * uy)


def _segment_crosses_box(a: np.ndarray, b: np.ndarray, lo: tuple[float, float], hi: tuple[float, float]
                         ) -> np.ndarray:
    """Whether the segments a-b (N, 2) pass through the box lo-hi (Liang-Barsky clipping)."""
    start, end = np.zeros(len(a)), np.ones(len(a))
    d = b - a
    for axis in (0, 1):
        for bound, sign in ((lo[axis], -1.0), (hi[axis], 1.0)):
            p = sign * d[:, axis]
            q = sign * (bound - a[:, axis])
            with np.errstate(divide="ignore", invalid="ignore"):
                t = q / p
            outside = (p == 0) & (q < 0)
            start = np.where(p < 0, np.maximum(start, t), start)
            end = np.where(p > 0, np.minimum(end, t), end)
            end = np.where(outside, -1.0, end)
    return start <= end


def ring_points(radius_mm: float, angles: int) -> np.ndarray:
    """(angles, 2) points round a circle of `radius_mm` about the base's centre."""
    phi = np.linspace(0, 2 * math.pi, angles, endpoint=False)
    return radius_mm * np.column_stack([np.cos(phi), np.sin(phi)])
