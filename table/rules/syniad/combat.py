"""Syniad combat: eligible attackers, the Combat Details numbers, and resolution with one seeded generator.

`resolve` changes the state (strengths, eliminations, retreat, pursuit, statuses) and returns the
result as the text's Combat Details panel lists it. Every random draw comes from the `random.Random`
passed in, in a fixed order (see docs/rules/syniad.md), so a seed replays a combat exactly.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from table.errors import QueryError
from table.hexgrid import Hex, neighbours
from table.rules.syniad.state import SyniadState
from table.rules.syniad.terrain import STACK_LIMIT

WINNER_LOSS = 0.2
LOSER_LOSS = 0.3
RETREAT_LOSS = 0.3  # rolled twice per point on a priority 2 retreat


def eligible_attackers(state: SyniadState, target: Hex, player: str,
                       statuses: Iterable[str] | None = ("available",)) -> list[str]:
    """Units of `player` next to `target`, not across an unbridged river, with an allowed status.

    `statuses=None` ignores status (what could attack, as the analysis and the CLI ask).
    """
    allowed = None if statuses is None else frozenset(statuses)
    smap = state.smap
    if target not in smap.index:
        raise QueryError(f"hex {list(target)} is not on the board")
    out = []
    for n in neighbours(target):
        if n in smap.index and not smap.unbridged(target, n):
            for uid in state.stacks.get(n, ()):
                c = state.counters[uid]
                if c.player == player and (allowed is None or c.status in allowed):
                    out.append(uid)
    return out


def combat_details(state: SyniadState, target: Hex, attackers: Sequence[str]) -> dict[str, Any]:
    """What the panel shows before resolution: the target and the two sides' points."""
    defenders = state.stack(target)
    return {
        "target": list(target),
        "attackers": list(attackers),
        "defenders": defenders,
        "attacking_points": 2 * sum(state.counters[u].strength for u in attackers),
        "defending_points": sum(state.counters[u].strength for u in defenders),
    }


def _casualties(state: SyniadState, units: Sequence[str], chance: float, rng: random.Random,
                rolls: int = 1) -> dict[str, int]:
    """Roll per combat point of each unit; a point is lost if any of its `rolls` rolls succeeds."""
    lost = {}
    for uid in units:
        c = state.counters[uid]
        n = 0
        for _ in range(c.strength):
            hits = [rng.random() < chance for _ in range(rolls)]
            n += any(hits)
        c.strength -= n
        lost[uid] = n
    return lost


def _eliminate(state: SyniadState, units: Sequence[str]) -> list[str]:
    gone = [u for u in units if state.counters[u].strength < 1]
    for uid in gone:
        state.place(uid, None)
        state.counters[uid].status = "unavailable"
    return gone


def retreat_options(state: SyniadState, target: Hex, defender: str,
                    count: int) -> tuple[int | None, list[Hex]]:
    """The best retreat priority from `target` for `count` units of `defender`, and its hexes."""
    smap = state.smap
    attacker = state.opponent(defender)
    open_hexes = [n for n in neighbours(target)
                  if smap.enterable(n) and state.owner(n) != attacker
                  and len(state.stacks.get(n, ())) + count <= STACK_LIMIT]
    first = [h for h in open_hexes if not state.enemy_adjacent(h, defender)]
    if first:
        return 1, first
    if open_hexes:
        return 2, open_hexes
    return None, []


def resolve(state: SyniadState, target: Hex, attackers: Sequence[str], rng: random.Random) -> dict[str, Any]:
    """Resolve one attack on `target` (see docs/rules/syniad.md, Combat)."""
    defenders = state.stack(target)
    if not defenders:
        raise QueryError(f"hex {list(target)} holds no units to attack")
    if not attackers:
        raise QueryError("an attack needs at least one attacking unit")
    result = combat_details(state, target, attackers)
    attacker_wins = result["attacking_points"] > result["defending_points"]
    result["winner"] = "attacker" if attacker_wins else "defender"
    losses = _casualties(state, attackers, WINNER_LOSS if attacker_wins else LOSER_LOSS, rng)
    result["attacker"] = {"casualties": losses, "eliminated": _eliminate(state, attackers)}
    losses = _casualties(state, defenders, LOSER_LOSS if attacker_wins else WINNER_LOSS, rng)
    result["defender"] = {"casualties": losses, "eliminated": _eliminate(state, defenders)}
    survivors = state.stack(target)
    result["retreat"] = _retreat(state, target, survivors, rng) if attacker_wins and survivors else None
    result["pursuit"] = _pursue(state, target, attackers, rng) if not state.stack(target) else []
    for uid in attackers:
        if not state.counters[uid].eliminated:
            state.counters[uid].status = "attacked"
    result["strengths"] = {u: state.counters[u].strength for u in (*attackers, *defenders)}
    return result


def _retreat(state: SyniadState, target: Hex, units: list[str], rng: random.Random) -> dict[str, Any]:
    defender = state.counters[units[0]].player
    priority, options = retreat_options(state, target, defender, len(units))
    out: dict[str, Any] = {"priority": priority, "hex": None, "units": [], "casualties": {}, "eliminated": []}
    if priority is None:
        for uid in units:
            state.counters[uid].strength = 0
        out["eliminated"] = _eliminate(state, units)
        return out
    hex_ = rng.choice(options)
    out["hex"] = list(hex_)
    if priority == 2:
        out["casualties"] = _casualties(state, units, RETREAT_LOSS, rng, rolls=2)
        out["eliminated"] = _eliminate(state, units)
    for uid in units:
        if not state.counters[uid].eliminated:
            state.place(uid, hex_)
            out["units"].append(uid)
    return out


def _pursue(state: SyniadState, target: Hex, attackers: Sequence[str], rng: random.Random) -> list[str]:
    alive = [u for u in attackers if not state.counters[u].eliminated]
    if len(alive) > STACK_LIMIT:
        chosen = set(rng.sample(alive, STACK_LIMIT))
        alive = [u for u in alive if u in chosen]
    for uid in alive:
        state.place(uid, target)
    return alive
