"""A lock-order checker for the live table (issue 25): lockdep's idea, for the table's own locks.

`Tracker` stands in for threading's primitives in `table.live.locks`: each lock, condition and wait
made through it records, per thread, which named locks the thread held when it took another one
(an edge held -> taken). A wait for the background worker counts as taking `worker` (it cannot end
until the worker gets that far), and the worker holds `worker` while it runs a job, so "holding the
controller's lock, wait for the worker" plus "the worker takes the controller's lock" is the cycle
controller -> worker -> controller, found from the order alone, whether or not the threads met this
time. `cycle()` names one cycle and where each of its edges was first seen; `out_of_order` the edges
the written order (`table.live.locks.ORDER`, the controller's docstring) does not allow.

tests/conftest.py installs one tracker for the whole run and fails the test whose locks closed a
cycle or took a lock out of the written order.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any

from table.live import locks

ROOT = Path(__file__).resolve().parents[1]
OURS = {"table", "web_ui", "vision", "hub", "tests", "bench"}      # the folders whose frames are named


class Tracker:
    """The order the table's named locks were taken in, over every thread: a graph that must stay acyclic."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()                   # guards `edges` (a plain lock: not tracked)
        self._local = threading.local()
        self.edges: dict[tuple[str, str], str] = {}      # (held, then taken) -> where first seen
        self.test = ""                                   # the test running now (for `where`)
        self._told: set[tuple[str, str]] = set()         # edges `new_faults` has named

    # ---------------------------------------------------------------- what the locks report

    def held(self) -> list[str]:
        held = getattr(self._local, "held", None)
        if held is None:
            held = self._local.held = []
        return held

    def taking(self, name: str, reentrant: bool) -> None:
        """The thread is about to block for `name` (recorded before it blocks: a hang still shows)."""
        held = self.held()
        if reentrant and name in held:
            return
        for before in dict.fromkeys(held):
            self._edge(before, name)

    def took(self, name: str, times: int = 1) -> None:
        self.held().extend([name] * times)

    def released(self, name: str, times: int = 1) -> None:
        held = self.held()
        for _ in range(times):
            for index in range(len(held) - 1, -1, -1):
                if held[index] == name:
                    del held[index]
                    break

    def _edge(self, before: str, after: str) -> None:
        if (before, after) in self.edges:
            return
        where = self.where()
        with self._mutex:
            self.edges.setdefault((before, after), where)

    def where(self) -> str:
        """The test, the thread and the innermost frames of the table's own code."""
        frames = []
        frame: Any = sys._getframe(2)
        while frame is not None and len(frames) < 5:
            path = Path(frame.f_code.co_filename)
            if (path.is_relative_to(ROOT) and path.relative_to(ROOT).parts[0] in OURS
                    and path.name not in ("lockorder.py", "locks.py")):
                frames.append(f"{path.relative_to(ROOT)}:{frame.f_lineno} {frame.f_code.co_name}")
            frame = frame.f_back
        return f"{self.test or '?'} [{threading.current_thread().name}] " + " < ".join(frames)

    # ---------------------------------------------------------------- table.live.locks.Tracker

    def lock(self, name: str, reentrant: bool) -> TrackedLock:
        return TrackedLock(self, name, threading.RLock() if reentrant else threading.Lock(), reentrant)

    def condition(self, name: str) -> threading.Condition:
        return threading.Condition(TrackedLock(self, name, threading.RLock(), True))  # type: ignore[arg-type]

    def role(self, name: str) -> TrackedRole:
        return TrackedRole(self, name)

    # ---------------------------------------------------------------- the verdict

    def cycle(self) -> list[tuple[str, str, str]] | None:
        """One cycle of the graph as its edges (held, taken, where first seen), or None."""
        with self._mutex:
            edges = dict(self.edges)
        after: dict[str, list[str]] = {}
        for a, b in edges:
            after.setdefault(a, []).append(b)
        state: dict[str, int] = {}               # 1: on the path being walked, 2: done
        path: list[str] = []

        def walk(node: str) -> list[str] | None:
            state[node] = 1
            path.append(node)
            for nxt in after.get(node, []):
                if state.get(nxt) == 1:
                    return path[path.index(nxt):] + [nxt]
                if nxt not in state:
                    found = walk(nxt)
                    if found:
                        return found
            path.pop()
            state[node] = 2
            return None

        for node in sorted(after):
            if node not in state:
                found = walk(node)
                if found:
                    return [(a, b, edges[(a, b)]) for a, b in pairwise(found)]
        return None


