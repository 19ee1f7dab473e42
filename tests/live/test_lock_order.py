"""The controller's lock order (issue 25): a new game started while the background worker finishes a
commit froze the table for good, because `start_game` held the controller's lock and waited for the
worker while the worker's idle refresh waited for that lock."""

from __future__ import annotations

import json
import sys
import threading
import time

from table.live import game_commands
from tests import lockorder
from tests.live.live_fakes import DEMO_SCENE

BOUND_S = 5.0          # every command answers within this (a healthy one takes milliseconds)


def answered_within(run, bound: float) -> dict:
    """Run `run()` on a thread of its own; what it answered (or raised) within `bound` seconds."""
    done: dict = {}

    def call() -> None:
        try:
            done["answer"] = run()
        except Exception as exc:  # the test reads it
            done["error"] = exc

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(bound)
    return done


def in_function(thread: threading.Thread, name: str) -> bool:
    """Whether the thread is (somewhere down its stack) in a function of that name."""
    frame = sys._current_frames().get(thread.ident)
    while frame is not None:
        if frame.f_code.co_name == name:
            return True
        frame = frame.f_back
    return False


def eventually(condition, timeout: float = BOUND_S) -> bool:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.005)
    return condition()


def test_a_new_game_while_the_worker_finishes_a_commit_does_not_freeze_the_table(make_controller, monkeypatch):
    c = make_controller()
    document = json.loads(DEMO_SCENE.read_text())
    committing, commit_go = threading.Event(), threading.Event()
    parsing, parse_go = threading.Event(), threading.Event()
    append_all, parse_scene = c.gamelog.append_all, game_commands.parse_scene

    def slow_disk(game, events):        # the roll's commit ends when the test says
        committing.set()
        commit_go.wait(BOUND_S)
        return append_all(game, events)

    def big_scene(doc, where):          # the new game's handler is parsing its scene (under the lock)
        parsing.set()
        parse_go.wait(BOUND_S)
        return parse_scene(doc, where)

    monkeypatch.setattr(c.gamelog, "append_all", slow_disk)
    monkeypatch.setattr(game_commands, "parse_scene", big_scene)
    rolled: dict = {}
    roll = threading.Thread(target=lambda: rolled.update(c.command("roll", kind="dice", count=2, sides=6)),
                            daemon=True)
    roll.start()                         # its commit waits on the slow disk, the roll waits without the lock
    assert committing.wait(BOUND_S)
    new: dict = {}
    new_game = threading.Thread(target=lambda: new.update(answered_within(
        lambda: c.command("new_game", scene=document), 3 * BOUND_S)), daemon=True)
    new_game.start()
    assert parsing.wait(BOUND_S)
    commit_go.set()                      # the worker finishes the commit, finds its queue empty, and
    assert eventually(lambda: in_function(c._background._thread, "_settled"))   # waits for the lock
    parse_go.set()                       # the new game starts while the worker wants the lock
    new_game.join(3 * BOUND_S)
    roll.join(BOUND_S)
    assert "answer" in new, "the new game never answered: the table froze"
    assert new["answer"]["game"] == 2 and c.game == 2
    assert rolled["kind"] == "dice"
    # and the table goes on: a roll in the new game is on disk and shown
    assert answered_within(lambda: c.command("roll", kind="dice", count=1, sides=6), BOUND_S).get("answer")
    assert [e["kind"] for e in c.gamelog.events(2)] == ["game_start", "roll"]
    assert c.snapshot().status["game"] == 2


def test_the_checker_finds_the_old_order_though_nothing_froze(make_controller):
    """The old start_game held the controller's lock and waited for the worker; the worker refreshes
    under that lock when it runs idle. Planting that order again (the worker idle, so nothing
    freezes this time) is a cycle the checker names."""
    tracker = lockorder.Tracker()
    with lockorder.tracking(tracker):
        c = make_controller()               # its locks report to this tracker
    c.command("roll", kind="dice", count=2, sides=6)     # committed on the worker, then its refresh
    assert tracker.cycle() is None
    with c._lock:                           # the old order: hold the lock, wait for the worker
        assert c.settle(1.0)
    cycle = tracker.cycle()
    assert cycle is not None, "the checker missed the old deadlock"
    assert {(a, b) for a, b, _ in cycle} == {("controller", "worker"), ("worker", "controller")}
    text = lockorder.describe(cycle)
    assert "test_lock_order.py" in text and "_settled" in text      # where each edge was first seen
    assert lockorder.out_of_order(tracker)[0][:2] == ("controller", "worker")   # and the written order says so
