"""Open (read-only) API: state, events, rule questions, the game log, saved scenes, the camera."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from typing import Any

from flask import Blueprint, Response, jsonify, request, stream_with_context

from table import strictjson
from table.errors import QueryError
from table.frozen import thaw
from table.live.summaries import summary
from table.rules import all_rulesets, get_ruleset
from table.scene import parse_scene
from web_ui import camera, storage
from web_ui.context import panel
from web_ui.errors import ApiError
from web_ui.inputs import argument, parse_int, query_int
from web_ui.openapi import document
from web_ui.queries import ask, questions
from web_ui.sse import stream

bp = Blueprint("api_read", __name__, url_prefix="/api")

NO_CACHE = {"Cache-Control": "no-store"}


@bp.get("/state")
def state() -> Response:
    ctx = panel()
    return Response(ctx.text.json(ctx.controller.snapshot()), mimetype="application/json", headers=NO_CACHE)


@bp.get("/openapi.json")
def openapi() -> Response:
    return jsonify(document())


@bp.get("/events")
def events() -> Response:
    ctx = panel()
    header = request.headers.get("Last-Event-ID")
    after = query_int("after", -1, -1)
    if header is not None and request.args.get("after") is None:
        after = parse_int(header, "Last-Event-ID", -1)
    patches = request.args.get("patch") in ("1", "true")
    body = stream(ctx.controller, after, ctx.options.sse_interval_s, ctx.options.heartbeat_s, ctx.text,
                  ctx.streams.closing, patches=patches)
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return live(Response(stream_with_context(body), mimetype="text/event-stream", headers=headers),
                "read /api/state meanwhile")


def live(response: Response, instead: str) -> Response:
    """`response` holding one of the client address's live-connection slots until it is closed (a 429
    with Retry-After naming what to do `instead` when it has none left, web_ui/streams.py)."""
    streams, address = panel().streams, request.remote_addr or ""
    streams.acquire(address, instead)
    response.call_on_close(lambda: streams.release(address))
    return response


@bp.get("/questions")
def list_questions() -> Response:
    _, ruleset = panel().controller.questions()
    return jsonify({"ruleset": ruleset.name, "questions": questions(ruleset)})


@bp.get("/rulesets")
def rulesets() -> Response:
    found = [r.declaration() for r in all_rulesets()]
    return jsonify({"rulesets": found})


@bp.get("/rulesets/<name>/panel.js")
def panel_script(name: str) -> Response:
    """A rule system's own panel module (`Ruleset.panel_script`), read from its package."""
    try:
        rules = get_ruleset(name)
    except QueryError:
        rules = None
    if rules is None or rules.panel_script is None:
        raise ApiError(404, "name", f"no panel module for {name!r}")
    script = resources.files(rules.__module__.rpartition(".")[0]) / rules.panel_script
    return Response(script.read_text(encoding="utf-8"), mimetype="text/javascript")


@bp.get("/query/<question>")
def query(question: str) -> Response:
    args = [argument(a, "arg") for a in request.args.getlist("arg")]
    ctx = panel()
    with ctx.questions.turn(request.remote_addr or ""):        # a fair share (web_ui/fair.py)
        snapshot, ruleset = ctx.controller.questions()
        answer = ask(ruleset, question, args)
    return jsonify({"seq": snapshot.seq, "question": question, "args": args, "answer": answer})


@bp.get("/log")
def log() -> Response:
    after = query_int("after", 0)
    limit = query_int("limit", 100, 1, 1000)
    controller = panel().controller
    scene = parse_scene(thaw(controller.snapshot().scene))       # names the models' units
    entries = controller.log_entries(after, limit)
    return jsonify({"entries": [{**e, "text": summary(e, scene)} for e in entries]})


@bp.get("/replay")
def replay() -> Response:
    controller = panel().controller
    game = query_int("game", 0, 1) if "game" in request.args else None
    games = controller.replay_games()
    if game is not None and not any(g["game"] == game for g in games):
        raise ApiError(404, "game", f"the log has no game {game} (games: "
                                    f"{', '.join(str(g['game']) for g in games) or 'none'})")
    found = controller.replay_steps(game)
    return jsonify({"game": found["game"], "games": games, "count": len(found["events"]),
                    "events": found["events"]})


@bp.get("/replay/<seq>")
def replay_at(seq: str) -> Response:
    number = parse_int(seq, "seq", 1)
    view = panel().controller.replay_at(number)
    if view is None:
        raise ApiError(404, "seq", f"the game log has no event {number} (GET /api/replay lists a game's)")
    return jsonify(view)


@bp.get("/log/export")
def log_export() -> Response:
    controller = panel().controller

    def lines() -> Iterator[str]:
        after = 0
        while True:
            entries = controller.log_entries(after, 500)
            if not entries:
                return
            for entry in entries:
                yield strictjson.dumps(entry) + "\n"
            after = int(entries[-1].get("seq", after + len(entries)))

    headers = {"Content-Disposition": 'attachment; filename="game-log.jsonl"'}
    return Response(stream_with_context(lines()), mimetype="application/x-ndjson", headers=headers)


@bp.get("/scenes")
def scenes() -> Response:
    return jsonify({"scenes": storage.list_scenes(panel().options.data_dir)})


@bp.get("/scenes/<name>")
def scene(name: str) -> Response:
    document_: dict[str, Any] = storage.read_scene(panel().options.data_dir, name)
    return jsonify(document_)


@bp.get("/camera.jpg")
def camera_snapshot() -> Response:
    frame = camera.camera_jpeg(panel().controller)
    return Response(frame, mimetype="image/jpeg", headers=NO_CACHE)


@bp.get("/camera.mjpeg")
def camera_stream() -> Response:
    ctx = panel()
    camera.camera_jpeg(ctx.controller)          # 404 now rather than an empty stream
    body = ctx.streams.until_closed(camera.mjpeg(ctx.controller, ctx.options.sse_interval_s))
    return live(Response(stream_with_context(body), mimetype="multipart/x-mixed-replace; boundary=frame",
                         headers=NO_CACHE), "use /api/camera.jpg meanwhile")


@bp.get("/markers/sheet.svg")
def marker_sheet() -> Response:
    from web_ui.markers import parse_ids, sheet_svg

    ctx = panel()
    ids = parse_ids(request.args.get("ids", ""))
    size = float(query_int("size_mm", int(ctx.options.marker_size_mm), 5, 100))
    svg = sheet_svg(ctx.controller, ids, ctx.options.marker_dictionary, size)
    return Response(svg, mimetype="image/svg+xml")
