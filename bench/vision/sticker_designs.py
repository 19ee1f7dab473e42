"""The sticker designs bench_stickers.py compares, besides today's centred marker and the ring sticker
(vision/sticker.py): their printed images (as the renderer's tiles) and how each is read.

- `custom48`: AprilTag 3's tagCustom48h12 (the layout with a hole in the middle, 2 of its 10 cells
  across), as big as the sticker's disc holds, read by the AprilTag library on the whole frame.
- `rim`: four tag36h11 markers round the rim, each as big as fits between the model's feet and the
  sticker's edge, top edges outward; each one found gives the base's centre and facing, and the ones
  found vote (the median).

The tagCustom48h12 image comes from the AprilTag C library itself (apriltag_to_image), through ctypes:
the Python binding does not draw tags.
"""

from __future__ import annotations

import ctypes
import math
import os
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from vision import apriltags
from vision.calibrate import Calibration
from vision.miniature import SIZES
from vision.sticker import Sticker
from vision.sticker_read import BoardView
from vision.synthetic import Tile

MM_PER_INCH = 25.4
PX_PER_MM = 16  # the tiles' print resolution (406 dpi)
RIM_ANGLES = (45.0, 135.0, 225.0, 315.0)  # rim markers, clockwise from the facing
RIM_IDS = 4  # tag36h11 ids a model: model k carries RIM_FIRST + 4k .. + 3
RIM_FIRST = 10


class _Family(ctypes.Structure):
    _fields_ = [("ncodes", ctypes.c_uint32), ("codes", ctypes.POINTER(ctypes.c_uint64)),
                ("width_at_border", ctypes.c_int), ("total_width", ctypes.c_int),
                ("reversed_border", ctypes.c_bool), ("nbits", ctypes.c_uint32),
                ("bit_x", ctypes.POINTER(ctypes.c_uint32)), ("bit_y", ctypes.POINTER(ctypes.c_uint32)),
                ("h", ctypes.c_uint32), ("name", ctypes.c_char_p), ("impl", ctypes.c_void_p)]


class _Image(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int32), ("height", ctypes.c_int32), ("stride", ctypes.c_int32),
                ("buf", ctypes.POINTER(ctypes.c_uint8))]


@cache
def _library() -> tuple[ctypes.CDLL, ctypes._Pointer]:
    import apriltag

    lib = ctypes.CDLL(os.path.join(os.path.dirname(apriltag.__file__), "libapriltag.so"))
    lib.tagCustom48h12_create.restype = ctypes.POINTER(_Family)
    lib.apriltag_to_image.restype = ctypes.POINTER(_Image)
    lib.apriltag_to_image.argtypes = [ctypes.POINTER(_Family), ctypes.c_uint32]
    return lib, lib.tagCustom48h12_create()


def custom48_cells(tag_id: int) -> np.ndarray:
    """The 10x10 cells of tagCustom48h12 `tag_id` as the library draws them (255 white)."""
    lib, fam = _library()
    img = lib.apriltag_to_image(fam, tag_id).contents
    return np.ctypeslib.as_array(img.buf, shape=(img.height, img.stride))[:, :img.width].copy()


def _disc(sticker: Sticker) -> tuple[np.ndarray, np.ndarray]:
    """(white canvas, alpha of the sticker's disc) at PX_PER_MM, and pixel coordinates in mm."""
    n = int(round(sticker.diameter_mm * PX_PER_MM))
    c = (np.arange(n) + 0.5) / PX_PER_MM - sticker.radius_mm
    x, y = np.meshgrid(c, c)
    alpha = np.where(np.hypot(x, y) <= sticker.radius_mm, 255, 0).astype(np.uint8)
    return np.full((n, n), 255, np.uint8), alpha


def _tile(grey: np.ndarray, alpha: np.ndarray, sticker: Sticker) -> Tile:
    return Tile(np.dstack([grey, grey, grey, alpha]), sticker.diameter_mm)


def custom48_cell_mm(sticker: Sticker) -> float:
    """A cell of the tag, with one white cell round it, inscribed in the disc."""
    return sticker.diameter_mm / (12 * math.sqrt(2)) * 0.98


def custom48_tile(tag_id: int, sticker: Sticker) -> Tile:
    grey, alpha = _disc(sticker)
    cells = cv2.copyMakeBorder(custom48_cells(tag_id), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=255)
    side = int(round(12 * custom48_cell_mm(sticker) * PX_PER_MM))
    tag = cv2.resize(cells, (side, side), interpolation=cv2.INTER_NEAREST)
    off = (grey.shape[0] - side) // 2
    grey[off:off + side, off:off + side] = tag
    return _tile(grey, alpha, sticker)


