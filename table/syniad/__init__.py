"""Syniad POC as a complete game on the physical table: map, movement, phases, combat, analysis.

`SyniadGame` is the game object the live table and the web panel drive; `SyniadAnalysis` keeps
every unit's range, attacker eligibility and enemy sight lines up to date move by move.
"""

from table.syniad.analysis import SyniadAnalysis
from table.syniad.game import IllegalAction, SyniadGame
from table.syniad.state import Counter, SyniadState
from table.syniad.terrain import SyniadMap

__all__ = ["Counter", "IllegalAction", "SyniadAnalysis", "SyniadGame", "SyniadMap", "SyniadState"]
