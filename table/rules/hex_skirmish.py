"""HexSkirmish rule system (placeholder until its issue lands)."""

from table.rules.base import Ruleset, register


@register
class HexSkirmish(Ruleset):
    name = "hex_skirmish"
