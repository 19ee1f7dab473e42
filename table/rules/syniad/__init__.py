"""Syniad POC as one package: the rule-system class (`ruleset`) answering `smarttable query`, and
the complete game on the physical table: map, movement, phases, combat, analysis.

`SyniadGame` is the game object the live table and the web panel drive; `SyniadAnalysis` keeps
every unit's range, attacker eligibility and enemy sight lines up to date move by move.
"""

from table.rules.syniad.analysis import SyniadAnalysis
from table.rules.syniad.game import IllegalAction, SyniadGame
from table.rules.syniad.ruleset import Syniad
from table.rules.syniad.state import Counter, SyniadState
from table.rules.syniad.terrain import SyniadMap

__all__ = ["Counter", "IllegalAction", "Syniad", "SyniadAnalysis", "SyniadGame", "SyniadMap", "SyniadState"]
