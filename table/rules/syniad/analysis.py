"""Everything the live table shows for a Syniad position, kept up to date move by move.

For every unit: its movement range and cheapest paths. For every occupied hex: the enemy units
that could attack it (adjacent, not across an unbridged river; status is the game's business).
For every pair of enemy units: the hex line of sight. After one unit moves, only what that move can
change is recomputed: the mover's range; the range of every unit whose search read a hex whose
enemy, zone-of-control or full-stack status changed; attackers of hexes around the two ends; and
lines of sight from the mover. The answers equal a full recomputation (the bench asserts it).

The analysis listens to its `SyniadState`: every `place` (so every `SyniadGame` action, combat
results included) and every stack rotation updates it, whoever makes the change.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from table.errors import QueryError
from table.hexgrid import Hex, as_hex
from table.rules.syniad.movement import Obstacles, Reach, search
from table.rules.syniad.sight import DEFAULT_BLOCKING, BlockingGrid, visible_arrays
from table.rules.syniad.state import SyniadState
from table.rules.syniad.terrain import STACK_LIMIT


class SyniadAnalysis:
    """Incremental movement ranges, attacker eligibility and enemy lines of sight over a `SyniadState`."""

    def __init__(self, state: SyniadState, blocking_terrain: Iterable[str] = DEFAULT_BLOCKING,
                 follow: bool = True):
        """`follow`: keep up with every change made to the state (else a one-off snapshot)."""
        self.state = state
        smap = state.smap
        kinds = frozenset(blocking_terrain)
        self.grid = BlockingGrid(smap.hexes, (h for h in smap.hexes if smap.terrain.get(h, "clear") in kinds))
        self.last_redone = 0
        self.refresh()
        if follow:
            state.listeners.append(self)

    # ------------------------------------------------------------ full computation

    def refresh(self) -> None:
        """Recompute everything from the state."""
        state, smap = self.state, self.state.smap
        self._enemy: dict[str, set[int]] = {p: set() for p in state.players}
        self._zoc: dict[str, dict[int, int]] = {p: {} for p in state.players}
        self._full: dict[str, set[int]] = {p: set() for p in state.players}
        for h in state.stacks:
            self._account(smap.index[h], +1)
        self.reaches: dict[str, Reach] = {}
        for uid, c in state.counters.items():
            if c.hex is not None:
                self._search(uid)
        self.attackers: dict[Hex, list[str]] = {}
        for h in state.stacks:
            self._attackers_of(h)
        self.sight: dict[tuple[str, str], bool] = {}
        self._sight_from(None)

    def _account(self, i: int, sign: int) -> None:
        """Add (+1) or take away (-1) hex i's stack from the obstacle sets of both players."""
        state = self.state
        h = state.smap.hexes[i]
        owner = state.owner(h)
        if owner is None:
            return
        enemy_of = state.opponent(owner)
        zoc = self._zoc[enemy_of]
        if sign > 0:
            self._enemy[enemy_of].add(i)
            for j in state.smap.zoc_sources[i]:
                zoc[j] = zoc.get(j, 0) + 1
            if len(state.stacks[h]) >= STACK_LIMIT:
                self._full[owner].add(i)
        else:
            self._enemy[enemy_of].discard(i)
            for j in state.smap.zoc_sources[i]:
                zoc[j] -= 1
                if not zoc[j]:
                    del zoc[j]
            self._full[owner].discard(i)

    def _search(self, uid: str) -> None:
        c = self.state.counters[uid]
        if c.hex is None:
            self.reaches.pop(uid, None)
            return
        smap, p = self.state.smap, c.player
        obs = Obstacles(self._enemy[p], self._zoc[p], self._full[p])
        self.reaches[uid] = search(smap, smap.index[c.hex], c.movement, c.artillery, obs)

    def _attackers_of(self, h: Hex) -> None:
        state, smap = self.state, self.state.smap
        owner = state.owner(h)
        if owner is None:
            self.attackers.pop(h, None)
            return
        enemy = state.opponent(owner)
        found = []
        for j in smap.zoc_sources[smap.index[h]]:
            n = smap.hexes[j]
            if state.owner(n) == enemy:
                found.extend(state.stacks[n])
        self.attackers[h] = found

    def _sight_from(self, uid: str | None) -> None:
        """Lines of sight between enemy pairs; only the pairs involving `uid` when given."""
        counters = self.state.counters
        first, second = self.state.players
        ones = [c for c in counters.values() if c.player == first and c.hex is not None]
        twos = [c for c in counters.values() if c.player == second and c.hex is not None]
        if uid is not None:
            c = counters[uid]
            if c.hex is None:  # eliminated: its pairs go
                for o in counters.values():
                    self.sight.pop((uid, o.id) if c.player == first else (o.id, uid), None)
                return
            if c.player == first:
                ones = [c]
            else:
                twos = [c]
        if not ones or not twos:
            return
        pa = np.array([c.hex for c in ones], dtype=np.int64)
        pb = np.array([c.hex for c in twos], dtype=np.int64)
        seen = visible_arrays(np.repeat(pa, len(twos), axis=0), np.tile(pb, (len(ones), 1)), self.grid)
        keys = [(a.id, b.id) for a in ones for b in twos]
        self.sight.update(zip(keys, seen.tolist(), strict=True))

    # ------------------------------------------------------------ incremental updates

    def move(self, uid: str, to: Hex | None) -> int:
        """Put a unit on hex `to` (None: eliminated) and bring every answer up to date.

        Returns how many units' movement ranges were recomputed. Moves made through the state
        (`SyniadState.place`, so every `SyniadGame` action) update the analysis the same way.
        """
        h = None if to is None else as_hex(to)
        if h is not None and h not in self.state.smap.index:
            raise QueryError(f"hex {list(h)} is not on the board")
        self.state.counter(uid)
        self.state.place(uid, h)
        return self.last_redone

    def rotate(self, h: Hex) -> list[str]:
        """Stack rotation (top to bottom), through the state."""
        return self.state.rotate(h)

    def detach(self) -> None:
        """Stop following the state's changes."""
        if self in self.state.listeners:
            self.state.listeners.remove(self)

    def before_place(self, uid: str, to: Hex | None) -> None:
        smap = self.state.smap
        ends = {smap.index[h] for h in (self.state.counters[uid].hex, to) if h is not None}
        around = ends.union(*(smap.adjacent[i] for i in ends))
        self._pending = (ends, around, self._flags(around))
        for i in ends:
            self._account(i, -1)

    def after_place(self, uid: str, frm: Hex | None) -> None:
        state, smap = self.state, self.state.smap
        ends, around, before = self._pending
        for i in ends:
            self._account(i, +1)
        after = self._flags(around)
        changed = {p: [i for i in around if before[p][i] != after[p][i]] for p in state.players}
        redo = {uid}
        for u, reach in self.reaches.items():
            touched = reach.touched
            if any(i in touched for i in changed[state.counters[u].player]):
                redo.add(u)
        for u in sorted(redo):
            self._search(u)
        for i in around:
            h = smap.hexes[i]
            if h in state.stacks or h in self.attackers:
                self._attackers_of(h)
        self._sight_from(uid)
        self.last_redone = len(redo)

    def after_rotate(self, h: Hex) -> None:
        """Only the attacker lists that name the stack change."""
        smap = self.state.smap
        for j in smap.adjacent[smap.index[h]]:
            if smap.hexes[j] in self.attackers:
                self._attackers_of(smap.hexes[j])

    def _flags(self, hexes: set[int]) -> dict[str, dict[int, tuple[bool, bool, bool]]]:
        return {p: {i: (i in self._enemy[p], i in self._zoc[p], i in self._full[p]) for i in hexes}
                for p in self.state.players}

    # ------------------------------------------------------------ answers

    def reach(self, uid: str) -> Reach:
        try:
            return self.reaches[uid]
        except KeyError:
            raise QueryError(f"unit {uid!r} is not on the map") from None

    def answers(self) -> dict[str, Any]:
        """Every answer as plain values (hexes, costs, paths), to compare two analyses."""
        smap = self.state.smap
        moves = {}
        for uid, reach in sorted(self.reaches.items()):
            moves[uid] = [(h, cost, tuple(path)) for h, cost, path in reach.routes(smap)]
        return {"moves": moves,
                "attackers": {h: list(a) for h, a in sorted(self.attackers.items())},
                "sight": dict(sorted(self.sight.items()))}
