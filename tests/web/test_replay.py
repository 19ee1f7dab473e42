"""The game replay's API against a game whose every step the test knows: where the raider stood and faced,
what was selected and measured (with the camera's error bar), and which warning was in force."""

from __future__ import annotations

import math
import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from table.live.replay import Replay
from tests.web.replay_game import MOVED, MOVED_HEADING, RAIDER, RIFLE, START, play
from tests.web.server import make_app


@pytest.fixture
def played(tmp_path):
    game = play(tmp_path)
    yield game
    game.controller.close()


@pytest.fixture
def replay_client(played, tmp_path):
    return make_app(played.controller, tmp_path).test_client()


def where(view: dict, model: str) -> tuple[float, float, float]:
    m = next(m for m in view["scene"]["models"] if m["id"] == model)
    return m["x"], m["y"], m["heading"]


def test_the_replay_lists_every_event_of_the_game_with_a_sentence(played, replay_client):
    listed = replay_client.get("/api/replay").get_json()
    kinds = [e["kind"] for e in listed["events"]]
    assert kinds == ["game_start", "select", "target", "measure", "move", "warning", "warning", "phase",
                     "warning_cleared"]
    assert listed["count"] == len(kinds) and listed["game"] == played.controller.game
    seqs = [e["seq"] for e in listed["events"]]
    assert seqs == sorted(seqs) and all(isinstance(e["ts"], float) for e in listed["events"])
    said = [e["summary"] for e in listed["events"]]
    assert said[1] == "Rifle Squad (rifles-1) selected."
    assert said[3] == f"Measured distance rifles-1 → {RAIDER}: 32.06\" ± 0.06\"."    # as logged, with its interval
    assert said[4] == f"Raiders ({RAIDER}) moved 12.0\" to (12.0, 20.0)."
    assert said[5].startswith(f"Warning: model {RAIDER} moved 12.0\"")


OVERMOVE, COHESION = "overmove", "cohesion:raiders"     # the raider moved 12" on 7", away from its unit
EVENTS = ("game_start", "select", "target", "measure", "move", OVERMOVE, COHESION, "phase", "warning_cleared")


def test_the_board_at_each_event_is_where_the_models_stood_then(replay_client):
    listed = replay_client.get("/api/replay").get_json()["events"]
    steps = dict(zip(EVENTS, (e["seq"] for e in listed), strict=True))
    at = {name: replay_client.get(f"/api/replay/{seq}").get_json() for name, seq in steps.items()}
    for name in EVENTS[:4]:
        assert where(at[name], RAIDER) == (*START, 90.0)
    for name in EVENTS[4:]:
        assert where(at[name], RAIDER) == (*MOVED, MOVED_HEADING)
    assert all(where(view, "rifles-1")[:2] == RIFLE for view in at.values())
    assert at["move"]["seq"] == steps["move"] and at["move"]["event"]["kind"] == "move"
    assert [at[name]["index"] for name in EVENTS] == list(range(len(EVENTS)))

    # the selection and its answers, worked out again from the board then
    assert at["select"]["selection"]["model"] == "rifles-1" and at["select"]["selection"]["target"] is None
    assert at["target"]["selection"]["distance"]["distance"] == pytest.approx(math.dist(RIFLE, START), abs=0.01)
    assert at["move"]["selection"]["distance"]["distance"] == pytest.approx(math.dist(RIFLE, MOVED), abs=0.01)
    assert at["phase"]["selection"]["model"] is None                    # a new phase clears the selection
    assert at["game_start"]["phase"]["phase"] != at["phase"]["phase"]["phase"]

    # the measurement as it was answered then, with the camera's error bar, until the raider moves
    measured = at["measure"]["measure"]
    assert measured["seq"] == steps["measure"] and measured["args"] == ["rifles-1", RAIDER]
    lo, hi = measured["answer"]["interval"]
    assert lo < math.dist(RIFLE, START) < hi and hi - lo < 0.5
    assert at["move"]["measure"] is None

    # each warning in force from when it was raised until it was cleared
    in_force = {name: [w["id"].split(":2")[0] if w["kind"] == "overmove" else w["id"] for w in at[name]["warnings"]]
                for name in EVENTS}
    assert in_force == {"game_start": [], "select": [], "target": [], "measure": [], "move": [],
                        OVERMOVE: [f"overmove:{RAIDER}"], COHESION: [f"overmove:{RAIDER}", COHESION],
                        "phase": [f"overmove:{RAIDER}", COHESION], "warning_cleared": [COHESION]}
    assert "moved 12.0\"" in at[OVERMOVE]["warnings"][0]["message"]
    assert not any(w["acknowledged"] for view in at.values() for w in view["warnings"])


