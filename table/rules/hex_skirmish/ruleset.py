"""Hex skirmish: the hex skirmish rules on the scene's hex grid (rulings: docs/rules/hex-skirmish.md).

A thin rule-system class: it validates the rulings, builds the battlefield once, and hands each
question to the engine modules of this package.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from table.cached import cached_property
from table.errors import QueryError
from table.hexgrid import Hex
from table.rules.base import question, register
from table.rules.declarations import Deployment
from table.rules.hex_skirmish import checks, combat, initiative, setup, sight, vehicles
from table.rules.hex_skirmish.analysis import SkirmishAnalysis
from table.rules.hex_skirmish.army import UNIT_PROFILE
from table.rules.hex_skirmish.dice import INITIATIVE
from table.rules.hex_skirmish.field import Field, gap
from table.rules.hex_skirmish.movement import Ground, Mover
from table.rules.hex_skirmish.text import SIZES
from table.rules.hex_skirmish.units import combatant, size_class
from table.rules.hexbase import HexRuleset, parse_hex
from table.rules.options import Option
from table.rules.profiles import TerrainKinds
from table.scene import HEX_TERRAIN, Model, Scene

TERRAINS = tuple(sorted(HEX_TERRAIN))


@register
class HexSkirmish(HexRuleset):
    """Hex skirmish rules: deployment, grouping, initiative and phases, movement, sight, range, melee."""

    name = "hex_skirmish"
    aliases = ("hex-skirmish",)
    title = "Hex skirmish"
    extra_scene_keys = {"scene": frozenset({"deployment"}), "unit": frozenset({"status", "hp_lost"}),
                        "weapon": frozenset({"traits"}), "model": frozenset({"footprint"})}
    rulings_page = "docs/rules/hex-skirmish.md"
    rule_text = "hex-skirmish.txt"
    options = (
        Option("melee_range", "integer", 1, minimum=1, maximum=2, help="hexes"),   # a polearm's 2 at most
        Option("cover_hexsides", "choice", "crossed", ("crossed", "target"),
               help="every cover hexside a sight line crosses counts; target: only the target's hex's"),
        Option("vehicle_cover", "choice", "in_the_way", ("in_the_way", "adjacent"),
               help="a vehicle anywhere on the sight line is heavy cover; adjacent: only next to the target"),
        Option("prone_close_range", "choice", "replace", ("replace", "stack"),
               help="Prone's -2 within 5 hexes replaces the close-range +2; stack: they add up to 0"),
        Option("movement_rounding", "choice", "floor", ("floor", "nearest"),
               help="movement divided by 5 is rounded down; nearest: to the nearest whole hex"),
        Option("dig_in_arc", "choice", "front", ("front", "wide"),
               help="Dig In covers the one hexside in front; wide: that and the two either side"),
        Option("ram_damage", "choice", "size_plus_half", ("size_plus_half", "half_total"),
               help="ram damage is Size + hexes traveled / 2; half total: (Size + hexes traveled) / 2"),
        Option("max_group_size", "integer", None, minimum=1, maximum=100, optional=True,   # a side's units
               help="groups of at least 2, no upper limit; 3 reads the text as groups of 2 or 3"),
        Option("difficult_terrain", "choices", ["forest", "swamp", "mountain"], TERRAINS,
               help="hex terrain that costs 2 movement points to enter"),
        Option("impassable_terrain", "choices", ["water"], TERRAINS, help="hex terrain no unit may enter"),
        Option("blocking_terrain", "choices", ["mountain"], TERRAINS,
               help="hex terrain that blocks sight (the text names none)"),
    )
    phases = (("deployment", None), ("hero", None), ("movement", None), ("ability", None),
              ("shooting", None), ("melee", None))
    dice = (INITIATIVE,)
    deployment = Deployment("hexes")
    unit_profile = UNIT_PROFILE
    terrain_kinds = TerrainKinds(hexes=TERRAINS, hexsides=("hard_cover", "soft_cover"))
    scenario_keys = frozenset({"deployment"})

    def check_unit(self, unit_id: str) -> None:
        """The unit read as a combatant (type, movement, Dex, size, group, status, weapons)."""
        unit = self.unit(unit_id)
        combatant(self.scene, self.scene.units.index(unit), unit)

    def __init__(self, scene: Scene, rulings: Mapping[str, Any] | None = None):
        super().__init__(scene, rulings)
        self.ground = Ground(frozenset(self.rulings["difficult_terrain"]),
                             frozenset(self.rulings["impassable_terrain"]),
                             frozenset(self.rulings["blocking_terrain"]))

    @cached_property
    def field(self) -> Field:
        return Field(self)

    def with_model(self, unit: str, at: Hex, heading: float | None) -> HexSkirmish:
        """A copy of this rule system with the unit's one model on hex `at` (added if it has none),
        turned to `heading` (None: as it stands)."""
        models = list(self.scene.models)
        for i, m in enumerate(models):
            if m.unit == unit:
                if any(o.unit == unit for o in models[i + 1:]):
                    raise QueryError(f"unit {unit!r} has several models; name one model to move it")
                models[i] = replace(m, hex=at, heading=m.heading if heading is None else heading)
                break
        else:
            models.append(Model(id=unit, unit=unit, hex=at, heading=0.0 if heading is None else heading))
        return HexSkirmish(replace(self.scene, models=tuple(models)), self.rulings)

    def analysis(self) -> SkirmishAnalysis:
        """The live table's analysis: every unit's moves and every enemy pair's sight, kept up to date
        move by move (`SkirmishAnalysis.move`)."""
        return SkirmishAnalysis(self)

    # ------------------------------------------------------------ measuring

    @question("distance")
    def distance(self, a: str, b: str) -> dict[str, Any]:
        """Hexes between two models or units: the least distance over their footprints."""
        steps = gap(self.field.hexes(a), self.field.hexes(b))
        return {"from": a, "to": b, "distance": steps, "method": "hex"}

    @question("footprint")
    def footprint(self, unit: str) -> dict[str, Any]:
        """The hexes a unit's models cover, from their size and facing."""
        models = []
        for m in self.models_for(unit):
            c = self.field.units[m.unit]
            size = c.size if m.size is None else size_class(m.size, f"model {m.id!r} size")
            length, width = SIZES.get(size, (None, None))
            models.append({"model": m.id, "hex": list(self.hex_of(m)), "size": size, "length": length,
                           "width": width, "hexes": [list(h) for h in self.field.model_hexes[m.id]]})
        return {"unit": unit, "hexes": [list(h) for h in self.field.hexes(unit)], "models": models}

    @question("los")
    def los(self, a: str, b: str) -> dict[str, Any]:
        """Hex line of sight: visible, cover crossed, what blocks it, the line and the hexes it crosses."""
        return sight.sight(self.field, self.ground, a, b, self.rulings)

    @question("band")
    def band(self, a: str, b: str, weapon: str | None = None) -> dict[str, Any]:
        """Range band (optimal / maximum / out_of_range), to-hit modifier and the target's AC bonus."""
        seen = self.los(a, b)
        return combat.band(self.field, a, b, weapon, seen, self.rulings, sight.cover_ac(seen["cover"]))

    # ------------------------------------------------------------ moving

    def mover(self, unit: str) -> Mover:
        return Mover(self.field, unit, self.ground)

    @question("moves")
    def moves(self, unit: str) -> dict[str, Any]:
        """Hexes the unit can end its move in this turn, with their costs (its own hex excluded)."""
        mover = self.mover(unit)
        return {"unit": unit, "from": list(mover.start), "allowance": mover.allowance,
                "reachable": mover.reachable()}

    @question("path")
    def path(self, unit: str, to: str) -> dict[str, Any]:
        """The cheapest path to a hex, its cost, and whether it fits in this turn's movement points."""
        mover, goal = self.mover(unit), parse_hex(to)
        steps, cost = mover.route(goal)
        return {"unit": unit, "to": list(goal), "path": None if steps is None else [list(h) for h in steps],
                "cost": cost, "allowance": mover.allowance,
                "within_move": cost is not None and cost <= mover.allowance}

    @question("opportunity")
    def opportunity(self, unit: str, *path: str) -> dict[str, Any]:
        """Attacks of Opportunity a move along the given hexes provokes."""
        if not path:
            raise QueryError("usage: query SCENE opportunity UNIT Q,R [Q,R ...]")
        mover, hexes, reach = self.mover(unit), [parse_hex(p) for p in path], self.rulings["melee_range"]
        answer = combat.opportunity(self.field, mover, hexes, reach)
        steps = [(h[0], h[1]) for h in answer["path"]]
        answer["stealth_checks"] = checks.stealth_checks(self.field, mover, steps, reach)
        return answer

    @question("rout")
    def rout(self, unit: str) -> dict[str, Any]:
        """A routed unit's move: at full movement points toward the closest map edge."""
        return {"unit": unit, **self.mover(unit).rout()}

    # ------------------------------------------------------------ fighting

    @question("melee")
    def melee(self) -> dict[str, Any]:
        """Enemy pairs within melee range, who can strike, and who may try boarding."""
        return combat.melee(self.field, self.rulings["melee_range"])

    @question("lead")
    def lead(self, unit: str) -> dict[str, Any]:
        """Lead: routing friends within 10 hexes this unit may rally (DC 10), or who may rally it."""
        return combat.lead(self.field, unit)

    @question("reinforce")
    def reinforce(self, unit: str, at: str, heading: str = "0") -> dict[str, Any]:
        """A vehicle entering as a reinforcement at a hex (facing `heading` degrees): the ranged
        Attacks of Opportunity it triggers."""
        return vehicles.reinforce(self, unit, parse_hex(at), _number(heading, "heading"))

    @question("ram")
    def ram(self, vehicle: str, target: str, *path: str) -> dict[str, Any]:
        """A vehicle ramming a soldier or hero at the end of a path: allowed, DC 7 Evasion, damage."""
        if not path:
            raise QueryError("usage: query SCENE ram VEHICLE TARGET Q,R [Q,R ...]")
        return vehicles.ram(self, vehicle, target, [parse_hex(p) for p in path])

    @question("retreat")
    def retreat(self, vehicle: str) -> dict[str, Any]:
        """Ground Retreat: a vehicle at the map border with infantry aboard, DC 7 Evasion."""
        return vehicles.retreat(self, vehicle)

    @question("morale")
    def morale(self) -> dict[str, Any]:
        """Who must make a Morale check: groups that lost half their units, units at half hit points."""
        return checks.morale(self.field)

    @question("heal")
    def heal(self) -> dict[str, Any]:
        """Mortally Wounded units: the Heal or Fix check (DC 10) and who may make it."""
        return checks.heal(self.field)

    # ------------------------------------------------------------ before the battle

    @question("deploy")
    def deploy(self) -> dict[str, Any]:
        """Deployment zones per army and which units stand outside theirs."""
        return setup.deploy(self.field)

    @question("groups")
    def groups(self) -> dict[str, Any]:
        """Grouping checks."""
        return setup.groups(self.field, self.rulings["max_group_size"])

    @question("initiative")
    def initiative(self, seed: int | None = None) -> dict[str, Any]:
        """Initiative rolls (seeded) and the order of each of the five phases."""
        return initiative.initiative(self.field, seed, self.rulings["movement_rounding"])

    @question("report")
    def report(self) -> dict[str, Any]:
        """Everything the table shows: grouping, melee, and per pair of enemy units distance, sight, band."""
        present = self.field.on_table()
        pairs = []
        for a in present:
            for b in present:
                if a.player == b.player or a.id == b.id:
                    continue
                seen = self.los(a.id, b.id)
                row: dict[str, Any] = {"from": a.id, "to": b.id,
                                       "distance": self.distance(a.id, b.id)["distance"],
                                       "visible": seen["visible"], "cover": seen["cover"]}
                if any(arm.range is not None for arm in a.arms):
                    row["band"] = self.band(a.id, b.id)["band"]
                pairs.append(row)
        return {"groups": self.groups(), "melee": self.melee(), "pairs": pairs}


def _number(text: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise QueryError(f"{what}: expected a number of degrees, got {text!r}") from None
