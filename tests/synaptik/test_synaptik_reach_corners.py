"""Charge and move reach round impassable corners with the true base outline (Minkowski sum): a "no" is
right to within 0.01", the path drawn is the one measured, and an oval or rectangular base is the shape
it is. Cases worked by hand (tangents and arcs), checked through `smarttable query`."""

import json
import math

import pytest
import shapely
from shapely.geometry import LineString, box

from table.cli import main
from table.geometry import GRAZE, base_outline, swept
from table.scene import Base

R = 12.5 / 25.4  # a 25 mm round base
ROCK = [[30, 25], [34, 25], [34, 35], [30, 35]]


def true_round_corner_path() -> float:
    """(28, 30) round the rock's top corners to 1" from (38, 30), by tangents and arcs (worked by hand)."""
    s, c1, c2, g = (28, 30), (30, 25), (34, 25), (38, 30)
    d1, d2 = math.dist(s, c1), math.dist(c2, g)
    t1, t2 = math.sqrt(d1**2 - R**2), math.sqrt(d2**2 - R**2)
    # angles (board frame) of the tangent points on each corner's circle, and the top point at -90
    a1 = math.degrees(math.atan2(s[1] - c1[1], s[0] - c1[0])) + math.degrees(math.acos(R / d1))
    a2 = math.degrees(math.atan2(g[1] - c2[1], g[0] - c2[0])) - math.degrees(math.acos(R / d2))
    arc1, arc2 = math.radians(270 - a1) * R, math.radians(a2 + 90) * R
    return t1 + arc1 + 4 + arc2 + t2 - 1


def scene(charger: dict, terrain: list, target_at=(38, 30), movement: float = 9) -> dict:
    return {"format": "smarttable-scene/1", "ruleset": "synaptik", "board": {"width": 48, "height": 48},
            "terrain": terrain,
            "units": [{"id": "g", "player": "A", "stats": {"movement": movement}},
                      {"id": "k", "player": "B", "stats": {"movement": 6}}],
            "models": [{"id": "g1", "unit": "g", **charger},
                       {"id": "k1", "unit": "k", "x": target_at[0], "y": target_at[1]}]}


def query(tmp_path, capsys, doc: dict, *args: str) -> dict:
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(doc))
    assert main(["query", str(path), *args]) == 0
    return json.loads(capsys.readouterr().out)


def rock(traits=("impassable",)) -> list:
    return [{"id": "rock", "polygon": ROCK, "height": 5, "traits": list(traits)}]


def test_the_hand_worked_path_is_15_86_not_the_square_cornered_16_20():
    assert true_round_corner_path() == pytest.approx(15.8565, abs=1e-4)


@pytest.mark.parametrize("margin, reachable", [(0.01, True), (-0.01, False)])
def test_a_charge_round_a_corner_is_decided_to_within_a_hundredth(tmp_path, capsys, margin, reachable):
    movement = (true_round_corner_path() + margin) / 2  # a Charge moves twice the Movement
    answer = query(tmp_path, capsys, scene({"x": 28, "y": 30}, rock(), movement=movement), "charge", "g", "k")
    assert answer["reachable"] is reachable
    if reachable:
        assert answer["cost"] == pytest.approx(true_round_corner_path(), abs=0.01)


def test_the_path_drawn_is_the_path_measured_and_clears_the_rock(tmp_path, capsys):
    answer = query(tmp_path, capsys, scene({"x": 28, "y": 30}, rock()), "charge", "g", "k")
    path = answer["path"]
    assert answer["cost"] == pytest.approx(LineString(path).length, abs=1e-4)  # no difficult, no climb
    assert math.dist(path[-1], (38, 30)) <= 1 + 1e-6 and path[0] == [28, 30]
    outline = base_outline(Base("circle", 25, 25), 0)
    assert swept(outline, [tuple(p) for p in path]).intersection(box(30, 25, 34, 35)).area < GRAZE**2
    assert LineString(path).distance(box(30, 25, 34, 35)) >= R - 1e-3  # the base rolls round, clear


def corridor(heading: float, base: dict) -> dict:
    """Walls x 10..20 and 21.5..31 (y 10..20) leave a corridor 1.5" wide; the target is beyond it."""
    walls = [{"id": "west", "polygon": [[10, 10], [20, 10], [20, 20], [10, 20]], "height": 5, "traits": ["impassable"]},
             {"id": "east", "polygon": [[21.5, 10], [31, 10], [31, 20], [21.5, 20]], "height": 5,
              "traits": ["impassable"]}]
    return scene({"x": 20.75, "y": 5, "heading": heading, "base": base}, walls, target_at=(20.75, 25), movement=10)


RECT = {"shape": "rect", "width_mm": 25.4, "depth_mm": 50.8}  # 1" across its facing, 2" along it


@pytest.mark.parametrize("heading, rulings, reachable", [
    (0, [], False),    # facing +x the base is 2" across the corridor's 1.5": it does not fit
    (90, [], True),    # facing along the corridor it is 1" across: straight through, 20 - 1 = 19"
    (0, ["--ruling", 'move_base="disc"'], True),  # the widest disc in it (1"): it may turn to slip through
])
def test_a_rectangular_base_is_the_shape_it_is(tmp_path, capsys, heading, rulings, reachable):
    answer = query(tmp_path, capsys, corridor(heading, RECT), "charge", "g", "k", *rulings)
    assert answer["reachable"] is reachable
    if reachable:
        assert answer["cost"] == pytest.approx(19.0, abs=0.01)


