"""Where a frame changed since the last one: boxes (full-resolution pixels) worth detecting again.

Frames are compared at a quarter of their size, after a light blur, so sensor noise does not count
as change; each changed blob grows by a margin (a marker's size) so a marker at its edge is whole.
"""

from __future__ import annotations

import cv2
import numpy as np

Box = tuple[int, int, int, int]  # x, y, w, h


class ChangeDetector:
    def __init__(self, scale: int = 4, threshold: int = 14, margin_px: int = 48):
        self.scale = scale
        self.threshold = threshold
        self.margin_px = margin_px
        self._previous: np.ndarray | None = None
        self.small: np.ndarray | None = None  # the latest frame, shrunk and blurred
        self.small_scale = (float(scale), float(scale))  # full-resolution pixels per small pixel (x, y)

    def update(self, grey: np.ndarray, lores: np.ndarray | None = None) -> list[Box] | None:
        """Boxes that changed since the previous frame (None for the first frame or a new size);
        `lores` is a small copy of the frame when the camera gives one (else the frame is shrunk)."""
        h, w = grey.shape[:2]
        if lores is None:
            lores = cv2.resize(grey, (w // self.scale, h // self.scale), interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(lores, (3, 3), 0)
        sx, sy = w / small.shape[1], h / small.shape[0]
        self.small, self.small_scale = small, (sx, sy)
        previous, self._previous = self._previous, small
        if previous is None or previous.shape != small.shape:
            return None
        diff = cv2.absdiff(small, previous)
        _, mask = cv2.threshold(diff, self.threshold, 255, cv2.THRESH_BINARY)
        grow = max(1, int(self.margin_px / sx))
        mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_RECT, (2 * grow + 1, 2 * grow + 1)))
        count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        return [(int(x * sx), int(y * sy), int(np.ceil(bw * sx)), int(np.ceil(bh * sy)))
                for x, y, bw, bh, _ in stats[1:count]]


def patch(small: np.ndarray, scale: tuple[float, float], centre: tuple[float, float], half_px: float
          ) -> np.ndarray | None:
    """The square of `small` around a full-resolution point, `half_px` full-resolution pixels each
    side; None when it is not wholly inside the frame."""
    cx, cy = centre[0] / scale[0], centre[1] / scale[1]
    r = max(3, int(round(half_px / scale[0])))
    x0, y0 = int(round(cx)) - r, int(round(cy)) - r
    if x0 < 0 or y0 < 0 or x0 + 2 * r + 1 > small.shape[1] or y0 + 2 * r + 1 > small.shape[0]:
        return None
    return small[y0:y0 + 2 * r + 1, x0:x0 + 2 * r + 1].copy()


def box_around(centre: tuple[float, float], half: float) -> Box:
    x, y = centre
    return (int(x - half), int(y - half), int(2 * half + 1), int(2 * half + 1))


def merge_boxes(boxes: list[Box], shape: tuple[int, ...], align: int = 32) -> list[Box]:
    """Clip to the image, grow to multiples of `align` (few distinct sizes), merge overlapping boxes."""
    h, w = shape[:2]
    rects = []
    for x, y, bw, bh in boxes:
        x0, y0 = max(0, x), max(0, y)
        x1, y1 = min(w, x + bw), min(h, y + bh)
        if x1 <= x0 or y1 <= y0:
            continue
        x0, y0 = x0 // align * align, y0 // align * align
        x1, y1 = min(w, -(-x1 // align) * align), min(h, -(-y1 // align) * align)
        rects.append([x0, y0, x1, y1])
    merged = True
    while merged:
        merged = False
        for i in range(len(rects)):
            for j in range(i + 1, len(rects)):
                a, b = rects[i], rects[j]
                if a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]:
                    rects[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]
                    del rects[j]
                    merged = True
                    break
            if merged:
                break
    return [(x0, y0, x1 - x0, y1 - y0) for x0, y0, x1, y1 in rects]


def covered(point: np.ndarray | tuple[float, float], boxes: list[Box]) -> bool:
    px, py = float(point[0]), float(point[1])
    return any(x <= px < x + w and y <= py < y + h for x, y, w, h in boxes)
