"""What the panel uses beyond the Controller protocol, when the controller offers it.

- `log_entries(after: int, limit: int) -> list[dict]`: game log entries with `seq` greater than `after`,
  oldest first (each a JSON-able dict with at least `seq`, `ts` and `kind`).
- `replay_steps() -> list[dict]` and `replay_at(seq: int) -> dict | None`: the game replay (this game's
  events, and the board after one of them; None for a seq the game does not have).
- `camera_jpeg() -> bytes | None`: the newest camera frame as JPEG, with the detected markers and the
  board outline drawn on it; None while there is no frame.
- `marker_count(dictionary: str) -> int` and `marker_cells(dictionary: str, marker_id: int)
  -> list[list[bool]]`: the printable marker patterns (ConfigError for an unknown dictionary).
- `show_pin(pin: str) -> None`: show a just-generated PIN on the table (the status LED pattern).
A missing capability is a 404 naming it, so the panel shows "not available" rather than failing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

from web_ui.errors import ApiError


def log_entries(controller: Any, after: int, limit: int) -> list[dict[str, Any]]:
    method = getattr(controller, "log_entries", None)
    if method is None:
        raise ApiError(404, "log", "this table keeps no game log")
    return list(method(after, limit))


def replay_steps(controller: Any) -> list[dict[str, Any]]:
    method = getattr(controller, "replay_steps", None)
    if method is None:
        raise ApiError(404, "replay", "this table keeps no game log to replay")
    return list(method())


def replay_at(controller: Any, seq: int) -> dict[str, Any]:
    method = getattr(controller, "replay_at", None)
    if method is None:
        raise ApiError(404, "replay", "this table keeps no game log to replay")
    view = method(seq)
    if view is None:
        raise ApiError(404, "seq", f"this game has no event {seq} (GET /api/replay lists them)")
    return dict(view)


def show_pin(controller: Any, pin: str) -> None:
    """Have the table show a just-generated PIN, if it can (a table without a status LED cannot)."""
    method = getattr(controller, "show_pin", None)
    if method is not None:
        method(pin)


def camera_jpeg(controller: Any) -> bytes:
    method = getattr(controller, "camera_jpeg", None)
    if method is None:
        raise ApiError(404, "camera", "this table has no camera view")
    frame = method()
    if not frame:
        raise ApiError(404, "camera", "no camera frame yet")
    return frame


def mjpeg(controller: Any, interval_s: float, slot: threading.BoundedSemaphore) -> Iterator[bytes]:
    """multipart/x-mixed-replace parts, one JPEG per interval while frames keep coming."""
    try:
        while True:
            frame = controller.camera_jpeg()
            if frame:
                yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                       + str(len(frame)).encode() + b"\r\n\r\n" + frame + b"\r\n")
            time.sleep(max(interval_s, 0.1))
    finally:
        slot.release()
