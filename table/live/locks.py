"""The live table's locks and conditions, each made here under its name, and waits on the worker.

The order they may be taken in is written down in table/live/controller.py ("Threads"). The table
gets threading's own primitives. The tests' lock-order checker (tests/lockorder.py) installs a
`Tracker` before a table is built: every lock made then says who takes it while holding what, a
wait for a thread (a `Role`: the background worker, the capture thread) counts as taking it, and
the thread holds it while it works, so an order that can deadlock fails the test that showed it,
whether or not it froze this time.
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Protocol

# The order (table/live/controller.py, "Threads"): holding a lock of one tier, a thread takes only
# those of a later tier; a wait for a thread (the worker, the capture thread) counts as taking it.
ORDER: tuple[tuple[str, ...], ...] = (
    ("worker", "capture"),
    ("controller", "replay"),
    ("journal", "reports", "publisher", "worker-queue", "gamelog", "bookmarks", "frame-slot", "panel-rules",
     "camera-view", "remote-cameras"),
)


def allowed(held: str, taken: str) -> bool:
    """Whether the order lets a thread holding `held` take `taken` (both named in ORDER)."""
    tier = {name: index for index, names in enumerate(ORDER) for name in names}
    return held in tier and taken in tier and tier[held] < tier[taken]


class Role:
    """A thread others wait for (the background worker, the capture thread): `waiting()` marks a wait
    that only it can end, `working()` its own work. Plain here; the checker's records both."""

    def waiting(self) -> AbstractContextManager[None]:
        return nullcontext()

    def working(self) -> AbstractContextManager[None]:
        return nullcontext()


class Tracker(Protocol):
    """What the lock-order checker gives in place of threading's primitives."""

    def lock(self, name: str, reentrant: bool) -> Any: ...

    def condition(self, name: str) -> threading.Condition: ...

    def role(self, name: str) -> Role: ...


_tracker: Tracker | None = None


def install(tracker: Tracker | None) -> Tracker | None:
    """Make every lock made from now on report to `tracker` (None: plain ones); the one before."""
    global _tracker
    previous, _tracker = _tracker, tracker
    return previous


def lock(name: str) -> threading.Lock:
    if _tracker is None:
        return threading.Lock()
    tracked: threading.Lock = _tracker.lock(name, reentrant=False)
    return tracked


def rlock(name: str) -> threading.RLock:
    if _tracker is None:
        return threading.RLock()
    tracked: threading.RLock = _tracker.lock(name, reentrant=True)
    return tracked


def condition(name: str) -> threading.Condition:
    return threading.Condition() if _tracker is None else _tracker.condition(name)


def role(name: str) -> Role:
    return Role() if _tracker is None else _tracker.role(name)
