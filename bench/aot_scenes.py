"""Generated Age of Tyrants scenes for the bench (and the test that checks the bench's baseline)."""

from __future__ import annotations

import random
from typing import Any

from table.scene import Scene, parse_scene

KINDS = [["light_cover"], ["concealment", "difficult"], ["impassable"], ["flat", "impassable", "water"],
         ["elevated"], ["heavy_cover"], ["concealment", "defensible"], ["flat", "difficult"]]


def make_scene(seed: int = 1, platoons: int = 6, per_platoon: int = 4, pieces: int = 30) -> Scene:
    """Two companies of `platoons` x `per_platoon` bases (sizes 1-3) deployed at either end of a 48" board,
    `pieces` terrain pieces of every kind scattered between, a few bases on hills and in woods."""
    rng = random.Random(seed)
    terrain: list[dict[str, Any]] = []
    for k in range(pieces):
        cx, cy = rng.uniform(4, 44), rng.uniform(8, 40)
        w, h = rng.uniform(1.5, 6), rng.uniform(1.5, 6)
        terrain.append({"id": f"t{k}", "traits": KINDS[k % len(KINDS)],
                        "polygon": [[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2],
                                    [cx + w / 2, cy + h / 2], [cx - w / 2, cy + h / 2]]})
    units: list[dict[str, Any]] = []
    models: list[dict[str, Any]] = []
    for player, y0, heading in (("A", 5.0, 90), ("B", 43.0, -90)):
        for u in range(platoons):
            uid = f"{player}{u}"
            units.append({"id": uid, "player": player,
                          "stats": {"size": 1 + (u % 3), "sr": 2,
                                    "role": "materiel" if u % 3 == 2 else "personnel",
                                    "ap": [2, 2, 2, 1], "am": [1, 1, 2, 1], "s": [1, 1, 1, 0]}})
            cx = 48 * (u + 0.5) / platoons
            for m in range(per_platoon):
                x = cx + 1.3 * (m - (per_platoon - 1) / 2)
                y = min(max(y0 + rng.uniform(-2, 2) + rng.choice([0, 0, 0, 9, -9]), 1.0), 47.0)
                models.append({"id": f"{uid}m{m}", "unit": uid, "x": x, "y": y, "heading": heading,
                               **({"wreckage": True} if rng.random() < 0.05 else {})})
    # some bases on hills and in woods, where elevation and concealment decide what they see
    posts = [t for t in terrain if "elevated" in t["traits"] or "concealment" in t["traits"]]
    for model, piece in zip(rng.sample(models, min(len(models), len(posts))), posts, strict=False):
        (x0, y0), (x1, y1) = piece["polygon"][0], piece["polygon"][2]
        x, y = rng.uniform(x0, x1), rng.uniform(y0, y1)
        if all((x - m["x"]) ** 2 + (y - m["y"]) ** 2 > 1.1 ** 2 for m in models if m is not model):
            model.update(x=x, y=y)
    return parse_scene({"format": "smarttable-scene/1", "ruleset": "age_of_tyrants",
                        "board": {"width": 48, "height": 48}, "terrain": terrain, "units": units,
                        "models": models})
