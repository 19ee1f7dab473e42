"""The table's GPIO devices (gpiozero) and LED strip, behind one object the controller drives.

Buttons are gpiozero `Button`s and the status and turn LEDs are `RGBLED` / `LEDBoard`, all built
on one pin factory: a real one on a Pi, or gpiozero's `MockFactory` when the mock is chosen
(config `hardware.mock`, `--demo`, tests). Tests press buttons with `pin.drive_low()`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from table.errors import HardwareError
from table.hw.pinmap import PinMap, pin_factories
from table.hw.strip import LedStrip

# Status LED: colour and blink pattern (seconds on, off; None: steady), so the state reads without
# telling colours apart. A fault shows at once, even over a PIN being blinked (docs/hardware.md).
STATUS_PATTERNS: dict[str, tuple[tuple[float, float, float], tuple[float, float] | None]] = {
    "ok": ((0.0, 0.62, 0.45), None),                  # bluish green, steady
    "uncalibrated": ((0.94, 0.89, 0.26), (1.0, 1.0)),  # yellow, slow blink
    "camera_lost": ((0.84, 0.37, 0.0), (0.2, 0.2)),   # vermillion, fast blink
    "error": ((0.80, 0.47, 0.65), (0.5, 0.5)),        # reddish purple, medium blink
    "log_fault": ((0.84, 0.37, 0.0), (1.5, 0.2)),     # vermillion, on with short dark gaps: changes not saved
    "off": ((0.0, 0.0, 0.0), None),
}
FAULTS = frozenset({"log_fault", "camera_lost", "error"})   # shown over a PIN being blinked

PIN_COLOUR = (0.0, 0.45, 0.70)                    # blue: the PIN being blinked, unlike any status

ButtonHandler = Callable[[str, bool], None]   # (button name, held?)


@dataclass(frozen=True)
class PinTiming:
    """How the status LED blinks a PIN: each digit as that many blinks (0 as ten), seconds."""

    on: float = 0.2
    off: float = 0.3
    digit_pause: float = 1.2     # dark between two digits
    repeat_pause: float = 3.0    # dark between two showings of the whole PIN
    repeats: int = 3


def pin_factory(name: str, mock: bool) -> Any:
    """The gpiozero pin factory: MockFactory (PWM-capable pins) when mock, else the one gpiozero
    registers as `name` (entry points `gpiozero_pin_factories`), loaded here."""
    if mock:
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        return MockFactory(pin_class=MockPWMPin)
    try:
        return pin_factories()[name].load()()
    except Exception as exc:  # ImportError, or the library's own error off a Pi
        raise HardwareError(f"GPIO: cannot start the {name} pin factory ({exc}); on a laptop use "
                            "--demo or hardware.mock = true") from None


class TableHardware:
    """Buttons, status LED, turn LEDs and the LED strip of one table."""

    def __init__(self, pins: PinMap, strip: LedStrip, factory: Any, *, mock: bool):
        from gpiozero import RGBLED, Button, LEDBoard

        self.pins = pins
        self.strip = strip
        self.factory = factory
        self.mock = mock
        self.status = "off"
        self.pin_timing = PinTiming()
        self._pin_lock = threading.Lock()
        self._pin_stop = threading.Event()
        self._pin_thread: threading.Thread | None = None
        self._pending_status: str | None = None      # the status to show once the PIN is shown
        self._handler: ButtonHandler | None = None
        self._held: set[str] = set()                 # buttons held down past hold_s in this press
        self.buttons: dict[str, Any] = {}
        try:
            for name, gpio in pins.buttons.items():
                button = Button(gpio, pull_up=True, bounce_time=pins.bounce_s or None,
                                hold_time=pins.hold_s, pin_factory=factory)
                button.when_pressed = lambda n=name: self._held.discard(n)
                button.when_held = lambda n=name: self._fire(n, True)
                button.when_released = lambda n=name: self._released(n)
                self.buttons[name] = button
            red, green, blue = pins.status_led
            self.status_led = RGBLED(red, green, blue, pwm=True, pin_factory=factory)
            self.turn_leds = LEDBoard(pin_factory=factory, **{f"p_{p}": g for p, g in pins.turn_leds.items()})
        except HardwareError:
            raise
        except Exception as exc:  # gpiozero's own errors (pin in use, no access)
            self.close()
            raise HardwareError(f"GPIO: {exc}") from None

    # ------------------------------------------------------------ buttons

    def on_button(self, handler: ButtonHandler) -> None:
        """Call handler(name, True) once a button is held down past hold_s, and handler(name, False) when a
        button that was not held is released (so a long press never does the short press's job first)."""
        self._handler = handler

    def _released(self, name: str) -> None:
        if name in self._held:
            self._held.discard(name)
        else:
            self._fire(name, False)

    def _fire(self, name: str, held: bool) -> None:
        if held:
            self._held.add(name)
        if self._handler is not None:
            self._handler(name, held)

    # ------------------------------------------------------------ LEDs

    def show(self, frame: Any) -> None:
        self.strip.show(frame)

    def set_status(self, state: str) -> None:
        """Show a status on the status LED (a key of STATUS_PATTERNS). While a PIN is being blinked
        a fault stops the PIN and shows at once; any other status waits until the PIN is shown."""
        with self._pin_lock:
            showing_pin = self._pin_thread is not None
            if showing_pin and state not in FAULTS:
                self._pending_status = state
                return
        if showing_pin:
            self._stop_pin()
        if state == self.status:
            return
        colour, blink = STATUS_PATTERNS[state]
        self.status = state
        if blink is None:
            self.status_led.color = colour
        else:
            self.status_led.blink(on_time=blink[0], off_time=blink[1], on_color=colour)

    def show_pin(self, pin: str) -> threading.Thread:
        """Blink a just-generated PIN on the status LED (`pin_timing`), then show the status again;
        returns the thread doing it."""
        if not pin.isdigit():
            raise HardwareError(f"status LED: a PIN to show must be digits, got {pin!r}")
        with self._pin_lock:
            if self._pin_thread is not None:
                raise HardwareError("status LED: already showing a PIN")
            self._pending_status, self.status = self.status, "pin"
            self._pin_stop.clear()
            self._pin_thread = threading.Thread(target=self._blink_pin, args=(pin, self.pin_timing),
                                                name="status-led-pin", daemon=True)
            self._pin_thread.start()
            return self._pin_thread

    def _blink_pin(self, pin: str, timing: PinTiming) -> None:
        """Each blink is driven from this one thread, on then off, so no blink can cut another short
        (gpiozero's own background blink would run beside the next one under load)."""
        try:
            for showing in range(timing.repeats):
                for index, digit in enumerate(pin):
                    for _ in range(int(digit) or 10):
                        self.status_led.color = PIN_COLOUR
                        if self._pin_stop.wait(timing.on):
                            return
                        self.status_led.off()
                        if self._pin_stop.wait(timing.off):
                            return
                    if index < len(pin) - 1:
                        pause = timing.digit_pause
                    elif showing < timing.repeats - 1:
                        pause = timing.repeat_pause
                    else:
                        pause = 0.0
                    if self._pin_stop.wait(pause):
                        return
        finally:
            with self._pin_lock:
                self._pin_thread = None
                pending, self.status = self._pending_status or "off", "pin"
            if not self._pin_stop.is_set():
                self.set_status(pending)

    def _stop_pin(self) -> None:
        with self._pin_lock:
            thread = self._pin_thread
        if thread is not None and thread is not threading.current_thread():
            self._pin_stop.set()
            thread.join(timeout=5)

    def set_turn(self, player: str | None) -> None:
        """Light the LED of the player whose turn it is (none for None)."""
        self.turn_leds.value = tuple(int(p == player) for p in self.pins.turn_leds)

    def describe(self) -> dict[str, Any]:
        return {"mock": self.mock, "factory": type(self.factory).__name__, "strip": type(self.strip).__name__,
                "leds": self.strip.count, "status_led": self.status,
                "brightness_cap": round(self.strip.correction.full_white_cap, 3)}

    def off(self) -> None:
        """Every LED dark (strip, status, turn)."""
        self._stop_pin()
        try:
            self.strip.off()
        finally:
            if hasattr(self, "status_led"):
                self.status_led.off()
                self.status = "off"
            if hasattr(self, "turn_leds"):
                self.turn_leds.off()

    def close(self) -> None:
        self._stop_pin()
        leds = [getattr(self, "status_led", None), getattr(self, "turn_leds", None)]
        devices = [*self.buttons.values(), *leds]
        for device in devices:
            if device is not None:
                device.close()
        self.strip.close()
