"""What a hex skirmish unit holds (the army builder's form): its type, movement, Dex, size, group,
hit points and status, its weapons' ranges and traits."""

from __future__ import annotations

from table.rules.hex_skirmish.text import SIZE_NAMES
from table.rules.hex_skirmish.units import PERKS, STATUSES, TYPES
from table.rules.profiles import UnitField, UnitProfile

UNIT_PROFILE = UnitProfile(
    fields=(
        UnitField("type", "choice", default="soldier", choices=TYPES),
        UnitField("movement", "integer", required=True, default=6, minimum=0, help="hexes of movement"),
        UnitField("dex", "integer", label="Dex", default=0, help="initiative and evasion modifier"),
        UnitField("size", "integer", default=1, minimum=1, maximum=10, checked=False,
                  help="1-5: " + ", ".join(name.title() for name in SIZE_NAMES) + " (the names work too); "
                       "a vehicle 1-10"),
        UnitField("group", "text", help="units of one group move and fight together"),
        UnitField("hp", "integer", label="HP", minimum=1, help="hit points"),
        UnitField("crew", "integer", minimum=0),
        UnitField("perks", "choices", default=[], choices=tuple(sorted(PERKS))),
        UnitField("status", "choices", "unit", default=[], choices=tuple(sorted(STATUSES))),
        UnitField("hp_lost", "integer", "unit", label="HP lost", minimum=0),
        UnitField("range", "range", "weapon", default=[6, 12], help="[optimal, maximum] hexes"),
        UnitField("traits", "choices", "weapon", default=[], choices=("melee", "polearm")),
    ),
    models=(1, 1), base={"shape": "circle", "diameter_mm": 25},
    help="One model a unit, on one hex (a vehicle covers more by its size); groups by name.")
