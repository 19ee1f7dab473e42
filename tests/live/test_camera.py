"""The capture thread: newest frame only, a lost camera reported and reopened with back-off."""

from __future__ import annotations

import threading
import time

from table.config import from_document
from table.errors import HardwareError
from table.live.capture import LatestFrame
from tests.live.live_fakes import frame


def test_latest_frame_keeps_only_the_newest():
    slot = LatestFrame()
    for i in range(5):
        slot.put(frame(i))
    assert slot.take(timeout=0).index == 4
    assert slot.dropped == 4
    assert slot.take(timeout=0.01) is None


class FlakyCamera:
    """A camera that gives `good` frames and then is unplugged (read raises HardwareError)."""

    def __init__(self, good: int):
        self.good, self.reads, self.closed = good, 0, False

    def read(self):
        self.reads += 1
        if self.reads > self.good:
            raise HardwareError("camera: no frame (unplugged?)")
        return frame(self.reads)

    def close(self):
        self.closed = True


class Plug:
    """Opens cameras: the first works for 5 frames; the next `refusals` opens fail; then it works."""

    def __init__(self, refusals: int):
        self.refusals, self.opens, self.times, self.cameras = refusals, 0, [], []

    def __call__(self):
        self.opens += 1
        self.times.append(time.monotonic())
        if 1 < self.opens <= 1 + self.refusals:
            raise HardwareError("no camera found")
        camera = FlakyCamera(5 if self.opens == 1 else 10_000)
        self.cameras.append(camera)
        return camera


def wait_until(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.01)


def test_camera_unplugged_is_reported_retried_and_the_game_kept(make_controller, config, pipeline):
    plug = Plug(refusals=3)
    c = make_controller(open_source=plug, backoff=(0.05, 0.2))
    c.command("advance_phase")
    c.command("select", id="rifles-1")
    shown = []
    real_set_status = c.hw.set_status
    c.hw.set_status = lambda state: (shown.append(state), real_set_status(state))
    c.start()
    wait_until(lambda: plug.opens >= 5 and c.snapshot().status["camera"] == "ok" and pipeline.calls > 6)
    assert "camera_lost" in shown                         # the status LED said so
    assert plug.cameras[0].closed                         # the dead camera was released
    gaps = [b - a for a, b in zip(plug.times[1:], plug.times[2:], strict=False)]
    assert gaps[0] >= 0.09 and gaps[1] >= 0.18            # back-off: 0.05, 0.1, 0.2 s (capped)
    kinds = [(e["kind"], e.get("status")) for e in c.gamelog.events(c.game) if e["kind"] == "camera"]
    assert kinds[:3] == [("camera", "ok"), ("camera", "lost"), ("camera", "ok")]
    assert c.state.selected == "rifles-1" and c.state.phase == "activations"   # the game went on
    c.close()
    assert c.hw.strip.last == tuple((0, 0, 0) for _ in range(len(c.layout)))  # LEDs off on close
    assert not any(t.name in ("capture", "table-loop") and t.is_alive() for t in threading.enumerate())


def test_snapshot_says_lost_while_the_camera_is_away(make_controller):
    def never():
        raise HardwareError("no camera found")

    c = make_controller(open_source=never, backoff=(0.05, 0.05))
    c.start()
    wait_until(lambda: c.snapshot().status["camera"] == "lost")
    status = c.snapshot().status
    assert "no camera found" in status["camera_detail"] and "retrying" in status["camera_detail"]
    assert c.hw.status == "camera_lost"


def test_a_slow_loop_never_queues_frames(make_controller, pipeline):
    """The pipeline takes 50 ms a frame, the camera gives 200 a second: frames are dropped, not queued."""
    slow = threading.Event()

    def process(f):
        slow.wait(0.05)
        return pipeline.observation

    pipeline.process = process
    camera = FlakyCamera(10_000)
    fast = from_document({"camera": {"fps": 200}}, "test")
    c = make_controller(open_source=lambda: camera, config=fast)
    c.start()
    time.sleep(0.6)
    c.close()
    processed, dropped = c.status["frames"], c._capture.slot.dropped
    assert camera.reads > 2 * processed                      # most frames were skipped ...
    assert camera.reads - 2 <= processed + dropped <= camera.reads   # ... dropped, at most 2 in hand
