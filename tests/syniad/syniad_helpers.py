"""Helpers for Syniad tests: build scenes from a few lines, and an independent movement reference."""

from __future__ import annotations

import random
from pathlib import Path

from table.hexgrid import Hexside, neighbours
from table.scene import parse_scene

DATA = Path(__file__).parent.parent / "data" / "syniad"
COST = {"clear": 1, "town": 1, "mountain": 2, "forest": 2, "swamp": 3, "desert": 3, "water": None}


def scene_doc(units, hexes=(), rivers=(), board=(14.0, 12.0)):
    """units: (id, player, [q, r], movement, strength[, type]) tuples, stacked in the order given."""
    doc_units, models = [], []
    for u in units:
        uid, player, h, mp, cs = u[:5]
        stats = {"movement": mp, "combat_strength": cs}
        if len(u) > 5:
            stats["type"] = u[5]
        doc_units.append({"id": uid, "player": player, "name": uid, "stats": stats})
        models.append({"id": f"m-{uid}", "unit": uid, "hex": list(h)})
    return {"format": "smarttable-scene/1", "ruleset": "syniad",
            "board": {"width": board[0], "height": board[1]},
            "hexgrid": {"size": 1.0, "orientation": "flat", "origin": [1.0, 1.0]},
            "hexes": [{"hex": list(h), "terrain": t, "road": road} for h, t, road in hexes],
            "hexsides": [{"between": [list(a), list(b)], "feature": "river"} for a, b in rivers],
            "units": doc_units, "models": models}


def make_scene(*args, **kwargs):
    return parse_scene(scene_doc(*args, **kwargs), "test")


def reference_moves(state, unit_id):
    """Movement range straight from the rulings, by relaxation to a fixed point (no Dijkstra, no indices)."""
    smap = state.smap
    c = state.counters[unit_id]
    roads, rivers = smap.roads, smap.rivers
    on = set(smap.hexes)
    enemy = {h for h, s in state.stacks.items() if state.counters[s[0]].player != c.player}
    full = {h for h, s in state.stacks.items() if h not in enemy and len(s) >= 10}

    def unbridged(a, b):
        return Hexside(a, b) in rivers and not (a in roads and b in roads)

    def zoc(h):
        return any(n in enemy and not unbridged(h, n) for n in neighbours(h))

    best = {c.hex: 0}
    changed = True
    while changed:
        changed = False
        for h, d in list(best.items()):
            if h != c.hex and zoc(h):
                continue
            for n in neighbours(h):
                if n not in on or n in enemy:
                    continue
                base = 1 if n in roads else COST[smap.terrain.get(n, "clear")]
                if base is None:
                    continue
                step = base + ((2 if c.kind == "artillery" else 1) if unbridged(h, n) else 0)
                if d + step <= c.movement and d + step < best.get(n, 99):
                    best[n] = d + step
                    changed = True
    return {h: d for h, d in best.items() if h != c.hex and h not in full}


def random_scene(seed, n_units=16, board=(16.0, 14.0)):
    """A random small battlefield: terrain, roads, rivers, two armies with some stacks."""
    from table.hexgrid import HexLayout

    rng = random.Random(seed)
    hexes_on = HexLayout(1.0, "flat", (1.0, 1.0)).hexes_on_board(*board)
    kinds = ["clear"] * 6 + ["town", "mountain", "forest", "swamp", "desert", "water"]
    hexes = [(h, rng.choice(kinds), rng.random() < 0.15) for h in hexes_on]
    land = [h for h, t, road in hexes if t != "water" or road]
    on = set(hexes_on)
    rivers = set()
    for h in rng.sample(hexes_on, len(hexes_on) // 4):
        n = rng.choice(neighbours(h))
        if n in on:
            rivers.add(tuple(sorted((h, n))))
    units = []
    spots = rng.sample(land, n_units)
    for i, h in enumerate(spots):
        player = "A" if i % 2 == 0 else "B"
        units.append((f"u{i}", player, h, rng.randint(2, 6), rng.randint(1, 8),
                      "artillery" if rng.random() < 0.25 else "infantry"))
    # a full friendly stack on the first unit's hex
    for j in range(9):
        units.append((f"s{j}", "A", spots[0], 3, 2))
    return make_scene(units, hexes, sorted(rivers), board)
