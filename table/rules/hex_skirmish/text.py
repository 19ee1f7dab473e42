"""The numbers the hex skirmish rule text states (quoted in docs/rules/hex-skirmish.md)."""

from __future__ import annotations

DEPLOY_DEPTH = 5            # "within 5 hexes of the map's edge, or a 5 hex radius from agreed ... point"
MIN_GROUP = 2               # "a group of 2 or 3 at least"
INITIATIVE_DIE = 8          # "roll a 1d8"
MOVEMENT_DIVISOR = 5        # "Movement divided by 5"
MAXIMUM_RANGE_PENALTY = -2  # "within which attacks receive a -2 penalty to hit"
SOFT_COVER_AC = 1           # "Soft Cover grants a +1 AC bonus"
HARD_COVER_AC = 2           # "Hard Cover grants a +2 AC bonus"
HARD_COVER_COST = 2         # "costs 2 movement points instead of 1"
STEP_COST = 1
PRONE_RANGED_AC = 2         # "+2 AC bonus against ranged attacks"
PRONE_CLOSE_AC = -2         # "-2 penalty against melee attacks and ranged attacks from 5 hexes away or less"
PRONE_CLOSE_RANGE = 5
TOTAL_DEFENSE_AC = 2        # "Sacrifice Main Action to gain a +2 AC bonus"
SNAP_PENALTY = -4           # "they can still make an attack at a -4 penalty to hit"
POLEARM_REACH = 2           # "Polearms increase the range of Attack of Opportunity to 2 hexes"
LEAD_RANGE = 10             # "Friendly units within 10 hexes of the Routing unit"
LEAD_DC = 10                # "can make a DC 10 Lead check"
BOARDING_DC = 10            # "a DC 10 Exert check"
RAM_DC = 7                  # "The targets need to make a DC 7 Evasion check"
RETREAT_DC = 7              # "pass a DC 7 Evasion check in order to successfully evade pursuit"
HEAL_DC = 10                # "a successful Heal or Fix ... roll with a DC of 10"

PHASES = ("hero", "movement", "ability", "shooting", "melee")

# (hexes long, hexes wide) for size 1..10; Normal..Giant read as sizes 1..5, whose footprints are the same.
SIZES: dict[int, tuple[int, int]] = {
    1: (1, 1), 2: (2, 1), 3: (2, 2), 4: (3, 2), 5: (3, 3),
    6: (4, 3), 7: (4, 4), 8: (5, 4), 9: (5, 5), 10: (6, 5),
}
SIZE_NAMES: dict[str, int] = {"normal": 1, "medium": 2, "large": 3, "serpentine": 4, "giant": 5}
