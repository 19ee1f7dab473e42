"""The tracker on scripted sightings: still models stay still, moves settle into events."""

from __future__ import annotations

import random

import pytest

from vision.track import Sighting, Tracker, TrackerSettings


def feed(tracker, frames, start=0.0, step=0.1, looked_at=None):
    events = []
    t = start
    for sightings in frames:
        t += step
        kwargs = {"looked_at": looked_at} if looked_at else {}
        events += tracker.update(sightings, t, **kwargs)
    return events, t


def test_still_model_jitter_stays_under_a_hundredth_of_an_inch():
    rng = random.Random(1)
    tracker = Tracker()
    reported = []
    t = 0.0
    for _ in range(60):
        t += 0.1
        # detection noise of 0.01" (sigma), heading noise of 0.5 degrees
        s = Sighting(10 + rng.gauss(0, 0.01), 20 + rng.gauss(0, 0.01), 45 + rng.gauss(0, 0.5))
        assert tracker.update({5: s}, t) == []
        if 5 in tracker.poses(t):
            reported.append(tracker.poses(t)[5])
    later = reported[10:]
    xs, ys = [p.x for p in later], [p.y for p in later]
    assert max(xs) - min(xs) < 0.01 and max(ys) - min(ys) < 0.01
    assert abs(later[-1].heading - 45) < 0.5


def test_a_move_is_one_event_after_the_model_is_stable():
    tracker = Tracker(TrackerSettings(stable_frames=3))
    events, t = feed(tracker, [{7: Sighting(5, 5, 0)}] * 5)
    assert events == []
    # picked up: two frames in passing, then it rests at (8, 9) for three frames
    moving = [{7: Sighting(6, 6.3, 0)}, {7: Sighting(7, 7.7, 0)}] + [{7: Sighting(8, 9, 0)}] * 2
    events, t = feed(tracker, moving, t)
    assert events == []
    assert tracker.poses(t)[7].moving and (tracker.poses(t)[7].x, tracker.poses(t)[7].y) == (5, 5)
    events, t = feed(tracker, [{7: Sighting(8, 9, 0)}], t)
    assert len(events) == 1
    e = events[0]
    assert (e.id, e.start, e.end) == (7, (5, 5), (8, 9)) and e.distance == pytest.approx(5.0)
    assert not tracker.poses(t)[7].moving


def test_occluded_models_keep_their_place_until_the_time_out():
    tracker = Tracker(TrackerSettings(stable_frames=2, occlusion_timeout_s=1.0))
    _, t = feed(tracker, [{1: Sighting(3, 4, 90), 2: Sighting(10, 10, 0)}] * 3)
    _, t = feed(tracker, [{2: Sighting(10, 10, 0)}] * 5, t)  # a hand over model 1 for half a second
    pose = tracker.poses(t)[1]
    assert pose.occluded and (pose.x, pose.y, round(pose.heading)) == (3, 4, 90)
    assert not tracker.poses(t)[2].occluded
    _, t = feed(tracker, [{2: Sighting(10, 10, 0)}] * 8, t)  # gone for more than the time-out
    assert 1 not in tracker.poses(t)


def test_a_region_not_looked_at_is_not_occlusion():
    tracker = Tracker(TrackerSettings(stable_frames=2, occlusion_timeout_s=0.5))
    _, t = feed(tracker, [{1: Sighting(3, 4, 0)}] * 3)
    _, t = feed(tracker, [{}] * 20, t, looked_at=lambda marker_id: False)
    assert not tracker.poses(t)[1].occluded


def test_a_one_frame_false_marker_never_places_or_moves_a_model():
    tracker = Tracker(TrackerSettings(stable_frames=3))
    _, t = feed(tracker, [{1: Sighting(3, 4, 0)}] * 4)
    home = {1: Sighting(3, 4, 0)}
    frames = [{**home, 99: Sighting(20, 20, 0)}, {1: Sighting(30, 30, 0)}] + [home] * 4
    events, t = feed(tracker, frames, t)
    assert events == [] and 99 not in tracker.poses(t)
    assert (tracker.poses(t)[1].x, tracker.poses(t)[1].y) == (3, 4)


