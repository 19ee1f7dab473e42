"""Base footprints and distances: exact where closed-form, ovals against a dense numeric reference,
and the distances unchanged by swapping, translating or rotating the whole scene."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table.geometry import (
    base_radius,
    centre_distance,
    edge_distance,
    footprint,
    heading_vector,
    inner_radius,
    mm_to_inches,
)
from table.scene import Base, Model

SHAPES = st.sampled_from(["circle", "oval", "rect"])
MM = st.floats(20, 120)
COORD = st.floats(0, 48)
HEADING = st.floats(-179.9, 180)


@st.composite
def models(draw, shape=SHAPES):
    kind = draw(shape)
    width = draw(MM)
    depth = width if kind == "circle" else draw(MM)
    return Model("m", "u", draw(COORD), draw(COORD), draw(HEADING), base=Base(kind, width, depth))


def ellipse_points(model: Model, t: np.ndarray) -> np.ndarray:
    """Points of the true oval outline (depth along the heading, width across)."""
    a, b = mm_to_inches(model.base.depth_mm) / 2, mm_to_inches(model.base.width_mm) / 2
    hx, hy = heading_vector(model.heading)
    x, y = a * np.cos(t), b * np.sin(t)
    return np.stack([model.x + x * hx - y * hy, model.y + x * hy + y * hx], axis=-1)


def oval_gap(a: Model, b: Model) -> float:
    """Closest approach of two disjoint true ovals: a 720x720 parameter grid, refined three times."""
    lo_s, hi_s, lo_t, hi_t = 0.0, 2 * math.pi, 0.0, 2 * math.pi
    for n in (720, 201, 201, 201):
        s, t = np.linspace(lo_s, hi_s, n), np.linspace(lo_t, hi_t, n)
        pa, pb = ellipse_points(a, s), ellipse_points(b, t)
        d = np.hypot(pa[:, None, 0] - pb[None, :, 0], pa[:, None, 1] - pb[None, :, 1])
        i, j = np.unravel_index(np.argmin(d), d.shape)
        step_s, step_t = (hi_s - lo_s) / (n - 1), (hi_t - lo_t) / (n - 1)
        lo_s, hi_s = s[i] - 2 * step_s, s[i] + 2 * step_s
        lo_t, hi_t = t[j] - 2 * step_t, t[j] + 2 * step_t
    return float(d[i, j])


def test_inches_and_radii():
    assert mm_to_inches(25.4) == 1.0
    assert base_radius(Base("circle", 25, 25)) == pytest.approx(0.4921, abs=1e-4)
    assert base_radius(Base("oval", 60, 35)) is None
    assert inner_radius(Base("oval", 60, 35)) == pytest.approx(35 / 25.4 / 2)


def test_footprint_sizes_and_facing():
    oval = Model("o", "u", 10, 10, 90, base=Base("oval", 60, 35))  # facing +y: depth runs along y
    minx, miny, maxx, maxy = footprint(oval).bounds
    assert maxx - minx == pytest.approx(60 / 25.4, abs=1e-3)
    assert maxy - miny == pytest.approx(35 / 25.4, abs=1e-3)
    circle = footprint(Model("c", "u", 0, 0, base=Base("circle", 32, 32)))
    assert circle.area == pytest.approx(math.pi * (16 / 25.4) ** 2, rel=2e-4)  # inscribed 256-gon


def test_circle_edge_distance_is_exact():
    a = Model("a", "u", 10, 10, base=Base("circle", 25, 25))
    b = Model("b", "u", 20, 10, base=Base("circle", 50, 50))
    assert edge_distance(a, b) == pytest.approx(10 - 12.5 / 25.4 - 25 / 25.4, abs=1e-12)
    assert edge_distance(a, Model("c", "u", 10.5, 10)) == 0.0  # overlapping


def test_rect_edge_distance_face_to_face_and_corner():
    square = Base("rect", 25.4, 25.4)  # 1in square
    a = Model("a", "u", 0, 0, base=square)
    assert edge_distance(a, Model("b", "u", 5, 0, base=square)) == pytest.approx(4.0)
    turned = Model("c", "u", 5, 0, 45, base=square)  # corner first: half-diagonal 0.7071
    assert edge_distance(a, turned) == pytest.approx(5 - 0.5 - math.sqrt(0.5), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(models(st.just("oval")), models(st.just("oval")))
def test_oval_edge_distance_within_0_005_of_the_true_ovals(a, b):
    reach = (max(a.base.width_mm, a.base.depth_mm) + max(b.base.width_mm, b.base.depth_mm)) / 2 / 25.4
    if centre_distance(a, b) < reach + 0.05:  # make them disjoint, keep the direction
        # (a direction from centres a hair apart would blow up the scale to infinity: take +x then)
        dx, dy = (b.x - a.x, b.y - a.y) if centre_distance(a, b) > 1e-6 else (1.0, 0.0)
        scale = (reach + 0.05 + (abs(dx) + abs(dy)) % 1.0) / math.hypot(dx, dy)
        b = Model("b", "u", a.x + dx * scale, a.y + dy * scale, b.heading, base=b.base)
    assert edge_distance(a, b) == pytest.approx(oval_gap(a, b), abs=0.005)
    assert abs(edge_distance(a, b) - oval_gap(a, b)) < 0.0005  # what the 256-gon actually achieves


def moved(m: Model, angle: float, dx: float, dy: float) -> Model:
    """The model after turning the whole scene by `angle` degrees (clockwise on the board) and shifting it."""
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    return Model(m.id, m.unit, c * m.x - s * m.y + dx, s * m.x + c * m.y + dy, m.heading + angle, base=m.base)


@settings(max_examples=60, deadline=None)
@given(models(), models(), st.floats(-180, 180), st.floats(-50, 50), st.floats(-50, 50))
def test_distances_symmetric_and_unchanged_by_moving_the_scene(a, b, angle, dx, dy):
    assert centre_distance(a, b) == centre_distance(b, a)
    assert edge_distance(a, b) == pytest.approx(edge_distance(b, a), abs=1e-9)
    a2, b2 = moved(a, angle, dx, dy), moved(b, angle, dx, dy)
    assert centre_distance(a2, b2) == pytest.approx(centre_distance(a, b), abs=1e-9)
    assert edge_distance(a2, b2) == pytest.approx(edge_distance(a, b), abs=1e-6)
