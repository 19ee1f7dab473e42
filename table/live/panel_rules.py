"""The rule system that answers the panel's read-only questions (`GET /api/query/...`) about the
newest snapshot's scene, with the camera's error bars and the snapshot's rulings, so an answer on a
phone carries the same interval as the snapshot's models.

It is an instance of its own, made once per scene, rulings and error bars and shared by the panel's
threads (under its lock); the frame path keeps its own (answering.py), so a slow question on a phone
never holds the controller's lock. Who runs where: table/live/controller.py.
"""

from __future__ import annotations

import json
from typing import Any

from table.errors import QueryError
from table.live import locks
from table.live.publisher import Publisher
from table.live.sigmas import with_sigmas
from table.rules import get_ruleset
from table.rules.base import Ruleset
from table.scene import Scene
from table.snapshot import Snapshot


class PanelRules:
    """The newest snapshot's rule system, remade only when its scene, rulings or error bars change."""

    def __init__(self, publisher: Publisher) -> None:
        self._publisher = publisher
        self._lock = locks.lock("panel-rules")  # the panel's threads: one makes it, the others wait
        self._scene: Scene | None = None
        self._rest: tuple[Any, ...] = ()          # the rulings and error bars it was made with
        self._ruleset: Ruleset | None = None

    def current(self) -> tuple[Snapshot, Ruleset]:
        """The newest snapshot and its rule system (QueryError before the first game is published,
        or when the rulings do not fit the rule system)."""
        snapshot, state, sigmas = self._publisher.published()
        if state is None:
            raise QueryError("the table has not published a game yet")
        rest = (json.dumps(state.rulings, sort_keys=True), tuple(sorted(sigmas.items())))
        with self._lock:
            if self._ruleset is None or self._scene is not state.scene or self._rest != rest:
                rules = get_ruleset(state.scene.ruleset)
                self._ruleset = rules(with_sigmas(state.scene, sigmas), state.rulings)
                self._scene, self._rest = state.scene, rest
            return snapshot, self._ruleset
