"""AgeOfTyrants rule system (placeholder until its issue lands)."""

from table.rules.base import Ruleset, register


@register
class AgeOfTyrants(Ruleset):
    name = "age_of_tyrants"
