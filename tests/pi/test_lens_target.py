"""`calibrate-lens` writes the intrinsics where the config will read them (relative to the config
file's folder, as every path in it is) and says where; a place it cannot write is one line, exit 2."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from table.cli import main
from table.commands.vision import _lens_target
from table.config import load_config
from vision.camera import PinholeCamera
from vision.charuco import CharucoSpec, board_image
from vision.lens import Intrinsics
from vision.locate import VisionSetup
from vision.synthetic import warp_plane

SIZE = (800, 600)
DPI = 254
LENS = Intrinsics(np.array([[700.0, 0, 401.0], [0, 700.0, 297.0], [0, 0, 1]]), np.array((-0.15, 0.05, 0, 0, 0)),
                  SIZE)


@pytest.fixture(scope="module")
def views(tmp_path_factory):
    """Photos of the printed ChArUco board through a known lens, from eight poses."""
    texture = cv2.GaussianBlur(board_image(CharucoSpec(), DPI), (0, 0), 1.5)
    board_in = (texture.shape[1] / DPI, texture.shape[0] / DPI)
    folder = tmp_path_factory.mktemp("views")
    poses = [((30, 0), 0), ((-30, 5), 10), ((0, 30), -8), ((25, -25), 30), ((-25, -20), -25), ((30, 20), 5),
             ((5, -30), 45), ((0, 0), 0)]
    for n, (tilt, roll) in enumerate(poses):
        pose = PinholeCamera.overhead(SIZE, board_in, height_in=9.0, tilt_deg=tilt, roll_deg=roll)
        cam = PinholeCamera(SIZE, LENS.K, LENS.dist, pose.R, pose.t)
        cv2.imwrite(str(folder / f"v{n}.png"), warp_plane(cam, texture, DPI, border=90, step=4))
    return folder


def test_solve_writes_beside_the_config_and_the_config_then_reads_it(views, tmp_path, capsys):
    etc = tmp_path / "etc" / "smarttable"
    etc.mkdir(parents=True)
    config = etc / "table.toml"
    config.write_text('[camera]\nsource = "auto"\n')
    assert main(["calibrate-lens", "solve", str(views), "--config", str(config)]) == 0
    out = capsys.readouterr()
    answer = json.loads(out.out)
    assert answer["file"] == str(etc / "lens.toml") and (etc / "lens.toml").is_file()
    assert answer["config"] == f'to use it, set [camera] intrinsics = "lens.toml" in {config}'
    assert out.err.strip() == f"smarttable calibrate-lens: wrote {etc / 'lens.toml'}; {answer['config']}"
    # do what it says, from another working directory: the table loads that lens
    config.write_text('[camera]\nsource = "auto"\nintrinsics = "lens.toml"\n')
    setup = VisionSetup.from_config(load_config(config))
    assert setup.intrinsics is not None and setup.intrinsics.K[0, 0] == pytest.approx(700, rel=0.02)


def test_the_configs_own_intrinsics_path_is_used_and_named(tmp_path):
    config = tmp_path / "table.toml"
    config.write_text('[camera]\nintrinsics = "lenses/hq-6mm.toml"\n')
    path, use = _lens_target(load_config(config), None)
    assert path == tmp_path / "lenses" / "hq-6mm.toml"
    assert use == f"{config} reads it ([camera] intrinsics = 'lenses/hq-6mm.toml')"
    elsewhere, use = _lens_target(load_config(config), str(tmp_path / "spare.toml"))
    assert elsewhere == tmp_path / "spare.toml" and 'intrinsics = "spare.toml"' in use


def test_a_place_that_cannot_be_written_is_one_line_exit_2(views, tmp_path, capsys):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the folder should be")
    code = main(["calibrate-lens", "solve", str(views), "--out", str(blocker / "lens.toml")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith(f"smarttable calibrate-lens: {blocker / 'lens.toml'}: cannot write the intrinsics: ")


def test_photos_without_the_board_say_so_and_name_them(tmp_path, capsys):
    """`solve` on photos that are not of the ChArUco board (here of different sizes, as a folder of holiday
    snaps is): it says the board is not in them and which files, not "every view must have the same size"."""
    rng = np.random.default_rng(3)
    for n, size in enumerate([(640, 480), (800, 600), (1024, 768)]):
        cv2.imwrite(str(tmp_path / f"snap{n}.png"), rng.integers(0, 255, (size[1], size[0]), np.uint8))
    assert main(["calibrate-lens", "solve", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "same size" not in err
    assert "was found in 0 of 3 views" in err and str(tmp_path / "snap1.png") in err


def test_views_of_two_sizes_name_both_files(views, tmp_path, capsys):
    folder = tmp_path / "mixed"
    folder.mkdir()
    for n, view in enumerate(sorted(views.iterdir())):
        image = cv2.imread(str(view), cv2.IMREAD_GRAYSCALE)
        if n == 5:
            image = cv2.resize(image, (640, 480))  # one photo taken at another capture size
        cv2.imwrite(str(folder / view.name), image)
    assert main(["calibrate-lens", "solve", str(folder)]) == 2
    err = capsys.readouterr().err
    assert f"{folder / 'v5.png'} is 640x480 but {folder / 'v0.png'} is 800x600" in err
