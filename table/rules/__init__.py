"""Rule systems, one module each, found by name through the registry in `base`."""

from table.rules import age_of_tyrants, hex_skirmish, synaptik, syniad  # noqa: F401  (registration)
from table.rules.base import Ruleset, all_rulesets, get_ruleset, question, register

__all__ = ["Ruleset", "all_rulesets", "get_ruleset", "question", "register"]
