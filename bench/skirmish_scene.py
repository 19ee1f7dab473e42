"""A random hex skirmish battlefield as a scene document (for bench_skirmish.py and the analysis tests).

Terrain patches (forest, swamp, mountain, water), soft and hard cover walls along hexsides, and two
armies facing each other: soldiers, heroes (some Large), vehicles of sizes 1 to 4, a few prone,
dashing or dug in.
"""

from __future__ import annotations

import random
from typing import Any

from table.hexgrid import HexLayout, neighbours
from table.rules.hex_skirmish.footprint import facing_direction, offsets

HEADINGS = (0, 60, 120, 180, 240, 300, 30, 90)


def battlefield(seed: int, width: float = 48.0, size: float = 0.9, per_side: int = 30) -> dict[str, Any]:
    """A scene document: a width x width board of flat hexes of `size`, 2 x `per_side` units."""
    rng = random.Random(seed)
    layout = HexLayout(size, "flat", (size, size))
    board = layout.hexes_on_board(width, width)
    on = set(board)
    terrain: dict[tuple[int, int], str] = {}
    scale = (width / 48.0) ** 2
    for kind, patches, radius in [("forest", 12, 2), ("swamp", 5, 2), ("mountain", 7, 1), ("water", 3, 1)]:
        for _ in range(max(1, round(patches * scale))):
            cq, cr = rng.choice(board)
            for h in board:
                dq, dr = h[0] - cq, h[1] - cr
                if (abs(dq) + abs(dr) + abs(dq + dr)) // 2 <= radius and rng.random() < 0.7:
                    terrain[h] = kind
    sides: dict[frozenset, str] = {}
    for feature, walls in (("soft_cover", 10), ("hard_cover", 8)):
        for _ in range(max(1, round(walls * scale))):
            h = rng.choice(board)
            for _ in range(rng.randint(3, 8)):
                around = [n for n in neighbours(h) if n in on]
                n = rng.choice(around)
                sides[frozenset((h, n))] = feature
                common = [m for m in around if m in neighbours(n)]
                h = rng.choice(common or [n])
    units: list[dict[str, Any]] = []
    models: list[dict[str, Any]] = []
    taken: set[tuple[int, int]] = set()
    for player, band in (("A", (0.2, 0.42)), ("B", (0.58, 0.8))):
        spots = [h for h in board if band[0] * width <= layout.to_board(h)[0] <= band[1] * width]
        for i in range(per_side):
            uid = f"{player}{i}"
            unit, size_class = _unit(uid, player, i, rng)
            heading = rng.choice(HEADINGS)
            shape = offsets(size_class, facing_direction(layout, heading))
            for _ in range(500):
                q, r = rng.choice(spots)
                cells = {(q + dq, r + dr) for dq, dr in shape}
                if cells <= on and not cells & taken and all(terrain.get(c) != "water" for c in cells):
                    break
            else:
                continue
            taken |= cells
            units.append(unit)
            models.append({"id": uid, "unit": uid, "hex": [q, r], "heading": heading})
    return {"format": "smarttable-scene/1", "ruleset": "hex_skirmish",
            "board": {"width": width, "height": width},
            "hexgrid": {"size": size, "orientation": "flat", "origin": [size, size]},
            "hexes": [{"hex": list(h), "terrain": t} for h, t in sorted(terrain.items())],
            "hexsides": [{"between": [list(h) for h in sorted(pair)], "feature": f}
                         for pair, f in sorted(sides.items(), key=lambda e: sorted(e[0]))],
            "units": units, "models": models}


def _unit(uid: str, player: str, i: int, rng: random.Random) -> tuple[dict[str, Any], int]:
    rifle = {"name": "Rifle", "range": [6, 12]}
    if i % 10 == 3:   # vehicles of sizes 1 to 4
        size = 1 + (i // 10) % 4 if i < 30 else 2
        return ({"id": uid, "player": player, "name": "Tank",
                 "stats": {"type": "vehicle", "movement": rng.choice([8, 10]), "size": size, "crew": 2},
                 "weapons": [{"name": "Cannon", "range": [10, 20]}]}, size)
    if i % 10 == 7:   # heroes, every other one Large
        stature = "large" if i % 20 == 7 else "normal"
        return ({"id": uid, "player": player, "name": "Captain",
                 "stats": {"type": "hero", "movement": 7, "dex": 2, "size": stature},
                 "weapons": [{"name": "Pistol", "range": [3, 6]},
                             {"name": "Halberd", "traits": ["polearm"]}]},
                3 if stature == "large" else 1)
    status = {0: ["prone"], 5: ["dashed"], 9: ["dug_in"]}.get(i % 10, [])
    return ({"id": uid, "player": player, "name": "Trooper", "status": status,
             "stats": {"movement": rng.choice([5, 6]), "group": f"{player}g{i // 3}"}, "weapons": [rifle]}, 1)
