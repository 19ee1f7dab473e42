"""Pin maps (`firmware_cfg/pins-*.toml`): which BCM GPIO each button and discrete LED uses, and which
gpiozero pin factory drives them (a name gpiozero registers under its `gpiozero_pin_factories` entry
points, the names `GPIOZERO_PIN_FACTORY` takes)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

from table.config import read_toml
from table.errors import ConfigError

BUTTONS = ("select", "measure", "next_phase", "undo", "confirm")
FACTORY_GROUP = "gpiozero_pin_factories"


@cache
def pin_factories() -> dict[str, EntryPoint]:
    """gpiozero's pin factories by name, not loaded (its mock is chosen by `hardware.mock`, not here)."""
    return {ep.name: ep for ep in entry_points(group=FACTORY_GROUP) if ep.name != "mock"}


@dataclass(frozen=True)
class PinMap:
    """GPIO numbers (BCM) of the table's buttons and LEDs, and the gpiozero pin factory to use."""

    factory: str
    buttons: dict[str, int]
    status_led: tuple[int, int, int]          # red, green, blue of a common-cathode RGB LED
    turn_leds: dict[str, int]                 # player -> GPIO
    bounce_s: float = 0.05
    hold_s: float = 1.5
    spi_bus: int = 0
    spi_device: int = 0

    def all_pins(self) -> list[int]:
        return [*self.buttons.values(), *self.status_led, *self.turn_leds.values()]


def _gpio(source: str, key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 27:
        raise ConfigError(f"{source}: {key}: expected a BCM GPIO number 0-27, got {value!r}")
    return value


def _number(source: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ConfigError(f"{source}: {key}: expected a number of seconds, got {value!r}")
    return float(value)


def _table(source: str, document: dict[str, Any], key: str) -> dict[str, Any]:
    value = document.get(key)
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: [{key}]: missing or not a table")
    return value


def parse_pin_map(document: dict[str, Any], source: str) -> PinMap:
    """Validate a parsed pin map; errors name the file and the key."""
    factory = document.get("factory", "lgpio")
    if factory not in pin_factories():
        known = ", ".join(sorted(pin_factories()))
        raise ConfigError(f"{source}: factory: must be one of gpiozero's pin factories ({known}), "
                          f"got {factory!r}")
    buttons_doc = _table(source, document, "buttons")
    for name in buttons_doc:
        if name not in BUTTONS and name not in ("bounce_s", "hold_s"):
            raise ConfigError(f"{source}: buttons.{name}: unknown button (known: {', '.join(BUTTONS)})")
    missing = [b for b in BUTTONS if b not in buttons_doc]
    if missing:
        raise ConfigError(f"{source}: buttons.{missing[0]}: missing")
    buttons = {b: _gpio(source, f"buttons.{b}", buttons_doc[b]) for b in BUTTONS}
    status = _table(source, document, "status_led")
    rgb = tuple(_gpio(source, f"status_led.{c}", status.get(c)) for c in ("red", "green", "blue"))
    turn = {str(p): _gpio(source, f"turn_leds.{p}", g)
            for p, g in _table(source, document, "turn_leds").items()}
    strip = document.get("strip", {})
    for key in ("spi_bus", "spi_device"):
        value = strip.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 6:
            raise ConfigError(f"{source}: strip.{key}: expected a number 0-6 (/dev/spidevBUS.DEVICE), "
                              f"got {value!r}")
    pin_map = PinMap(factory, buttons, rgb, turn,  # type: ignore[arg-type]
                     _number(source, "buttons.bounce_s", buttons_doc.get("bounce_s", 0.05)),
                     _number(source, "buttons.hold_s", buttons_doc.get("hold_s", 1.5)),
                     int(strip.get("spi_bus", 0)), int(strip.get("spi_device", 0)))
    pins = pin_map.all_pins()
    for pin in pins:
        if pins.count(pin) > 1:
            raise ConfigError(f"{source}: GPIO {pin} is used twice")
        if pin in (7, 8, 9, 10, 11):
            raise ConfigError(f"{source}: GPIO {pin} belongs to SPI0, which drives the LED strip")
    return pin_map


def load_pin_map(path: str | Path) -> PinMap:
    path = Path(path)
    document = read_toml(path, "pin map file")
    return parse_pin_map(document, str(path))
