"""The replay's checkpoints change nothing but the cost: on a long generated game, the board at every event,
asked in any order, is the one the log says (each model where its last move put it, the warnings raised
and not cleared) and the one a replay from the start gives; no step applies more than the checkpoint
interval; a game that goes on is taken up; an event this version cannot apply is skipped, as on resuming."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from table.live.replay import Replay
from table.live.session import replay as replay_log

BENCH = Path(__file__).resolve().parents[2] / "bench"
EVERY = 8


def make_game(count: int, seed: int) -> list[dict[str, Any]]:
    spec = importlib.util.spec_from_file_location("replay_events", BENCH / "replay_events.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["replay_events"] = module
    spec.loader.exec_module(module)
    return module.make_game(count, seed)


def logged(events: list[dict[str, Any]], first: int = 1) -> list[dict[str, Any]]:
    return [{**e, "seq": first + i, "ts": 100.0 + i} for i, e in enumerate(events)]


class Log:
    """The game log's `events(game, after)`, holding one game whose events the test adds."""

    def __init__(self, events: list[dict[str, Any]], game: int = 1) -> None:
        self.events, self.game = events, game

    def fetch(self, game: int, after: int) -> list[dict[str, Any]]:
        return [e for e in self.events if e["seq"] > after] if game == self.game else []


def positions_from_the_log(events: list[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """Where each model stands after `events`: where its last move put it, else where the game began it."""
    where = {m["id"]: (m["x"], m["y"]) for m in events[0]["scene"]["models"]}
    for event in events:
        if event["kind"] == "move":
            where[event["model"]] = tuple(event["to"])
    return where


def warnings_from_the_log(events: list[dict[str, Any]]) -> list[str]:
    raised: dict[str, None] = {}
    for event in events:
        if event["kind"] == "warning":
            raised[event["id"]] = None
        elif event["kind"] == "warning_cleared":
            raised.pop(event["id"], None)
    return list(raised)


@pytest.fixture(scope="module")
def game() -> list[dict[str, Any]]:
    return logged(make_game(240, seed=5))


def test_every_board_asked_in_any_order_is_the_one_the_log_says(game):
    replay = Replay(Log(game).fetch, every=EVERY, keep=0)
    assert len(replay.steps(1)) == len(game)          # loading the log makes the checkpoints
    assert {e["kind"] for e in game} >= {"move", "undo", "warning", "warning_cleared", "acknowledge", "phase"}
    order = [e["seq"] for e in game]
    random.Random(2).shuffle(order)
    for seq in order + order[::-1][:60]:
        before = replay.applied
        view = replay.at(1, seq)
        assert replay.applied - before <= EVERY
        upto = game[:seq]
        got = {m["id"]: (m["x"], m["y"]) for m in view["scene"]["models"]}
        assert got == positions_from_the_log(upto), seq
        assert [w["id"] for w in view["warnings"]] == warnings_from_the_log(upto), seq
        state = replay_log(upto).state
        assert view["phase"] == state.phase_dict() and view["selection"]["model"] == state.selected
        assert view["selection"]["target"] == (state.target if state.selected else None)   # as the table shows
        assert [w["acknowledged"] for w in view["warnings"]] == [w["id"] in state.acknowledged
                                                                 for w in view["warnings"]]


def test_a_game_that_goes_on_is_taken_up(game):
    log = Log(game[:50])
    replay = Replay(log.fetch, every=EVERY)
    early = replay.at(1, 30)
    assert len(replay.steps(1)) == 50 and replay.at(1, 120) is None
    log.events = game[:150]
    assert len(replay.steps(1)) == 150
    assert replay.at(1, 30) == early
    moved = {m["id"]: (m["x"], m["y"]) for m in replay.at(1, 120)["scene"]["models"]}
    assert moved == positions_from_the_log(game[:120])


def test_another_game_starts_the_replay_afresh(game):
    log = Log(game[:40])
    replay = Replay(log.fetch, every=EVERY)
    assert replay.at(1, 40) is not None
    log.events, log.game = logged([game[0]], first=500), 2
    assert [s["seq"] for s in replay.steps(2)] == [500] and replay.at(2, 40) is None
    assert replay.at(2, 500)["count"] == 1


def test_an_event_this_version_cannot_apply_is_skipped(game):
    events = game[:20] + [{"kind": "no_such_kind", "seq": 21, "ts": 0.0}] + logged(
        [{k: v for k, v in e.items() if k not in ("seq", "ts")} for e in game[20:40]], first=22)
    replay = Replay(Log(events).fetch, every=EVERY)
    skipped = replay.at(1, 21)
    assert skipped["event"]["summary"] == "No such kind: " and skipped["scene"] == replay.at(1, 20)["scene"]
    after = {m["id"]: (m["x"], m["y"]) for m in replay.at(1, 41)["scene"]["models"]}
    assert after == positions_from_the_log(game[:40])