def body_radius_mm(base_mm: float) -> float:
    """A typical model's body radius on this base (vision.miniature.SIZES)."""
    sizes = np.array(SIZES)
    return float(np.interp(base_mm, sizes[:, 0], sizes[:, 2]))


@dataclass(frozen=True)
class Rim:
    """Four rim markers on a sticker: black square `side_mm`, centres `radius_mm` from the base's."""

    side_mm: float
    radius_mm: float


def rim_for(sticker: Sticker) -> Rim:
    """The biggest rim markers (their white margin of a cell included: 10 cells of 36h11's 8) that fit
    between the model's feet (the body's radius and 1 mm) and the sticker's edge."""
    inner = body_radius_mm(sticker.base_mm) + 1.0
    outer = sticker.radius_mm
    best = Rim(0.0, inner)
    for q in np.linspace(0.5, outer - inner, 200):  # q: the square's side with its margin
        rc = inner + q / 2
        if math.hypot(rc + q / 2, q / 2) <= outer:
            best = Rim(q * 8 / 10, rc)
    return best


def rim_tile(model: int, sticker: Sticker) -> Tile:
    grey, alpha = _disc(sticker)
    rim = rim_for(sticker)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    n = grey.shape[0]
    c = (np.arange(n) + 0.5) / PX_PER_MM - sticker.radius_mm
    x, y = np.meshgrid(c, c)
    q = rim.side_mm * 10 / 8
    for j, angle in enumerate(RIM_ANGLES):
        marker = cv2.aruco.generateImageMarker(dictionary, RIM_FIRST + RIM_IDS * model + j, 80, borderBits=1)
        marker = cv2.copyMakeBorder(marker, 10, 10, 10, 10, cv2.BORDER_CONSTANT, value=255)
        t = math.radians(angle)
        up, right = np.array([math.sin(t), -math.cos(t)]), np.array([math.cos(t), math.sin(t)])
        dx, dy = x - rim.radius_mm * up[0], y - rim.radius_mm * up[1]
        u = (dx * right[0] + dy * right[1]) / q + 0.5  # the marker's own x and y (down), 0-1
        v = -(dx * up[0] + dy * up[1]) / q + 0.5
        inside = (u >= 0) & (u < 1) & (v >= 0) & (v < 1)
        grey[inside] = marker[(v[inside] * 100).astype(int), (u[inside] * 100).astype(int)]
    return _tile(grey, alpha, sticker)


@dataclass(frozen=True)
class Read:
    """A model read: id, base centre (board inches) and heading (the contract's)."""

    id: int
    x: float
    y: float
    heading: float


def _pose(corners_board: np.ndarray) -> tuple[np.ndarray, float]:
    """(centre, heading) of a square from its board corners in OpenCV's order: it faces across its top
    edge (corner 0 to 1)."""
    centre = corners_board.mean(axis=0)
    top = (corners_board[0] + corners_board[1]) / 2 - centre
    return centre, math.degrees(math.atan2(top[1], top[0]))


def read_custom48(grey: np.ndarray, calibration: Calibration, height_in: float) -> list[Read]:
    view = BoardView(calibration, height_in)
    out = []
    for tag_id, corners in apriltags.read(grey, "tagCustom48h12"):
        centre, heading = _pose(view.to_board(corners))
        # the library's own drawing has its first row at the bottom of the corners it reads back
        heading = (heading + 360.0) % 360.0 - 180.0
        out.append(Read(tag_id, float(centre[0]), float(centre[1]), heading))
    return out


def vote_rim(markers: list[tuple[int, float, float, float]], rims: dict[int, Rim]) -> list[Read]:
    """Models from their rim markers located on the board ((id, x, y, heading) each): every marker
    found gives its model's centre and facing; the median of those found."""
    votes: dict[int, list[tuple[float, float, float]]] = {}
    for marker_id, x, y, heading in markers:
        model, j = divmod(marker_id - RIM_FIRST, RIM_IDS)
        if marker_id < RIM_FIRST or model not in rims:
            votes.setdefault(-marker_id, []).append((x, y, heading))  # a stray id: a false read
            continue
        h = math.radians(heading)
        r = rims[model].radius_mm / MM_PER_INCH
        votes.setdefault(model, []).append((x - r * math.cos(h), y - r * math.sin(h),
                                            heading - RIM_ANGLES[j]))
    out = []
    for model, got in votes.items():
        a = np.radians([g[2] for g in got])
        turn = math.degrees(math.atan2(float(np.median(np.sin(a))), float(np.median(np.cos(a)))))
        out.append(Read(model, float(np.median([g[0] for g in got])), float(np.median([g[1] for g in got])),
                        turn))
    return out
