"""Helpers for Age of Tyrants tests: golden scenes from tests/data, small scenes built in a few lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from table.rules import get_ruleset
from table.scene import load_scene, parse_scene

DATA = Path(__file__).parent.parent / "data" / "age_of_tyrants"
ONE_INCH = {"shape": "circle", "diameter_mm": 25.4}  # radius 0.5": edge distances come out round


def golden(name: str, **rulings: Any):
    """The rule system over a golden scene file."""
    scene = load_scene(DATA / name)
    return get_ruleset(scene.ruleset)(scene, rulings)


def base(mid: str, unit: str, x: float, y: float, heading: float = 0, **extra: Any) -> dict[str, Any]:
    return {"id": mid, "unit": unit, "x": x, "y": y, "heading": heading, "base": ONE_INCH, **extra}


def unit(uid: str, player: str, **stats: Any) -> dict[str, Any]:
    weapons = stats.pop("weapons", [])
    return {"id": uid, "player": player, "stats": {"size": 1, "role": "personnel", "sr": 1, **stats},
            "weapons": weapons}


def box(tid: str, x0: float, y0: float, x1: float, y1: float, *traits: str) -> dict[str, Any]:
    return {"id": tid, "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], "traits": list(traits)}


def build(units, models, terrain=(), **rulings: Any):
    """The rule system over a scene built from unit, base and terrain dicts."""
    doc = {"format": "smarttable-scene/1", "ruleset": "age_of_tyrants", "board": {"width": 48, "height": 48},
           "terrain": list(terrain), "units": list(units), "models": list(models)}
    extra = rulings.pop("extra", {})
    doc.update(extra)
    scene = parse_scene(json.loads(json.dumps(doc)), "test")
    return get_ruleset("aot")(scene, rulings)
