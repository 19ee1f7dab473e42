"""The player colours stay apart for colour-blind players: each pair is checked as a protanope, a
deuteranope and a tritanope see it (Machado, Oliveira and Fernandes 2009, severity 1), in CIELAB."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

BOARD_JS = Path(__file__).resolve().parents[2] / "web_ui" / "static" / "js" / "board.js"
MACHADO = {
    "normal": np.eye(3),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}
MIN_DELTA_E = 20.0     # CIE76: clearly different at a glance


def _lab(hex_colour: str, vision: str) -> np.ndarray:
    srgb = np.array([int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    linear = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    seen = np.clip(MACHADO[vision] @ linear, 0, 1)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ seen
    t = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def player_colours() -> list[str]:
    match = re.search(r"const COLOURS = \[([^\]]*)\]", BOARD_JS.read_text())
    assert match, "board.js declares the player colours as COLOURS"
    return re.findall(r'"(#[0-9a-fA-F]{6})"', match.group(1))


@pytest.mark.parametrize("vision", sorted(MACHADO))
def test_four_players_stay_apart(vision):
    colours = player_colours()
    assert len(colours) == 4
    for a, b in itertools.combinations(colours, 2):
        delta = float(np.linalg.norm(_lab(a, vision) - _lab(b, vision)))
        assert delta >= MIN_DELTA_E, f"{a} and {b} look alike with {vision} (delta E {delta:.1f})"


def test_the_old_palette_failed():
    """The check can fail: the earlier blue and purple merge for protanopes."""
    delta = float(np.linalg.norm(_lab("#4da3ff", "protanopia") - _lab("#c77dff", "protanopia")))
    assert delta < MIN_DELTA_E
