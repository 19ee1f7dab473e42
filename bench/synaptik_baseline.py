"""The plain way to answer Synaptik's `report`: shapely, one pair at a time, no index, no caching.

The bench times it against the engine, and a test checks both give the same answers. It shares only
pure helpers with the engine (candidate sight lines, cohesion and band rules), not the fast paths.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from shapely.geometry import LineString, MultiPoint, Point

from table.geometry import (
    centre_distance,
    core,
    footprint,
    outer_outline,
    terrain_polygon,
)
from table.rules.inch import inches
from table.rules.synaptik.los import Outline, candidate_segments, key_points
from table.rules.synaptik.units import MELEE_RANGE, band_of, cohesion
from table.scene import Model, Scene


def plain_report(scene: Scene, block_height: float = 2.0) -> dict[str, Any]:
    solid = [(t.id, terrain_polygon(t)) for t in scene.terrain
             if t.has("impassable") and t.height > block_height]
    blockers = [(tid, poly, core(poly)) for tid, poly in solid]
    covers = [(t, terrain_polygon(t)) for t in scene.terrain if t.has("light_cover") or t.has("heavy_cover")]
    units = [u for u in scene.units if scene.models_of(u.id)]
    order = {u.id: k for k, u in enumerate(scene.units)}
    report: dict[str, Any] = {"ruleset": "synaptik", "units": [], "pairs": [], "melee": [], "warnings": []}
    for unit in units:
        models = scene.models_of(unit.id)
        dist = np.array([[centre_distance(a, b) for b in models] for a in models])
        out = cohesion([m.id for m in models], dist)
        report["units"].append({"unit": unit.id, "coherent": not out, "out_of_cohesion": out,
                                "disorder": bool(out)})
    for shooter in units:
        for target in units:
            if shooter.player == target.player:
                continue
            a_models, b_models = scene.models_of(shooter.id), scene.models_of(target.id)
            d = min(centre_distance(a, b) for a in a_models for b in b_models)
            if order[shooter.id] < order[target.id]:
                sight = _sight(a_models, b_models, blockers)
            else:
                visible, line, pair, blocked_by = _sight(b_models, a_models, blockers)
                sight = (visible, line[::-1] if line else None, pair[::-1], blocked_by)
            bands = {w.name: band_of(w.bands, d) for w in shooter.weapons if w.bands}
            report["pairs"].append({"from": shooter.id, "to": target.id, "distance": inches(d),
                                    "los": _los(scene, sight, covers),
                                    "band": next(iter(bands.values()), None),
                                    "bands": bands})
    for m in scene.models:
        player = scene.unit(m.unit).player
        enemies = [o.id for o in scene.models
                   if scene.unit(o.unit).player != player and centre_distance(m, o) <= MELEE_RANGE + 1e-9]
        if enemies:
            report["melee"].append({"model": m.id, "unit": m.unit, "enemies": enemies})
    return report


def _sight(shooters, targets, blockers):
    pairs = sorted((centre_distance(a, b), i, j)
                   for i, a in enumerate(shooters) for j, b in enumerate(targets))
    first_blocked = None
    for _, i, j in pairs:
        a, b = shooters[i], targets[j]
        line = LineString([a.position, b.position])
        hits = tuple(tid for tid, _, c in blockers if line.intersects(c))
        if not hits:
            return True, (a.position, b.position), (a.id, b.id), ()
        first_blocked = first_blocked or ((a.id, b.id), hits)
    for _, i, j in pairs:
        line = _search(shooters[i], targets[j], blockers)
        if line is not None:
            return True, line, (shooters[i].id, targets[j].id), ()
    return False, None, first_blocked[0], first_blocked[1]


def _search(a: Model, b: Model, blockers):
    fa, fb = footprint(a), footprint(b)
    if fa.intersects(fb):
        p = fa.intersection(fb).representative_point()
        return ((p.x, p.y), (p.x, p.y))
    coarse = MultiPoint(np.vstack([outer_outline(a), outer_outline(b)])).convex_hull
    near = [(poly, c) for _, poly, c in blockers if c.intersects(coarse)]
    segments = candidate_segments(Outline.of(a), Outline.of(b),
                                  key_points(fa, fb, [poly for poly, _ in near], within=coarse))
    best = None
    for s in segments:
        line = LineString(s)
        if any(line.intersects(c) for _, c in near):
            continue
        length = math.hypot(*(s[1] - s[0]))
        if best is None or length < best[0]:
            best = (length, ((float(s[0, 0]), float(s[0, 1])), (float(s[1, 0]), float(s[1, 1]))))
    return best[1] if best else None


def _los(scene: Scene, sight, covers) -> dict[str, Any]:
    visible, line, pair, blocked_by = sight
    answer: dict[str, Any] = {"visible": visible, "cover": {"light": 0, "heavy": 0},
                              "blocked_by": list(blocked_by),
                              "line": None, "models": list(pair), "cover_dice": 0, "cover_from": []}
    if not visible:
        return answer
    shooter, target = scene.model(pair[0]), scene.model(pair[1])
    centre = LineString([shooter.position, target.position])
    light: list[str] = []
    heavy: list[str] = []
    others: list[str] = []
    for piece, poly in covers:
        if centre.intersects(core(poly)) and not poly.covers(Point(shooter.position)):
            (heavy if piece.has("heavy_cover") else light).append(piece.id)
    for m in scene.models:
        if m.unit in (shooter.unit, target.unit) or m.unit in others:
            continue
        if centre.intersects(core(footprint(m))):
            others.append(m.unit)
    answer.update(cover={"light": len(light) + len(others), "heavy": len(heavy)},
                  line=[list(p) for p in line], cover_dice=len(light) + len(others) + 2 * len(heavy),
                  cover_from=[*light, *heavy, *others])
    return answer
