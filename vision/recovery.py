"""The recovery search: finding a tracked marker that went missing, in small steps over frames.

A marker the camera looked for and did not find is searched for again with the slow looks (many
threshold windows, then a sharpened copy, then one with the light flattened), one region at a
time, nearest its last place first, spread over frames (each frame the pipeline grants a few
looks within a fixed share of its budget). While its place is known to be covered (a hand: its
surroundings changed too, `RemovalCheck.looks_covered`) nothing is searched; when its place changes
again (the cover lifts, or something moved there) the search starts over from the nearest region.
A search that has tried every region stops: the marker stays occluded (the tracker keeps its place)
until it is seen again or times out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping

import numpy as np

from vision.budget import Deadline
from vision.changes import Box
from vision.detect import Detection, MarkerDetector
from vision.locate import new_detections

REGION_SIDES = 6.0  # a search region: this many marker sides square
RINGS = 2  # regions this many rings out from the one on the marker's last place
Look = tuple[bool, bool, bool]  # dense, sharpen, flatten (MarkerDetector.detect)
LOOKS: tuple[Look, ...] = ((True, False, False), (True, True, False), (True, True, True))


def regions_around(centre: tuple[float, float], side_px: float, shape: tuple[int, ...]) -> list[Box]:
    """Square regions on a grid centred on `centre` (overlapping by a marker and its margin), nearest
    first, clipped to the frame."""
    size = REGION_SIDES * side_px
    step = size - 2 * side_px
    h, w = shape[:2]
    out = []
    for j in range(-RINGS, RINGS + 1):
        for i in range(-RINGS, RINGS + 1):
            cx, cy = centre[0] + i * step, centre[1] + j * step
            x0, y0 = max(0, int(cx - size / 2)), max(0, int(cy - size / 2))
            x1, y1 = min(w, int(math.ceil(cx + size / 2))), min(h, int(math.ceil(cy + size / 2)))
            if x1 - x0 >= side_px and y1 - y0 >= side_px:
                out.append(((x0, y0, x1 - x0, y1 - y0), math.hypot(i, j)))
    return [box for box, _ in sorted(out, key=lambda r: r[1])]


class Recovery:
    """Searches for missing markers a few looks per frame (see the module's docstring)."""

    def __init__(self) -> None:
        self._searches: dict[int, list[tuple[Box, Look]]] = {}  # marker -> looks to take, nearest first
        self._served: dict[int, int] = {}  # marker -> when it last had a look
        self.looks_taken = 0

    def searching(self) -> list[int]:
        return [i for i, todo in self._searches.items() if todo]

    def update(self, missing: Mapping[int, tuple[float, float]], changed_here: Callable[[int], bool],
               tracked: Iterable[int], side_px: float, shape: tuple[int, ...]) -> None:
        """`missing`: markers looked for this frame and not found, by last image place; a search
        (re)starts for one not yet searched for, or whose place changed since. Markers no longer
        tracked are forgotten."""
        keep = set(tracked)
        for marker_id in list(self._searches):
            if marker_id not in keep:
                del self._searches[marker_id]
        for marker_id in list(self._served):
            if marker_id not in keep:
                del self._served[marker_id]
        for marker_id, centre in missing.items():
            if marker_id not in self._searches or changed_here(marker_id):
                regions = regions_around(centre, side_px, shape)
                self._searches[marker_id] = [(region, look) for region in regions for look in LOOKS]

    def found(self, marker_ids: Iterable[int]) -> None:
        for marker_id in marker_ids:
            self._searches.pop(marker_id, None)

    def step(self, grey: np.ndarray, detector: MarkerDetector, deadline: Deadline,
             covered: Callable[[int], bool],
             sticker_look: Callable[[int, np.ndarray, Box], list[Detection] | None] | None = None
             ) -> list[Detection]:
        """Take looks (one per marker in turn, the one served longest ago first; its regions nearest
        its last place first, each with the plain look, then sharpened, then flattened) until the
        deadline; markers whose place is covered wait. A ring sticker (`sticker_look` answers for
        it) takes one look a region, its own. Returns what was found of them."""
        waiting = [i for i in self.searching() if not covered(i)]
        found: list[Detection] = []
        while waiting and deadline.left():
            marker_id = min(waiting, key=lambda i: self._served.get(i, -1))
            self._served[marker_id] = self.looks_taken
            todo = self._searches[marker_id]
            region, (dense, sharpen, flatten) = todo.pop(0)
            self.looks_taken += 1
            own = None if sticker_look is None else sticker_look(marker_id, grey, region)
            if own is not None:
                todo[:] = [t for t in todo if t[0] != region]  # one look a region: the others are alike
                hits = own
            else:
                hits, _ = detector.detect(grey, [region], dense=dense, sharpen=sharpen, flatten=flatten)
            hits = [d for d in hits if d.id == marker_id]
            if hits:
                found += new_detections(hits, found)
                del self._searches[marker_id]
            if marker_id not in self._searches or not todo:
                waiting.remove(marker_id)
        return found
