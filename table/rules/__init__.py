"""Rule systems, one package each (`table/rules/<system>/`), found by name through entry points in
the group `smarttable.rulesets` and loaded on first use (see `table.registry`)."""

from table.rules.base import Ruleset, all_rulesets, get_ruleset, question, register

__all__ = ["Ruleset", "all_rulesets", "get_ruleset", "question", "register"]
