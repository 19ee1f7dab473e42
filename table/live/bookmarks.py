"""Dispute bookmarks: one tap on the panel (or a long press of `measure`) keeps the evidence of the current
measurement, so a judge can see later what the table saw and answered.

The current measurement is two models (or units) named by the panel's measure card, else the table's
selection (the selected model and its target), else the shared ruler. The evidence: the answers asked again
with the camera's error (distance with its interval, band, sight, arc: whichever the rule system answers),
the board (the scene with each model's sigma), the rule system and the rulings in force, the time, the game,
and the newest camera frame cropped around each model involved and whole at low resolution, with the bases
and the measured line drawn. It is written to disk (table/live/bookmark_store.py) before a `bookmark` event
goes to the game log; that event's sequence number is the bookmark's place in the log.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Protocol

from table.errors import QueryError, TableError
from table.geometry import footprint_vertices
from table.live.bookmark_store import FORMAT, BookmarkStore, answer_text, too_close
from table.live.events import Bookmark, Event
from table.live.gamelog import GameLog
from table.live.session import GameState
from table.live.sigmas import Sigmas, with_sigmas
from table.rules.base import Ruleset
from table.scene import Model, Scene, scene_to_dict

QUESTIONS = ("distance", "band", "los", "arc")      # what the panel's measure card shows


class Table(Protocol):
    """What a bookmark needs of the controller (`table.live.controller.TableController`)."""

    bookmarks: Bookmarks | None

    @property
    def game(self) -> int: ...

    @property
    def state(self) -> GameState: ...

    def ruleset(self) -> Ruleset | None: ...

    def model_sigmas(self) -> Sigmas: ...

    def latest_frame(self) -> tuple[Any, Any]: ...

    def emit(self, event: Event) -> GameState: ...


@dataclass(frozen=True)
class Moment:
    """The table at the instant a bookmark is asked for (taken under the controller's lock, cheaply): the
    game, the rule system with the camera's sigmas, and the newest frame with its calibration."""

    game: int
    state: GameState
    ruleset: Ruleset
    frame: Any
    calibration: Any


def moment(c: Table) -> Moment:
    """The table now (call holding the controller's lock); QueryError when it keeps no bookmarks or its
    rule system cannot answer."""
    if c.bookmarks is None:
        raise QueryError("bookmark: this table keeps no bookmarks (its game log is in memory)")
    ruleset = c.ruleset()
    if ruleset is None:
        raise QueryError("bookmark: the rule system cannot answer with the current rulings")
    sigmas = c.model_sigmas()
    if sigmas:
        ruleset = type(ruleset)(with_sigmas(ruleset.scene, sigmas), ruleset.rulings)
    frame, calibration = c.latest_frame()
    return Moment(c.game, c.state, ruleset, frame, calibration)


class Bookmarks:
    """A table's bookmarks: the store, and each one's place in the game log."""

    def __init__(self, store: BookmarkStore, gamelog: GameLog):
        self.store, self.gamelog = store, gamelog
        self._seqs: dict[int, int] = {}
        self._read: dict[int, int] = {}          # game -> the last event of it looked through

    def seq_of(self, ident: int, game: int) -> int | None:
        """The sequence number of the bookmark's event in the game log (None until it is committed);
        each game's events are read once, newer ones as they come."""
        if ident not in self._seqs:
            for event in self.gamelog.events(game, after=self._read.get(game, 0)):
                self._read[game] = event["seq"]
                if event["kind"] == "bookmark" and isinstance(event.get("id"), int):
                    self._seqs[event["id"]] = event["seq"]
        return self._seqs.get(ident)

    def summaries(self) -> list[dict[str, Any]]:
        """Every bookmark's summary with its log position, oldest first."""
        return [{**s, "seq": self.seq_of(s["id"], s["game"])} for s in self.store.summaries()]

    def get(self, ident: int) -> dict[str, Any]:
        """One bookmark's evidence with its log position."""
        document = self.store.get(ident)
        return {**document, "log": {"game": document["game"], "seq": self.seq_of(ident, document["game"])}}


def _side(scene: Scene, ident: str, towards: tuple[float, float] | None) -> Model:
    """The model a measurement end stands for: the model itself, or the unit's model nearest `towards`."""
    if any(m.id == ident for m in scene.models):
        return scene.model(ident)
    models = scene.models_of(ident)
    if not models:
        raise QueryError(f"bookmark: no model or unit {ident!r} on the table")
    return min(models, key=lambda m: math.dist(m.position, towards) if towards else 0.0)


def _centre(scene: Scene, ident: str) -> tuple[float, float]:
    models = [m for m in scene.models if m.id == ident] or list(scene.models_of(ident))
    if not models:
        raise QueryError(f"bookmark: no model or unit {ident!r} on the table")
    points = [m.position for m in models]
    return (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))


