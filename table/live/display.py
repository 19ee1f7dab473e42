"""What the table shows for a game state: the rule system's answers about the selection, turned
into highlight regions. Every question is optional: a rule system that does not answer one
(QueryError) simply shows less.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from shapely.geometry import LineString, Polygon
from shapely.ops import nearest_points

from table.errors import TableError
from table.geometry import base_radius, footprint_vertices
from table.live import highlight as hl
from table.live.answers import (
    Answers,
    BandAnswer,
    BandAreas,
    Deployment,
    Distance,
    HexPath,
    Reach,
    Sight,
    Template,
)
from table.live.session import GameState
from table.rules import get_ruleset
from table.rules.base import Ruleset
from table.scene import Model, Scene

log = logging.getLogger(__name__)


def ask(ruleset: Ruleset, question: str, *args: str) -> Any:
    """The answer, or None when the rule system does not answer (or cannot, for this scene)."""
    if question not in ruleset.questions():
        return None
    try:
        return ruleset.ask(question, list(args))
    except TableError as exc:
        log.debug("%s %s: %s", question, args, exc)
        return None


def situation(ruleset: Ruleset) -> dict[str, Any] | None:
    """What the warnings need, in the `report` shape ({"units": [cohesion...], "melee": [...]}):
    asked unit by unit (`cohesion`) and once (`melee`), which is far cheaper than the full report;
    the full `report` for a rule system without those questions."""
    questions = ruleset.questions()
    if "cohesion" not in questions:
        answer = ask(ruleset, "report")
        return answer if isinstance(answer, dict) else None
    units = [ask(ruleset, "cohesion", u.id) for u in ruleset.scene.units if ruleset.scene.models_of(u.id)]
    melee = ask(ruleset, "melee")
    if isinstance(melee, dict):
        melee = melee.get("melee", [])
    return {"units": [u for u in units if isinstance(u, dict)],
            "melee": melee if isinstance(melee, list) else []}


def situation_of(state: GameState) -> dict[str, Any] | None:
    """The warnings' report for a state, from a rule system of its own (the controller asks it on
    its background worker while the frame path asks the controller's)."""
    try:
        ruleset = get_ruleset(state.scene.ruleset)(state.scene, state.rulings)
    except TableError:
        return None
    return situation(ruleset)


def deployment(state: GameState, ruleset: Ruleset) -> dict[str, Any] | None:
    """Each player's deployment zone and the models standing outside theirs, as the rule system
    declares them (`Ruleset.deployment`) from its `deploy` answers: the zones' hexes, or the strip
    along the table edge each base is measured to."""
    scene, declared = state.scene, ruleset.deployment
    if declared is None or "deploy" not in ruleset.questions():
        return None
    if declared.kind == "hexes":
        answer = ask(ruleset, "deploy")
        if not isinstance(answer, dict) or not isinstance(answer.get("zones"), dict):
            return None
        zones = [{"player": p, "hexes": z["hexes"]} for p, z in sorted(answer["zones"].items())]
        outside = [m.id for u in answer.get("units", []) if not u.get("ok")
                   for m in scene.models_of(u["unit"])]
        return {"zones": zones, "outside": outside}
    edges: dict[str, str] = {}
    outside = []
    for unit in scene.units:
        answer = ask(ruleset, "deploy", unit.id) if scene.models_of(unit.id) else None
        for row in answer.get("bases", []) if isinstance(answer, dict) else []:
            edges.setdefault(unit.player, row["edge"])
            if not row["in_zone"]:
                outside.append(row["model"])
    zones = [{"player": p, "edge": e, "polygon": _edge_strip(scene, e, declared.depth)}
             for p, e in sorted(edges.items())]
    return {"zones": zones, "outside": outside} if zones else None


def _edge_strip(scene: Scene, edge: str, depth: float) -> list[list[float]]:
    """A deployment zone: the board within `depth` inches of one table edge."""
    w, h, d = scene.board.width, scene.board.height, depth
    x0, y0, x1, y1 = {"top": (0, 0, w, d), "bottom": (0, h - d, w, h), "left": (0, 0, d, h),
                      "right": (w - d, 0, w, h)}[edge]
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


def _place(model: Model) -> tuple[Any, ...]:
    return (model.id, model.x, model.y, model.heading, model.base, model.size, model.height)


