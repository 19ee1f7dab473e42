"""Highlights to light: the regions rendered onto the LED layout and written to the strip (only when
the frame or the brightness changed), the turn LEDs and the status LED.

Called under the controller's lock (table/live/controller.py says who runs where).
"""

from __future__ import annotations

from table.errors import TableError
from table.hw import TableHardware
from table.live import highlight
from table.live.leds import LedLayout
from table.live.session import GameState

ERROR_SHOWN_S = 5.0        # the status LED shows an error this long after a bad frame


def status_led(log: str, camera: str, error_age_s: float, calibration: str) -> str:
    """Faults first (the game log, then the camera, then a recent error), then calibration."""
    if log == "fault":
        return "log_fault"
    if camera == "lost":
        return "camera_lost"
    if error_age_s < ERROR_SHOWN_S:
        return "error"
    return "ok" if calibration == "ok" else "uncalibrated"


class LedOutput:
    """The table's lights; `frame` is the LED frame last rendered, `error` the last write's fault."""

    def __init__(self, hardware: TableHardware, layout: LedLayout) -> None:
        self.hw = hardware
        self.layout = layout
        self.frame: tuple[highlight.RGB, ...] = ()
        self.error = ""
        self._regions: list[highlight.Region] | None = None
        self._shown: tuple[highlight.RGB, ...] | None = None

    def show(self, state: GameState, regions: list[highlight.Region], status: str) -> str:
        """Render `regions`, write what changed, set the turn and status LEDs; the hardware's fault
        ("" when the write went through)."""
        if regions != self._regions:
            self._regions, self.frame = regions, highlight.render(self.layout, regions)
        try:
            if state.brightness is not None and state.brightness != self.hw.strip.correction.brightness:
                self.hw.strip.set_brightness(state.brightness)
                self._shown = None
            if self.frame != self._shown:
                self.hw.show(self.frame)
                self._shown = self.frame
            self.hw.set_turn(state.player)
            self.hw.set_status(status)
            self.error = ""
        except TableError as exc:
            self.error = str(exc)
        return self.error

    @property
    def brightness(self) -> float:
        return float(self.hw.strip.correction.brightness)
