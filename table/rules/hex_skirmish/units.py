"""A scene unit read as a hex skirmish combatant: type, movement, Dex, size, group, status, weapons.

Everything is validated here once; a bad value raises QueryError naming `units[i].stats.<key>`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from table.errors import QueryError
from table.rules.hex_skirmish.text import POLEARM_REACH, SIZE_NAMES, SIZES
from table.scene import Scene, Unit, Weapon

TYPES = ("soldier", "hero", "vehicle")
STATUSES = frozenset({
    "prone", "routed", "dashed", "disengaged", "snap", "total_defense", "dug_in", "stealth",
    "negate_polearm", "survivor", "dead", "mortally_wounded",
})
PERKS = frozenset({"troop_transport", "synthmed", "spare_parts", "mechanical"})


@dataclass(frozen=True)
class Arm:
    """A weapon as the skirmish rules read it: its range in hexes (None for a pure melee weapon)."""

    name: str
    range: tuple[int, int] | None
    melee: bool
    polearm: bool


@dataclass(frozen=True)
class Combatant:
    """One unit's skirmish numbers and state."""

    id: str
    player: str
    type: str
    kind: str
    movement: int | None
    dex: int
    size: int
    group: str | None
    embarked: str | None
    crew: int
    perks: frozenset[str]
    status: frozenset[str]
    arms: tuple[Arm, ...]
    where: str
    hp: int | None = None       # maximum hit points (stats.hp), for the half-hit-points Morale check
    hp_lost: int = 0            # hit points lost (units[].hp_lost)

    @property
    def is_hero(self) -> bool:
        return self.type == "hero"

    @property
    def is_vehicle(self) -> bool:
        return self.type == "vehicle"

    def has(self, status: str) -> bool:
        return status in self.status

    def needs_movement(self) -> int:
        if self.movement is None:
            raise QueryError(f"{self.where}.stats.movement: missing (unit {self.id!r} needs a movement stat)")
        return self.movement

    @property
    def melee_arms(self) -> tuple[Arm, ...]:
        return tuple(a for a in self.arms if a.melee)

    def melee_reach(self, melee_range: int) -> int:
        """How far this unit's melee range reaches (0: it has none, as a vehicle without melee weapons)."""
        if self.is_vehicle and not self.melee_arms:
            return 0
        return melee_range

    def opportunity_reach(self, melee_range: int) -> int:
        """How far its Attacks of Opportunity reach: a polearm makes it 2 hexes."""
        if any(a.polearm for a in self.arms):
            return max(POLEARM_REACH, melee_range)
        return self.melee_reach(melee_range)

    def arm(self, name: str | None) -> Arm:
        """The named weapon, or the first with a range."""
        if name is None:
            for a in self.arms:
                if a.range is not None:
                    return a
            raise QueryError(f"unit {self.id!r} has no weapon with a range")
        for a in self.arms:
            if a.name == name:
                return a
        known = ", ".join(a.name for a in self.arms) or "none"
        raise QueryError(f"unit {self.id!r} has no weapon {name!r} (it has: {known})")


def size_class(value: Any, where: str) -> int:
    """A size as the text names it (Normal..Giant, or a vehicle size 1..10) -> 1..10."""
    if isinstance(value, str) and value.lower() in SIZE_NAMES:
        return SIZE_NAMES[value.lower()]
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value == int(value):
        if int(value) in SIZES:
            return int(value)
    names = ", ".join(SIZE_NAMES)
    raise QueryError(f"{where}: size {value!r} is not one of {names} or a vehicle size 1-10")


def _int(stats: dict[str, Any], key: str, where: str, default: int | None) -> int | None:
    value = stats.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise QueryError(f"{where}.stats.{key}: expected an integer, got {value!r}")
    return value


def _names(value: Any, allowed: frozenset[str], where: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise QueryError(f"{where}: expected a list of names, got {value!r}")
    unknown = sorted(set(value) - allowed)
    if unknown:
        known = ", ".join(sorted(allowed))
        raise QueryError(f"{where}: unknown {', '.join(map(repr, unknown))} (known: {known})")
    return frozenset(value)


def _arm(weapon: Weapon, where: str) -> Arm:
    traits = weapon.extra.get("traits", [])
    if not isinstance(traits, list) or not all(isinstance(t, str) for t in traits):
        raise QueryError(f"{where}.traits: expected a list of names, got {traits!r}")
    if weapon.range is not None:
        optimal, maximum = weapon.range
        if not 0 <= optimal <= maximum:
            raise QueryError(f"{where}.range: expected 0 <= optimal <= maximum, got {list(weapon.range)}")
    polearm = "polearm" in traits
    return Arm(weapon.name, weapon.range, polearm or "melee" in traits, polearm)


def combatant(scene: Scene, index: int, unit: Unit) -> Combatant:
    """Read scene unit number `index` as a skirmish combatant."""
    where = f"units[{index}] ({unit.id})"
    stats = unit.stats
    kind = stats.get("type", "soldier")
    if kind not in TYPES:
        raise QueryError(f"{where}.stats.type: {kind!r} is not one of {', '.join(TYPES)}")
    movement = _int(stats, "movement", where, None)
    if movement is not None and movement < 0:
        raise QueryError(f"{where}.stats.movement: must be at least 0, got {movement}")
    for key in ("group", "embarked", "kind"):
        if key in stats and not (isinstance(stats[key], str) and stats[key]):
            raise QueryError(f"{where}.stats.{key}: expected a non-empty string, got {stats[key]!r}")
    embarked = stats.get("embarked")
    if embarked is not None and embarked not in {u.id for u in scene.units}:
        raise QueryError(f"{where}.stats.embarked: no unit {embarked!r}")
    return Combatant(
        id=unit.id, player=unit.player, type=kind, kind=stats.get("kind", unit.name),
        movement=movement, dex=_int(stats, "dex", where, 0) or 0,
        size=size_class(stats.get("size", 1), f"{where}.stats.size"),
        group=stats.get("group"), embarked=embarked, crew=_int(stats, "crew", where, 0) or 0,
        perks=_names(stats.get("perks", []), PERKS, f"{where}.stats.perks"),
        status=_names(unit.extra.get("status", []), STATUSES, f"{where}.status"),
        arms=tuple(_arm(w, f"{where}.weapons[{i}]") for i, w in enumerate(unit.weapons)),
        where=where, hp=_int(stats, "hp", where, None), hp_lost=_lost(unit.extra.get("hp_lost", 0), where),
    )


def _lost(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise QueryError(f"{where}.hp_lost: expected a whole number of hit points (0 or more), got {value!r}")
    return value


def combatants(scene: Scene) -> dict[str, Combatant]:
    """Every unit of the scene as a combatant, by id, in scene order."""
    return {u.id: combatant(scene, i, u) for i, u in enumerate(scene.units)}
