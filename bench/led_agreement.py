"""Do the LEDs say what the rules say? Random scenes on every shipped LED layout, each LED checked
against the rule system's own answers:

- band areas: an LED's colour against the `band` query for a probe model standing at that LED
  (a boundary tolerance of 0.5" either way);
- enemy markers: each enemy's marker against `band UNIT ENEMY [WEAPON]`;
- sight lines: on a grid, a visible line is a connected chain of LEDs from end to end.

    .venv/bin/python bench/led_agreement.py [--scenes 300] [--seed 1]

prints, per layout and rule system, the share of LEDs (and of markers, and of lines) that agree.
The property tests (tests/live/test_led_agreement.py) run the same checks on fewer scenes.
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from table.config import CONFIG_DIR, read_toml
from table.errors import TableError
from table.live import highlight as hl
from table.live.answers import Sight
from table.live.display import answers_for, regions_for
from table.live.leds import LedLayout, load_layout
from table.live.session import GameState
from table.rules import Ruleset, all_rulesets, get_ruleset
from table.rules.inch import InchRuleset
from table.scene import Scene, parse_scene, scene_to_dict

LAYOUTS: tuple[Path, ...] = tuple(sorted((CONFIG_DIR / "leds").glob("*.toml")))
# every inch-measured rule system whose bands the live table caches pair by pair (what the LEDs show)
RULESETS = tuple(sorted(r.name for r in all_rulesets() if issubclass(r, InchRuleset) and r.pairwise_bands))
TOLERANCE = 0.5          # inches either side of a band boundary
UNIT = "us"              # the selected unit in every generated scene
PROBE_MM = 0.01          # a probe base small enough to stand for a point


def is_grid(path: Path) -> bool:
    """A layout file with an LED grid (read from the file, not from the layout code under test)."""
    return "grid" in read_toml(path, "LED layout file")


# ------------------------------------------------------------------ random scenes

def _bands(rng: random.Random, names: tuple[str, ...]) -> dict[str, list[float]]:
    edges = sorted(rng.sample(range(2, 48), len(names)))
    return {n: [float(lo), float(hi)] for n, lo, hi in zip(names, [0, *edges[:-1]], edges, strict=True)}


def _profiles(system: type[Ruleset]) -> bool:
    """Whether the system's weapons carry AP/AM profiles (a scene key it declares) instead of bands."""
    return "ap" in system.extra_scene_keys.get("weapon", ())


def _base(rng: random.Random, system: type[Ruleset]) -> dict[str, Any]:
    if _profiles(system) and rng.random() < 0.3:
        return {"shape": "rect", "width_mm": rng.choice([40, 50]), "depth_mm": rng.choice([60, 75])}
    return {"shape": "circle", "diameter_mm": rng.choice([25, 32, 40])}


def _weapons(rng: random.Random, system: type[Ruleset]) -> list[dict[str, Any]]:
    if _profiles(system):
        return [{"name": f"Gun {k}", "ap": [rng.randint(0, 4) for _ in range(4)],
                 "am": [rng.randint(0, 4) for _ in range(4)]} for k in range(rng.randint(0, 2))]
    weapons: list[dict[str, Any]] = [{"name": "Bayonet"}] if rng.random() < 0.4 else []
    for k in range(rng.randint(1, 2)):
        weapons.append({"name": f"Gun {k}", "bands": _bands(rng, ("hot", "standard", "cold"))})
    return weapons


def _terrain(rng: random.Random) -> list[dict[str, Any]]:
    pieces = []
    for k in range(rng.randint(0, 5)):
        traits = rng.choice([["impassable"], ["light_cover"], ["heavy_cover"]])
        big = 12 if traits == ["impassable"] else 6       # walls long enough to block a whole unit
        x, y, w, h = rng.uniform(2, 40), rng.uniform(2, 40), rng.uniform(0.5, big), rng.uniform(0.5, big)
        pieces.append({"id": f"t{k}", "polygon": [[x, y], [x + w, y], [x + w, y + h], [x, y + h]],
                       "height": rng.uniform(1, 6), "traits": traits})
    return pieces


