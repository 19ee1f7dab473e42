"""Age of Tyrants base profiles: range bands, combat values, size, role, locomotion, special rules.

A scene unit holds one base card (`stats`: size, sr, move, locomotion, role, command, bombard,
special, and AP/AM/S per band unless its weapons carry them); a model is one base and may
override any of those keys, and carry its own state (`sp`, `vulnerable`, `activated`, `wreckage`,
`destroyed`, `aboard`), as extra keys in the scene file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from table.errors import QueryError
from table.scene import Model, Scene

EPS = 1e-9
BANDS: tuple[tuple[str, float], ...] = (
    ("close_assault", 4.0), ("short", 9.0), ("medium", 24.0), ("long", 48.0))
BAND_NAMES = tuple(name for name, _ in BANDS)
ROLES = {"personnel": "personnel", "infantry": "personnel",
         "materiel": "materiel", "vehicle": "materiel"}
LOCOMOTION = {"foot": "foot", "jump": "jump", "hover": "hover",
              "wheeled": "wheeled", "wheels": "wheeled", "tracked": "tracked", "tracks": "tracked"}
ALL_ROUND = frozenset({"360", "360_degree_attack", "360_degree"})
VALUE_KINDS = ("ap", "am", "s")


def band_of(distance: float) -> str:
    """The range band of an edge-to-edge distance; a boundary belongs to the nearer band."""
    for name, upper in BANDS:
        if distance <= upper + EPS:
            return name
    return "out_of_range"


def special_key(text: str) -> str:
    """'360 Degree Attack' -> '360_degree_attack': special rules compared by a normal form."""
    return re.sub(r"[^a-z0-9]+", "_", str(text).lower()).strip("_")


def stat(scene: Scene, model: Model, key: str, default: Any = None) -> Any:
    """A base's value for `key`: the model's own, else its unit's `stats`, else `default`."""
    if key in model.extra:
        return model.extra[key]
    return scene.unit(model.unit).stats.get(key, default)


def number(scene: Scene, model: Model, key: str, default: float = 0.0) -> float:
    value = stat(scene, model, key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise QueryError(f"model {model.id!r}: {key} must be a number, got {value!r}")
    return float(value)


def specials(scene: Scene, model: Model) -> frozenset[str]:
    """The base's special rules in normal form (`stats.special`, a list of names)."""
    value = stat(scene, model, "special", [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise QueryError(f"model {model.id!r}: special must be a list of names, got {value!r}")
    return frozenset(special_key(v) for v in value)


def role(scene: Scene, model: Model) -> str:
    value = str(stat(scene, model, "role", "personnel")).lower()
    if value not in ROLES:
        raise QueryError(f"model {model.id!r}: unknown role {value!r} (expected personnel or materiel)")
    return ROLES[value]


def locomotion(scene: Scene, model: Model) -> str:
    value = str(stat(scene, model, "locomotion", "foot")).lower()
    if value not in LOCOMOTION:
        raise QueryError(f"model {model.id!r}: unknown locomotion {value!r} "
                         f"(expected foot, jump, wheeled, tracked or hover)")
    return LOCOMOTION[value]


def move_rate(scene: Scene, model: Model) -> float:
    key = "move" if stat(scene, model, "move") is not None else "movement"
    return number(scene, model, key, 0.0)


def suppression(scene: Scene, model: Model) -> int:
    return int(number(scene, model, "sp", 0))


def flag(scene: Scene, model: Model, key: str) -> bool:
    return bool(stat(scene, model, key, False))


def on_table(model: Model) -> bool:
    """A base that stands on the board: not removed and not aboard a transport (wreckage stays)."""
    return not model.extra.get("destroyed") and not model.extra.get("aboard")


def in_play(model: Model) -> bool:
    """A base still fighting: not destroyed and not wreckage (aboard a transport still counts)."""
    return not model.extra.get("destroyed") and not model.extra.get("wreckage")


@dataclass(frozen=True)
class Profile:
    """One weapon's combat values per band (AP, AM, S) and its arc."""

    name: str
    values: Mapping[str, Mapping[str, float]]
    all_round: bool = False
    indirect: bool = False

    def value(self, kind: str, band: str) -> float:
        return self.values.get(kind, {}).get(band, 0.0)


def _band_values(raw: Any, where: str) -> dict[str, float]:
    if isinstance(raw, list):
        if len(raw) != len(BAND_NAMES):
            raise QueryError(f"{where}: expected {len(BAND_NAMES)} values "
                             f"({', '.join(BAND_NAMES)}), got {len(raw)}")
        raw = dict(zip(BAND_NAMES, raw, strict=True))
    if not isinstance(raw, dict):
        raise QueryError(f"{where}: expected an object keyed by band or a list of 4 values")
    out: dict[str, float] = {}
    for band, value in raw.items():
        if band not in BAND_NAMES:
            raise QueryError(f"{where}: unknown band {band!r} (expected {', '.join(BAND_NAMES)})")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise QueryError(f"{where}.{band}: expected a number, got {value!r}")
        out[band] = float(value)
    return out


def profiles(scene: Scene, model: Model) -> list[Profile]:
    """The base's weapons with AP/AM/S values; a card without weapons gives its stats as one profile."""
    unit = scene.unit(model.unit)
    base_round = bool(specials(scene, model) & ALL_ROUND)
    found: list[Profile] = []
    for weapon in unit.weapons:
        data = weapon.extra
        if not any(k in data for k in VALUE_KINDS):
            continue
        where = f"unit {unit.id!r} weapon {weapon.name!r}"
        values = {k: _band_values(data[k], f"{where} {k}") for k in VALUE_KINDS if k in data}
        weapon_special = data.get("special", [])
        weapon_special = {special_key(s) for s in ([weapon_special] if isinstance(weapon_special, str)
                                                     else weapon_special)}
        all_round = base_round or data.get("arc") == 360 or bool(weapon_special & ALL_ROUND)
        indirect = bool(data.get("indirect")) or "indirect_fire" in weapon_special
        found.append(Profile(weapon.name, values, all_round, indirect))
    if not found:
        stats = unit.stats
        if any(k in stats for k in VALUE_KINDS):
            where = f"unit {unit.id!r} stats"
            values = {k: _band_values(stats[k], f"{where}.{k}") for k in VALUE_KINDS if k in stats}
            indirect = "indirect_fire" in specials(scene, model)
            found.append(Profile(unit.name or unit.id, values, base_round, indirect))
    return found
