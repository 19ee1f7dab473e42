"""The sandbox table (`smarttable run --sandbox`): the synthetic camera over a board that only a player
changes, with nothing scripted.

The synthetic board holds markers as a real board holds miniatures. A player puts a marker down, moves
it or takes it off (`place`, `remove`: the panel's Sandbox API), and the camera sees it there, as it
would a miniature carried by hand. A model the game moves without the camera (the panel or the API
edits its position) has its marker carried after it (`Follower`), so the camera then sees the model
where the game put it and never moves it back. A model taken out of the game has its marker taken off
the board; a model given a marker that is not on the board has it put down where the model stands.

Frames taken before a marker was carried still show it where it was: the camera may report the model
back there once (a first sighting places a model where its marker is). Until the camera has seen the
marker at its new place (or ECHO_S passed), a model reported back at the old place is left to the
camera, which sees the marker where it now is on the next frame.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from table.config import Config
from table.errors import QueryError
from vision.synthetic_scene import SceneMarker, SyntheticScene

log = logging.getLogger(__name__)

MM_PER_INCH = 25.4
HEADING_FOLLOWED_DEG = 5.0      # a heading the game changed by more than this turns the marker too
ECHO_S = 10.0                   # how long a carried marker's old place may still come back from the camera


class Sandbox:
    """The markers on the synthetic board; every change is shown to the camera at once."""

    def __init__(self, config: Config, scene: SyntheticScene, show_scene: Callable[[SyntheticScene], None]):
        markers = config.markers
        self.board = scene.board
        self.corner_ids = frozenset(int(k) for k in {**markers.corners, **markers.edges})
        self.size_mm = float(markers.model_size_mm)
        self.height_in = float(markers.model_height_mm) / MM_PER_INCH
        self.tolerance = float(config.tracking.move_threshold_in)
        self._scene, self._show = scene, show_scene
        self._lock = threading.Lock()

    def markers(self) -> list[dict[str, Any]]:
        """The model markers on the board (corner markers left out): id, x, y, heading."""
        with self._lock:
            shown = self._scene.model_markers(set(self.corner_ids))
        return [{"id": m.id, "x": round(m.x, 3), "y": round(m.y, 3), "heading": round(m.heading, 1)}
                for m in sorted(shown, key=lambda m: m.id)]

    def where(self, marker: int) -> SceneMarker | None:
        with self._lock:
            return next((m for m in self._scene.markers if m.id == marker), None)

    def place(self, marker: int, x: float, y: float, heading: float = 0.0, base_mm: float = 25.0) -> None:
        """Put a marker down at (x, y) inches facing `heading`, or move it there if it is on the board."""
        if marker in self.corner_ids:
            raise QueryError(f"marker: {marker} is a corner marker: it stays where the config puts it")
        width, height = self.board
        if not (0 <= x <= width and 0 <= y <= height):
            raise QueryError(f"x, y: ({x}, {y}) is off the {width:g}x{height:g} inch board")
        with self._lock:
            current = next((m for m in self._scene.markers if m.id == marker), None)
            if current is not None:
                self._scene = self._scene.with_marker(marker, x=x, y=y, heading=heading)
            else:
                added = SceneMarker(marker, x, y, heading, self.size_mm, self.height_in, base_mm)
                self._scene = replace(self._scene, markers=(*self._scene.markers, added))
            self._show(self._scene)

    def remove(self, marker: int) -> bool:
        """Take a marker off the board (False if it was not on it)."""
        if marker in self.corner_ids:
            raise QueryError(f"marker: {marker} is a corner marker: it stays where the config puts it")
        with self._lock:
            kept = tuple(m for m in self._scene.markers if m.id != marker)
            if len(kept) == len(self._scene.markers):
                return False
            self._scene = replace(self._scene, markers=kept)
            self._show(self._scene)
            return True


def _models(snapshot: Any) -> dict[str, Mapping[str, Any]]:
    return {str(m["id"]): m for m in snapshot.scene.get("models", ())}


def _heading_apart(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


class Follower(threading.Thread):
    """Carries each marker after its model when the game moves the model and the camera did not (see the
    module's docstring); reads the snapshots the controller publishes."""

    def __init__(self, controller: Any, sandbox: Sandbox):
        super().__init__(name="sandbox", daemon=True)
        self.controller, self.sandbox = controller, sandbox
        self.stopping = threading.Event()
        self._carried: dict[int, tuple[tuple[float, float], tuple[float, float], float]] = {}

    def stop(self) -> None:
        self.stopping.set()

    def run(self) -> None:
        before = self.controller.snapshot()
        self.follow(None, before)
        while not self.stopping.is_set():
            after = self.controller.wait_for_change(before.seq, 0.5)
            if after.seq == before.seq:
                continue
            try:
                self.follow(before, after)
            except Exception as exc:  # the sandbox must not take the table down
                log.warning("sandbox: %s", exc)
            before = after

    def follow(self, before: Any, after: Any) -> None:
        """Bring the board in line with what changed in the game from snapshot `before` to `after`."""
        same_game = before is not None and before.status.get("game") == after.status.get("game")
        old = _models(before) if same_game else {}
        new = _models(after)
        bound = {m.get("marker") for m in new.values()}
        for ident, model in old.items():          # out of the game: its marker off the board
            marker = model.get("marker")
            if marker is not None and ident not in new and marker not in bound:
                self.sandbox.remove(int(marker))
        for ident, model in new.items():
            marker, x, y = model.get("marker"), model.get("x"), model.get("y")
            if marker is None or x is None or y is None:
                continue
            heading = float(model.get("heading", 0.0))
            shown, was = self.sandbox.where(int(marker)), old.get(ident)
            if shown is None:                     # a marker given to a model, not on the board: put down
                if was is None or was.get("marker") != marker:
                    self.sandbox.place(int(marker), float(x), float(y), heading, _base_mm(model))
                continue
            pose = (x, y, model.get("heading"))
            if was is None or (was.get("x"), was.get("y"), was.get("heading")) == pose:
                continue                          # the game did not move it: the board stands
            if self._echo(int(marker), float(x), float(y)):
                continue
            if math.hypot(shown.x - x, shown.y - y) > self.sandbox.tolerance \
                    or _heading_apart(shown.heading, heading) > HEADING_FOLLOWED_DEG:
                until = time.monotonic() + ECHO_S
                self._carried[int(marker)] = ((float(x), float(y)), (shown.x, shown.y), until)
                self.sandbox.place(int(marker), float(x), float(y), heading, _base_mm(model))

    def _echo(self, marker: int, x: float, y: float) -> bool:
        """True if the game has the model back where its marker was before it was carried (stale frames)."""
        if marker not in self._carried:
            return False
        to, was, until = self._carried[marker]
        near = self.sandbox.tolerance
        if math.dist(to, (x, y)) <= near or time.monotonic() > until:
            del self._carried[marker]           # the camera has seen it at its new place (or gave up)
            return False
        return math.dist(was, (x, y)) <= near


def _base_mm(model: Mapping[str, Any]) -> float:
    base = model.get("base") or {}
    return float(base.get("diameter_mm") or base.get("width_mm") or 25.0)
