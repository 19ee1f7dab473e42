"""Generated Synaptik scenes for the bench (and the test that checks the bench's baseline)."""

from __future__ import annotations

import math
import random

from table.scene import Scene, parse_scene

RIFLE = {"name": "Rifle", "bands": {"hot": [0, 12], "standard": [12, 24], "cold": [24, 36]}}
TRAITS = ([["impassable"]] * 8 + [["light_cover"]] * 10 + [["heavy_cover"]] * 6
          + [["light_cover", "difficult"]] * 6)


def make_scene(seed: int = 1, units_per_side: int = 5, models_per_unit: int = 6, pieces: int = 30) -> Scene:
    """Two players' units in loose clumps at either end of a 48in board, terrain scattered between."""
    rng = random.Random(seed)
    terrain = []
    for k in range(pieces):
        cx, cy = rng.uniform(4, 44), rng.uniform(12, 36)
        w, h, turn = rng.uniform(1, 5), rng.uniform(1, 5), rng.uniform(0, math.pi)
        c, s = math.cos(turn), math.sin(turn)
        corners = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
        polygon = [[cx + c * x - s * y, cy + s * x + c * y] for x, y in corners]
        traits = TRAITS[k % len(TRAITS)]
        height = rng.uniform(2.5, 6) if traits == ["impassable"] else rng.uniform(0.5, 3)
        terrain.append({"id": f"t{k}", "polygon": polygon, "height": height, "traits": traits})
    units, models = [], []
    for side, (player, y0) in enumerate((("A", 6.0), ("B", 42.0))):
        for u in range(units_per_side):
            uid = f"{player}{u}"
            units.append({"id": uid, "player": player, "stats": {"movement": 6}, "weapons": [RIFLE]})
            cx = 48 * (u + 0.5) / units_per_side + rng.uniform(-2, 2)
            cy = y0 + rng.uniform(-3, 3)
            for m in range(models_per_unit):
                angle = 2 * math.pi * m / models_per_unit
                spread = 0.95 if rng.random() < 0.8 else 1.6
                models.append({"id": f"{uid}m{m}", "unit": uid, "x": cx + spread * math.cos(angle),
                               "y": cy + spread * math.sin(angle) + side * 0.0})
    return parse_scene({"format": "smarttable-scene/1", "ruleset": "synaptik",
                        "board": {"width": 48, "height": 48}, "terrain": terrain,
                        "units": units, "models": models})
