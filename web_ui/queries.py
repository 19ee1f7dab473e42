"""Read-only rule questions (distance, los, band, cohesion, moves...), asked of the rule system the
controller keeps for its newest snapshot (`PanelController.questions`)."""

from __future__ import annotations

from typing import Any

from table.errors import QueryError
from table.rules.base import Ruleset
from web_ui.errors import ApiError

MAX_ARGS = 4


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
