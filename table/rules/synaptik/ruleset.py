"""Synaptik Tactics: centre-to-centre inches, base-to-base line of sight, cover dice, Cohesion,
range bands, movement by order, charges, dice pools, Firing Line and the initiative bag.

The rulings (rule text, reading, option) are in docs/rules/synaptik.md.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import shapely

from table.cached import cached_property
from table.dice import Pool, reroll, roll, successes
from table.errors import QueryError
from table.geometry import MM_PER_INCH, Point2, base_outline, footprint, inner_radius, terrain_polygons
from table.rules.base import question, register
from table.rules.inch import METHODS, InchRuleset, finite, inches
from table.rules.options import Option
from table.rules.profiles import TerrainKinds
from table.rules.synaptik.army import UNIT_PROFILE
from table.rules.synaptik.cover import Bases, covers_on_lines
from table.rules.synaptik.dice import POOL
from table.rules.synaptik.los import Sight, SightLines
from table.rules.synaptik.move import STEER_SIDES, Terrain2D
from table.rules.synaptik.orders import (
    FIRING_LINE_MODELS,
    ORDERS,
    SUCCESS,
    allowance,
    firing_line,
    initiative,
    order_name,
)
from table.rules.synaptik.units import MELEE_RANGE, band_of, cohesion, melee_contacts
from table.scene import Base, Model, Terrain, Unit, Weapon
from table.spatial import ShapeIndex, corner_joint, joined_cores

DICE = (3, 6, 8, 10)
REROLLS = ("none", "failures")


@register
class Synaptik(InchRuleset):
    name = "synaptik"
    aliases = ("synaptik_tactics",)
    title = "Synaptik Tactics"
    extra_scene_keys = {"model": frozenset({"wounds"})}
    rulings_page = "docs/rules/synaptik.md"
    rule_text = "synaptik-tactics.txt"
    options = (
        Option("measure", "choice", "centre", METHODS,
               help="every distance centre-to-centre (Measurement); edge: nearest edges"),
        # ranges: sight is blocked by pieces from ground level up to a storey's 12"; a climb costs at most
        # ten times the rule's 2" per inch (0 switches climbing off)
        Option("los_block_height", "number", 2.0, minimum=0, maximum=12,
               help="impassable terrain taller than this blocks sight"),
        Option("climb_cost", "number", 2.0, minimum=0, maximum=20,
               help="inches of movement per inch of height climbed over"),
        Option("firing_line_models", "choice", "beyond_first_ten", FIRING_LINE_MODELS,
               help="Firing Line: one more attack per started ten models beyond the first ten; every ten: "
                    "per started ten of the whole unit once past ten"),
        Option("band_edge", "choice", "nearer", ("nearer", "farther"),
               help="a distance on a shared band edge is in the nearer band; farther: the farther one"),
        Option("difficult_by", "choice", "centre", ("centre", "base"),
               help="difficult ground counts under the centre's path; base: while any part of the base is"),
        Option("difficult_climb", "bool", False, help="a difficult piece with height is climbed over too"),
        Option("move_base", "choice", "outline", ("outline", "disc"),
               help="a moving base keeps its facing; disc: the widest disc in it (it may turn)"),
        Option("corner_joint", "choice", "closed", ("closed", "open"),
               help="blockers touching only at a corner block through it; open: they do not"),
    )
    phases = (("initiative", None), ("activations", "alternate"), ("end of turn", None))
    order_factors = ORDERS
    dice = (POOL,)
    pairwise_bands = True
    unit_profile = UNIT_PROFILE
    terrain_kinds = TerrainKinds(traits=("light_cover", "heavy_cover", "impassable", "difficult", "road",
                                         "flat"))

    def check_unit(self, unit_id: str) -> None:
        """Movement, toughness and each model's wounds as the questions read them."""
        unit = self.unit(unit_id)
        self.movement_of(unit)
        toughness = finite(unit.stats.get("toughness", 1), f"unit {unit.id!r} stats.toughness")
        for m in self.scene.models_of(unit.id):
            finite(m.extra.get("wounds", toughness), f"model {m.id!r} wounds")

    # ------------------------------------------------------------ scene-wide indexes (built once)

    @cached_property
    def sight(self) -> SightLines:
        height = finite(self.rulings["los_block_height"], "ruling los_block_height")
        pieces = [t for t in self.scene.terrain if t.has("impassable") and t.height > height]
        polygons = terrain_polygons(pieces)
        cores = joined_cores(polygons, close_corners=corner_joint(self.rulings["corner_joint"]))
        return SightLines(ShapeIndex([t.id for t in pieces], polygons, cores=cores))

    @cached_property
    def cover_index(self) -> ShapeIndex:
        return _terrain_index([t for t in self.scene.terrain if t.has("light_cover") or t.has("heavy_cover")])

    @cached_property
    def heavy(self) -> frozenset[str]:
        return frozenset(t.id for t in self.scene.terrain if t.has("heavy_cover"))

    @cached_property
    def bases(self) -> Bases:
        """Every model standing on the table (for units in the way of a line)."""
        return Bases([m for m in self.scene.models if m.x is not None])

    @cached_property
    def members(self) -> dict[str, tuple[Model, ...]]:
        """Each unit's models (as `scene.models_of`), worked out once."""
        found: dict[str, list[Model]] = {u.id: [] for u in self.scene.units}
        for m in self.scene.models:
            found.setdefault(m.unit, []).append(m)
        return {uid: tuple(models) for uid, models in found.items()}

    @cached_property
    def by_id(self) -> dict[str, Model]:
        return {m.id: m for m in self.scene.models}

    @cached_property
    def unit_of(self) -> dict[str, str]:
        return {m.id: m.unit for m in self.scene.models}

    @cached_property
    def ground(self) -> Terrain2D:
        return Terrain2D(self.scene.terrain, finite(self.rulings["climb_cost"], "ruling climb_cost"),
                         self.rulings["difficult_by"], self.rulings["difficult_climb"])

    def distances(self, a: tuple[Model, ...], b: tuple[Model, ...]) -> np.ndarray:
        """The (len a, len b) matrix of measured distances."""
        if self.method == "centre":
            pa = np.array([m.position for m in a], dtype=float)
            pb = np.array([m.position for m in b], dtype=float)
            apart: np.ndarray = np.hypot(pa[:, None, 0] - pb[None, :, 0], pa[:, None, 1] - pb[None, :, 1])
            return apart
        fa = np.array([footprint(m) for m in a], dtype=object)
        fb = np.array([footprint(m) for m in b], dtype=object)
        return shapely.distance(fa[:, None], fb[None, :])

    def closest(self, a: Sequence[Model], b: Sequence[Model]) -> tuple[float, Model, Model]:
        """As the base class (first closest pair in scene order), in one numpy call."""
        d = self.distances(tuple(a), tuple(b))
        i, j = np.unravel_index(int(np.argmin(d)), d.shape)
        return float(d[i, j]), a[int(i)], b[int(j)]

    # ------------------------------------------------------------ line of sight and cover

    def _canonical_sight(self, shooter: Unit, target: Unit) -> Sight:
        """Unit-to-unit sight, worked out once per pair (first-listed unit as shooter) and turned round."""
        first, second = self._canonical(shooter, target)
        key = (first.id, second.id)
        if key not in self._sights:
            self._sights[key] = self.sight.between(self.members[first.id], self.members[second.id])
        sight = self._sights[key]
        return sight if first is shooter else reverse(sight)

    @cached_property
    def _sights(self) -> dict[tuple[str, str], Sight]:
        return {}

    def _canonical(self, a: Unit, b: Unit) -> tuple[Unit, Unit]:
        """The pair's units, first-listed first."""
        return (a, b) if self._unit_order[a.id] < self._unit_order[b.id] else (b, a)

    @cached_property
    def _unit_order(self) -> dict[str, int]:
        return {u.id: k for k, u in enumerate(self.scene.units)}

    def _work_out_sights(self, pairs: list[tuple[Unit, Unit]]) -> None:
        """Unit-to-unit sight for many pairs in one batch (see `SightLines.between_many`)."""
        todo = list({(a.id, b.id): (a, b) for a, b in (self._canonical(s, t) for s, t in pairs)
                     if (a.id, b.id) not in self._sights}.values())
        found = self.sight.between_many([(self.members[a.id], self.members[b.id]) for a, b in todo])
        self._sights.update({(a.id, b.id): s for (a, b), s in zip(todo, found, strict=True)})

    def los_answers(self, sights: list[Sight]) -> list[dict[str, Any]]:
        """The contract's LOS answers for sights, cover counted for each pair's shooter (one batch)."""
        seen = [(self.by_id[s.pair[0]], self.by_id[s.pair[1]]) for s in sights if s.visible]
        covers = iter(covers_on_lines(seen, self.cover_index, self.heavy, self.bases))
        answers = []
        for sight in sights:
            answer: dict[str, Any] = {"visible": sight.visible, "cover": {"light": 0, "heavy": 0},
                                      "blocked_by": list(sight.blocked_by), "line": None,
                                      "models": list(sight.pair), "cover_dice": 0, "cover_from": []}
            if sight.visible and sight.line is not None:
                cover = next(covers)
                answer.update(cover=cover.to_dict(), line=[list(p) for p in sight.line],
                              cover_dice=cover.dice,
                              cover_from=[*cover.light_pieces, *cover.heavy_pieces, *cover.units])
            answers.append(answer)
        return answers

    @question("los", margin="visible")
    def los(self, a: str, b: str) -> dict[str, Any]:
        """Line of sight from any model of A to any model of B, and the cover B gets."""
        return self.los_answers([self.sight.between(self.models_for(a), self.models_for(b))])[0]

    # ------------------------------------------------------------ cohesion, melee, bands

    def out_of_cohesion(self, unit: Unit) -> list[str]:
        models = self.scene.models_of(unit.id)
        return cohesion([m.id for m in models], self.distances(models, models)) if models else []

    @question("cohesion")
    def cohesion(self, unit_id: str) -> dict[str, Any]:
        """Whether a unit is in Cohesion, the models out of it, and whether it takes Disorder."""
        unit = self.unit(unit_id)
        if not self.scene.models_of(unit.id):
            raise QueryError(f"unit {unit.id!r} has no models on the table")
        return self.report_unit(unit)

    def report_unit(self, unit: Unit) -> dict[str, Any]:
        out = self.out_of_cohesion(unit)
        return {"unit": unit.id, "coherent": not out, "out_of_cohesion": out, "disorder": bool(out)}

    def melee_entries(self) -> list[dict[str, Any]]:
        models = tuple(m for m in self.scene.models if m.x is not None)
        if not models:
            return []
        players = [self.scene.unit(m.unit).player for m in models]
        contacts = melee_contacts([m.id for m in models], players, self.distances(models, models))
        return [{"model": mid, "unit": self.unit_of[mid], "enemies": enemies}
                for mid, enemies in contacts.items()]

    @question("melee")
    def melee(self, unit: str | None = None) -> dict[str, Any]:
        """Models with an enemy model within 1\" (of one unit, or all)."""
        entries = self.melee_entries()
        if unit is not None:
            self.unit(unit)
            entries = [e for e in entries if e["unit"] == unit]
        return {"unit": unit, "in_melee": bool(entries), "melee": entries}

    def report_melee(self) -> list[dict[str, Any]]:
        return self.melee_entries()

    def weapon(self, unit: Unit, name: str | None = None) -> Weapon:
        """A unit's weapon by name (any case), or its first weapon with range bands."""
        ranged = [w for w in unit.weapons if w.bands]
        if name is None:
            if not ranged:
                raise QueryError(f"unit {unit.id!r} has no weapon with range bands")
            return ranged[0]
        for w in unit.weapons:
            if w.name.lower() == name.lower():
                if not w.bands:
                    raise QueryError(f"weapon {w.name!r} of unit {unit.id!r} has no range bands")
                return w
        known = ", ".join(repr(w.name) for w in unit.weapons) or "none"
        raise QueryError(f"unit {unit.id!r} has no weapon {name!r} (weapons: {known})")

    @question("band")
    def band(self, a: str, b: str, weapon: str | None = None) -> dict[str, Any]:
        """The range band of A's weapon (default: its first) at the distance from A to B."""
        shooters = self.models_for(a)
        w = self.weapon(self.unit(shooters[0].unit), weapon)
        d, _, _ = self.closest(shooters, self.models_for(b))
        return {"band": band_of(w.bands, d, self.nearer), "distance": inches(d), "weapon": w.name,
                "from": a, "to": b}

    @question("bands")
    def bands(self, a: str, weapon: str | None = None) -> dict[str, Any]:
        """The range bands the table shows for A: those of the named weapon, else of its first weapon
        with bands, measured from A's models; a boundary belongs to the band `band_edge` says."""
        shooters = self.models_for(a)
        unit = self.unit(shooters[0].unit)
        w = self.weapon(unit, weapon)
        ordered = sorted(w.bands.items(), key=lambda kv: (kv[1][0], kv[1][1]))
        return {"unit": unit.id, "weapon": w.name, "weapons": [x.name for x in unit.weapons if x.bands],
                "from": [m.id for m in shooters], "measure": self.method,
                "boundary": self.rulings["band_edge"],
                "bands": [{"band": name, "from": lo, "to": hi} for name, (lo, hi) in ordered]}

    def report_pairs(self, pairs: list[tuple[Unit, Unit]]) -> list[dict[str, Any]]:
        self._work_out_sights(pairs)
        answers = self.los_answers([self._canonical_sight(a, b) for a, b in pairs])
        return [{**self.report_pair(a, b), "los": los} for (a, b), los in zip(pairs, answers, strict=True)]

    def report_pair(self, shooter: Unit, target: Unit) -> dict[str, Any]:
        d = self._unit_distance(shooter, target)
        bands = {w.name: band_of(w.bands, d, self.nearer) for w in shooter.weapons if w.bands}
        return {"from": shooter.id, "to": target.id, "distance": inches(d), "los": None,
                "band": next(iter(bands.values()), None), "bands": bands}

    def _unit_distance(self, a: Unit, b: Unit) -> float:
        """As `closest` between the units' models, from one matrix of every model worked out once."""
        slot, matrix = self._unit_distances
        return float(matrix[slot[a.id], slot[b.id]])

    @cached_property
    def _unit_distances(self) -> tuple[dict[str, int], np.ndarray]:
        """Units on the table by slot, and the (units, units) matrix of their closest models' distance."""
        units = self.units_on_table
        models = tuple(m for u in units for m in self.members[u.id])
        starts = np.cumsum([0] + [len(self.members[u.id]) for u in units[:-1]])
        matrix = np.minimum.reduceat(np.minimum.reduceat(self.distances(models, models), starts, axis=0),
                                     starts, axis=1)
        return {u.id: k for k, u in enumerate(units)}, matrix

    # ------------------------------------------------------------ movement and orders

    def movement_of(self, unit: Unit) -> float:
        if "movement" not in unit.stats:
            raise QueryError(f"unit {unit.id!r} has no stats.movement")
        return finite(unit.stats["movement"], f"unit {unit.id!r} stats.movement")

    @question("move")
    def move(self, model_id: str, order: str, *points: str) -> dict[str, Any]:
        """Check a move: the model's centre from where it stands through the points given."""
        model = self.model(model_id)
        key = order_name(order)
        if not points:
            raise QueryError("usage: query SCENE move MODEL ORDER X1,Y1 [X2,Y2 ...]")
        path = [model.position, *(parse_point(p) for p in points)]
        limit = allowance(key, self.movement_of(self.unit(model.unit)))
        cost = self.ground.cost(path, self.move_outlines(model)[0])
        problems = []
        if cost.impassable:
            problems.append(f"the base crosses impassable terrain {', '.join(cost.impassable)}")
        if cost.total > limit + 1e-9:
            problems.append(f"the path costs {cost.total:.2f}\" but {key} allows {limit:g}\"")
        board = self.scene.board
        if not all(0 <= x <= board.width and 0 <= y <= board.height for x, y in path):
            problems.append("the path leaves the board")
        moved = replace(model, x=path[-1][0], y=path[-1][1])
        player = self.unit(model.unit).player
        enemies = [m.id for m in self.scene.models if m.x is not None
                   and self.unit(m.unit).player != player and self.measure(moved, m) <= MELEE_RANGE + 1e-9]
        if enemies and key != "charge":
            problems.append(f"it ends within 1\" of enemy {', '.join(enemies)}: only a Charge enters melee")
        return {"model": model.id, "order": key, "allowance": limit, "length": inches(cost.length),
                "difficult": inches(cost.difficult), "climb": inches(cost.climb), "cost": inches(cost.total),
                "climbed": list(cost.climbed), "melee": enemies, "legal": not problems, "problems": problems,
                "path": [list(p) for p in path]}

    @question("charge", by_distance=True)
    def charge(self, unit_id: str, target_id: str) -> dict[str, Any]:
        """Can a unit, on a Charge, bring a model within 1\" of a model of the target unit?"""
        unit, target = self.unit(unit_id), self.unit(target_id)
        if unit.player == target.player:
            raise QueryError(f"unit {target.id!r} is not an enemy of {unit.id!r}")
        chargers, targets = self.models_for(unit.id), self.models_for(target.id)
        limit = allowance("charge", self.movement_of(unit))
        found: list[dict[str, Any]] = []
        for m in chargers:
            goals = [(t.position, self.reach_radius(m, t)) for t in targets]
            reach = self.ground.reach(m.position, goals, *self.move_outlines(m), limit)
            found.append({"model": m.id, "reachable": reach is not None,
                          "cost": inches(reach.cost) if reach else None,
                          "path": [list(p) for p in reach.path] if reach else None})
        best = min((f for f in found if f["reachable"]), key=lambda f: f["cost"], default=None)
        return {"unit": unit.id, "target": target.id, "allowance": limit, "reachable": best is not None,
                "model": best["model"] if best else None, "cost": best["cost"] if best else None,
                "path": best["path"] if best else None, "models": found,
                "disorder_if_not": True}

    @property
    def nearer(self) -> bool:
        """The `band_edge` ruling: a distance on a shared band edge is in the nearer band."""
        return bool(self.rulings["band_edge"] == "nearer")

    def move_outlines(self, model: Model) -> tuple[np.ndarray, np.ndarray]:
        """The outline a moving base keeps clear of impassable terrain (centred on the origin), and a
        circumscribed one to steer round corners by (`move_base` ruling)."""
        reading = self.rulings["move_base"]
        base, heading = model.base, model.heading
        if reading == "disc":
            across = 2 * MM_PER_INCH * inner_radius(base)
            base, heading = Base("circle", across, across), 0.0
        return base_outline(base, heading), base_outline(base, heading, STEER_SIDES)

    def reach_radius(self, charger: Model, target: Model) -> float:
        """Centre distance at which the charger is in melee with the target under the measure ruling."""
        if self.method == "centre":
            return MELEE_RANGE
        return MELEE_RANGE + inner_radius(charger.base) + inner_radius(target.base)

    @question("firing_line")
    def firing_line(self, unit_id: str) -> dict[str, Any]:
        """Extra weapon-profile attacks a Firing Line order gives the unit."""
        unit = self.unit(unit_id)
        models = self.models_for(unit.id)
        toughness = finite(unit.stats.get("toughness", 1), f"unit {unit.id!r} stats.toughness")
        wounds = [finite(m.extra.get("wounds", toughness), f"model {m.id!r} wounds") for m in models]
        extra = firing_line(len(models), wounds, self.rulings["firing_line_models"])
        return {"unit": unit.id, "models": len(models), "extra_attacks": extra.total,
                "from": {"order": extra.base, "models": extra.for_models, "wounds": extra.for_wounds},
                "weapons": [w.name for w in unit.weapons], "movement": 0.0}

    # ------------------------------------------------------------ dice

    @question("roll")
    def roll_pool(self, pool: str, rerolls: str = "none", seed: int | None = None) -> dict[str, Any]:
        """Roll a pool such as 3d8+2d6 (5+ is a success); `failures` rerolls each failed die once."""
        dice_pool = Pool.parse(pool, DICE)
        if rerolls not in REROLLS:
            raise QueryError(f"rerolls {rerolls!r}: expected one of {', '.join(REROLLS)}")
        seed = random.SystemRandom().randrange(2**32) if seed is None else seed
        rng = random.Random(seed)
        dice = roll(dice_pool, rng)
        if rerolls == "failures":
            dice = reroll(dice, lambda d: d.sides != 3 and d.value < SUCCESS, rng)
        return {"pool": str(dice_pool), "seed": seed, "successes": successes(dice, SUCCESS),
                "total": sum(d.value for d in dice),
                "dice": [{"die": d.kind, "value": d.value, "success": d.sides != 3 and d.value >= SUCCESS,
                          "rerolled": d.rerolled} for d in dice]}

    @question("initiative")
    def initiative(self, seed: int | None = None) -> dict[str, Any]:
        """The 3d8 initiative roll-off and the order the initiative bags' tokens come out."""
        bags: dict[str, list[str]] = {}
        for unit in self.units_on_table:
            bags.setdefault(unit.player, []).append(str(unit.stats.get("type", unit.name or unit.id)))
        seed = random.SystemRandom().randrange(2**32) if seed is None else seed
        result = initiative(bags, random.Random(seed))
        return {"seed": seed, "rolls": [{p: list(v) for p, v in r.items()} for r in result.rounds],
                "winner": result.winner,
                "draws": [{"player": p, "type": t} for p, t in result.draws]}


def reverse(sight: Sight) -> Sight:
    """The same sight seen from the other end."""
    line = (sight.line[1], sight.line[0]) if sight.line is not None else None
    return Sight(sight.visible, line, (sight.pair[1], sight.pair[0]), sight.blocked_by)


def parse_point(text: str) -> Point2:
    """`X,Y` in inches -> (x, y), else a QueryError."""
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        x, y = float(parts[0]), float(parts[1])
    except ValueError:
        raise QueryError(f"path point {text!r}: expected X,Y in inches, like 12.5,30") from None
    if not (np.isfinite(x) and np.isfinite(y)):
        raise QueryError(f"path point {text!r}: expected finite numbers")
    return (x, y)


def _terrain_index(pieces: Sequence[Terrain]) -> ShapeIndex:
    return ShapeIndex([t.id for t in pieces], terrain_polygons(pieces))
