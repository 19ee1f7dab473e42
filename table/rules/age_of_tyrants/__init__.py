"""Age of Tyrants as one package: the rule-system class (`ruleset`) and its engine modules
(profiles, line of sight, screening and dead ground, targets, orders and combat, movement,
transports, the batched report).

The rulings page `docs/rules/age-of-tyrants.md` quotes the rule text each module implements.
"""

from table.rules.age_of_tyrants.ruleset import AgeOfTyrants

__all__ = ["AgeOfTyrants"]
