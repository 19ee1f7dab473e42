"""Synaptik orders: movement allowance per order, Firing Line's extra attacks, the initiative bag."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from table.dice import Die, roll_die, successes
from table.errors import QueryError

SUCCESS = 5  # 5+ on any die
ORDERS: dict[str, float] = {  # order -> movement multiplier
    "maneuver": 2.0, "charge": 2.0, "standard": 1.0, "regroup": 0.5, "firing_line": 0.0, "emplace": 0.0,
}
FIRING_LINE_MODELS = ("beyond_first_ten", "every_ten")


def order_name(text: str) -> str:
    """An order as typed (`Firing Line`, `firing-line`, `Maneuver`) -> its key, else a QueryError."""
    key = text.strip().lower().replace("-", "_").replace(" ", "_")
    key = {"manoeuvre": "maneuver", "standard_orders": "standard"}.get(key, key)
    if key not in ORDERS:
        raise QueryError(f"unknown order {text!r} (orders: {', '.join(ORDERS)})")
    return key


def allowance(order: str, movement: float) -> float:
    """Inches a unit may move under an order: Maneuver and Charge 2x, Standard 1x, Regroup half."""
    return ORDERS[order] * movement


@dataclass(frozen=True)
class FiringLine:
    """Extra weapon-profile attacks Firing Line grants, and why."""

    base: int
    for_models: int
    for_wounds: int

    @property
    def total(self) -> int:
        return self.base + self.for_models + self.for_wounds


def firing_line(models: int, wounds: Sequence[float], reading: str = "beyond_first_ten") -> FiringLine:
    """Extra attacks: one profile; more for more than 10 models; one per 10 wounds on a single model.

    `beyond_first_ten`: one more per started 10 models beyond the first 10 (11-20 -> 1, 21-30 -> 2);
    `every_ten`: with more than 10 models, one per started 10 models (11-20 -> 2).
    """
    if reading not in FIRING_LINE_MODELS:
        known = ", ".join(FIRING_LINE_MODELS)
        raise QueryError(f"ruling firing_line_models={reading!r}: expected one of {known}")
    if models > 10:
        extra = math.ceil((models - 10) / 10) if reading == "beyond_first_ten" else math.ceil(models / 10)
    else:
        extra = 0
    from_wounds = sum(int(w // 10) for w in wounds)
    return FiringLine(1, extra, from_wounds)


@dataclass(frozen=True)
class Initiative:
    """The 3d8 roll-off (re-rolled among tied leaders) and the order tokens come out of the bags."""

    rounds: tuple[dict[str, tuple[int, ...]], ...]
    winner: str
    draws: tuple[tuple[str, str], ...]  # (player, unit type) in the order drawn


def initiative(bags: Mapping[str, Sequence[str]], rng: random.Random) -> Initiative:
    """Roll 3d8 per player (most successes wins, tied leaders roll again), then draw the bags in turn.

    The winner draws first; players alternate, a player whose bag is empty is skipped.
    """
    if not bags:
        raise QueryError("no player has a unit on the table")
    rounds: list[dict[str, tuple[int, ...]]] = []
    contenders = sorted(bags)
    while True:
        rolled = {p: tuple(roll_die(8, rng) for _ in range(3)) for p in contenders}
        rounds.append(rolled)
        score = {p: successes((Die(8, v) for v in values), SUCCESS) for p, values in rolled.items()}
        best = max(score.values())
        contenders = [p for p in contenders if score[p] == best]
        if len(contenders) == 1:
            break
    winner = contenders[0]
    players = sorted(bags)
    start = players.index(winner)
    players = players[start:] + players[:start]
    remaining = {p: list(bags[p]) for p in players}
    for tokens in remaining.values():
        rng.shuffle(tokens)
    draws: list[tuple[str, str]] = []
    while any(remaining.values()):
        for p in players:
            if remaining[p]:
                draws.append((p, remaining[p].pop()))
    return Initiative(tuple(rounds), winner, tuple(draws))
