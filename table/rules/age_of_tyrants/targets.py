"""Age of Tyrants target priority: which enemy bases a base can hit, and which one it must attack.

"Attack the closest enemy base (within range, LOS and fire arc) for which you have the best score":
the score is the attacker's AP against personnel or AM against materiel in the band the target is
in; the best score wins, then the closest. Camouflage takes bases out of the choice.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from table.errors import QueryError
from table.rules.age_of_tyrants.base import AotBase
from table.rules.age_of_tyrants.profile import ALL_ROUND, Profile, band_of, profiles, role, specials
from table.rules.base import question
from table.scene import Model


@dataclass(frozen=True)
class Shot:
    """One base's chance at one enemy base; `reason` says why it cannot take it (None: it can)."""

    attacker: str
    target: str
    distance: float
    band: str
    against: str  # "ap" (personnel) or "am" (materiel)
    score: float
    weapon: str | None
    visible: bool
    in_arc: bool
    spotter: str | None = None
    reason: str | None = None

    @property
    def eligible(self) -> bool:
        return self.reason is None

    def to_dict(self) -> dict[str, Any]:
        out = {"model": self.target, "distance": round(self.distance, 4), "band": self.band,
               "against": self.against, "score": self.score, "weapon": self.weapon,
               "visible": self.visible, "in_arc": self.in_arc}
        if self.spotter is not None:
            out["spotter"] = self.spotter
        if self.reason is not None:
            out["reason"] = self.reason
        return out


class Targeting(AotBase):
    """Who can hit whom (range band value, LOS or indirect fire with a spotter, arc) and target priority."""

    def profiles_of(self, model: Model) -> list[Profile]:
        return profiles(self.scene, model)

    def profile(self, model: Model, weapon: str) -> Profile:
        found = self.profiles_of(model)
        for prof in found:
            if prof.name == weapon:
                return prof
        names = ", ".join(p.name for p in found) or "none"
        raise QueryError(f"base {model.id!r} has no weapon {weapon!r} with combat values (it has: {names})")

    def all_round(self, model: Model) -> bool:
        if specials(self.scene, model) & ALL_ROUND:
            return True
        return any(p.all_round for p in self.profiles_of(model))

    def spotter(self, model: Model, target: Model) -> str | None:
        """A friendly base (the attacker first) with LOS to the target, for indirect fire."""
        side = self.player(model)
        friends = [model] + [m for m in self.fighting() if self.player(m) == side and m.id != model.id]
        return next((m.id for m in friends if self.los_between(m, target).visible), None)

    def shot(self, attacker: Model, target: Model, kind: str = "") -> Shot:
        """Can `attacker` hit `target`, with which weapon and score (kind: 'ap', 'am' or 's')."""
        distance = self.gap(attacker, target)
        band = band_of(distance)
        against = kind or ("ap" if role(self.scene, target) == "personnel" else "am")
        visible = self.los_between(attacker, target).visible
        front = self.in_arc(attacker, target)
        options = []
        for prof in self.profiles_of(attacker):
            value = prof.value(against, band) if band != "out_of_range" else 0.0
            arc_ok = prof.all_round or front
            spotter = None if visible or not prof.indirect else self.spotter(attacker, target)
            ok = value > 0 and arc_ok and (visible or spotter is not None)
            options.append((ok, value, arc_ok, prof, spotter))
        if not options:
            return Shot(attacker.id, target.id, distance, band, against, 0.0, None, visible, front,
                        reason="the base has no AP/AM/S values")
        ok, value, arc_ok, prof, spotter = max(options, key=lambda o: (o[0], o[1]))
        reason = None
        if band == "out_of_range":
            reason = "out of range (more than 48\")"
        elif value <= 0:
            reason = f"{against.upper()} is 0 at {band} range"
        elif not arc_ok:
            reason = "outside the 180-degree front arc"
        elif not ok:
            reason = "no line of sight"
        return Shot(attacker.id, target.id, distance, band, against, value, prof.name, visible, arc_ok,
                    spotter, reason)

    def camouflaged(self, model: Model) -> bool:
        return "camouflage" in specials(self.scene, model)

    def concealed_in_terrain(self, model: Model) -> bool:
        return bool(self.sight.holding(model.position, "concealment"))

    def priority(self, attacker: Model) -> tuple[Shot | None, list[Shot]]:
        """Every enemy base with its shot, best first; the first eligible one is the target."""
        shots = [self.shot(attacker, enemy) for enemy in self.enemies(attacker)]
        shots = [s if not (s.eligible and self._camo_hidden(s)) else
                 _refuse(s, "camouflaged in concealing terrain") for s in shots]
        plain = any(s.eligible and not self.camouflaged(self.model(s.target)) for s in shots)
        if plain:
            shots = [_refuse(s, "camouflaged, and other targets are in range and LOS")
                     if s.eligible and self.camouflaged(self.model(s.target)) else s for s in shots]
        shots.sort(key=lambda s: (not s.eligible, -s.score, s.distance, s.target))
        chosen = shots[0] if shots and shots[0].eligible else None
        return chosen, shots

    def _camo_hidden(self, shot: Shot) -> bool:
        target = self.model(shot.target)
        return self.camouflaged(target) and self.concealed_in_terrain(target)

    @question("targets")
    def targets(self, ident: str) -> dict[str, Any]:
        """For each base of a unit: the enemy bases it can attack, best first, and its priority target."""
        rows = []
        for m in self.bases(ident):
            chosen, shots = self.priority(m)
            rows.append({"model": m.id, "target": chosen.target if chosen else None,
                         "candidates": [s.to_dict() for s in shots if s.eligible],
                         "excluded": [s.to_dict() for s in shots if not s.eligible]})
        return {"unit": ident, "bases": rows}


def _refuse(shot: Shot, reason: str) -> Shot:
    return replace(shot, reason=reason)
