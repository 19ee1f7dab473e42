"""What a rule system declares about the pieces players bring: the fields of a unit (its stats, its
weapons, its models) and the terrain it reads. The panel's army builder and terrain editor are
generated from these (`GET /api/rulesets`), and `check_fields` checks a unit against them before the
rule system's own checks (`Ruleset.check_unit`).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from table.errors import QueryError
from table.jsoncheck import kind_of

FieldKind = Literal["integer", "number", "text", "names", "bool", "choice", "choices", "bands",
                    "band_values", "range"]
Place = Literal["unit", "stats", "weapon", "model"]


@dataclass(frozen=True)
class UnitField:
    """One field of a unit, a weapon or a model, where it lives in the scene file (`place`: a key of the
    unit, of its `stats`, of each weapon or of each model) and what it allows.

    Kinds: `integer` and `number` (`minimum`..`maximum`), `text`, `names` (a list of texts, such as
    special rules), `bool`, `choice` (one of `choices`),
    `choices` (a list of them), `bands` (band name -> [from, to] inches, the names in `choices`),
    `band_values` (a number per band: an object keyed by the `choices`, or a list in their order) and
    `range` ([optimal, maximum] whole hexes). `checked` False: the form's kind is a guide, and the rule
    system's own check (`Ruleset.check_unit`) alone says what the field takes."""

    name: str
    kind: FieldKind
    place: Place = "stats"
    label: str = ""
    required: bool = False
    default: Any = None
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    help: str = ""
    checked: bool = True

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "place": self.place,
                               "label": self.label or self.name.replace("_", " "), "required": self.required,
                               "default": self.default, "help": self.help}
        if self.choices:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out

    def problem(self, value: Any) -> str | None:
        """Why `value` does not fit this field, in words (None when it fits)."""
        if self.kind in ("integer", "number"):
            return self._number_problem(value)
        if self.kind == "text":
            return None if isinstance(value, str) and 0 < len(value) <= 64 else \
                f"expected a name of 1-64 characters, got {kind_of(value)}"
        if self.kind == "names":
            return None if isinstance(value, list) and all(isinstance(v, str) and 0 < len(v) <= 64
                                                           for v in value) else \
                f"expected a list of names of 1-64 characters, got {kind_of(value)}"
        if self.kind == "bool":
            return None if isinstance(value, bool) else f"expected true or false, got {kind_of(value)}"
        if self.kind == "choice":
            return None if isinstance(value, str) and value in self.choices else _unknown(value, self.choices)
        if self.kind == "choices":
            if not isinstance(value, list):
                return f"expected a list of {', '.join(self.choices)}, got {kind_of(value)}"
            return next((_unknown(v, self.choices) for v in value if v not in self.choices), None)
        if self.kind == "bands":
            return self._bands_problem(value)
        if self.kind == "band_values":
            return self._band_values_problem(value)
        return self._range_problem(value)

    def _number_problem(self, value: Any) -> str | None:
        whole = self.kind == "integer"
        if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)) \
                or (isinstance(value, float) and not math.isfinite(value)):
            return f"expected {'a whole number' if whole else 'a number'}, got {kind_of(value)}"
        if self.minimum is not None and value < self.minimum:
            return f"must be at least {self.minimum:g}, got {value}"
        if self.maximum is not None and value > self.maximum:
            return f"must be at most {self.maximum:g}, got {value}"
        return None

    def _bands_problem(self, value: Any) -> str | None:
        if not isinstance(value, dict) or not value:
            return f"expected an object of band -> [from, to] inches ({', '.join(self.choices)})"
        for band, span in value.items():
            if band not in self.choices:
                return f"band {_unknown(band, self.choices)}"
            if not (isinstance(span, list) and len(span) == 2 and all(_finite(v) and v >= 0 for v in span)):
                return f"band {band}: expected [from, to] in inches, got {span!r}"
            if span[1] < span[0]:
                return f"band {band}: the range ends before it starts ({span[0]} > {span[1]})"
        return None

    def _band_values_problem(self, value: Any) -> str | None:
        values = dict(zip(self.choices, value, strict=False)) if isinstance(value, list) else value
        if isinstance(value, list) and len(value) != len(self.choices):
            return f"expected {len(self.choices)} values ({', '.join(self.choices)}), got {len(value)}"
        if not isinstance(values, dict):
            return f"expected a value per band ({', '.join(self.choices)}), got {kind_of(value)}"
        for band, number in values.items():
            if band not in self.choices:
                return f"band {_unknown(band, self.choices)}"
            if not _finite(number):
                return f"band {band}: expected a number, got {kind_of(number)}"
        return None

    def _range_problem(self, value: Any) -> str | None:
        if not (isinstance(value, list) and len(value) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            return "expected [optimal, maximum] in whole hexes"
        if not 0 <= value[0] <= value[1]:
            return f"expected 0 <= optimal <= maximum, got {value}"
        return None


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _unknown(value: Any, choices: tuple[str, ...]) -> str:
    """`value` is not one of `choices`: with the nearest one as a hint, as for a misspelt key."""
    close = difflib.get_close_matches(str(value), choices, n=1, cutoff=0.6) if isinstance(value, str) else []
    hint = f'did you mean "{close[0]}"?' if close else f"expected one of {', '.join(choices)}"
    return f"unknown {value!r}; {hint}"


@dataclass(frozen=True)
class UnitProfile:
    """The fields a rule system's unit has (`fields`, each with its `place`), whether it carries
    weapons, how many models it may have, and the base a new model gets."""

    fields: tuple[UnitField, ...] = ()
    weapons: bool = True
    models: tuple[int, int] = (1, 50)
    base: Mapping[str, Any] | None = None
    help: str = ""

    def at(self, place: Place) -> tuple[UnitField, ...]:
        return tuple(f for f in self.fields if f.place == place)

    def to_json(self) -> dict[str, Any]:
        return {"fields": [f.to_json() for f in self.fields], "weapons": self.weapons,
                "models": {"min": self.models[0], "max": self.models[1]},
                "base": dict(self.base or {"shape": "circle", "diameter_mm": 25}), "help": self.help}


def check_fields(profile: UnitProfile, unit: Mapping[str, Any], models: Mapping[str, Mapping[str, Any]],
                 path: str = "unit") -> None:
    """A unit document and its models (by the path that names each) against the profile: QueryError
    naming the first field that does not fit (`unit.stats.movement: must be at least 0, got -1`)."""
    stats = unit.get("stats") or {}
    weapons = unit.get("weapons") or []
    if not isinstance(stats, dict):
        raise QueryError(f"{path}.stats: expected an object, got {kind_of(stats)}")
    if not isinstance(weapons, list):
        raise QueryError(f"{path}.weapons: expected an array, got {kind_of(weapons)}")
    if weapons and not profile.weapons:
        raise QueryError(f"{path}.weapons: this rule system's units carry no weapons")
    low, high = profile.models
    if not low <= len(models) <= high:
        allowed = f"{low} to {high} models" if low != high else f"exactly {low} model(s)"
        raise QueryError(f"{path}: a unit has {allowed} here, got {len(models)}")
    _check(profile.at("unit"), unit, path)
    _check(profile.at("stats"), stats, f"{path}.stats")
    for i, weapon in enumerate(weapons):
        if isinstance(weapon, dict):
            _check(profile.at("weapon"), weapon, f"{path}.weapons[{i}]")
    for where, model in models.items():
        _check(profile.at("model"), model, where)


def _check(fields: tuple[UnitField, ...], data: Mapping[str, Any], path: str) -> None:
    for spec in fields:
        if spec.name not in data or data[spec.name] is None:
            if spec.required:
                raise QueryError(f"{path}.{spec.name}: missing (this rule system needs it)")
            continue
        problem = spec.problem(data[spec.name]) if spec.checked else None
        if problem:
            raise QueryError(f"{path}.{spec.name}: {problem}")


@dataclass(frozen=True)
class TerrainKinds:
    """The terrain a rule system reads: polygon pieces' `traits`, hex `terrain` kinds and hexside
    `features` (a hex rule system reads the grid's terrain, an inch one the pieces)."""

    traits: tuple[str, ...] = ()
    hexes: tuple[str, ...] = ()
    hexsides: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"traits": list(self.traits), "hexes": list(self.hexes), "hexsides": list(self.hexsides)}
