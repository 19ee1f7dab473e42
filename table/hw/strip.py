"""Addressable LED strips (WS2812B / SK6812 RGB, SK6812 RGBW): colour correction, an SPI driver and a mock.

`LedStrip` is the interface: subclasses must implement `_write(data)` (the corrected frame as an
(N, 3) or, for an RGBW strip, (N, 4) uint8 array in wire colour order) and may override `close()` and
`open(correction, pins)` (how the config builds one; the default is `cls(correction)`). A strip class is
found by the name `[hardware] strip` gives, through the entry points `smarttable.strips`
(`table.plugins.STRIPS`).
`show(frame)` applies gamma, the brightness setting and the power cap, reorders the channels and writes.

An RGBW strip (`channels=4`) gets the white part of each colour on its white LED: in linear light,
W = min(R, G, B) and that amount is taken off R, G and B, so a colour keeps its hue and white costs
one channel's current instead of three. The wire order is `color_order` followed by W (SK6812 RGBW:
GRBW).

The SPI driver is `table.hw.spi.SpiStrip`, imported only when the config names it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Self

import numpy as np

from table.errors import HardwareError

if TYPE_CHECKING:
    from table.hw.pinmap import PinMap

RGB = tuple[int, int, int]

MA_PER_CHANNEL = 20.0      # a WS2812B channel at full duty draws about 20 mA
MA_IDLE_PER_LED = 1.0      # each LED's controller draws about 1 mA when dark
SUPPLY_HEADROOM = 0.8      # never plan to draw more than 80% of the supply's rating


@dataclass(frozen=True)
class ColourCorrection:
    """Gamma, brightness and power cap for a strip of `count` LEDs on a `supply_amps` supply."""

    count: int
    color_order: str = "GRB"
    gamma: float = 2.2
    brightness: float = 0.5
    supply_amps: float = 4.0
    channels: int = 3

    def __post_init__(self) -> None:
        if self.channels not in (3, 4):
            raise HardwareError(f"LED strip: channels must be 3 (RGB) or 4 (RGBW), got {self.channels}")

    @property
    def budget_ma(self) -> float:
        """Current the LEDs may draw (mA): 80% of the supply less the LEDs' idle current."""
        return self.supply_amps * 1000.0 * SUPPLY_HEADROOM - self.count * MA_IDLE_PER_LED

    @property
    def full_white_cap(self) -> float:
        """The brightness at which every LED at full white stays within the budget (0..1): white
        lights three channels of an RGB LED, the one white channel of an RGBW LED."""
        lit = 3 if self.channels == 3 else 1
        return max(0.0, min(1.0, self.budget_ma / (self.count * lit * MA_PER_CHANNEL)))

    def current_ma(self, wire: np.ndarray) -> float:
        """Estimated current of a corrected frame (mA), idle current included."""
        return float(wire.sum(dtype=np.int64)) / 255.0 * MA_PER_CHANNEL + self.count * MA_IDLE_PER_LED

    def apply(self, frame: Sequence[RGB] | np.ndarray) -> np.ndarray:
        """Gamma-correct, take out the white part (RGBW), scale by brightness (lowered further if
        the frame would exceed the power budget) and reorder to wire order: an (N, channels) uint8
        array."""
        rgb = np.asarray(frame, dtype=float).reshape(-1, 3)
        if len(rgb) != self.count:
            raise HardwareError(f"LED frame has {len(rgb)} colours, the strip has {self.count} LEDs")
        linear = (np.clip(rgb, 0, 255) / 255.0) ** self.gamma
        order = ["RGB".index(c) for c in self.color_order]
        if self.channels == 4:
            white = linear.min(axis=1, keepdims=True)
            linear = np.hstack([linear - white, white])
            order.append(3)
        full_ma = float(linear.sum()) * MA_PER_CHANNEL
        scale = self.brightness
        if full_ma * scale > max(self.budget_ma, 0.0):
            scale = max(self.budget_ma, 0.0) / full_ma
        wire = np.floor(linear * scale * 255.0 + 0.5).astype(np.uint8)
        return wire[:, order]


class LedStrip(ABC):
    """An addressable strip. Subclasses must implement `_write`; they may override `close`."""

    def __init__(self, correction: ColourCorrection):
        self.correction = correction
        self.closed = False
        self.lit = False            # whether the last frame written lit any LED

    @classmethod
    def open(cls, correction: ColourCorrection, pins: PinMap) -> Self:
        """The strip the config asks for, on the pin map's bus (override when a strip needs more)."""
        return cls(correction)

    @property
    def count(self) -> int:
        return self.correction.count

    def show(self, frame: Sequence[RGB] | np.ndarray) -> None:
        """Light the strip with one RGB colour per LED."""
        if self.closed:
            raise HardwareError("LED strip is closed")
        wire = self.correction.apply(frame)
        self._write(wire)
        self.lit = bool(wire.any())

    def off(self) -> None:
        self.show(np.zeros((self.count, 3), dtype=np.uint8))

    def set_brightness(self, brightness: float) -> None:
        self.correction = replace(self.correction, brightness=brightness)

    @abstractmethod
    def _write(self, wire: np.ndarray) -> None:
        """Send one frame of wire-order bytes to the LEDs."""

    def close(self) -> None:
        self.closed = True


class MockStrip(LedStrip):
    """A strip that records every frame it is shown: `frames` (logical RGB) and `wire` (bytes sent)."""

    def __init__(self, correction: ColourCorrection):
        super().__init__(correction)
        self.frames: list[tuple[RGB, ...]] = []
        self.wire: list[np.ndarray] = []

    def show(self, frame: Sequence[RGB] | np.ndarray) -> None:
        super().show(frame)
        if not isinstance(frame, tuple):
            frame = tuple(map(tuple, np.asarray(frame, dtype=int).reshape(-1, 3).tolist()))
        self.frames.append(frame)

    def _write(self, wire: np.ndarray) -> None:
        self.wire.append(wire.copy())

    @property
    def last(self) -> tuple[RGB, ...]:
        return self.frames[-1] if self.frames else ()