def test_an_oval_base_sweeps_its_own_outline_on_a_move(tmp_path, capsys):
    # an oval 60 x 35 mm (60 across its facing): facing +x it reaches 0.69" to either side in x, facing
    # +y 1.18"; a path along y passes 0.9" from the rock's west face
    oval = {"shape": "oval", "width_mm": 60, "depth_mm": 35}
    doc = scene({"x": 29.1, "y": 20, "heading": 0, "base": oval}, rock())
    answer = query(tmp_path, capsys, doc, "move", "g1", "maneuver", "29.1,36")
    assert answer["legal"] is True, answer["problems"]
    doc["models"][0]["heading"] = 90
    answer = query(tmp_path, capsys, doc, "move", "g1", "maneuver", "29.1,36")
    assert answer["problems"] == ["the base crosses impassable terrain rock"]
    # the widest disc in it (0.69") clears the face: the `disc` reading lets it pass
    answer = query(tmp_path, capsys, doc, "move", "g1", "maneuver", "29.1,36", "--ruling", 'move_base="disc"')
    assert answer["legal"] is True


@pytest.mark.parametrize("seed", range(6))
def test_every_charge_path_found_keeps_any_base_clear_of_impassable_terrain(tmp_path, capsys, seed):
    """Random rocks and bases: whatever path the engine draws, the base swept along it (not turning)
    never overlaps an impassable piece by more than the grazing tolerance."""
    import random

    rng = random.Random(seed)
    terrain = []
    for k in range(4):
        x, y, w, h = rng.uniform(14, 30), rng.uniform(14, 30), rng.uniform(1, 5), rng.uniform(1, 5)
        terrain.append({"id": f"r{k}", "polygon": [[x, y], [x + w, y], [x + w, y + h], [x, y + h]], "height": 5,
                        "traits": ["impassable"]})
    base = rng.choice([{"shape": "circle", "diameter_mm": 32}, {"shape": "oval", "width_mm": 60, "depth_mm": 35},
                       {"shape": "rect", "width_mm": 25, "depth_mm": 50}])
    heading = rng.uniform(-180, 180)
    doc = scene({"x": 10, "y": 10, "heading": heading, "base": base}, terrain, target_at=(38, 38), movement=25)
    answer = query(tmp_path, capsys, doc, "charge", "g", "k")
    if not answer["reachable"]:
        return
    shape = Base(base["shape"], base.get("width_mm", base.get("diameter_mm")),
                 base.get("depth_mm", base.get("diameter_mm")))
    area = swept(base_outline(shape, ((heading + 180) % 360) - 180), [tuple(p) for p in answer["path"]])
    for piece in terrain:
        inside = area.intersection(shapely.Polygon(piece["polygon"]).buffer(-GRAZE, join_style="mitre"))
        assert inside.area < 1e-9, (piece["id"], answer["path"])
    assert answer["cost"] == pytest.approx(LineString(answer["path"]).length, abs=1e-4)


@pytest.mark.parametrize("seed", range(8))
def test_a_charge_across_difficult_ground_costs_within_a_hundredth_of_the_best_crossing(seed):
    """A bog x 20..24 across the board: the cheapest path crosses it where Snell's law says; found here by
    brute force over both crossing heights (a fine grid, then finer), independently of the engine."""
    import numpy as np

    from table.rules import get_ruleset
    from table.scene import parse_scene

    rng = np.random.default_rng(seed)
    sx, sy, tx, ty = rng.uniform(15, 19.5), 20.0, rng.uniform(25.5, 28), 20.0 + rng.uniform(-8, 8)
    doc = {"format": "smarttable-scene/1", "ruleset": "synaptik",
           "terrain": [{"id": "bog", "polygon": [[20, 0], [24, 0], [24, 48], [20, 48]], "traits": ["difficult"]}],
           "units": [{"id": "g", "player": "A", "stats": {"movement": 12}}, {"id": "k", "player": "B"}],
           "models": [{"id": "g1", "unit": "g", "x": sx, "y": sy}, {"id": "k1", "unit": "k", "x": tx, "y": ty}]}
    answer = get_ruleset("synaptik")(parse_scene(doc)).ask("charge", ["g", "k"])

    def cost(a, b):  # in at (20, a), out at (24, b), the last inch not needed
        return np.hypot(20 - sx, a - sy) + 2 * np.hypot(4, b - a) + np.hypot(tx - 24, ty - b) - 1

    ys = np.linspace(min(sy, ty) - 2, max(sy, ty) + 2, 801)
    grid = cost(*np.meshgrid(ys, ys, indexing="ij"))
    i, j = np.unravel_index(np.argmin(grid), grid.shape)
    fine = np.linspace(-0.03, 0.03, 301)
    best = cost(*np.meshgrid(ys[i] + fine, ys[j] + fine, indexing="ij")).min()
    assert answer["reachable"] is True
    assert best - 1e-4 <= answer["cost"] <= best + 0.01
