"""Base class for rule systems measured in inches on the board (Synaptik, Age of Tyrants).

What they share: ids to models, a `measure` between two models (centre-to-centre or nearest edge,
switched by the `measure` ruling), the `distance` question (a unit measures from its closest model),
enemy pairs, and the skeleton of the `report` question.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Sequence
from typing import Any, ClassVar

from table.cached import cached_property
from table.errors import QueryError
from table.geometry import centre_distance, edge_distance
from table.rules.base import Ruleset, question
from table.scene import Model, Scene, Unit
from table.uncertainty import SKIPPED, annotate_pair, annotate_sampled, has_uncertainty, sideways_margin

METHODS = ("centre", "edge")


def inches(value: float) -> float:
    """A distance as answered: inches rounded to 0.0001"."""
    return round(value, 4)


class InchRuleset(Ruleset):
    """An inch-measured rule system.

    Subclasses set `measure_default` (`centre` or `edge`; a `measure` ruling overrides it) and may
    override `report_unit`, `report_pair` (or `report_pairs`), `report_melee` and `report_warnings`.
    """

    measure_default: ClassVar[str] = "centre"

    @cached_property
    def method(self) -> str:
        method = self.rulings.get("measure", self.measure_default)
        if not isinstance(method, str) or method not in METHODS:
            raise QueryError(f"ruling measure={method!r}: expected one of {', '.join(METHODS)}")
        return method

    def measure(self, a: Model, b: Model) -> float:
        """Inches between two models by the rule system's method."""
        return centre_distance(a, b) if self.method == "centre" else edge_distance(a, b)

    def closest(self, a: Sequence[Model], b: Sequence[Model]) -> tuple[float, Model, Model]:
        """The closest pair of models between two groups (first such pair in scene order)."""
        best: tuple[float, Model, Model] | None = None
        for ma in a:
            for mb in b:
                d = self.measure(ma, mb)
                if best is None or d < best[0]:
                    best = (d, ma, mb)
        if best is None:
            raise QueryError("nothing to measure between")
        return best

    def ask(self, name: str, args: list[str], **options: Any) -> Any:
        """The answer, with intervals and "too close to call" where the scene's models carry `sigma`."""
        answer = super().ask(name, args, **options)
        method = getattr(self, self.questions()[name])
        rolls = "seed" in inspect.signature(method).parameters
        if name in SKIPPED or rolls or not has_uncertainty(self.scene):
            return answer

        def again(scene: Scene, question_name: str, question_args: list[str]) -> Any:
            return Ruleset.ask(type(self)(scene, self.rulings), question_name, question_args, **options)

        ends = self._two_ends(args) if isinstance(answer, dict) else None
        if ends is not None and (getattr(method, "__by_distance__", False) or "distance" in answer):
            _, a, b = self.closest(*ends)
            return annotate_pair(answer, self.scene, a, b, {m.id for m in ends[1]}, name, args, again)
        answer = annotate_sampled(answer, self.scene, name, args, again)
        field = getattr(method, "__margin__", None)
        if ends is not None and isinstance(field, str) and field in answer:
            _, a, b = self.closest(*ends)
            both = {m.id for m in (*ends[0], *ends[1])}
            answer["margin"] = sideways_margin(self.scene, a, b, both, field, name, args, again)
        return answer

    def _two_ends(self, args: list[str]) -> tuple[tuple[Model, ...], tuple[Model, ...]] | None:
        """The models the first two arguments name, when both are model or unit ids."""
        try:
            return (self.models_for(args[0]), self.models_for(args[1])) if len(args) >= 2 else None
        except QueryError:
            return None

    @cached_property
    def units_on_table(self) -> tuple[Unit, ...]:
        """Units with at least one model on the table, in scene order."""
        return tuple(u for u in self.scene.units if self.scene.models_of(u.id))

    def enemy_pairs(self) -> list[tuple[Unit, Unit]]:
        """Every ordered pair (shooter, target) of units of different players, in scene order."""
        return [(a, b) for a in self.units_on_table for b in self.units_on_table if a.player != b.player]

    @question("distance")
    def distance(self, a: str, b: str) -> dict[str, Any]:
        """Inches between two models or units (a unit measures from its closest model)."""
        d, _, _ = self.closest(self.models_for(a), self.models_for(b))
        return {"from": a, "to": b, "distance": inches(d), "method": self.method}

    @question("report")
    def report(self) -> dict[str, Any]:
        """Everything the table shows for the scene: units, enemy pairs, melee, warnings."""
        return {"ruleset": self.name,
                "units": [self.report_unit(u) for u in self.units_on_table],
                "pairs": self.report_pairs(self.enemy_pairs()),
                "melee": self.report_melee(),
                "warnings": self.report_warnings()}

    def report_unit(self, unit: Unit) -> dict[str, Any]:
        return {"unit": unit.id}

    def report_pairs(self, pairs: list[tuple[Unit, Unit]]) -> list[dict[str, Any]]:
        """The report's pairs; override to work them out together (a batch) rather than one by one."""
        return [self.report_pair(a, b) for a, b in pairs]

    def report_pair(self, shooter: Unit, target: Unit) -> dict[str, Any]:
        d, _, _ = self.closest(self.scene.models_of(shooter.id), self.scene.models_of(target.id))
        return {"from": shooter.id, "to": target.id, "distance": inches(d)}

    def report_melee(self) -> list[dict[str, Any]]:
        return []

    def report_warnings(self) -> list[str]:
        """Models standing off the board; units with no model on the table."""
        board = self.scene.board
        warnings = [f"model {m.id!r} stands off the board at ({m.x:g}, {m.y:g})"
                    for m in self.scene.models
                    if m.x is not None and m.y is not None
                    and not (0 <= m.x <= board.width and 0 <= m.y <= board.height)]
        warnings += [f"unit {u.id!r} has no models on the table"
                     for u in self.scene.units if not self.scene.models_of(u.id)]
        return warnings


def finite(value: Any, what: str) -> float:
    """A number from a scene's stats, else a QueryError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise QueryError(f"{what}: expected a number, got {value!r}")
    return float(value)
