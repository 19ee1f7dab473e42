"""Age of Tyrants: nearest-edge measuring, four range bands, centre-line LOS, arcs, target priority,
deployment, the bombard template, smoke, R&R and movement (docs/rules/age-of-tyrants.md).

Orders, attack and bombard resolution and victory live in `orders`; LOS in `los`.
"""

from __future__ import annotations

import math
from typing import Any

from shapely.geometry import Point

from table.errors import QueryError
from table.geometry import footprint, heading_vector
from table.rules.age_of_tyrants.army import UNIT_PROFILE
from table.rules.age_of_tyrants.base import POINT, parse_point
from table.rules.age_of_tyrants.dice import ATTACK
from table.rules.age_of_tyrants.los import SMOKE_RADIUS
from table.rules.age_of_tyrants.movement import Other, plan
from table.rules.age_of_tyrants.orders import MIN_BOMBARD, TEMPLATE_RADIUS
from table.rules.age_of_tyrants.profile import (
    BANDS,
    EPS,
    band_of,
    flag,
    in_play,
    locomotion,
    move_rate,
    number,
    on_table,
    profiles,
    role,
    specials,
    stat,
)
from table.rules.age_of_tyrants.report import BatchReport
from table.rules.age_of_tyrants.transport import Transports
from table.rules.base import question, register
from table.rules.declarations import Deployment
from table.rules.profiles import TerrainKinds
from table.scene import Model, Unit

DEPLOY_DEPTH = 6.0
RR_DISTANCE = 6.0
SMOKE_RANGE = 8.0
EDGES = {"top": "top", "north": "top", "bottom": "bottom", "south": "bottom",
         "left": "left", "west": "left", "right": "right", "east": "right"}


