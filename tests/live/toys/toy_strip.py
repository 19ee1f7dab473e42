"""A toy LED strip from the tests folder: keeps each frame as the text a serial LED controller might
take ("#xxxxxx" per LED, in wire order). A strip class is this much: a `LedStrip` with `_write`."""

from __future__ import annotations

import numpy as np

from table.hw.strip import ColourCorrection, LedStrip


class TextStrip(LedStrip):
    def __init__(self, correction: ColourCorrection):
        super().__init__(correction)
        self.lines: list[str] = []

    def _write(self, wire: np.ndarray) -> None:
        self.lines.append(" ".join("#" + bytes(led).hex() for led in wire))
