"""The commands of a game's life: start a new one (a scene, or a rule system's board: a scenario or an
empty one, with the players and their army lists), end the one on the table, resume an earlier one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from table.errors import QueryError, SceneError
from table.live.command_api import TableController
from table.rules import get_ruleset
from table.rules.setups import Army, check_units, compose, parse_army, parse_scenario
from table.scene import Scene, parse_scene


def new_game(c: TableController, scene: Any = None, ruleset: Any = None, scenario: Any = None,
             armies: Any = None, players: Any = None) -> dict[str, Any]:
    """A new game: the `scene` given; else a board of `ruleset` (default: the table's) from `scenario`
    (a `smarttable-scenario/1` document; none: an empty board) with `players` (names in turn order) and
    `armies` (army lists, or `{"army": list, "player": name}`); nothing given: the scene on the table
    again, every model where it stands (a rematch). The game on the table stays in the log."""
    if scene is not None and any(v is not None for v in (ruleset, scenario, armies, players)):
        raise QueryError("scene: give a scene, or ruleset, scenario, armies and players, not both")
    if scene is not None:
        started = parse_scene(scene, "scene")
    elif all(v is None for v in (ruleset, scenario, armies, players)):
        started = c.state.scene
    else:
        started = _composed(c, ruleset, scenario, armies, players)
    c.start_game(started)
    return {"game": c.game, "ruleset": started.ruleset, "players": c.state.players,
            "units": [u.id for u in started.units]}


def _composed(c: TableController, ruleset: Any, scenario: Any, armies: Any, players: Any) -> Scene:
    system = get_ruleset(str(ruleset)).name if ruleset is not None else \
        str(scenario.get("ruleset")) if isinstance(scenario, dict) else c.state.scene.ruleset
    board = parse_scenario(scenario, "scenario") if scenario is not None else None
    if players is not None and not (isinstance(players, list) and players
                                    and all(isinstance(p, str) and p for p in players)):
        raise QueryError("players: expected a list of player names")
    chosen: list[tuple[Army, str | None]] = []
    for i, entry in enumerate(armies or []):
        document, player = (entry.get("army"), entry.get("player")) if isinstance(entry, dict) and \
            "army" in entry else (entry, None)
        try:
            chosen.append((parse_army(document, f"armies[{i}]"), None if player is None else str(player)))
        except SceneError as exc:
            raise QueryError(str(exc)) from None
    scene = compose(system, scenario=board, armies=chosen, players=players)
    check_units(scene)
    return scene


def end_game(c: TableController, reason: Any = None) -> dict[str, Any]:
    """End the game on the table (it stays in the log, to replay or resume)."""
    c.end_game(None if reason is None else str(reason))
    return {"game": c.game, "over": True}


def resume_game(c: TableController, game: Any) -> dict[str, Any]:
    """Make an earlier game of the log the one on the table again, where it stood."""
    if isinstance(game, bool) or not isinstance(game, int):
        raise QueryError(f"game: expected a game number, got {game!r}")
    c.resume_game(game)
    return {"game": c.game, "ruleset": c.state.scene.ruleset, "phase": c.state.phase_dict()}


resume_game.settles_first = True     # type: ignore[attr-defined]  # it reads the game's events from the log

COMMANDS: dict[str, Callable[..., dict[str, Any]]] = {
    "new_game": new_game, "end_game": end_game, "resume_game": resume_game}
AFTER_THE_GAME = frozenset({"new_game", "resume_game"})      # what an ended game still takes