def test_scrubbing_back_and_forth_gives_the_same_boards(replay_client):
    seqs = [e["seq"] for e in replay_client.get("/api/replay").get_json()["events"]]
    forward = [replay_client.get(f"/api/replay/{s}").get_json() for s in seqs]
    backward = [replay_client.get(f"/api/replay/{s}").get_json() for s in reversed(seqs)]
    assert backward[::-1] == forward


def test_the_replay_follows_the_game_as_it_goes_on(played, replay_client):
    before = replay_client.get("/api/replay").get_json()["count"]
    played.controller.command("select", id="sniper-1")
    listed = replay_client.get("/api/replay").get_json()
    assert listed["count"] == before + 1 and listed["events"][-1]["kind"] == "select"
    view = replay_client.get(f"/api/replay/{listed['events'][-1]['seq']}").get_json()
    assert view["selection"]["model"] == "sniper-1" and where(view, RAIDER) == (*MOVED, MOVED_HEADING)


@pytest.mark.parametrize("seq, status", [("abc", 400), ("0", 400), ("-3", 400), ("1.5", 400),
                                         ("99999", 404)])
def test_a_bad_seq_is_refused_naming_it(replay_client, seq, status):
    response = replay_client.get(f"/api/replay/{seq}")
    assert response.status_code == status
    assert response.get_json()["field"] == "seq"


def test_an_earlier_game_stays_in_the_replay_after_a_new_one_starts(played, replay_client):
    first = replay_client.get("/api/replay").get_json()
    played.controller.command("new_game")
    now = replay_client.get("/api/replay").get_json()
    assert now["game"] != first["game"] and now["events"][0]["kind"] == "game_start"
    assert now["events"][0]["seq"] > first["events"][-1]["seq"]
    assert [(g["game"], g["events"], g["ended"] is None) for g in now["games"]] == [
        (first["game"], first["count"], False), (now["game"], now["count"], True)]
    again = replay_client.get(f"/api/replay?game={first['game']}").get_json()
    assert again["game"] == first["game"] and again["events"] == first["events"]
    measured = next(e["seq"] for e in first["events"] if e["kind"] == "measure")
    view = replay_client.get(f"/api/replay/{measured}").get_json()      # a link from the game before
    assert view["game"] == first["game"] and where(view, RAIDER) == (*START, 90.0)
    assert view["measure"]["answer"]["distance"] == pytest.approx(math.dist(RIFLE, START), abs=0.01)
    started = replay_client.get(f"/api/replay/{now['events'][0]['seq']}").get_json()
    assert started["game"] == now["game"] and where(started, RAIDER) == (*MOVED, MOVED_HEADING)


@pytest.mark.parametrize("game, status", [("x", 400), ("0", 400), ("99", 404)])
def test_a_bad_game_is_refused_naming_it(replay_client, game, status):
    response = replay_client.get(f"/api/replay?game={game}")
    assert response.status_code == status and response.get_json()["field"] == "game"



def test_phones_scrubbing_while_the_game_goes_on_each_get_the_board_they_asked_for(played, tmp_path):
    app = make_app(played.controller, tmp_path)
    playing = threading.Event()
    playing.set()

    def scrub(phone: int) -> dict[int, dict]:
        client, rng, seen = app.test_client(), random.Random(phone), {}
        while playing.is_set():
            seqs = [e["seq"] for e in client.get("/api/replay").get_json()["events"]]
            assert seqs == sorted(set(seqs))                            # every event once, in order
            for seq in rng.sample(seqs, min(len(seqs), 4)):
                seen[seq] = client.get(f"/api/replay/{seq}").get_json()
        return seen

    with ThreadPoolExecutor(4) as pool:
        phones = [pool.submit(scrub, phone) for phone in range(3)]
        for turn in range(30):                                         # the players go on meanwhile
            played.controller.command("select", id=["rifles-1", "sniper-1", "gunner-1"][turn % 3])
        playing.clear()
        seen = [phone.result() for phone in phones]
    logged = [e["seq"] for e in played.controller.gamelog.events(played.controller.game)]
    assert [e["seq"] for e in app.test_client().get("/api/replay").get_json()["events"]] == logged
    afresh = Replay(lambda game, after: played.controller.gamelog.events(game, after=after))
    for views in seen:
        for seq, view in views.items():
            assert {**view, "count": None} == {**afresh.at(played.controller.game, seq), "count": None}
