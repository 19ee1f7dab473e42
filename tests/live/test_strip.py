"""LED strip drivers: colour correction, power cap, SPI bit encoding; one contract for every driver."""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

from table.errors import HardwareError
from table.hw.spi import RESET_BYTES, SpiStrip, decode_spi, encode_spi
from table.hw.strip import MA_IDLE_PER_LED, MA_PER_CHANNEL, ColourCorrection, MockStrip


class RecordingBus:
    """What spidev.SpiDev offers a driver: writebytes2() and close(); keeps the bytes."""

    def __init__(self) -> None:
        self.writes: list[np.ndarray] = []
        self.closed = False

    def writebytes2(self, data) -> None:
        self.writes.append(np.asarray(data, dtype=np.uint8).copy())

    def close(self) -> None:
        self.closed = True


def _mock(correction):
    strip = MockStrip(correction)
    return strip, lambda: strip.wire[-1]


def _spi_recorded(correction):
    bus = RecordingBus()
    return SpiStrip(correction, spi=bus), lambda: decode_spi(bus.writes[-1], correction.channels)


class TapBus(RecordingBus):
    """A real spidev bus whose writes are also recorded."""

    def __init__(self, bus) -> None:
        super().__init__()
        self.bus = bus

    def writebytes2(self, data) -> None:
        super().writebytes2(data)
        self.bus.writebytes2(data)

    def close(self) -> None:
        self.bus.close()


def _spi_device(correction):
    from table.hw.spi import open_spi

    tap = TapBus(open_spi(0, 0))
    return SpiStrip(correction, spi=tap), lambda: decode_spi(tap.writes[-1], correction.channels)


DRIVERS = [_mock, _spi_recorded]
if os.path.exists("/dev/spidev0.0") and importlib.util.find_spec("spidev"):
    DRIVERS.append(_spi_device)   # on a Pi with SPI enabled: the same contract on the real bus


@pytest.mark.parametrize("driver", DRIVERS, ids=lambda d: d.__name__.strip("_"))
class TestStripContract:
    def test_colour_order_gamma_and_brightness(self, driver):
        strip, sent = driver(ColourCorrection(3, "GRB", gamma=2.0, brightness=0.5, supply_amps=10))
        strip.show([(255, 0, 0), (0, 255, 0), (0, 0, 128)])
        wire = sent()
        # GRB: red travels in the second byte; full red at half brightness -> 128
        assert wire[0].tolist() == [0, 128, 0]
        assert wire[1].tolist() == [128, 0, 0]
        # 128/255 squared (gamma 2) at half brightness: 0.252 * 0.5 * 255 = 32
        assert wire[2].tolist() == [0, 0, 32]

    def test_rgbw_puts_the_white_part_on_the_white_led(self, driver):
        correction = ColourCorrection(3, "GRB", gamma=1.0, brightness=1.0, supply_amps=10, channels=4)
        strip, sent = driver(correction)
        strip.show([(255, 255, 255), (255, 128, 0), (200, 100, 50)])
        wire = sent()
        assert wire.shape == (3, 4)                       # G, R, B, W on the wire
        assert wire[0].tolist() == [0, 0, 0, 255]         # white: the white LED alone
        assert wire[1].tolist() == [128, 255, 0, 0]       # orange has no white part
        # (200, 100, 50): 50 of each is white; what is left keeps the hue
        assert wire[2].tolist() == [50, 150, 0, 50]

    def test_off_sends_all_zero(self, driver):
        strip, sent = driver(ColourCorrection(4, brightness=1.0, supply_amps=10))
        strip.show([(255, 255, 255)] * 4)
        strip.off()
        assert not sent().any()

    def test_wrong_length_frame_is_refused(self, driver):
        strip, _ = driver(ColourCorrection(4))
        with pytest.raises(HardwareError, match="4 LEDs"):
            strip.show([(1, 2, 3)] * 3)

    def test_closed_strip_refuses(self, driver):
        strip, _ = driver(ColourCorrection(2))
        strip.close()
        with pytest.raises(HardwareError, match="closed"):
            strip.show([(0, 0, 0)] * 2)


