"""Lens calibration: ChArUco views rendered through a known lens are solved back to it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from table.cli import main
from table.errors import CalibrationError, ConfigError
from vision.camera import PinholeCamera
from vision.charuco import CharucoSpec, board_image, solve
from vision.lens import Intrinsics, load_intrinsics, save_intrinsics
from vision.synthetic import warp_plane

SPEC = CharucoSpec()
DPI = 254  # 10 px per mm: every square edge falls on a pixel edge
SIZE = (800, 600)
DIST = (-0.15, 0.05, 0.0, 0.0, 0.0)


def view(texture: np.ndarray, tilt: tuple[float, float], roll: float) -> np.ndarray:
    """The printed board (texture at DPI) seen by the test lens from a tilted pose."""
    board_in = (texture.shape[1] / DPI, texture.shape[0] / DPI)
    pose = PinholeCamera.overhead(SIZE, board_in, height_in=9.0, tilt_deg=tilt, roll_deg=roll)
    cam = PinholeCamera(SIZE, LENS.K, LENS.dist, pose.R, pose.t)
    return cv2.GaussianBlur(warp_plane(cam, texture, DPI, border=90, step=4), (0, 0), 0.7)


LENS = Intrinsics(np.array([[700.0, 0, 401.0], [0, 700.0, 297.0], [0, 0, 1]]), np.array(DIST), SIZE)


@pytest.fixture(scope="module")
def views():
    texture = cv2.GaussianBlur(board_image(SPEC, DPI), (0, 0), 1.5)  # no aliasing: 3 texels a pixel
    poses = [((30, 0), 0), ((-30, 5), 10), ((0, 30), -8), ((25, -25), 30), ((-25, -20), -25), ((30, 20), 5),
             ((5, -30), 45), ((-28, 25), -40), ((0, 0), 0)]
    return [view(texture, tilt, roll) for tilt, roll in poses]


def test_solve_recovers_the_lens(views, tmp_path):
    intrinsics, used = solve(SPEC, views)
    assert used == len(views)
    assert intrinsics.K[0, 0] == pytest.approx(700, rel=0.02)
    assert intrinsics.rms_px < 0.5
    # undistorting with the solved lens agrees with the true lens where it matters (board edge)
    probe = np.array([[120.0, 90.0], [680.0, 510.0], [400.0, 300.0], [150.0, 480.0]])
    assert np.abs(LENS.undistort(probe) - probe).max() > 8  # the lens bends the corners a lot...
    assert np.abs(intrinsics.undistort(probe) - LENS.undistort(probe)).max() < 1.0  # ... and is undone


def test_calibrate_lens_commands_print_the_board_and_save_intrinsics(views, tmp_path, capsys):
    assert main(["calibrate-lens", "board", str(tmp_path / "charuco.png"), "--dpi", "254"]) == 0
    printed = cv2.imread(str(tmp_path / "charuco.png"), cv2.IMREAD_GRAYSCALE)
    assert printed.shape == (2100, 2970)  # A4 landscape at 254 dpi (10 px a mm), the board on it
    assert (printed < 128).sum() == (board_image(SPEC, DPI) < 128).sum() + (printed[:260] < 128).sum()
    folder = tmp_path / "views"
    folder.mkdir()
    for i, image in enumerate(views):
        cv2.imwrite(str(folder / f"v{i}.png"), image)
    out = tmp_path / "lens.toml"
    capsys.readouterr()
    assert main(["calibrate-lens", "solve", str(folder), "--out", str(out)]) == 0
    loaded = load_intrinsics(out)
    assert loaded.size == SIZE and loaded.K[0, 0] == pytest.approx(700, rel=0.02)


def test_too_few_views_is_a_calibration_error(views):
    with pytest.raises(CalibrationError, match="found in 2 of 2 views"):
        solve(SPEC, views[:2])


def test_intrinsics_round_trip_and_bad_files(tmp_path):
    path = save_intrinsics(LENS, tmp_path / "lens.toml")
    back = load_intrinsics(path)
    assert np.allclose(back.K, LENS.K) and np.allclose(back.dist, LENS.dist) and back.size == SIZE
    half = back.scaled((400, 300))
    assert half.K[0, 0] == pytest.approx(350) and half.K[1, 2] == pytest.approx(148.5)
    (tmp_path / "bad.toml").write_text("width = 800\n")
    with pytest.raises(ConfigError, match="bad.toml: camera_matrix: missing"):
        load_intrinsics(tmp_path / "bad.toml")
    with pytest.raises(ConfigError, match="no such intrinsics file"):
        load_intrinsics(tmp_path / "none.toml")
