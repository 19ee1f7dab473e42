"""The game's state: one immutable `GameState` (the scene, the turn and phase, the selection, the
activations...). Events (table/live/events.py) are the only way to a new one."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from table.rules import get_ruleset
from table.rules.base import Ruleset
from table.rules.declarations import Phase
from table.scene import Model, Scene


@dataclass(frozen=True)
class Activation:
    """A unit's activation: where its models stood when it began (and, once it is over, where they
    stood at its end), and the order's allowance factor."""

    unit: str
    number: int
    starts: tuple[tuple[str, float, float], ...]
    factor: float = 1.0
    ends: tuple[tuple[str, float, float], ...] = ()


@dataclass(frozen=True)
class GameState:
    scene: Scene
    turn: int = 1
    step: int = 0
    player_index: int = 0
    selected: str | None = None
    target: str | None = None
    activation: Activation | None = None
    finished: tuple[Activation, ...] = ()     # activations over in this phase
    activations: int = 0
    acknowledged: frozenset[str] = frozenset()
    brightness: float | None = None
    rulings: dict[str, Any] = field(default_factory=dict)
    last_roll: dict[str, Any] | None = None
    destination: tuple[int, int] | None = None    # the hex the selected unit's path leads to
    origin: Scene | None = None                   # the scene the game started with
    seed: int | None = None                       # the game's dice seed (from game_start)
    weapons: tuple[tuple[str, str], ...] = ()     # unit id -> the weapon chosen to show (`weapon` events)
    actions: tuple[tuple[str, tuple[Any, ...]], ...] = ()  # the rule system's live game (Ruleset.live_game)
    ruler: tuple[tuple[float, float], tuple[float, float]] | None = None  # a shared ruler, board inches
    over: bool = False                            # the game has ended (a `game_end` event)

    def ruler_dict(self) -> dict[str, Any] | None:
        """The shared ruler as the snapshot shows it: its ends and the distance between them, inches."""
        if self.ruler is None:
            return None
        (x0, y0), (x1, y1) = self.ruler
        return {"from": [x0, y0], "to": [x1, y1], "distance": round(math.hypot(x1 - x0, y1 - y0), 2)}

    @property
    def rules(self) -> type[Ruleset]:
        """The scene's rule system (its class: what it declares)."""
        return get_ruleset(self.scene.ruleset)

    @property
    def players(self) -> list[str]:
        """In turn order: the scene's `players`, else its units' players sorted."""
        return list(self.scene.players) or sorted({u.player for u in self.scene.units})

    @property
    def steps(self) -> tuple[Phase, ...]:
        return self.rules.phases

    @property
    def phase(self) -> str:
        return self.steps[self.step][0]

    @property
    def player(self) -> str | None:
        who = self.steps[self.step][1]
        players = self.players
        if who is None or not players:
            return None
        index = self.player_index if who == "alternate" else int(who)
        return players[index % len(players)]

    def markers(self) -> dict[int, str]:
        """Marker id -> model id: the scene's `marker` fields (an assignment changes them)."""
        return {m.marker: m.id for m in self.scene.models if m.marker is not None}

    def phase_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "phase": self.phase, "player": self.player, "step": self.step,
                "phases": [name for name, _ in self.steps],
                "activation": None if self.activation is None else
                {"unit": self.activation.unit, "number": self.activation.number}}


def moved_distance(activation: Activation, model: Model) -> float:
    """Straight-line distance from where the model began the activation to where it ended it (or
    stands now, while the activation lasts)."""
    ends = {m: (x, y) for m, x, y in activation.ends}
    end = ends.get(model.id, model.position)
    for model_id, x, y in activation.starts:
        if model_id == model.id:
            return math.hypot(end[0] - x, end[1] - y)
    return 0.0
