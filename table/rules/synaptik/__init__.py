"""Synaptik Tactics as one package: the rule-system class (`ruleset`) and its engine modules
(sight lines, hidden bases, cover, movement, orders and dice, units and bands).

The rulings page `docs/rules/synaptik.md` quotes the rule text each module implements.
"""

from table.rules.synaptik.ruleset import Synaptik

__all__ = ["Synaptik"]
