"""Dice the table rolls for the players (the `roll` command): the kinds the rule system declares
(`Ruleset.dice`) and plain dice.

Every roll takes the controller's `random.Random`, and the result goes into the game log, so a
replayed game shows the same dice. The parameters are checked against the kind's declared fields
here (a command may come from the panel, the buttons or the club's MQTT broker), so a bad one is a
`QueryError` naming the field and a `TypeError` inside a roll is a bug, not a bad request. The panel
checks the same declaration first, with its own 400 naming the field (web_ui/rolls.py).
"""

from __future__ import annotations

import random
from typing import Any

from table.errors import QueryError
from table.rules.base import Ruleset
from table.rules.declarations import PLAIN_DICE, DiceField, DiceKind


def kinds(rules: type[Ruleset]) -> dict[str, DiceKind]:
    """The kinds of roll a rule system offers, plain dice included."""
    return {d.kind: d for d in (*rules.dice, PLAIN_DICE)}


def _whole(value: Any, lo: int, hi: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi


def _fits(spec: DiceField, value: Any) -> str:
    """What is wrong with `value` for the field (empty when it fits)."""
    whole = f"a whole number {spec.minimum}-{spec.maximum}"
    if spec.kind in ("count", "integer"):
        return "" if _whole(value, spec.minimum, spec.maximum) else f"expected {whole}"
    if spec.kind == "toggle":
        return "" if value in spec.values else f"expected one of {', '.join(map(repr, spec.values))}"
    if spec.kind == "integers":
        ok = isinstance(value, list) and value and all(_whole(v, spec.minimum, spec.maximum) for v in value)
        return "" if ok else f"expected a list of {whole}s"
    ok = isinstance(value, list) and all(isinstance(e, dict) and set(e) <= {"player", "modifier"}
                                         and isinstance(e.get("player"), str)
                                         and _whole(e.get("modifier", 0), spec.minimum, spec.maximum)
                                         for e in value)
    return "" if ok else "expected a list of {\"player\", \"modifier\"}"


def checked(kind: DiceKind, params: dict[str, Any]) -> dict[str, Any]:
    """The roll's parameters, defaults filled in; QueryError naming the first field that is wrong."""
    fields = {f.name: f for f in kind.fields}
    unknown = sorted(set(params) - set(fields))
    if unknown:
        known = ", ".join(fields) or "none"
        raise QueryError(f"roll {kind.kind}: {unknown[0]}: unknown field (fields: {known})")
    out = {}
    for name, spec in fields.items():
        if name not in params and spec.default is None:
            raise QueryError(f"roll {kind.kind}: {name}: missing")
        value = params.get(name, spec.default)
        wrong = _fits(spec, value)
        if wrong:
            raise QueryError(f"roll {kind.kind}: {name}: {wrong}, got {value!r}")
        out[name] = value
    return out


def roll(rng: random.Random, rules: type[Ruleset], kind: str, params: dict[str, Any]) -> dict[str, Any]:
    """Roll `kind` with its parameters (QueryError for an unknown kind or a bad parameter)."""
    offered = kinds(rules)
    if kind not in offered:
        raise QueryError(f"roll: unknown kind {kind!r} (known: {', '.join(offered)})")
    return {"kind": kind, **offered[kind].roll(rng, **checked(offered[kind], params))}
