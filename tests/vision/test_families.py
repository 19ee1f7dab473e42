"""Marker families: the AprilTag library reads OpenCV's AprilTag dictionaries as OpenCV draws them (same
ids, same corner order), on the whole frame and shrunk, and families only the library knows are named."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from table.errors import ConfigError
from vision import apriltags
from vision.apriltag_c import Detector
from vision.detect import DetectorSettings, MarkerDetector, detect_markers
from vision.families import LIBRARY_NAMES, family
from vision.refine import refine_corners


def marker_image(dictionary: str, marker_id: int, side: int = 80) -> tuple[np.ndarray, np.ndarray]:
    """A 300x300 white image with one marker (its black square `side` px), and that square's corners
    in OpenCV's convention (pixel centres at integers), in the marker's own order."""
    image = np.full((300, 300), 255, np.uint8)
    image[100:100 + side, 60:60 + side] = cv2.aruco.generateImageMarker(family(dictionary).dictionary(),
                                                                        marker_id, side)
    x0, y0, x1, y1 = 59.5, 99.5, 59.5 + side, 99.5 + side
    return image, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])


def turned(image: np.ndarray, corners: np.ndarray, quarter_turns: int) -> tuple[np.ndarray, np.ndarray]:
    """The image turned by np.rot90 (counter-clockwise quarter turns) and the corners with it."""
    out = corners.copy()
    h, w = image.shape
    for _ in range(quarter_turns):
        out = np.column_stack([out[:, 1], (w - 1) - out[:, 0]])
        h, w = w, h
    return np.ascontiguousarray(np.rot90(image, quarter_turns)), out


@pytest.mark.parametrize("dictionary", sorted(LIBRARY_NAMES))
@pytest.mark.parametrize("quarter_turns", [0, 1, 2, 3])
def test_the_library_reads_opencvs_apriltag_markers_with_their_ids_in_their_own_corner_order(dictionary,
                                                                                           quarter_turns):
    count = family(dictionary).dictionary().bytesList.shape[0]
    for marker_id in (0, count // 2, count - 1):
        image, truth = turned(*marker_image(dictionary, marker_id), quarter_turns)
        got = apriltags.read(image, LIBRARY_NAMES[dictionary])
        assert [i for i, _ in got] == [marker_id]
        assert np.abs(got[0][1] - truth).max() < 0.3  # the library's own corners, in OpenCV's convention


@pytest.mark.parametrize("scale", [1.5, 2.0, 3.0])
def test_a_shrunk_read_gives_corners_in_the_full_frames_pixels(scale):
    image, truth = marker_image("DICT_APRILTAG_36h11", 7, side=120)
    got = apriltags.read(image, "tag36h11", scale)
    assert [i for i, _ in got] == [7] and np.abs(got[0][1] - truth).max() < 0.3 * scale
    detector = MarkerDetector(DetectorSettings(scale=scale))
    found, rejected = detector.detect(image)
    assert [d.id for d in found] == [7] and rejected == []  # the library leaves no quads to re-read
    assert np.abs(found[0].corners - truth).max() < 0.3 * scale


def test_the_shrink_follows_the_smallest_marker():
    cell = apriltags.LIBRARY_CELL_PX
    assert apriltags.scale_for(8 * cell * 1.9, 8) == 1.5  # shrunk in steps of a half ...
    assert apriltags.scale_for(8 * cell * 2.0, 8) == 2.0
    assert apriltags.scale_for(8 * cell * 1.4, 8) == 1.0  # ... never under LIBRARY_CELL_PX a cell
    # 15 mm markers at 12 MP over a 4' board: before calibration (the board's scale a lower bound) read
    # as they are, after it at 85% of their size, 4.9 px a cell: a copy at half the size
    small = DetectorSettings.for_markers("DICT_APRILTAG_36h11", 15, 50, 4056 / 52 * 0.55)
    big = DetectorSettings.for_markers("DICT_APRILTAG_36h11", 15, 50, 4056 / 52 * 0.85)
    assert small.scale == 1.0 and big.scale == 2.0


def test_the_contrast_floor_reads_a_faint_marker_and_leaves_a_fainter_one():
    # the floor is the library's own setting, written through ctypes: a marker of 60 grey levels'
    # contrast (the least a decision margin of 30 allows) on noise is read at the floor as with the
    # library's default (5 levels); one of 20 levels only by the default (the floor leaves it unsegmented)
    image, _ = marker_image("DICT_APRILTAG_36h11", 3)
    noise = np.random.default_rng(1).normal(0, 2, image.shape)
    floor, default = Detector("tag36h11", 1, apriltags.MIN_CONTRAST), Detector("tag36h11", 1, 5)
    faint, fainter = (np.clip(image * (c / 255) + 100 + noise, 0, 255).astype(np.uint8) for c in (60, 20))
    assert [i for i, _ in apriltags.read(faint, "tag36h11")] == [3]
    assert [d.id for d in floor.detect(faint)] == [d.id for d in default.detect(faint)] == [3]
    assert [d.id for d in default.detect(fainter)] == [3] and floor.detect(fainter) == []


def with_a_cell_flipped(dictionary: str, marker_id: int) -> np.ndarray:
    """marker_image's marker with one data cell (the second row's second) turned the other colour."""
    image, _ = marker_image(dictionary, marker_id)
    cell = 80 // family(dictionary).square_cells
    y, x = 100 + 2 * cell, 60 + 2 * cell
    image[y:y + cell, x:x + cell] = 255 - image[y:y + cell, x:x + cell]
    return image


def test_one_damaged_cell_is_corrected_only_where_a_chance_read_stays_rare():
    assert apriltags.max_hamming("tag36h11") == 1 and apriltags.chance_read("tag36h11", 1) < 2e-6
    assert apriltags.max_hamming("tag16h5") == 0 and apriltags.chance_read("tag16h5", 1) > 0.03
    assert [i for i, _ in apriltags.read(with_a_cell_flipped("DICT_APRILTAG_36h11", 7), "tag36h11")] == [7]
    assert [i for i, _ in apriltags.read(marker_image("DICT_APRILTAG_16h5", 7)[0], "tag16h5")] == [7]
    assert apriltags.read(with_a_cell_flipped("DICT_APRILTAG_16h5", 7), "tag16h5") == []


def test_a_family_the_library_does_not_have_is_named():
    with pytest.raises(ConfigError, match="no family 'tag99h1'"):
        Detector("tag99h1", 1, 30)


def test_families_only_the_library_knows():
    f = family("tagCustom48h12")
    assert (f.library, f.opencv, f.square_cells, f.light_inside) == ("tagCustom48h12", None, 6, True)
    with pytest.raises(ConfigError, match="AprilTag library only"):
        f.dictionary()
    found, rejected = MarkerDetector(DetectorSettings("tagStandard41h12")).detect(np.full((200, 200), 128, np.uint8))
    assert found == [] and rejected == []
    with pytest.raises(ConfigError, match="tagStandard41h12"):  # the message lists them among the known
        family("tagNope")


def test_opencv_families_the_library_does_not_know_are_read_by_opencv():
    image, truth = marker_image("DICT_4X4_50", 11)
    f = family("DICT_4X4_50")
    assert f.library is None and f.square_cells == 6
    got = detect_markers(image, "DICT_4X4_50")
    assert [d.id for d in got] == [11] and np.abs(got[0].corners - truth).max() < 0.1


def test_a_light_square_in_a_dark_ring_is_refined_with_the_edges_the_other_way():
    image, truth = marker_image("DICT_APRILTAG_36h11", 5)
    blurred = cv2.GaussianBlur(255 - image, (0, 0), 1.0)  # light inside, dark around
    start = (truth + np.array([[0.8, -0.6], [-0.7, 0.5], [0.6, 0.7], [-0.5, -0.8]])).astype(np.float32)
    fitted = refine_corners(blurred, start[None], 0.1, light_inside=True)[0]
    assert np.abs(fitted - truth).max() < 0.1
    wrong = refine_corners(blurred, start[None], 0.1)[0]  # the dark-square fit finds no edge to follow
    assert np.abs(wrong - truth).max() > 0.3
