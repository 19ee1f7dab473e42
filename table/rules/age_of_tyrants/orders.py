"""Age of Tyrants orders: command point costs, attack and bombard resolution (seeded dice), victory."""

from __future__ import annotations

from typing import Any, TypedDict

from shapely.geometry import Point

from table.errors import QueryError
from table.geometry import footprint
from table.rules.age_of_tyrants import combat
from table.rules.age_of_tyrants.profile import EPS, flag, in_play, number, on_table, role, specials, stat
from table.rules.age_of_tyrants.targets import Targeting
from table.rules.base import question
from table.scene import Model


class Modifier(TypedDict):
    """One modifier of an attack or a defence, as an answer lists it."""

    rule: str
    value: float

MIN_BOMBARD = 9.0
TEMPLATE_RADIUS = 3.0
DISMOUNT_RANGE = 4.0


class AotOrders(Targeting):
    """Questions that spend command points or roll dice."""

    # ------------------------------------------------------------ helpers

    def _distinct(self, idents: tuple[str, ...], aboard: bool = False) -> list[Model]:
        """One base per id, none twice (`aboard`: bases inside transports count too)."""
        models = [self._aboard(i) if aboard else self.base(i) for i in idents]
        ids = [m.id for m in models]
        if len(set(ids)) != len(ids):
            raise QueryError(f"a base is named twice: {', '.join(ids)}")
        return models

    def _aboard(self, ident: str) -> Model:
        models = [m for m in self.models_for(ident) if on_table(m) or m.extra.get("aboard")]
        if len(models) != 1:
            raise QueryError(f"{ident!r} names {len(models)} bases in play: name one base")
        return models[0]

    def _enemy_of(self, attacker: Model, target: Model) -> None:
        if self.player(attacker) == self.player(target):
            raise QueryError(f"{target.id!r} is not an enemy of {attacker.id!r}")
        if not in_play(target):
            raise QueryError(f"{target.id!r} is wreckage, not a target")

    def _in_terrain(self, model: Model, trait: str) -> bool:
        return bool(self.sight.holding(model.position, trait))

    def _spomm(self, model: Model) -> bool:
        return "spomm" in specials(self.scene, model)

    def _fate(self, model: Model, damage: combat.Damage) -> str | None:
        """What happens to a destroyed base: infantry leave the table, vehicles become wreckage."""
        if not damage.destroyed:
            return None
        return "wreckage" if role(self.scene, model) == "materiel" else "removed"

    # ------------------------------------------------------------ attack

    @question("attack")
    def attack(self, attacker: str, target: str, *support: str, seed: int | None = None) -> dict[str, Any]:
        """Resolve an attack: 1d6 + AP/AM + modifiers against 1d6 + SR (+1 Defender in defensible terrain)."""
        att, tgt = self.base(attacker), self.base(target)
        self._enemy_of(att, tgt)
        helpers = self._distinct(support)
        chosen, shots = self.priority(att)
        shot = next(s for s in shots if s.target == tgt.id)
        answer: dict[str, Any] = {"attacker": att.id, "target": tgt.id, "distance": round(shot.distance, 4),
                                  "band": shot.band, "weapon": shot.weapon}
        if not shot.eligible:
            return {**answer, "allowed": False, "reason": shot.reason}
        warnings = []
        if chosen is not None and chosen.target != tgt.id:
            warnings.append(f"target priority: {chosen.target!r} is the closest enemy base with the best "
                            f"score ({chosen.against.upper()} {chosen.score:g})")
        mods: list[Modifier] = []
        refused = []
        for helper in helpers:
            if helper.id == att.id or self.player(helper) != self.player(att):
                raise QueryError(f"{helper.id!r} cannot support {att.id!r}: not another friendly base")
            backing = self.shot(helper, tgt, "s")
            if backing.eligible:
                mods.append({"rule": f"support {helper.id}", "value": backing.score})
            else:
                refused.append({"model": helper.id, "reason": backing.reason})
        if flag(self.scene, tgt, "vulnerable"):
            mods.append({"rule": "target vulnerable", "value": combat.VULNERABLE_ATTACK})
        if self.on_elevated(att):
            mods.append({"rule": "elevated position", "value": combat.ELEVATED_ATTACK})
        if flag(self.scene, att, "dismounted"):
            close = shot.distance <= DISMOUNT_RANGE + EPS
            mods.append({"rule": "after dismounting",
                         "value": combat.DISMOUNT_CLOSE if close else combat.DISMOUNT_FAR})
        bonus = number(self.scene, att, "attack_bonus", 0)
        if bonus:
            mods.append({"rule": "special rule", "value": bonus})
        defence: list[Modifier] = []
        if "defender" in specials(self.scene, tgt) and self._in_terrain(tgt, "defensible"):
            defence.append({"rule": "defender in defensible terrain", "value": combat.DEFENDER_SR})
        dice = combat.Dice(seed)
        a_roll, d_roll = dice.d6(), dice.d6()
        sr = number(self.scene, tgt, "sr", 0)
        a_total = a_roll + shot.score + sum(m["value"] for m in mods)
        d_total = d_roll + sr + sum(m["value"] for m in defence)
        damage = combat.attack_damage(a_total - d_total, self.sp(tgt))
        return {**answer, "allowed": True, "seed": seed,
                "attack": {"roll": a_roll, "value": shot.score, "against": shot.against, "modifiers": mods,
                           "total": a_total},
                "defence": {"roll": d_roll, "sr": sr, "modifiers": defence, "total": d_total},
                "margin": a_total - d_total, "outcome": {**damage.to_dict(), "fate": self._fate(tgt, damage)},
                "support_refused": refused, "warnings": warnings}

    # ------------------------------------------------------------ bombard

    @question("bombard")
    def bombard(self, target: str, *bombarders: str, seed: int | None = None) -> dict[str, Any]:
        """Bombard: bases >= 9" away that can hit the target; the 3" template over its centre; per base
        under it 1d6 + total bombard - (1d6 + SR + shelter/cover/camouflage) + 1 if vulnerable."""
        tgt = self.base(target)
        if not bombarders:
            raise QueryError("usage: query SCENE bombard TARGET BOMBARDER [BOMBARDER ...]")
        order = self._distinct(bombarders)
        for m in order:
            self._enemy_of(m, tgt)
        sees = [m.id for m in order if self.los_between(m, tgt).visible]
        rows, problems, total = [], [], 0.0
        for m in order:
            value = number(self.scene, m, "bombard", 0)
            distance = self.gap(m, tgt)
            rows.append({"model": m.id, "bombard": value, "distance": round(distance, 4),
                         "role": "bombard" if value > 0 else "spotter"})
            if value <= 0:
                continue
            total += value
            if distance < MIN_BOMBARD - EPS:
                problems.append(f"{m.id!r} is {distance:.2f}\" from the target: bombarding bases must be "
                                f"at least 9\" away")
            problems += self._bombard_reach(m, tgt, sees)
            if self.camouflaged(tgt):
                plain = [s.target for s in self.priority(m)[1]
                         if s.eligible and not self.camouflaged(self.model(s.target))]
                if plain:
                    problems.append(f"{tgt.id!r} has Camouflage and {m.id!r} has other targets in range and "
                                    f"LOS ({', '.join(plain)})")
        answer: dict[str, Any] = {"target": tgt.id, "bases": rows, "spotted_by": sees, "bombard": total}
        if total <= 0:
            problems.append("no base in the order has a Bombard value")
        if problems:
            return {**answer, "allowed": False, "problems": problems}
        dice = combat.Dice(seed)
        centre = Point(tgt.position)
        hits = [self._bombard_one(m, total, dice) for m in self.fighting()
                if footprint(m).distance(centre) <= TEMPLATE_RADIUS + EPS]
        return {**answer, "allowed": True, "seed": seed, "template": {"centre": list(tgt.position),
                                                                      "radius": TEMPLATE_RADIUS},
                "results": hits}

    def _bombard_reach(self, m: Model, tgt: Model, sees: list[str]) -> list[str]:
        """Why a bombarding base cannot hit the target by the normal rules (indirect fire: a spotter)."""
        if not self.profiles_of(m):
            arc_ok = self.all_round(m) or self.in_arc(m, tgt)
            los_ok = m.id in sees
            return [text for ok, text in ((arc_ok, f"{m.id!r}: target outside its front arc"),
                                          (los_ok, f"{m.id!r}: no line of sight")) if not ok]
        shot = self.shot(m, tgt)
        if shot.eligible and (shot.visible or (shot.spotter is not None and sees)):
            return []
        if shot.eligible or shot.reason == "no line of sight":
            return [f"{m.id!r}: no base in the order has line of sight to the target"]
        return [f"{m.id!r}: {shot.reason}"]

    def _bombard_one(self, m: Model, total: float, dice: combat.Dice) -> dict[str, Any]:
        attack_roll, defence_roll = dice.d6(), dice.d6()
        sr = number(self.scene, m, "sr", 0)
        mods: list[Modifier] = []
        if self._in_terrain(m, "shelter"):
            mods.append({"rule": "shelter", "value": combat.SHELTER_SR})
        activated = flag(self.scene, m, "activated")
        took_cover = "cover" in specials(self.scene, m) and not activated and self.rulings["take_cover"]
        if took_cover:
            mods.append({"rule": "took cover", "value": combat.COVER_SR})
        if "camouflage" in specials(self.scene, m) and self._in_terrain(m, "concealment"):
            mods.append({"rule": "camouflage in concealing terrain", "value": combat.CAMOUFLAGE_SR})
        vulnerable = combat.VULNERABLE_BOMBARD if flag(self.scene, m, "vulnerable") else 0
        result = attack_roll + total - (defence_roll + sr + sum(x["value"] for x in mods)) + vulnerable
        damage = combat.bombard_damage(result, self.sp(m), activated or bool(took_cover))
        return {"model": m.id, "player": self.player(m), "attack_roll": attack_roll,
                "defence_roll": defence_roll,
                "sr": sr, "modifiers": mods, "vulnerable": bool(vulnerable), "total": result,
                "took_cover": bool(took_cover), **damage.to_dict(), "fate": self._fate(m, damage)}

    # ------------------------------------------------------------ command points

    @question("orders")
    def orders(self, leader: str, *bases: str) -> dict[str, Any]:
        """Command points a leader spends to give each named base an order."""
        lead = self.base(leader)
        command = int(number(self.scene, lead, "command", 0))
        if command <= 0:
            raise QueryError(f"{lead.id!r} is not a leader (no command value)")
        kind = str(stat(self.scene, lead, "leader", "lieutenant")).lower()
        if kind not in ("lieutenant", "captain"):
            raise QueryError(f"{lead.id!r}: leader must be lieutenant or captain, got {kind!r}")
        points = combat.command_points(command, self.sp(lead), self._spomm(lead))
        rows, total = [], 0
        for m in self._distinct(bases, aboard=True):
            if self.player(m) != self.player(lead):
                raise QueryError(f"{m.id!r} is an enemy base: {lead.id!r} cannot order it")
            relation = self._relation(lead, kind, m)
            cost = combat.order_cost(relation, self.sp(m), self._spomm(m))
            problems = []
            if relation == "other_unit" and self.rulings["strict_chain_of_command"]:
                problems.append(f"a {kind} may only order bases of its own "
                                f"{'platoon' if kind == 'lieutenant' else 'company'}")
            if flag(self.scene, m, "activated"):
                problems.append("already has an activation counter")
            total += cost
            rows.append({"model": m.id, "relation": relation, "sp": self.sp(m), "cost": cost,
                         "allowed": not problems, "problems": problems})
        return {"leader": lead.id, "leader_type": kind, "command_points": points, "orders": rows,
                "total": total, "affordable": total <= points and all(r["allowed"] for r in rows)}

    def _relation(self, lead: Model, kind: str, m: Model) -> str:
        if m.id == lead.id:
            return "self"
        if m.extra.get("aboard"):
            return "aboard_transport"
        if kind == "captain":
            same = stat(self.scene, m, "company", self.player(m)) == stat(self.scene, lead, "company",
                                                                          self.player(lead))
        else:
            same = stat(self.scene, m, "platoon", m.unit) == stat(self.scene, lead, "platoon", lead.unit)
        return "own_unit" if same else "other_unit"

    # ------------------------------------------------------------ victory

    @question("victory")
    def victory(self) -> dict[str, Any]:
        """The battle ends when a side has fewer than 50% of the bases it started with left in play."""
        started = self.scene.extra.get("started", {})
        if not isinstance(started, dict):
            raise QueryError("scene started: expected an object of player -> number of bases")
        rows = []
        for player in sorted({u.player for u in self.scene.units}):
            models = [m for m in self.scene.models if self.player(m) == player]
            start = started.get(player, len(models))
            if isinstance(start, bool) or not isinstance(start, int) or start < 0:
                raise QueryError(f"scene started.{player}: expected a whole number of bases, got {start!r}")
            remaining = sum(in_play(m) for m in models)
            rows.append({"player": player, "started": start, "remaining": remaining,
                         "beaten": combat.battle_over(start, remaining, self.rulings["victory_at_half"])})
        standing = [r["player"] for r in rows if not r["beaten"]]
        over = any(r["beaten"] for r in rows)
        winner = standing[0] if over and len(standing) == 1 else None
        return {"players": rows, "over": over, "winner": winner, "draw": over and not standing}
