"""Lens calibration with a ChArUco board: print the board, find its corners in many views, solve.

`smarttable calibrate-lens board OUT` prints it, `... solve IMAGES` fits the camera matrix and the
distortion (cv2.calibrateCamera) and saves them under `firmware_cfg/` for `[camera] intrinsics`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from table.errors import CalibrationError, ConfigError
from vision.detect import MM_PER_INCH, get_dictionary
from vision.lens import Intrinsics
from vision.sheets import HEADER_MM, PAGES_MM, check_dpi, header, mm_px

MIN_VIEWS = 4
MIN_CORNERS = 8  # per view


@dataclass(frozen=True)
class CharucoSpec:
    squares: tuple[int, int] = (7, 5)  # columns, rows
    square_mm: float = 30.0
    marker_mm: float = 22.0
    dictionary: str = "DICT_5X5_100"

    def board(self) -> cv2.aruco.CharucoBoard:
        if self.marker_mm >= self.square_mm:
            raise ConfigError("the ChArUco marker must be smaller than its square")
        dictionary = get_dictionary(self.dictionary)
        return cv2.aruco.CharucoBoard(self.squares, self.square_mm, self.marker_mm, dictionary)


def board_image(spec: CharucoSpec, dpi: int = 300, margin_mm: float = 10.0) -> np.ndarray:
    """The board at its true size for printing (greyscale)."""
    px_per_mm = dpi / MM_PER_INCH
    w = int(round((spec.squares[0] * spec.square_mm + 2 * margin_mm) * px_per_mm))
    h = int(round((spec.squares[1] * spec.square_mm + 2 * margin_mm) * px_per_mm))
    return spec.board().generateImage((w, h), marginSize=int(round(margin_mm * px_per_mm)), borderBits=1)


def board_page(spec: CharucoSpec, page: str = "a4", dpi: int = 300) -> Image.Image:
    """The board centred on an A4 or Letter page (turned landscape when it is wider than tall), under a
    line giving its dimensions, the print-at-100% line and a 100 mm scale bar."""
    check_dpi(dpi)
    if not (spec.square_mm > 0 and spec.marker_mm > 0):
        raise ConfigError(f"--square-mm {spec.square_mm:g}, --marker-mm {spec.marker_mm:g}: "
                          "both must be more than 0 mm")
    w_mm, h_mm = PAGES_MM[page]
    board_w, board_h = spec.squares[0] * spec.square_mm, spec.squares[1] * spec.square_mm
    if board_w > board_h:
        w_mm, h_mm = h_mm, w_mm
    margin_mm = 10.0
    if board_w + 2 * margin_mm > w_mm or board_h + HEADER_MM + 3 * margin_mm > h_mm:
        raise ConfigError(f"a {board_w:g} x {board_h:g} mm ChArUco board does not fit on one {page} page "
                          "(fewer --squares or a smaller --square-mm)")
    sheet = Image.new("L", (mm_px(w_mm, dpi), mm_px(h_mm, dpi)), 255)
    header(sheet, f"ChArUco board {spec.squares[0]}x{spec.squares[1]} squares of {spec.square_mm:g} mm, "
                  f"markers {spec.marker_mm:g} mm ({spec.dictionary}): {board_w:g} x {board_h:g} mm",
           dpi, margin_mm)
    board = Image.fromarray(board_image(spec, dpi, margin_mm))
    top = mm_px(margin_mm + HEADER_MM, dpi)
    sheet.paste(board, ((sheet.width - board.width) // 2, top + (sheet.height - top - board.height) // 2))
    return sheet


def write_board(spec: CharucoSpec, out: str | Path, dpi: int = 300, page: str = "a4") -> Path:
    out = Path(out)
    if out.suffix.lower() not in (".png", ".pdf"):
        raise ConfigError(f"{out}: write a .png or a .pdf")
    sheet = board_page(spec, page, dpi)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix.lower() == ".pdf":
        sheet.save(out, resolution=float(dpi))
    else:
        sheet.save(out, dpi=(dpi, dpi))
    return out


def find_corners(spec: CharucoSpec, image: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(object points (N, 3) mm, image points (N, 2)) of the board's chessboard corners, or None."""
    board = spec.board()
    detector = cv2.aruco.CharucoDetector(board)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    corners, ids, _, _ = detector.detectBoard(grey)
    if ids is None or len(ids) < MIN_CORNERS:
        return None
    # the stubs type InputArrayOfArrays as a sequence; a CharucoBoard takes its corners as one array
    obj, img = board.matchImagePoints(corners, ids)  # type: ignore[call-overload]
    return obj.reshape(-1, 3).astype(np.float32), img.reshape(-1, 2).astype(np.float32)


def solve(spec: CharucoSpec, images: list[np.ndarray],
          names: list[str] | None = None) -> tuple[Intrinsics, int]:
    """Intrinsics from views of the board (at least MIN_VIEWS usable); returns them and the views used.
    `names` (the files, for messages) default to "view 1", "view 2", ..."""
    if not images:
        raise CalibrationError("no images given")
    names = names or [f"view {n}" for n in range(1, len(images) + 1)]
    objs, imgs, missed = [], [], []
    first: tuple[str, tuple[int, int]] | None = None  # the first view with the board, and its size
    for name, image in zip(names, images, strict=True):
        found = find_corners(spec, image)
        if found is None:
            missed.append(name)
            continue
        size = (image.shape[1], image.shape[0])
        first = first or (name, size)
        if size != first[1]:
            raise CalibrationError(f"{name} is {size[0]}x{size[1]} but {first[0]} is {first[1][0]}x"
                                   f"{first[1][1]}: every view must come from one camera at one capture size")
        objs.append(found[0])
        imgs.append(found[1])
    if first is None or len(objs) < MIN_VIEWS:
        shown = ", ".join(missed[:5]) + (f" and {len(missed) - 5} more" if len(missed) > 5 else "")
        raise CalibrationError(f"the ChArUco board ({spec.squares[0]}x{spec.squares[1]} squares, "
                               f"{spec.dictionary}) was found in {len(objs)} of {len(images)} views"
                               f"{f' (not in {shown})' if missed else ''}; need at least {MIN_VIEWS}, from "
                               "different angles, of the board `calibrate-lens board` prints")
    size = first[1]
    # k3 stays 0: with a board that cannot reach every corner of the frame it only overfits
    rms, K, dist, _, _ = cv2.calibrateCamera(objs, imgs, size, None, None, flags=cv2.CALIB_FIX_K3)
    return Intrinsics(K, dist.reshape(-1), size, float(rms)), len(objs)
