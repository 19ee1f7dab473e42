"""The live table: frames in, rule answers, LEDs and an immutable snapshot out.

`TableController` wires the parts: a capture thread (newest frame only) feeds the vision
pipeline; observations become game events (moves, pointer selections); the rule system's answers
become LED colours; the web panel reads `snapshot()` and sends `command()`s; buttons send the same
commands.

The frame-to-LED path does only what the LEDs need. The slow rest runs on one background worker
(table/live/background.py): committing the events to the game log, and the rule system's full
situation report behind the warnings. A snapshot is published only once every event it reflects
is committed, and a command returns only then, so nothing the panel has seen can be lost to a power
cut. A move the LEDs showed but the log had not yet committed is found again when the camera sees
the model on restart (first sightings become placement moves).
"""

from __future__ import annotations

import json
import logging
import math
import random
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from table import strictjson
from table.config import Config
from table.errors import ConfigError, QueryError, StorageError, TableError
from table.hw import TableHardware
from table.live import highlight, markers
from table.live.background import Background
from table.live.camera_view import OncePerFrame
from table.live.capture import Capture, LatestFrame, SourceOpener
from table.live.display import AnswerCache
from table.live.gamelog import GameLog
from table.live.hex_tracking import HexTracker
from table.live.leds import LedLayout
from table.live.live_games import LiveGames
from table.live.observe import move_events, pointed_model
from table.live.outputs import Outputs
from table.live.replay import Replay
from table.live.session import GameState, Session, new_game
from table.live.sigmas import Sigmas, model_sigmas
from table.live.table_commands import COMMANDS, ButtonActions, check_params, handler
from table.rules import get_ruleset
from table.rules.base import Ruleset
from table.scene import Scene, parse_scene
from table.snapshot import Snapshot
from vision.types import Frame, Observation

log = logging.getLogger(__name__)
RETRY_S = 1.0              # a refused write to the game log is tried again this often



class Pipeline(Protocol):
    def process(self, frame: Frame) -> Observation: ...


