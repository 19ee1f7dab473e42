"""Lifted or covered? Telling a removed marker from one under a hand, on the change detector's small frame.

When a marker stops being seen where the camera looked, either something covers it (a hand, an arm:
far larger than a marker, so the marker's surroundings change too) or it was lifted (the
surroundings look as they did when the marker was last seen; only the marker's own place changed).
Each marker's surroundings are remembered, shrunk, whenever it is seen in a still part of the frame.
"""

from __future__ import annotations

import numpy as np

from vision.changes import patch

PATCH_SIDES = 3.0  # remembered square: this many marker sides each side of its centre
INNER_SIDES = 1.0  # the marker, its margin and a small base: within this many sides of its centre
OUTER_SIDES = 1.6  # its surroundings: beyond this many sides
CHANGE_LEVEL = 14  # grey levels (as the change detector)
INNER_CHANGED = 0.1  # share of the marker's place that must have changed ...
OUTER_CHANGED = 0.05  # ... and of its surroundings that may have (noise, a neighbour's edge)
COVERED = 0.3  # share of its surroundings changed along with its place: something large covers it


class RemovalCheck:
    def __init__(self) -> None:
        self._refs: dict[int, np.ndarray] = {}

    def remember(self, marker_id: int, small: np.ndarray, scale: tuple[float, float],
                 centre: tuple[float, float], side_px: float) -> None:
        """The marker's surroundings now (call when it is seen and its place is still)."""
        ref = patch(small, scale, centre, PATCH_SIDES * side_px)
        if ref is not None:
            self._refs[marker_id] = ref

    def forget(self, marker_id: int) -> None:
        self._refs.pop(marker_id, None)

    def looks_covered(self, marker_id: int, small: np.ndarray, scale: tuple[float, float],
                      centre: tuple[float, float], side_px: float) -> bool:
        """True when something large lies over the marker (a hand, an arm): its place changed and
        so did much of its surroundings; False otherwise, or when nothing is remembered."""
        inner, outer = self._changed(marker_id, small, scale, centre, side_px)
        return bool(inner is not None and inner.mean() >= INNER_CHANGED and outer.mean() >= COVERED)

    def looks_lifted(self, marker_id: int, small: np.ndarray, scale: tuple[float, float],
                     centre: tuple[float, float], side_px: float) -> bool:
        """True when the marker's place changed but its surroundings did not (it was taken away);
        False when something larger covers it, or nothing is remembered."""
        inner, outer = self._changed(marker_id, small, scale, centre, side_px)
        return bool(inner is not None and inner.mean() >= INNER_CHANGED and outer.mean() <= OUTER_CHANGED)

    def _changed(self, marker_id: int, small: np.ndarray, scale: tuple[float, float],
                 centre: tuple[float, float], side_px: float) -> tuple[np.ndarray | None, np.ndarray]:
        """Which pixels of the marker's place (inner) and of its surroundings (outer) changed since it
        was remembered; (None, empty) when nothing is remembered or the place is off the frame."""
        ref = self._refs.get(marker_id)
        now = patch(small, scale, centre, PATCH_SIDES * side_px)
        if ref is None or now is None or now.shape != ref.shape:
            return None, np.zeros(0, bool)
        inner, outer = self._rings(now.shape[0] // 2, scale, side_px)
        changed = np.abs(now.astype(np.int16) - ref.astype(np.int16)) > CHANGE_LEVEL
        return changed[inner], changed[outer]

    @staticmethod
    def _rings(r: int, scale: tuple[float, float], side_px: float) -> tuple[np.ndarray, np.ndarray]:
        """Masks of a patch of half-size `r`: the marker's place and its surroundings."""
        y, x = np.mgrid[-r:r + 1, -r:r + 1]
        dist = np.hypot(x, y) * scale[0] / side_px  # in marker sides
        return dist <= INNER_SIDES, dist >= OUTER_SIDES
