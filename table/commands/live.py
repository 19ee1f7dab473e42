"""Live-table subcommands: `run` (the table), `doctor` (what to fix), `log export|replay|games`,
`bookmarks list|export`."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from table.config import Config, load_config
from table.errors import ConfigError, HardwareError
from table.frozen import thaw


def register(subparsers: argparse._SubParsersAction) -> None:
    run = subparsers.add_parser("run", help="run the table (camera, LEDs, buttons, web panel)",
                                description="Run the table. --demo, or no camera found, runs the simulated "
                                            "table with mock hardware playing a scripted demo game (until a "
                                            "player changes the game: it is theirs from then on). --sandbox "
                                            "runs the simulated table with nothing scripted: the models stay "
                                            "where the panel, the API or a hand on the sandbox's board put "
                                            "them.")
    run.add_argument("--demo", action="store_true", help="synthetic camera, mock hardware, scripted game")
    run.add_argument("--sandbox", action="store_true",
                     help="synthetic camera, mock hardware, nothing scripted: a simulated table to play by "
                          "hand (its own log, <log>-sandbox)")
    run.add_argument("--config", help="table config (TOML); default firmware_cfg/table.toml")
    run.add_argument("--scene", help="start this scene as a new game (the log's earlier games stay in it, "
                                      "to resume or replay); without it the table resumes the log's game")
    run.add_argument("--host", help="web panel address (default from [web] host)")
    run.add_argument("--port", type=int, help="web panel port, 1-65535 (default from [web] port)")
    run.add_argument("--no-web", action="store_true", help="run without the web panel")
    run.add_argument("--no-demo-fallback", action="store_true",
                     help="on a real table: when no camera is found, keep the real hardware and retry the "
                          "camera (the status LED says so) instead of running the simulated table")
    run.add_argument("--log", help="game log file (default from [log] path; --demo and --sandbox use "
                                   "a separate file each)")
    run.add_argument("--duration", type=float, help="stop after this many seconds")
    run.add_argument("--mqtt", metavar="URL", help="publish the table to this MQTT broker (mqtt://host:1883; "
                                                   "default from [mqtt] url: none)")
    run.add_argument("--table-id", help="this table's name on the broker (default from [mqtt] table_id)")
    run.set_defaults(handler=run_table)

    doctor = subparsers.add_parser("doctor", help="check camera, GPIO, SPI, config, markers and calibration")
    doctor.add_argument("--config", help="table config (TOML)")
    doctor.set_defaults(handler=run_doctor)

    log = subparsers.add_parser("log", help="export or replay a game from the game log")
    actions = log.add_subparsers(dest="action", required=True, metavar="ACTION")
    export = actions.add_parser("export", help="write a game's events as JSON lines")
    export.add_argument("--config")
    export.add_argument("--log", help="game log file (default: [log] path, or the demo's log beside it "
                                      "when only it is there or it was written last)")
    export.add_argument("--game", type=int, help="game number (default: the newest)")
    export.add_argument("--out", help="file to write (default: standard output)")
    export.set_defaults(handler=log_export)
    replay = actions.add_parser("replay", help="play an exported game into a fresh controller")
    replay.add_argument("file", help="JSON-lines file from `log export`")
    replay.add_argument("--config")
    replay.add_argument("--log", help="game log to replay into (default: in memory)")
    replay.set_defaults(handler=log_replay)
    recover = actions.add_parser("recover", help="a damaged log's readable events in a fresh log; the "
                                                 "damaged file set aside (stop the table first)")
    recover.add_argument("--config")
    recover.add_argument("--log", help="game log file (default from [log] path)")
    recover.set_defaults(handler=log_recover)
    games = actions.add_parser("games", help="list the games in the log")
    games.add_argument("--config")
    games.add_argument("--log", help="game log file")
    games.set_defaults(handler=log_games)

    marks = subparsers.add_parser("bookmarks", help="list dispute bookmarks or export one as HTML")
    marks_actions = marks.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = marks_actions.add_parser("list", help="every bookmark: time, question, answer with its error")
    listing.add_argument("--config")
    listing.add_argument("--log", help="game log file (its bookmarks are in <name>-bookmarks/ beside it)")
    listing.set_defaults(handler=bookmarks_list)
    page = marks_actions.add_parser("export", help="write one bookmark as a self-contained HTML page")
    page.add_argument("id", type=int, help="the bookmark's number")
    page.add_argument("--out", required=True, help="the HTML file to write")
    page.add_argument("--config")
    page.add_argument("--log", help="game log file")
    page.set_defaults(handler=bookmarks_export)


def _log_path(config: Config, given: str | None, demo: bool = False, sandbox: bool = False) -> Path:
    if given:
        return Path(given)
    path = config.path("log", "path")
    suffix = "-sandbox" if sandbox else "-demo" if demo else ""
    return path.with_name(path.stem + suffix + path.suffix)


def _found_log(config: Config, given: str | None, wanted: Callable[[Path], bool] = Path.exists) -> Path:
    """The log a reading command means: --log, else whichever of the table's (`[log] path`), the demo's
    and the sandbox's `wanted` finds, the one written last when several (so `log export` after
    `run --demo` needs no --log); the table's when none, for the message."""
    if given:
        return Path(given)
    found = [p for p in (_log_path(config, None), _log_path(config, None, demo=True),
                         _log_path(config, None, sandbox=True)) if wanted(p)]
    return max(found, key=lambda p: p.stat().st_mtime) if found else _log_path(config, None)


