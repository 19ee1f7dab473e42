"""What the controller shows: the answers and warnings, the LED frame, the status LED and the snapshot.

A mixin of `TableController` (table/live/controller.py), which owns the state these methods read.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from table.errors import TableError
from table.live import close_call, highlight, warnings
from table.live.display import Answers, answers_for, regions_for, situation_of
from table.live.session import GameState
from table.scene import scene_to_dict
from table.snapshot import Snapshot

REPUBLISH_S = 1.0          # counters (frames, dropped) refresh the snapshot at most this often
ERROR_SHOWN_S = 5.0        # the status LED shows an error this long after a bad frame


class Outputs:
    """The output half of the controller (its attributes are set in `TableController.__init__`)."""

    def _known_markers(self) -> set[int]:
        markers = self.config["markers"]
        return ({int(k) for k in markers["corners"]} | {int(k) for k in markers["edges"]}
                | {markers["pointer_id"]} | set(self.state.markers()))

    def _refresh(self, report_now: bool = False) -> None:
        """Recompute what changed (answers, warnings, LEDs, status LED) and publish a snapshot.
        The situation report behind the warnings is asked on the worker (or now, `report_now`)."""
        state = self.state
        ruleset = self.ruleset()
        self._update_report(state, report_now)
        # the ruleset object (ids get reused) stands for the scene and rulings
        answers_key = (ruleset, state.selected, state.target, state.destination, state.phase, state.weapons)
        if self._cache.get("answers_key") != answers_key:
            answers = answers_for(state, ruleset, self._answer_cache) if ruleset is not None else Answers()
            self._cache.update(answers_key=answers_key, answers=answers)
        self._update_warnings(self._cache.get("report"))
        answers, sigmas = self._cache["answers"], self.model_sigmas()
        close_key = (answers_key, tuple(sorted(sigmas.items())))
        if self._cache.get("close_key") != close_key:  # the target's band asked with the camera's sigma
            call = close_call.band_call(state, ruleset, answers, sigmas)
            self._cache.update(close_key=close_key, close=call)
        close = close_call.regions(self.state, answers, self._cache["close"])
        ruler = [highlight.Line(*state.ruler, highlight.RULER)] if state.ruler else []   # shared, on top
        self._show(regions_for(self.state, answers) + close + ruler)
        self._publish()

    def _update_report(self, state: GameState, now: bool) -> None:
        """Use the worker's report if it is for this scene; else ask the worker for one."""
        if self._cache.get("report_scene") is state.scene:
            return
        fresh = self._fresh_report
        if fresh is not None and fresh[0] is state.scene:
            self._cache.update(report_scene=state.scene, report=fresh[1])
        elif now:
            self._fresh_report = (state.scene, situation_of(state))
            self._cache.update(report_scene=state.scene, report=self._fresh_report[1])
        elif self._report_asked is not state.scene:
            self._report_asked = state.scene

            def report() -> None:
                self._fresh_report = (state.scene, situation_of(state))

            self._background.submit(report, polite=True)

    def _settled(self) -> None:
        """On the worker, once it is idle: take up its report and publish what is committed."""
        with self._lock:
            if self.session.state is not None:
                self._refresh()

    def _update_warnings(self, report: Mapping[str, Any] | None) -> None:
        tolerance = self.config["tracking"]["move_threshold_in"]
        found = warnings.compute(self.state, report, self._seen, self._known_markers(), tolerance)
        if not self.status["frames"]:   # before the camera's first frame, what it saw last still stands
            found += [w for w in self._warnings if w.get("kind") in warnings.SEEN_KINDS]
        before = {w["id"] for w in self._warnings}
        now = {w["id"] for w in found}
        self.emit_all([{"kind": "warning", "id": w["id"], "warning": w["kind"], "message": w["message"],
                        "units": w["units"]} for w in found if w["id"] not in before]
                      + [{"kind": "warning_cleared", "id": wid} for wid in sorted(before - now)])
        self._warnings = [{**w, "acknowledged": w["id"] in self.state.acknowledged} for w in found]

    def _show(self, regions: list[highlight.Region]) -> None:
        """Render the regions and write the strip, unless nothing changed since the last write."""
        state = self.state
        if regions != self._cache.get("regions"):
            self._cache.update(regions=regions, frame=highlight.render(self.layout, regions))
        frame = self._cache["frame"]
        try:
            if state.brightness is not None and state.brightness != self.hw.strip.correction.brightness:
                self.hw.strip.set_brightness(state.brightness)
                self._cache["shown"] = None
            if frame != self._cache.get("shown"):
                self.hw.show(frame)
                self._cache["shown"] = frame
            self.hw.set_turn(state.player)
            self.hw.set_status(self._status_led())
            self.status["hardware_error"] = ""
        except TableError as exc:
            self.status["hardware_error"] = str(exc)
            self._error(f"hardware: {exc}")
        self.frame = frame

    def _status_led(self) -> str:
        """Faults first (the game log, then the camera, then a recent error), then calibration."""
        if self.status["log"] == "fault":
            return "log_fault"
        if self.status["camera"] == "lost":
            return "camera_lost"
        if self.clock() - self._last_error_at < ERROR_SHOWN_S:
            return "error"
        return "ok" if self.status["calibration"] == "ok" else "uncalibrated"

    def _model_states(self, state: GameState, now: float) -> dict[str, str]:
        """Model id -> tracked, occluded (hidden, or missing for under the occlusion timeout) or stale
        (missing longer, or never seen), for every model with a marker; {} before the camera's first frame."""
        if not self.status["frames"]:
            return {}
        timeout = self.config["tracking"]["occlusion_timeout_s"]
        states = {}
        for marker, model in state.markers().items():
            seen_at, occluded = self._sighted.get(marker, (None, False))
            if seen_at is None or now - seen_at >= timeout:
                states[model] = "stale"
            elif marker not in self._seen or occluded:
                states[model] = "occluded"
            else:
                states[model] = "tracked"
        return states

    def _publish(self) -> None:
        with self._commit_lock:
            if self._uncommitted:       # published once the worker has committed them
                return
        state = self.state
        status = {**self.status, "hardware": self.hw.describe(), "rulings": state.rulings, "game": self.game,
                  "markers_seen": len(self._seen),
                  "brightness": (state.brightness if state.brightness is not None
                                 else self.hw.strip.correction.brightness)}
        counters = ("frames", "dropped", "bad_frames")
        now = self.clock()
        states = self._model_states(state, now)
        sigmas = {model: {"sigma": s, "heading_sigma": h} for model, (s, h) in self.model_sigmas().items()}
        shown = {k: v for k, v in status.items() if k not in counters}
        key = (state, self.frame, json.dumps([self._warnings, states, sigmas, shown], default=str))
        if key == self._published_key and now - self._published_at < REPUBLISH_S:
            return
        status["led_layout"] = {"name": self.layout.name, "positions": self._led_positions}
        if self._cache.get("doc_scene") is not state.scene:
            self._cache.update(doc_scene=state.scene, doc=scene_to_dict(state.scene))
        doc = self._cache["doc"]
        if states or sigmas:  # what the camera says of each model now: tracked or not, and how sure
            doc = {**doc, "models": [{**m, **({"state": states[m["id"]]} if m["id"] in states else {}),
                                      **sigmas.get(m["id"], {})} for m in doc["models"]]}
        selection = {**self._cache["answers"].to_dict(), "pointer": self._pointer_pick,
                     "last_roll": state.last_roll, "ruler": state.ruler_dict()}
        phase = state.phase_dict()
        seen = self._seen if self.status["frames"] else None
        game = self.games.view(state, self.hexes.observed(state, seen))
        if game is not None:
            phase[state.scene.ruleset] = game
        with self._snap_cond:
            self._snapshot = Snapshot(self._snapshot.seq + 1, status, state.scene.ruleset, phase,
                                      doc, tuple(self._warnings), self.frame, selection,
                                      time.time())
            self._snap_cond.notify_all()
        self._published_key, self._published_at = key, now

