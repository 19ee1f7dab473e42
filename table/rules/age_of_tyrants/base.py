"""Shared ground for the Age of Tyrants questions: rulings, terrain and smoke, bases, measuring, LOS, arcs."""

from __future__ import annotations

import re

from table.cached import cached_property
from table.errors import QueryError
from table.geometry import footprint, heading_vector
from table.rules.age_of_tyrants.los import LineOfSight, Piece, Sight, smoke_pieces, terrain_pieces
from table.rules.age_of_tyrants.profile import EPS, in_play, number, on_table
from table.rules.inch import METHODS, InchRuleset
from table.rules.options import Option
from table.scene import Model, Unit

POINT = re.compile(r"^\s*\[?\s*(-?\d+(?:\.\d*)?)\s*[, ]\s*(-?\d+(?:\.\d*)?)\s*\]?\s*$")


def parse_point(text: str) -> tuple[float, float]:
    """A board point from the command line: `X,Y` in inches."""
    match = POINT.match(text)
    if not match:
        raise QueryError(f"expected a board point as X,Y in inches (e.g. 12,30.5), got {text!r}")
    return (float(match.group(1)), float(match.group(2)))


class AotBase(InchRuleset):
    """What every Age of Tyrants question stands on; the questions live in subclasses."""

    measure_default = "edge"
    options = (
        Option("measure", "choice", "edge", METHODS,
               help="from the nearest part of the base ... to the nearest part"),
        Option("round_to", "number", 0, minimum=0, maximum=1,          # the text: quarter or whole inches
               help="0.25: tournament play measures to the nearest quarter inch"),
        Option("concealment_hides_viewer", "bool", True,
               help="a deep base in concealing terrain also cannot see out"),
        Option("concealment_depth_from", "choice", "base_edge", ("base_edge", "centre"),
               help="a concealing piece's depth is measured from the base's edge; centre: to its centre"),
        Option("arc_point", "choice", "centre", ("centre", "any_part"),
               help="the target's centre must lie in the front 180 degrees"),
        Option("deploy_whole_base", "bool", True, help="the whole base within 6\" of the edge"),
        Option("victory_at_half", "bool", False, help="destroying 50% wins (the introduction's wording)"),
        Option("strict_chain_of_command", "bool", True,
               help="lieutenants order their platoon, captains their company"),
        Option("take_cover", "bool", True, help="bases with Cover take cover from a bombard when they can"),
        Option("corner_joint", "choice", "closed", ("closed", "open"),
               help="pieces touching only at a corner block through it (open: they do not)"),
        Option("straddle_facing", "choice", "start", ("start", "path"),
               help="a straddling base's front edge: before it pivots (path: after)"),
    )

    # ------------------------------------------------------------ scene pieces

    @cached_property
    def smoke(self) -> list[tuple[str, tuple[float, float]]]:
        """Smoke counters from the scene's top-level `smoke` list: {"id", "x", "y"}."""
        raw = self.scene.extra.get("smoke", [])
        if not isinstance(raw, list):
            raise QueryError("scene smoke: expected a list of {\"id\", \"x\", \"y\"}")
        counters = []
        for i, item in enumerate(raw):
            if not isinstance(item, dict):
                raise QueryError(f"scene smoke[{i}]: expected an object with id, x and y")
            for key in ("x", "y"):
                if isinstance(item.get(key), bool) or not isinstance(item.get(key), (int, float)):
                    raise QueryError(f"scene smoke[{i}].{key}: expected a number, got {item.get(key)!r}")
            counters.append((str(item.get("id", i)), (float(item["x"]), float(item["y"]))))
        return counters

    @cached_property
    def pieces(self) -> list[Piece]:
        return terrain_pieces(self.scene.terrain) + smoke_pieces(self.smoke)

    @cached_property
    def sizes(self) -> dict[str, float]:
        """Each base's size stat (the model's `size`, else its unit's `stats.size`, else 1)."""
        sizes = {}
        for m in self.scene.models:
            try:
                sizes[m.id] = float(self.scene.model_size(m))
            except (TypeError, ValueError):
                raise QueryError(f"unit {m.unit!r}: stats.size must be a number, "
                                 f"got {self.unit(m.unit).stats.get('size')!r}") from None
        return sizes

    @cached_property
    def _sights(self) -> dict[tuple[str, str], Sight]:
        return {}

    @cached_property
    def sight(self) -> LineOfSight:
        return LineOfSight(self.scene, self.pieces, self.sizes, self.rulings)

    def player(self, model: Model) -> str:
        return self.unit(model.unit).player

    def bases(self, ident: str) -> tuple[Model, ...]:
        """The bases an id names on the table: a base (wreckage too), or a unit's fighting bases."""
        models = self.models_for(ident)
        if len(models) == 1 and models[0].id == ident:
            models = tuple(m for m in models if on_table(m))
        else:
            models = tuple(m for m in models if on_table(m) and in_play(m))
        if not models:
            raise QueryError(f"{ident!r} has no bases on the table")
        return models

    def base(self, ident: str) -> Model:
        models = self.bases(ident)
        if len(models) != 1:
            raise QueryError(f"{ident!r} is a unit of {len(models)} bases: name one base")
        return models[0]

    def fighting(self) -> list[Model]:
        """Bases on the table that still fight (not wreckage)."""
        return [m for m in self.scene.models if on_table(m) and in_play(m)]

    def sp(self, model: Model) -> int:
        """Suppression points on a base (the model's `sp`)."""
        return int(number(self.scene, model, "sp", 0))

    def enemies(self, model: Model) -> list[Model]:
        side = self.player(model)
        return [m for m in self.fighting() if self.player(m) != side]

    # ------------------------------------------------------------ measuring

    def rounded(self, inches: float) -> float:
        """A measured distance, rounded to the agreed precision (ruling `round_to`)."""
        step = self.rulings["round_to"]
        return round(inches / step) * step if step else inches

    def gap(self, a: Model, b: Model) -> float:
        """Inches between two bases, nearest edge to nearest edge, as the players would measure."""
        return self.rounded(self.measure(a, b))

    @cached_property
    def units_on_table(self) -> tuple[Unit, ...]:
        """Units with a base on the table that still fights."""
        return tuple(u for u in self.scene.units
                     if any(on_table(m) and in_play(m) for m in self.scene.models_of(u.id)))

    def closest_bases(self, a: str, b: str) -> tuple[Model, Model, float]:
        pairs = [(ma, mb, self.gap(ma, mb)) for ma in self.bases(a) for mb in self.bases(b) if ma.id != mb.id]
        if not pairs:
            raise QueryError(f"{a!r} and {b!r} name the same base")
        return min(pairs, key=lambda p: p[2])

    def los_between(self, viewer: Model, target: Model) -> Sight:
        """Can `viewer` see `target` (remembered: the scene does not change under a rule system)."""
        key = (viewer.id, target.id)
        if key not in self._sights:
            self._sights[key] = self.sight.check(viewer, target)
        return self._sights[key]

    def in_arc(self, model: Model, target: Model) -> bool:
        """The target lies in the base's 180-degree front arc (ruling `arc_point`)."""
        hx, hy = heading_vector(model.heading)
        x, y = model.position
        points = ([target.position] if self.rulings["arc_point"] == "centre"
                  else list(footprint(target).exterior.coords))
        return max((px - x) * hx + (py - y) * hy for px, py in points) >= -EPS

    def on_elevated(self, model: Model) -> bool:
        return bool(self.sight.holding(model.position, "elevated"))
