"""Server-sent events: one event per new snapshot, throttled, each with its sequence number.

Throttling coalesces: a client gets at most one event per interval, always the newest snapshot, and
its `seq` lets the client see that it skipped some. Each event carries the whole state
(`{"seq", "state"}`), unless the client asks for patches (`?patch=1`, as the panel does): then the
first event of a stream is whole and each later one carries only the parts that changed since the
state that client last received (`{"seq", "base", "parts"}`), so a phone on a still table receives a
few hundred bytes rather than the whole board each time. A client that cannot apply a patch (its
`base` is not what it holds) re-reads `/api/state`.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from table import strictjson
from table.snapshot import Controller, Snapshot
from web_ui.streams import CLOSE_S

KEPT = 16            # snapshots (and patches between them) kept for clients a few events behind


def dumps(value: Any) -> str:
    """Strict JSON, compact: what every phone parses."""
    return strictjson.dumps(value)


def part_patch(old: Any, new: Any) -> Any:
    """One changed part as sent, as small as it goes: a dict as its changed keys (`$patch`, each
    patched in turn, and `$gone`), a list of the same length as its changed items (`$set`
    [[index, patched item]...]), anything else (or where that is no smaller) whole."""
    if isinstance(old, dict) and isinstance(new, dict):
        changed = {k: part_patch(old.get(k), v) for k, v in new.items() if k not in old or old[k] != v}
        gone = [k for k in old if k not in new]
        return {"$patch": changed, **({"$gone": gone} if gone else {})}
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        items = [[i, part_patch(u, v)] for i, (u, v) in enumerate(zip(old, new, strict=True)) if u != v]
        if len(dumps(items)) < len(dumps(new)):
            return {"$set": items}
    return new


def patch(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The parts of `new` that differ from `old`, each as small as `part_patch` makes it."""
    return {key: part_patch(old.get(key), value) for key, value in new.items()
            if key != "seq" and (key not in old or old[key] != value)}


def apply_part(old: Any, part: Any) -> Any:
    """The inverse of `part_patch`, as the panel applies it (web_ui/static/js/live.js `applyPart`)."""
    if isinstance(part, dict) and "$patch" in part:
        value = {**old, **{k: apply_part(old.get(k), v) for k, v in part["$patch"].items()}}
        for gone in part.get("$gone", []):
            value.pop(gone, None)
        return value
    if isinstance(part, dict) and "$set" in part:
        items = list(old)
        for index, item in part["$set"]:
            items[index] = apply_part(items[index], item)
        return items
    return part


def apply_patch(state: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    """The state after a patch event (the tests and the bandwidth bench hold the panel to this)."""
    return {**state, "seq": message["seq"],
            **{key: apply_part(state.get(key), part) for key, part in message["parts"].items()}}


class SnapshotText:
    """The newest snapshot as JSON and as SSE events (whole, or patched from a recent one), each made
    once however many clients read it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple[int, float] | None = None
        self._json = self._event = ""
        self._docs: OrderedDict[int, dict[str, Any]] = OrderedDict()
        self._patches: dict[tuple[int, int], str] = {}

    def _update(self, snapshot: Snapshot) -> None:
        key = (snapshot.seq, snapshot.timestamp)
        if key != self._key:
            doc = snapshot.to_dict()
            self._json = dumps(doc)
            data = f'{{"seq":{snapshot.seq},"state":{self._json}}}'
            self._event = f"id: {snapshot.seq}\nevent: state\ndata: {data}\n\n"
            self._key = key
            self._docs[snapshot.seq] = doc
            self._docs.move_to_end(snapshot.seq)
            while len(self._docs) > KEPT:
                self._docs.popitem(last=False)
            self._patches = {k: v for k, v in self._patches.items() if k[0] in self._docs}

    def json(self, snapshot: Snapshot) -> str:
        with self._lock:
            self._update(snapshot)
            return self._json

    def event(self, snapshot: Snapshot, base: int | None = None) -> str:
        """The SSE event for `snapshot`: its changes since `base` if that state is still kept, else whole."""
        with self._lock:
            self._update(snapshot)
            if base is None or base == snapshot.seq or base not in self._docs:
                return self._event
            key = (base, snapshot.seq)
            if key not in self._patches:
                data = dumps({"seq": snapshot.seq, "base": base,
                              "parts": patch(self._docs[base], self._docs[snapshot.seq])})
                self._patches[key] = f"id: {snapshot.seq}\nevent: state\ndata: {data}\n\n"
            return self._patches[key]


def heartbeat(seq: int, every_s: float) -> str:
    """The event a quiet stream sends every `every_s`: an event, not a comment, so that a page can see
    it and tell a frozen table (no heartbeat) from a quiet one (docs/web.md)."""
    return f'event: heartbeat\ndata: {{"seq":{seq},"every_s":{every_s:g}}}\n\n'


def stream(controller: Controller, after: int, interval_s: float, heartbeat_s: float, cache: SnapshotText,
           closing: threading.Event, patches: bool = False) -> Iterator[str]:
    """Yield SSE text until the client goes away or `closing` is set (noticed within CLOSE_S): a heartbeat
    at once (the page learns its interval), the current state if it is not `after`, then each newer state,
    or a heartbeat when none came for `heartbeat_s`."""
    yield "retry: 2000\n\n"
    last = after
    sent: int | None = None           # the state this client holds (patches apply to it)
    current = controller.snapshot()
    yield heartbeat(current.seq, heartbeat_s)
    if current.seq != last:
        yield cache.event(current)
        last = sent = current.seq
    said = time.monotonic()
    next_at = said + interval_s
    while not closing.is_set():
        wait = next_at - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        snapshot = controller.wait_for_change(last, min(heartbeat_s, CLOSE_S))
        if snapshot.seq != last:      # newer, or lower after a controller restart
            yield cache.event(snapshot, sent if patches and snapshot.seq > last else None)
            last = sent = snapshot.seq
            said = time.monotonic()
            next_at = said + interval_s
        elif time.monotonic() - said >= heartbeat_s:
            yield heartbeat(snapshot.seq, heartbeat_s)
            said = time.monotonic()
