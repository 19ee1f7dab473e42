"""Dice pools: parse `3d8+2d6`, roll with a seeded `random.Random`, count successes, reroll once.

Generic: a rule system passes its success threshold (say 5+) and its own die kinds. A `d3`
is rolled as a d6 halved and rounded up; it yields a number, never a success.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from table.errors import QueryError

_TERM = re.compile(r"^\s*(\d*)\s*d\s*(\d+)\s*$", re.IGNORECASE)
MAX_DICE = 1000


@dataclass(frozen=True)
class Die:
    """One rolled die; `rerolled` once it has used its single reroll."""

    sides: int
    value: int
    rerolled: bool = False

    @property
    def kind(self) -> str:
        return f"d{self.sides}"


@dataclass(frozen=True)
class Pool:
    """Dice to roll together: (count, sides) terms in the order given."""

    terms: tuple[tuple[int, int], ...]

    @classmethod
    def parse(cls, text: str, allowed: Iterable[int] = (3, 6, 8, 10)) -> Pool:
        """Read `3d8+2d6` (a missing count means 1); unknown die kinds are a QueryError."""
        allowed = tuple(allowed)
        terms: list[tuple[int, int]] = []
        for part in text.split("+"):
            match = _TERM.match(part)
            if not match:
                raise QueryError(f"dice pool {text!r}: {part.strip()!r} is not like 3d8")
            count, sides = int(match.group(1) or 1), int(match.group(2))
            if sides not in allowed:
                kinds = ", ".join(f"d{s}" for s in allowed)
                raise QueryError(f"dice pool {text!r}: no d{sides} in this game (dice: {kinds})")
            if count < 1:
                raise QueryError(f"dice pool {text!r}: {part.strip()!r} rolls no dice")
            terms.append((count, sides))
        if sum(c for c, _ in terms) > MAX_DICE:
            raise QueryError(f"dice pool {text!r}: more than {MAX_DICE} dice")
        return cls(tuple(terms))

    def __str__(self) -> str:
        return "+".join(f"{c}d{s}" for c, s in self.terms)


def roll_die(sides: int, rng: random.Random) -> int:
    """One die; a d3 is a d6 halved, rounded up."""
    if sides == 3:
        return math.ceil(rng.randint(1, 6) / 2)
    return rng.randint(1, sides)


def roll(pool: Pool, rng: random.Random) -> tuple[Die, ...]:
    return tuple(Die(sides, roll_die(sides, rng)) for count, sides in pool.terms for _ in range(count))


def reroll(dice: tuple[Die, ...], which: Callable[[Die], bool], rng: random.Random) -> tuple[Die, ...]:
    """Reroll the dice `which` selects, once each: a die that was rerolled before keeps its value.

    Several effects asking for a reroll at the same time are one call: each die rerolls once.
    """
    return tuple(replace(d, value=roll_die(d.sides, rng), rerolled=True) if which(d) and not d.rerolled else d
                 for d in dice)


def successes(dice: Iterable[Die], threshold: int) -> int:
    """Dice showing `threshold` or more (a d3 never succeeds)."""
    return sum(1 for d in dice if d.sides != 3 and d.value >= threshold)