def new_faults(tracker: Tracker) -> str:
    """What is wrong with the order that was not told before ("" if nothing): a cycle, and the edges
    out of the written order."""
    cycle = tracker.cycle() or []
    wrong = [edge for edge in out_of_order(tracker) if edge[:2] not in {c[:2] for c in cycle}]
    new = {(a, b) for a, b, _ in cycle + wrong} - tracker._told
    if not new:
        return ""
    tracker._told |= new
    text = [describe(cycle)] if cycle else []
    text += [f"lock taken out of the order in table/live/locks.py ORDER: {a} -> {b}: first at {where}"
             for a, b, where in wrong if (a, b) in new]
    return "\n".join(text)


def out_of_order(tracker: Tracker) -> list[tuple[str, str, str]]:
    """Edges the written order (`table.live.locks.ORDER`) does not allow, with where first seen."""
    with tracker._mutex:
        edges = dict(tracker.edges)
    return [(a, b, where) for (a, b), where in sorted(edges.items()) if not locks.allowed(a, b)]


def describe(cycle: list[tuple[str, str, str]]) -> str:
    names = " -> ".join([cycle[0][0], *(b for _, b, _ in cycle)])
    return f"lock-order cycle {names}:\n" + "\n".join(f"  {a} -> {b}: first at {where}" for a, b, where in cycle)


class TrackedLock:
    """A lock (or an RLock under a Condition) that tells the tracker when it is taken and released."""

    def __init__(self, tracker: Tracker, name: str, inner: Any, reentrant: bool) -> None:
        self.name, self._tracker, self._inner, self._reentrant = name, tracker, inner, reentrant

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if blocking:
            self._tracker.taking(self.name, self._reentrant)
        got = self._inner.acquire(blocking, timeout)
        if got:
            self._tracker.took(self.name)
        return bool(got)

    def release(self) -> None:
        self._inner.release()
        self._tracker.released(self.name)

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    def locked(self) -> bool:
        return bool(self._inner.locked())

    # what threading.Condition uses of an RLock
    def _is_owned(self) -> bool:
        return bool(self._inner._is_owned())

    def _release_save(self) -> Any:
        saved = self._inner._release_save()
        count = saved[0]
        self._tracker.released(self.name, count)
        return saved

    def _acquire_restore(self, saved: Any) -> None:
        self._tracker.taking(self.name, False)
        self._inner._acquire_restore(saved)
        self._tracker.took(self.name, saved[0])


class TrackedRole(locks.Role):
    """A thread others wait for: a wait on it is taking it (holding it already: a cycle of one), and
    the thread holds it while it works."""

    def __init__(self, tracker: Tracker, name: str) -> None:
        self.name, self._tracker = name, tracker

    @contextmanager
    def waiting(self) -> Iterator[None]:
        for before in dict.fromkeys(self._tracker.held()):
            self._tracker._edge(before, self.name)
        yield

    @contextmanager
    def working(self) -> Iterator[None]:
        self._tracker.took(self.name)
        try:
            yield
        finally:
            self._tracker.released(self.name)


@contextmanager
def tracking(tracker: Tracker) -> Iterator[Tracker]:
    """Locks made inside the block report to `tracker` (then whatever reported before)."""
    previous = locks.install(tracker)
    try:
        yield tracker
    finally:
        locks.install(previous)
