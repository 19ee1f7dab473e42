"""A spatial index over terrain pieces or model footprints: which shapes does a segment cross?

Built once per scene (shapely STRtree over each shape's `core`), it answers for one segment or a
batch of segments in one call, so a full table's report stays fast.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from table.errors import QueryError
from table.geometry import GRAZE, Point2, core_many, lines_of


class ShapeIndex:
    """Shapes with ids; a segment crosses a shape when it meets the shape's core (see geometry)."""

    def __init__(self, ids: Sequence[str], shapes: Sequence[BaseGeometry], graze: float = GRAZE,
                 cores: Sequence[BaseGeometry] | None = None):
        """`cores` may be given when the caller has them (they must be the shapes shrunk by `graze`)."""
        if len(ids) != len(shapes) or (cores is not None and len(cores) != len(shapes)):
            raise ValueError("one id (and core) per shape")
        self.ids = tuple(ids)
        self.shapes = tuple(shapes)
        self.cores = tuple(cores) if cores is not None else tuple(core_many(shapes, graze))
        self.tree = shapely.STRtree(self.cores)
        self._cores = np.array(self.cores, dtype=object)
        shapely.prepare(self._cores)

    def __len__(self) -> int:
        return len(self.ids)

    def crossing(self, a: Point2, b: Point2) -> list[int]:
        """Indices of the shapes the segment a-b crosses, in index order."""
        return self.crossing_many(np.array([[a, b]], dtype=float))[0]

    def crossing_many(self, segments: np.ndarray) -> list[list[int]]:
        """For each segment of an (N, 2, 2) array, the indices of the shapes it crosses."""
        found: list[list[int]] = [[] for _ in range(len(segments))]
        if not len(self) or not len(segments):
            return found
        seg_idx, shape_idx = self._hits(lines_of(np.asarray(segments, dtype=np.float64)))
        for s, k in sorted(zip(seg_idx.tolist(), shape_idx.tolist(), strict=True)):
            found[s].append(k)
        return found

    def blocked_many(self, segments: np.ndarray) -> np.ndarray:
        """Whether each segment of an (N, 2, 2) array crosses any shape."""
        blocked = np.zeros(len(segments), dtype=bool)
        if len(self) and len(segments):
            seg_idx, _ = self._hits(lines_of(np.asarray(segments, dtype=np.float64)))
            blocked[seg_idx] = True
        return blocked

    def _hits(self, geometries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(input index, shape index) of every input geometry meeting a core: boxes from the tree,
        then the exact test with the (prepared) cores."""
        geo_idx, shape_idx = self.tree.query(geometries)
        if len(geo_idx):
            keep = shapely.intersects(self._cores[shape_idx], geometries[geo_idx])
            geo_idx, shape_idx = geo_idx[keep], shape_idx[keep]
        return geo_idx, shape_idx

    def near(self, geometry: BaseGeometry) -> list[int]:
        """Indices of the shapes whose core meets `geometry`, in index order."""
        if not len(self):
            return []
        return sorted(set(self._hits(np.array([geometry], dtype=object))[1].tolist()))

    def near_any(self, geometries: Sequence[BaseGeometry] | np.ndarray) -> list[int]:
        """Indices of the shapes whose core meets any of `geometries`, in index order."""
        if not len(self) or not len(geometries):
            return []
        _, hits = self._hits(np.asarray(geometries, dtype=object))
        return sorted(set(hits.tolist()))

    def containing_many(self, points: np.ndarray) -> list[list[int]]:
        """`containing` for each point of an (N, 2) array."""
        found: list[list[int]] = [[] for _ in range(len(points))]
        if not len(self) or not len(points):
            return found
        xy = np.asarray(points, dtype=float).reshape(-1, 2)
        x, y = xy[:, 0], xy[:, 1]
        boxes = shapely.box(x - 2 * GRAZE, y - 2 * GRAZE, x + 2 * GRAZE, y + 2 * GRAZE)
        p_idx, k_idx = self.tree.query(boxes)
        keep = shapely.covers(np.array(self.shapes, dtype=object)[k_idx], shapely.points(xy[p_idx]))
        for p, k in sorted(zip(p_idx[keep].tolist(), k_idx[keep].tolist(), strict=True)):
            found[p].append(k)
        return found

    def containing(self, point: Point2) -> list[int]:
        """Indices of the shapes that hold the point (outline included)."""
        if not len(self):
            return []
        probe = shapely.points(point)
        x, y = point
        hits = self.tree.query(shapely.box(x - 2 * GRAZE, y - 2 * GRAZE, x + 2 * GRAZE, y + 2 * GRAZE))
        return sorted(int(k) for k in hits if self.shapes[k].covers(probe))



def joined_cores(shapes: Sequence[BaseGeometry], graze: float = GRAZE, close_corners: bool = True
                 ) -> list[BaseGeometry]:
    """Each shape's core (see geometry), grown so that shapes that touch or overlap block as one outline.

    Shapes within 2 * `graze` of each other are joined: the cluster's union (each shape grown by
    `graze`, so a seam narrower than that closes) shrunk by 2 * `graze` is its core, and each shape's
    core gains the part of it near the shape that no other shape's core holds (the seam). A line
    along a seam therefore crosses the shapes on both sides of it; a line grazing the union's outside
    crosses none. With `close_corners`, shapes touching only at a point are bridged there (the convex
    hull of both within `BRIDGE` of the point), so a line through that point crosses them too.
    """
    cores = core_many(shapes, graze)
    for k, seam in seams(shapes, cores, graze, close_corners).items():
        cores[k] = shapely.union(cores[k], seam)
    return cores


def seams(shapes: Sequence[BaseGeometry], cores: Sequence[BaseGeometry], graze: float = GRAZE,
          close_corners: bool = True) -> dict[int, BaseGeometry]:
    """What `joined_cores` adds to each shape's own core (by index; only shapes that touch another):
    the seam next to it, where its cluster's joined core is held by no shape's own core."""
    found: dict[int, BaseGeometry] = {}
    if len(shapes) < 2:
        return found
    items = np.array(shapes, dtype=object)
    left, right = shapely.STRtree(items).query(items, predicate="dwithin", distance=2 * graze)
    pairs = [(int(i), int(j)) for i, j in zip(left.tolist(), right.tolist(), strict=True) if i < j]
    if not pairs:
        return found
    parent = list(range(len(shapes)))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for i, j in pairs:
        parent[root(i)] = root(j)
    clusters: dict[int, list[int]] = {}
    for k in range(len(shapes)):
        clusters.setdefault(root(k), []).append(k)
    for members in clusters.values():
        if len(members) < 2:
            continue
        parts: list[BaseGeometry] = [shapely.buffer(shapes[k], graze, join_style="mitre") for k in members]
        if close_corners:
            parts += [_bridge(shapes[i], shapes[j]) for i, j in pairs if root(i) == root(members[0])]
        joined = shapely.buffer(shapely.union_all(parts), -2 * graze, join_style="mitre")
        held = shapely.union_all([cores[k] for k in members])
        seam = shapely.difference(joined, held)
        for k in members:
            near = shapely.intersection(seam, shapely.buffer(shapes[k], 2 * graze, join_style="mitre"))
            if not near.is_empty:
                found[k] = near
    return found


def corner_joint(value: object) -> bool:
    """The `corner_joint` ruling (`closed` or `open`) as `joined_cores`' close_corners."""
    if value not in ("closed", "open"):
        raise QueryError(f"ruling corner_joint: expected one of closed, open, got {value!r}")
    return value == "closed"


BRIDGE = 10 * GRAZE  # inches round a point where two shapes touch that `joined_cores` fills


def _bridge(a: BaseGeometry, b: BaseGeometry) -> BaseGeometry:
    """Where a and b touch at a point (or nearly): the hull of both within BRIDGE of it; else nothing."""
    meet = shapely.intersection(a, b)
    if shapely.area(meet) > 0 or shapely.length(meet) > 2 * GRAZE:
        return shapely.Polygon()  # they share an edge or an area: the union joins them already
    point = shapely.line_interpolate_point(shapely.shortest_line(a, b), 0.5, normalized=True)
    disc = shapely.buffer(point, BRIDGE)
    return shapely.convex_hull(shapely.union(shapely.intersection(a, disc), shapely.intersection(b, disc)))
