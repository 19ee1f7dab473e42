"""Who stands where in a Syniad game: counters (one per unit), stacks, players, and the map.

Built from a scene: each Syniad unit is one counter, that is one model in one hex. A stack lists its
unit ids bottom first (index 0 = bottom, last = top); counters enter a stack in scene model order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from table.errors import QueryError
from table.hexgrid import Hex, HexLayout, Hexside
from table.rules.syniad.movement import Obstacles, Reach, obstacles, search
from table.rules.syniad.terrain import SyniadMap
from table.scene import HexGridSpec, Scene, Unit

STATUSES = ("available", "selected", "moved", "attacking", "attacked", "unavailable")


@dataclass(slots=True)
class Counter:
    """One Syniad unit on the map; `strength` is its current combat strength."""

    id: str
    player: str
    name: str
    kind: str
    movement: int
    strength: int
    hex: Hex | None
    model: str | None = None
    start: Hex | None = None
    status: str = "unavailable"

    @property
    def artillery(self) -> bool:
        return self.kind == "artillery"

    @property
    def eliminated(self) -> bool:
        return self.hex is None

    def to_dict(self) -> dict[str, Any]:
        return {"unit": self.id, "name": self.name, "player": self.player, "type": self.kind,
                "strength": self.strength, "movement": self.movement,
                "hex": None if self.hex is None else list(self.hex), "status": self.status}


def map_from_scene(scene: Scene) -> SyniadMap:
    layout = HexLayout.from_spec(scene.hexgrid or HexGridSpec())
    hexes = layout.hexes_on_board(scene.board.width, scene.board.height)
    terrain = {h.hex: h.terrain for h in scene.hexes}
    roads = [h.hex for h in scene.hexes if h.road]
    rivers = [Hexside(*s.between) for s in scene.hexsides if s.feature == "river"]
    return SyniadMap.build(hexes, terrain, roads, rivers)


def _stat(unit_id: str, stats: dict[str, Any], key: str, minimum: int) -> int:
    value = stats.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        got = "missing" if value is None else repr(value)
        raise QueryError(f"unit {unit_id!r}: stats.{key} must be an integer of at least {minimum} "
                         f"for Syniad, got {got}")
    return value


def counter_stats(unit: Unit) -> tuple[int, int]:
    """A unit's movement and combat strength, checked as a counter needs them."""
    return _stat(unit.id, unit.stats, "movement", 0), _stat(unit.id, unit.stats, "combat_strength", 1)


class StateListener(Protocol):
    """Told about every change of position, so a derived view (the analysis) can follow the game."""

    def before_place(self, unit_id: str, to: Hex | None) -> None: ...

    def after_place(self, unit_id: str, frm: Hex | None) -> None: ...

    def after_rotate(self, h: Hex) -> None: ...


@dataclass
class SyniadState:
    """The map, the counters by id (scene order) and the stacks by hex."""

    smap: SyniadMap
    counters: dict[str, Counter]
    players: tuple[str, str]
    stacks: dict[Hex, list[str]] = field(default_factory=dict)
    listeners: list[StateListener] = field(default_factory=list, repr=False)

    @classmethod
    def from_scene(cls, scene: Scene, smap: SyniadMap | None = None) -> SyniadState:
        smap = smap or map_from_scene(scene)
        layout = HexLayout.from_spec(scene.hexgrid or HexGridSpec())
        counters: dict[str, Counter] = {}
        players: list[str] = []
        for unit in scene.units:
            if unit.player not in players:
                players.append(unit.player)
            models = scene.models_of(unit.id)
            if len(models) > 1:
                raise QueryError(f"unit {unit.id!r}: a Syniad unit is one counter, got {len(models)} models")
            hex_ = None
            if models:
                m = models[0]
                hex_ = m.hex if m.hex is not None else layout.to_hex(*m.position)
                if hex_ not in smap.index:
                    raise QueryError(f"unit {unit.id!r} stands on hex {list(hex_)}, off the board")
            counters[unit.id] = Counter(
                unit.id, unit.player, unit.name or unit.id, str(unit.stats.get("type", "")),
                _stat(unit.id, unit.stats, "movement", 0), _stat(unit.id, unit.stats, "combat_strength", 1),
                hex_, models[0].id if models else None)
        if len(players) != 2:
            raise QueryError(f"Syniad is a two-player game; the scene's units belong to {len(players)} "
                             f"player(s): {', '.join(players) or 'none'}")
        state = cls(smap, counters, (players[0], players[1]))
        for model in scene.models:
            c = counters[model.unit]
            if c.hex is not None:
                state.stacks.setdefault(c.hex, []).append(c.id)
        return state

    # ------------------------------------------------------------ lookups

    def counter(self, unit_id: str) -> Counter:
        try:
            return self.counters[unit_id]
        except KeyError:
            raise QueryError(f"no Syniad unit {unit_id!r}") from None

    def stack(self, h: Hex) -> list[str]:
        """Unit ids in a hex, bottom first (a copy)."""
        return list(self.stacks.get(h, ()))

    def owner(self, h: Hex) -> str | None:
        """The player whose units stand in a hex, None if it is empty."""
        units = self.stacks.get(h)
        return self.counters[units[0]].player if units else None

    def opponent(self, player: str) -> str:
        return self.players[1] if player == self.players[0] else self.players[0]

    def enemy_adjacent(self, h: Hex, player: str) -> bool:
        """True when a unit of `player`'s opponent stands next to h, not behind an unbridged river."""
        smap = self.smap
        enemy = self.opponent(player)
        return any(self.owner(smap.hexes[j]) == enemy for j in smap.zoc_sources[smap.index[h]])

    # ------------------------------------------------------------ changes

    def place(self, unit_id: str, h: Hex | None) -> None:
        """Move a counter to the top of hex h's stack (None: off the map, eliminated)."""
        c = self.counters[unit_id]
        for listener in self.listeners:
            listener.before_place(unit_id, h)
        frm = c.hex
        if frm is not None:
            stack = self.stacks[frm]
            stack.remove(unit_id)
            if not stack:
                del self.stacks[frm]
        c.hex = h
        if h is not None:
            self.stacks.setdefault(h, []).append(unit_id)
        for listener in self.listeners:
            listener.after_place(unit_id, frm)

    def rotate(self, h: Hex) -> list[str]:
        """Stack rotation: the top unit goes to the bottom. Returns the new order."""
        stack = self.stacks.get(h)
        if stack and len(stack) > 1:
            stack.insert(0, stack.pop())
            for listener in self.listeners:
                listener.after_rotate(h)
        return self.stack(h)

    # ------------------------------------------------------------ movement

    def obstacles_for(self, player: str) -> Obstacles:
        index = self.smap.index
        owner = {c.id: c.player for c in self.counters.values()}
        return obstacles(self.smap, {index[h]: s for h, s in self.stacks.items()}, owner, player)

    def reach(self, unit_id: str, origin: Hex | None = None) -> Reach:
        """The unit's movement range from `origin` (default: where it stands) with its full movement."""
        c = self.counter(unit_id)
        start = origin if origin is not None else c.hex
        if start is None:
            raise QueryError(f"unit {unit_id!r} is not on the map")
        obs = self.obstacles_for(c.player)
        return search(self.smap, self.smap.index[start], c.movement, c.artillery, obs)
