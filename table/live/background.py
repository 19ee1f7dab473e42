"""One worker thread for the live loop's slow work (committing events, re-asking the rule system),
so a frame's path from camera to LEDs never waits for a disk write or a full report.

Jobs run one at a time in the order submitted. When the queue runs empty after a job, `on_idle`
runs (the controller publishes its snapshot then), and `settle()` waits for that moment. Nobody
waits for one job: a job tells what it did through its owner's state (the journal's counters),
and `settle` is the only wait on the worker, never made holding a lock the worker takes.

Python runs one thread at a time (the GIL), so a CPU-bound job (`polite=True`) waits until the
frame thread says it is not in its own work (`frame_idle`, set between frames and while the frame is
in the vision pipeline, which releases the GIL). The interpreter's switch interval stays Python's
own: lowering it bought the LED path nothing measurable (bench/bench_switch.py, docs/running.md).
The threads and their locks: table/live/controller.py.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

from table.live import locks

log = logging.getLogger(__name__)

Job = tuple[Callable[[], Any], bool]      # the work, polite
POLITE_WAIT_S = 0.1        # a polite job waits at most this long for the frame thread


class Background:
    """A single worker thread running submitted jobs in order, then `on_idle` when none is left."""

    def __init__(self, on_idle: Callable[[], None], name: str = "table-background"):
        self.on_idle = on_idle
        self.frame_idle = threading.Event()
        self.frame_idle.set()
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._cond = locks.condition("worker-queue")       # guards the two counters
        self.role = locks.role("worker")                    # waits on the worker, its jobs (locks.py)
        self._submitted = self._finished = 0
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, job: Callable[[], Any], polite: bool = False) -> None:
        """Queue a job; a `polite` one (CPU-bound Python) starts only while the frame thread is idle."""
        with self._cond:
            if not self._thread.is_alive():
                raise RuntimeError("the background worker is closed")
            self._submitted += 1
        self._jobs.put((job, polite))

    @property
    def busy(self) -> bool:
        with self._cond:
            return self._finished < self._submitted

    def settle(self, timeout: float = 10.0) -> bool:
        """Wait until every job submitted so far, and any they led to, is done and `on_idle` has run.
        Must not be called while holding a lock that a job or `on_idle` takes."""
        with self.role.waiting(), self._cond:
            return self._cond.wait_for(lambda: self._finished >= self._submitted, timeout)

    def _run(self) -> None:
        while True:
            item = self._jobs.get()
            if item is None:
                return
            job, polite = item
            if polite:
                self.frame_idle.wait(POLITE_WAIT_S)
            with self.role.working():
                try:
                    job()
                except Exception:  # the worker must outlive a failing job
                    log.exception("background: a job failed")
                if self._jobs.empty():
                    try:
                        self.on_idle()
                    except Exception:  # and a failing refresh
                        log.exception("background: on_idle failed")
            with self._cond:
                self._finished += 1
                self._cond.notify_all()

    def close(self, timeout: float = 5.0) -> None:
        """Finish the queued jobs, then stop the thread."""
        self._jobs.put(None)
        self._thread.join(timeout)
