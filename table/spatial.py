"""A spatial index over terrain pieces or model footprints: which shapes does a segment cross?

Built once per scene (shapely STRtree over each shape's `core`), it answers for one segment or a
batch of segments in one call, so a full table's report stays fast.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from table.geometry import GRAZE, Point2, core_many


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
        seg_idx, shape_idx = self._hits(shapely.linestrings(np.asarray(segments, dtype=float)))
        for s, k in sorted(zip(seg_idx.tolist(), shape_idx.tolist(), strict=True)):
            found[s].append(k)
        return found

    def blocked_many(self, segments: np.ndarray) -> np.ndarray:
        """Whether each segment of an (N, 2, 2) array crosses any shape."""
        blocked = np.zeros(len(segments), dtype=bool)
        if len(self) and len(segments):
            seg_idx, _ = self._hits(shapely.linestrings(np.asarray(segments, dtype=float)))
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

