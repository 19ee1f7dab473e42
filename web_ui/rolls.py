"""The panel's checks on a roll request: the table's own (table/live/rolls.py `check`, which a roll by
the buttons or over MQTT passes too), answered as a 400 naming the field.

A kind of another rule system is a 409 (the table plays a different game); `dice` (`count` dice of
`sides` sides) every system rolls.
"""

from __future__ import annotations

from typing import Any

from table.errors import ParamError
from table.live import rolls
from table.rules import Ruleset, all_rulesets
from table.rules.declarations import PLAIN_DICE, DiceKind
from web_ui.errors import ApiError
from web_ui.inputs import choice


def offered(rules: type[Ruleset]) -> tuple[DiceKind, ...]:
    """The kinds of roll a rule system offers, plain dice last."""
    return (*rules.dice, PLAIN_DICE)


def check_roll(rules: type[Ruleset], data: dict[str, Any]) -> dict[str, Any]:
    """The validated `roll` command parameters for the table's rule system, `kind` included."""
    every = {d.kind: d for cls in all_rulesets() for d in offered(cls)}
    kind = choice(data.get("kind"), "kind", tuple(every))
    fields = {k: v for k, v in data.items() if k != "kind"}
    try:
        params = rolls.check(every[kind], fields)
    except ParamError as exc:
        raise ApiError(400, exc.field, exc.problem) from None
    mine = [d.kind for d in offered(rules)]
    if kind not in mine:
        raise ApiError(409, "kind", f"{rules.name} does not roll {kind!r} (it rolls: {', '.join(mine)})")
    return {"kind": kind, **params}