class AnswerCache:
    """Band answers by the models' positions, valid while the scene's units, terrain, board
    and the rulings stay the same objects (moves only replace models)."""

    def __init__(self) -> None:
        self._context: tuple[Any, ...] = ()
        self._bands: dict[tuple[Any, ...], Any] = {}
        self.asked = 0          # how many band questions reached the rule system (tests, bench)

    def band(self, state: GameState, ruleset: Ruleset, unit: str, b: Model, weapon: tuple[str, ...]) -> Any:
        """`band UNIT B [WEAPON]`, remembered by where the unit's models and B stand."""
        scene: Scene = state.scene
        if not ruleset.pairwise_bands:
            self.asked += 1
            return ask(ruleset, "band", unit, b.id, *weapon)
        context = (scene.ruleset, scene.units, scene.terrain, scene.board,
                   json.dumps(state.rulings, sort_keys=True))
        if len(context) != len(self._context) or any(
                x is not y and x != y for x, y in zip(context, self._context, strict=True)):
            self._context, self._bands = context, {}
        key = (tuple(_place(m) for m in scene.models_of(unit)), _place(b), weapon)
        if key not in self._bands:
            self.asked += 1
            self._bands[key] = ask(ruleset, "band", unit, b.id, *weapon)
            if len(self._bands) > 4096:            # a long game: forget the oldest placements
                del self._bands[next(iter(self._bands))]
        return self._bands[key]


def shown_weapon(state: GameState, ruleset: Ruleset,
                 unit: str) -> tuple[dict[str, Any] | None, tuple[str, ...]]:
    """The unit's `bands` answer for the weapon the table shows (the chosen one, else the rule
    system's default, e.g. its first weapon with bands), and that weapon as a question argument.
    A chosen weapon the rule system no longer takes (the rule system changed) falls back to its
    default; a rule system without `bands` gets the chosen weapon as it is."""
    chosen = dict(state.weapons).get(unit)
    if "bands" not in ruleset.questions():
        return None, ((chosen,) if chosen else ())
    areas = (ask(ruleset, "bands", unit, chosen) if chosen else None) or ask(ruleset, "bands", unit)
    if not isinstance(areas, dict):
        return None, ()
    return areas, ((str(areas["weapon"]),) if areas.get("weapon") else ())


def answers_for(state: GameState, ruleset: Ruleset, cache: AnswerCache | None = None) -> Answers:
    """Ask the rule system about the selection: the selected unit's bands (for the weapon shown)
    and its band to every enemy model, line of sight and distance from the selected model to the
    target; hex systems also give the reachable hexes."""
    deploying = deployment(state, ruleset) if state.phase == "deployment" else None
    if state.selected is None:
        return Answers(deployment=Deployment.of(deploying))
    cache = cache if cache is not None else AnswerCache()
    scene = state.scene
    model = scene.model(state.selected)
    player = scene.unit(model.unit).player
    areas, weapon = shown_weapon(state, ruleset, model.unit)
    bands = {}
    for other in scene.models:
        if scene.unit(other.unit).player != player:
            answer = cache.band(state, ruleset, model.unit, other, weapon)
            if isinstance(answer, dict) and answer.get("band"):
                bands[other.id] = str(answer["band"])
    target = state.target
    hexes = scene.hexgrid is not None
    to = state.destination
    template = ruleset.shows_template(scene.unit(model.unit))
    return Answers(model.id, model.unit, target, bands,
                   BandAnswer.of(ask(ruleset, "band", model.unit, target, *weapon) if target else None),
                   Sight.of(ask(ruleset, "los", model.id, target) if target else None),
                   Distance.of(ask(ruleset, "distance", model.id, target) if target else None),
                   Reach.of(ask(ruleset, "moves", model.unit) if hexes else None),
                   HexPath.of(ask(ruleset, "path", model.unit, f"{to[0]},{to[1]}") if hexes and to else None),
                   Template.of(ask(ruleset, "template", target, model.unit) if target and template else None),
                   Deployment.of(deploying), BandAreas.of(areas))


def _player_colour(state: GameState, player: str) -> hl.RGB:
    players = state.players
    return hl.PLAYER_COLOURS[players.index(player) % 4] if player in players else hl.GREY


def _zones(state: GameState, deploying: Deployment | None) -> list[hl.Region]:
    """Deployment zones in their players' colours."""
    regions: list[hl.Region] = []
    for zone in deploying.zones if deploying is not None else ():
        colour = _player_colour(state, zone["player"])
        if "hexes" in zone and state.scene.hexgrid is not None:
            cells = frozenset((int(q), int(r)) for q, r in zone["hexes"])
            regions.append(hl.Hexes(state.scene.hexgrid, cells, colour))
        elif "polygon" in zone:
            regions.append(hl.Area(tuple((float(x), float(y)) for x, y in zone["polygon"]), colour))
    return regions


