"""The hex skirmish rules on the hex grid: units and footprints, movement, sight, the battle's set-up,
vehicle actions, the dice the table prepares, and the live table's incremental analysis.

`table.rules.hex_skirmish` is the thin rule-system class; the work is done here, one job per module.
The rulings page `docs/rules/hex-skirmish.md` quotes the rule text each module implements.
"""
