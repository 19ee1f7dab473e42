"""The snapshot the panel, the MQTT link and the CLI read: made from the table's parts whenever
something visible changed (a change of counters alone at most every REPUBLISH_S), and swapped in
under a condition of its own, so readers never wait for the controller's lock.

`publish` is called under the controller's lock; `snapshot`, `wait_for_change` and `wait_for` on any
thread (table/live/controller.py says who runs where).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from typing import Any

from table.live import locks
from table.live.leds import LedLayout
from table.live.session import GameState
from table.live.sigmas import Sigmas
from table.scene import Scene, scene_to_dict
from table.snapshot import Snapshot

REPUBLISH_S = 1.0          # counters (frames, dropped) refresh the snapshot at most this often
COUNTERS = ("frames", "dropped", "bad_frames")


class Publisher:
    """The newest snapshot and the condition readers wait on."""

    def __init__(self, layout: LedLayout, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._layout = {"name": layout.name, "positions": [list(p) for p in layout.positions]}
        self._cond = locks.condition("publisher")    # guards the three below; notified on each new snapshot
        self._maker = locks.role("controller")       # a snapshot is made under the controller's lock
        self._snapshot = Snapshot(0, {}, "", {}, {})
        self._state: GameState | None = None        # what the snapshot was made from
        self._sigmas: Sigmas = {}
        self._key: tuple[Any, ...] = ()
        self._at = -math.inf
        self._doc: tuple[Scene | None, dict[str, Any]] = (None, {})

    def snapshot(self) -> Snapshot:
        with self._cond:
            return self._snapshot

    def published(self) -> tuple[Snapshot, GameState | None, Sigmas]:
        """The newest snapshot, the game state and the camera's error bars it was made from."""
        with self._cond:
            return self._snapshot, self._state, self._sigmas

    def wait_for_change(self, after_seq: int, timeout: float) -> Snapshot:
        """The newest snapshot once it is newer than `after_seq` (or the timeout passed)."""
        with self._maker.waiting(), self._cond:
            self._cond.wait_for(lambda: self._snapshot.seq > after_seq, timeout)
            return self._snapshot

    def wait_for(self, shows: Callable[[Snapshot], bool], timeout: float) -> bool:
        """Wait until the newest snapshot `shows` something (False if the timeout passed first)."""
        with self._maker.waiting(), self._cond:
            return self._cond.wait_for(lambda: shows(self._snapshot), timeout)

    def publish(self, state: GameState, status: dict[str, Any], leds: tuple[tuple[int, int, int], ...],
                warnings: list[dict[str, Any]], states: dict[str, str], sigmas: Sigmas,
                view: Callable[[], tuple[dict[str, Any], dict[str, Any]]]) -> None:
        """Publish a snapshot unless nothing visible changed. `states` and `sigmas` are each model's
        tracking state and error bars; `view()` gives the selection and the phase (asked only when
        the snapshot is made)."""
        now = self._clock()
        shown = {k: v for k, v in status.items() if k not in COUNTERS}
        bars = {model: {"sigma": s, "heading_sigma": h} for model, (s, h) in sigmas.items()}
        key = (state, leds, json.dumps([warnings, states, bars, shown], default=str))
        if key == self._key and now - self._at < REPUBLISH_S:
            return
        if self._doc[0] is not state.scene:
            self._doc = (state.scene, scene_to_dict(state.scene))
        doc = self._doc[1]
        if states or bars:  # what the camera says of each model now: tracked or not, and how sure
            doc = {**doc, "models": [{**m, **({"state": states[m["id"]]} if m["id"] in states else {}),
                                      **bars.get(m["id"], {})} for m in doc["models"]]}
        selection, phase = view()
        status = {**status, "led_layout": self._layout}
        with self._cond:
            self._snapshot = Snapshot(self._snapshot.seq + 1, status, state.scene.ruleset, phase,
                                      doc, tuple(warnings), leds, selection, time.time())
            self._state, self._sigmas = state, sigmas
            self._cond.notify_all()
        self._key, self._at = key, now
