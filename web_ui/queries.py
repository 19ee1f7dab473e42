"""Read-only rule questions asked of the snapshot's scene (distance, los, band, cohesion, moves...)."""

from __future__ import annotations

import threading
from typing import Any

from table.errors import QueryError
from table.rules import get_ruleset
from table.rules.base import Ruleset
from table.scene import parse_scene
from table.snapshot import Snapshot
from web_ui.errors import ApiError

MAX_ARGS = 4


class RulesetCache:
    """The rule system for the newest snapshot, built once per sequence number."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seq: int | None = None
        self._ruleset: Ruleset | None = None

    def for_snapshot(self, snapshot: Snapshot) -> Ruleset:
        with self._lock:
            if self._seq != snapshot.seq or self._ruleset is None:
                scene = parse_scene(snapshot.scene, "scene")
                rulings = snapshot.status.get("rulings")
                options = rulings if isinstance(rulings, dict) else None
                self._ruleset = get_ruleset(scene.ruleset)(scene, options)
                self._seq = snapshot.seq
            return self._ruleset


def questions(ruleset: Ruleset) -> list[str]:
    return sorted(ruleset.questions())


def ask(ruleset: Ruleset, question: str, args: list[str]) -> Any:
    """Ask `question`; an unknown question is a 404 naming `question`, a bad argument a 400 naming `arg`."""
    if question not in ruleset.questions():
        raise ApiError(404, "question", f"{ruleset.name} does not answer {question!r} "
                                        f"(it answers: {', '.join(questions(ruleset)) or 'nothing yet'})")
    if len(args) > MAX_ARGS:
        raise ApiError(400, "arg", f"at most {MAX_ARGS} arguments")
    try:
        return ruleset.ask(question, args)
    except QueryError as exc:
        raise ApiError(400, "arg", str(exc)) from None
