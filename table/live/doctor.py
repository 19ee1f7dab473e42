"""`smarttable doctor`: check what a table needs (config, pin map, LED layout, GPIO, SPI, camera,
markers in view, calibration, game log) and say what to fix."""

from __future__ import annotations

import grp
import importlib.util
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from table.config import Config, load_config
from table.errors import SetupError, TableError

if TYPE_CHECKING:
    from vision.focus import Focus

Finding = dict[str, Any]
MIN_FREE_BYTES = 1 << 20     # less free space than this beside the game log is a fault
LOCK_WAIT_S = 3.0            # longer than any write of the running table holds the lock


def _finding(check: str, ok: bool, detail: str, fix: str = "") -> Finding:
    return {"check": check, "ok": ok, "detail": detail, **({"fix": fix} if not ok and fix else {})}


def check_layout_and_pins(config: Config) -> list[Finding]:
    from table.hw.pinmap import load_pin_map
    from table.hw.strip import ColourCorrection
    from table.live.leds import load_layout

    out = []
    try:
        pins = load_pin_map(config.path("hardware", "pin_map"))
        out.append(_finding("pin map", True, f"{config.hardware.pin_map}: factory {pins.factory}, "
                                             f"buttons on GPIO {sorted(pins.buttons.values())}"))
    except TableError as exc:
        out.append(_finding("pin map", False, str(exc),
                            "fix the pin map file named, or set hardware.pin_map"))
    try:
        layout = load_layout(config.path("hardware", "led_layout"))
        hw = config.hardware
        cap = ColourCorrection(len(layout), hw.color_order, hw.gamma, hw.brightness,
                               hw.supply_amps, hw.strip_channels).full_white_cap
        out.append(_finding("LED layout", True, f"{layout.name}: {len(layout)} LEDs; all-white frames are "
                                                f"dimmed to {cap:.0%} for a {hw.supply_amps:g} A supply"))
    except TableError as exc:
        out.append(_finding("LED layout", False, str(exc),
                            "fix the layout file named, or set hardware.led_layout"))
    return out


def check_gpio() -> Finding:
    chips = sorted(p.name for p in Path("/dev").glob("gpiochip*"))
    if not chips:
        return _finding("GPIO", False, "no /dev/gpiochip*: not a Raspberry Pi (or GPIO is hidden from this "
                        "container)", "run on the Pi, or use --demo / hardware.mock = true")
    try:
        members = grp.getgrnam("gpio").gr_gid in os.getgroups()
    except KeyError:
        members = os.geteuid() == 0
    if not members and not os.access(f"/dev/{chips[0]}", os.R_OK | os.W_OK):
        return _finding("GPIO", False, f"{', '.join(chips)} present but not usable by this user",
                        "sudo usermod -aG gpio $USER, then log out and in")
    if not importlib.util.find_spec("lgpio") and not importlib.util.find_spec("RPi"):
        return _finding("GPIO", False, "no GPIO library for gpiozero (lgpio or RPi.GPIO)",
                        "sudo apt install python3-lgpio (the venv needs --system-site-packages)")
    return _finding("GPIO", True, f"{', '.join(chips)} usable")


def check_spi() -> Finding:
    if not Path("/dev/spidev0.0").exists():
        return _finding("SPI", False, "/dev/spidev0.0 is missing: SPI is off",
                        "sudo raspi-config nonint do_spi 0 (or dtparam=spi=on in config.txt), then reboot")
    if not os.access("/dev/spidev0.0", os.R_OK | os.W_OK):
        return _finding("SPI", False, "/dev/spidev0.0 is not writable by this user",
                        "sudo usermod -aG spi $USER, then log out and in")
    if not importlib.util.find_spec("spidev"):
        return _finding("SPI", False, "the spidev package is missing",
                        "pip install spidev (or pip install .[pi])")
    return _finding("SPI", True, "/dev/spidev0.0 ready for the LED strip")


def check_camera(config: Config) -> list[Finding]:
    """Open the camera, read a frame, run the vision pipeline on a few frames."""
    try:
        from vision.pipeline import VisionPipeline
        from vision.sources import open_source
    except ImportError as exc:
        return [_finding("camera", False, f"vision is not installed ({exc})", "pip install -e .")]
    try:
        source = open_source(config)
    except SetupError as exc:
        return [_finding("camera", False, str(exc), "bash deploy/install-pi.sh (then doctor again)")]
    except TableError as exc:
        return [_finding("camera", False, str(exc), "check the ribbon cable (Pi camera) or USB, "
                         "`rpicam-hello --list-cameras`, and [camera] source in the config")]
    try:
        pipeline = VisionPipeline(config)
        observation, size = None, ""
        for _ in range(4):
            frame = source.read()
            if frame is None:
                break
            observation = pipeline.process(frame)
            size = f"{frame.image.shape[1]}x{frame.image.shape[0]}"
    except TableError as exc:
        return [_finding("camera", False, f"camera opened but failed: {exc}", "reseat the camera cable")]
    finally:
        source.close()
    if observation is None:
        return [_finding("camera", False, "the camera gave no frames", "check [camera] source and path")]
    found = [_finding("camera", True, f"{type(source).__name__}: frames of {size}")]
    corners = config.corners
    seen = sorted(observation.markers)
    found.append(_finding("markers in view", bool(seen), f"model markers seen: {seen or 'none'}",
                          "put a model marker on the board; check the light and the focus"))
    if observation.calibrated:
        error = observation.reprojection_error_px
        detail = "board located" + (f"; reprojection error {error:.2f} px" if error is not None else "")
        found.append(_finding("calibration", True, detail))
        if observation.lens is not None:
            found.append(lens_finding(observation.lens))
        if pipeline.focus is not None:
            found.append(focus_finding(pipeline.focus))
    else:
        why = "; ".join(observation.warnings) or "corner markers not seen"
        found.append(_finding("calibration", False, f"board not located; {why}",
                              f"make corner markers {sorted(corners)} visible, flat and unobstructed"))
    return found


