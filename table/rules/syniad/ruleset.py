"""Syniad POC: hex movement, zones of control, stacking and combat (rulings: docs/rules/syniad.md).

The game itself lives in the other modules of this package; this class answers `smarttable query`
questions about a scene, read as a position at the start of a turn (every unit at full movement).
"""

from __future__ import annotations

import random
from typing import Any

from table.cached import cached_property
from table.errors import QueryError
from table.hexgrid import Hex
from table.rules.base import question, register
from table.rules.hexbase import HexRuleset, parse_hex
from table.rules.options import Option
from table.rules.profiles import TerrainKinds
from table.rules.syniad import combat, physical
from table.rules.syniad.analysis import SyniadAnalysis
from table.rules.syniad.army import UNIT_PROFILE
from table.rules.syniad.dice import COMBAT
from table.rules.syniad.game import SyniadGame
from table.rules.syniad.live import SyniadLive
from table.rules.syniad.sight import DEFAULT_BLOCKING, sight
from table.rules.syniad.state import SyniadState, counter_stats, map_from_scene
from table.rules.syniad.terrain import STACK_LIMIT, TERRAIN_COST, SyniadMap


@register
class Syniad(HexRuleset):
    name = "syniad"
    title = "Syniad POC"
    rulings_page = "docs/rules/syniad.md"
    rule_text = "syniad-poc.txt"
    options = (Option("los_blocking", "choices", sorted(DEFAULT_BLOCKING), tuple(TERRAIN_COST),
                      help="hex terrain that blocks the table's hex line of sight"),)
    phases = (("movement", 0), ("combat", 0), ("movement", 1), ("combat", 1))
    dice = (COMBAT,)
    live_game = SyniadLive
    panel_script = "panel.js"
    unit_profile = UNIT_PROFILE
    terrain_kinds = TerrainKinds(hexes=tuple(sorted(TERRAIN_COST)), hexsides=("river",))

    def check_unit(self, unit_id: str) -> None:
        """A counter's movement and combat strength, as a game reads them."""
        counter_stats(self.unit(unit_id))

    @cached_property
    def state(self) -> SyniadState:
        """A fresh state built from the scene (questions that change it build their own)."""
        return SyniadState.from_scene(self.scene, self._map)

    @cached_property
    def _map(self) -> SyniadMap:
        return map_from_scene(self.scene)

    def new_game(self, seed: int | None = None) -> SyniadGame:
        """A game starting at turn 1, Player 1's movement phase, from this scene."""
        return SyniadGame(SyniadState.from_scene(self.scene, self._map), seed)

    @cached_property
    def blocking_terrain(self) -> frozenset[str]:
        """Hex terrain that blocks the table's hex line of sight (ruling `los_blocking`)."""
        kinds = self.rulings["los_blocking"]
        if not isinstance(kinds, list) or not set(kinds) <= set(TERRAIN_COST):
            raise QueryError(f"ruling los_blocking must be a list of hex terrains "
                             f"({', '.join(TERRAIN_COST)}), got {kinds!r}")
        return frozenset(kinds)

    def analysis(self) -> SyniadAnalysis:
        return SyniadAnalysis(SyniadState.from_scene(self.scene, self._map), self.blocking_terrain)

    def _unit_hex(self, unit_id: str) -> Hex:
        c = self.state.counter(unit_id)
        if c.hex is None:
            raise QueryError(f"unit {unit_id!r} has no counter on the table")
        return c.hex

    def _target(self, text: str) -> Hex:
        h = parse_hex(text)
        if h not in self._map.index:
            raise QueryError(f"hex {list(h)} is not on the board")
        return h

    # ------------------------------------------------------------ movement

    @question("moves")
    def moves(self, unit: str) -> dict[str, Any]:
        """Every hex the unit can reach this phase, with its cost and cheapest path (own hex excluded)."""
        self._unit_hex(unit)
        reach = self.state.reach(unit)
        smap = self._map
        return {"unit": unit, "from": list(self._unit_hex(unit)),
                "reachable": [{"hex": list(h), "cost": cost, "path": [list(p) for p in path]}
                              for h, cost, path in reach.routes(smap)]}

    @question("path")
    def path(self, unit: str, to: str) -> dict[str, Any]:
        """The cheapest path for a unit to a hex and its cost."""
        start = self._unit_hex(unit)
        h = self._target(to)
        reach = self.state.reach(unit)
        steps = reach.path(self._map, h)
        if steps is None:
            raise QueryError(f"unit {unit!r} cannot reach hex {list(h)} this phase")
        return {"unit": unit, "from": list(start), "to": list(h), "cost": reach.cost[self._map.index[h]],
                "path": [list(p) for p in steps]}

    # ------------------------------------------------------------ combat

    @question("attackers")
    def attackers(self, target: str) -> dict[str, Any]:
        """Units that may attack a hex: the other player's, adjacent, not across an unbridged river."""
        h = self._target(target)
        owner = self.state.owner(h)
        if owner is None:
            raise QueryError(f"hex {list(h)} holds no units to attack")
        attacker = self.state.opponent(owner)
        units = combat.eligible_attackers(self.state, h, attacker, statuses=None)
        return {"target": list(h), "defender": owner, "attacker": attacker, "attackers": units,
                **{k: v for k, v in combat.combat_details(self.state, h, units).items()
                   if k in ("defenders", "attacking_points", "defending_points")}}

    @question("combat")
    def combat(self, target: str, seed: int | None = None) -> dict[str, Any]:
        """Resolve an attack on a hex by every eligible unit of the player not owning it."""
        h = self._target(target)
        if seed is None:
            seed = random.SystemRandom().randrange(2**32)
        state = SyniadState.from_scene(self.scene, self._map)
        owner = state.owner(h)
        if owner is None:
            raise QueryError(f"hex {list(h)} holds no units to attack")
        units = combat.eligible_attackers(state, h, state.opponent(owner), statuses=None)
        if not units:
            raise QueryError(f"no unit can attack hex {list(h)}")
        result = combat.resolve(state, h, units, random.Random(seed))
        result["instructions"] = physical.instructions(state, result)
        return {"seed": seed, **result}

    # ------------------------------------------------------------ setup and sight

    @question("deploy")
    def deploy(self) -> dict[str, Any]:
        """Check the set-up: stacks of at most 10, one player per hex, no counter on water."""
        state, smap = self.state, self._map
        problems, stacks = [], []
        for h, units in sorted(state.stacks.items()):
            players = sorted({state.counters[u].player for u in units})
            stacks.append({"hex": list(h), "players": players, "units": list(units)})
            if len(units) > STACK_LIMIT:
                problems.append(f"hex {list(h)} holds {len(units)} units (at most {STACK_LIMIT})")
            if len(players) > 1:
                problems.append(f"hex {list(h)} holds units of both players")
            if not smap.enterable(h):
                problems.append(f"hex {list(h)} is {smap.terrain.get(h, 'clear')}: no unit may stand there")
        off = [c.id for c in state.counters.values() if c.hex is None]
        return {"valid": not problems, "players": list(state.players), "stacks": stacks,
                "not_on_table": off, "problems": problems}

    @question("los")
    def los(self, a: str, b: str) -> dict[str, Any]:
        """The table's hex line of sight (Syniad has none of its own; see the rulings page)."""
        ha, hb = self.hexes_of(a)[0], self.hexes_of(b)[0]
        blocking = {h for h in self._map.hexes if self.terrain(h) in self.blocking_terrain}
        seen = sight(ha, hb, blocking)
        return {"visible": seen["visible"], "cover": {"light": 0, "heavy": 0},
                "blocked_by": [f"hex[{h[0]},{h[1]}]" for h in seen["blocked_by"]],
                "line": [list(self.layout.to_board(ha)), list(self.layout.to_board(hb))],
                "hexes": [list(h) for h in seen["hexes"]]}

    @question("band")
    def band(self, a: str, b: str, weapon: str | None = None) -> dict[str, Any]:
        raise QueryError("Syniad has no ranged combat and no range bands: units attack adjacent hexes "
                         "(ask 'attackers Q,R' or 'distance A B')")

    @question("report")
    def report(self) -> dict[str, Any]:
        """What the table shows: each unit's range size, attackers of each occupied hex, enemy sight lines."""
        an = self.analysis()
        smap = self._map
        return {
            "players": list(an.state.players),
            "units": [{**{k: v for k, v in c.to_dict().items() if k != "status"},  # no phase in a scene
                       "reachable": len(an.reaches[c.id].destinations) if c.id in an.reaches else 0}
                      for c in an.state.counters.values()],
            "attackers": [{"target": list(h), "attackers": units}
                          for h, units in sorted(an.attackers.items())],
            "sight": [{"from": a, "to": b, "visible": v} for (a, b), v in sorted(an.sight.items())],
            "hexes": len(smap.hexes),
        }