def test_turning_in_place_updates_heading_without_a_move_event():
    tracker = Tracker(TrackerSettings(stable_frames=2))
    _, t = feed(tracker, [{1: Sighting(3, 4, 0)}] * 3)
    events, t = feed(tracker, [{1: Sighting(3.01, 4, 90)}] * 3, t)
    assert events == []
    assert tracker.poses(t)[1].heading == pytest.approx(90, abs=0.5)
    assert tracker.poses(t)[1].x == pytest.approx(3.0, abs=0.01)


def test_heading_average_wraps_around_180():
    tracker = Tracker(TrackerSettings(stable_frames=2))
    _, t = feed(tracker, [{1: Sighting(3, 4, 179)}, {1: Sighting(3, 4, -179)}] * 3)
    assert abs(tracker.poses(t)[1].heading) == pytest.approx(180, abs=1.5)


def test_a_marker_lifted_or_timed_out_and_put_down_elsewhere_is_one_move_from_where_it_stood():
    tracker = Tracker(TrackerSettings(stable_frames=3, occlusion_timeout_s=1.0))
    _, t = feed(tracker, [{7: Sighting(10.0, 20.0, 0.0)}] * 4)
    tracker.drop(7)  # the pipeline saw it lifted (its place bare, its surroundings as they were)
    events, t = feed(tracker, [{}] * 3 + [{7: Sighting(18.0, 20.0, 90.0)}] * 3, start=t)
    assert [(e.id, e.start, e.end, round(e.distance, 6)) for e in events] == [(7, (10.0, 20.0), (18.0, 20.0), 8.0)]
    # gone past the occlusion time-out, then back 0.02" from where it stood: no move
    events, t = feed(tracker, [{}] * 12 + [{7: Sighting(18.02, 20.0, 90.0)}] * 3, start=t)
    assert 7 in tracker.poses(t) and events == []
    # ... back somewhere else after the time-out: a move
    events, t = feed(tracker, [{}] * 12 + [{7: Sighting(18.0, 25.0, 90.0)}] * 3, start=t)
    assert [(e.start, e.end) for e in events] == [(pytest.approx((18.013, 20.0), abs=0.01), (18.0, 25.0))]


def test_sigma_of_a_still_model_shrinks_to_what_frames_share():
    # each sighting: sigma 0.02", of which 0.015" new each frame; what frames share is sqrt(0.02^2 - 0.015^2)
    rng = random.Random(3)
    tracker = Tracker()
    t = 0.0
    sigmas = {}
    for n in range(1, 41):
        t += 0.1
        s = Sighting(10 + rng.gauss(0, 0.001), 20 + rng.gauss(0, 0.001), 45.0, 0.02, 2.0, 0.015)
        tracker.update({5: s}, t)
        if 5 in tracker.poses(t):
            sigmas[n] = tracker.poses(t)[5]
    shared = (0.02 ** 2 - 0.015 ** 2) ** 0.5
    for n in (3, 10, 40):  # the tracker averages every sighting since the model settled (3 at first)
        assert sigmas[n].sigma == pytest.approx((shared ** 2 + 0.015 ** 2 / n) ** 0.5, rel=1e-6)
        assert sigmas[n].heading_sigma == pytest.approx(2.0 / n ** 0.5)
    assert sigmas[40].sigma < sigmas[3].sigma


def test_sigma_follows_jitter_larger_than_the_frame_claims():
    # sightings scatter by 0.02" on each axis though each claims 0.001" per frame: the scatter counts
    rng = random.Random(4)
    tracker = Tracker(TrackerSettings(move_threshold_in=0.2))
    t = 0.0
    for _ in range(200):
        t += 0.1
        x, y = 10 + rng.gauss(0, 0.02), 20 + rng.gauss(0, 0.02)
        tracker.update({5: Sighting(x, y, 0.0, 0.001, 0.1, 0.001)}, t)
    pose = tracker.poses(t)[5]
    # 50 sightings averaged at most: about 0.02 / sqrt(50) = 0.0028"
    assert 0.002 < pose.sigma < 0.004