def test_power_cap_keeps_full_white_within_the_supply():
    # 292 LEDs at full white would draw 292 * 60 mA = 17.5 A; a 4 A supply allows 80% = 3.2 A.
    correction = ColourCorrection(292, brightness=1.0, supply_amps=4.0)
    wire = correction.apply(np.full((292, 3), 255))
    assert correction.current_ma(wire) <= 4000 * 0.8 + 1
    assert correction.current_ma(wire) > 4000 * 0.8 * 0.95         # the cap scales down, not off
    expected_cap = (3200 - 292 * MA_IDLE_PER_LED) / (292 * 3 * MA_PER_CHANNEL)
    assert correction.full_white_cap == pytest.approx(expected_cap)


def test_rgbw_power_cap_counts_the_white_channel():
    # 292 RGBW LEDs at full white light one 20 mA channel each (5.84 A); 4 A allows 3.2 A
    correction = ColourCorrection(292, brightness=1.0, supply_amps=4.0, channels=4)
    wire = correction.apply(np.full((292, 3), 255))
    assert wire[:, :3].max() == 0 and wire[:, 3].min() > 0
    assert 4000 * 0.8 * 0.95 < correction.current_ma(wire) <= 4000 * 0.8 + 1
    assert correction.full_white_cap == pytest.approx((3200 - 292 * MA_IDLE_PER_LED) / (292 * MA_PER_CHANNEL))
    # a saturated colour has no white part: two channels at full, as on an RGB strip
    yellow = correction.apply(np.tile([255, 255, 0], (292, 1)))
    assert yellow[:, 3].max() == 0 and correction.current_ma(yellow) <= 4000 * 0.8 + 1


def test_rgbw_roundtrip_and_config(tmp_path):
    wire = np.arange(256 * 4, dtype=np.uint32).reshape(-1, 4).astype(np.uint8)
    assert np.array_equal(decode_spi(encode_spi(wire), 4), wire)
    with pytest.raises(HardwareError, match="3 \\(RGB\\) or 4 \\(RGBW\\)"):
        ColourCorrection(3, channels=5)
    from table.config import load_config
    from table.errors import ConfigError

    path = tmp_path / "table.toml"
    path.write_text("[hardware]\nstrip_channels = 5\n")
    with pytest.raises(ConfigError, match="strip_channels"):
        load_config(path)
    path.write_text("[hardware]\nstrip_channels = 4\n")
    assert load_config(path).hardware.strip_channels == 4


def test_power_cap_leaves_a_sparse_frame_alone():
    correction = ColourCorrection(292, brightness=1.0, supply_amps=4.0)
    frame = np.zeros((292, 3))
    frame[:10] = 255                                      # 10 LEDs at white: 600 mA, well within
    assert correction.apply(frame)[:10].min() == 255


def test_spi_encoding_is_three_bits_per_bit_msb_first():
    stream = encode_spi(np.array([[0x80, 0x00, 0xFF]], dtype=np.uint8))
    body = stream[1:-RESET_BYTES]
    # 0x80: 110 then seven 100 -> 110100100100100100100100
    assert body[:3].tolist() == [0b11010010, 0b01001001, 0b00100100]
    assert body[3:6].tolist() == [0b10010010, 0b01001001, 0b00100100]   # 0x00
    assert body[6:9].tolist() == [0b11011011, 0b01101101, 0b10110110]   # 0xFF
    assert not stream[-RESET_BYTES:].any() and len(stream) == 1 + 9 + RESET_BYTES


def test_spi_roundtrip_every_byte_value():
    wire = np.arange(256 * 3, dtype=np.uint32).reshape(-1, 3).astype(np.uint8)
    assert np.array_equal(decode_spi(encode_spi(wire)), wire)


def test_spi_strip_without_spidev_says_what_to_do(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_spidev(name, *args, **kwargs):
        if name == "spidev":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_spidev)
    with pytest.raises(HardwareError, match="spidev"):
        SpiStrip(ColourCorrection(3))
