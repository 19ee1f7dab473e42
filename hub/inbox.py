"""The hub's edge: every message from the broker read strictly before anything else sees it.

A payload is refused for its size before it is parsed, then read with the table's own strict JSON reader
(`table.strictjson`: no NaN, no nesting past 64) and checked as the table wrote it: an event's envelope
(`seq`, `game`, `ts`, `kind`) here, its fields by the table's own event decoders (`table.live.events`).
A refused message raises `Rejected`, naming why (`reason`, one word, counted per table) and what
(`message`, for the log and the dashboard).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from table import strictjson
from table.errors import TableError
from table.jsoncheck import kind_of
from table.live.events import decode

MAX_SEQ = 2**63 - 1                         # SQLite's largest integer: the tables' logs count no further
MAX_BYTES = {"available": 64, "state": 1 << 20, "events": 1 << 20, "reply/replay": 4 << 20}
REPLAY_BATCH = 1000                         # events the hub asks for at a time (the most a table gives)
AHEAD = 100_000                             # an event this far past what the hub holds is not believed


class Rejected(Exception):
    """A message the hub drops: `reason` is its kind (too_big, not_json, bad_event, bad_state,
    bad_available, bad_reply, seq_ahead), `message` says what was wrong."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason, self.message = reason, message


def parse(payload: bytes, kind: str) -> Any:
    """The payload's JSON, read strictly, after its size is checked against `kind`'s limit."""
    cap = MAX_BYTES[kind]
    if len(payload) > cap:
        raise Rejected("too_big", f"{len(payload)} bytes (at most {cap})")
    try:
        return strictjson.loads(payload)
    except ValueError as exc:          # StrictJsonError (a whole number of over 100 digits too), bad UTF-8
        raise Rejected("not_json", f"not strict JSON: {exc}") from None


def _shown(value: int) -> str:
    text = str(value)
    return text if len(text) <= 24 else f"a number of {len(text)} digits"


def _whole(value: Any, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Rejected("bad_event", f"{field}: expected a whole number, got {kind_of(value)}")
    if not low <= value <= high:
        raise Rejected("bad_event", f"{field}: must be from {low} to {high}, got {_shown(value)}")
    return value


def read_event(doc: Any) -> dict[str, Any]:
    """An event as a table publishes it (`{"seq", "game", "ts", "kind", ...}`, table/live/mqtt_link.py),
    its fields checked by the table's own decoder."""
    if not isinstance(doc, dict):
        raise Rejected("bad_event", f"event: expected an object, got {kind_of(doc)}")
    _whole(doc.get("seq"), "seq", 1, MAX_SEQ)
    _whole(doc.get("game"), "game", 1, MAX_SEQ)
    ts = doc.get("ts")
    if isinstance(ts, bool) or not isinstance(ts, (int, float)) or not math.isfinite(ts) or ts < 0:
        raise Rejected("bad_event", f"ts: expected a time in seconds, got {kind_of(ts)}")
    try:
        decode(doc)
    except TableError as exc:
        raise Rejected("bad_event", str(exc)) from None
    return doc


def read_state(payload: bytes) -> dict[str, Any]:
    """A table's state document (`GET /api/state`): a JSON object."""
    doc = parse(payload, "state")
    if not isinstance(doc, dict):
        raise Rejected("bad_state", f"state: expected an object, got {kind_of(doc)}")
    return doc


def read_available(payload: bytes) -> str:
    if len(payload) > MAX_BYTES["available"] or payload not in (b"online", b"offline"):
        raise Rejected("bad_available", f"available: expected online or offline, got {payload[:64]!r}")
    return payload.decode()


@dataclass(frozen=True)
class Replayed:
    """A table's answer to the hub's `replay` after `after`: the events it gave (each read, or the reason
    it was refused, by seq), whether there are `more`, and its `error` when it refused."""

    after: int
    events: dict[int, dict[str, Any] | Rejected]
    more: bool
    error: str | None = None


def read_reply(doc: Any, ours: str) -> Replayed | None:
    """A `reply/replay` answer to a request of this hub's (request id `OURS-AFTER`); None for another's."""
    if not isinstance(doc, dict):
        raise Rejected("bad_reply", f"reply: expected an object, got {kind_of(doc)}")
    request = doc.get("request_id")
    if not isinstance(request, str) or not request.startswith(ours + "-"):
        return None
    after = request[len(ours) + 1:]
    if not after.isdigit() or len(after) > 19:
        raise Rejected("bad_reply", f"request_id: not one the hub sent: {request[:80]!r}")
    if doc.get("ok") is not True:
        error = doc.get("error")
        return Replayed(int(after), {}, False, error if isinstance(error, str) else "refused")
    result = doc.get("result")
    events = result.get("events") if isinstance(result, dict) else None
    more = result.get("more") if isinstance(result, dict) else None
    if not isinstance(events, list) or len(events) > 1000 or not isinstance(more, bool):
        raise Rejected("bad_reply", "result: expected {\"events\": [at most 1000], \"more\": true or false}")
    read: dict[int, dict[str, Any] | Rejected] = {}
    first = last = int(after)
    for index, item in enumerate(events):
        seq = item.get("seq") if isinstance(item, dict) else None
        if isinstance(seq, bool) or not isinstance(seq, int) or not last < seq <= min(MAX_SEQ, first + AHEAD):
            shown = _shown(seq) if isinstance(seq, int) else kind_of(seq)
            raise Rejected("bad_reply", f"result.events[{index}].seq: expected a seq above {last} and "
                                        f"at most {AHEAD} past {first}, got {shown}")
        try:
            read[seq] = read_event(item)
        except Rejected as exc:
            read[seq] = exc
        last = seq
    return Replayed(first, read, more)