def regions_for(state: GameState, answers: Answers) -> list[hl.Region]:
    """Highlight regions, bottom to top: deployment zones, movement range, range bands, the path
    to the chosen hex, the attack template, cover and sight line, then one spot per model (band
    colour for enemies, white for the selection; a model outside its deployment zone: purple)."""
    scene = state.scene
    regions: list[hl.Region] = _zones(state, answers.deployment)
    outside = answers.deployment.outside if answers.deployment is not None else frozenset()
    if answers.selected is None:
        return regions + [hl.Spot(m.position, hl.SIGHT_BLOCKED if m.id in outside
                                  else _player_colour(state, scene.unit(m.unit).player))
                          for m in scene.models]
    if answers.moves is not None and answers.moves.raw and scene.hexgrid is not None:
        regions.append(hl.Hexes(scene.hexgrid, frozenset(answers.moves.reachable), hl.MOVE_RANGE))
    if answers.areas is not None and answers.areas.raw:
        regions.append(_band_areas(scene, answers.areas))
    path = answers.path.hexes if answers.path is not None else ()
    if path and answers.path is not None and scene.hexgrid is not None:
        colour = hl.PATH if answers.path.within_move else hl.SIGHT_BLOCKED
        regions.append(hl.Hexes(scene.hexgrid, frozenset(path[1:]), colour))
    template = answers.template if answers.template is not None and answers.template.raw else None
    if template is not None:
        colour = hl.TEMPLATE if template.far_enough else hl.SIGHT_BLOCKED
        regions.append(hl.Disc(template.centre, template.radius, colour))
    if answers.los is not None:
        regions += _sight(state, answers.los)
    for model_id, band in answers.bands.items():
        regions.append(hl.Spot(scene.model(model_id).position, hl.BAND_COLOURS.get(band, hl.GREY)))
    for model_id in template.touched if template is not None else ():
        regions.append(hl.Spot(scene.model(model_id).position, hl.TEMPLATE))
    regions.append(hl.Spot(scene.model(answers.selected).position, hl.SELECTED))
    return regions


def _band_areas(scene: Scene, areas: BandAreas) -> hl.Bands:
    """The `bands` answer as LED areas: distances from the models it names, centre to centre or
    from their base outlines (`measure`), rounded as it says (`round_to`), with its boundary rule."""
    shapes = tuple(_shape(scene.model(m), areas.measure) for m in areas.measured_from)
    bands = tuple((b.start, b.end, hl.BAND_COLOURS.get(b.name, hl.GREY)) for b in areas.bands)
    return hl.Bands(shapes, bands, nearer=areas.nearer, step=areas.round_to)


def _shape(model: Model, measure: str) -> hl.Shape:
    """Where a model is measured from: its centre, or its base (a round one as centre and radius)."""
    if measure == "centre":
        return (model.position,), 0.0
    radius = base_radius(model.base)
    if radius is not None:
        return (model.position,), radius
    return tuple((float(x), float(y)) for x, y in footprint_vertices(model)), 0.0


def _sight(state: GameState, los: Sight) -> list[hl.Region]:
    """The sight line (the rule system's, else centre to centre of the two models it names): a
    chain of LEDs, solid when clear, dashed when blocked; the terrain blocking it (a blocker too
    small to hold an LED lit where the line meets it); and the cover it crosses."""
    scene = state.scene
    line = los.line
    models = los.models
    if line is None and len(models) == 2:
        line = (scene.model(models[0]).position, scene.model(models[1]).position)
    regions: list[hl.Region] = []
    blocked_by = los.blocked_by
    cover_from = los.cover_from
    sight = LineString(line) if line else None
    visible = los.visible
    drawn = (hl.Line(line[0], line[1], hl.SIGHT_CLEAR if visible else hl.SIGHT_BLOCKED,
                     dashed=not visible) if line else None)
    blockers: list[hl.Region] = []
    marked = tuple(m.position for m in scene.models)      # LEDs that show the models
    for piece in scene.terrain:
        polygon = Polygon(piece.polygon)
        if piece.id in blocked_by:      # where the line crosses it, else its point nearest the line
            meet = (polygon.representative_point() if sight is None
                    else sight.intersection(polygon).representative_point() if sight.intersects(polygon)
                    else nearest_points(polygon, sight)[0])
            blockers.append(hl.Blocker(piece.polygon, (meet.x, meet.y), hl.SIGHT_BLOCKED, marked, drawn))
            continue
        if cover_from is not None:
            crossed = piece.id in cover_from
        else:
            crossed = (sight is not None and sight.intersects(polygon)
                       and not polygon.contains(sight.interpolate(0)))
        if crossed and piece.has("heavy_cover"):
            regions.append(hl.Area(piece.polygon, hl.COVER_HEAVY))
        elif crossed and piece.has("light_cover"):
            regions.append(hl.Area(piece.polygon, hl.COVER_LIGHT))
    blockers += [hl.Spot(scene.model(m).position, hl.SIGHT_BLOCKED) for m in blocked_by
                 if any(x.id == m for x in scene.models)]
    return regions + ([drawn] if drawn else []) + blockers
