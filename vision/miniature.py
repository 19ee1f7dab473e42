"""Painted miniatures for the synthetic camera: figures standing on their bases, ray-traced.

A `Figure` is a simple solid in millimetres about its base's centre: a body (an upright cylinder), a
head (a sphere) and arms or weapons (capsules), each part painted its own shade with painted detail
(boots, a belt, a cloak down one side) and lit from above. Tracing the camera's rays through it,
rather than drawing it flat, leans it outward across its base towards the board edges exactly as a
camera above the board sees it. `figures_for_base` gives typical 28 mm-scale models by base size.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

LIGHT = np.array([0.35, -0.45, 0.82]) / np.linalg.norm([0.35, -0.45, 0.82])  # (x, y, up), towards the lamp
AMBIENT = 0.35
# a typical model's height (mm, base top to head) and body radius by round base size (mm)
SIZES = ((25.0, 30.0, 5.0), (28.5, 32.0, 5.5), (32.0, 34.0, 6.4), (40.0, 45.0, 8.0), (50.0, 55.0, 10.0))


@dataclass(frozen=True)
class Arm:
    """An arm or weapon: a capsule from the body's side at `height` (a share of the figure's height),
    `length_mm` long, pointing `azimuth` degrees clockwise from the facing and `elevation` up."""

    length_mm: float = 8.0
    radius_mm: float = 1.3
    height: float = 0.6
    azimuth: float = 45.0
    elevation: float = 0.0
    albedo: float = 0.5


@dataclass(frozen=True)
class Figure:
    """One painted figure: `height_mm` from the base top to the top of its head, body `radius_mm`,
    feet `offset_mm` (along the facing, to its right) from the base centre; albedos 0 (black) to 1."""

    height_mm: float = 30.0
    radius_mm: float = 5.0
    offset_mm: tuple[float, float] = (0.0, 0.0)
    arms: tuple[Arm, ...] = (Arm(),)
    body: float = 0.5
    head: float = 0.7
    boots: float = 0.2
    cloak: float = 0.4  # the body's back half (away from the facing) is painted this
    belt: float = 0.15


def figures_for_base(base_mm: float, rng: random.Random, height_mm: float | None = None
                     ) -> tuple[Figure, ...]:
    """A typical 28 mm-scale model for a round base (its height and bulk grow with the base), with a
    random pose and paint: one figure, one or two arms or weapons."""
    sizes = np.array(SIZES)
    height = float(np.interp(base_mm, sizes[:, 0], sizes[:, 1])) if height_mm is None else height_mm
    radius = float(np.interp(base_mm, sizes[:, 0], sizes[:, 2]))
    scale = height / 30.0

    def paint() -> float:  # from near black to near white: painted models are anything but flat grey
        return rng.choice((rng.uniform(0.04, 0.15), rng.uniform(0.15, 0.6), rng.uniform(0.6, 0.9)))

    arms = [Arm(8.0 * scale * rng.uniform(0.9, 1.1), 1.3 * scale, rng.uniform(0.45, 0.75),
                rng.uniform(-180, 180), rng.uniform(-40, 40), paint())]
    if rng.random() < 0.5:  # a second arm: a shield, a sword or a gun
        arms.append(Arm(rng.uniform(4.0, 9.0) * scale, rng.uniform(1.0, 2.0) * scale, rng.uniform(0.4, 0.7),
                        rng.uniform(-180, 180), rng.uniform(-30, 30), paint()))
    offset = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0))
    return (Figure(height, radius, offset, tuple(arms), paint(), paint(), paint(), paint(), paint()),)


def trace(figures: tuple[Figure, ...], origin: np.ndarray, directions: np.ndarray, heading: float,
          base_top_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """(hit (N,) bool, grey (N,) 0-255) of rays from `origin` (3,) along `directions` (N, 3), both in
    millimetres about the base centre with axes (board x, board y, up), against the figures standing
    on a base whose top is `base_top_mm` above the board, facing `heading` (degrees, the contract's)."""
    d = directions / np.linalg.norm(directions, axis=1, keepdims=True)
    best = np.full(len(d), np.inf)
    grey = np.zeros(len(d))
    h = math.radians(heading)
    fwd, right = np.array([math.cos(h), math.sin(h)]), np.array([-math.sin(h), math.cos(h)])
    for fig in figures:
        foot = fwd * fig.offset_mm[0] + right * fig.offset_mm[1]
        head_r = 0.12 * fig.height_mm
        top = base_top_mm + fig.height_mm - 1.8 * head_r  # the body's top; the head sits on it
        t, n = _cylinder(origin, d, foot, fig.radius_mm, base_top_mm, top)
        p = origin + np.where(np.isfinite(t), t, 0)[:, None] * d
        up = (p[:, 2] - base_top_mm) / fig.height_mm
        back = ((p[:, :2] - foot) @ fwd) < 0
        paint = np.where(up < 0.18, fig.boots, np.where(back, fig.cloak, fig.body))
        paint = np.where((up > 0.45) & (up < 0.5), fig.belt, paint)
        _keep(best, grey, t, _shade(n, paint))
        centre = np.array([foot[0], foot[1], top + 0.8 * head_r])
        t, n = _sphere(origin, d, centre, head_r)
        _keep(best, grey, t, _shade(n, fig.head))
        for arm in fig.arms:
            a = h + math.radians(arm.azimuth)
            out = np.array([math.cos(a), math.sin(a)])
            start = np.array([*(foot + out * fig.radius_mm * 0.8), base_top_mm + arm.height * fig.height_mm])
            e = math.radians(arm.elevation)
            end = start + arm.length_mm * np.array([out[0] * math.cos(e), out[1] * math.cos(e), math.sin(e)])
            t, n = _capsule(origin, d, start, end, arm.radius_mm)
            _keep(best, grey, t, _shade(n, arm.albedo))
    return np.isfinite(best), grey


def _keep(best: np.ndarray, grey: np.ndarray, t: np.ndarray, shade: np.ndarray) -> None:
    nearer = t < best
    best[nearer] = t[nearer]
    grey[nearer] = shade[nearer]


def _shade(normals: np.ndarray, albedo: float | np.ndarray) -> np.ndarray:
    lit = AMBIENT + (1 - AMBIENT) * np.clip(normals @ LIGHT, 0, None)
    return 255.0 * np.asarray(albedo) * lit


def _cylinder(o: np.ndarray, d: np.ndarray, axis: np.ndarray, r: float, z0: float, z1: float
              ) -> tuple[np.ndarray, np.ndarray]:
    """Nearest hits of an upright cylinder (side and top) at `axis` (x, y), from z0 to z1."""
    oxy = o[:2] - axis
    a = np.sum(d[:, :2] ** 2, axis=1)
    b = 2 * d[:, :2] @ oxy
    c = oxy @ oxy - r * r
    disc = b * b - 4 * a * c
    with np.errstate(invalid="ignore", divide="ignore"):
        t_side = (-b - np.sqrt(disc)) / (2 * a)
    z = o[2] + t_side * d[:, 2]
    side_ok = (disc >= 0) & (t_side > 0) & (z >= z0) & (z <= z1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_top = (z1 - o[2]) / d[:, 2]
    p_top = o[:2] + t_top[:, None] * d[:, :2] - axis
    top_ok = (t_top > 0) & (np.sum(p_top**2, axis=1) <= r * r)
    t = np.where(side_ok, t_side, np.inf)
    t = np.where(top_ok & (t_top < t), t_top, t)
    p = o + np.where(np.isfinite(t), t, 0)[:, None] * d
    n = np.zeros_like(d)
    n[:, :2] = (p[:, :2] - axis) / r
    on_top = top_ok & (t == t_top)
    n[on_top] = (0.0, 0.0, 1.0)
    return t, n


def _sphere(o: np.ndarray, d: np.ndarray, centre: np.ndarray, r: float) -> tuple[np.ndarray, np.ndarray]:
    oc = o - centre
    b = d @ oc
    h = b * b - (oc @ oc - r * r)
    with np.errstate(invalid="ignore"):
        t = np.where(h >= 0, -b - np.sqrt(np.maximum(h, 0)), np.inf)
    t = np.where(t > 0, t, np.inf)
    p = o + np.where(np.isfinite(t), t, 0)[:, None] * d
    return t, (p - centre) / r


def _capsule(o: np.ndarray, d: np.ndarray, a: np.ndarray, b: np.ndarray, r: float
             ) -> tuple[np.ndarray, np.ndarray]:
    """Nearest hits of a capsule (the segment a-b swept by a ball of radius r); d unit vectors."""
    ba, oa = b - a, o - a
    baba, baoa, oaoa = ba @ ba, ba @ oa, oa @ oa
    bard, rdoa = d @ ba, d @ oa
    k2 = baba - bard * bard
    k1 = baba * rdoa - baoa * bard
    k0 = baba * oaoa - baoa * baoa - r * r * baba
    h = k1 * k1 - k2 * k0
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (-k1 - np.sqrt(np.maximum(h, 0))) / k2
    y = baoa + t * bard
    body = (h >= 0) & (y > 0) & (y < baba)
    # the end caps: the ball at whichever end the body test fell beyond
    end = np.where((y <= 0)[:, None], a, b)
    oc = o - end
    bc = np.sum(d * oc, axis=1)
    hc = bc * bc - (np.sum(oc * oc, axis=1) - r * r)
    t_cap = np.where(hc >= 0, -bc - np.sqrt(np.maximum(hc, 0)), np.inf)
    t = np.where(body, t, np.where(h >= 0, t_cap, np.inf))
    t = np.where(t > 0, t, np.inf)
    p = o + np.where(np.isfinite(t), t, 0)[:, None] * d
    s = np.clip(((p - a) @ ba) / baba, 0, 1)
    n = p - (a + s[:, None] * ba)
    return t, n / np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-9)
