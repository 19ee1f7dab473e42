"""The capture thread: reads the camera, keeps only the newest frame, and survives a lost camera.

`LatestFrame` is a one-frame slot: a new frame replaces an unread one (counted as dropped), so the
loop always works on the newest frame and nothing queues up. `Capture` reopens a failed camera
with exponential back-off and reports its state through a callback.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from table.live import locks
from vision.types import Frame, FrameSource

log = logging.getLogger(__name__)

SourceOpener = Callable[[], FrameSource]
StatusCallback = Callable[[str, str], None]   # (camera state, detail)


class LatestFrame:
    """A slot holding at most one frame: the newest."""

    def __init__(self) -> None:
        self._frame: Frame | None = None
        self._cond = locks.condition("frame-slot")
        self.producer = locks.role("capture")       # the capture thread, which `take` waits for
        self.dropped = 0

    def put(self, frame: Frame) -> None:
        with self._cond:
            if self._frame is not None:
                self.dropped += 1
            self._frame = frame
            self._cond.notify_all()

    def take(self, timeout: float) -> Frame | None:
        """The newest frame (emptying the slot), or None if none came within `timeout` seconds."""
        with self.producer.waiting(), self._cond:
            if self._frame is None:
                self._cond.wait(timeout)
            frame, self._frame = self._frame, None
            return frame


class Capture(threading.Thread):
    """Reads frames into a LatestFrame until stopped; a failing camera is reopened with back-off
    (`first_delay` doubling up to `max_delay` seconds). States: starting, ok, lost, ended."""

    def __init__(self, open_source: SourceOpener, slot: LatestFrame, on_status: StatusCallback,
                 *, fps: float = 10.0, first_delay: float = 0.5, max_delay: float = 10.0):
        super().__init__(name="capture", daemon=True)
        self.open_source = open_source
        self.slot = slot
        self.on_status = on_status
        self.interval = 1.0 / fps
        self.first_delay, self.max_delay = first_delay, max_delay
        self.stopping = threading.Event()
        self.source: FrameSource | None = None
        self.retries = 0

    def stop(self) -> None:
        self.stopping.set()

    def _fail(self, detail: str, delay: float) -> float:
        """Close the source, report it lost, wait `delay`; the next delay."""
        self._close()
        self.retries += 1
        self.on_status("lost", f"{detail}; retrying in {delay:g} s")
        self.stopping.wait(delay)
        return min(delay * 2, self.max_delay)

    def _close(self) -> None:
        if self.source is not None:
            try:
                self.source.close()
            except Exception as exc:  # a dying camera may fail to close too
                log.debug("closing the camera: %s", exc)
            self.source = None

    def run(self) -> None:
        with self.slot.producer.working():
            self._run()

    def _run(self) -> None:
        delay = self.first_delay
        self.on_status("starting", "")
        while not self.stopping.is_set():
            if self.source is None:
                try:
                    self.source = self.open_source()
                except Exception as exc:
                    delay = self._fail(f"cannot open the camera: {exc}", delay)
                    continue
            started = time.monotonic()
            try:
                frame = self.source.read()
            except Exception as exc:
                delay = self._fail(f"camera read failed: {exc}", delay)
                continue
            if frame is None:
                self.on_status("ended", "the source has no more frames")
                break
            self.slot.put(frame)
            self.on_status("ok", "")
            delay = self.first_delay
            self.stopping.wait(max(0.0, self.interval - (time.monotonic() - started)))
        self._close()
