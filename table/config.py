"""The table config (TOML under `firmware_cfg/`): loaded and validated in one place.

`SCHEMA` lists every known key with its type and default; a file may give any subset. Errors are
one line naming the file, the dotted key and what is wrong. `load_config()` returns a `Config`,
a read-only mapping of sections with the defaults filled in.
"""

from __future__ import annotations

import ipaddress
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from table.errors import ConfigError
from table.strictjson import non_finite_path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = PACKAGE_ROOT / "firmware_cfg"
DEFAULT_CONFIG = CONFIG_DIR / "table.toml"


@dataclass(frozen=True)
class Key:
    """One config key: its type(s), default and an optional check returning an error or None."""

    types: type | tuple[type, ...]
    default: Any
    check: Callable[[Any], str | None] | None = None


def _positive(value: Any) -> str | None:
    return None if value > 0 else f"must be greater than 0, got {value}"


def _at_least_zero(value: Any) -> str | None:
    return None if value >= 0 else f"must be at least 0, got {value}"


def _one_of(*choices: str) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        return None if value in choices else f"must be one of {', '.join(choices)}, got {value!r}"
    return check


def _rule_system(value: Any) -> str | None:
    """Empty (the scene's rule system), or the name of an installed one."""
    from table import registry  # here: reading entry points only when the key is given

    if value == "":
        return None
    known = registry.names()
    return None if value == "" or value in known else f"must be one of {', '.join(known)}, got {value!r}"


def _plugin(kind: str, *extra: str) -> Callable[[Any], str | None]:
    """A name in `table.plugins` (`kind`: "CAMERAS" or "STRIPS"), or one of `extra`."""
    def check(value: Any) -> str | None:
        from table import plugins  # here: reading entry points only when the key is given

        known = [*extra, *getattr(plugins, kind).names()]
        return None if value in known else f"must be one of {', '.join(known)}, got {value!r}"
    return check


def _unit_interval(value: Any) -> str | None:
    return None if 0 <= value <= 1 else f"must be between 0 and 1, got {value}"


def _between(low: int, high: int) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        return None if low <= value <= high else f"must be between {low} and {high}, got {value}"
    return check


