"""The frame-to-LED path does not wait for the game log or the rule system's full report, and
nothing is acknowledged (in the snapshot) before it is committed."""

from __future__ import annotations

import threading

from table.live import highlight as hl
from tests.live.live_fakes import frame, move


def led(controller, point):
    return controller.hw.strip.last[controller.layout.nearest(point)]


def test_leds_show_a_move_before_the_commit_and_the_snapshot_only_after(make_controller, pipeline):
    c = make_controller()
    c.command("select", id="rifles-1")
    before = c.snapshot()
    gate, real_append = threading.Event(), c.gamelog.append_all

    def slow_disk(game, events):
        assert gate.wait(5.0)
        return real_append(game, events)

    c.gamelog.append_all = slow_disk
    # the sniper walks from 44" away (out of range) to 34.0" from rifles-1: the cold band
    pipeline.see({23: (38.0, 20.0)}, (move(23, (38.0, 6.0), (38.0, 20.0)),))
    c.process(frame(1), wait=False)
    assert led(c, (38.0, 20.0)) == hl.BAND_COLOURS["cold"]         # the LEDs already show it
    assert c.snapshot().seq == before.seq                            # not acknowledged: not on disk
    assert not [e for e in c.gamelog.events(c.game) if e["kind"] == "move"]
    gate.set()
    assert c.settle()
    after = c.snapshot()
    moved = next(m for m in after.scene["models"] if m["id"] == "sniper-1")
    assert (moved["x"], moved["y"]) == (38.0, 20.0) and after.selection["bands"]["sniper-1"] == "cold"
    assert [e["model"] for e in c.gamelog.events(c.game) if e["kind"] == "move"] == ["sniper-1"]


def test_a_move_reasks_only_the_pairs_whose_models_moved(make_controller, pipeline):
    c = make_controller()
    c.command("select", id="rifles-1")
    enemies = len(c.snapshot().selection["bands"])
    asked = c.answers.bands.asked
    assert enemies >= 4 and asked >= enemies
    pipeline.see({23: (38.0, 20.0)}, (move(23, (38.0, 6.0), (38.0, 20.0)),))
    c.process(frame(1))
    assert c.answers.bands.asked == asked + 1                # rifles-1 to sniper-1 only
    pipeline.see({10: (10.0, 38.0)}, (move(10, (10.0, 40.0), (10.0, 38.0)),))
    c.process(frame(2))
    assert c.answers.bands.asked == asked + 1 + enemies      # the selected model moved: every pair


def test_the_warnings_report_follows_on_the_worker(make_controller, pipeline):
    c = make_controller()
    assert not any(w["kind"] == "cohesion" for w in c.snapshot().warnings)
    # rifles-3 walks 5" away from its unit: out of cohesion, which only the full report tells
    pipeline.see({12: (10.45, 35.78)}, (move(12, (10.45, 40.78), (10.45, 35.78)),))
    c.process(frame(1))
    assert any(w["kind"] == "cohesion" and w["units"] == ["rifles"] for w in c.snapshot().warnings)
