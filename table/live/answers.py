"""The live table's answers about the selection, typed: what the LEDs draw and the panel shows.

A rule system answers each question with a JSON object of its own (the contract and its rulings page say
what is in it). The live table keeps each as a typed answer that reads the fields the table uses (a sight
line's ends, what blocks it, a band's name, a path's hexes...) and whose `to_json` is the rule system's
answer exactly as the API has always served it. `Answers` gathers them, with ONE `to_json`: the
snapshot's `selection` (besides the pointer, the last roll and the ruler, which the controller adds).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from table.frozen import FrozenJson, freeze, freeze_mapping, thaw
from table.hexgrid import Hex

Point = tuple[float, float]
A = TypeVar("A", bound="Answer")


def _point(value: Any) -> Point:
    return float(value[0]), float(value[1])


def _hexes(values: Any) -> tuple[Hex, ...]:
    return tuple((int(q), int(r)) for q, r in values or ())


@dataclass(frozen=True)
class Answer:
    """One answer of the rule system (frozen), read through the typed properties of its subclass."""

    raw: Mapping[str, FrozenJson]

    def __post_init__(self) -> None:
        object.__setattr__(self, "raw", freeze_mapping(self.raw))

    @classmethod
    def of(cls: type[A], answer: Any) -> A | None:
        """The typed answer, or None when there is none (the rule system does not answer, or cannot)."""
        return cls(answer) if isinstance(answer, Mapping) else None

    def to_json(self) -> dict[str, Any]:
        """The answer as the rule system gave it."""
        return dict(thaw(self.raw))


class BandAnswer(Answer):
    """`band A B [WEAPON]`: the range band from one to the other."""

    @property
    def band(self) -> str | None:
        value = self.raw.get("band")
        return str(value) if value else None


class Sight(Answer):
    """`los A B`: whether one sees the other, along which line, what blocks it and the cover it crosses."""

    @property
    def visible(self) -> bool:
        return bool(self.raw.get("visible"))

    @property
    def line(self) -> tuple[Point, Point] | None:
        """The sight line the rule system used (None: it gave none)."""
        line = self.raw.get("line")
        return (_point(line[0]), _point(line[1])) if line else None

    @property
    def models(self) -> tuple[str, ...]:
        """The two models the line runs between (when the rule system names them)."""
        return tuple(str(m) for m in self.raw.get("models") or ())

    @property
    def blocked_by(self) -> tuple[str, ...]:
        return tuple(str(b) for b in self.raw.get("blocked_by") or ())

    @property
    def cover_from(self) -> tuple[str, ...] | None:
        """The terrain pieces giving cover, when the rule system says (None: the table works it out)."""
        cover = self.raw.get("cover_from")
        return tuple(str(c) for c in cover) if isinstance(cover, tuple) else None


class Distance(Answer):
    """`distance A B`: inches (or hexes) and how they were measured."""

    @property
    def distance(self) -> float | None:
        value = self.raw.get("distance")
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


class Reach(Answer):
    """`moves UNIT` (hex systems): the hexes the unit can reach."""

    @property
    def reachable(self) -> tuple[Hex, ...]:
        return _hexes(r["hex"] for r in self.raw.get("reachable") or ())


class HexPath(Answer):
    """`path UNIT Q,R` (hex systems): the cheapest path to the chosen hex, within the move or not."""

    @property
    def hexes(self) -> tuple[Hex, ...]:
        return _hexes(self.raw.get("path"))

    @property
    def within_move(self) -> bool:
        return bool(self.raw.get("within_move", True))


class Template(Answer):
    """`template TARGET UNIT`: an attack template's disc over the target and the models it touches."""

    @property
    def centre(self) -> Point:
        return _point(self.raw["centre"])

    @property
    def radius(self) -> float:
        return float(self.raw["radius"])

    @property
    def far_enough(self) -> bool:
        return bool(self.raw.get("far_enough", True))

    @property
    def touched(self) -> tuple[str, ...]:
        return tuple(str(m) for m in self.raw.get("touched") or ())


@dataclass(frozen=True)
class Band:
    """One range band of a weapon: from and to (inches), and its name."""

    start: float
    end: float
    name: str


class BandAreas(Answer):
    """`bands UNIT [WEAPON]`: the weapon shown, the unit's weapons with bands, and each band's reach
    measured from the models it names (centre to centre or from their bases), with its boundary rule."""

    @property
    def weapon(self) -> str | None:
        value = self.raw.get("weapon")
        return str(value) if value else None

    @property
    def weapons(self) -> tuple[str, ...]:
        return tuple(str(w) for w in self.raw.get("weapons") or ())

    @property
    def measured_from(self) -> tuple[str, ...]:
        return tuple(str(m) for m in self.raw["from"])

    @property
    def measure(self) -> str:
        return str(self.raw["measure"])

    @property
    def bands(self) -> tuple[Band, ...]:
        return tuple(Band(float(b["from"]), float(b["to"]), str(b["band"])) for b in self.raw["bands"])

    @property
    def nearer(self) -> bool:
        """A distance on a boundary belongs to the nearer band."""
        return bool(self.raw["boundary"] == "nearer")

    @property
    def round_to(self) -> float:
        return float(self.raw.get("round_to", 0))


class Deployment(Answer):
    """Each player's deployment zone (`hexes`, or an edge strip's `polygon`) and the models outside theirs."""

    @property
    def zones(self) -> tuple[Mapping[str, FrozenJson], ...]:
        return tuple(self.raw.get("zones") or ())

    @property
    def outside(self) -> frozenset[str]:
        return frozenset(str(m) for m in self.raw.get("outside") or ())


@dataclass(frozen=True)
class Answers:
    """The rule system's answers the LEDs and the panel show for the current selection."""

    selected: str | None = None
    unit: str | None = None
    target: str | None = None
    bands: Mapping[str, str] = field(default_factory=dict)   # enemy model id -> the unit's band to it
    band: BandAnswer | None = None                          # the selected unit -> target
    los: Sight | None = None
    distance: Distance | None = None
    moves: Reach | None = None
    path: HexPath | None = None                             # to the chosen hex (hex systems)
    template: Template | None = None                        # attack template over the target
    deployment: Deployment | None = None                    # zones, in the deployment phase
    areas: BandAreas | None = None                          # the unit's `bands` (the weapon shown)

    def __post_init__(self) -> None:
        object.__setattr__(self, "bands", freeze(self.bands))

    def to_json(self) -> dict[str, Any]:
        """The selection as the snapshot and `GET /api/state` show it."""
        def whole(answer: Answer | None) -> dict[str, Any] | None:
            return None if answer is None else answer.to_json()

        return {"model": self.selected, "unit": self.unit, "target": self.target, "bands": dict(self.bands),
                "band": whole(self.band), "los": whole(self.los), "distance": whole(self.distance),
                "reachable": None if self.moves is None else len(self.moves.raw.get("reachable") or ()),
                "path": whole(self.path), "template": whole(self.template),
                "deployment": whole(self.deployment),
                "weapon": None if self.areas is None else thaw(self.areas.raw.get("weapon")),
                "weapons": [] if self.areas is None else thaw(self.areas.raw.get("weapons", []))}
