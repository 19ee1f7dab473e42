"""What the table shows for a game state: the rule system's answers about the selection, turned
into highlight regions. Every question is optional: a rule system that does not answer one
(QueryError) simply shows less.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from shapely.geometry import LineString, Polygon

from table import highlight as hl
from table.errors import TableError
from table.rules.base import Ruleset
from table.session import GameState

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


@dataclass(frozen=True)
class Answers:
    """The rule system's answers the LEDs and the panel show for the current selection."""

    selected: str | None = None
    unit: str | None = None
    target: str | None = None
    bands: dict[str, str] = field(default_factory=dict)        # enemy model id -> band name
    band: dict[str, Any] | None = None                         # selected -> target
    los: dict[str, Any] | None = None
    distance: dict[str, Any] | None = None
    moves: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.selected, "unit": self.unit, "target": self.target, "bands": self.bands,
                "band": self.band, "los": self.los, "distance": self.distance,
                "reachable": None if self.moves is None else len(self.moves.get("reachable", []))}


def answers_for(state: GameState, ruleset: Ruleset) -> Answers:
    """Ask the rule system about the selected model: band to every enemy model, and band, line of
    sight and distance to the target; hex systems also give the reachable hexes."""
    if state.selected is None:
        return Answers()
    scene = state.scene
    model = scene.model(state.selected)
    player = scene.unit(model.unit).player
    bands = {}
    for other in scene.models:
        if scene.unit(other.unit).player != player:
            answer = ask(ruleset, "band", model.id, other.id)
            if isinstance(answer, dict) and answer.get("band"):
                bands[other.id] = str(answer["band"])
    target = state.target
    return Answers(model.id, model.unit, target, bands,
                   ask(ruleset, "band", model.id, target) if target else None,
                   ask(ruleset, "los", model.id, target) if target else None,
                   ask(ruleset, "distance", model.id, target) if target else None,
                   ask(ruleset, "moves", model.unit) if scene.hexgrid is not None else None)


def regions_for(state: GameState, answers: Answers) -> list[hl.Region]:
    """Highlight regions, bottom to top: movement range, range bands, cover and sight line,
    then one spot per model (band colour for enemies, white for the selection)."""
    scene = state.scene
    if answers.selected is None:
        players = state.players
        return [hl.Spot(m.position, hl.PLAYER_COLOURS[players.index(scene.unit(m.unit).player) % 4])
                for m in scene.models]
    regions: list[hl.Region] = []
    if answers.moves and scene.hexgrid is not None:
        cells = frozenset(tuple(r["hex"]) for r in answers.moves.get("reachable", []))
        regions.append(hl.Hexes(scene.hexgrid, cells, hl.MOVE_RANGE))  # type: ignore[arg-type]
    unit = scene.unit(answers.unit) if answers.unit else None
    centres = tuple(m.position for m in scene.models_of(answers.unit)) if answers.unit else ()
    if unit and unit.weapons:
        for name, (inner, outer) in unit.weapons[0].bands.items():
            if name in hl.BAND_COLOURS:
                regions.append(hl.Band(centres, inner, outer, hl.BAND_COLOURS[name]))
    los = answers.los
    if isinstance(los, dict):
        regions += _sight(state, los)
    for model_id, band in answers.bands.items():
        regions.append(hl.Spot(scene.model(model_id).position, hl.BAND_COLOURS.get(band, hl.GREY)))
    regions.append(hl.Spot(scene.model(answers.selected).position, hl.SELECTED))
    return regions


def _sight(state: GameState, los: dict[str, Any]) -> list[hl.Region]:
    """The sight line (the rule system's, else centre to centre of the two models it names), the
    terrain blocking it, and the cover it crosses."""
    scene = state.scene
    line = los.get("line")
    models = los.get("models") or []
    if not line and len(models) == 2:
        line = [scene.model(models[0]).position, scene.model(models[1]).position]
    regions: list[hl.Region] = []
    blocked_by = los.get("blocked_by") or []
    cover_from = los.get("cover_from")
    sight = LineString(line) if line else None
    for piece in scene.terrain:
        polygon = Polygon(piece.polygon)
        if piece.id in blocked_by:
            regions.append(hl.Area(piece.polygon, hl.SIGHT_BLOCKED))
            continue
        if isinstance(cover_from, list):
            crossed = piece.id in cover_from
        else:
            crossed = (sight is not None and sight.intersects(polygon)
                       and not polygon.contains(sight.interpolate(0)))
        if crossed and piece.has("heavy_cover"):
            regions.append(hl.Area(piece.polygon, hl.COVER_HEAVY))
        elif crossed and piece.has("light_cover"):
            regions.append(hl.Area(piece.polygon, hl.COVER_LIGHT))
    if line:
        (ax, ay), (bx, by) = line
        colour = hl.SIGHT_CLEAR if los.get("visible") else hl.SIGHT_BLOCKED
        regions.append(hl.Line((ax, ay), (bx, by), colour))
    return regions
