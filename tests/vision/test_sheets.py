"""Printed sheets measured on the written PNG, as a ruler would: the 100 mm scale bar, the cut lines
around each tile, the ChArUco board's squares on an A4 or Letter page; bad sizes exit 2 with one line."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from PIL import Image

from table.cli import main
from vision.sheets import CUT_GREY, HEADER_MM, MM_PER_INCH, PAGES_MM

DPI = 200


def px(mm: float, dpi: int = DPI) -> float:
    return mm / MM_PER_INCH * dpi


def scale_bar_length(page: np.ndarray, dpi: int) -> int:
    """Length in pixels of the longest black horizontal run in the header (the scale bar)."""
    band = page[: int(px(10 + HEADER_MM, dpi))] < 100
    best = 0
    for row in band:
        runs = np.diff(np.flatnonzero(np.diff(np.r_[0, row.astype(np.int8), 0])))[::2]
        best = max(best, int(runs.max(initial=0)))
    return best


def test_each_model_sheet_has_a_100_mm_scale_bar_and_cut_lines(tmp_path, capsys):
    out = tmp_path / "sheet.png"
    assert main(["markers", str(out), "--ids", "10-45", "--size-mm", "20", "--dpi", str(DPI)]) == 0
    capsys.readouterr()
    page = np.asarray(Image.open(out).convert("L"))
    assert page.shape == (round(px(PAGES_MM["a4"][1])), round(px(PAGES_MM["a4"][0])))
    assert abs(scale_bar_length(page, DPI) - px(100)) <= 2  # 100 mm, within 0.25 mm
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11))
    corners, ids, _ = detector.detectMarkers(page)
    assert ids is not None and len(ids) >= 20
    cut = page == CUT_GREY
    for quad in corners:
        quad = quad.reshape(4, 2)
        side = np.linalg.norm(quad[1] - quad[0])
        assert abs(side - px(20)) < 2  # the black square is the size asked for
        x0, y0 = quad.min(axis=0)
        x1, y1 = quad.max(axis=0)
        cell = side / 8
        # a grey cut line on every side, outside the one-cell white margin the detector needs
        left = cut[int(y0):int(y1), : int(x0 - cell)].any(axis=0).nonzero()[0]
        right = cut[int(y0):int(y1), int(x1 + cell):].any(axis=0).nonzero()[0]
        above = cut[: int(y0 - cell), int(x0):int(x1)].any(axis=1).nonzero()[0]
        below = cut[int(y1 + cell):, int(x0):int(x1)].any(axis=1).nonzero()[0]
        assert len(left) and len(right) and len(above) and len(below)
        margin = page[int(y0 - cell * 0.8):int(y1 + cell * 0.8), int(x0 - cell * 0.8):int(x1 + cell * 0.8)]
        assert not (margin == CUT_GREY).any()  # no cut line through the white margin


def test_the_corner_page_has_its_own_scale_bar(tmp_path, capsys):
    out = tmp_path / "sheet.png"
    assert main(["markers", str(out), "--ids", "10-12", "--dpi", str(DPI), "--page", "letter"]) == 0
    capsys.readouterr()
    corner_page = np.asarray(Image.open(tmp_path / "sheet-2.png").convert("L"))
    assert corner_page.shape == (round(px(PAGES_MM["letter"][1])), round(px(PAGES_MM["letter"][0])))
    assert abs(scale_bar_length(corner_page, DPI) - px(100)) <= 2


@pytest.mark.parametrize("page", ["a4", "letter"])
def test_charuco_board_on_a_page_with_its_squares_at_size(page, tmp_path, capsys):
    out = tmp_path / "charuco.png"
    assert main(["calibrate-lens", "board", str(out), "--dpi", str(DPI), "--page", page]) == 0
    capsys.readouterr()
    image = np.asarray(Image.open(out).convert("L"))
    w, h = PAGES_MM[page]
    assert image.shape == (round(px(w)), round(px(h)))  # 7x5 squares of 30 mm: the page lies landscape
    assert abs(scale_bar_length(image, DPI) - px(100)) <= 2
    # the board's extent: the dark pixels below the header span 7 x 30 by 5 x 30 mm
    body = image[int(px(10 + HEADER_MM + 2)):] < 100
    rows, cols = np.flatnonzero(body.any(axis=1)), np.flatnonzero(body.any(axis=0))
    assert abs(cols[-1] - cols[0] + 1 - px(210)) <= 2 and abs(rows[-1] - rows[0] + 1 - px(150)) <= 2


@pytest.mark.parametrize("args, message", [
    (["markers", "out.png", "--size-mm", "0"], "--size-mm 0: a marker's side must be more than 0 mm"),
    (["markers", "out.png", "--size-mm", "-5"], "--size-mm -5: a marker's side must be more than 0 mm"),
    (["markers", "out.png", "--dpi", "0"], "--dpi 0: the print resolution must be more than 0"),
    (["markers", "out.png", "--dpi", "30"], "dots a cell (need 3): raise --dpi"),
    (["calibrate-lens", "board", "out.png", "--dpi", "0"], "--dpi 0:"),
    (["calibrate-lens", "board", "out.png", "--square-mm", "-1"], "--square-mm -1"),
    (["calibrate-lens", "board", "out.png", "--squares", "12x9"], "does not fit on one a4 page"),
])
def test_bad_sizes_exit_2_with_one_line(args, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "out.png").exists()
