"""The table config (TOML under `firmware_cfg/`): loaded and validated in one place.

`SCHEMA` lists every known key with its type and default (from the section classes of
`table.config_schema`); a file may give any subset. Errors are one line naming the file, the dotted key
and what is wrong. `load_config()` returns a `Config`: frozen, typed sections with the defaults filled in.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from table.config_schema import (
    NUMBER,
    SECTIONS,
    Board,
    Camera,
    Game,
    Hardware,
    Key,
    Log,
    Markers,
    Mqtt,
    RigCamera,
    Section,
    Tracking,
    Web,
)
from table.errors import ConfigError
from table.files import read_capped
from table.strictjson import non_finite_path

__all__ = ["CAMERA_KEYS", "CONFIG_DIR", "DEFAULT_CONFIG", "NUMBER", "PACKAGE_ROOT", "SCHEMA", "Board",
           "Camera", "Config", "Game", "Hardware", "Key", "Log", "Markers", "Mqtt", "RigCamera", "Section",
           "Tracking", "Web", "default_config", "from_document", "load_config", "read_toml", "validate",
           "validate_cameras"]

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = PACKAGE_ROOT / "firmware_cfg"
DEFAULT_CONFIG = CONFIG_DIR / "table.toml"


SCHEMA: dict[str, dict[str, Key]] = {name: section.schema() for name, section in SECTIONS.items()}
CAMERA_KEYS: dict[str, Key] = RigCamera.schema()     # one [[cameras]] entry


@dataclass(frozen=True)
class Config:
    """A validated config: typed sections (`config.camera.fps`) with the defaults filled in; `source`
    names its file (None: the defaults alone), `cameras` its `[[cameras]]` entries."""

    board: Board
    markers: Markers
    camera: Camera
    tracking: Tracking
    game: Game
    hardware: Hardware
    web: Web
    log: Log
    mqtt: Mqtt
    source: Path | None = None
    cameras: tuple[RigCamera, ...] = ()

    @classmethod
    def build(cls, sections: Mapping[str, Mapping[str, Any]], source: Path | None = None,
              cameras: tuple[Mapping[str, Any], ...] = ()) -> Config:
        """The config from validated sections (`validate`, `validate_cameras`)."""
        typed = {name: section.build(sections[name]) for name, section in SECTIONS.items()}
        return cls(**typed, source=source, cameras=tuple(RigCamera.build(c) for c in cameras))  # type: ignore[arg-type]

    def camera_configs(self) -> list[Config]:
        """One config per `[[cameras]]` entry, its `camera` that entry (with its `area`); empty for a
        table with the one `[camera]`."""
        return [replace(self, camera=camera, cameras=()) for camera in self.cameras]

    def path(self, section: str, key: str) -> Path:
        """A path-valued key, relative to the config file's folder."""
        base = self.source.parent if self.source else CONFIG_DIR
        value: str = getattr(getattr(self, section), key)
        return (base / value).resolve()

    @property
    def corners(self) -> dict[int, tuple[float, float]]:
        return {int(k): v for k, v in self.markers.corners.items()}


def _type_name(types: type | tuple[type, ...]) -> str:
    if types is NUMBER:
        return "a number"
    names: dict[type | tuple[type, ...], str] = {
        bool: "true or false", int: "an integer", str: "a string", dict: "a table", float: "a number"}
    return names.get(types, str(types))


def validate(document: Mapping[str, Any], source: str) -> dict[str, dict[str, Any]]:
    """Check a parsed TOML document against SCHEMA; return the sections with defaults filled in."""
    sections: dict[str, dict[str, Any]] = {}
    for section, value in document.items():
        if section == "cameras":           # [[cameras]]: validate_cameras()
            continue
        if section not in SCHEMA:
            raise ConfigError(f"{source}: [{section}]: unknown section (known: {', '.join(SCHEMA)}, cameras)")
        if not isinstance(value, dict):
            raise ConfigError(f"{source}: {section}: expected a [{section}] table")
    for section, keys in SCHEMA.items():
        sections[section] = _keys(document.get(section, {}), keys, source, section)
    _check_corners(sections["markers"]["corners"], source, "markers.corners")
    _check_corners(sections["markers"]["edges"], source, "markers.edges")
    return sections


