"""Dice the players roll that the table can still prepare: who must roll and against what.

Morale checks for groups that lost half their units, Heal or Fix checks for Mortally Wounded units,
and the contested Sneak versus Notice checks a unit in Stealth owes for passing enemies' melee range.
"""

from __future__ import annotations

from typing import Any

from table.hexgrid import Hex
from table.rules.hex_skirmish.field import Field, gap
from table.rules.hex_skirmish.movement import Mover
from table.rules.hex_skirmish.text import HEAL_DC

HEALING_PERK = {"Heal": "synthmed", "Fix": "spare_parts"}


def morale(field: Field) -> dict[str, Any]:
    """Groups where half the units (or more) died or rout: the others must make a Morale check; and
    units that lost at least half their hit points. The text gives the Morale check no DC."""
    found: dict[str, list[str]] = {}
    for c in field.units.values():
        if c.group is not None:
            found.setdefault(c.group, []).append(c.id)
    groups = []
    for name, members in found.items():
        lost = [m for m in members if field.units[m].has("dead") or field.units[m].has("routed")]
        standing = [m for m in members if m not in lost]
        must = 2 * len(lost) >= len(members) and bool(lost)
        groups.append({"group": name, "units": len(members), "lost": lost,
                       "must_check": standing if must else []})
    wounded = []
    for c in field.units.values():
        if c.hp is not None and not c.has("dead") and 2 * c.hp_lost >= c.hp and c.hp_lost > 0:
            wounded.append({"unit": c.id, "hp": c.hp, "hp_lost": c.hp_lost})
    return {"check": "Morale", "dc": None, "groups": groups, "wounded": wounded}


def heal(field: Field) -> dict[str, Any]:
    """Mortally Wounded units: Heal (organic) or Fix (vehicles), DC 10, by friends; 1 hit point, or
    several when the healer has Synthmed (Heal) or Spare Parts (Fix)."""
    out = []
    for c in field.units.values():
        if not c.has("mortally_wounded"):
            continue
        check = "Fix" if c.is_vehicle or "mechanical" in c.perks else "Heal"
        healers = [{"unit": h.id, "heals": "several" if HEALING_PERK[check] in h.perks else 1}
                   for h in field.on_table() if h.player == c.player and h.id != c.id
                   and not (h.has("dead") or h.has("mortally_wounded"))]
        out.append({"unit": c.id, "check": check, "dc": HEAL_DC, "healers": healers})
    return {"phase": "ability", "units": out}


def stealth_checks(field: Field, mover: Mover, path: list[Hex], reach: int) -> list[dict[str, Any]]:
    """Each time a unit in Stealth steps into a hostile unit's melee range along `path`: one contested
    Sneak versus Notice check against that unit."""
    if not mover.unit.has("stealth"):
        return []
    out = []
    for enemy in field.on_table():
        if enemy.player == mover.unit.player:
            continue
        span = enemy.melee_reach(reach)
        if span <= 0:
            continue
        theirs = field.unit_hexes[enemy.id]
        for index, (here, there) in enumerate(zip(path, path[1:], strict=False), start=1):
            if gap(mover.cover(here), theirs) > span >= gap(mover.cover(there), theirs):
                out.append({"against": enemy.id, "step": index, "to": list(there),
                            "check": "Sneak versus Notice"})
    return sorted(out, key=lambda e: (e["step"], e["against"]))