def random_state(rng: random.Random, ruleset: str, target: bool = False) -> GameState:
    """A random table: the selected unit (1-5 models in a clump) with random weapons, two enemy
    units anywhere, some terrain; sometimes a chosen weapon and rulings that change measuring (the
    system's `measure` and `round_to` options, where it declares them)."""
    system = get_ruleset(ruleset)
    options = {o.name: o for o in system.options}
    units: list[dict[str, Any]] = [{"id": UNIT, "player": "A", "stats": {"size": 1, "movement": 6},
                                    "weapons": _weapons(rng, system)}]
    cx, cy = rng.uniform(4, 44), rng.uniform(4, 44)
    models: list[dict[str, Any]] = [
        {"id": f"{UNIT}-{i}", "unit": UNIT, "x": cx + rng.uniform(-3, 3), "y": cy + rng.uniform(-3, 3),
         "heading": rng.uniform(-179, 180), "base": _base(rng, system)} for i in range(rng.randint(1, 5))]
    for u in range(2):
        units.append({"id": f"them{u}", "player": "B", "stats": {"size": 1}, "weapons": []})
        models += [{"id": f"them{u}-{i}", "unit": f"them{u}", "x": rng.uniform(0.5, 47.5),
                    "y": rng.uniform(0.5, 47.5), "heading": rng.uniform(-179, 180),
                    "base": _base(rng, system)} for i in range(rng.randint(1, 4))]
    scene = parse_scene({"format": "smarttable-scene/1", "ruleset": ruleset, "terrain": _terrain(rng),
                         "units": units, "models": models}, "random scene")
    rulings: dict[str, Any] = {}
    if "measure" in options and rng.random() < 0.3:
        rulings["measure"] = rng.choice(options["measure"].choices)
    if "round_to" in options and rng.random() < 0.4:
        rulings["round_to"] = rng.choice([0.25, 1])
    ranged = [w["name"] for w in units[0]["weapons"] if w.get("bands") or w.get("ap")]
    chosen = ((UNIT, rng.choice(ranged)),) if ranged and rng.random() < 0.4 else ()
    enemies = [m["id"] for m in models if m["unit"] != UNIT]
    step = 1 if system.deployment is not None else 0     # past a deployment phase
    return GameState(scene, step=step, selected=rng.choice(models[:len(models) - len(enemies)])["id"],
                     target=rng.choice(enemies) if target else None, rulings=rulings, weapons=chosen)


# ------------------------------------------------------------------ the checks

@dataclass
class Tally:
    """How many checks agreed exactly, within a tolerance (an LED within 0.5" of a band boundary, a
    marker LED shared with another model, a blocked line too short for a gap), or not at all."""

    agree: int = 0
    tolerated: int = 0
    wrong: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.agree + self.tolerated + len(self.wrong)

    def add(self, other: Tally) -> None:
        self.agree, self.tolerated = self.agree + other.agree, self.tolerated + other.tolerated
        self.wrong += other.wrong

    def share(self) -> str:
        if not self.total:
            return "-"
        return (f"{100 * (self.agree + self.tolerated) / self.total:.2f}% "
                f"({self.agree} exact + {self.tolerated} tolerated of {self.total})")


def frame_of(layout: LedLayout, state: GameState) -> tuple[tuple[tuple[int, int, int], ...], Any]:
    ruleset = get_ruleset(state.scene.ruleset)(state.scene, state.rulings)
    answers = answers_for(state, ruleset)
    return hl.render(layout, regions_for(state, answers)), answers


def _chosen(state: GameState) -> list[str]:
    return [w for u, w in state.weapons if u == UNIT]


def _with_probes(scene: Scene, points: Iterable[tuple[float, float]]) -> Scene:
    """The scene plus a unit of probe models of a third player, one at each point."""
    doc = scene_to_dict(scene)
    doc["units"].append({"id": "probe", "player": "Z", "stats": {"size": 1}})
    probe = {"shape": "circle", "diameter_mm": PROBE_MM}
    doc["models"] += [{"id": f"p{i}", "unit": "probe", "x": x, "y": y, "base": probe}
                      for i, (x, y) in enumerate(points)]
    return parse_scene(doc, "probes")


