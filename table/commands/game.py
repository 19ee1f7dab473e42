"""`smarttable game`: the games of a running table, from the command line: list them, start a new one,
end the one on the table, resume an earlier one. It asks the table's own HTTP API (`/api/games`,
docs/web.md), so the table's checks, PIN and log apply as they do for the panel."""

from __future__ import annotations

import argparse
import json
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from table.config import load_config
from table.errors import ConfigError, TableError

PIN_ENV = "SMARTTABLE_PIN"
TIMEOUT_S = 60.0                 # a new game's report can take a while on a Pi


def register(subparsers: argparse._SubParsersAction) -> None:
    game = subparsers.add_parser("game", help="list, start, end or resume the games of a running table",
                                 description="Ask the running table (its HTTP API) to list its games, start "
                                             "a new one, end the one on it or resume an earlier one.")
    commands = game.add_subparsers(dest="game_command", required=True, metavar="ACTION")
    listing = commands.add_parser("list", help="the games in the table's log and the one on the table")
    new = commands.add_parser("new", help="start a new game (the table's scene again when given nothing)")
    new.add_argument("--ruleset", help="the rule system of an empty board or of --scenario")
    new.add_argument("--scenario", metavar="NAME|FILE", help="a saved scenario's name, or a scenario file")
    new.add_argument("--scene", metavar="NAME|FILE",
                     help="a saved scene's name, or a scene file (docs/scene.md)")
    new.add_argument("--players", metavar="A,B", help="the players, comma-separated (default: the system's)")
    new.add_argument("--army", action="append", default=[], metavar="NAME|FILE[:PLAYER]",
                     help="a saved army list's name or an army file, for PLAYER (repeatable)")
    end = commands.add_parser("end", help="end the game on the table (it stays in the log)")
    end.add_argument("--reason", help="why (a few words, kept in the log)")
    resume = commands.add_parser("resume", help="make an earlier game the one on the table, where it stood")
    resume.add_argument("number", type=int, help="the game's number (`smarttable game list`)")
    for sub in (listing, new, end, resume):
        sub.add_argument("--url", help="the table's panel (default http://127.0.0.1:PORT, [web] port)")
        sub.add_argument("--config", help="table config (TOML): its [web] port and PIN; default "
                                          "firmware_cfg/table.toml")
        sub.add_argument("--pin", help=f"the panel's PIN (default: ${PIN_ENV}, [web] pin, else the pin.txt "
                                       "the table keeps beside its log)")
    listing.set_defaults(handler=lambda args: ask(args, "GET", "/api/games"))
    new.set_defaults(handler=lambda args: ask(args, "POST", "/api/games", new_game_body(args)))
    end.set_defaults(handler=lambda args: ask(args, "POST", "/api/games/end",
                                              {"reason": args.reason} if args.reason else {}))
    resume.set_defaults(handler=lambda args: ask(args, "POST", f"/api/games/{args.number}/resume", {}))


def new_game_body(args: argparse.Namespace) -> dict[str, Any]:
    """POST /api/games's body from the options: a FILE is sent as its document, anything else as a name."""
    body: dict[str, Any] = {}
    if args.ruleset:
        body["ruleset"] = args.ruleset
    if args.scenario:
        body["scenario"] = named_or_file(args.scenario, "--scenario")
    if args.scene:
        body["scene"] = named_or_file(args.scene, "--scene")
    if args.players:
        body["players"] = [p.strip() for p in args.players.split(",") if p.strip()]
    armies = []
    for given in args.army:
        source, _, player = given.rpartition(":") if ":" in given else (given, "", "")
        army = named_or_file(source, "--army")
        entry: dict[str, Any] = {"army" if isinstance(army, dict) else "name": army}
        armies.append({**entry, "player": player} if player else entry)
    if armies:
        body["armies"] = armies
    return body


def named_or_file(value: str, option: str) -> str | dict[str, Any]:
    """A saved name as it is, or the JSON document of an existing file."""
    path = Path(value)
    if not path.is_file():
        return value
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{option} {path}: not a JSON file: {exc}") from None
    if not isinstance(document, dict):
        raise ConfigError(f"{option} {path}: expected a JSON object")
    return document


def ask(args: argparse.Namespace, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """The table's answer to one request; a refusal or no table: TableError with the API's own words."""
    config = load_config(args.config)
    url = (args.url or f"http://127.0.0.1:{config.web.port}").rstrip("/")
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if method != "GET":
        headers["X-Table-PIN"] = pin_for(args, config)
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as reply:
            return json.load(reply)
    except urllib.error.HTTPError as exc:
        raise TableError(f"the table refused ({exc.code}): {refusal(exc)}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise TableError(f"no table answers at {url} ({reason}): start it with `smarttable run`, or give "
                         "--url") from None


def refusal(exc: urllib.error.HTTPError) -> str:
    try:
        answer = json.load(exc)
    except (ValueError, OSError):
        return exc.reason or "no reason given"
    field = answer.get("field") if isinstance(answer, dict) else None
    error = answer.get("error") if isinstance(answer, dict) else None
    return f"{field}: {error}" if field else str(error or answer)


def pin_for(args: argparse.Namespace, config: Any) -> str:
    """--pin, $SMARTTABLE_PIN, [web] pin, else the pin.txt the table keeps in its data folder."""
    from web_ui.auth import PIN_FILE
    from web_ui.server import data_dir_of

    pin = args.pin or os.environ.get(PIN_ENV) or config.web.pin
    if pin:
        return str(pin)
    kept = data_dir_of(config) / PIN_FILE
    try:
        return kept.read_text(encoding="utf-8").strip()
    except OSError:
        raise ConfigError(f"no PIN: give --pin, set ${PIN_ENV}, or run this where the table keeps {kept} "
                          "(the table prints its PIN when it starts)") from None
