"""Fighting: weapon range bands with the target's AC modifiers, melee range, Attacks of Opportunity
along a path (Disengage, polearms), boarding, and Lead within 10 hexes of a routing unit."""

from __future__ import annotations

from typing import Any

from table.errors import QueryError
from table.hexgrid import Hex
from table.rules.hex_skirmish.field import Field, gap
from table.rules.hex_skirmish.movement import Mover
from table.rules.hex_skirmish.text import (
    BOARDING_DC,
    LEAD_DC,
    LEAD_RANGE,
    MAXIMUM_RANGE_PENALTY,
    PRONE_CLOSE_AC,
    PRONE_CLOSE_RANGE,
    PRONE_RANGED_AC,
    SNAP_PENALTY,
    TOTAL_DEFENSE_AC,
)
from table.rules.hex_skirmish.units import Combatant


def band(field: Field, a: str, b: str, weapon: str | None, seen: dict[str, Any],
         rulings: dict[str, Any], cover_bonus: int) -> dict[str, Any]:
    """Range band of a ranged attack from `a` to `b`, its to-hit modifier and the target's AC bonus."""
    shooter, target = field.owner(a), field.owner(b)
    arm = shooter.arm(weapon)
    if arm.range is None:
        raise QueryError(f"weapon {arm.name!r} of unit {shooter.id!r} has no range (a melee weapon: "
                         "ask melee)")
    optimal, maximum = arm.range
    steps = gap(field.hexes(a), field.hexes(b))
    reasons = []
    if steps <= optimal:
        name, modifier = "optimal", 0
    elif steps <= maximum:
        name, modifier = "maximum", MAXIMUM_RANGE_PENALTY
    else:
        name, modifier = "out_of_range", None
        reasons.append(f"past the maximum range of {maximum} hexes")
    if modifier is not None and (shooter.has("snap") or shooter.has("disengaged")):
        modifier += SNAP_PENALTY
    if shooter.has("dashed"):
        reasons.append("it dashed (Dash sacrifices the attack action)")
    if shooter.is_vehicle and steps <= 1 and not shooter.melee_arms:
        reasons.append("vehicles cannot attack adjacent units without melee weapons")
    if target.has("stealth"):
        reasons.append("the target is in Stealth")
    if not seen["visible"]:
        reasons.append("no line of sight")
    prone = 0
    if target.has("prone"):
        if steps > PRONE_CLOSE_RANGE:
            prone = PRONE_RANGED_AC
        else:
            prone = PRONE_CLOSE_AC + (PRONE_RANGED_AC if rulings["prone_close_range"] == "stack" else 0)
    cover = cover_bonus
    defense = TOTAL_DEFENSE_AC if target.has("total_defense") else 0
    parts = {"cover": cover, "prone": prone, "total_defense": defense}
    return {"from": a, "to": b, "weapon": arm.name, "band": name, "distance": steps, "optimal": optimal,
            "maximum": maximum, "modifier": modifier, "can_attack": not reasons, "reasons": reasons,
            "ac_bonus": sum(parts.values()), "ac_parts": parts}


def melee(field: Field, reach: int) -> dict[str, Any]:
    """Every pair of enemy units within melee range, who of them can strike, and who may board whom."""
    present = field.on_table()
    pairs, boarding = [], []
    for i, a in enumerate(present):
        for b in present[i + 1:]:
            if a.player == b.player:
                continue
            steps = gap(field.unit_hexes[a.id], field.unit_hexes[b.id])
            if steps > reach:
                continue
            pairs.append({"a": a.id, "b": b.id, "distance": steps, "a_attacks": steps <= a.melee_reach(reach),
                          "b_attacks": steps <= b.melee_reach(reach)})
            for x, y in ((a, b), (b, a)):
                if y.is_vehicle and not x.is_vehicle and (y.crew > 0 or "troop_transport" in y.perks):
                    boarding.append({"unit": x.id, "vehicle": y.id, "dc": BOARDING_DC})
    return {"range": reach, "pairs": pairs, "boarding": boarding}


def opportunity(field: Field, mover: Mover, path: list[Hex], reach: int) -> dict[str, Any]:
    """Attacks of Opportunity a unit provokes along a path of hexes (its start first or implied)."""
    if not path or path[0] != mover.start:
        path = [mover.start, *path]
    cost = mover.path_cost(path)
    if not mover.can_stop(path[-1]):
        raise QueryError(f"path: unit {mover.unit.id!r} cannot end its move on {list(path[-1])}")
    unit = mover.unit
    enemies = [c for c in field.on_table() if c.player != unit.player]
    attacks, done = [], set()
    for index, (here, there) in enumerate(zip(path, path[1:], strict=False), start=1):
        before, after = mover.cover(here), mover.cover(there)
        for enemy in enemies:
            if enemy.id in done:
                continue
            trigger = _trigger(enemy, unit, gap(before, field.unit_hexes[enemy.id]),
                               gap(after, field.unit_hexes[enemy.id]), reach)
            if trigger:
                done.add(enemy.id)
                attacks.append({"by": enemy.id, "step": index, "from": list(here), "to": list(there),
                                "trigger": trigger, "reach": enemy.opportunity_reach(reach)})
    return {"unit": unit.id, "path": [list(h) for h in path], "cost": cost, "allowance": mover.allowance,
            "disengaged": unit.has("disengaged"), "attacks": attacks}


def _trigger(enemy: Combatant, unit: Combatant, before: int, after: int, reach: int) -> str | None:
    span = enemy.opportunity_reach(reach)
    if span <= 0:
        return None
    if before <= span < after and not unit.has("disengaged"):
        return "leave"
    polearm = any(a.polearm for a in enemy.arms)
    if polearm and after <= span < before and not unit.has("negate_polearm"):
        return "enter"
    return None


def down(unit: Combatant) -> bool:
    """Dead or Mortally Wounded ("When a unit or vehicle have their hit points taken to 0, they are considered
    to be Mortally Wounded"): it makes no Lead check, and no one rallies it."""
    at_zero = unit.hp is not None and unit.hp_lost >= unit.hp
    return unit.has("dead") or unit.has("mortally_wounded") or at_zero


def lead(field: Field, ident: str) -> dict[str, Any]:
    """Routing friends this unit may rally (DC 10 Lead within 10 hexes); if it routs, who may rally it. The
    dead and the mortally wounded take no part either way."""
    unit = field.owner(ident)
    here = field.hexes(ident)
    friends = [] if down(unit) else [c for c in field.on_table()
                                     if c.player == unit.player and c.id != unit.id and not down(c)]

    def near(want_routed: bool) -> list[dict[str, Any]]:
        out = []
        for c in friends:
            steps = gap(here, field.unit_hexes[c.id])
            if c.has("routed") == want_routed and steps <= LEAD_RANGE:
                out.append({"unit": c.id, "distance": steps})
        return out

    routed = unit.has("routed")
    return {"unit": unit.id, "range": LEAD_RANGE, "dc": LEAD_DC, "routed": routed,
            "targets": [] if routed else near(True), "leaders": near(False) if routed else []}
