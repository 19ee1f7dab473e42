"""The camera planner: will this camera, at this height, see the whole board and read its markers?

The camera hangs over the board's centre looking straight down, its long side along the board's
longer side. A board parallel to the sensor is imaged at one scale, focal length (px) / height, so
a marker's size in pixels is the same all over it (lens distortion aside; `calibrate-lens` measures it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from table.config import Config
from vision.camera import PinholeCamera
from vision.cameras import CameraModel, camera_model

MM_PER_INCH = 25.4
CELLS = 8  # AprilTag 36h11 (and 6x6 ArUco): 6 data cells and a black border cell each side
# Detection is reliable from 3 px per marker cell: the vision bench (bench/vision/bench_vision.py, part 5)
# finds 100% of markers with real-camera damage (noise, JPEG, blur, glare) at 2028x1520 with 20 mm
# markers, which is 3.0 px a cell. Between 2 and 3 px a cell markers are read on clean frames (the real
# photos, shared/photos: every reference marker down to 1.5 px a cell), but a blurred or compressed
# frame loses some: on held-out photos detection fell behind from about 13 px a tag (1.6 px a cell).
RELIABLE_PX_PER_CELL = 3.0
MARGINAL_PX_PER_CELL = 2.0
FRAME_MARGIN = 1.04  # the frame takes in 4% more than the board: corner markers at its edge stay whole
DEMO_CAMERA = "hq-6mm"  # the simulated table's camera when the config names none
DEMO_TILT = (3.0, -2.0)  # degrees: a camera hung by hand is never quite level


@dataclass(frozen=True)
class Setup:
    camera: CameraModel
    height_mm: float  # lens above the board
    board_in: tuple[float, float]
    marker_mm: float  # a model marker's black square
    resolution: tuple[int, int]  # capture size

    def oriented(self) -> tuple[float, float]:
        """The board in mm along the frame's (long, short) sides."""
        a, b = (v * MM_PER_INCH for v in self.board_in)
        return (max(a, b), min(a, b)) if self.resolution[0] >= self.resolution[1] else (min(a, b), max(a, b))


def lowest_height_mm(s: Setup) -> float:
    """The lowest height at which the whole board (and FRAME_MARGIN) is in view."""
    f = s.camera.focal_px(s.resolution)
    board_w, board_h = s.oriented()
    return max(board_w * FRAME_MARGIN * f / s.resolution[0], board_h * FRAME_MARGIN * f / s.resolution[1])


def configured_setup(config: Config) -> Setup | None:
    """The camera, height and capture size the config names (`[camera] model`, `mount_height_mm`),
    or None when it does not name them."""
    cam, board = config.camera, config.board
    if not cam.model or not cam.mount_height_mm:
        return None
    return Setup(camera_model(cam.model), float(cam.mount_height_mm),
                 (float(board.width), float(board.height)), float(config.markers.model_size_mm),
                 (int(cam.width), int(cam.height)))


def simulated_camera(config: Config, size: tuple[int, int],
                     board: tuple[float, float]) -> PinholeCamera:
    """The synthetic camera: the configured model at its height, or DEMO_CAMERA hung where it first sees
    the whole board (a little higher, for the tilt); with the long side along the board's longer side."""
    setup = configured_setup(config)
    if setup is None:
        setup = Setup(camera_model(DEMO_CAMERA), 0.0, board, float(config.markers.model_size_mm), size)
        setup = Setup(setup.camera, round(lowest_height_mm(setup) * 1.06), board, setup.marker_mm, size)
    roll = 0.0 if (board[0] >= board[1]) == (size[0] >= size[1]) else 90.0
    return PinholeCamera.from_model(setup.camera, size, board, height_mm=setup.height_mm, tilt_deg=DEMO_TILT,
                                    roll_deg=roll)


def verdict(px_per_cell: float) -> str:
    if px_per_cell >= RELIABLE_PX_PER_CELL:
        return "reliable"
    return "marginal" if px_per_cell >= MARGINAL_PX_PER_CELL else "unreliable"


def heights_mm(s: Setup) -> tuple[int, int]:
    """(lowest, highest) whole millimetres that work: the board in view from the first, markers still read
    reliably up to the second (lowest > highest when no height does both)."""
    f = s.camera.focal_px(s.resolution)
    return math.ceil(lowest_height_mm(s)), math.floor(f * s.marker_mm / (CELLS * RELIABLE_PX_PER_CELL))


def marker_mm_needed(s: Setup, height_mm: float) -> float:
    """The smallest marker (to 0.1 mm up) read reliably from `height_mm`."""
    return math.ceil(RELIABLE_PX_PER_CELL * CELLS * height_mm / s.camera.focal_px(s.resolution) * 10) / 10


def more_pixels(s: Setup) -> str:
    """How this set-up gets more pixels on the board: the camera's full resolution, or another camera."""
    return ("capture at a higher resolution" if s.resolution[0] < s.camera.resolution[0]
            else "use a camera with more pixels")