def _ask(ruleset: Ruleset, question: str, args: list[str]) -> Any:
    try:
        return ruleset.ask(question, args)
    except TableError as exc:
        return {"declined": str(exc)}


def _pair(state: GameState, ruleset: Ruleset, a: str, b: str) -> tuple[dict[str, Any], list[Model]]:
    """The measure card's answers between `a` and `b` (model or unit ids) and the two models involved."""
    scene = ruleset.scene
    first, second = _side(scene, a, _centre(scene, b)), _side(scene, b, _centre(scene, a))
    weapon = dict(state.weapons).get(first.unit)
    answers = {}
    for question in QUESTIONS:
        if question in ruleset.questions():
            args = [a, b, *([weapon] if question == "band" and weapon else [])]
            answers[question] = _ask(ruleset, question, args)
    return ({"question": "distance", "between": [a, b], "answers": answers,
             "line": [list(first.position), list(second.position)]}, [first, second])


def _ruler(state: GameState) -> dict[str, Any]:
    ruler = state.ruler_dict()
    assert ruler is not None
    return {"question": "ruler", "between": [ruler["from"], ruler["to"]],
            "answers": {"distance": {"distance": ruler["distance"], "method": "centre"}},
            "line": [ruler["from"], ruler["to"]]}


def measurement(m: Moment, a: str | None, b: str | None, ruler: bool = False
                ) -> tuple[dict[str, Any], list[Model]]:
    """The measurement asked for (`a`, `b`: two model or unit ids; `ruler`: the shared ruler; none: the
    table's selection, else the ruler): the answers and the models involved."""
    state = m.state
    if (a is None) != (b is None):
        raise QueryError("bookmark: give both models of the measurement, or neither (the table's selection)")
    if ruler:
        if a is not None or state.ruler is None:
            raise QueryError("bookmark: no ruler is laid" if state.ruler is None
                             else "bookmark: the ruler or two models, not both")
        return _ruler(state), []
    if a is None and state.selected is not None and state.target is not None:
        a, b = state.selected, state.target
    if a is not None and b is not None:
        return _pair(state, m.ruleset, str(a), str(b))
    if state.ruler is not None:
        return _ruler(state), []
    raise QueryError("bookmark: nothing measured: tap two models, select a model and a target, "
                     "or lay the ruler")


def _pictures(m: Moment, models: list[Model], line: list[list[float]]
              ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The camera's pictures of the measurement, and what the camera was doing (no frame: none)."""
    if m.frame is None or m.calibration is None:
        return [], {"frame": None, "calibrated": m.calibration is not None}
    from table.live.evidence_images import Mark, pictures

    marks = [Mark(x.id, *x.position, tuple((float(u), float(v)) for u, v in footprint_vertices(x)))
             for x in models]
    (x0, y0), (x1, y1) = line
    shown = pictures(m.frame.image, m.calibration, marks, ((x0, y0), (x1, y1)))
    height, width = m.frame.image.shape[:2]
    camera = {"frame": m.frame.index, "width": width, "height": height, "calibrated": True,
              "reprojection_error_px": round(float(m.calibration.reprojection_error_px), 3)}
    return shown, camera


def evidence(m: Moment, a: Any = None, b: Any = None, ruler: bool = False) -> dict[str, Any]:
    """The bookmark's evidence from the moment it was asked for (the slow part: the answers with the camera's
    error, the pictures; run without the controller's lock). Its `id` is given when it is kept."""
    found, models = measurement(m, None if a is None else str(a), None if b is None else str(b), ruler)
    shown, camera = _pictures(m, models, found["line"])
    now = time.time()
    scene = m.ruleset.scene
    return {"format": FORMAT, "id": None, "time": now,
            "time_text": time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(now)), "game": m.game,
            "ruleset": scene.ruleset, "rulings": m.ruleset.rulings, "phase": m.state.phase_dict(),
            "measurement": {**found, "models": [x.id for x in models]}, "scene": scene_to_dict(scene),
            "camera": camera, "pictures": shown}


def keep(c: Table, document: dict[str, Any]) -> dict[str, Any]:
    """Write the evidence to disk, then log its `bookmark` event (call holding the controller's lock, so
    the ids follow the log's order); its summary."""
    if c.bookmarks is None:
        raise QueryError("bookmark: this table keeps no bookmarks (its game log is in memory)")
    store = c.bookmarks.store
    found = document["measurement"]
    document = {**document, "id": store.next_id()}
    store.save(document)
    text = answer_text(found)
    c.emit(Bookmark(document["id"], found["question"], found["between"], text, too_close(found)))
    return {"bookmark": {k: document[k] for k in ("id", "time", "game")} | {
        "question": found["question"], "between": found["between"], "text": answer_text(found),
        "too_close_to_call": too_close(found), "pictures": len(document["pictures"])}}
