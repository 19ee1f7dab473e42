"""Synaptik rule system (placeholder until its issue lands)."""

from table.rules.base import Ruleset, register


@register
class Synaptik(Ruleset):
    name = "synaptik"
