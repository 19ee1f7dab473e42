"""Change detection: which boxes of a frame to search again."""

from __future__ import annotations

import cv2
import numpy as np

from vision.changes import ChangeDetector, covered, merge_boxes


def test_only_the_changed_region_is_reported_from_the_frame_or_its_lores_copy():
    rng = np.random.default_rng(0)
    before = (120 + rng.normal(0, 2, (400, 600))).clip(0, 255).astype(np.uint8)
    after = before.copy()
    cv2.rectangle(after, (300, 100), (340, 140), 30, -1)  # a model put down
    def shrink(image):
        return cv2.resize(image, (150, 100), interpolation=cv2.INTER_AREA)

    for small in (lambda image: None, shrink):
        detector = ChangeDetector(margin_px=16)
        assert detector.update(before, small(before)) is None  # first frame: everything is new
        assert detector.update(before, small(before)) == []  # sensor noise is not change
        boxes = detector.update(after, small(after))
        assert len(boxes) == 1
        assert covered((320, 120), boxes) and not covered((100, 300), boxes)
        x, y, w, h = boxes[0]
        assert w * h < 0.05 * 400 * 600


def test_boxes_merge_and_stay_inside_the_frame():
    boxes = merge_boxes([(-10, -10, 50, 50), (30, 30, 40, 40), (500, 300, 200, 200)], (400, 600))
    assert boxes == [(0, 0, 96, 96), (480, 288, 120, 112)]