def run_table(args: argparse.Namespace) -> Any:
    from table.live.log_owner import hold
    from table.live.mqtt_link import settings_from_config
    from table.live.run import build_table, camera_opener, open_camera

    config = load_config(args.config)
    mqtt = settings_from_config(config, args.mqtt, args.table_id)
    if mqtt is None and args.table_id is not None:
        raise ConfigError("--table-id: no broker to publish to (give --mqtt URL or [mqtt] url)")
    if not args.no_web:       # a port in use or out of range: one line, before anything is printed
        _check_port(args.host or config.web.host, args.port if args.port is not None else config.web.port)
    demo = args.demo or args.sandbox
    opener = None
    if not demo:
        try:
            opener = open_camera(config)
        except HardwareError as exc:
            if args.no_demo_fallback:
                print(f"smarttable run: {exc}; retrying", file=sys.stderr)
                opener = camera_opener(config)
            else:
                print(f"smarttable run: {exc}; running the simulated table (--demo)", file=sys.stderr)
                demo = True
    log_path = _log_path(config, args.log, demo, args.sandbox)
    owner = hold(log_path)          # a second table on the same log: one line, before anything starts
    try:
        table = build_table(config, demo=demo, scene_path=args.scene, log_path=log_path,
                            open_source=opener, mqtt=mqtt, sandbox=args.sandbox)
    except BaseException:
        if owner is not None:
            owner.close()
        raise
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    try:
        table.start()
        if args.duration is not None:
            timer = threading.Timer(args.duration, signal.raise_signal, (signal.SIGTERM,))
            timer.daemon = True
            timer.start()
        served = not args.no_web and _serve(table.controller, config, args)
        while not served and not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)    # a second SIGTERM must not cut the cleanup short
        table.close()
        if owner is not None:
            owner.close()
    controller = table.controller
    return {"stopped": True, "demo": demo, "sandbox": args.sandbox, "game": controller.game,
            "camera": controller.status["camera"],
            "frames": controller.status["frames"],
            "phase": controller.state.phase_dict(),
            "warnings": [w["id"] for w in controller.current_warnings()],
            "leds_lit": controller.hw.strip.lit, **({"mqtt": table.link.status()} if table.link else {})}


def _serve(controller: Any, config: Config, args: argparse.Namespace) -> bool:
    """Serve the web panel (blocks); False when the panel is not installed."""
    try:
        from web_ui.server import app_from_config, serve
    except ImportError:
        print("smarttable run: the web panel is not available; running without it", file=sys.stderr)
        return False
    from table.live.panel_address import announce

    app = app_from_config(controller, config)
    host, port = args.host or config.web.host, args.port if args.port is not None else config.web.port
    serve(app, host, port, announce=lambda: announce(host, port, sys.stderr, qr=sys.stderr.isatty()))
    return True


def _check_port(host: str, port: int) -> None:
    try:
        from web_ui.server import check_port
    except ImportError:       # no panel installed: nothing will listen
        return
    check_port(host, port)