def _spot_leds(layout: LedLayout, scene: Scene) -> set[int]:
    return {layout.nearest(m.position) for m in scene.models}


def check_bands(layout: LedLayout, state: GameState) -> Tally:
    """Every LED not marking a model shows the band the query gives for a probe at its position."""
    assert state.target is None
    frame, _ = frame_of(layout, state)
    probes = get_ruleset(state.scene.ruleset)(_with_probes(state.scene, layout.positions), state.rulings)
    try:
        areas = probes.ask("bands", [UNIT, *_chosen(state)])
    except TableError:           # no weapon with bands: the query answers no band anywhere
        areas = None
    tally = Tally()
    for i in sorted(set(range(len(layout))) - _spot_leds(layout, state.scene)):
        shown = frame[i]
        try:
            answer = probes.ask("band", [UNIT, f"p{i}", *_chosen(state)])
        except TableError:
            answer = None
        if answer is None or areas is None:
            tally.agree += shown == hl.OFF
            if shown != hl.OFF:
                tally.wrong.append(f"LED {i}: lit {shown} where the unit has no band")
            continue
        band, d = answer["band"], float(answer["distance"])
        expected = hl.OFF if band == "out_of_range" else hl.BAND_COLOURS[band]
        if shown == expected:
            tally.agree += 1
            continue
        near = {hl.BAND_COLOURS[b["band"]] for b in areas["bands"]
                if b["from"] - TOLERANCE <= d <= b["to"] + TOLERANCE}
        if d >= areas["bands"][-1]["to"] - TOLERANCE:
            near.add(hl.OFF)
        if shown in near:
            tally.tolerated += 1
        else:
            tally.wrong.append(f"LED {i} at {layout.positions[i]}: shows {shown}, "
                               f"the query says {band} at {d}\"")
    return tally


def check_markers(layout: LedLayout, state: GameState) -> Tally:
    """Each enemy's band in the answers and on its marker LED is what `band UNIT ENEMY` answers
    (a marker LED shared with another model shows one of theirs)."""
    frame, answers = frame_of(layout, state)
    ruleset = get_ruleset(state.scene.ruleset)(state.scene, state.rulings)
    scene = state.scene
    expected: dict[str, tuple[int, int, int]] = {}
    tally = Tally()
    for m in scene.models:
        if m.unit == UNIT:
            expected[m.id] = hl.SELECTED if m.id == state.selected else frame[layout.nearest(m.position)]
            continue
        try:
            band = ruleset.ask("band", [UNIT, m.id, *_chosen(state)])["band"]
        except TableError:
            band = None
        if answers.bands.get(m.id) != band:
            tally.wrong.append(f"{m.id}: marked {answers.bands.get(m.id)}, the query says {band}")
            continue
        expected[m.id] = hl.BAND_COLOURS[band] if band else frame[layout.nearest(m.position)]
    for m in scene.models:
        if m.unit == UNIT or m.id not in expected:
            continue
        led = layout.nearest(m.position)
        sharing = {expected[o.id] for o in scene.models
                   if o.id in expected and layout.nearest(o.position) == led}
        if frame[led] == expected[m.id]:
            tally.agree += 1
        elif frame[led] in sharing:
            tally.tolerated += 1
        else:
            tally.wrong.append(f"{m.id}: its LED {led} shows {frame[led]}, expected {expected[m.id]}")
    return tally


