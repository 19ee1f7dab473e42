"""The game replay: the board at any event of a game, rebuilt from the game log.

The log is event-sourced, so the board after event N is the game's events up to N applied in turn
(`Session.apply`, as a restart resumes a game). Scrubbing back and forth through a long game would replay
it from the start at every step; instead the replay keeps a checkpoint every CHECKPOINT_EVERY events
(the session is immutable states, so a checkpoint is cheap) and the last point it showed, and starts from
whichever is nearest before the asked event: a step costs at most CHECKPOINT_EVERY events, and a step
forward one (bench/bench_replay.py measures both against a replay from the start).

Besides the positions, phase and selection, a point holds what the log says was shown then: the
warnings in force (raised and not cleared, acknowledged or not) and the last measurement, with the
interval it was answered with, until a model it measured moves.
"""

from __future__ import annotations

import bisect
import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from table.errors import TableError
from table.live import locks
from table.live.answers import Answers
from table.live.display import AnswerCache, answers_for
from table.live.events import decode
from table.live.session import GameState, Session
from table.live.summaries import summary
from table.rules import get_ruleset
from table.scene import Scene, parse_scene, scene_to_dict

log = logging.getLogger(__name__)
CHECKPOINT_EVERY = 32      # events between two checkpoints: the most a step replays
VIEWS_KEPT = 64            # boards already worked out, kept for phones asking the same again

Fetch = Callable[[int, int], list[dict[str, Any]]]    # (game, after seq) -> the game's events after it


@dataclass
class Point:
    """What the table showed after one event: the session (state and undo stack), the warnings in
    force by id, and the last measurement standing."""

    session: Session
    warnings: dict[str, dict[str, Any]] = field(default_factory=dict)
    measure: dict[str, Any] | None = None

    def copy(self) -> Point:
        return Point(self.session.copy(), dict(self.warnings), self.measure)

    def advance(self, event: dict[str, Any]) -> None:
        """Apply one logged event (one this version cannot apply is skipped, as on resuming a game)."""
        kind = event.get("kind")
        try:
            self.session.apply(decode(event))
        except TableError as exc:
            log.warning("replay: game log event %s skipped: %s", event.get("seq"), exc)
            return
        if kind == "game_start":
            self.warnings, self.measure = {}, None
        elif kind == "warning":
            self.warnings[str(event["id"])] = {"id": str(event["id"]), "kind": event.get("warning"),
                                               "message": event.get("message", ""),
                                               "units": list(event.get("units", [])), "seq": event["seq"]}
        elif kind == "warning_cleared":
            self.warnings.pop(str(event["id"]), None)
        elif kind == "measure":
            self.measure = {k: event.get(k) for k in ("seq", "question", "args", "answer")}
        elif kind == "move" and self.measure is not None and self._measured(str(event.get("model"))):
            self.measure = None

    def _measured(self, model: str) -> bool:
        """Whether the standing measurement named this model or its unit."""
        args = [str(a) for a in (self.measure or {}).get("args") or []]
        state = self.session.state
        unit = next((m.unit for m in state.scene.models if m.id == model), None) if state else None
        return model in args or (unit is not None and unit in args)


class Replay:
    """A game's events and the board at any of them (one game at a time: asking about another reads
    that one); safe to share between threads."""

    def __init__(self, fetch: Fetch, every: int = CHECKPOINT_EVERY, keep: int = VIEWS_KEPT):
        self._fetch, self.every, self.keep = fetch, every, keep
        self._lock = locks.lock("replay")
        self._game: int | None = None
        self._events: list[dict[str, Any]] = []
        self._seqs: list[int] = []
        self._checkpoints: list[Point] = []        # [k]: the point after event k * every
        self._frontier = Point(Session())          # the point after the last event loaded
        self._cursor: tuple[int, Point] | None = None
        self._views: OrderedDict[int, dict[str, Any]] = OrderedDict()
        self._answers = AnswerCache()
        self._origin: Scene | None = None
        self.applied = 0                          # events applied so far (the bench counts them)

    def steps(self, game: int) -> list[dict[str, Any]]:
        """Every event of `game` so far: its seq, time, kind and a sentence saying what happened."""
        with self._lock:
            self._load(game)
            return [self._step(e) for e in self._events]

    def at(self, game: int, seq: int) -> dict[str, Any] | None:
        """The board after the event numbered `seq` of `game` (None if the game has no such event)."""
        with self._lock:
            self._load(game)
            index = bisect.bisect_left(self._seqs, seq)
            if index == len(self._seqs) or self._seqs[index] != seq:
                return None
            view = self._views.pop(seq, None) or self._view(index, self._point(index))
            self._views[seq] = view
            while len(self._views) > self.keep:
                self._views.popitem(last=False)
            return view

    # ------------------------------------------------------------ on the lock

    def _load(self, game: int) -> None:
        """Take up the game's events logged since the last call (all of them for another game)."""
        if game != self._game:
            self._game, self._events, self._seqs, self._checkpoints = game, [], [], []
            self._frontier, self._cursor, self._origin = Point(Session()), None, None
            self._views.clear()
        fresh = self._fetch(game, self._seqs[-1] if self._seqs else 0)
        for event in fresh:               # checkpoints as the events come: no step replays more than `every`
            self._frontier.advance(event)
            self.applied += 1
            if len(self._events) % self.every == 0:
                self._checkpoints.append(self._frontier.copy())
            self._events.append(event)
            self._seqs.append(int(event["seq"]))
        if self._origin is None and self._events and self._events[0].get("kind") == "game_start":
            try:
                self._origin = parse_scene(self._events[0]["scene"], "game_start.scene")
            except TableError:
                self._origin = None

    def _point(self, index: int) -> Point:
        """The point after event `index`: from the cursor or the nearest checkpoint before it."""
        start, point = index // self.every * self.every, self._checkpoints[index // self.every]
        if self._cursor is not None and start <= self._cursor[0] <= index:
            start, point = self._cursor
        point = point.copy()
        for i in range(start + 1, index + 1):
            point.advance(self._events[i])
            self.applied += 1
        self._cursor = (index, point)
        return point

    def _step(self, event: dict[str, Any]) -> dict[str, Any]:
        return {"seq": event["seq"], "ts": event.get("ts"), "kind": event.get("kind"),
                "summary": summary(event, self._origin)}

    def _view(self, index: int, point: Point) -> dict[str, Any]:
        event, state = self._events[index], point.session.state
        head = {"seq": event["seq"], "game": self._game, "index": index, "count": len(self._events),
                "event": self._step(event)}
        if state is None:         # nothing applied yet (a log whose game_start this version refused)
            return {**head, "ruleset": None, "phase": {}, "scene": None, "selection": {}, "measure": None,
                    "warnings": []}
        selection = {**self._answers_of(state).to_json(), "last_roll": state.last_roll,
                     "ruler": state.ruler_dict()}
        warnings = [{**w, "acknowledged": w["id"] in state.acknowledged} for w in point.warnings.values()]
        return {**head, "ruleset": state.scene.ruleset, "phase": state.phase_dict(),
                "scene": scene_to_dict(state.scene), "selection": selection, "measure": point.measure,
                "warnings": warnings}

    def _answers_of(self, state: GameState) -> Answers:
        """The rule system's answers about the selection then, as the table showed them."""
        try:
            ruleset = get_ruleset(state.scene.ruleset)(state.scene, state.rulings)
        except TableError:
            return Answers()
        return answers_for(state, ruleset, self._answers)
