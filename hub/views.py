"""What the hub knows of each table (`TableView`): availability, newest state, the messages it refused
(`Faults`) and when it may next ask for a replay (`Pacer`); and the listener's own health (`Health`)."""

from __future__ import annotations

import math
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

from hub.inbox import REPLAY_BATCH, Rejected

ASK_AGAIN_S = 2.0          # a gap not filled is asked for again after this, doubling while it stays unfilled
ASK_AT_MOST_S = 60.0       # ... up to this
ASK_SPACING_S = 0.5        # asks at least this far apart (for a table coming online again and again)
RECENT = 10                # refused messages shown per table


class Faults:
    """The messages one table sent that the hub refused: counted by reason, the last few kept."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.by_reason: Counter[str] = Counter()
        self.recent: deque[dict[str, Any]] = deque(maxlen=RECENT)

    def add(self, topic: str, exc: Rejected) -> int:
        """Count one; returns how many of its reason there are now."""
        with self._lock:
            self.by_reason[exc.reason] += 1
            self.recent.appendleft({"at": time.time(), "topic": topic, "reason": exc.reason,
                                    "error": exc.message[:300]})
            return self.by_reason[exc.reason]

    @property
    def count(self) -> int:
        with self._lock:
            return sum(self.by_reason.values())

    def to_json(self) -> dict[str, Any]:
        with self._lock:
            return {"count": sum(self.by_reason.values()), "by_reason": dict(self.by_reason),
                    "recent": list(self.recent)}


@dataclass
class Pacer:
    """When the hub may ask one table for a replay: at once for the next batch of one that filled part of
    a gap; `ASK_SPACING_S` apart for a table that comes online; otherwise after `wait_s`, which doubles
    (up to ASK_AT_MOST_S) each time an ask goes unanswered or its answer fills nothing. `batch` events are
    asked for at a time: a tenth as many after an answer too big to read, twice as many (up to
    REPLAY_BATCH) after each one that filled part of the gap."""

    wait_s: float = ASK_AGAIN_S
    asked_at: float = -math.inf
    waiting: bool = False
    asks: int = 0
    batch: int = REPLAY_BATCH

    def due(self, now: float, spacing: float | None) -> bool:
        return now - self.asked_at >= (self.wait_s if spacing is None else spacing)

    def asked(self, now: float) -> None:
        if self.waiting:
            self.wait_s = min(self.wait_s * 2, ASK_AT_MOST_S)
        self.asked_at, self.waiting = now, True
        self.asks += 1

    def answered(self, progress: bool) -> None:
        self.waiting = False
        self.wait_s = ASK_AGAIN_S if progress else min(self.wait_s * 2, ASK_AT_MOST_S)
        if progress:
            self.batch = min(self.batch * 2, REPLAY_BATCH)

    def too_big(self) -> None:
        """The answer was too big to read: ask again for fewer at a time, at the next look."""
        self.batch = max(1, self.batch // 10)
        self.asked_at = -math.inf


@dataclass
class TableView:
    """What the hub knows of one table; `heard` once it sent one message the hub kept."""

    table_id: str
    available: str = "unknown"
    available_at: float = 0.0
    state: dict[str, Any] | None = field(default=None, repr=False)
    state_at: float = 0.0
    heard: bool = False
    touched: float = field(default_factory=time.monotonic)
    faults: Faults = field(default_factory=Faults, repr=False)
    pacer: Pacer = field(default_factory=Pacer)


@dataclass
class Health:
    """The listener's own state, for /api/tables: a hub whose MQTT thread is gone says so."""

    messages: int = 0              # messages handled
    failures: int = 0              # messages whose handling failed (a bug, contained)
    last_failure: str | None = None
    restarts: int = 0              # times the MQTT thread was found dead and started again
    ignored: Counter[str] = field(default_factory=Counter)   # topic: not a table's; tables: too many

    def to_json(self, alive: bool) -> dict[str, Any]:
        return {"alive": alive, "messages": self.messages, "failures": self.failures,
                "last_failure": self.last_failure, "restarts": self.restarts, "ignored": dict(self.ignored)}


def summary(doc: dict[str, Any] | None) -> dict[str, Any]:
    """The dashboard's line for a state document: rule system, turn, phase, players, warnings (a field
    of the wrong JSON type is left out)."""
    if not doc:
        return {"ruleset": None, "turn": None, "phase": None, "player": None, "players": [], "warnings": [],
                "open_disputes": 0, "camera": None, "state_seq": None}
    phase, scene, status = _object(doc.get("phase")), _object(doc.get("scene")), _object(doc.get("status"))
    units, warnings = _objects(scene.get("units")), _objects(doc.get("warnings"))
    return {"ruleset": _text(doc.get("ruleset")), "turn": _whole(phase.get("turn")),
            "phase": _text(phase.get("phase")), "player": _text(phase.get("player")),
            "players": sorted({u["player"] for u in units if _text(u.get("player"))}),
            "warnings": [{"id": _text(w.get("id")), "message": _text(w.get("message")) or "",
                          "acknowledged": bool(w.get("acknowledged"))} for w in warnings],
            "open_disputes": sum(1 for w in warnings if not w.get("acknowledged")),
            "camera": _text(status.get("camera")), "state_seq": _whole(doc.get("seq"))}


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _whole(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _object(value: object) -> dict[str, Any]:
    """`value` if it is a JSON object, else an empty one (a table may publish junk)."""
    return value if isinstance(value, dict) else {}


def _objects(value: object) -> list[dict[str, Any]]:
    """The JSON objects in `value` if it is a list, else none."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
