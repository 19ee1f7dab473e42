"""A hand resting over the board, replayed through the whole live table (rendered frames, the real
detector and tracker, the controller, mock LEDs): nothing moves, the
recovery search waits while the hand covers the markers, and every model is back when it lifts."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from vision.pipeline import VisionPipeline
from vision.sources import SyntheticSource
from vision.synthetic_scene import Hand, from_scene

RIFLES = ("rifles-1", "rifles-2", "rifles-3")


@pytest.fixture
def hand_script(config, scene):
    """Still; a hand reaching in over rifles-1..3 from the near edge, resting 6 frames, lifting; still."""
    still = from_scene(scene, config)
    hand = Hand(10.45, 38.0, angle=90.0, height_in=1.0)  # fingertips 2" short of the three rifles
    reach = [replace(hand, y=hand.y + d) for d in (6.0, 3.0)]
    lift = replace(hand, y=hand.y + 4.0, height_in=6.0)
    over = [replace(still, hands=(h,)) for h in [*reach, *[hand] * 6, lift]]
    return [still] * 5 + over + [still] * 6


def test_a_resting_hand_moves_nothing_and_every_model_comes_back(
        make_controller, config, scene, hand_script):
    pipeline = VisionPipeline(config)
    c = make_controller(pipeline=pipeline)
    camera = SyntheticSource(config, hand_script[0], realtime=False)
    camera.play(hand_script)
    start = {m.id: (m.x, m.y) for m in c.state.scene.models}
    states, searched = [], []
    for _ in hand_script:
        c.process(camera.read(), wait=False)   # as the loop runs it
        c.settle()
        states.append({m["id"]: m.get("state") for m in c.snapshot().scene["models"]})
        searched.append(pipeline.stats.recovery_looks)
        # no model moves while the hand is over the board, or after
        assert {m.id: (m.x, m.y) for m in c.state.scene.models} == start
    assert not [e for e in c.gamelog.events(c.game) if e["kind"] == "move" and not e.get("placement")]
    # under the resting hand the rifles are occluded, and the recovery search waits for it to lift (no
    # whole-frame search every frame: bench/bench_hands.py times the frame path against its budget)
    resting = range(5 + 3, 5 + 8)
    assert all(states[i][m] == "occluded" for i in resting for m in RIFLES)
    assert searched[resting[-1]] == searched[resting[0]]
    # the hand lifted: every model tracked again, where it stood
    assert all(state == "tracked" for state in states[-1].values())
    truth = {m.id: (m.x, m.y) for m in scene.models}
    assert all(math.dist(start[i], truth[i]) < 0.05 for i in truth)
