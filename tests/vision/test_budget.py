"""The bounded frame work's parts: a deadline, boxes cut into overlapping pieces, the sweep's ring
of tiles, and the recovery search's order."""

from __future__ import annotations

import itertools

import numpy as np

from vision.budget import Deadline, Sweep, inside, split_box
from vision.recovery import LOOKS, Recovery, regions_around


def test_a_deadline_grants_the_first_piece_even_when_it_has_passed():
    now = iter(itertools.count())
    deadline = Deadline(2.5, clock=lambda: float(next(now)))   # until 2.5; each question costs 1
    assert [deadline.left() for _ in range(5)] == [True, True, True, False, False]
    late = Deadline(0.0, clock=lambda: 100.0)
    assert late.passed() and late.left() and not late.left()   # `passed` grants nothing
    assert not Deadline(1.0, clock=lambda: 100.0).passed()


def test_pieces_cover_the_box_and_overlap_so_a_marker_lies_whole_in_one():
    box, most, overlap = (10, 20, 1000, 333), 300, 40
    pieces = split_box(box, most, overlap)
    assert all(w <= most and h <= most for _, _, w, h in pieces)
    covered = np.zeros((400, 1100), bool)
    for x, y, w, h in pieces:
        covered[y:y + h, x:x + w] = True
    assert covered[20:353, 10:1010].all() and covered.sum() == 1000 * 333
    # any marker up to `overlap` pixels wide inside the box lies wholly inside some piece
    for mx in range(10, 1010 - overlap, 7):
        for my in range(20, 353 - overlap, 11):
            assert any(x <= mx and mx + overlap <= x + w and y <= my and my + overlap <= y + h
                       for x, y, w, h in pieces)
    assert split_box((5, 5, 30, 30), 300, 40) == [(5, 5, 30, 30)]


def test_the_sweep_goes_round_the_whole_frame_and_says_when_a_turn_starts():
    sweep = Sweep((1520, 2028), 15, 50)
    turn = [sweep.take() for _ in range(len(sweep.tiles))]
    assert [first for _, first in turn] == [True] + [False] * (len(turn) - 1)
    assert sweep.take()[1]
    covered = np.zeros((1520, 2028), bool)
    for (x, y, w, h), _ in turn:
        covered[y:y + h, x:x + w] = True
    assert covered.all() and 12 <= len(turn) <= 20
    assert inside((100, 100), [(0, 0, 200, 200)], 50) and not inside((30, 100), [(0, 0, 200, 200)], 50)


class Seen:
    """A detector that records the looks it is asked for and finds nothing."""

    def __init__(self):
        self.asked = []

    def detect(self, grey, rois, dense=False, sharpen=False, flatten=False):
        self.asked.append((rois[0], (dense, sharpen, flatten)))
        return [], []


def test_recovery_looks_nearest_first_takes_turns_and_waits_while_covered():
    shape, side = (1000, 1000), 20.0
    regions = regions_around((500.0, 500.0), side, shape)
    centres = [(x + w / 2, y + h / 2) for x, y, w, h in regions]
    distances = [np.hypot(cx - 500, cy - 500) for cx, cy in centres]
    assert len(regions) == 25 and distances == sorted(distances) and distances[0] < side
    recovery, detector = Recovery(), Seen()
    recovery.update({1: (500.0, 500.0), 2: (100.0, 100.0)}, lambda i: False, [1, 2], side, shape)
    grey = np.zeros(shape, np.uint8)
    recovery.step(grey, detector, Deadline(1e9), lambda i: i == 2)     # 2 is under a hand: waits
    assert {r for r, _ in detector.asked} == set(regions) and len(detector.asked) == 75
    assert [look for _, look in detector.asked[:3]] == list(LOOKS)
    assert recovery.searching() == [2]                                  # 1 tried everything: stops
    detector.asked.clear()
    recovery.update({1: (500.0, 500.0)}, lambda i: False, [1, 2], side, shape)   # nothing new at 1
    recovery.step(grey, detector, Deadline(0.0), lambda i: False)      # the hand lifted from 2
    assert detector.asked[0][0] == regions_around((100.0, 100.0), side, shape)[0]
    assert len(detector.asked) == 1                                     # a deadline passed: one look
