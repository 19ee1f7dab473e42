"""What a Syniad unit is (the army builder's form): one counter with its movement, combat strength
and type."""

from __future__ import annotations

from table.rules.profiles import UnitField, UnitProfile

UNIT_PROFILE = UnitProfile(
    fields=(
        UnitField("movement", "integer", required=True, default=4, minimum=0, help="movement points"),
        UnitField("combat_strength", "integer", required=True, default=5, minimum=1),
        UnitField("type", "text", default="infantry", help="artillery pays more to cross rivers"),
    ),
    weapons=False, models=(1, 1), base={"shape": "rect", "width_mm": 16, "depth_mm": 16},
    help="A counter: one per unit, on one hex.")
