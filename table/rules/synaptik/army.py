"""What a Synaptik unit holds (the army builder's form): its stats, its weapons' range bands, each
model's wounds; and the unit checks its engine makes."""

from __future__ import annotations

from table.rules.profiles import UnitField, UnitProfile

BAND_NAMES = ("hot", "standard", "cold")

UNIT_PROFILE = UnitProfile(
    fields=(
        UnitField("movement", "number", required=True, default=6, minimum=0, help="inches a model moves"),
        UnitField("toughness", "integer", default=1, minimum=1, help="wounds a model takes (Firing Line)"),
        UnitField("type", "text", help="the unit's kind, drawn from the initiative bag"),
        UnitField("bands", "bands", "weapon", choices=BAND_NAMES,
                  default={"hot": [0, 12], "standard": [12, 24], "cold": [24, 36]},
                  help="each range band [from, to] in inches"),
        UnitField("wounds", "integer", "model", minimum=0, help="wounds left (default: the toughness)"),
    ),
    models=(1, 30), base={"shape": "circle", "diameter_mm": 25},
    help="A squad of models with one movement and toughness; each weapon has hot, standard and cold bands.")
