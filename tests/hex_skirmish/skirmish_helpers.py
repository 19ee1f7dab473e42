"""Shared helpers for the hex skirmish tests: golden scenes, patched copies, rule-system objects."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from table.rules.hex_skirmish import HexSkirmish
from table.scene import parse_scene

DATA = Path(__file__).resolve().parents[1] / "data" / "hex_skirmish"


def scene_doc(name: str, patch: dict[str, Any] | None = None) -> dict[str, Any]:
    """A golden scene document, with a case's patch applied (statuses, stats, unit keys, model hexes,
    top-level keys)."""
    doc = json.loads((DATA / name).read_text(encoding="utf-8"))
    patch = copy.deepcopy(patch or {})
    units = {u["id"]: u for u in doc["units"]}
    models = {m["id"]: m for m in doc["models"]}
    for unit_id, status in patch.get("status", {}).items():
        units[unit_id]["status"] = status
    for unit_id, stats in patch.get("stats", {}).items():
        units[unit_id].setdefault("stats", {}).update(stats)
    for unit_id, keys in patch.get("unit", {}).items():
        units[unit_id].update(keys)
    for model_id, hex_ in patch.get("hex", {}).items():
        models[model_id]["hex"] = hex_
    doc.update(patch.get("set", {}))
    return doc


def rules_for(name: str, patch: dict[str, Any] | None = None,
              rulings: dict[str, Any] | None = None) -> HexSkirmish:
    return HexSkirmish(parse_scene(scene_doc(name, patch), name), rulings)


