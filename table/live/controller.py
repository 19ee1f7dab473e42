"""The live table: frames in, rule answers, LEDs and an immutable snapshot out.

`TableController` composes the parts, each owning its own state, in the order a frame goes through
them:

    Sightings (what the camera saw)  ->  Journal (the session; its events committed to the game log)
      ->  Answering and Reports (the rule system's answers)  ->  Standing (the warnings)
      ->  the highlight regions (display.py)  ->  LedOutput (strip, turn and status LEDs)
      ->  Publisher (the snapshot the panel reads)

The panel sends `command()`s; buttons send the same commands. The frame-to-LED path does only what
the LEDs need; committing the events and the full situation report run on one background worker
(table/live/background.py). A snapshot is published only once every event it reflects has been
tried on disk, and a command returns only once its events are on disk, so nothing the panel has
seen can be lost to a power cut. A move the LEDs showed but the log had not yet committed is found
again when the camera sees the model on restart (first sightings become placement moves).

Threads: who runs where, what is shared, which lock guards it (the one place this is written down)

- The loop thread (`table-loop`, `_loop` -> `process`): takes the newest frame from the capture
  slot, runs the vision pipeline without any lock, then holds the controller's `_lock` while
  `Sightings` turns the observation into events, the `Journal` applies them, and `_refresh` asks
  `Answering`, updates `Standing`, writes the LEDs (`LedOutput`) and publishes (`Publisher`).
- The capture thread (`Capture`): reads the camera into a one-frame slot (`LatestFrame`, guarded
  by its own condition); reports the camera's state through `camera_status`, under `_lock`.
- The background worker (`Background`, one thread, jobs in order): commits each batch of events,
  a new game's start among them (`Journal._commit`; `_unsaved` is the worker's alone; the counters
  and the log's status are guarded by the journal's condition), makes the situation report for a
  new scene (`Reports._make`; the hand-over is guarded by the reports' own lock) and, when its
  queue runs empty, `_settled`: takes `_lock` and refreshes, which publishes what is now
  committed. A retry timer thread (the journal's) only submits a job to the worker.
- The panel's threads (waitress) and MQTT's command thread: `command` checks the parameters,
  takes `_lock` to run the handler and refresh, then waits, without `_lock`, on the journal's
  condition for the commit and on the worker for the snapshot. Reads (`snapshot`,
  `wait_for_change`, SSE) take only the publisher's condition; `questions` reads the published
  snapshot and state there, then shares the panel's own rule system under `PanelRules`' lock
  (never the frame path's). The replay (under its own lock) and the bookmarks (the store's lock)
  read the game log, which has its own lock. `camera_jpeg` copies the newest frame under `_lock`
  and encodes it on the camera view's own thread.
- gpiozero's button thread: `ButtonActions` sends commands, as the panel does.
- `take_bookmark` (the panel, a long press of `measure`): reads the table under `_lock` in an instant,
  makes the evidence (answers with the camera's error, the frame's crops) without it, then writes it
  and logs its event under `_lock` and waits for the commit, as `command` does.

`_lock` (an RLock: a command's handler emits events and refreshes inside it) guards everything
not named above: the session, the sightings, the answers, the warnings, the LED output, `status`.

The lock order (every lock is made in table/live/locks.py under the name given here; `ORDER`
there is this list, and the tests' lock-order checker fails on any other order or a cycle):

1. Waits for a thread, and that thread's own work: the worker (`Background.settle`,
   `Journal.wait_tried`; a job or `_settled` holds it) and the capture thread (`LatestFrame.take`).
   A thread waits for the worker or the camera only while holding none of the locks below; the
   worker takes `_lock` (in `_settled`) and the capture thread does (in `camera_status`). So
   nothing ever waits for the worker holding `_lock`: `start_game` queues the new game's start as
   a batch and returns (the journal numbers the game itself), and a command waits for its commit
   only after letting `_lock` go.
2. `controller` (`_lock`) and `replay` (the replay's boards). A wait for a snapshot
   (`Publisher.wait_for`, `wait_for_change`) counts as taking `_lock` (a snapshot is made under
   it), so it is never made holding `_lock`.
3. The leaves, taken last and holding nothing while they are held: `journal` (its condition),
   `reports`, `publisher`, `worker-queue` (the worker's counters), `gamelog`, `bookmarks`,
   `frame-slot`, `panel-rules`, `camera-view`, `remote-cameras`.

A thread holding a lock of one tier takes only locks of a later tier.
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from table.config import Config
from table.errors import ConfigError, QueryError, TableError
from table.hw import TableHardware
from table.live import close_call, highlight, locks, markers
from table.live.answering import Answering, Reports
from table.live.background import Background
from table.live.bookmark_store import BookmarkStore, folder_beside
from table.live.bookmarks import Bookmarks, evidence, keep, moment
from table.live.camera_view import OncePerFrame
from table.live.capture import Capture, LatestFrame, SourceOpener
from table.live.display import regions_for
from table.live.events import Camera, Event, GameStart, Settings, decode
from table.live.gamelog import GameLog
from table.live.idempotency import Once
from table.live.journal import SAVE_WAIT_S, Journal
from table.live.led_output import LedOutput, status_led
from table.live.leds import LedLayout
from table.live.live_games import LiveGames
from table.live.panel_rules import PanelRules
from table.live.publisher import Publisher
from table.live.replay import Replay
from table.live.sandbox import Sandbox
from table.live.session import GameState, Session
from table.live.sightings import Sightings
from table.live.sigmas import Sigmas
from table.live.table_commands import AFTER_THE_GAME, COMMANDS, ButtonActions, check_params, handler
from table.live.warnings import Standing
from table.rules import get_ruleset
from table.rules.base import Ruleset
from table.scene import Scene
from table.snapshot import Receipt, Snapshot
from vision.types import Frame, Observation

log = logging.getLogger(__name__)


class Pipeline(Protocol):
    def process(self, frame: Frame) -> Observation: ...


class TableController:
    """The control loop and the game; implements the panel's protocol (table/panel_api.py)."""

    def __init__(self, config: Config, *, hardware: TableHardware, layout: LedLayout, log_: GameLog,
                 pipeline: Pipeline | None, open_source: SourceOpener | None = None,
                 scene: Scene | None = None, new_game: bool = False,
                 seed: int | None = None, clock: Callable[[], float] = time.monotonic,
                 backoff: tuple[float, float] = (0.5, 10.0)):
        self.config, self.hw, self.layout, self.gamelog = config, hardware, layout, log_
        self.pipeline, self.open_source, self.clock, self.backoff = pipeline, open_source, clock, backoff
        self.rng = random.Random(seed)
        self._lock = locks.rlock("controller")
        self.status: dict[str, Any] = {"camera": "starting" if open_source else "none", "camera_detail": "",
                                       "calibration": "unknown", "frames": 0, "dropped": 0, "bad_frames": 0,
                                       "last_error": "", "resumed": False, "lens": None,
                                       "focus": None}
        self._last_error_at = -math.inf
        self._latest: Frame | None = None
        self._capture: Capture | None = None
        self._threads: list[threading.Thread] = []
        self._stopping = threading.Event()
        self._camera_view = OncePerFrame()
        self.on_rotate_pin: list[Callable[[], Any]] = []       # the panel's PIN rotation (web_ui/app.py)
        self.sandbox: Sandbox | None = None       # the sandbox's synthetic board (run --sandbox)
        self._background = Background(self._settled)
        self.journal = Journal(log_, self._background)
        self.once = Once(self.journal.saving)        # changes by idempotency key (table/live/idempotency.py)
        self.sightings = Sightings(config.tracking.move_threshold_in, config.markers.pointer_id)
        self.answers = Answering(self._error)
        self.reports = Reports(self._background)
        self.warnings = Standing()
        self.leds = LedOutput(hardware, layout)
        self.publisher = Publisher(layout, clock)
        self.panel_rules = PanelRules(self.publisher)
        self.games = LiveGames()
        self.replays = Replay(lambda game, after: self.gamelog.events(game, after=after))
        folder = folder_beside(log_.path)   # dispute bookmarks beside the game log (table/live/bookmarks.py)
        self.bookmarks = Bookmarks(BookmarkStore(folder), log_) if folder is not None else None
        if self.bookmarks is not None:
            self.bookmarks.store.sweep()
        self.buttons = ButtonActions(self)
        hardware.on_button(self.buttons.pressed)
        self._resume_or_start(scene, fresh=new_game)
        with self._lock:
            self._refresh(report_now=True)
        self._background.settle()

    # ------------------------------------------------------------ game and log

    def _resume_or_start(self, scene: Scene | None, fresh: bool = False) -> None:
        """Resume the log's current game, else start `scene` (`fresh`: start it anyway, as a new game)."""
        standing = None if fresh else self.journal.resume()
        if standing is not None:
            self.status["resumed"] = True
            self.warnings.current = standing
            return
        if scene is None:
            raise ConfigError("no game to resume and no scene to start one: set [game] scene or use --demo")
        rulings = dict(self.config.game.rulings)       # [game.rulings]: the new game's, checked first
        if rulings:
            try:
                get_ruleset(scene.ruleset)(scene, rulings)
            except QueryError as exc:
                raise ConfigError(f"game.rulings: {exc}") from None
        self.start_game(scene)
        if rulings:
            with self._lock:
                self.emit(Settings(None, rulings, None))

    def start_game(self, scene: Scene) -> None:
        with self._lock:
            self.journal.start_game(scene, self.rng.randrange(2**31))
            self.sightings.new_game()
            self.warnings.current = []

    def end_game(self, reason: str | None = None) -> None:
        """The game is over: logged and marked ended; the table then changes nothing in it (the camera's
        moves, the panel's and the buttons' changes) until a new game starts or one is resumed."""
        with self._lock:
            if self.state.over:
                raise QueryError(f"game {self.game} is already over")
            self.journal.end_game(reason)

    def resume_game(self, game: int) -> None:
        """Make an earlier game of the log the one on the table, where it stood (the game on the table
        ends first). Its events must be written: the command settles the worker before it comes here."""
        with self._lock:
            if game == self.game and not self.state.over:
                raise QueryError(f"game {game} is the game on the table")
            if game not in {g["game"] for g in self.gamelog.games()}:
                raise QueryError(f"game: no game {game} in the game log")
            if self.journal.log_status()[0] == "fault":
                raise QueryError("the game log is not writing: resume a game once it is")
            if not self.state.over:
                self.journal.end_game(f"game {game} resumed")
            self.warnings.current = self.journal.resume_game(game)
            self.sightings.new_game()

    @property
    def session(self) -> Session:
        return self.journal.session

    @property
    def game(self) -> int:
        return self.journal.game

    @property
    def state(self) -> GameState:
        return self.journal.state

    @property
    def frame(self) -> tuple[highlight.RGB, ...]:
        """The LED frame last rendered."""
        return self.leds.frame

    def emit(self, event: Event) -> GameState:
        """Check and apply one event, and have it committed to the log (see `emit_all`)."""
        return self.emit_all([event])

    def emit_all(self, events: list[Event]) -> GameState:
        """Check every event, apply them all (or none), and queue them to be committed in one
        transaction; no snapshot is published until the worker has tried to commit them."""
        return self.journal.emit_all(events)

    def _wait_saved(self, upto: int) -> str:
        """Wait (at most SAVE_WAIT_S) until batch number `upto` is on disk, then for the snapshot that shows
        it: "" then; else why it is not saved yet (it is applied, kept and retried), once the snapshot
        shows the fault."""
        why = self.journal.wait_saved(upto)
        if why:
            if self.journal.log_status()[0] == "fault":   # the panel shows the fault with the answer
                self.publisher.wait_for(lambda s: s.status.get("log") == "fault", SAVE_WAIT_S)
            return why
        self.settle()
        return ""

    def settle(self, timeout: float = 10.0) -> bool:
        """Wait until every event so far is committed and the snapshot shows it."""
        return self._background.settle(timeout)

    def replay(self, events: list[dict[str, Any]]) -> GameState:
        """Play a recorded game's events (their stored form) into this controller (a new game in its log)."""
        with self._lock:
            for index, entry in enumerate(events):
                try:
                    event = decode(entry)
                except TableError as exc:
                    raise type(exc)(f"replay: event {index}: {exc}") from None
                if isinstance(event, GameStart):
                    self.start_game(event.scene)
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
        """Run a command (QueryError naming a bad or unknown parameter); its result once its events are
        on disk and the snapshot shows them, or (the log refusing them) once they are applied and kept."""
        return self.change(name, params).result

    def change(self, name: str, params: Mapping[str, Any], key: str | None = None) -> Receipt:
        """A command, or "bookmark" (`take_bookmark`'s parameters), with its receipt (saved, or applied
        and saving); made once per idempotency `key` (the same key again gets the same answer)."""
        if name == "bookmark":
            def make() -> Receipt:
                return self._bookmark(**params)
        else:
            run = handler(self, name)
            if run is None:
                raise QueryError(f"unknown command {name!r} (known: {', '.join(sorted(COMMANDS))})")
            check_params(name, run, dict(params))
            if getattr(run, "settles_first", False):      # it reads the log: every event so far written first
                self.settle()

            def play() -> dict[str, Any]:
                if self.state.over and name not in AFTER_THE_GAME:
                    raise QueryError(f"game {self.game} is over: start a new game or resume one")
                return run(self, **params)

            def make() -> Receipt:
                return self._change(play)
        return make() if key is None else self.once.run(key, name, params, make)

    def _change(self, run: Callable[[], dict[str, Any]]) -> Receipt:
        """Run a change holding `_lock` and refresh; its receipt once its events are on disk (or kept)."""
        with self._lock:
            before = self.journal.emitted
            result = run()
            self._refresh()
            upto = self.journal.emitted
        if upto == before:               # nothing to log (an answer only)
            self.settle()
            return Receipt(result)
        return Receipt(result, self._wait_saved(upto), upto)

    def take_bookmark(self, a: str | None = None, b: str | None = None,
                      ruler: bool = False) -> dict[str, Any]:
        """Keep a dispute bookmark (table/live/bookmarks.py) of two models or units, the ruler, or (none
        given) the table's selection, else the ruler. The table is read under `_lock`; the answers with the
        camera's error and the pictures (the slow part) are made without it, so the LEDs never wait."""
        return self.change("bookmark", {"a": a, "b": b, "ruler": ruler}).result

    def _bookmark(self, a: str | None = None, b: str | None = None, ruler: bool = False) -> Receipt:
        with self._lock:
            if self.state.over:
                raise QueryError(f"game {self.game} is over: nothing to bookmark in it")
            now = moment(self)
        document = evidence(now, a, b, ruler)
        return self._change(lambda: keep(self, document))

    def model_sigmas(self) -> Sigmas:
        """How sure the camera is of each model now: model id -> (sigma inches, heading_sigma degrees)."""
        return self.sightings.sigmas(self.state)

    def ruleset(self) -> Ruleset | None:
        """The rule system for the current scene and rulings (None if the rulings do not fit it)."""
        return self.answers.ruleset(self.state)

    def current_warnings(self) -> list[dict[str, Any]]:
        return [w.to_json() for w in self.warnings.current]

    # ------------------------------------------------------------ frames

    def process(self, frame: Frame, wait: bool = True) -> None:
        """One turn of the loop: vision, then game events, answers and LEDs; the events' commit and
        the snapshot follow on the worker (`wait`: return only once they are done; the loop thread
        does not wait)."""
        try:
            if self.pipeline is None:
                raise ConfigError("the controller has no vision pipeline")
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
        if obs.lens is not None:
            self.status["lens"] = obs.lens  # as estimated (or calibrated, and checked), from how many markers
        if obs.focus is not None:
            self.status["focus"] = obs.focus  # the camera's blur, measured at the last full pass
        if obs.calibrated:
            events = self.sightings.observe(self.state, obs, self.clock(), self.games)
            if not self.state.over:               # an ended game takes no more moves
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
            if state != previous and state in ("ok", "lost") and not self.state.over:
                self.emit(Camera(state, detail))
            self._refresh()

    def _error(self, message: str) -> None:
        log.warning("%s", message)
        self.status["last_error"] = message
        self._last_error_at = self.clock()

    # ------------------------------------------------------------ answers, warnings, LEDs, snapshot

    def _refresh(self, report_now: bool = False) -> None:
        """Recompute what changed (answers, warnings, LEDs, status LED) and publish a snapshot.
        The situation report behind the warnings is asked on the worker (or now, `report_now`)."""
        state = self.state
        report = self.reports.current(state, report_now)
        answers = self.answers.answers(state)
        camera_started = bool(self.status["frames"])
        known = self._known_markers(state)
        tolerance = self.config.tracking.move_threshold_in
        if not state.over:                        # an ended game's warnings stand as they were
            self.warnings.update(state, report, self.sightings.seen, known, tolerance, camera_started,
                                 self.emit_all)
        state = self.state
        call = self.answers.close_call(state, self.model_sigmas())
        ruler = [highlight.Line(*state.ruler, highlight.RULER)] if state.ruler else []   # shared, on top
        regions = regions_for(state, answers) + close_call.regions(state, answers, call) + ruler
        log_state = self.journal.log_status()[0]
        error = self.leds.show(state, regions, status_led(log_state, self.status["camera"],
                                                          self.clock() - self._last_error_at,
                                                          self.status["calibration"]))
        if error:
            self._error(f"hardware: {error}")
        self._publish()

    def _known_markers(self, state: GameState) -> set[int]:
        markers_ = self.config.markers
        return ({int(k) for k in markers_.corners} | {int(k) for k in markers_.edges}
                | {markers_.pointer_id} | set(state.markers()))

    def _unassigned(self, state: GameState) -> list[dict[str, Any]]:
        """The markers the camera sees now that no model has (nor a corner or the pointer): each with
        where it stands, to the tenth of an inch, for the panel to offer to a model."""
        known = self._known_markers(state)
        return [{"marker": marker, "x": round(x, 1), "y": round(y, 1)}
                for marker, (x, y) in sorted(self.sightings.seen.items()) if marker not in known]

    def _settled(self) -> None:
        """On the worker, once it is idle: take up its report and publish what is committed."""
        with self._lock:
            if self.session.state is not None:
                self._refresh()

    def _publish(self) -> None:
        if self.journal.pending:       # published once the worker has committed them
            return
        state = self.state
        log_state, log_detail = self.journal.log_status()
        status = {**self.status, "log": log_state, "log_detail": log_detail,
                  "hardware_error": self.leds.error, "hardware": self.hw.describe(),
                  "rulings": state.rulings, "game": self.game, "game_over": state.over,
                  "markers_seen": len(self.sightings.seen), "unassigned": self._unassigned(state),
                  "sandbox": self.sandbox is not None,
                  "brightness": state.brightness if state.brightness is not None else self.leds.brightness}
        camera_started = bool(self.status["frames"])
        timeout = self.config.tracking.occlusion_timeout_s
        states = self.sightings.model_states(state, self.clock(), timeout) if camera_started else {}
        sigmas = self.model_sigmas()

        def view() -> tuple[dict[str, Any], dict[str, Any]]:
            selection = {**self.answers.answers(state).to_json(), "pointer": self.sightings.pointer_pick,
                         "last_roll": state.last_roll, "ruler": state.ruler_dict()}
            phase = state.phase_dict()
            game = self.games.view(state, self.sightings.observed_hexes(state, camera_started))
            if game is not None:
                phase[state.scene.ruleset] = game
            return selection, phase

        self.publisher.publish(state, status, self.leds.frame, self.current_warnings(), states, sigmas, view)

    # ------------------------------------------------------------ the panel's protocol (table/panel_api.py)

    def snapshot(self) -> Snapshot:
        return self.publisher.snapshot()

    def wait_for_change(self, after_seq: int, timeout: float) -> Snapshot:
        return self.publisher.wait_for_change(after_seq, timeout)

    def questions(self) -> tuple[Snapshot, Ruleset]:
        """The newest snapshot and the rule system answering the panel's questions about it."""
        return self.panel_rules.current()

    def log_entries(self, after: int, limit: int) -> list[dict[str, Any]]:
        """This game's log entries after sequence number `after`, oldest first."""
        return self.gamelog.events(self.game, after=after, limit=limit)

    def replay_games(self) -> list[dict[str, Any]]:
        """Every game in the log: its number, start and end, rule system and how many events."""
        return self.gamelog.games()

    def replay_steps(self, game: int | None = None) -> dict[str, Any]:
        """A game's logged events so far (this game's by default), each with its seq, time, kind and
        summary: {"game", "events"}."""
        game = self.game if game is None else game
        return {"game": game, "events": self.replays.steps(game)}

    def replay_at(self, seq: int) -> dict[str, Any] | None:
        """The board after event `seq`, of whichever game holds it (None if the log has no such event)."""
        game = self.gamelog.game_of(seq)
        return None if game is None else self.replays.at(game, seq)

    def camera_jpeg(self) -> bytes | None:
        """The newest frame as a JPEG with the board and the placed markers drawn; None before one."""
        with self._lock:
            frame, seen = self._latest, dict(self.sightings.seen)
            board = (self.state.scene.board.width, self.state.scene.board.height)
        if frame is None:
            return None
        from table.live.camera_view import camera_jpeg

        calibration = getattr(self.pipeline, "calibration", None)
        key = (frame.index, id(frame.image), board, tuple(sorted(seen.items())), id(calibration))
        return self._camera_view.get(key, lambda: camera_jpeg(frame.image, calibration, board, seen))

    def latest_frame(self) -> tuple[Frame | None, Any]:
        """The newest frame the loop processed and the calibration (board <-> image) it was seen with."""
        with self._lock:
            return self._latest, getattr(self.pipeline, "calibration", None)

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
        self._capture = Capture(self.open_source, slot, self.camera_status, fps=self.config.camera.fps,
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
        self.journal.close()
        if self._capture is not None:
            self._capture.stop()
        for thread in self._threads:
            thread.join(timeout=5.0)
        self._background.settle()
        self._background.submit(self.journal.keep)     # what the log still refuses: kept, or said on stderr
        self._background.settle()
        self._background.close()
        try:
            self.hw.off()
        finally:
            self.hw.close()
            self.gamelog.close()
