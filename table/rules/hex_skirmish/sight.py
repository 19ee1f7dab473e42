"""Hex line of sight: the hex line between two footprints, what blocks it, and the cover it crosses.

Blocking terrain hexes between the two block the line; a soft or hard cover hexside crossed counts as
light or heavy cover; a vehicle standing between them counts as heavy cover ("Vehicles act as Heavy
Cover ... as long as the Vehicles are in the way of enemy fire"); a line entering a `dug_in` target
across a hexside in front of it meets heavy cover (Dig In). Big units try every pair of their footprint
hexes and keep the best line (visible first, then the least cover, then the shortest).
"""

from __future__ import annotations

from typing import Any

from table.hexgrid import Hex, distance, line
from table.rules.hex_skirmish.field import Field, gap
from table.rules.hex_skirmish.movement import Ground
from table.rules.hex_skirmish.text import HARD_COVER_AC, SOFT_COVER_AC

COVER_KIND = {"soft_cover": "light", "hard_cover": "heavy"}
DIG_IN_ARC = {"front": 1, "wide": 3}


def hex_id(h: Hex) -> str:
    return f"hex:{h[0]},{h[1]}"


def _one_line(field: Field, ground: Ground, start: Hex, end: Hex, own: frozenset[Hex],
              target: frozenset[Hex], skip: frozenset[str], dug: frozenset[tuple[Hex, Hex]],
              rulings: dict[str, Any]) -> dict[str, Any]:
    hexes = line(start, end)
    blocked: list[str] = []
    cover = {"light": 0, "heavy": 0}
    sources: list[dict[str, Any]] = []
    vehicles: list[str] = []
    terrain = field.rules.hex_terrain
    for h in hexes[1:-1]:
        if h in own or h in target:
            continue
        if terrain.get(h, "clear") in ground.blocking:
            blocked.append(hex_id(h))
        unit_id = field.occupant.get(h)
        if unit_id and unit_id not in skip and unit_id not in vehicles and field.units[unit_id].is_vehicle:
            if rulings["vehicle_cover"] == "in_the_way" or gap(field.unit_hexes[unit_id], tuple(target)) <= 1:
                vehicles.append(unit_id)
    for unit_id in vehicles:
        cover["heavy"] += 1
        sources.append({"kind": "vehicle", "unit": unit_id})
    for here, there in zip(hexes, hexes[1:], strict=False):
        if (here, there) in dug:
            cover["heavy"] += 1
            sources.append({"kind": "dug_in", "between": [list(here), list(there)], "cover": "heavy"})
        kind = COVER_KIND.get(field.sides.get((here, there), ""))
        if kind is None:
            continue
        at_target = here in target or there in target
        at_shooter = here in own or there in own
        counts = at_target if rulings["cover_hexsides"] == "target" else (at_target or not at_shooter)
        if counts and not ({here, there} <= own or {here, there} <= target):
            cover[kind] += 1
            sources.append({"kind": "hexside", "between": [list(here), list(there)], "cover": kind})
    return {"visible": not blocked, "cover": cover, "blocked_by": blocked, "cover_from": sources,
            "line": [list(field.layout.to_board(start)), list(field.layout.to_board(end))],
            "hexes": [list(h) for h in hexes], "distance": distance(start, end)}


def sight(field: Field, ground: Ground, a: str, b: str, rulings: dict[str, Any]) -> dict[str, Any]:
    """Line of sight from model/unit `a` to model/unit `b` (contract shape, plus `hexes` and sources)."""
    own, target = frozenset(field.hexes(a)), frozenset(field.hexes(b))
    skip = frozenset({field.owner(a).id, field.owner(b).id})
    dug = field.dug_sides(field.owner(b).id, DIG_IN_ARC[rulings["dig_in_arc"]])
    best: tuple[Any, ...] | None = None
    for start in sorted(own):
        for end in sorted(target):
            seen = _one_line(field, ground, start, end, own, target, skip, dug, rulings)
            key = (not seen["visible"], seen["cover"]["heavy"], seen["cover"]["light"], seen["distance"])
            if best is None or key < best[0]:
                best = (key, seen)
    assert best is not None
    answer = best[1]
    del answer["distance"]
    return {"from": a, "to": b, **answer}


def cover_ac(cover: dict[str, int]) -> int:
    """The AC bonus of the best cover crossed: hard +2, soft +1 (they do not add up)."""
    if cover["heavy"]:
        return HARD_COVER_AC
    return SOFT_COVER_AC if cover["light"] else 0
