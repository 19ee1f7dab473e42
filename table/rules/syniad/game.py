"""A Syniad game as an object: turns, phases, unit statuses, selection, movement and combat.

`SyniadGame` is pure (no I/O): the live table and the web panel call its methods and show what
they return. One `random.Random(seed)` serves every roll; `log` records each action, so
`SyniadGame.replay(scene, seed, log)` rebuilds the same game.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from table.errors import QueryError
from table.hexgrid import Hex, as_hex
from table.rules.syniad import combat, physical
from table.rules.syniad.state import SyniadState
from table.scene import Scene

F = TypeVar("F", bound=Callable[..., Any])

SELECT_TARGET, SELECT_ATTACKER, RESOLVE_ATTACK = "selectTarget", "selectAttacker", "resolveAttack"


class IllegalAction(QueryError):
    """A game action the rules do not allow now (wrong phase, wrong unit, unreachable hex...)."""


def _action(method: F) -> F:
    """Record a successful action in the game's log so the game can be replayed."""

    @functools.wraps(method)
    def run(self: SyniadGame, *args: Any) -> Any:
        answer = method(self, *args)
        self.log.append((method.__name__, tuple(args)))
        return answer

    return run  # type: ignore[return-value]


class SyniadGame:
    """Turn and phase machine over a `SyniadState` (see docs/rules/syniad.md)."""

    def __init__(self, state: SyniadState, seed: int | None = None):
        self.state = state
        self.seed = seed
        self.rng = random.Random(seed)
        self.turn = 1
        self.player_index = 0
        self.phase = "movement"
        self.action: str | None = None
        self.selected: str | None = None
        self.target: Hex | None = None
        self.attackers: list[str] = []
        self.last_result: dict[str, Any] | None = None
        self.log: list[tuple[str, tuple[Any, ...]]] = []
        self._start_phase()

    @classmethod
    def from_scene(cls, scene: Scene, seed: int | None = None) -> SyniadGame:
        return cls(SyniadState.from_scene(scene), seed)

    @classmethod
    def replay(cls, scene: Scene, seed: int | None, log: Iterable[tuple[str, tuple[Any, ...]]]) -> SyniadGame:
        game = cls.from_scene(scene, seed)
        for name, args in log:
            getattr(game, name)(*args)
        return game

    # ------------------------------------------------------------ phases

    @property
    def active(self) -> str:
        return self.state.players[self.player_index]

    def _start_phase(self) -> None:
        for c in self.state.counters.values():
            if c.eliminated:
                continue
            if c.player == self.active:
                c.status, c.start = "available", c.hex
            else:
                c.status = "unavailable"
        self.selected, self.target, self.attackers = None, None, []
        self.action = SELECT_TARGET if self.phase == "combat" else None

    @_action
    def next_phase(self) -> dict[str, Any]:
        """P1 movement -> P1 combat -> P2 movement -> P2 combat -> next turn. An open attack is cancelled."""
        if self.phase == "combat" and self.target is not None:
            self._cancel()
        if self.phase == "movement":
            self.phase = "combat"
        else:
            self.phase = "movement"
            self.player_index = 1 - self.player_index
            if self.player_index == 0:
                self.turn += 1
        self._start_phase()
        return self.status()

    def _need(self, phase: str, action: str | None = None) -> None:
        if self.phase != phase:
            raise IllegalAction(f"that is done in the {phase} phase; "
                                f"it is {self.active}'s {self.phase} phase")
        if action is not None and self.action != action:
            raise IllegalAction(f"the combat is at {self.action!r}, not {action!r}")

    def _own(self, unit_id: str) -> None:
        c = self.state.counter(unit_id)
        if c.eliminated:
            raise IllegalAction(f"unit {unit_id!r} has been eliminated")
        if c.player != self.active:
            raise IllegalAction(f"unit {unit_id!r} belongs to {c.player}; it is {self.active}'s turn")

    # ------------------------------------------------------------ movement

    @_action
    def select(self, h: Hex) -> dict[str, Any]:
        """Click a hex: select its top unit (a moved unit goes back to its starting hex instead)."""
        stack = self.state.stacks.get(as_hex(h))
        if not stack:
            raise IllegalAction(f"hex {list(h)} holds no units")
        return self._select(stack[-1])

    @_action
    def select_unit(self, unit_id: str) -> dict[str, Any]:
        """Select a given unit, wherever it is in its stack (the table sees which counter is lifted)."""
        return self._select(unit_id)

    def _select(self, unit_id: str) -> dict[str, Any]:
        self._need("movement")
        self._own(unit_id)
        c = self.state.counters[unit_id]
        if c.status == "moved":
            assert c.start is not None, "a moved counter keeps its starting hex"
            self.state.place(unit_id, c.start)
            c.status = "available"
            return {"unit": unit_id, "status": "available", "returned_to": list(c.start),
                    "instructions": [physical.move_text(c, c.start)]}
        if c.status == "selected":
            c.status, self.selected = "available", None
            return {"unit": unit_id, "status": "available"}
        if self.selected is not None:
            self.state.counters[self.selected].status = "available"
        c.status, self.selected = "selected", unit_id
        return {"unit": unit_id, "status": "selected", "reachable": self.reachable(unit_id)}

    def reachable(self, unit_id: str) -> list[dict[str, Any]]:
        reach = self.state.reach(unit_id)
        return [{"hex": list(h), "cost": cost, "path": [list(p) for p in path]}
                for h, cost, path in reach.routes(self.state.smap)]

    @_action
    def move(self, h: Hex) -> dict[str, Any]:
        """Move the selected unit to a hex within its movement range."""
        self._need("movement")
        if self.selected is None:
            raise IllegalAction("select a unit before moving")
        h = as_hex(h)
        uid = self.selected
        c = self.state.counters[uid]
        reach = self.state.reach(uid)
        path = reach.path(self.state.smap, h)
        if path is None:
            raise IllegalAction(f"unit {uid!r} cannot move to hex {list(h)} this phase")
        cost = reach.cost[self.state.smap.index[h]]
        frm = self.state.smap.hexes[reach.start]
        self.state.place(uid, h)
        c.status, self.selected = "moved", None
        return {"unit": uid, "from": list(frm), "to": list(h), "cost": cost, "path": [list(p) for p in path]}

    @_action
    def rotate(self, h: Hex) -> list[str]:
        """Stack rotation: the top unit of the hex goes to the bottom."""
        return self.state.rotate(as_hex(h))

    # ------------------------------------------------------------ combat

    @_action
    def select_target(self, h: Hex) -> dict[str, Any]:
        """Pick the enemy hex to attack; picking it again once attackers are chosen asks to resolve."""
        self._need("combat")
        h = as_hex(h)
        if self.action == SELECT_ATTACKER and h == self.target:
            if not self.attackers:
                raise IllegalAction("choose at least one attacking unit first")
            self.action = RESOLVE_ATTACK
            return self.details()
        self._need("combat", SELECT_TARGET)
        if self.state.owner(h) != self.state.opponent(self.active):
            raise IllegalAction(f"hex {list(h)} holds no enemy units")
        self.target, self.action = h, SELECT_ATTACKER
        return self.details()

    def eligible(self) -> list[str]:
        """Units that may still join the attack on the current target."""
        if self.target is None:
            return []
        return combat.eligible_attackers(self.state, self.target, self.active)

    @_action
    def add_attacker(self, unit_id: str) -> dict[str, Any]:
        """Add an available unit next to the target (not across an unbridged river) to the attack."""
        self._need("combat", SELECT_ATTACKER)
        self._own(unit_id)
        if unit_id not in self.eligible():
            assert self.target is not None, "a target is chosen before its attackers"
            raise IllegalAction(f"unit {unit_id!r} cannot attack hex {list(self.target)}: it must be "
                                "available, next to the target and not across an unbridged river")
        self.state.counters[unit_id].status = "attacking"
        self.attackers.append(unit_id)
        return self.details()

    @_action
    def remove_attacker(self, unit_id: str) -> dict[str, Any]:
        self._need("combat", SELECT_ATTACKER)
        if unit_id not in self.attackers:
            raise IllegalAction(f"unit {unit_id!r} is not attacking")
        self.attackers.remove(unit_id)
        self.state.counters[unit_id].status = "available"
        return self.details()

    def details(self) -> dict[str, Any]:
        """The Combat Details panel before resolution."""
        if self.target is None:
            return {"action": self.action, "target": None}
        return {"action": self.action, **combat.combat_details(self.state, self.target, self.attackers),
                "eligible": [u for u in self.eligible() if u not in self.attackers]}

    @_action
    def resolve(self) -> dict[str, Any]:
        """Resolve the attack; the result adds the instructions for the counters on the table."""
        self._need("combat")
        if self.target is None or not self.attackers:
            raise IllegalAction("choose a target and at least one attacking unit first")
        result = combat.resolve(self.state, self.target, self.attackers, self.rng)
        result["instructions"] = physical.instructions(self.state, result)
        self.target, self.attackers, self.action = None, [], SELECT_TARGET
        self.last_result = result
        return result

    @_action
    def cancel(self) -> dict[str, Any]:
        """Abort the attack: attackers back to available, no target."""
        self._need("combat")
        self._cancel()
        return self.details()

    def _cancel(self) -> None:
        for uid in self.attackers:
            self.state.counters[uid].status = "available"
        self.target, self.attackers, self.action = None, [], SELECT_TARGET

    # ------------------------------------------------------------ the physical table

    def expected_positions(self) -> dict[str, Hex | None]:
        """Model id -> the hex its counter should stand in (None: removed from the table)."""
        return {c.model: c.hex for c in self.state.counters.values() if c.model is not None}

    def check_board(self, observed: Mapping[str, Hex]) -> list[dict[str, Any]]:
        """Differences between the game and what the camera sees (model id -> hex)."""
        return physical.mismatches(self.state, observed)

    def status(self) -> dict[str, Any]:
        """Everything a panel shows: turn, phase, whose turn, action, units and stacks."""
        return {
            "turn": self.turn, "player": self.active, "player_number": self.player_index + 1,
            "phase": self.phase, "action": self.action, "selected": self.selected,
            "target": None if self.target is None else list(self.target), "attackers": list(self.attackers),
            "units": [c.to_dict() for c in self.state.counters.values()],
            "stacks": [{"hex": list(h), "units": list(s)} for h, s in sorted(self.state.stacks.items())],
        }
