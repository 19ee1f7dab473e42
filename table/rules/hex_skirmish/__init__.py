"""The hex skirmish rules on the hex grid as one package: the thin rule-system class (`ruleset`), and
units and footprints, movement, sight, the battle's set-up, vehicle actions, the dice the table
prepares, and the live table's incremental analysis, one job per module.

The rulings page `docs/rules/hex-skirmish.md` quotes the rule text each module implements.
"""

from table.rules.hex_skirmish.ruleset import HexSkirmish

__all__ = ["HexSkirmish"]
