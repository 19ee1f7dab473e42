"""Vehicle actions: a reinforcement entering (ranged Attacks of Opportunity), Ramming along a path,
and a ground Retreat at the map border. Hypothetical positions are asked of a copy of the rule system
with the vehicle's model placed there (`HexSkirmish.with_model`), so sight and range are the questions'.
"""

from __future__ import annotations

from typing import Any

from table.errors import QueryError
from table.hexgrid import DIRECTIONS, Hex
from table.rules.hex_skirmish.field import gap
from table.rules.hex_skirmish.movement import Mover
from table.rules.hex_skirmish.rules import Rules
from table.rules.hex_skirmish.text import HARD_COVER_COST, RAM_DC, RETREAT_DC, STEP_COST
from table.rules.hex_skirmish.units import Combatant

WEAPON_KEYS = ("weapon", "band", "modifier", "can_attack", "reasons")


def _vehicle(rules: Rules, ident: str, what: str) -> Combatant:
    """The vehicle a model or unit id names (a unit may have no model yet: a reinforcement)."""
    model = next((m for m in rules.scene.models if m.id == ident), None)
    unit_id = model.unit if model is not None else ident
    if unit_id not in rules.field.units:
        raise QueryError(f"no model or unit {ident!r} in the scene")
    unit = rules.field.units[unit_id]
    if not unit.is_vehicle:
        raise QueryError(f"{what}: unit {unit.id!r} is not a vehicle")
    return unit


def reinforce(rules: Rules, ident: str, at: Hex, heading: float) -> dict[str, Any]:
    """A vehicle not yet deployed entering at hex `at`: whether it may, and the enemies whose ranged
    weapons reach it there (each may make one ranged Attack of Opportunity)."""
    unit = _vehicle(rules, ident, "reinforce")
    if unit.id in rules.field.unit_hexes:
        raise QueryError(f"reinforce: unit {unit.id!r} is already on the table")
    there = rules.with_model(unit.id, at, heading)
    field = there.field
    hexes = field.unit_hexes[unit.id]
    problems = []
    off = [list(h) for h in hexes if h not in field.board]
    if off:
        problems.append(f"off the map: {off}")
    mover = there.mover(unit.id)
    if not off and not mover.can_stop(mover.start):
        problems.append("its footprint is on impassable terrain, an enemy or another unit")
    if not off and not any(field.edge_depth.get(h) == 1 for h in hexes):
        problems.append("it must enter at the map edge (a footprint hex on the edge)")
    attacks = []
    for enemy in field.on_table():
        if enemy.player == unit.player or enemy.id == unit.id:
            continue
        steps = gap(field.unit_hexes[enemy.id], hexes)
        weapons = []
        for arm in enemy.arms:
            if arm.range is not None and steps <= arm.range[1]:
                weapons.append(there.band(enemy.id, unit.id, arm.name))
        if weapons:
            seen = there.los(enemy.id, unit.id)
            attacks.append({"by": enemy.id, "distance": steps, "visible": seen["visible"],
                            "cover": seen["cover"], "can_attack": any(w["can_attack"] for w in weapons),
                            "weapons": [{k: w[k] for k in WEAPON_KEYS} for w in weapons]})
    return {"unit": unit.id, "hex": list(at), "hexes": [list(h) for h in hexes], "ok": not problems,
            "problems": problems, "attacks": attacks}


def ram(rules: Rules, vehicle: str, target: str, path: list[Hex]) -> dict[str, Any]:
    """A vehicle ramming a soldier or hero: its path (anchor hexes, the last one overlapping the target),
    whether the ram is allowed, the DC 7 Evasion check and the damage on a failed check."""
    unit = _vehicle(rules, vehicle, "ram")
    field = rules.field
    victim = field.owner(target)
    if victim.is_vehicle:
        raise QueryError(f"ram: {victim.id!r} is a vehicle (only a soldier or a hero can be rammed)")
    if victim.player == unit.player:
        raise QueryError(f"ram: {victim.id!r} is on the vehicle's own side")
    mover = rules.mover(vehicle)
    if not path or path[0] != mover.start:
        path = [mover.start, *path]
    if len(path) < 2:
        raise QueryError("ram: give the path up to the hex where the vehicle meets its target")
    *before, last = path
    target_hexes = set(field.unit_hexes[victim.id])
    hit = set(mover.cover(last))
    if not hit & target_hexes:
        raise QueryError(f"ram: at {list(last)} the vehicle does not reach {victim.id!r}")
    cost = mover.path_cost(before)             # the approach must be a legal move (QueryError if not)
    reasons = []
    step = (last[0] - before[-1][0], last[1] - before[-1][1])
    if step not in DIRECTIONS:
        raise QueryError(f"ram: {list(last)} is not next to {list(before[-1])}")
    others = [u for u, hs in field.unit_hexes.items()
              if u not in (unit.id, victim.id) and hit & set(hs)]
    if others:
        reasons.append(f"the ram would also run into {', '.join(others)} (a single target only)")
    if any(h not in field.board for h in hit):
        reasons.append("the ram would leave the map")
    ram_cost = _ram_step(mover, before[-1], step, target_hexes)
    if ram_cost is None:
        reasons.append("the vehicle cannot pass the hexsides or terrain into the target's hex")
        ram_cost = STEP_COST
    seen = rules.with_model(unit.id, before[-1], None).los(unit.id, victim.id)
    if seen["cover"]["heavy"]:
        reasons.append(f"{victim.id} is behind heavy cover")
    traveled = len(before) - 1
    size = unit.size
    if rules.rulings["ram_damage"] == "size_plus_half":
        damage = size + traveled // 2
    else:
        damage = (size + traveled) // 2
    total = cost + ram_cost
    if total > mover.allowance:
        reasons.append(f"the path costs {total}, more than its {mover.allowance} movement points")
    return {"vehicle": unit.id, "target": victim.id, "path": [list(h) for h in path], "cost": total,
            "allowance": mover.allowance, "traveled": traveled, "size": size, "can_ram": not reasons,
            "reasons": reasons, "check": "Evasion", "dc": RAM_DC, "damage_on_fail": damage,
            "cover": seen["cover"]}


def _ram_step(mover: Mover, here: Hex, step: Hex, target: set[Hex]) -> int | None:
    """Cost of the ramming step (the target's own hexes do not block it); None when not allowed."""
    cost = STEP_COST
    for h in mover.cover(here):
        into = (h[0] + step[0], h[1] + step[1])
        if (h, into) in mover.hard:
            return None
        if into not in target and (into not in mover.field.board or into in mover.blocked):
            return None
        if into in mover.difficult:
            cost = HARD_COVER_COST
    return cost


def retreat(rules: Rules, vehicle: str) -> dict[str, Any]:
    """Ground Retreat: infantry aboard a vehicle touching the map border try a DC 7 Evasion check."""
    unit = _vehicle(rules, vehicle, "retreat")
    field = rules.field
    if unit.id not in field.unit_hexes:
        raise QueryError(f"retreat: vehicle {unit.id!r} is not on the table")
    at_edge = any(field.edge_depth.get(h) == 1 for h in field.unit_hexes[unit.id])
    aboard = [c.id for c in field.units.values() if c.embarked == unit.id]
    return {"vehicle": unit.id, "at_edge": at_edge, "passengers": aboard,
            "can_try": at_edge and bool(aboard), "check": "Evasion", "dc": RETREAT_DC}
