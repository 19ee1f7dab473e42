"""The config's keys, in one place: each `[section]` is a frozen dataclass whose fields are its keys,
each field declaring its TOML type(s), default and check (`setting`). `table.config` validates a TOML
document against them (`SCHEMA`, derived from these classes) and builds a `Config` of these sections;
readers use attributes (`config.camera.fps`).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Self


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


def _channels(value: Any) -> str | None:
    return None if value in (3, 4) else f"must be 3 (RGB) or 4 (RGBW), got {value!r}"


def _area(value: Any) -> str | None:
    ok = (len(value) == 4 and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
          and value[0] < value[2] and value[1] < value[3])
    return None if ok else f"expected [x0, y0, x1, y1] in board inches, x0 < x1 and y0 < y1, got {value!r}"


def id_ranges(text: str) -> tuple[int, ...]:
    """Marker ids written as ranges and single ids, "10-49,60": sorted, each once (ValueError names the
    part that is not one)."""
    out: set[int] = set()
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise ValueError(f"{part.strip()!r} is not an id or a range of ids (e.g. 10-49,60)")
        low, high = int(first), int(last) if dash else int(first)
        if high < low:
            raise ValueError(f"{part.strip()!r}: the range runs backwards")
        out.update(range(low, high + 1))
    return tuple(sorted(out))


def _stickers(value: Mapping[str, Any]) -> str | None:
    """Base size in mm (a number, 20-200) -> the ids printed at that size; no id at two sizes."""
    seen: dict[int, str] = {}
    for size, ids in value.items():
        try:
            base = float(size)
        except ValueError:
            base = -1.0
        if not 20 <= base <= 200:
            return (f"{size!r}: a base's size in millimetres, 20-200 (e.g. \"25\" = \"10-49\"; an oval's or "
                    f"a stand's ring: its narrower side, \"35\" for 60x35)")
        if not isinstance(ids, str):
            return f"{size}: expected the ids as a string of ranges (e.g. \"10-49,60\"), got {ids!r}"
        try:
            listed = id_ranges(ids)
        except ValueError as exc:
            return f"{size}: {exc}"
        for i in listed:
            if i in seen:
                return f"id {i} is given to both {seen[i]} and {size} mm bases"
            seen[i] = size
    return None


NUMBER = (int, float)


def setting(types: type | tuple[type, ...], default: Any,
            check: Callable[[Any], str | None] | None = None) -> Any:
    """A section field that is a config key: its TOML type(s) (NUMBER: an int or float, read as float),
    the default a file may leave out, and a check returning an error or None."""
    return field(metadata={"key": Key(types, default, check)})


def _frozen(value: Any) -> Any:
    """A validated TOML value as it is kept: a table read-only, an array a tuple."""
    if isinstance(value, dict):
        return MappingProxyType(dict(value))
    return tuple(value) if isinstance(value, list) else value


@dataclass(frozen=True)
class Section:
    """A config section: its fields are its keys."""

    @classmethod
    def schema(cls) -> dict[str, Key]:
        """The section's keys, in file order."""
        return {f.name: f.metadata["key"] for f in fields(cls)}

    @classmethod
    def build(cls, values: Mapping[str, Any]) -> Self:
        """The section from validated values (every key present)."""
        return cls(**{name: _frozen(values[name]) for name in cls.schema()})



def _points(value: Mapping[str, Any]) -> Mapping[str, tuple[float, float]]:
    return MappingProxyType({str(k): (float(v[0]), float(v[1])) for k, v in value.items()})


@dataclass(frozen=True)
class Board(Section):
    width: float = setting(NUMBER, 48.0, _positive)
    height: float = setting(NUMBER, 48.0, _positive)


@dataclass(frozen=True)
class Markers(Section):
    dictionary: str = setting(str, "DICT_APRILTAG_36h11")
    corner_size_mm: float = setting(NUMBER, 50.0, _positive)
    model_size_mm: float = setting(NUMBER, 15.0, _positive)
    model_height_mm: float = setting(NUMBER, 0.0, _at_least_zero)
    model_height_sigma_mm: float = setting(NUMBER, 1.0, _at_least_zero)
    pointer_id: int = setting(int, 500, _at_least_zero)
    corners: Mapping[str, tuple[float, float]] = setting(
        dict, {"0": [1.5, 1.5], "1": [46.5, 1.5], "2": [46.5, 46.5], "3": [1.5, 46.5]})
    edges: Mapping[str, tuple[float, float]] = setting(dict, {})
    stickers: Mapping[str, str] = setting(dict, {}, _stickers)  # base mm -> ids of ring stickers

    def __post_init__(self) -> None:   # marker id -> centre: checked by table.config, kept as float pairs
        object.__setattr__(self, "corners", _points(self.corners))
        object.__setattr__(self, "edges", _points(self.edges))