_HOSTNAME = re.compile(r"^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                       r"(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$")


def _host(value: str) -> str | None:
    """An IP address or a host name the panel can listen on."""
    try:
        ipaddress.ip_address(value)
        return None
    except ValueError:
        pass
    return None if _HOSTNAME.match(value) else f"expected an IP address or a host name, got {value!r}"


MIN_PIN_DIGITS = 6


def _pin(value: str) -> str | None:
    """A configured PIN: at least six digits (empty: one is generated)."""
    if value == "" or (value.isascii() and value.isdigit() and len(value) >= MIN_PIN_DIGITS):
        return None
    return (f"must be at least {MIN_PIN_DIGITS} digits (or empty to generate one), "
            f"got {len(value)} character(s)")


def _host_list(value: list[Any]) -> str | None:
    bad = [v for v in value if not isinstance(v, str) or _host(v.rstrip("."))]
    return f"expected host names or IP addresses, got {bad[0]!r}" if bad else None


NUMBER = (int, float)

SCHEMA: dict[str, dict[str, Key]] = {
    "board": {
        "width": Key(NUMBER, 48.0, _positive),
        "height": Key(NUMBER, 48.0, _positive),
    },
    "markers": {
        "dictionary": Key(str, "DICT_APRILTAG_36h11"),
        "corner_size_mm": Key(NUMBER, 50.0, _positive),
        "model_size_mm": Key(NUMBER, 15.0, _positive),
        "model_height_mm": Key(NUMBER, 0.0, _at_least_zero),
        "model_height_sigma_mm": Key(NUMBER, 1.0, _at_least_zero),
        "pointer_id": Key(int, 500, _at_least_zero),
        "corners": Key(dict, {"0": [1.5, 1.5], "1": [46.5, 1.5], "2": [46.5, 46.5], "3": [1.5, 46.5]}),
        "edges": Key(dict, {}),
    },
    "camera": {
        "source": Key(str, "auto", _plugin("CAMERAS", "auto")),
        "index": Key(int, 0, _at_least_zero),
        "path": Key(str, ""),
        "width": Key(int, 2028, _between(1, 16384)),
        "height": Key(int, 1520, _between(1, 16384)),
        "fps": Key(NUMBER, 10.0, _positive),
        "exposure_us": Key(int, 0, _at_least_zero),
        "analogue_gain": Key(NUMBER, 0.0, _at_least_zero),
        "lens_position": Key(NUMBER, -1.0),
        "intrinsics": Key(str, ""),
        "model": Key(str, ""),
        "mount_height_mm": Key(NUMBER, 0.0, _at_least_zero),
    },
    "tracking": {
        "stable_frames": Key(int, 3, _positive),
        "occlusion_timeout_s": Key(NUMBER, 10.0, _positive),
        "full_pass_every": Key(int, 15, _positive),
        "move_threshold_in": Key(NUMBER, 0.05, _positive),
    },
    "game": {
        "ruleset": Key(str, "", _rule_system),
        "scene": Key(str, ""),
        "rulings": Key(dict, {}),
    },
    "hardware": {
        "mock": Key(bool, False),
        "pin_map": Key(str, "pins-pi4.toml"),
        "led_layout": Key(str, "leds/edge-strip.toml"),
        "strip": Key(str, "spi", _plugin("STRIPS")),
        "color_order": Key(str, "GRB", _one_of("RGB", "RBG", "GRB", "GBR", "BRG", "BGR")),
        "brightness": Key(NUMBER, 0.5, _unit_interval),
        "supply_amps": Key(NUMBER, 4.0, _positive),
        "gamma": Key(NUMBER, 2.2, _positive),
        "strip_channels": Key(int, 3,   # 4 for an SK6812 RGBW strip
                              lambda v: None if v in (3, 4) else f"must be 3 (RGB) or 4 (RGBW), got {v!r}"),
    },
    "web": {
        "host": Key(str, "0.0.0.0", _host),
        "port": Key(int, 8080, _between(1, 65535)),
        "pin": Key(str, "", _pin),
        "allowed_hosts": Key(list, [], _host_list),
        "sse_interval_s": Key(NUMBER, 0.2, _positive),
    },
    "log": {
        "path": Key(str, "../var/game.sqlite3"),
    },
    "mqtt": {
        "url": Key(str, ""),
        "table_id": Key(str, ""),
        "topic_prefix": Key(str, "smarttable"),
        "username": Key(str, ""),
        "password_file": Key(str, ""),
        "keepalive_s": Key(int, 10, _positive),
        "state_interval_s": Key(NUMBER, 0.5, _positive),
    },
}


class Config(Mapping[str, Mapping[str, Any]]):
    """A validated config: sections of keys with defaults filled in; `source` names its file."""

    def __init__(self, sections: dict[str, dict[str, Any]], source: Path | None,
                 cameras: tuple[dict[str, Any], ...] = ()):
        self._sections = {k: MappingProxyType(v) for k, v in sections.items()}
        self.source = source
        self.cameras = cameras

    def camera_configs(self) -> list[Config]:
        """One config per `[[cameras]]` entry, its `[camera]` section that entry's keys (with its
        `area`); empty for a table with the one `[camera]`."""
        sections = {k: dict(v) for k, v in self._sections.items()}
        return [Config({**sections, "camera": dict(camera)}, self.source) for camera in self.cameras]

    def __getitem__(self, section: str) -> Mapping[str, Any]:
        return self._sections[section]

    def __iter__(self) -> Iterator[str]:
        return iter(self._sections)

    def __len__(self) -> int:
        return len(self._sections)

    def path(self, section: str, key: str) -> Path:
        """A path-valued key, relative to the config file's folder."""
        base = self.source.parent if self.source else CONFIG_DIR
        return (base / Path(self[section][key])).resolve()

    @property
    def corners(self) -> dict[int, tuple[float, float]]:
        return {int(k): (float(v[0]), float(v[1])) for k, v in self["markers"]["corners"].items()}


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


def _area(value: Any) -> str | None:
    ok = (len(value) == 4 and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
          and value[0] < value[2] and value[1] < value[3])
    return None if ok else f"expected [x0, y0, x1, y1] in board inches, x0 < x1 and y0 < y1, got {value!r}"


# one [[cameras]] entry: a [camera] section of its own, plus the part of the board it looks at
# (`source = "mqtt"`: a camera on another machine that publishes what it sees: docs/club.md)
CAMERA_KEYS: dict[str, Key] = {
    **SCHEMA["camera"],
    "source": Key(str, "auto", _plugin("CAMERAS", "auto", "mqtt")),
    "area": Key(list, [], _area),
}


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
    return Config(validate(document, str(path)), path.resolve(), validate_cameras(document, str(path)))


def read_toml(path: str | Path, what: str) -> dict[str, Any]:
    """Read one firmware_cfg TOML document; a missing, unreadable or malformed file is a ConfigError
    naming the path (`what` says what was looked for: "pin map file", "LED layout file"...)."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            document = tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such {what}") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a {what}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
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
    return Config(validate({}, "<defaults>"), None)
