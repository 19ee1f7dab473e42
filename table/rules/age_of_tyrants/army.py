"""What an Age of Tyrants unit holds (the army builder's form): one base card (size, SR, move,
locomotion, role, command, bombard, special rules, AP/AM/S per band) for every base of the unit, and
each base's own state."""

from __future__ import annotations

from table.rules.age_of_tyrants.profile import BAND_NAMES
from table.rules.profiles import UnitField, UnitProfile

LOCOMOTIONS = ("foot", "jump", "wheeled", "tracked", "hover")
VALUES = (("ap", "anti-personnel value per band"), ("am", "anti-materiel value per band"),
          ("s", "suppression value per band"))

UNIT_PROFILE = UnitProfile(
    fields=(
        UnitField("size", "number", default=1, minimum=0, help="the base's size"),
        UnitField("sr", "number", label="SR", default=4, minimum=0, help="save roll target"),
        UnitField("move", "number", default=6, minimum=0, help="inches a base moves"),
        UnitField("locomotion", "choice", default="foot", choices=LOCOMOTIONS, checked=False,
                  help="wheels and tracks work too"),
        UnitField("role", "choice", default="personnel", choices=("personnel", "materiel"), checked=False,
                  help="infantry and vehicle work too"),
        UnitField("command", "integer", default=0, minimum=0, help="command points (leaders)"),
        UnitField("leader", "choice", choices=("lieutenant", "captain")),
        UnitField("bombard", "number", minimum=0, help="bombard value (a 3\" template)"),
        UnitField("troop_carrier", "integer", minimum=0, help="bases it carries"),
        UnitField("special", "names", default=[], help="special rules, e.g. 360 Degree Attack"),
        *(UnitField(key, "band_values", label=key.upper(), choices=BAND_NAMES, help=text + " (no weapons)")
          for key, text in VALUES),
        *(UnitField(key, "band_values", "weapon", label=key.upper(), choices=BAND_NAMES, help=text)
          for key, text in VALUES),
        UnitField("special", "names", "weapon", help="the weapon's special rules"),
        UnitField("arc", "integer", "weapon", minimum=180, maximum=360, help="360: fires all round"),
        UnitField("indirect", "bool", "weapon", help="indirect fire"),
        UnitField("sp", "integer", "model", label="SP", minimum=0, help="suppression points on the base"),
        UnitField("vulnerable", "bool", "model"),
        UnitField("wreckage", "bool", "model"),
        UnitField("destroyed", "bool", "model"),
    ),
    models=(1, 20), base={"shape": "circle", "diameter_mm": 25},
    help="A unit of bases sharing one base card; its weapons give AP/AM/S per range band.")
