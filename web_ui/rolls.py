"""The dice each rule system rolls from the panel, and the checks on a roll request.

The panel validates the request; the controller's `roll` command rolls and logs it. Kinds:
- `pool` (synaptik): d6/d8/d10 counts, 5+ is a success, `reroll: "failures"` rerolls each failed die once.
- `attack` (age_of_tyrants): attacker 1d6 + AM/AP + modifiers against defender 1d6 + SR + modifiers.
- `combat` (syniad): attacking and defending units' combat strengths (attackers count double).
- `initiative` (hex_skirmish): 1d8 per army plus its movement modifier.
- `dice` (every system): `count` dice of `sides` sides.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from web_ui.errors import ApiError
from web_ui.inputs import choice, ident, integer, only

Checker = Callable[[dict[str, Any]], dict[str, Any]]


def _strengths(value: Any, field: str) -> list[int]:
    if not isinstance(value, list) or not 1 <= len(value) <= 30:
        raise ApiError(400, field, "expected a list of 1-30 combat strengths")
    return [integer(v, f"{field}[{i}]", 1, 99) for i, v in enumerate(value)]


def _pool(data: dict[str, Any]) -> dict[str, Any]:
    only(data, {"kind", "d6", "d8", "d10", "reroll", "label"})
    dice = {k: integer(data.get(k, 0), k, 0, 60) for k in ("d6", "d8", "d10")}
    return {**dice, "reroll": choice(data.get("reroll", "none"), "reroll", ("none", "failures"))}


def _attack(data: dict[str, Any]) -> dict[str, Any]:
    only(data, {"kind", "attack", "modifiers", "defence", "defence_modifiers", "label"})
    return {"attack": integer(data.get("attack"), "attack", 0, 30),
            "modifiers": integer(data.get("modifiers", 0), "modifiers", -20, 20),
            "defence": integer(data.get("defence"), "defence", 0, 30),
            "defence_modifiers": integer(data.get("defence_modifiers", 0), "defence_modifiers", -20, 20)}


def _combat(data: dict[str, Any]) -> dict[str, Any]:
    only(data, {"kind", "attackers", "defenders", "label"})
    return {"attackers": _strengths(data.get("attackers"), "attackers"),
            "defenders": _strengths(data.get("defenders"), "defenders")}


def _initiative(data: dict[str, Any]) -> dict[str, Any]:
    only(data, {"kind", "armies", "label"})
    armies = data.get("armies")
    if not isinstance(armies, list) or not 1 <= len(armies) <= 8:
        raise ApiError(400, "armies", "expected a list of 1-8 armies")
    out = []
    for i, army in enumerate(armies):
        if not isinstance(army, dict):
            raise ApiError(400, f"armies[{i}]", "expected {\"player\", \"modifier\"}")
        only(army, {"player", "modifier"})
        out.append({"player": ident(army.get("player"), f"armies[{i}].player"),
                    "modifier": integer(army.get("modifier", 0), f"armies[{i}].modifier", -10, 20)})
    return {"armies": out}


def _dice(data: dict[str, Any]) -> dict[str, Any]:
    only(data, {"kind", "count", "sides", "label"})
    return {"count": integer(data.get("count", 1), "count", 1, 60),
            "sides": integer(data.get("sides", 6), "sides", 2, 100)}


KINDS: dict[str, Checker] = {"pool": _pool, "attack": _attack, "combat": _combat,
                             "initiative": _initiative, "dice": _dice}
BY_RULESET: dict[str, tuple[str, ...]] = {
    "synaptik": ("pool", "dice"),
    "age_of_tyrants": ("attack", "dice"),
    "syniad": ("combat", "dice"),
    "hex_skirmish": ("initiative", "dice"),
}


def check_roll(ruleset: str, data: dict[str, Any]) -> dict[str, Any]:
    """The validated `roll` command parameters for `ruleset`, `kind` included; a kind of another
    rule system is a 409 (the table plays a different game)."""
    kind = choice(data.get("kind"), "kind", tuple(KINDS))
    params = KINDS[kind](data)
    if kind not in BY_RULESET.get(ruleset, ("dice",)):
        raise ApiError(409, "kind", f"{ruleset} does not roll {kind!r} (it rolls: "
                                    f"{', '.join(BY_RULESET.get(ruleset, ('dice',)))})")
    if "label" in data:
        label = data["label"]
        if not isinstance(label, str) or len(label) > 80:
            raise ApiError(400, "label", "expected a text of at most 80 characters")
        params["label"] = label
    return {"kind": kind, **params}
