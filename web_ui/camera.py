"""The camera view: the newest frame as a JPEG (a 404 naming `camera` while there is none) and the
MJPEG stream of them."""

from __future__ import annotations

import time
from collections.abc import Iterator

from table.panel_api import PanelController
from web_ui.errors import ApiError


def camera_jpeg(controller: PanelController) -> bytes:
    frame = controller.camera_jpeg()
    if not frame:
        raise ApiError(404, "camera", "no camera frame yet")
    return frame


def mjpeg(controller: PanelController, interval_s: float) -> Iterator[bytes]:
    """multipart/x-mixed-replace parts, one JPEG per interval while frames keep coming."""
    while True:
        frame = controller.camera_jpeg()
        if frame:
            yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                   + str(len(frame)).encode() + b"\r\n\r\n" + frame + b"\r\n")
        time.sleep(max(interval_s, 0.1))
