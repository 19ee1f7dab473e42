"""Syniad on a physical table: what the players must do to the counters, and what the camera disagrees with.

A resolution becomes instructions ("remove 2nd Armour", "retreat 4th Infantry to hex [5, -2]");
observed positions (model id -> hex) become mismatches against where the game says counters stand.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table.hexgrid import Hex, as_hex
from table.rules.syniad.state import Counter, SyniadState


def _hex_text(h: Hex | list[int]) -> str:
    return f"[{h[0]}, {h[1]}]"


def move_text(c: Counter, to: Hex) -> dict[str, Any]:
    return {"action": "move", "unit": c.id, "model": c.model, "to": list(to),
            "text": f"move {c.name} to hex {_hex_text(to)}"}


def instructions(state: SyniadState, result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What to do to the counters after a combat result, in order: removals, retreat, pursuit, strengths."""
    out: list[dict[str, Any]] = []
    counters = state.counters
    retreat = result.get("retreat") or {}
    removed = [*result["attacker"]["eliminated"], *result["defender"]["eliminated"],
               *retreat.get("eliminated", ())]
    for uid in removed:
        c = counters[uid]
        out.append({"action": "remove", "unit": uid, "model": c.model, "text": f"remove {c.name}"})
    for uid in retreat.get("units", ()):
        c = counters[uid]
        out.append({"action": "retreat", "unit": uid, "model": c.model, "to": retreat["hex"],
                    "text": f"retreat {c.name} to hex {_hex_text(retreat['hex'])}"})
    for uid in result.get("pursuit", ()):
        out.append(move_text(counters[uid], tuple(result["target"])))
    for uid, strength in result.get("strengths", {}).items():
        c = counters[uid]
        lost = (result["attacker"]["casualties"].get(uid, 0) + result["defender"]["casualties"].get(uid, 0)
                + retreat.get("casualties", {}).get(uid, 0))
        if lost and not c.eliminated:
            points = "point" if lost == 1 else "points"
            out.append({"action": "reduce", "unit": uid, "model": c.model, "strength": strength,
                        "text": f"{c.name} loses {lost} {points} (strength now {strength})"})
    return out


def under_a_seen_counter(state: SyniadState, c: Counter, seen: Mapping[str, Hex]) -> bool:
    """Whether a counter lies in its stack under one the camera sees on that hex (index 0 is the bottom
    of a stack, the last its top: the rules' "Unit Stacking"), so that the camera cannot see it."""
    if c.hex is None:
        return False
    stack = state.stacks.get(c.hex, [])
    above = stack[stack.index(c.id) + 1:] if c.id in stack else []
    return any((m := state.counters[u].model) is not None and seen.get(m) == c.hex for u in above)


def mismatches(state: SyniadState, observed: Mapping[str, Hex]) -> list[dict[str, Any]]:
    """Every counter not where the game expects it: misplaced, missing, or left on the table when removed.
    A counter the camera does not see is not missing while one above it in its stack is seen there."""
    out: list[dict[str, Any]] = []
    known = set()
    seen_at = {model: as_hex(h) for model, h in observed.items()}
    for c in state.counters.values():
        if c.model is None:
            continue
        known.add(c.model)
        seen = seen_at.get(c.model)
        if seen == c.hex or (seen is None and under_a_seen_counter(state, c, seen_at)):
            continue
        entry = {"unit": c.id, "model": c.model, "expected": None if c.hex is None else list(c.hex),
                 "observed": None if seen is None else list(seen)}
        if seen is not None and c.hex is None:
            entry["text"] = f"{c.name} was eliminated: remove it from hex {_hex_text(seen)}"
        elif seen is None and c.hex is not None:
            entry["text"] = f"{c.name} is missing: put it on hex {_hex_text(c.hex)}"
        elif seen is not None and c.hex is not None:
            entry["text"] = f"{c.name} stands on hex {_hex_text(seen)}: move it to hex {_hex_text(c.hex)}"
        out.append(entry)
    for model in sorted(set(observed) - known):
        out.append({"unit": None, "model": model, "expected": None, "observed": list(observed[model]),
                    "text": f"model {model!r} is not a Syniad counter in this game"})
    return out
