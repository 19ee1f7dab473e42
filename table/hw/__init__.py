"""The hardware layer: gpiozero buttons and LEDs, and an addressable LED strip (SPI or mock).

`build_hardware` wires a table from the `[hardware]` config values: the strip class `strip` names
(entry points `smarttable.strips`), the pin factory the pin map names (gpiozero's own
`gpiozero_pin_factories`); the mock (gpiozero's MockFactory and a MockStrip) is used only when asked for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from table.config import Hardware
from table.hw.devices import TableHardware, pin_factory
from table.hw.pinmap import PinMap, load_pin_map
from table.hw.strip import ColourCorrection, LedStrip, MockStrip
from table.plugins import STRIPS

__all__ = ["ColourCorrection", "LedStrip", "MockStrip", "PinMap", "TableHardware",
           "build_hardware", "load_pin_map", "pin_factory"]


def build_strip(hardware: Hardware, count: int, pins: PinMap, mock: bool) -> LedStrip:
    correction = ColourCorrection(count, hardware.color_order, hardware.gamma, hardware.brightness,
                                  hardware.supply_amps, hardware.strip_channels)
    strip: LedStrip = STRIPS.load("mock" if mock else hardware.strip).open(correction, pins)
    return strip


def build_hardware(hardware: Hardware, pin_map_path: Path, led_count: int, *,
                   mock: bool, factory: Any = None) -> TableHardware:
    """The table's devices from the `[hardware]` config section; `mock` puts everything on mocks."""
    pins = load_pin_map(pin_map_path)
    mock = mock or hardware.mock
    factory = factory if factory is not None else pin_factory(pins.factory, mock)
    strip = build_strip(hardware, led_count, pins, mock)
    try:
        return TableHardware(pins, strip, factory, mock=mock)
    except Exception:
        strip.close()
        raise