def check_chain(layout: LedLayout, state: GameState) -> Tally:
    """A visible sight line on a grid lights a chain of LEDs, each next to the one before (a grid
    step, diagonals included), from the LED nearest one end to the LED nearest the other, every
    one of them near the line; a blocked line differs by a gap, and its blockers are lit."""
    frame, answers = frame_of(layout, state)
    los = answers.los
    tally = Tally()
    if los is None:
        return tally
    line = los.line or [state.scene.model(m).position for m in los.models]
    if len(line) != 2:
        return tally
    a, b = ((float(p[0]), float(p[1])) for p in line)
    pts = layout.array()
    pitch = float(np.min([np.partition(np.hypot(*(pts - p).T), 1)[1] for p in pts[:64]]))
    colour = hl.SIGHT_CLEAR if los.visible else hl.SIGHT_BLOCKED
    lit = {i for i, c in enumerate(frame) if c == colour}
    far = [i for i in lit if shapely.distance(LineString([a, b]), shapely.points(pts[i])) > pitch * 0.75]
    if los.visible and far:
        tally.wrong.append(f"LEDs {far} lit as the sight line but not on it")
    start, end = layout.nearest(a), layout.nearest(b)
    marked = _spot_leds(layout, state.scene)
    on_line = set(np.flatnonzero(shapely.dwithin(LineString([a, b]), shapely.points(pts), pitch / 2 + 1e-9)))
    if los.visible:
        ok, excused = _connected(pts, lit | marked, start, end, pitch), False
    else:
        lit_blockers = _blockers_lit(frame, pts, state, los, pitch)
        ok = lit_blockers and any(frame[i] == hl.OFF for i in on_line - {start, end})
        # too short for a gap beside the blocker's LED, or models marked on the line where its gaps are
        excused = lit_blockers and (math.dist(a, b) < 3 * pitch or bool(on_line & marked - {start, end}))
    if ok:
        tally.agree += 1
    elif excused:
        tally.tolerated += 1
    else:
        tally.wrong.append(f"{'visible' if los.visible else 'blocked'} line {a} -> {b}: "
                           f"{'no chain' if los.visible else 'no gap or blocker dark'} "
                           f"from LED {start} to {end}")
    return tally


def _connected(pts: np.ndarray, covered: set[int], start: int, end: int, pitch: float) -> bool:
    """Whether `covered` LEDs join start to end, each a grid step (diagonals too) from the next."""
    if start not in covered:
        return False
    reached, todo = {start}, [start]
    while todo:
        i = todo.pop()
        for j in covered - reached:
            if math.dist(pts[i], pts[j]) <= pitch * math.sqrt(2) * 1.01:
                reached.add(j)
                todo.append(j)
    return end in reached


def _blockers_lit(frame: Any, pts: np.ndarray, state: GameState, los: Sight, pitch: float) -> bool:
    """Each blocker has a lit LED: a terrain piece one in the blocked colour within a grid diagonal
    of its outline (unless every LED there marks a model), a base the LED nearest it."""
    reach = pitch * math.sqrt(2) * 1.01
    marked = {int(np.argmin(np.hypot(*(pts - m.position).T))) for m in state.scene.models}
    for ident in los.blocked_by:
        pieces = [t for t in state.scene.terrain if t.id == ident]
        if pieces:
            outline = Polygon(pieces[0].polygon)
            near = set(np.flatnonzero(shapely.dwithin(outline, shapely.points(pts), reach)))
            if not near <= marked and not any(frame[i] == hl.SIGHT_BLOCKED for i in near):
                return False
        elif frame[int(np.argmin(np.hypot(*(pts - state.scene.model(ident).position).T)))] == hl.OFF:
            return False
    return True


# ------------------------------------------------------------------ the report

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for path in LAYOUTS:
        layout = load_layout(path)
        for ruleset in RULESETS:
            rng = random.Random(f"{args.seed}-{path.stem}-{ruleset}")
            bands, markers, chains = Tally(), Tally(), Tally()
            for _ in range(args.scenes):
                state = random_state(rng, ruleset)
                bands.add(check_bands(layout, state))
                markers.add(check_markers(layout, state))
                if is_grid(path):
                    chains.add(check_chain(layout, random_state(rng, ruleset, target=True)))
            print(f"{path.stem:18} {ruleset:15} LEDs {bands.share()}; markers {markers.share()}"
                  + (f"; sight lines {chains.share()}" if is_grid(path) else ""))
            for line in (bands.wrong + markers.wrong + chains.wrong)[:5]:
                print("    ", line)


if __name__ == "__main__":
    main()
