"""The plain way to answer Age of Tyrants' report pairs: shapely, one pair at a time, no index, no cache.

The bench times it against the engine, and a test checks both give the same answers. It shares only
the geometry helpers and the band table with the engine, not the LOS code. Per unit pair it tries the
pairs of bases closest first and stops at the first that sees (as a player would).
"""

from __future__ import annotations

from typing import Any

from shapely.geometry import LineString, Point
from shapely.geometry.base import BaseGeometry

from table.geometry import core, edge_distance, footprint, terrain_polygon
from table.rules.age_of_tyrants.profile import band_of
from table.scene import Model, Scene

SHADOW = 4.0


def _live(m: Model) -> bool:
    return not m.extra.get("destroyed") and not m.extra.get("aboard")


def plain_los(scene: Scene, viewer: Model, target: Model, size: dict[str, float]) -> tuple[bool, list[str]]:
    """(visible, blocked_by ids) by the default rulings, straight from the rulings page."""
    line = LineString([viewer.position, target.position])
    fa, fb = footprint(viewer), footprint(target)
    between = line.difference(fa).difference(fb)
    pa, pb = Point(viewer.position), Point(target.position)
    pieces = [(t, terrain_polygon(t)) for t in scene.terrain]
    on_hill = any(poly.covers(pa) and t.has("elevated") for t, poly in pieces)
    blockers = []  # (id, shape, is_base)
    for t, poly in pieces:
        if t.has("flat") or poly.covers(pa) or poly.covers(pb):
            continue
        if not between.is_empty and between.intersects(core(poly)):
            blockers.append((t.id, poly, False))
    tallest = max(size[viewer.id], size[target.id])
    for m in scene.models:
        if m.id in (viewer.id, target.id) or not _live(m):
            continue
        if not m.extra.get("wreckage") and size[m.id] < tallest:
            continue
        shape = footprint(m)
        if not between.is_empty and between.intersects(core(shape)):
            blockers.append((m.id, shape, True))
    if on_hill:
        blocked = _dead_ground(blockers, line, fb)
    else:
        blocked = [b[0] for b in blockers]
    for model, centre in ((viewer, pa), (target, pb)):
        for t, poly in pieces:
            if t.has("concealment") and poly.covers(centre):
                depth = line.intersection(poly).difference(fa).difference(fb).length
                if depth > size[model.id] + 1e-9 and t.id not in blocked:
                    blocked.append(t.id)
    return not blocked, blocked


def _dead_ground(blockers, line: LineString, target_shape) -> list[str]:
    start = Point(line.coords[0])

    def back(shape) -> Point:
        (ax, ay), (bx, by) = line.coords
        far = (ax + (bx - ax) * 100, ay + (by - ay) * 100)
        hit = LineString([line.coords[0], far]).intersection(shape)
        pts = [Point(c) for g in getattr(hit, "geoms", [hit]) for c in g.coords]
        return max(pts, key=start.distance)

    def entry(shape) -> float:
        hit = line.intersection(shape)
        return min(line.project(Point(c)) for g in getattr(hit, "geoms", [hit]) for c in g.coords)

    order = sorted(blockers, key=lambda b: entry(b[1]))
    casting: list[tuple[str, BaseGeometry, bool]] = []
    for bid, shape, is_base in order:
        if is_base and any(c[1].distance(back(shape)) <= SHADOW + 1e-9 for c in casting):
            continue
        casting.append((bid, shape, is_base))
    rear = back(target_shape)
    return [c[0] for c in casting if c[1].distance(rear) <= SHADOW + 1e-9]


def plain_pairs(scene: Scene) -> list[dict[str, Any]]:
    """Every ordered pair of enemy units: closest distance, band, and LOS of the closest pair that sees."""
    fighting = [m for m in scene.models if _live(m) and not m.extra.get("wreckage")]
    size = {m.id: float(scene.model_size(m)) for m in scene.models}
    units = [u for u in scene.units if any(m.unit == u.id for m in fighting)]
    out = []
    for ua in units:
        for ub in units:
            if ua.player == ub.player:
                continue
            pairs = sorted(((edge_distance(a, b), a.id, b.id, a, b) for a in fighting if a.unit == ua.id
                            for b in fighting if b.unit == ub.id), key=lambda p: p[:3])
            seen = ((p, plain_los(scene, p[3], p[4], size)) for p in pairs)  # closest first, one at a time
            first = next(seen)
            pick = first if first[1][0] else next((s for s in seen if s[1][0]), first)
            out.append({"from": ua.id, "to": ub.id, "distance": round(pairs[0][0], 4),
                        "band": band_of(pairs[0][0]), "visible": pick[1][0], "blocked_by": sorted(pick[1][1]),
                        "models": [pick[0][1], pick[0][2]]})
    return out