def run_doctor(args: argparse.Namespace) -> Any:
    from table.live.doctor import diagnose

    load_config(args.config)       # a malformed config: one line, exit 2, as from `run` and `locate`
    report = diagnose(args.config)
    args.exit_status = 0 if report["ok"] else 1    # scripts and systemd can tell
    return report


def log_export(args: argparse.Namespace) -> Any:
    from table.live.gamelog import export_jsonl

    with _existing_log(args) as (path, gamelog):
        games = gamelog.games()
        if not games:
            raise ConfigError(f"{path}: the game log has no games")
        game = args.game if args.game is not None else games[-1]["game"]
        if game not in {g["game"] for g in games}:
            raise ConfigError(f"{path}: no game {game} (games: {', '.join(str(g['game']) for g in games)})")
        events = gamelog.events(game)
    if args.out is None:
        export_jsonl(events, sys.stdout)
        return None
    with open(args.out, "w", encoding="utf-8") as out:
        count = export_jsonl(events, out)
    return {"game": game, "events": count, "path": args.out}


def log_replay(args: argparse.Namespace) -> Any:
    from table.live.gamelog import read_jsonl
    from table.live.run import build_table

    config = load_config(args.config)
    events = list(read_jsonl(args.file))
    if not events or events[0]["kind"] != "game_start":
        raise ConfigError(f"{args.file}: line 1: a game starts with a game_start event")
    table = build_table(config, demo=True, log_path=Path(args.log) if args.log else Path(":memory:"),
                        first_event=events[0])
    try:
        state = table.controller.replay(events)
        snap = table.controller.snapshot()
    finally:
        table.close()
    return {"events": len(events), "game": snap.status.get("game"), "phase": state.phase_dict(),
            "warnings": [w["id"] for w in snap.warnings], "selection": thaw(snap.selection),
            "scene": thaw(snap.scene)}


def log_recover(args: argparse.Namespace) -> Any:
    from table.live.recover import recover

    return recover(_log_path(load_config(args.config), args.log))


def log_games(args: argparse.Namespace) -> Any:
    with _existing_log(args) as (path, gamelog):
        return {"log": str(path), "games": gamelog.games()}


def _bookmarks(args: argparse.Namespace) -> Any:
    """The bookmarks beside the game log named by --config/--log (with the log, for their places in it)."""
    from table.live.bookmark_store import BookmarkStore, folder_beside
    from table.live.bookmarks import Bookmarks
    from table.live.gamelog import GameLog

    path = _found_log(load_config(args.config), args.log,
                      lambda p: p.exists() and (folder_beside(p) or p).is_dir())
    folder = folder_beside(path)
    if folder is None or not folder.is_dir():
        raise ConfigError(f"{folder or path}: no bookmarks here")
    return Bookmarks(BookmarkStore(folder), GameLog(path))


def bookmarks_list(args: argparse.Namespace) -> Any:
    found = _bookmarks(args)
    try:
        return {"folder": str(found.store.folder), "bookmarks": found.summaries()}
    finally:
        found.gamelog.close()


def bookmarks_export(args: argparse.Namespace) -> Any:
    from table.errors import QueryError
    from table.live.bookmark_page import page
    from table.live.bookmark_store import answer_text

    found = _bookmarks(args)
    try:
        document = found.get(args.id)
    except QueryError as exc:
        known = ", ".join(str(s["id"]) for s in found.store.summaries()) or "none"
        raise ConfigError(f"{found.store.folder}: {exc} (bookmarks: {known})") from None
    finally:
        found.gamelog.close()
    try:
        Path(args.out).write_text(page(document), encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{args.out}: cannot write: {exc.strerror}") from None
    return {"bookmark": args.id, "path": args.out, "text": answer_text(document["measurement"])}


@contextlib.contextmanager
def _existing_log(args: argparse.Namespace) -> Iterator[tuple[Path, Any]]:
    """The game log named by --config/--log, opened; a missing log is the user's mistake."""
    from table.live.gamelog import GameLog

    path = _found_log(load_config(args.config), args.log)
    if not path.exists():
        raise ConfigError(f"{path}: no game log here")
    gamelog = GameLog(path)
    try:
        yield path, gamelog
    finally:
        gamelog.close()