def half_board(s: Setup) -> Setup:
    """The same camera over one half of the board (one of two cameras side by side)."""
    return Setup(s.camera, s.height_mm, (s.board_in[0] / 2, s.board_in[1]), s.marker_mm, s.resolution)


def advice(s: Setup, whole: bool, coverage: float, px_per_cell: float) -> list[str]:
    """What to change, each sentence naming only heights and sizes that work: a height in [lowest, highest]
    when there is one, else the lowest height that sees the board with markers big enough to read there."""
    lowest, highest = heights_mm(s)
    more = more_pixels(s)
    if lowest > highest:
        w, h = s.resolution
        return [f"no height works for {s.marker_mm:g} mm markers at {w}x{h}: the whole board and a "
                f"{FRAME_MARGIN - 1:.0%} border need the camera at least {lowest} mm up, and markers read "
                f"reliably ({RELIABLE_PX_PER_CELL:g} px a cell) only up to {highest} mm; hang the camera at "
                f"{lowest} mm and print markers of {marker_mm_needed(s, lowest):g} mm, or {more}"]
    if not whole:
        return [f"raise the camera to {lowest}-{highest} mm: at {s.height_mm:g} mm it sees {coverage:.0%} of "
                f"the board, and the whole board and a {FRAME_MARGIN - 1:.0%} border need {lowest} mm"]
    if px_per_cell < RELIABLE_PX_PER_CELL:
        return [f"lower the camera to {lowest}-{highest} mm, or print markers of "
                f"{marker_mm_needed(s, s.height_mm):g} mm at {s.height_mm:g} mm: a {s.marker_mm:g} mm marker "
                f"is {px_per_cell:.1f} px a cell there, reliable from {RELIABLE_PX_PER_CELL:g}"]
    return []


def plan(s: Setup) -> dict[str, Any]:
    """Coverage, marker size in pixels, the verdict and the heights that work (JSON-able). `reading` and
    `reliable` are the whole set-up's verdict (markers out of view are not read); `marker_reading` is the
    markers' size alone."""
    f = s.camera.focal_px(s.resolution)
    w, h = s.resolution
    board_w, board_h = s.oriented()
    foot_w, foot_h = w * s.height_mm / f, h * s.height_mm / f  # mm of board across the frame
    coverage = min(1.0, foot_w / board_w) * min(1.0, foot_h / board_h)
    whole = foot_w >= board_w * FRAME_MARGIN and foot_h >= board_h * FRAME_MARGIN
    px_per_mm = f / s.height_mm
    px_per_cell = px_per_mm * s.marker_mm / CELLS
    lowest, highest = heights_mm(s)
    return {
        "camera": s.camera.name, "title": s.camera.title, "resolution": list(s.resolution),
        "fov_deg": [round(v, 1) for v in s.camera.fov_deg(s.resolution)], "focal_px": round(f, 1),
        "height_mm": s.height_mm, "board_in": list(s.board_in), "marker_mm": s.marker_mm,
        "footprint_in": [round(foot_w / MM_PER_INCH, 1), round(foot_h / MM_PER_INCH, 1)],
        "coverage": round(coverage, 3), "whole_board": whole,
        "px_per_mm": round(px_per_mm, 3), "marker_px": round(px_per_mm * s.marker_mm, 1),
        "px_per_cell": round(px_per_cell, 2),
        "reading": verdict(px_per_cell) if whole else "unreliable", "marker_reading": verdict(px_per_cell),
        "reliable": whole and px_per_cell >= RELIABLE_PX_PER_CELL,
        "threshold": {"reliable_px_per_cell": RELIABLE_PX_PER_CELL,
                      "marginal_px_per_cell": MARGINAL_PX_PER_CELL,
                      "why": "100% of markers with real-camera damage at 3 px a cell (bench/vision); from 2 "
                             "to 3 px clean frames read, blurred or compressed ones lose markers"},
        "height_needed_mm": {"whole_board_from": lowest, "reliable_up_to": highest,
                             "works": lowest <= highest},
        "marker_mm_needed": marker_mm_needed(s, lowest),
        "advice": advice(s, whole, coverage, px_per_cell),
    }


def config_finding(config: Config) -> tuple[bool, str, str]:
    """(ok, detail, fix) for `doctor`: the configured camera's plan, or a note that none is configured."""
    setup = configured_setup(config)
    if setup is None:
        return True, ("not checked: set [camera] model and mount_height_mm to check coverage and marker "
                      "size (smarttable plan-camera)"), ""
    p = plan(setup)
    w, h = p["resolution"]
    detail = (f"{p['camera']} at {p['height_mm']:g} mm, {w}x{h}: {p['reading']}: sees {p['coverage']:.0%} of "
              f"the board, {p['marker_mm']:g} mm markers {p['px_per_cell']:.1f} px a cell (reliable from "
              f"{RELIABLE_PX_PER_CELL:g})")
    return bool(p["reliable"]), detail, "; ".join(p["advice"])
