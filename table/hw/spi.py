"""A WS2812B/SK6812 strip on the Pi's SPI bus (`[hardware] strip = "spi"`).

Each data bit goes out as three SPI bits (1 -> 110, 0 -> 100) at 2.4 MHz, which gives the WS2812's
0.4/0.8 us pulses on every Pi including the Pi 5; it needs only MOSI (GPIO 10). spidev is imported
only when the bus is opened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

import numpy as np

from table.errors import HardwareError
from table.hw.strip import ColourCorrection, LedStrip

if TYPE_CHECKING:
    from table.hw.pinmap import PinMap

SPI_HZ = 2_400_000
RESET_BYTES = 90           # 300 us of low at 2.4 MHz latches the frame (WS2812B needs > 280 us)


# Each data byte becomes 3 SPI bytes: bit 1 -> 0b110, bit 0 -> 0b100, most significant bit first.
def _spi_table() -> np.ndarray:
    table = np.zeros((256, 3), dtype=np.uint8)
    for value in range(256):
        bits = 0
        for i in range(7, -1, -1):
            bits = (bits << 3) | (0b110 if value >> i & 1 else 0b100)
        table[value] = [(bits >> 16) & 0xFF, (bits >> 8) & 0xFF, bits & 0xFF]
    return table


SPI_TABLE = _spi_table()


def encode_spi(wire: np.ndarray) -> np.ndarray:
    """The SPI byte stream for a corrected frame, followed by the latch (reset) gap."""
    data = SPI_TABLE[wire.reshape(-1)].reshape(-1)
    return np.concatenate([np.zeros(1, dtype=np.uint8), data, np.zeros(RESET_BYTES, dtype=np.uint8)])


def decode_spi(stream: np.ndarray, channels: int = 3) -> np.ndarray:
    """Inverse of `encode_spi`: the wire bytes, (N, channels) (tests read back what went over the bus)."""
    body = np.asarray(stream, dtype=np.uint8)[1:-RESET_BYTES].reshape(-1, 3).astype(np.uint32)
    bits = (body[:, 0] << 16) | (body[:, 1] << 8) | body[:, 2]
    values: np.ndarray = np.zeros(len(bits), dtype=np.uint32)
    for i in range(8):
        values = (values << 1) | ((bits >> (3 * (7 - i) + 1)) & 1)
    return values.astype(np.uint8).reshape(-1, channels)


class SpiStrip(LedStrip):
    """A WS2812B/SK6812 strip on the SPI bus's MOSI pin (`/dev/spidev{bus}.{device}`); RGBW strips
    use the same timing with 32 bits per LED instead of 24."""

    def __init__(self, correction: ColourCorrection, bus: int = 0, device: int = 0, spi: Any = None):
        super().__init__(correction)
        if spi is None:
            spi = open_spi(bus, device)
        self.spi = spi

    @classmethod
    def open(cls, correction: ColourCorrection, pins: PinMap) -> Self:
        return cls(correction, pins.spi_bus, pins.spi_device)

    def _write(self, wire: np.ndarray) -> None:
        try:
            self.spi.writebytes2(encode_spi(wire))
        except OSError as exc:
            raise HardwareError(f"LED strip: SPI write failed: {exc}") from None

    def close(self) -> None:
        if not self.closed:
            self.spi.close()
        super().close()


def open_spi(bus: int, device: int) -> Any:
    """Open `/dev/spidev{bus}.{device}` for a WS2812 strip (spidev is imported here, lazily)."""
    try:
        import spidev
    except ImportError:
        raise HardwareError("LED strip: the spidev package is missing (pip install spidev, "
                            "or set hardware.strip = \"mock\")") from None
    spi = spidev.SpiDev()
    try:
        spi.open(bus, device)
    except OSError as exc:
        raise HardwareError(f"LED strip: cannot open /dev/spidev{bus}.{device}: {exc.strerror} "
                            "(enable SPI: sudo raspi-config nonint do_spi 0)") from None
    spi.max_speed_hz = SPI_HZ
    spi.mode = 0
    return spi
