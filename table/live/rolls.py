"""Dice the table rolls for the players (the `roll` command): the kinds the rule system declares
(`Ruleset.dice`) and plain dice.

Every roll takes the controller's `random.Random`, and the result goes into the game log, so a
replayed game shows the same dice. A roll's parameters are checked here, once, against the kind's
declared fields, whichever way the roll came (the panel, the buttons, the club's MQTT broker): a bad
one is a `ParamError` naming the field (the panel's 400 names the same: web_ui/rolls.py calls `check`),
and a `TypeError` inside a roll is a bug, not a bad request.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from table.errors import ParamError
from table.live.command_limits import ident, whole
from table.rules.base import Ruleset
from table.rules.declarations import PLAIN_DICE, DiceField, DiceKind

MAX_LABEL = 80          # characters of a roll's label
MAX_VALUES = 30         # numbers in an `integers` field
MAX_PLAYERS = 8         # entries in a `per_player` field


def kinds(rules: type[Ruleset]) -> dict[str, DiceKind]:
    """The kinds of roll a rule system offers, plain dice included."""
    return {d.kind: d for d in (*rules.dice, PLAIN_DICE)}


def _value(command: str, spec: DiceField, value: Any) -> Any:
    """The field's value, checked (ParamError naming the field, or an entry of it)."""
    name, low, high = spec.name, spec.minimum, spec.maximum
    if spec.kind in ("count", "integer"):
        whole(command, name, value, low, high)
    elif spec.kind == "toggle":
        if value not in spec.values:
            raise ParamError(command, name, f"expected one of {', '.join(map(repr, spec.values))}")
    elif spec.kind == "integers":
        if not isinstance(value, list) or not 1 <= len(value) <= MAX_VALUES:
            raise ParamError(command, name, f"expected a list of 1-{MAX_VALUES} whole numbers {low}-{high}")
        for i, v in enumerate(value):
            whole(command, f"{name}[{i}]", v, low, high)
    else:                                                        # per_player
        if not isinstance(value, list) or not 1 <= len(value) <= MAX_PLAYERS:
            raise ParamError(command, name, f"expected a list of 1-{MAX_PLAYERS} players")
        for i, entry in enumerate(value):
            if not isinstance(entry, dict):
                raise ParamError(command, f"{name}[{i}]", "expected {\"player\", \"modifier\"}")
            for key in entry:
                if key not in ("player", "modifier"):
                    raise ParamError(command, f"{name}[{i}].{key}", "unknown field (known: modifier, player)")
            ident(command, f"{name}[{i}].player", entry.get("player"))
            whole(command, f"{name}[{i}].modifier", entry.get("modifier", 0), low, high)
        value = [{"player": e["player"], "modifier": e.get("modifier", 0)} for e in value]
    return value


def check(kind: DiceKind, params: Mapping[str, Any]) -> dict[str, Any]:
    """The roll's fields, defaults filled in, and its `label` if it has one (a text of at most MAX_LABEL
    characters); ParamError naming the first one that is wrong."""
    command = f"roll {kind.kind}"
    fields = {f.name: f for f in kind.fields}
    for key in params:
        if key not in fields and key != "label":
            raise ParamError(command, key, f"unknown field (fields: {', '.join(fields) or 'none'})")
    out = {}
    for name, spec in fields.items():
        if name not in params and spec.default is None:
            raise ParamError(command, name, "missing")
        out[name] = _value(command, spec, params.get(name, spec.default))
    if "label" in params:
        label = params["label"]
        if not isinstance(label, str) or len(label) > MAX_LABEL:
            raise ParamError(command, "label", f"expected a text of at most {MAX_LABEL} characters")
        out["label"] = label
    return out


def roll(rng: random.Random, rules: type[Ruleset], kind: Any, params: Mapping[str, Any]) -> dict[str, Any]:
    """Roll `kind` with its fields once `check`ed, label included (ParamError for a kind the rule system
    does not offer or a bad field)."""
    offered = kinds(rules)
    if not isinstance(kind, str) or kind not in offered:
        raise ParamError("roll", "kind", f"unknown kind {kind!r} (known: {', '.join(offered)})")
    fields = check(offered[kind], params)
    fields.pop("label", None)
    return {"kind": kind, **offered[kind].roll(rng, **fields)}
