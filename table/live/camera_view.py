"""The panel's camera view: the newest frame as a JPEG with the board outline and the markers the
table placed drawn on it. Controller-side (it may use vision's OpenCV), imported only when asked."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from table.live import locks

VIEW_WIDTH = 1014          # a quarter of the 2028x1520 frame's pixels: enough on a phone


def camera_jpeg(image: np.ndarray, calibration: Any, board: tuple[float, float],
                markers: dict[int, tuple[float, float]], quality: int = 80) -> bytes:
    """JPEG bytes of `image` (grey or BGR), scaled to VIEW_WIDTH, with the board outline and each
    marker's centre and id when a calibration (board inches -> image pixels) is known."""
    import cv2

    view = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR) if image.ndim == 2 else image.copy()
    scale = VIEW_WIDTH / view.shape[1] if view.shape[1] > VIEW_WIDTH else 1.0
    if scale != 1.0:
        view = cv2.resize(view, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    if calibration is not None:
        width, height = board
        outline = calibration.to_image(np.array([[0, 0], [width, 0], [width, height], [0, height]], float))
        cv2.polylines(view, [np.round(outline * scale).astype(np.int32)], True, (0, 158, 115), 2)
        if markers:
            ids = sorted(markers)
            pixels = calibration.to_image(np.array([markers[i] for i in ids], float)) * scale
            for marker_id, (x, y) in zip(ids, pixels, strict=True):
                cv2.circle(view, (int(x), int(y)), 6, (0, 159, 230), 2)
                cv2.putText(view, str(marker_id), (int(x) + 8, int(y) - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                            (0, 159, 230), 1, cv2.LINE_AA)
    ok, data = cv2.imencode(".jpg", view, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return data.tobytes() if ok else b""


class OncePerFrame:
    """The newest frame's JPEG, encoded once per new frame however many phones ask at once; only
    the newest is kept. Encoding runs on one thread of its own: OpenCV keeps buffers per calling
    thread, so encoding on whichever of the server's 48 threads asked grew the table by hundreds of MB."""

    def __init__(self) -> None:
        self._encoder = ThreadPoolExecutor(1, thread_name_prefix="camera-jpeg")
        self._lock = locks.lock("camera-view")
        self._key: Hashable = None
        self._jpeg: bytes | None = None
        self.encoded = 0

    def get(self, key: Hashable, encode: Callable[[], bytes]) -> bytes:
        with self._lock:
            if self._jpeg is None or key != self._key:
                self._jpeg, self._key = None, None        # the old one goes before the new one is made
                self._jpeg, self._key = self._encoder.submit(encode).result(), key
                self.encoded += 1
            return self._jpeg
