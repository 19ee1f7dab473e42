"""The printed facing tick and the heading `locate` reports agree, end to end.

Tiles come from the real marker sheet (`vision.sheets.marker_tile`, tick and all). The test finds the
tick in each tile itself, turns the tile so the tick points a known way on a flat top-down board
image, and checks the located heading against that direction: no renderer convention is involved.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from PIL import ImageFont

from tests.vision.synthetic import heading_error
from vision.detect import get_dictionary
from vision.locate import VisionSetup, locate
from vision.sheets import marker_tile

PPI = 60          # pixels per board inch of the composed board image
DPI = 300         # the sheet's print resolution


def _tile(marker_id: int, size_mm: float) -> np.ndarray:
    font = ImageFont.load_default(size=10)
    tile = marker_tile(get_dictionary("DICT_APRILTAG_36h11"), marker_id, size_mm, DPI, font, label="")
    return np.asarray(tile, dtype=np.uint8)


def _tick_direction(tile: np.ndarray) -> tuple[np.ndarray, float]:
    """(centre of the black square, angle of the tick seen from it), from the pixels alone."""
    dark = (tile < 128).astype(np.uint8)
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(dark, connectivity=8)
    square = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h = (stats[square, k] for k in (cv2.CC_STAT_LEFT, cv2.CC_STAT_TOP, cv2.CC_STAT_WIDTH,
                                             cv2.CC_STAT_HEIGHT))
    outside = [i for i in range(1, count) if i != square and not (
        x <= centroids[i][0] <= x + w and y <= centroids[i][1] <= y + h)]
    assert len(outside) == 1, "the tile should carry one mark outside the marker: the facing tick"
    centre = np.array([x + (w - 1) / 2, y + (h - 1) / 2])
    v = centroids[outside[0]] - centre
    return centre, math.degrees(math.atan2(v[1], v[0]))


def _place(board: np.ndarray, tile: np.ndarray, at_in: tuple[float, float], tick_deg: float) -> None:
    """Darken `board` with the tile, scaled to print size, centred at `at_in`, tick pointing `tick_deg`."""
    centre, tick = _tick_direction(tile)
    scale = PPI / DPI
    turn = math.radians(tick_deg - tick)   # y runs down, so a positive turn is clockwise, like headings
    c, s = math.cos(turn) * scale, math.sin(turn) * scale
    m = np.array([[c, -s, 0.0], [s, c, 0.0]])
    m[:, 2] = np.array(at_in) * PPI - m[:, :2] @ centre
    warped = cv2.warpAffine(tile, m, (board.shape[1], board.shape[0]), flags=cv2.INTER_AREA,
                            borderValue=255)
    np.minimum(board, warped, out=board)


TICKS = [-90.0, 0.0, 90.0, 180.0, 37.0, -135.0, 152.5, -12.0]


@pytest.fixture(scope="module")
def located(config):
    board = np.full((int(24 * PPI), int(24 * PPI)), 255, np.uint8)
    for corner_id, at in config.markers.corners.items():
        _place(board, _tile(int(corner_id), config.markers.corner_size_mm), tuple(at), -90.0)
    for n, tick in enumerate(TICKS):
        _place(board, _tile(10 + n, config.markers.model_size_mm), (4.0 + 2.2 * n, 12.0), tick)
    result = locate(cv2.cvtColor(board, cv2.COLOR_GRAY2BGR), VisionSetup.from_config(config))
    assert result.calibrated
    return {m.id: m for m in result.markers}


@pytest.mark.parametrize("n,tick", list(enumerate(TICKS)))
def test_heading_is_the_printed_tick(located, n, tick):
    marker = located[10 + n]
    assert heading_error(marker.heading, tick) < 1.5, (marker.heading, tick)
    assert math.dist((marker.x, marker.y), (4.0 + 2.2 * n, 12.0)) < 0.02


def test_upright_marker_faces_minus_y(located):
    """The contract's own example: a marker lying as printed faces -y, heading -90."""
    assert heading_error(located[10].heading, -90.0) < 1.5