def focus_finding(focus: Focus) -> Finding:
    """How sharp the camera sees the board (vision/focus.py, measured by the pipeline on the corner
    markers): whether the smallest ring stickers in use read at that blur."""
    detail = f"edges blurred by {focus.blur_px:.1f} px (sigma, measured on the corner markers)"
    if focus.limit_px is not None:
        detail += f"; ring stickers on {focus.base_mm:g} mm bases read reliably up to {focus.limit_px:.1f} px"
    return _finding("focus", not focus.too_soft, detail,
                    "focus the lens on the board: turn its focus ring until the corner markers' edges are "
                    "sharpest (docs/vision.md, \"Focus\")")


def lens_finding(lens: dict[str, Any]) -> Finding:
    """The lens as the table sees it: calibrated (and checked against the board), estimated from the board
    (from how many markers, its residual), or assumed (too few models to see it)."""
    fitted = ""
    if lens.get("markers"):
        fitted = (f"{lens['markers']} model markers and {lens['corners']} corner-marker corners, residual "
                  f"{lens['residual_px']:.3f} px: focal length {lens['focal_px']:.0f} px, "
                  f"k1 {lens['k1']:.4f} +- {lens['k1_sd']:.4f}, k2 {lens['k2']:.4f} +- {lens['k2_sd']:.4f}")
    if lens["check"]:
        return _finding("lens", False, lens["check"] + (f" (the board: {fitted})" if fitted else ""),
                        "smarttable calibrate-lens capture (docs/vision.md), or unset [camera] intrinsics to "
                        "let the table estimate the lens from the board")
    if lens["source"] == "calibrated":
        agrees = f"; the board agrees ({fitted})" if fitted else ""
        return _finding("lens", True, "calibrated ([camera] intrinsics)" + agrees)
    if lens["source"] == "estimated":
        return _finding("lens", True, f"estimated from the board: {fitted}")
    return _finding("lens", False, "assumed: too few model markers in view to estimate it, so the error bars "
                    "are wide", "put at least 3 models with markers on the board, or run smarttable "
                    "calibrate-lens")


def check_camera_plan(config: Config) -> Finding:
    """Will the configured camera, at its height, see the board and read its markers (vision.planner)."""
    from vision.planner import config_finding

    try:
        return _finding("camera plan", *config_finding(config))
    except TableError as exc:
        return _finding("camera plan", False, str(exc), "fix [camera] model in the config")


def check_log(config: Config) -> Finding:
    from table.live.gamelog import GameLog

    path = config.path("log", "path")
    if not path.exists():
        try:  # the folder the first run would create, and a file in it
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryFile(dir=path.parent):
                pass
        except OSError as exc:
            return _finding("game log", False, f"{path}: cannot be created ({exc.strerror})",
                            "set [log] path to a writable place, e.g. /var/lib/smarttable/game.sqlite3")
        return _finding("game log", True, f"{path}: no games yet (the first run creates it)")
    try:
        log = GameLog(path)
        try:
            integrity, games = log.integrity(), log.games()
        finally:
            log.close()
    except (TableError, OSError) as exc:
        return _finding("game log", False, str(exc), "check [log] path and that its folder is writable")
    if integrity != "ok":
        return _finding("game log", False, f"{path}: {integrity}", "move the file away; a new log starts")
    fault = log_write_fault(path)
    if fault:
        return fault
    return _finding("game log", True, f"{path}: {len(games)} game(s)")


def log_write_fault(path: Path) -> Finding | None:
    """A finding if the log could not take a write now: its filesystem is full, or another process
    holds its write lock."""
    free = shutil.disk_usage(path.parent).free
    if free < MIN_FREE_BYTES:
        return _finding("game log", False, f"{path}: the filesystem holding it is full ({free} bytes free): "
                        "changes cannot be saved", "free space there, or set [log] path to another disk")
    db = sqlite3.connect(str(path), timeout=LOCK_WAIT_S, isolation_level=None)
    try:
        db.execute("BEGIN IMMEDIATE")
        db.execute("ROLLBACK")
    except sqlite3.OperationalError as exc:
        return _finding("game log", False, f"{path}: cannot be written ({exc}): another process holds "
                        "its write lock", "stop the other program using the file (`fuser` names it)")
    finally:
        db.close()
    return None


def diagnose(config_path: str | None) -> dict[str, Any]:
    """Every finding, and whether the table is ready."""
    try:
        config = load_config(config_path)
    except TableError as exc:
        finding = _finding("config", False, str(exc), "fix the key named in the config file")
        return {"ok": False, "checks": [finding]}
    checks: list[Finding] = [_finding("config", True, str(config.source))]
    steps: list[Callable[[], Finding | list[Finding]]] = [
        lambda: check_layout_and_pins(config), check_gpio, check_spi, lambda: check_camera_plan(config),
        lambda: check_camera(config), lambda: check_log(config)]
    for step in steps:
        result = step()
        checks.extend(result if isinstance(result, list) else [result])
    return {"ok": all(c["ok"] for c in checks), "checks": checks,
            "fix": [f"{c['check']}: {c['fix']}" for c in checks if not c["ok"] and c.get("fix")]}
