"""Before the battle: deployment zones and grouping checks."""

from __future__ import annotations

from typing import Any

from table.errors import QueryError
from table.hexgrid import Hex, distance
from table.rules.hex_skirmish.field import SIDES, Field
from table.rules.hex_skirmish.text import DEPLOY_DEPTH, MIN_GROUP


def zones(field: Field) -> dict[str, dict[str, Any]]:
    """Each player's deployment rule from the scene's `deployment` (default: any map edge)."""
    raw = field.rules.scene.extra.get("deployment", {})
    if not isinstance(raw, dict):
        raise QueryError(f"deployment: expected an object of player -> zone, got {raw!r}")
    players = sorted({c.player for c in field.units.values()})
    out: dict[str, dict[str, Any]] = {}
    for player in players:
        spec = raw.get(player, {"edge": "any"})
        where = f"deployment.{player}"
        if not isinstance(spec, dict) or len(spec) != 1 or not set(spec) <= {"edge", "point"}:
            raise QueryError(f'{where}: expected {{"edge": SIDE}} or {{"point": [q, r]}}, got {spec!r}')
        if "edge" in spec and spec["edge"] not in (*SIDES, "any"):
            raise QueryError(f"{where}.edge: {spec['edge']!r} is not one of any, {', '.join(SIDES)}")
        if "point" in spec:
            point = spec["point"]
            if (not isinstance(point, list) or len(point) != 2
                    or not all(isinstance(v, int) and not isinstance(v, bool) for v in point)):
                raise QueryError(f"{where}.point: expected [q, r] integers, got {point!r}")
        out[player] = dict(spec)
    unknown = sorted(set(raw) - set(players))
    if unknown:
        raise QueryError(f"deployment: no units of player(s) {', '.join(unknown)}")
    return out


def in_zone(field: Field, zone: dict[str, Any], h: Hex) -> bool:
    if h not in field.board:
        return False
    if "point" in zone:
        return distance(h, tuple(zone["point"])) <= DEPLOY_DEPTH
    depth = field.edge_depth if zone["edge"] == "any" else field.side_depth[zone["edge"]]
    return depth.get(h, DEPLOY_DEPTH + 1) <= DEPLOY_DEPTH


def deploy(field: Field) -> dict[str, Any]:
    """Which units stand inside their army's deployment zone (every footprint hex inside)."""
    rules = zones(field)
    units = []
    for c in field.on_table():
        outside = [list(h) for h in field.unit_hexes[c.id] if not in_zone(field, rules[c.player], h)]
        units.append({"unit": c.id, "player": c.player, "ok": not outside, "outside": outside})
    board = sorted(field.board)
    return {
        "ok": all(u["ok"] for u in units),
        "depth": DEPLOY_DEPTH,
        "zones": {p: {**z, "hexes": [list(h) for h in board if in_zone(field, z, h)]}
                  for p, z in rules.items()},
        "units": units,
    }


def groups(field: Field, max_size: int | None) -> dict[str, Any]:
    """Grouping checks: groups of at least 2; a unit alone only if a Hero, the last of its type, or a
    lone survivor. Vehicles stand alone and units embarked in a vehicle belong to it."""
    found: dict[str, list[str]] = {}
    for c in field.units.values():
        if c.is_vehicle or c.embarked is not None:
            continue
        found.setdefault(c.group or c.id, []).append(c.id)
    answer = []
    for name, members in found.items():
        units = [field.units[m] for m in members]
        problems = []
        if len({u.player for u in units}) > 1:
            problems.append("mixes players " + ", ".join(sorted({u.player for u in units})))
        if len(members) < MIN_GROUP:
            lone = units[0]
            same_type = [o.id for o in field.units.values() if o.id != lone.id and o.player == lone.player
                         and o.kind == lone.kind and not o.is_vehicle]
            if not lone.is_hero and not lone.has("survivor") and same_type:
                problems.append(f"{lone.id} is alone but {', '.join(same_type)} share its type {lone.kind!r}")
        if max_size is not None and len(members) > max_size:
            problems.append(f"{len(members)} units, more than {max_size}")
        answer.append({"group": name, "player": units[0].player, "units": members, "ok": not problems,
                       "problems": problems})
    return {"ok": all(g["ok"] for g in answer), "groups": answer}
