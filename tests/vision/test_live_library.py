"""The live table's budgeted passes read markers as `detect` does (issue 21): the pieces of changed
regions and of the sweep (vision/pieces.py) and the recovery search's looks (vision/recovery.py) go
through the AprilTag library for the families it knows, their corners fitted from the edges. Shown on
a real photo (a development one) against its reference corners, with a marker OpenCV never outlines,
and on drawn markers against their printed corners."""

from __future__ import annotations

import cv2
import numpy as np

from tests.vision.test_families import marker_image
from tests.vision.test_real_photos import PHOTOS, require_photos
from vision import apriltags
from vision.budget import Deadline, split_box
from vision.detect import DetectorSettings, detect_markers
from vision.images import read_image
from vision.photoset import Photo, RefMarker, corner_errors, load_set
from vision.pieces import PieceDetector
from vision.recovery import Recovery


def clipboard() -> tuple[Photo, np.ndarray, RefMarker]:
    """clipboard03.png (30 tags of 10-17 px) and its tag 9, which OpenCV never outlines
    (tests/vision/test_real_photos.py shows that)."""
    require_photos()
    photo = next(p for p in load_set(PHOTOS / "C_swatbotics_clipboard") if p.path.name == "clipboard03.png")
    return photo, read_image(photo.path), next(m for m in photo.markers if m.id == 9)


def matched(found: list, ref: RefMarker) -> list:
    return [d for d in found if d.id == ref.id and np.linalg.norm(np.array(d.centre) - ref.centre) < ref.side / 4]


def test_pieces_of_the_frame_find_what_detect_finds_with_corners_on_the_reference():
    photo, image, tag9 = clipboard()
    h, w = image.shape
    pieces = split_box((0, 0, w, h), 110, 40)  # overlapping by more than the biggest tag
    assert len(pieces) >= 9
    found, _, searched = PieceDetector(DetectorSettings(photo.dictionary, min_side_px=8.0)).detect_pieces(
        image, pieces, Deadline(60.0))
    assert searched == pieces
    assert sorted(d.id for d in found) == sorted(d.id for d in detect_markers(image, photo.dictionary))
    assert len(matched(found, tag9)) == 1
    errors = []
    for ref in photo.markers:
        got = matched(found, ref)
        if got:
            errors += list(corner_errors(got[0].corners, ref.corners))
    assert len(errors) >= 4 * (len(photo.markers) - 1)  # one tag of 10 px is lost, as by detect
    assert max(errors) < 1.0 and np.median(errors) < 0.4


def test_the_recovery_search_finds_a_marker_opencv_never_outlines():
    photo, image, tag9 = clipboard()
    recovery = Recovery()
    start = (float(tag9.centre[0]) + 2 * tag9.side, float(tag9.centre[1]))  # it was last seen nearby
    recovery.update({9: start}, lambda _: False, [9], tag9.side, image.shape)
    detector = PieceDetector(DetectorSettings(photo.dictionary, min_side_px=8.0))
    found = recovery.step(image, detector, Deadline(60.0), lambda _: False)
    got = matched(found, tag9)
    assert len(got) == 1 and corner_errors(got[0].corners, tag9.corners).max() < 1.0
    assert recovery.searching() == []


def test_pieces_fit_small_markers_corners_from_the_edges():
    """A 16 px tag (2 px a cell) and a blurred 24 px one: the library's own corners are 0.1-0.15 px off
    the printed square, the live pieces' (fitted from the edges, as `detect`'s) within 0.06 px."""
    for side, blur in ((16, 0.0), (24, 0.8)):
        image, truth = marker_image("DICT_APRILTAG_36h11", 5, side)
        if blur:
            image = cv2.GaussianBlur(image, (0, 0), blur)
        own = [q for _, q in apriltags.read(image, "tag36h11")]
        assert len(own) == 1 and np.abs(own[0] - truth).max() > 0.09
        found, _, _ = PieceDetector(DetectorSettings(min_side_px=8.0)).detect_pieces(
            image, [(0, 0, 150, 150), (40, 80, 150, 150)], Deadline(60.0))
        assert [d.id for d in found] == [5] and np.abs(found[0].corners - truth).max() < 0.06
