"""`smarttable locate | detect | markers` from the outside: JSON on stdout, exit 2 for mistakes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from table.cli import main
from tests.inprocess import smarttable
from tests.vision.synthetic import SMALL_BOARD, camera, models, render, scene, truth_corners

STRAIGHT = dict(dist=(0, 0, 0, 0, 0))


def call(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, json.loads(out.out) if code == 0 else out.err


@pytest.fixture(scope="module")
def board_photo(tmp_path_factory, config):
    cam = camera(**STRAIGHT)
    scn = scene(config)
    path = tmp_path_factory.mktemp("photos") / "board.jpg"
    cv2.imwrite(str(path), render(cam, scn), [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path, cam, scn


def test_locate_prints_every_model_marker_in_board_inches(board_photo, capsys):
    path, _, _ = board_photo
    code, doc = call(capsys, "locate", str(path), "--config", str(SMALL_BOARD))
    assert code == 0 and doc["calibrated"] is True
    truth = {m.id: m for m in models()}
    assert sorted(m["id"] for m in doc["markers"]) == sorted(truth)
    for m in doc["markers"]:
        assert abs(m["x"] - truth[m["id"]].x) < 0.02 and abs(m["y"] - truth[m["id"]].y) < 0.02
        assert -180 < m["heading"] <= 180
    assert set(doc) >= {"calibrated", "markers", "warnings"}


def test_detect_prints_pixel_corners_in_marker_order(board_photo, capsys):
    path, cam, scn = board_photo
    code, doc = call(capsys, "detect", str(path), "--dictionary", "DICT_APRILTAG_36h11")
    assert code == 0
    by_id = {m["id"]: m for m in doc["markers"]}
    for marker in scn.markers:
        got = np.array(by_id[marker.id]["corners"])
        assert got.shape == (4, 2)
        assert np.abs(got - truth_corners(cam, marker)).max() < 0.5
        assert len(by_id[marker.id]["centre"]) == 2


def test_detect_takes_a_family_only_the_apriltag_library_knows(board_photo, capsys):
    """docs/config.md's AprilTag 3 families are a dictionary `detect` reads too: none of the board's
    36h11 markers is read as one of them."""
    code, doc = call(capsys, "detect", str(board_photo[0]), "--dictionary", "tagStandard41h12")
    assert code == 0 and doc == {"markers": []}


def test_locate_with_the_wrong_config_is_uncalibrated_and_says_why(board_photo, capsys):
    path, _, _ = board_photo
    code, doc = call(capsys, "locate", str(path))  # default table: corner markers are 50 mm, 4' apart
    assert code == 0
    assert doc == {"calibrated": False, "markers": [], "warnings": [
        "not calibrated: the corner markers do not fit the config "
        "(markers.corner_size_mm 50 and markers.corners)"]}


@pytest.mark.parametrize("args, message", [
    (["locate", "nope.png"], "nope.png: no such image file"),
    (["detect", "NOTEXT", "--dictionary", "DICT_4X4_50"], "NOTEXT: no such image file"),
    (["markers", "out.txt"], "write a .pdf or a .png"),
    (["markers", "out.png", "--ids", "9-3"], "runs backwards"),
    (["markers", "out.png", "--ids", "2-5"], "corner markers"),
])
def test_user_mistakes_exit_2_with_one_line(args, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert len(out.err.strip().splitlines()) == 1 and message in out.err


def test_unreadable_image_and_unknown_dictionary(tmp_path, board_photo):
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"not an image")
    result = smarttable("locate", str(junk))
    assert result.returncode == 2 and "not a readable image" in result.stderr
    result = smarttable("detect", str(board_photo[0]), "--dictionary", "DICT_NOPE")
    assert result.returncode == 2 and "unknown marker dictionary 'DICT_NOPE'" in result.stderr


def test_markers_png_sheet_prints_true_size_and_detects(tmp_path, capsys):
    out = tmp_path / "sheet.png"
    code, doc = call(capsys, "markers", str(out), "--ids", "10-13", "--size-mm", "20", "--dpi", "200")
    assert code == 0 and doc["markers"] == [10, 11, 12, 13] and doc["corners"] == [0, 1, 2, 3]
    pages = [tmp_path / "sheet.png", tmp_path / "sheet-2.png"]
    assert [p.name for p in pages] == [p.split("/")[-1] for p in doc["files"]]
    code, found = call(capsys, "detect", str(pages[0]), "--dictionary", "DICT_APRILTAG_36h11")
    assert sorted(m["id"] for m in found["markers"]) == [10, 11, 12, 13]
    side = np.linalg.norm(np.diff(np.array(found["markers"][0]["corners"]), axis=0), axis=1).mean()
    assert side == pytest.approx(20 / 25.4 * 200, abs=1.5)  # the black square is 20 mm at 200 dpi
    code, found = call(capsys, "detect", str(pages[1]), "--dictionary", "DICT_APRILTAG_36h11")
    assert sorted(m["id"] for m in found["markers"]) == [0, 1, 2, 3, 500]  # and the pointer token


def test_markers_pdf_has_every_page(tmp_path, capsys):
    out = tmp_path / "sheet.pdf"
    code, doc = call(capsys, "markers", str(out), "--ids", "10-69")
    assert code == 0 and out.read_bytes().startswith(b"%PDF")
    assert doc["pages"] == 2  # 60 markers of 15 mm on one A4 page, the corner markers on another
    assert out.read_bytes().count(b"/Type /Page\n") + out.read_bytes().count(b"/Type /Page\r") == 2


def test_locate_on_a_frame_without_corner_markers_says_which_are_missing(tmp_path, capsys):
    """A frame with no corner markers (a blank preview; one with only model markers) names every
    missing corner marker and what was seen instead."""
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640), 200, np.uint8))
    code, doc = call(capsys, "locate", str(blank), "--config", str(SMALL_BOARD))
    assert code == 0 and doc["calibrated"] is False and doc["markers"] == []
    assert doc["warnings"] == ["not calibrated: corner markers 0, 1, 2, 3 not found "
                               "(need at least 3 of 0, 1, 2, 3; no other markers seen)"]
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    models_only = np.full((480, 640), 230, np.uint8)
    for n, marker_id in enumerate((12, 17)):
        models_only[150:190, 100 + 200 * n:140 + 200 * n] = cv2.aruco.generateImageMarker(dictionary, marker_id, 40)
    path = tmp_path / "models.png"
    cv2.imwrite(str(path), models_only)
    code, doc = call(capsys, "locate", str(path), "--config", str(SMALL_BOARD))
    assert doc["warnings"] == ["not calibrated: corner markers 0, 1, 2, 3 not found "
                               "(need at least 3 of 0, 1, 2, 3; markers seen: 12, 17)"]


ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "demo-board.jpg"


def test_the_shipped_photo_locates_the_demo_scenes_models():
    """The README's photo to try `locate` and `detect` on: the demo scene (table/data/demo.json) through the
    simulated camera; every model with a marker is found where the scene puts it, with the default config."""
    located = smarttable("locate", str(EXAMPLE))
    assert located.returncode == 0
    doc = json.loads(located.stdout)
    scene = json.loads((ROOT / "table" / "data" / "demo.json").read_text())
    truth = {m["marker"]: m for m in scene["models"] if m.get("marker") is not None}
    assert doc["calibrated"] and sorted(m["id"] for m in doc["markers"]) == sorted(truth)
    for m in doc["markers"]:
        assert math.dist((m["x"], m["y"]), (truth[m["id"]]["x"], truth[m["id"]]["y"])) < 0.3
    detected = json.loads(smarttable("detect", str(EXAMPLE)).stdout)
    assert {0, 1, 2, 3} | set(truth) <= {m["id"] for m in detected["markers"]}
    assert f"smarttable locate {EXAMPLE.relative_to(ROOT)}" in (ROOT / "README.md").read_text()


@pytest.mark.parametrize("size", [(1014, 760), (676, 507)])
def test_a_reduced_copy_says_its_markers_are_too_small(tmp_path, size):
    """The panel's camera.jpg is the frame at half size: the corner markers calibrate, the model markers are
    about a pixel a cell, and `locate` says they are too small to read instead of an unexplained short list
    (at half size the AprilTag library still reads a few of them, in their places; at a third, none)."""
    image = cv2.imread(str(EXAMPLE), cv2.IMREAD_GRAYSCALE)
    small = tmp_path / "camera.jpg"
    cv2.imwrite(str(small), cv2.resize(image, size, interpolation=cv2.INTER_AREA))
    doc = json.loads(smarttable("locate", str(small)).stdout)
    truth = {m["marker"]: m for m in json.loads((ROOT / "table" / "data" / "demo.json").read_text())["models"]
             if m.get("marker") is not None}
    assert doc["calibrated"] and len(doc["markers"]) < len(truth) / 2
    assert all(math.dist((m["x"], m["y"]), (truth[m["id"]]["x"], truth[m["id"]]["y"])) < 0.05 for m in doc["markers"])
    lead = f"only {len(doc['markers'])} model marker" if doc["markers"] else "no model markers found"
    (warning,) = [w for w in doc["warnings"] if w.startswith(lead)]
    assert "too small to read" in warning and f"{size[0]}x{size[1]}" in warning


def test_an_empty_board_says_no_model_markers(tmp_path, config):
    path = tmp_path / "empty.png"
    # no decoy either: a real id printed 3" across is read (and ignored with a warning of its own)
    cv2.imwrite(str(path), render(camera(**STRAIGHT), scene(config, markers=()), decoys=0))
    doc = json.loads(smarttable("locate", str(path), "--config", str(SMALL_BOARD)).stdout)
    assert doc["calibrated"] and doc["markers"] == []
    assert any(w.startswith("no model markers found on the board (a 20 mm marker is") for w in doc["warnings"])