@dataclass(frozen=True)
class Camera(Section):
    source: str = setting(str, "auto", _plugin("CAMERAS", "auto"))
    index: int = setting(int, 0, _at_least_zero)
    path: str = setting(str, "")
    width: int = setting(int, 2028, _between(1, 16384))
    height: int = setting(int, 1520, _between(1, 16384))
    fps: float = setting(NUMBER, 10.0, _positive)
    exposure_us: int = setting(int, 0, _at_least_zero)
    analogue_gain: float = setting(NUMBER, 0.0, _at_least_zero)
    lens_position: float = setting(NUMBER, -1.0)
    intrinsics: str = setting(str, "")
    model: str = setting(str, "")
    mount_height_mm: float = setting(NUMBER, 0.0, _at_least_zero)


@dataclass(frozen=True)
class RigCamera(Camera):
    """One `[[cameras]]` entry: a `[camera]` of its own, plus the part of the board it looks at
    (`source = "mqtt"`: a camera on another machine that publishes what it sees: docs/club.md)."""

    source: str = setting(str, "auto", _plugin("CAMERAS", "auto", "mqtt"))
    area: tuple[float, ...] = setting(list, [], _area)    # (x0, y0, x1, y1) inches, or () when not given

    def __post_init__(self) -> None:
        object.__setattr__(self, "area", tuple(float(v) for v in self.area))


@dataclass(frozen=True)
class Tracking(Section):
    stable_frames: int = setting(int, 3, _positive)
    occlusion_timeout_s: float = setting(NUMBER, 10.0, _positive)
    full_pass_every: int = setting(int, 15, _positive)
    move_threshold_in: float = setting(NUMBER, 0.05, _positive)


@dataclass(frozen=True)
class Game(Section):
    ruleset: str = setting(str, "", _rule_system)
    scene: str = setting(str, "")
    rulings: Mapping[str, Any] = setting(dict, {})


@dataclass(frozen=True)
class Hardware(Section):
    mock: bool = setting(bool, False)
    pin_map: str = setting(str, "pins-pi4.toml")
    led_layout: str = setting(str, "leds/edge-strip.toml")
    strip: str = setting(str, "spi", _plugin("STRIPS"))
    color_order: str = setting(str, "GRB", _one_of("RGB", "RBG", "GRB", "GBR", "BRG", "BGR"))
    brightness: float = setting(NUMBER, 0.5, _unit_interval)
    supply_amps: float = setting(NUMBER, 4.0, _positive)
    gamma: float = setting(NUMBER, 2.2, _positive)
    strip_channels: int = setting(int, 3, _channels)   # 4 for an SK6812 RGBW strip


@dataclass(frozen=True)
class Web(Section):
    host: str = setting(str, "0.0.0.0", _host)
    port: int = setting(int, 8080, _between(1, 65535))
    pin: str = setting(str, "", _pin)
    allowed_hosts: tuple[str, ...] = setting(list, [], _host_list)
    sse_interval_s: float = setting(NUMBER, 0.2, _positive)
    heartbeat_s: float = setting(NUMBER, 5.0, _between(1, 60))


@dataclass(frozen=True)
class Log(Section):
    path: str = setting(str, "../var/game.sqlite3")


@dataclass(frozen=True)
class Mqtt(Section):
    url: str = setting(str, "")
    table_id: str = setting(str, "")
    topic_prefix: str = setting(str, "smarttable")
    username: str = setting(str, "")
    password_file: str = setting(str, "")
    keepalive_s: int = setting(int, 10, _positive)
    state_interval_s: float = setting(NUMBER, 0.5, _positive)


# section name -> its class, in file order
SECTIONS: dict[str, type[Section]] = {
    "board": Board, "markers": Markers, "camera": Camera, "tracking": Tracking, "game": Game,
    "hardware": Hardware, "web": Web, "log": Log, "mqtt": Mqtt}