def _keys(given: Mapping[str, Any], keys: Mapping[str, Key], source: str, where: str) -> dict[str, Any]:
    """One table of keys checked against `keys`, with the defaults filled in."""
    out: dict[str, Any] = {}
    for key, value in given.items():
        if key not in keys:
            raise ConfigError(f"{source}: {where}.{key}: unknown key (known: {', '.join(keys)})")
        spec = keys[key]
        if isinstance(value, bool) and spec.types is not bool or not isinstance(value, spec.types):
            expected = _type_name(spec.types)
            raise ConfigError(f"{source}: {where}.{key}: expected {expected}, got {value!r}")
        problem = spec.check(value) if spec.check else None
        if problem:
            raise ConfigError(f"{source}: {where}.{key}: {problem}")
        out[key] = float(value) if spec.types is NUMBER and isinstance(value, NUMBER) else value
    for key, spec in keys.items():
        out.setdefault(key, spec.default)
    return out


def validate_cameras(document: Mapping[str, Any], source: str) -> tuple[dict[str, Any], ...]:
    """The `[[cameras]]` entries of a TOML document (none: the one `[camera]`), defaults filled in."""
    cameras = document.get("cameras", [])
    if not isinstance(cameras, list) or not all(isinstance(c, dict) for c in cameras):
        raise ConfigError(f"{source}: cameras: expected [[cameras]] tables, one per camera")
    if cameras and "camera" in document:
        raise ConfigError(f"{source}: cameras: give one [camera] or several [[cameras]], not both")
    out = tuple(_keys(c, CAMERA_KEYS, source, f"cameras[{i}]") for i, c in enumerate(cameras))
    for i, camera in enumerate(out):
        if len(out) > 1 and not camera["area"]:
            raise ConfigError(f"{source}: cameras[{i}].area: each of several cameras needs the part of the "
                              "board it looks at, [x0, y0, x1, y1]")
    return out


def _check_corners(corners: Mapping[str, Any], source: str, where: str) -> None:
    for marker_id, point in corners.items():
        if not str(marker_id).isdigit():
            raise ConfigError(f"{source}: {where}.{marker_id}: a marker id must be a whole number")
        ok = (isinstance(point, list) and len(point) == 2
              and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in point))
        if not ok:
            raise ConfigError(f"{source}: {where}.{marker_id}: expected [x, y] in inches, got {point!r}")


def load_config(path: str | Path | None = None) -> Config:
    """Load a table config; None loads `firmware_cfg/table.toml`."""
    path = Path(path) if path is not None else DEFAULT_CONFIG
    document = read_toml(path, "file")
    return from_document(document, str(path), path.resolve())


def from_document(document: Mapping[str, Any], source: str, path: Path | None = None) -> Config:
    """The config a parsed TOML document describes (`source` names it in errors; `path`: its file, which
    relative paths start from)."""
    return Config.build(validate(document, source), path, validate_cameras(document, source))


def read_toml(path: str | Path, what: str) -> dict[str, Any]:
    """Read one firmware_cfg TOML document; a missing, unreadable or malformed file is a ConfigError
    naming the path (`what` says what was looked for: "pin map file", "LED layout file"...)."""
    path = Path(path)
    data = read_capped(path, what, ConfigError)
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}): TOML files are UTF-8") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: arrays or tables nested too deep") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    infinite = non_finite_path(document)     # TOML allows inf and nan; nothing on a table is infinite
    if infinite is not None:
        raise ConfigError(f"{path}: {infinite}: must be a finite number")
    return document


def default_config() -> Config:
    """The schema's defaults alone (no file)."""
    return from_document({}, "<defaults>")
