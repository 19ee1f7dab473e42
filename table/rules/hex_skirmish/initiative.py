"""Initiative: one 1d8 per army, added to each group, hero and standalone vehicle with its movement
modifier (Movement / 5; heroes add Dex); ties go to the army with the higher raw roll; then the five
phases in order."""

from __future__ import annotations

import random
from typing import Any

from table.rules.hex_skirmish.field import Field
from table.rules.hex_skirmish.text import INITIATIVE_DIE, MOVEMENT_DIVISOR, PHASES
from table.rules.hex_skirmish.units import Combatant


def movement_modifier(movement: int, rounding: str) -> int:
    if rounding == "nearest":
        return int(movement / MOVEMENT_DIVISOR + 0.5)
    return movement // MOVEMENT_DIVISOR


def _precedence(rng: random.Random, rolls: dict[str, int]) -> tuple[list[str], list[dict[str, int]]]:
    """Armies from the highest raw roll down; armies with equal rolls roll off (again if still equal)."""
    rolloffs: list[dict[str, int]] = []

    def order(players: list[str], score: dict[str, int]) -> list[str]:
        out: list[str] = []
        for value in sorted(set(score[p] for p in players), reverse=True):
            tied = sorted(p for p in players if score[p] == value)
            if len(tied) > 1:
                again = {p: rng.randint(1, INITIATIVE_DIE) for p in tied}
                rolloffs.append(again)
                tied = order(tied, again)
            out.extend(tied)
        return out

    return order(sorted(rolls), rolls), rolloffs


def _entries(field: Field) -> list[tuple[str, str, list[Combatant]]]:
    """(entry id, kind, units) for every group, hero and standalone vehicle on the table."""
    present = {c.id for c in field.on_table()}
    entries: list[tuple[str, str, list[Combatant]]] = []
    groups: dict[str, list[Combatant]] = {}
    for c in field.units.values():
        if c.id not in present or c.embarked is not None:
            continue
        if c.is_hero:
            entries.append((c.id, "hero", [c]))
        elif c.is_vehicle:
            entries.append((c.id, "vehicle", [c]))
        else:
            groups.setdefault(c.group or c.id, []).append(c)
    entries.extend((name, "group", members) for name, members in groups.items())
    return entries


def initiative(field: Field, seed: int | None, rounding: str) -> dict[str, Any]:
    """Roll initiative (seeded: the same seed gives the same battle) and list each phase's order."""
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    rng = random.Random(seed)
    entries = _entries(field)
    players = sorted({units[0].player for _, _, units in entries})
    rolls = {p: rng.randint(1, INITIATIVE_DIE) for p in players}
    precedence, rolloffs = _precedence(rng, rolls)
    rank = {p: i for i, p in enumerate(precedence)}
    rows: list[dict[str, Any]] = []
    for entry, kind, units in entries:
        player = units[0].player
        slowest = min(u.needs_movement() for u in units)
        dex = units[0].dex if kind == "hero" else 0
        mod = movement_modifier(slowest, rounding)
        rows.append({"entry": entry, "kind": kind, "player": player, "units": [u.id for u in units],
                     "passengers": [c.id for c in field.units.values() if c.embarked == entry],
                     "roll": rolls[player], "movement_modifier": mod, "dex_modifier": dex,
                     "initiative": rolls[player] + mod + dex})
    rows.sort(key=lambda r: (-r["initiative"], rank[r["player"]], r["entry"]))
    heroes = [r["entry"] for r in rows if r["kind"] == "hero"]
    armies = [r["entry"] for r in rows if r["kind"] != "hero"]
    absent = [c.id for c in field.units.values() if c.id not in field.unit_hexes and c.embarked is None]
    return {"seed": seed, "rolls": rolls, "rolloffs": rolloffs, "precedence": precedence, "order": rows,
            "phases": [{"phase": p, "order": heroes if p == "hero" else armies} for p in PHASES],
            "absent": absent}
