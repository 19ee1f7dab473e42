"""The checks on a roll request, from the dice the rule systems declare (`Ruleset.dice`).

The panel validates the request; the controller's `roll` command rolls and logs it. A kind of another
rule system is a 409 (the table plays a different game); `dice` (`count` dice of `sides` sides) every
system rolls.
"""

from __future__ import annotations

from typing import Any

from table.rules import Ruleset, all_rulesets
from table.rules.declarations import PLAIN_DICE, DiceField, DiceKind
from web_ui.errors import ApiError
from web_ui.inputs import choice, ident, integer, only


def offered(rules: type[Ruleset]) -> tuple[DiceKind, ...]:
    """The kinds of roll a rule system offers, plain dice last."""
    return (*rules.dice, PLAIN_DICE)


def _value(spec: DiceField, data: dict[str, Any]) -> Any:
    value = data.get(spec.name, spec.default)
    if spec.kind in ("count", "integer"):
        return integer(value, spec.name, spec.minimum, spec.maximum)
    if spec.kind == "toggle":
        return choice(value, spec.name, spec.values)
    if spec.kind == "integers":
        if not isinstance(value, list) or not 1 <= len(value) <= 30:
            raise ApiError(400, spec.name, f"expected a list of 1-30 whole numbers "
                                           f"{spec.minimum}-{spec.maximum}")
        return [integer(v, f"{spec.name}[{i}]", spec.minimum, spec.maximum) for i, v in enumerate(value)]
    if not isinstance(value, list) or not 1 <= len(value) <= 8:   # per_player
        raise ApiError(400, spec.name, "expected a list of 1-8 players")
    out = []
    for i, entry in enumerate(value):
        if not isinstance(entry, dict):
            raise ApiError(400, f"{spec.name}[{i}]", "expected {\"player\", \"modifier\"}")
        only(entry, {"player", "modifier"})
        out.append({"player": ident(entry.get("player"), f"{spec.name}[{i}].player"),
                    "modifier": integer(entry.get("modifier", 0), f"{spec.name}[{i}].modifier",
                                        spec.minimum, spec.maximum)})
    return out


def check_roll(rules: type[Ruleset], data: dict[str, Any]) -> dict[str, Any]:
    """The validated `roll` command parameters for the table's rule system, `kind` included."""
    every = {d.kind: d for cls in all_rulesets() for d in offered(cls)}
    kind = choice(data.get("kind"), "kind", tuple(every))
    spec = every[kind]
    only(data, {"kind", "label", *(f.name for f in spec.fields)})
    params = {f.name: _value(f, data) for f in spec.fields}
    mine = [d.kind for d in offered(rules)]
    if kind not in mine:
        raise ApiError(409, "kind", f"{rules.name} does not roll {kind!r} (it rolls: {', '.join(mine)})")
    if "label" in data:
        label = data["label"]
        if not isinstance(label, str) or len(label) > 80:
            raise ApiError(400, "label", "expected a text of at most 80 characters")
        params["label"] = label
    return {"kind": kind, **params}
