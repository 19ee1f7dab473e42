"""Age of Tyrants transports: mounting up and dismounting, as far as positions on the table show them.

Embarking: an infantry base ends its move boarding a friendly Troop Carrier with room left; the table
checks the room and that the carrier is within the base's move (straight-line, nearest edge to
nearest edge: `move` prices a real path). Dismounting: each side of the carrier is open unless
impassable terrain or another base is within the dismounting base's width of it; a dismounted base
may end up to its move rate beyond the side it left by.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from shapely.geometry import LineString, Point, Polygon
from shapely.geometry.base import BaseGeometry

from table.errors import QueryError
from table.geometry import footprint, footprint_vertices, heading_vector, mm_to_inches
from table.rules.age_of_tyrants.base import parse_point
from table.rules.age_of_tyrants.orders import AotOrders
from table.rules.age_of_tyrants.profile import (
    EPS,
    flag,
    in_play,
    locomotion,
    move_rate,
    number,
    on_table,
    role,
)
from table.rules.base import question
from table.scene import Model

SIDES = ("front", "right", "back", "left")  # clockwise from the heading (board y points down)


def carrier_sides(model: Model) -> dict[str, BaseGeometry]:
    """The carrier's four sides: a rectangle's edges; a round or oval base's quarters."""
    outline = footprint_vertices(model)
    (hx, hy), (cx, cy) = heading_vector(model.heading), model.position
    ahead = (outline[:, 0] - cx) * hx + (outline[:, 1] - cy) * hy
    right = -(outline[:, 0] - cx) * hy + (outline[:, 1] - cy) * hx  # clockwise of the heading
    if model.base.shape == "rect":
        lines: dict[str, BaseGeometry] = {}
        for name, along in (("front", ahead), ("right", right), ("back", -ahead), ("left", -right)):
            lines[name] = LineString(outline[along >= along.max() - 1e-9])
        return lines
    reach = 2 * float(np.abs(outline - np.asarray(model.position)).max()) + 1.0
    ring = footprint(model).exterior
    quarters = {}
    for k, name in enumerate(SIDES):
        angles = [math.radians(model.heading + 90 * k + d) for d in (-45, 0, 45)]
        far = [reach, reach * 1.5, reach]
        rim = [(cx + f * math.cos(a), cy + f * math.sin(a)) for f, a in zip(far, angles, strict=True)]
        wedge = Polygon([(cx, cy), *rim])
        quarters[name] = ring.intersection(wedge)
    return quarters


class Transports(AotOrders):
    """The `embark` and `dismount` questions."""

    def _carrier(self, ident: str) -> tuple[Model, int]:
        carrier = self.base(ident)
        capacity = number(self.scene, carrier, "troop_carrier", 0)
        if capacity <= 0 or not in_play(carrier):
            raise QueryError(f"{carrier.id!r} is not a Troop Carrier in play (give its unit "
                             f"stats.troop_carrier: the number of bases it carries)")
        return carrier, int(capacity)

    def _passengers(self, carrier: Model) -> list[Model]:
        return [m for m in self.scene.models
                if m.extra.get("aboard") == carrier.id and not m.extra.get("destroyed")]

    @question("embark")
    def embark(self, base: str, carrier: str, double: str | None = None) -> dict[str, Any]:
        """Can an infantry base end its move (`double`: At the Double) boarding a friendly carrier?"""
        m, (ship, capacity) = self.base(base), self._carrier(carrier)
        if double is not None and double.lower() != "double":
            raise QueryError(f"usage: query SCENE embark BASE CARRIER [double], got {double!r}")
        at_double = double is not None
        aboard = [p.id for p in self._passengers(ship)]
        allowed = self.rounded(move_rate(self.scene, m)) * (2 if at_double else 1)
        distance = self.gap(m, ship)
        checks = ((role(self.scene, m) == "personnel", "only infantry bases board transports"),
                  (self.player(m) == self.player(ship), "the transport is not a friendly one"),
                  (len(aboard) < capacity, f"no room: {len(aboard)} of {capacity} places taken"),
                  (distance <= allowed + EPS, f"{distance:.2f}\" away, more than its {allowed:g}\" move"),
                  (not (at_double and locomotion(self.scene, m) == "jump"),
                   "jump bases cannot receive At the Double orders"),
                  (not flag(self.scene, m, "activated"), "the base has already been activated this turn"))
        problems = [text for ok, text in checks if not ok]
        return {"base": m.id, "transport": ship.id, "double": at_double, "distance": round(distance, 4),
                "allowed_distance": allowed, "capacity": capacity, "aboard": aboard,
                "room": capacity - len(aboard), "allowed": not problems, "problems": problems}

    @question("dismount")
    def dismount(self, carrier: str, base: str | None = None, at: str | None = None) -> dict[str, Any]:
        """The carrier's sides a passenger may dismount by; with X,Y: whether it can end its move there."""
        ship, capacity = self._carrier(carrier)
        passengers = self._passengers(ship)
        if base is not None:
            chosen = self._aboard(base)
            if chosen.extra.get("aboard") != ship.id:
                raise QueryError(f"{chosen.id!r} is not aboard {ship.id!r}")
            passengers = [chosen]
        if not passengers:
            raise QueryError(f"nothing is aboard {ship.id!r}")
        sides = carrier_sides(ship)
        rows = []
        for m in passengers:
            width = mm_to_inches(m.base.width_mm)
            open_sides = {name: self._side_blockers(ship, m, side, width) for name, side in sides.items()}
            row: dict[str, Any] = {"model": m.id, "width": round(width, 4), "move": move_rate(self.scene, m),
                                   "sides": {name: {"open": not hit, "blocked_by": hit}
                                             for name, hit in open_sides.items()},
                                   "can_dismount": any(not hit for hit in open_sides.values())}
            if at is not None:
                row.update(self._dismount_to(m, parse_point(at), sides, open_sides))
            rows.append(row)
        return {"transport": ship.id, "capacity": capacity, "aboard": [m.id for m in self._passengers(ship)],
                "bases": rows}

    def _side_blockers(self, ship: Model, passenger: Model, side: BaseGeometry, width: float) -> list[str]:
        """Impassable terrain and other bases within a base width of one side of the carrier."""
        hit = [p.id for p in self.pieces if p.impassable and side.distance(p.shape) <= width + EPS]
        hit += [o.id for o in self.scene.models if on_table(o) and o.id not in (ship.id, passenger.id)
                and side.distance(footprint(o)) <= width + EPS]
        return hit

    def _dismount_to(self, m: Model, point: tuple[float, float], sides: dict[str, BaseGeometry],
                     open_sides: dict[str, list[str]]) -> dict[str, Any]:
        """Flush with an open side, then up to its move rate: can the base's centre end at `point`?"""
        flush = mm_to_inches(max(m.base.width_mm, m.base.depth_mm)) / 2
        reach = flush + self.rounded(move_rate(self.scene, m))
        gaps = {name: round(side.distance(Point(point)), 4) for name, side in sides.items()}
        by = [name for name in SIDES if not open_sides[name] and gaps[name] <= reach + EPS]
        return {"to": list(point), "reach": round(reach, 4), "from_sides": gaps, "reachable_by": by,
                "reachable": bool(by)}
