"""The batched geometry helpers give what their one-at-a-time forms give."""

import numpy as np
import shapely
from shapely.geometry import Point, Polygon, box

from table.geometry import (
    GRAZE,
    clip_planes,
    convex_clip,
    core,
    core_many,
    outer_outline,
    outer_planes,
    outer_reach,
    segment_near,
    terrain_polygon,
    terrain_polygons,
)
from table.scene import Base, Model, Terrain


def test_core_many_is_core_of_each():
    shapes = [box(0, 0, 1, 1), Polygon([(0, 0), (1e-5, 0), (0, 1e-5)]),  # too thin: kept whole
              Polygon([(0, 0), (2, 0), (1, 1), (2, 2), (0, 2)])]
    for one, many in zip(shapes, core_many(shapes), strict=True):
        assert core(one).equals_exact(many, 0)
    assert core_many(shapes)[0].bounds == (GRAZE, GRAZE, 1 - GRAZE, 1 - GRAZE)


def test_terrain_polygons_is_terrain_polygon_of_each_even_repaired():
    pieces = [Terrain("square", ((0, 0), (2, 0), (2, 2), (0, 2))),
              Terrain("bow-tie", ((0, 0), (2, 2), (2, 0), (0, 2))),  # self-crossing: repaired
              Terrain("triangle", ((0, 0), (3, 0), (0, 3))),
              Terrain("closed", ((0, 0), (2, 0), (2, 2), (0, 2), (0, 0)))]
    for piece, made in zip(pieces, terrain_polygons(pieces), strict=True):
        one = terrain_polygon(piece)
        assert made.geom_type == one.geom_type and made.equals_exact(one, 0)
    assert terrain_polygons(pieces)[1].geom_type == "MultiPolygon"


def test_segment_near_is_the_distance_to_the_segment():
    segments = np.array([[[0, 0], [10, 0]]] * 4, dtype=float)
    discs = np.array([[5, 1, 1.0], [5, 1.01, 1.0], [11, 0, 1.0], [12, 0, 1.0]])
    assert segment_near(segments, discs).tolist() == [True, False, True, False]


def test_outer_outline_holds_the_base_and_its_planes_and_reach_agree():
    model = Model("m", "u", 10, 20, 30, base=Base("oval", 60, 35))
    outline = outer_outline(model)
    hull = shapely.polygons(outline)
    base = shapely.affinity.rotate(shapely.affinity.scale(Point(10, 20).buffer(0.5, 64), 35 / 25.4, 60 / 25.4),
                                   30, origin=(10, 20))
    assert hull.buffer(1e-9).covers(base)
    normals, offsets = outer_planes(model)
    expected = clip_planes(outline)
    assert np.allclose(normals, expected[0]) and np.allclose(offsets, expected[1])
    assert np.isclose(outer_reach(model), np.hypot(*(outline - [10, 20]).T).max())


def test_convex_clip_with_one_polygon_per_line():
    square = clip_planes(np.array([[0, 0], [2, 0], [2, 2], [0, 2]], float))
    normals, offsets = clip_planes(np.array([[0, 0], [4, 0], [0, 4]], float))
    triangle = (np.vstack([normals, normals[:1]]), np.concatenate([offsets, offsets[:1]]))  # padded: a plane twice
    planes = [square, triangle]
    origins, directions = np.array([[-1, 1], [-1, 1]], float), np.array([[1, 0], [1, 0]], float)
    t_in, t_out = convex_clip((np.stack([p[0] for p in planes]), np.stack([p[1] for p in planes])),
                              origins, directions)
    for k, (normals, offsets) in enumerate(planes):
        one_in, one_out = convex_clip((normals, offsets), origins[k:k + 1], directions[k:k + 1])
        assert np.allclose([t_in[k], t_out[k]], [one_in[0], one_out[0]])
    assert np.allclose(t_in, [1, 1]) and np.allclose(t_out, [3, 4])