class TableController(Outputs):
    """The control loop and the game; implements the web panel's Controller protocol."""

    def __init__(self, config: Config, *, hardware: TableHardware, layout: LedLayout, log_: GameLog,
                 pipeline: Pipeline | None, open_source: SourceOpener | None = None,
                 scene: Scene | None = None,
                 seed: int | None = None, clock: Callable[[], float] = time.monotonic,
                 backoff: tuple[float, float] = (0.5, 10.0)):
        self.config, self.hw, self.layout, self.gamelog = config, hardware, layout, log_
        self.pipeline, self.open_source, self.clock, self.backoff = pipeline, open_source, clock, backoff
        self.rng = random.Random(seed)
        self.session = Session()
        self._lock = threading.RLock()
        self._snap_cond = threading.Condition()
        self.status: dict[str, Any] = {"camera": "starting" if open_source else "none", "camera_detail": "",
                                       "calibration": "unknown", "frames": 0, "dropped": 0, "bad_frames": 0,
                                       "last_error": "", "resumed": False,
                                       "log": "ok", "log_detail": ""}
        self._last_error_at = -math.inf
        self._seen: dict[int, tuple[float, float]] = {}
        self._sighted: dict[int, tuple[float, bool]] = {}   # marker -> (last seen, occluded then)
        self._sigmas: dict[int, tuple[float, float]] = {}   # marker -> (sigma ", heading_sigma deg), rounded
        self._led_positions = [list(p) for p in layout.positions]
        self._synced: set[int] = set()
        self._pointer_pick: str | None = None
        self._warnings: list[dict[str, Any]] = []
        self._cache: dict[str, Any] = {}
        self.frame: tuple[highlight.RGB, ...] = ()
        self._snapshot = Snapshot(0, {}, "", {}, {})
        self._published_key: tuple[Any, ...] = ()
        self._published_at = -math.inf
        self._threads: list[threading.Thread] = []
        self._latest: Frame | None = None
        self._capture: Capture | None = None
        self._stopping = threading.Event()
        self._answer_cache = AnswerCache()
        self._camera_view = OncePerFrame()
        self.on_rotate_pin: list[Callable[[], Any]] = []       # the panel's PIN rotation (web_ui/app.py)
        self._commit_lock = threading.Lock()
        self._commit_cond = threading.Condition(self._commit_lock)
        self._uncommitted = 0                      # event batches applied, their commit not yet tried
        self._emitted = self._attempted = self._committed = 0   # event batches applied / tried / on disk
        self._unsaved: list[tuple[int, list[dict[str, Any]]]] = []   # on the worker: refused by the log
        self._retry: threading.Timer | None = None
        self._fresh_report: tuple[Scene, dict[str, Any] | None] | None = None   # from the worker
        self._report_asked: Scene | None = None
        self.hexes = HexTracker()
        self.games = LiveGames()
        self.replays = Replay(lambda game, after: self.gamelog.events(game, after=after))
        self._background = Background(self._settled)
        self.buttons = ButtonActions(self)
        hardware.on_button(self.buttons.pressed)
        self._resume_or_start(scene)
        with self._lock:
            self._refresh(report_now=True)
        self._background.settle()

    # ------------------------------------------------------------ game and log

    def _resume_or_start(self, scene: Scene | None) -> None:
        game = self.gamelog.current_game()
        if game is not None:
            raised: dict[str, dict[str, Any]] = {}     # warnings the log holds as still standing
            for event in self.gamelog.events(game):
                try:
                    self.session.apply(event)
                except TableError as exc:  # an event this version cannot apply: keep the rest
                    log.warning("game log event %s skipped: %s", event.get("seq"), exc)
                if event["kind"] == "warning":
                    raised[event["id"]] = {"id": event["id"], "kind": event.get("warning"),
                                           "message": event.get("message", ""),
                                           "units": event.get("units", [])}
                elif event["kind"] == "warning_cleared":
                    raised.pop(event["id"], None)
            if self.session.state is not None:
                self.game, self.status["resumed"] = game, True
                self._warnings = list(raised.values())
                return
        if scene is None:
            raise ConfigError("no game to resume and no scene to start one: set [game] scene or use --demo")
        self.start_game(scene)

    def start_game(self, scene: Scene) -> None:
        event = new_game(scene, self.rng.randrange(2**31))
        session = Session()
        session.apply(event)
        with self._lock:
            # on the worker, after every event of the game before it is committed
            started = self._background.submit(lambda: self.gamelog.start_game(scene.ruleset, event))
            try:
                self.game = started.result()
            except (sqlite3.Error, OSError) as exc:
                raise StorageError(f"not saved: game log: cannot start a game ({exc})") from None
            self.session = session
            self._synced.clear()
            self.hexes.reset()
            self._warnings = []

    @property
    def state(self) -> GameState:
        assert self.session.state is not None
        return self.session.state

    def emit(self, event: dict[str, Any]) -> GameState:
        """Check and apply one event, and have it committed to the log (see `emit_all`)."""
        return self.emit_all([event])

    def emit_all(self, events: list[dict[str, Any]]) -> GameState:
        """Check every event, apply them all (or none), and queue them to be committed in one
        transaction; no snapshot is published until the worker has tried to commit them."""
        if events:
            try:
                strictjson.dumps(events)
            except ValueError as exc:            # a non-finite number: never stored, never shown
                raise QueryError(f"{events[0]['kind']}: {exc}") from None
            trial = self.session.copy()
            for event in events:
                trial.apply(event)
            self.session = trial
            with self._commit_lock:
                self._uncommitted += 1
                self._emitted += 1
                self._background.submit(lambda game=self.game: self._commit(game, events))
        return self.state

    def _commit(self, game: int, events: list[dict[str, Any]]) -> None:
        """On the worker: queue one batch of events behind any the log refused, and write them."""
        self._unsaved.append((game, events))
        try:
            self._flush()
        finally:
            with self._commit_cond:
                self._uncommitted -= 1
                self._attempted += 1
                self._commit_cond.notify_all()

    def _flush(self) -> None:
        """On the worker: write the unsaved batches in order; on a failure keep them, show the fault
        and try again in RETRY_S."""
        while self._unsaved:
            game, events = self._unsaved[0]
            try:
                self.gamelog.append_all(game, events)
            except (sqlite3.Error, OSError) as exc:       # a full disk, a lock held elsewhere
                self._log_failed(f"game log: cannot write ({exc}); {len(self._unsaved)} change(s) not "
                                 f"saved yet, retrying")
                return
            self._unsaved.pop(0)
            with self._commit_lock:
                self._committed += 1
        # the status is written here without the controller's lock: start_game waits for this worker
        notice = self.gamelog.take_notice()
        if notice:
            self.status.update(log="recovered", log_detail=notice)
        elif self.status["log"] == "fault":
            log.warning("game log: writing again; every change is saved")
            self.status.update(log="ok", log_detail="")

    def _log_failed(self, message: str) -> None:
        log.error("%s", message)
        self.status.update(log="fault", log_detail=message)
        if not self._stopping.is_set() and (self._retry is None or not self._retry.is_alive()):
            self._retry = threading.Timer(RETRY_S, self._retry_flush)
            self._retry.daemon = True
            self._retry.start()

    def _retry_flush(self) -> None:
        try:
            self._background.submit(self._flush)
        except RuntimeError:         # the worker is closed: the table is stopping
            pass

    def _wait_saved(self, upto: int, timeout: float = 10.0) -> None:
        """Wait until the worker has tried to write every batch up to number `upto`; StorageError
        unless they are all on disk, else wait for the snapshot that shows them."""
        with self._commit_cond:
            tried = self._commit_cond.wait_for(lambda: self._attempted >= upto, timeout)
            saved = self._committed >= upto
        if not saved:
            why = self.status["log_detail"] if self.status["log"] == "fault" else \
                "game log: the write did not finish in time" if not tried else "game log: not written"
            with self._snap_cond:      # the panel shows the fault by the time the refusal arrives
                self._snap_cond.wait_for(lambda: self._snapshot.status.get("log") == "fault", 2.0)
            raise StorageError(f"not saved: {why}")
        self.settle()

    def settle(self, timeout: float = 10.0) -> bool:
        """Wait until every event so far is committed and the snapshot shows it."""
        return self._background.settle(timeout)

    def replay(self, events: list[dict[str, Any]]) -> GameState:
        """Play a recorded game's events into this controller (a new game in its log)."""
        with self._lock:
            for index, event in enumerate(events):
                event = {k: v for k, v in event.items() if k not in ("seq", "ts", "game")}
                if event["kind"] == "game_start":
                    self.start_game(parse_scene(event["scene"], f"replay event {index}: scene"))
                elif self.session.state is None:
                    raise QueryError(f"replay: event {index} comes before the game_start event")
                else:
                    self.emit(event)
            self._refresh(report_now=True)
            state = self.state
        self.settle()
        return state

    # ------------------------------------------------------------ commands (panel, buttons)

    def command(self, name: str, **params: Any) -> dict[str, Any]:
        run = handler(self, name)
        if run is None:
            raise QueryError(f"unknown command {name!r} (known: {', '.join(sorted(COMMANDS))})")
        check_params(name, run, params)
        with self._lock:
            result = run(self, **params)
            self._refresh()
            with self._commit_lock:
                upto = self._emitted
        self._wait_saved(upto)
        return result

    def model_sigmas(self) -> Sigmas:
        """How sure the camera is of each model now: model id -> (sigma inches, heading_sigma degrees)."""
        return model_sigmas(self.state.markers(), self._sigmas)

    def ruleset(self) -> Ruleset | None:
        """The rule system for the current scene and rulings (None if the rulings do not fit it)."""
        state = self.state
        key = (id(state.scene), json.dumps(state.rulings, sort_keys=True))
        if self._cache.get("ruleset_key") != key:
            try:
                ruleset: Ruleset | None = get_ruleset(state.scene.ruleset)(state.scene, state.rulings)
            except TableError as exc:
                self._error(f"rule system: {exc}")
                ruleset = None
            self._cache.update(ruleset_key=key, ruleset=ruleset)
        return self._cache["ruleset"]

    def current_warnings(self) -> list[dict[str, Any]]:
        return list(self._warnings)

    # ------------------------------------------------------------ frames

    def process(self, frame: Frame, wait: bool = True) -> None:
        """One turn of the loop: vision, then game events, answers and LEDs; the events' commit and
        the snapshot follow on the worker (`wait`: return only once they are done; the loop thread
        does not wait)."""
        try:
            observation = self.pipeline.process(frame)
        except Exception as exc:  # a bad frame must never stop the table
            with self._lock:
                self.status["bad_frames"] += 1
                self._error(f"frame {frame.index}: {type(exc).__name__}: {exc}")
                self._refresh()
            return
        with self._lock:
            self._background.frame_idle.clear()
            try:
                self.status["frames"] += 1
                self._latest = frame
                try:
                    self.observe(observation)
                except TableError as exc:
                    self._error(f"observation: {exc}")
                self._refresh()
            finally:
                self._background.frame_idle.set()
        if wait:
            self.settle()

    def observe(self, obs: Observation) -> None:
        """Turn what the camera saw into game events: moves, first placements, pointer selection."""
        self.status["calibration"] = "ok" if obs.calibrated else "uncalibrated"
        if not obs.calibrated:
            return
        events = move_events(self.state, obs, self._synced, self.config["tracking"]["move_threshold_in"])
        self._seen = {m: (p.x, p.y) for m, p in obs.markers.items()}
        now = self.clock()
        self._sighted.update({m: (now, p.occluded) for m, p in obs.markers.items()})
        self._sigmas.update({m: (round(p.sigma, 3), round(p.heading_sigma, 1))
                             for m, p in obs.markers.items() if p.sigma > 0})
        snapper = self.hexes.snapper(self.state)
        if snapper is not None:
            for event in events:
                event["hex"] = list(snapper.snap(event["model"], *event["to"]))
            events += self.games.camera_moves(self.state, events)
        pointer_id = self.config["markers"]["pointer_id"]
        pointed = pointed_model(self.state, obs, pointer_id)
        if pointed is not None and pointed != self._pointer_pick and pointed != self.state.selected:
            events.append({"kind": "select", "model": pointed, "by": "pointer"})
        elif pointed is None and snapper is not None and self.state.selected and pointer_id in obs.markers:
            pose = obs.markers[pointer_id]       # the pointer on an empty hex: the path's destination
            where = snapper.snap("pointer", pose.x, pose.y)
            if where != self.state.destination and not pose.occluded:
                events.append({"kind": "destination", "hex": list(where), "by": "pointer"})
        self._pointer_pick = pointed
        self.emit_all(events)

    def camera_status(self, state: str, detail: str) -> None:
        """Called by the capture thread: starting, ok, lost or ended."""
        with self._lock:
            if self._capture is not None:
                self.status["dropped"] = self._capture.slot.dropped
            if (state, detail) == (self.status["camera"], self.status["camera_detail"]):
                return
            previous = self.status["camera"]
            self.status.update(camera=state, camera_detail=detail)
            if state != previous and state in ("ok", "lost"):
                self.emit({"kind": "camera", "status": state, "detail": detail})
            self._refresh()

    def _error(self, message: str) -> None:
        log.warning("%s", message)
        self.status["last_error"] = message
        self._last_error_at = self.clock()

    # ------------------------------------------------------------ Controller protocol

    def snapshot(self) -> Snapshot:
        with self._snap_cond:
            return self._snapshot

    def wait_for_change(self, after_seq: int, timeout: float) -> Snapshot:
        with self._snap_cond:
            self._snap_cond.wait_for(lambda: self._snapshot.seq > after_seq, timeout)
            return self._snapshot

    # ------------------------------------------------------------ panel capabilities (web_ui/capabilities.py)

    def log_entries(self, after: int, limit: int) -> list[dict[str, Any]]:
        """This game's log entries after sequence number `after`, oldest first."""
        return self.gamelog.events(self.game, after=after, limit=limit)

    def replay_steps(self) -> list[dict[str, Any]]:
        """This game's logged events so far, each with its seq, time, kind and summary."""
        return self.replays.steps(self.game)

    def replay_at(self, seq: int) -> dict[str, Any] | None:
        """The board after this game's event `seq` (None if the game has no such event)."""
        return self.replays.at(self.game, seq)

    def camera_jpeg(self) -> bytes | None:
        """The newest frame as a JPEG with the board and the placed markers drawn; None before one."""
        with self._lock:
            frame, seen = self._latest, dict(self._seen)
            board = (self.state.scene.board.width, self.state.scene.board.height)
        if frame is None:
            return None
        from table.live.camera_view import camera_jpeg

        calibration = getattr(self.pipeline, "calibration", None)
        key = (frame.index, id(frame.image), board, tuple(sorted(seen.items())), id(calibration))
        return self._camera_view.get(key, lambda: camera_jpeg(frame.image, calibration, board, seen))

    def rotate_pin(self) -> None:
        """The owner's button (hold confirm): the panel makes a new PIN and shows it (`on_rotate_pin`)."""
        if not self.on_rotate_pin:
            log.info("no panel: there is no PIN to rotate")
        for rotate in self.on_rotate_pin:
            rotate()

    def show_pin(self, pin: str) -> None:
        """Blink a just-generated panel PIN on the status LED."""
        self.hw.show_pin(pin)

    def marker_count(self, dictionary: str) -> int:
        """How many markers the named OpenCV dictionary holds (for the printable sheet)."""
        return markers.marker_count(dictionary)

    def marker_cells(self, dictionary: str, marker_id: int) -> list[list[bool]]:
        """One marker's cells, border included (True is black), for the printable sheet."""
        return markers.marker_cells(dictionary, marker_id)

    # ------------------------------------------------------------ running

    def start(self) -> None:
        """Start the capture thread and the loop thread (needs `open_source`)."""
        if self.open_source is None:
            raise ConfigError("the controller has no camera source to start")
        slot = LatestFrame()
        self._capture = Capture(self.open_source, slot, self.camera_status, fps=self.config["camera"]["fps"],
                                first_delay=self.backoff[0], max_delay=self.backoff[1])
        loop = threading.Thread(target=self._loop, args=(slot,), name="table-loop", daemon=True)
        self._threads = [self._capture, loop]
        for thread in self._threads:
            thread.start()

    def _loop(self, slot: LatestFrame) -> None:
        while not self._stopping.is_set():
            frame = slot.take(timeout=0.5)
            if frame is not None:
                self.process(frame, wait=False)
            elif self._capture is not None and not self._capture.is_alive():
                break

    def close(self) -> None:
        """Stop the threads, turn every LED off, release the hardware and the log."""
        self._stopping.set()
        if self._retry is not None:
            self._retry.cancel()
        if self._capture is not None:
            self._capture.stop()
        for thread in self._threads:
            thread.join(timeout=5.0)
        self._background.settle()
        self._background.close()
        try:
            self.hw.off()
        finally:
            self.hw.close()
            self.gamelog.close()

