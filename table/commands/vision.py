"""Vision subcommands: `locate`, `detect`, `markers`, `plan-camera`, `calibrate-lens` (see docs/vision.md).

OpenCV is imported inside the handlers, so other commands start without it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from table.config import DEFAULT_CONFIG, Config, load_config

if TYPE_CHECKING:
    import numpy as np

    from vision.charuco import CharucoSpec

OUT_HELP = ("intrinsics file to write (default: where the config looks: its [camera] intrinsics, else "
            "lens.toml beside the config file)")


def register(subparsers: argparse._SubParsersAction) -> None:
    locate = subparsers.add_parser("locate", help="model markers in a board photo, in board inches",
                                   description="Calibrate from the corner markers and print every model "
                                               "marker's position and heading in board inches.")
    locate.add_argument("image", help="photo of the board (PNG, JPEG, ...)")
    locate.add_argument("--config", help="table config (TOML); default firmware_cfg/table.toml")
    locate.set_defaults(handler=run_locate)

    detect = subparsers.add_parser("detect", help="markers in an image, in pixels",
                                   description="Every marker of a dictionary in an image: corners (the "
                                               "marker's own order) and centre in pixels.")
    detect.add_argument("image")
    detect.add_argument("--dictionary", default="DICT_APRILTAG_36h11",
                        help="marker family: an OpenCV dictionary name, or an AprilTag 3 family by the "
                             "AprilTag library's name (tagStandard41h12, ...; docs/config.md)")
    detect.add_argument("--config", help="table config (TOML): with [markers] stickers, the ring stickers "
                                         "too (calibrated from the corner markers)")
    detect.set_defaults(handler=run_detect)

    markers = subparsers.add_parser("markers", help="write printable marker sheets (PDF or PNG)",
                                    description="Printable sheets of model markers (and the corner markers) "
                                                "at their true size; print at 100%.")
    markers.add_argument("out", help="output file: .pdf (all pages) or .png (one file a page); with --tiles "
                                     "a folder")
    markers.add_argument("--ids", help="model marker ids, e.g. 10-69,80 (default: the ids of [markers] "
                                       "stickers, else 10-69)")
    markers.add_argument("--base-mm", help="print the ids as ring stickers for bases of this size: round "
                                           "(25) or an oval's or a stand's LxW (60x35: the ring for its "
                                           "narrower side) (default: as [markers] stickers assigns them)")
    markers.add_argument("--tiles", action="store_true",
                         help="write one PNG a sticker and corner marker into the folder OUT, and "
                              "OUT/tiles.json (for checks that paste them into their own renders)")
    markers.add_argument("--size-mm", type=float, help="black square side (default [markers] model_size_mm)")
    markers.add_argument("--no-corners", action="store_true", help="leave out the corner markers")
    markers.add_argument("--no-pointer", action="store_true", help="leave out the pointer token")
    markers.add_argument("--page", choices=("a4", "letter"), default="a4")
    markers.add_argument("--dpi", type=int, default=300)
    markers.add_argument("--panel-url", nargs="?", const="", metavar="URL",
                         help="add a page with the panel's address as a QR code (default address: "
                              "http://smarttable.local:PORT/, the name deploy/install-pi.sh gives the Pi)")
    markers.add_argument("--config", help="table config (TOML)")
    markers.set_defaults(handler=run_markers)

    planner = subparsers.add_parser("plan-camera", help="will a camera see the board and read its markers",
                                    description="Board coverage, pixels per marker cell, whether detection "
                                                "will be reliable, and the camera heights that work.")
    planner.add_argument("--camera", required=True,
                         help="cm3, cm3-wide, hq-6mm or usb-fov:DEGREES (a webcam's diagonal field)")
    planner.add_argument("--height-mm", type=float, required=True, help="lens above the board, mm")
    planner.add_argument("--board", default="48x48", help="board in inches, WxH (default 48x48)")
    planner.add_argument("--marker-mm", type=float, default=15.0,
                         help="a model marker's black square (default 15)")
    planner.add_argument("--resolution", help="capture size WxH (default the camera's full resolution)")
    planner.add_argument("--base-mm",
                         help="the models' base: round (25) or an oval's LxW (60x35; a 6 mm stand's or a "
                              "vehicle hull's roof: its narrower side, on foot): which ring sticker to print "
                              "and where it reads under the model")
    planner.add_argument("--model", choices=("foot", "cavalry"),
                         help="a figure on foot, or a rider on a horse standing along the base (default: "
                              "cavalry on an oval, on foot on a round base)")
    planner.add_argument("--model-height-mm", type=float,
                         help="the models' height above the base (default a typical model for --base-mm)")
    planner.add_argument("--model-width-mm", type=float,
                         help="the models' body across (default a typical model for --base-mm)")
    planner.set_defaults(handler=run_plan_camera)

    lens = subparsers.add_parser("calibrate-lens", help="lens calibration with a ChArUco board",
                                 description="Print a ChArUco board (`board`), then solve the lens from "
                                             "photos of it (`solve`) or from the camera (`capture`).")
    actions = lens.add_subparsers(dest="action", required=True, metavar="ACTION")
    board = actions.add_parser("board", help="write the ChArUco board to print (.png or .pdf)")
    board.add_argument("out")
    board.add_argument("--dpi", type=int, default=300)
    board.add_argument("--page", choices=("a4", "letter"), default="a4")
    _charuco_args(board)
    board.set_defaults(handler=run_lens_board)
    solve = actions.add_parser("solve", help="solve the lens from photos of the board, save the intrinsics")
    solve.add_argument("images", nargs="+", help="photos (or folders of photos) of the board, 10+ angles")
    solve.add_argument("--config", help="table config (TOML) that will read the intrinsics")
    solve.add_argument("--out", help=OUT_HELP)
    _charuco_args(solve)
    solve.set_defaults(handler=run_lens_solve)
    capture = actions.add_parser("capture", help="collect views from the configured camera, then solve")
    capture.add_argument("--config", help="table config (TOML)")
    capture.add_argument("--views", type=int, default=15, help="views to collect (default 15)")
    capture.add_argument("--interval", type=float, default=2.0, help="seconds between views (move the board)")
    capture.add_argument("--save", help="folder to keep the views in")
    capture.add_argument("--out", help=OUT_HELP)
    _charuco_args(capture)
    capture.set_defaults(handler=run_lens_capture)


def _charuco_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--squares", default="7x5", help="columns x rows of squares (default 7x5)")
    parser.add_argument("--square-mm", type=float, default=30.0)
    parser.add_argument("--marker-mm", type=float, default=22.0)
    parser.add_argument("--dictionary", default="DICT_5X5_100")


def _charuco_spec(args: argparse.Namespace) -> CharucoSpec:
    from table.errors import ConfigError
    from vision.charuco import CharucoSpec

    cols, sep, rows = args.squares.partition("x")
    if not (sep and cols.isdigit() and rows.isdigit() and int(cols) >= 3 and int(rows) >= 3):
        raise ConfigError(f"--squares {args.squares!r}: expected COLSxROWS, at least 3x3")
    return CharucoSpec((int(cols), int(rows)), args.square_mm, args.marker_mm, args.dictionary)


def run_locate(args: argparse.Namespace) -> Any:
    from vision.images import read_image
    from vision.locate import VisionSetup, locate

    config = load_config(args.config)
    image = read_image(args.image)
    return locate(image, VisionSetup.from_config(config)).to_dict()


def run_detect(args: argparse.Namespace) -> Any:
    from vision.detect import detect_markers
    from vision.families import family
    from vision.images import read_image

    family(args.dictionary)  # an unknown name is a user's mistake, before reading the image
    setup = None
    if args.config:
        from vision.locate import VisionSetup

        setup = VisionSetup.from_config(load_config(args.config))
    image = read_image(args.image)
    found = detect_markers(image, args.dictionary)
    if setup is not None and setup.stickers:
        from vision.locate import calibrate_frame, find_stickers

        calibration = calibrate_frame(found, setup, image.shape)
        if calibration is not None:
            found += sorted(find_stickers(image, setup, calibration), key=lambda d: d.id)
    return {"markers": [d.to_dict() for d in found]}


def run_markers(args: argparse.Namespace) -> Any:
    from table.errors import ConfigError
    from vision import ringcode
    from vision.sheets import SheetSpec, parse_ids, write_sheets
    from vision.sticker import Sticker
    from vision.sticker_plan import Base
    from vision.sticker_sheets import sticker_pages

    config = load_config(args.config)
    m = config.markers
    assigned = {int(i): float(b) for b, ids in m.stickers.items() for i in parse_ids(ids)}
    ids = parse_ids(args.ids) if args.ids else tuple(sorted(assigned)) or parse_ids("10-69")
    corner_ids = () if args.no_corners else tuple(sorted(int(k) for k in {**m.corners, **m.edges}))
    pointer = None if args.no_pointer else int(m.pointer_id)
    clash = sorted(set(ids) & (set(corner_ids) | {pointer}))
    if clash:
        raise ConfigError(f"--ids {args.ids}: {clash} are corner markers or the pointer in the config")
    if args.base_mm is not None:
        ring_mm = Base.parse(args.base_mm).width_mm  # an oval's ring fits its narrower side
        Sticker(ring_mm)  # too small a base is named before anything is written
        stickers = {i: ring_mm for i in ids}
    else:
        stickers = {i: assigned[i] for i in ids if i in assigned}
    squares = tuple(i for i in ids if i not in stickers)
    beyond = sorted(i for i in stickers if i >= ringcode.ids())
    if beyond:
        raise ConfigError(f"--ids: ring stickers have ids 0-{ringcode.ids() - 1}, not {beyond[0]}")
    if args.size_mm is not None and not args.size_mm > 0:
        raise ConfigError(f"--size-mm {args.size_mm:g}: a marker's side must be more than 0 mm")
    size_mm = float(m.model_size_mm) if args.size_mm is None else args.size_mm
    if args.tiles:
        return _write_tiles(args, config, stickers, squares, corner_ids, size_mm)
    panel_url = None
    if args.panel_url is not None:
        panel_url = args.panel_url or f"http://smarttable.local:{config.web.port}/"
    spec = SheetSpec(m.dictionary, squares, size_mm, corner_ids,
                     float(m.corner_size_mm), pointer, args.page, args.dpi, panel_url=panel_url)
    paths, pages = write_sheets(spec, args.out, sticker_pages(stickers, spec) if stickers else [])
    return {"files": [str(p) for p in paths], "pages": pages,
            **({"panel_url": panel_url} if panel_url else {}),
            "markers": list(squares), "corners": list(corner_ids), "pointer": pointer,
            "size_mm": spec.size_mm, "dictionary": spec.dictionary,
            **({"stickers": {str(i): b for i, b in sorted(stickers.items())}} if stickers else {})}


def _write_tiles(args: argparse.Namespace, config: Config, stickers: dict[int, float],
                 squares: tuple[int, ...], corner_ids: tuple[int, ...], size_mm: float) -> Any:
    from vision.sheets import check_dpi
    from vision.sticker_sheets import write_tiles

    check_dpi(args.dpi)
    m = config.markers
    document = write_tiles(args.out, stickers, squares, corner_ids, m.dictionary, float(m.corner_size_mm),
                           size_mm, args.dpi)
    return {"folder": str(Path(args.out)), "file": str(Path(args.out) / "tiles.json"),
            "tiles": len(document["tiles"]), "markers_toml": document["markers_toml"]}


def _pair(option: str, text: str, kind: type) -> tuple:
    from table.errors import ConfigError

    a, sep, b = text.lower().partition("x")
    try:
        pair = (kind(a), kind(b)) if sep else None
    except ValueError:
        pair = None
    if pair is None or min(pair) <= 0:
        raise ConfigError(f"{option} {text!r}: expected WxH, both above 0 (e.g. 48x48)")
    return pair


def run_plan_camera(args: argparse.Namespace) -> Any:
    from table.errors import ConfigError
    from vision.cameras import camera_model
    from vision.planner import Setup, plan

    camera = camera_model(args.camera)
    for option, value in (("--height-mm", args.height_mm), ("--marker-mm", args.marker_mm)):
        if not value > 0:
            raise ConfigError(f"{option} {value:g}: must be more than 0")
    resolution = _pair("--resolution", args.resolution, int) if args.resolution else camera.resolution
    board = _pair("--board", args.board, float)
    setup = Setup(camera, args.height_mm, board, args.marker_mm, resolution)
    out = plan(setup)
    if args.base_mm is None and args.model_height_mm is None and args.model_width_mm is None \
            and args.model is None:
        return out
    from vision.sticker_plan import Base, standing, sticker_plan

    for option, value in (("--model-height-mm", args.model_height_mm),
                          ("--model-width-mm", args.model_width_mm)):
        if value is not None and not value > 0:
            raise ConfigError(f"{option} {value:g}: must be more than 0")
    if args.base_mm is None:
        raise ConfigError("--model, --model-height-mm and --model-width-mm need --base-mm: the base the "
                          "models stand on")
    base = Base.parse(args.base_mm)
    model = standing(base, args.model, args.model_height_mm, args.model_width_mm)
    return {**out, **sticker_plan(setup, base, model)}


def run_lens_board(args: argparse.Namespace) -> Any:
    from vision.charuco import write_board

    spec = _charuco_spec(args)
    path = write_board(spec, args.out, args.dpi, args.page)
    return {"file": str(path), "page": args.page, "squares": list(spec.squares), "square_mm": spec.square_mm,
            "marker_mm": spec.marker_mm, "dictionary": spec.dictionary,
            "board_mm": [spec.squares[0] * spec.square_mm, spec.squares[1] * spec.square_mm]}


def _image_paths(items: list[str]) -> list[Path]:
    from vision.sources import IMAGE_SUFFIXES

    paths: list[Path] = []
    for item in items:
        p = Path(item)
        paths += sorted(q for q in p.iterdir() if q.suffix.lower() in IMAGE_SUFFIXES) if p.is_dir() else [p]
    return paths


def _lens_target(config: Config, out: str | None) -> tuple[Path, str]:
    """Where to write the intrinsics (`--out`, else where the config reads them: its [camera]
    intrinsics, else lens.toml beside it) and a line saying how the config finds the file."""
    source = config.source or DEFAULT_CONFIG
    reads = config.path("camera", "intrinsics") if config.camera.intrinsics else None
    path = Path(out).resolve() if out else reads or source.parent / "lens.toml"
    if path == reads:
        return path, f"{source} reads it ([camera] intrinsics = {config.camera.intrinsics!r})"
    relative = os.path.relpath(path, source.parent)
    return path, f'to use it, set [camera] intrinsics = "{relative}" in {source}'


def _solve_and_save(spec: CharucoSpec, images: list[np.ndarray], config: Config, out: str | None,
                    names: list[str] | None = None) -> dict[str, Any]:
    from vision.charuco import solve
    from vision.lens import save_intrinsics

    target, use = _lens_target(config, out)
    intrinsics, used = solve(spec, images, names)
    path = save_intrinsics(intrinsics, target)
    print(f"smarttable calibrate-lens: wrote {path}; {use}", file=sys.stderr)
    return {"file": str(path), "views": len(images), "views_used": used,
            "rms_px": round(intrinsics.rms_px, 4),
            "camera_matrix": intrinsics.K.round(3).tolist(), "distortion": intrinsics.dist.round(6).tolist(),
            "config": use}


def run_lens_solve(args: argparse.Namespace) -> Any:
    from vision.images import read_image

    spec = _charuco_spec(args)
    config = load_config(args.config)
    paths = _image_paths(args.images)
    return _solve_and_save(spec, [read_image(p) for p in paths], config, args.out, [str(p) for p in paths])


def run_lens_capture(args: argparse.Namespace) -> Any:
    import time

    import cv2

    from table.errors import HardwareError
    from vision.sources import open_source

    spec = _charuco_spec(args)
    config = load_config(args.config)
    source = open_source(config, realtime=False)
    images: list[np.ndarray] = []
    try:
        while len(images) < args.views:
            frame = source.read()
            if frame is None:
                break
            images.append(frame.image)
            if args.save:
                Path(args.save).mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(Path(args.save) / f"view-{len(images):02d}.png"), frame.image)
            time.sleep(args.interval)
    finally:
        source.close()
    if not images:
        raise HardwareError("the camera gave no frames")
    return _solve_and_save(spec, images, config, args.out)