@register
class AgeOfTyrants(Transports, BatchReport):
    name = "age_of_tyrants"
    aliases = ("aot",)
    title = "Age of Tyrants"
    extra_scene_keys = {
        "scene": frozenset({"smoke", "deployment", "started"}),
        "weapon": frozenset({"ap", "am", "s", "special", "arc", "indirect"}),
        # a base's own state, and any card value (stats) that one base holds differently from its unit
        "model": frozenset({"aboard", "destroyed", "wreckage", "activated", "vulnerable", "dismounted",
                            "smoke_used", "sp", "attack_bonus", "bombard", "command", "company", "platoon",
                            "leader", "locomotion", "move", "movement", "role", "special", "sr",
                            "troop_carrier"}),
    }
    rulings_page = "docs/rules/age-of-tyrants.md"
    rule_text = "age-of-tyrants-beta.txt"
    phases = (("deployment", None), ("initiative", None), ("orders", "alternate"), ("end of turn", None))
    dice = (ATTACK,)
    pairwise_bands = True
    deployment = Deployment("edge", DEPLOY_DEPTH)
    unit_profile = UNIT_PROFILE
    terrain_kinds = TerrainKinds(traits=("concealment", "defensible", "difficult", "elevated", "flat",
                                         "impassable", "road", "shelter", "wreckage"))
    scenario_keys = frozenset({"deployment"})

    def check_unit(self, unit_id: str) -> None:
        """Each base's card as the questions read it: size, move, role, locomotion, special rules, AP/AM/S."""
        unit = self.unit(unit_id)
        for m in self.scene.models_of(unit.id):
            number(self.scene, m, "size", 1)
            move_rate(self.scene, m)
            role(self.scene, m)
            locomotion(self.scene, m)
            specials(self.scene, m)
            profiles(self.scene, m)

    def shows_template(self, unit: Unit) -> bool:
        """A unit that bombards drops the template over its target."""
        return "bombard" in unit.stats

    # ------------------------------------------------------------ questions

    @question("distance")
    def distance(self, a: str, b: str) -> dict[str, Any]:
        """Nearest edge to nearest edge; for a unit, its closest base."""
        _, _, d = self.closest_bases(a, b)
        return {"from": a, "to": b, "distance": round(d, 4), "method": self.method}

    @question("los", margin="visible")
    def los(self, a: str, b: str) -> dict[str, Any]:
        """Centre-line LOS; between units, the closest pair of bases that see each other."""
        pairs = sorted(((ma, mb) for ma in self.bases(a) for mb in self.bases(b) if ma.id != mb.id),
                       key=lambda p: (self.gap(*p), p[0].id, p[1].id))
        if not pairs:
            raise QueryError(f"{a!r} and {b!r} name the same base")
        sights = (self.los_between(ma, mb) for ma, mb in pairs)
        first = None
        for sight in sights:
            first = first or sight
            if sight.visible:
                return {"from": sight.viewer, "to": sight.target, **sight.to_dict()}
        assert first is not None
        return {"from": first.viewer, "to": first.target, **first.to_dict()}

    @question("band")
    def band(self, a: str, b: str, weapon: str | None = None) -> dict[str, Any]:
        """The range band of the closest distance, with a weapon's AP/AM/S in it."""
        ma, _, d = self.closest_bases(a, b)
        band = band_of(d)
        answer: dict[str, Any] = {"band": band, "distance": round(d, 4)}
        if weapon is not None:
            prof = self.profile(ma, weapon)
            answer.update({"weapon": prof.name, "ap": prof.value("ap", band), "am": prof.value("am", band),
                           "s": prof.value("s", band)})
        return answer

    @question("bands")
    def bands(self, a: str, weapon: str | None = None) -> dict[str, Any]:
        """The range bands the table shows for A, measured from its bases (the same for every
        weapon; a named weapon must be one of its profiles), distances rounded to `round_to`; a
        boundary belongs to the nearer band."""
        bases = self.bases(a)
        names = [p.name for p in self.profiles_of(bases[0])]
        if weapon is not None:
            weapon = self.profile(bases[0], weapon).name
        lows = (0.0, *(upper for _, upper in BANDS[:-1]))
        bands = [{"band": name, "from": lo, "to": hi} for (name, hi), lo in zip(BANDS, lows, strict=True)]
        return {"unit": bases[0].unit, "weapon": weapon if weapon is not None else next(iter(names), None),
                "weapons": names, "from": [m.id for m in bases], "measure": self.method, "boundary": "nearer",
                "round_to": self.rulings["round_to"], "bands": bands}

    @question("arc")
    def arc(self, a: str, b: str) -> dict[str, Any]:
        """Whether B lies in A's 180-degree front arc (360 with the special rule)."""
        ma, mb = self.base(a), self.base(b)
        hx, hy = heading_vector(ma.heading)
        dx, dy = mb.position[0] - ma.position[0], mb.position[1] - ma.position[1]
        angle = math.degrees(math.atan2(hx * dy - hy * dx, hx * dx + hy * dy)) if (dx or dy) else 0.0
        all_round = self.all_round(ma)
        front = self.in_arc(ma, mb)
        return {"from": ma.id, "to": mb.id, "angle": round(angle, 3), "in_front_arc": front,
                "arc": 360 if all_round else 180, "in_arc": all_round or front}

    @question("template")
    def template(self, at: str, frm: str | None = None) -> dict[str, Any]:
        """The large circular template (3" radius) over a base's centre or X,Y: every base it touches."""
        target = None if POINT.match(at) else self.base(at)
        centre = target.position if target else parse_point(at)
        disc = Point(centre)
        touched = [m.id for m in self.fighting() if footprint(m).distance(disc) <= TEMPLATE_RADIUS + EPS]
        answer: dict[str, Any] = {"centre": list(centre), "radius": TEMPLATE_RADIUS, "touched": touched}
        if frm is not None:
            if target is None:
                raise QueryError("template X,Y FROM: the 9\" minimum is measured to a target base, "
                                 "not to a point")
            rows = [{"model": m.id, "distance": round(self.gap(m, target), 4),
                     "far_enough": self.gap(m, target) >= MIN_BOMBARD - EPS} for m in self.bases(frm)]
            answer["from"] = rows
            answer["far_enough"] = all(r["far_enough"] for r in rows)
        return answer

    @question("deploy")
    def deploy(self, ident: str, where: str | None = None) -> dict[str, Any]:
        """Whether bases stand in a deployment zone: within 6" of a table edge, off impassable terrain."""
        rows = [self._deploy_row(m, self._edge(m, where)) for m in self.bases(ident)]
        return {"bases": rows, "deployed": all(r["in_zone"] for r in rows)}

    def _edge(self, model: Model, where: str | None) -> str:
        zones = self.scene.extra.get("deployment", {})
        if where is None:
            where = zones.get(self.player(model)) if isinstance(zones, dict) else None
            if where is None:
                raise QueryError(f"no deployment edge for player {self.player(model)!r}: give an edge "
                                 f"(top, bottom, left, right) or a scene \"deployment\" entry")
        elif isinstance(zones, dict) and where in zones:
            where = zones[where]
        if str(where).lower() not in EDGES:
            raise QueryError(f"unknown table edge {where!r} (expected top, bottom, left or right)")
        return EDGES[str(where).lower()]

    def _deploy_row(self, model: Model, edge: str) -> dict[str, Any]:
        minx, miny, maxx, maxy = footprint(model).bounds
        w, h = self.scene.board.width, self.scene.board.height
        near = {"top": miny, "bottom": h - maxy, "left": minx, "right": w - maxx}[edge]
        far = {"top": maxy, "bottom": h - miny, "left": maxx, "right": w - minx}[edge]
        reach = far if self.rulings["deploy_whole_base"] else near
        on_board = minx >= -EPS and miny >= -EPS and maxx <= w + EPS and maxy <= h + EPS
        shape = footprint(model)
        impassable = [p.id for p in self.pieces if p.impassable and shape.intersection(p.shape).area > EPS]
        in_zone = on_board and reach <= DEPLOY_DEPTH + EPS and not impassable
        return {"model": model.id, "edge": edge, "depth": round(reach, 4), "on_board": on_board,
                "on_impassable": impassable, "in_zone": in_zone}

    @question("smoke")
    def pop_smoke(self, model: str, at: str) -> dict[str, Any]:
        """Placing a Lieutenant's smoke counter: within 8" and in the front 180 degrees of its base."""
        lt = self.base(model)
        point = parse_point(at)
        distance = self.rounded(footprint(lt).distance(Point(point)))
        hx, hy = heading_vector(lt.heading)
        in_front = (point[0] - lt.position[0]) * hx + (point[1] - lt.position[1]) * hy >= -EPS
        kind = str(stat(self.scene, lt, "leader", "lieutenant")).lower()
        lieutenant = number(self.scene, lt, "command", 0) > 0 and kind == "lieutenant"
        problems = [text for ok, text in ((lieutenant, "only a Lieutenant carries smoke"),
                                          (distance <= SMOKE_RANGE + EPS, "more than 8\" from the base"),
                                          (in_front, "behind the base's front 180 degrees"),
                                          (not flag(self.scene, lt, "smoke_used"), "smoke already used"))
                    if not ok]
        covered = [m.id for m in self.fighting() if math.dist(m.position, point) <= SMOKE_RADIUS + EPS]
        return {"model": lt.id, "at": list(point), "distance": round(distance, 4), "in_front": in_front,
                "allowed": not problems, "problems": problems, "conceals": covered}

    @question("rr")
    def rest(self, ident: str) -> dict[str, Any]:
        """R&R: a base out of every enemy's LOS and at least 6" from every enemy base."""
        rows = []
        for m in self.bases(ident):
            enemies = self.enemies(m)
            seen_by = [e.id for e in enemies if self.los_between(e, m).visible]
            near = min(((self.gap(m, e), e.id) for e in enemies), default=(math.inf, None))
            far_enough = near[0] >= RR_DISTANCE - EPS
            rows.append({"model": m.id, "seen_by": seen_by, "nearest_enemy": near[1],
                         "nearest_distance": None if near[1] is None else round(near[0], 4),
                         "far_enough": far_enough, "sp": self.sp(m),
                         "eligible": far_enough and not seen_by})
        return {"bases": rows}

    @question("move")
    def move(self, model: str, *waypoints: str) -> dict[str, Any]:
        """Cost of a move along waypoints X,Y ... by locomotion; end with `double` for At the Double."""
        m = self.base(model)
        points = list(waypoints)
        double = bool(points) and points[-1].lower() == "double"
        if double:
            points.pop()
        if not points:
            raise QueryError("usage: query SCENE move MODEL X,Y [X,Y ...] [double]")
        path = [m.position] + [parse_point(p) for p in points]
        how = locomotion(self.scene, m)
        if double and how == "jump":
            raise QueryError(f"model {m.id!r} moves by jump: jump bases cannot receive At the Double orders")
        allowed = self.rounded(move_rate(self.scene, m)) * (2 if double else 1)
        side, vehicle = self.player(m), role(self.scene, m) == "materiel"
        others = [Other(o.id, footprint(o), self.player(o) != side, role(self.scene, o) == "materiel",
                        bool(o.extra.get("wreckage")))
                  for o in self.scene.models if on_table(o) and o.id != m.id]
        result = plan(m, path, how, allowed, self.pieces, others, vehicle, self.scene.board,
                      self.rulings["straddle_facing"])
        return {"model": m.id, "locomotion": how, "double": double,
                "path": [list(p) for p in path], **result.to_dict()}

    def report_unit(self, unit: Unit) -> dict[str, Any]:
        """A unit's bases: how many it has, how many still fight, and each standing base's SP."""
        models = self.scene.models_of(unit.id)
        return {"unit": unit.id, "player": unit.player, "bases": len(models),
                "in_play": sum(in_play(m) for m in models),
                "suppression": {m.id: self.sp(m) for m in models if on_table(m) and in_play(m)}}

    def report_pair(self, shooter: Unit, target: Unit) -> dict[str, Any]:
        """Closest distance, LOS (the closest pair of bases that see each other) and band."""
        d = self.distance(shooter.id, target.id)["distance"]
        return {"from": shooter.id, "to": target.id, "distance": d, "los": self.los(shooter.id, target.id),
                "band": band_of(d)}

    def report_warnings(self) -> list[str]:
        warnings = super().report_warnings()
        for m in self.fighting():
            held = self.sight.holding(m.position)
            warnings += [f"base {m.id!r} stands on impassable terrain {p.id!r}" for p in held if p.impassable]
            if self.sp(m) > 2:
                warnings.append(f"base {m.id!r} has {self.sp(m)} SP: beyond 2 it is destroyed")
        return warnings
