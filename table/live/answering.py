"""The rule system's answers for the live game: the rule system itself (made once per scene and
rulings), its answers about the selection, the target's band asked with the camera's sigmas, and the
situation report behind the warnings (slow: asked on the background worker for each new scene).

Everything here is read and written under the controller's lock, except the report the worker
hands over, which has a lock of its own (table/live/controller.py says who runs where).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from table.errors import TableError
from table.live import close_call, locks
from table.live.answers import Answers
from table.live.background import Background
from table.live.display import AnswerCache, answers_for, situation_of
from table.live.session import GameState
from table.live.sigmas import Sigmas
from table.rules import get_ruleset
from table.rules.base import Ruleset
from table.scene import Scene

Report = dict[str, Any] | None


class Answering:
    """The current rule system and its answers, each remade only when what it depends on changed."""

    def __init__(self, on_error: Callable[[str], None]) -> None:
        self._on_error = on_error
        self.bands = AnswerCache()                       # band answers by the models' positions
        self._ruleset_key: tuple[Any, ...] = ()
        self._ruleset: Ruleset | None = None
        self._answers_key: tuple[Any, ...] = ()
        self._answers = Answers()
        self._close_key: tuple[Any, ...] = ()
        self._close: dict[str, Any] | None = None

    def ruleset(self, state: GameState) -> Ruleset | None:
        """The rule system for the state's scene and rulings (None if the rulings do not fit it)."""
        key = (id(state.scene), json.dumps(state.rulings, sort_keys=True))
        if key != self._ruleset_key:
            try:
                ruleset: Ruleset | None = get_ruleset(state.scene.ruleset)(state.scene, state.rulings)
            except TableError as exc:
                self._on_error(f"rule system: {exc}")
                ruleset = None
            self._ruleset_key, self._ruleset = key, ruleset
        return self._ruleset

    def answers(self, state: GameState) -> Answers:
        """What the LEDs and the panel show about the selection."""
        ruleset = self.ruleset(state)
        # the ruleset object (ids get reused) stands for the scene and rulings
        key = (ruleset, state.selected, state.target, state.destination, state.phase, state.weapons)
        if key != self._answers_key:
            self._answers = answers_for(state, ruleset, self.bands) if ruleset is not None else Answers()
            self._answers_key = key
        return self._answers

    def close_call(self, state: GameState, sigmas: Sigmas) -> dict[str, Any] | None:
        """The target's band asked with the camera's sigmas, if it is too close to call."""
        answers = self.answers(state)
        key = (self._answers_key, tuple(sorted(sigmas.items())))
        if key != self._close_key:
            self._close = close_call.band_call(state, self.ruleset(state), answers, sigmas)
            self._close_key = key
        return self._close


class Reports:
    """The situation report behind the warnings, one per scene, asked on the background worker."""

    def __init__(self, background: Background) -> None:
        self._background = background
        self._lock = locks.lock("reports")        # guards _fresh: the worker writes it, the frame path reads
        self._fresh: tuple[Scene, Report] | None = None
        self._asked: Scene | None = None
        self._scene: Scene | None = None
        self._report: Report = None

    def current(self, state: GameState, now: bool = False) -> Report:
        """The report for the state's scene if there is one yet (`now`: make it on this thread), else
        the last one, while the worker makes the new one."""
        if self._scene is state.scene:
            return self._report
        with self._lock:
            fresh = self._fresh
        if fresh is not None and fresh[0] is state.scene:
            self._scene, self._report = fresh
        elif now:
            self._scene, self._report = state.scene, situation_of(state)
            with self._lock:
                self._fresh = (self._scene, self._report)
        elif self._asked is not state.scene:
            self._asked = state.scene
            self._background.submit(lambda: self._make(state), polite=True)
        return self._report

    def _make(self, state: GameState) -> None:
        """On the worker."""
        report = situation_of(state)
        with self._lock:
            self._fresh = (state.scene, report)
